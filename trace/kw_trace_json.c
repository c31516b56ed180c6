/* kw_trace_json.c: reading a rocprofv3 kernel trace in its JSON form
 * (`rocprofv3 --kernel-trace --output-format json`, the *_results.json file):
 * the JSON tree (common/kw_json.h), then the walk over
 * rocprofiler-sdk-tool[] described in kw_trace.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_json.h"
#include "trace/kw_trace.h"

/* ---- The rocprofv3 document ---- */

/* An id: a number, or {"handle": number}. */
static bool kw_jid(const kw_json *v, long long *out) {
    if (v && v->type == KW_J_OBJ)
        v = kw_json_get(v, "handle");
    return kw_json_int(v, out);
}

static bool kw_jdim3(const kw_json *v, long long out[3]) {
    static const char *const xyz[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++)
        if (!kw_json_int(kw_json_get(v, xyz[i]), &out[i]) || out[i] < 0)
            return false;
    return true;
}

/* kernel_id -> name, sorted by id for bsearch. */
typedef struct kw_jsym {
    long long id;
    const char *name;
} kw_jsym;

static int kw_jsym_cmp(const void *a, const void *b) {
    long long x = ((const kw_jsym *)a)->id, y = ((const kw_jsym *)b)->id;
    return x < y ? -1 : x > y;
}

/* The name a kernel_symbols record gives: the mangled kernel_name without
 * ".kd", else the formatted, demangled or truncated name. */
static const char *kw_jsymbol_name(kw_trace *t, const kw_json *s) {
    const char *n = kw_json_str(kw_json_get(s, "kernel_name"));
    if (n) {
        size_t len = strlen(n);
        if (len > 3 && !strcmp(n + len - 3, ".kd"))
            return kw_arena_strndup(&t->arena, n, len - 3);
        return n;
    }
    static const char *const alt[] = {"formatted_kernel_name", "demangled_kernel_name",
                                      "truncated_kernel_name"};
    for (int k = 0; k < 3; k++)
        if ((n = kw_json_str(kw_json_get(s, alt[k]))))
            return n;
    return NULL;
}

/* The table of kernel_symbols: a list of records with kernel_id (a record
 * without one has its position as id), or an object keyed by the id. Records
 * without a name are left out. */
static kw_jsym *kw_jsyms(kw_trace *t, const kw_json *syms, size_t *n) {
    *n = 0;
    if (!syms || (syms->type != KW_J_ARR && syms->type != KW_J_OBJ) || !syms->n)
        return NULL;
    kw_jsym *v = kw_arena_alloc(&t->arena, syms->n * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < syms->n; i++) {
        const kw_json *s = &syms->items[i];
        long long id;
        if (syms->type == KW_J_OBJ) {
            char *e;
            errno = 0;
            id = strtoll(syms->keys[i], &e, 10);
            if (*e || errno || !syms->keys[i][0])
                continue;
        } else if (!kw_json_int(kw_json_get(s, "kernel_id"), &id)) {
            id = (long long)i; /* a list indexed by the id */
        }
        const char *name = kw_jsymbol_name(t, s);
        if (name)
            v[(*n)++] = (kw_jsym){id, name};
    }
    qsort(v, *n, sizeof *v, kw_jsym_cmp);
    return v;
}

static const char *kw_jagent_arch(const kw_json *agents, long long id) {
    if (!agents || agents->type != KW_J_ARR)
        return NULL;
    for (size_t i = 0; i < agents->n; i++) {
        long long aid;
        const kw_json *a = &agents->items[i];
        if (kw_jid(kw_json_get(a, "id"), &aid) && aid == id) {
            const char *n = kw_json_str(kw_json_get(a, "name"));
            return n && !strncmp(n, "gfx", 3) ? n : NULL;
        }
    }
    return NULL;
}

static kw_status kw_jtool(kw_trace *t, const char *name, const kw_json *tool, size_t ti,
                          bool *found, kw_err *err) {
    const kw_json *recs = kw_json_get(kw_json_get(tool, "buffer_records"), "kernel_dispatch");
    if (!recs)
        return KW_OK;
    if (recs->type != KW_J_ARR)
        return kw_fail(err, "%s: rocprofiler-sdk-tool[%zu].buffer_records.kernel_dispatch is not "
                            "a list",
                       name, ti);
    *found = true;
    size_t nsyms;
    kw_jsym *syms = kw_jsyms(t, kw_json_get(tool, "kernel_symbols"), &nsyms);
    const kw_json *agents = kw_json_get(tool, "agents");
    for (size_t i = 0; i < recs->n; i++) {
        const kw_json *r = &recs->items[i];
        const kw_json *info = kw_json_get(r, "dispatch_info");
        long long kid;
        if (!kw_json_int(kw_json_get(info, "kernel_id"), &kid))
            return kw_fail(err, "%s: kernel_dispatch[%zu]: no dispatch_info.kernel_id", name, i);
        kw_dispatch *d = KW_PUSH(&t->arena, t->d);
        if (!d)
            return kw_fail(err, "%s: out of memory", name);
        d->line = (long)i + 1;
        kw_jsym key = {kid, NULL};
        const kw_jsym *sym = nsyms ? bsearch(&key, syms, nsyms, sizeof key, kw_jsym_cmp) : NULL;
        d->name = sym ? sym->name : NULL;
        if (!d->name)
            return kw_fail(err, "%s: kernel_dispatch[%zu]: kernel_id %lld is not in kernel_symbols",
                           name, i, kid);
        if (!kw_json_int(kw_json_get(r, "start_timestamp"), &d->start_ns) ||
            !kw_json_int(kw_json_get(r, "end_timestamp"), &d->end_ns) || d->start_ns < 0)
            return kw_fail(err, "%s: kernel_dispatch[%zu]: start_timestamp / end_timestamp are not "
                                "non-negative integers",
                           name, i);
        if (d->end_ns < d->start_ns)
            return kw_fail(err, "%s: kernel_dispatch[%zu]: end_timestamp %lld is before "
                                "start_timestamp %lld",
                           name, i, d->end_ns, d->start_ns);
        d->has_config = kw_jdim3(kw_json_get(info, "grid_size"), d->grid) &&
                        kw_jdim3(kw_json_get(info, "workgroup_size"), d->block);
        for (int k = 0; d->has_config && k < 3; k++)
            if (d->block[k] == 0)
                return kw_fail(err,
                               "%s: kernel_dispatch[%zu]: workgroup_size.%c is 0 (a workgroup "
                               "has at least one work item)",
                               name, i, "xyz"[k]);
        long long aid;
        if (kw_jid(kw_json_get(info, "agent_id"), &aid))
            d->arch = kw_jagent_arch(agents, aid);
    }
    return KW_OK;
}

kw_status kw_trace_parse_json(kw_trace *t, const char *name, const char *text, size_t len,
                              kw_err *err) {
    t->path = kw_arena_strdup(&t->arena, name);
    t->format = "json";
    kw_json root;
    if (kw_json_parse(&t->arena, name, text, len, &root, err))
        return KW_ERR;
    const kw_json *tools = kw_json_get(&root, "rocprofiler-sdk-tool");
    bool found = false;
    if (tools && tools->type == KW_J_ARR) {
        for (size_t i = 0; i < tools->n; i++)
            if (kw_jtool(t, name, &tools->items[i], i, &found, err))
                return KW_ERR;
    } else if (tools && tools->type == KW_J_OBJ) {
        if (kw_jtool(t, name, tools, 0, &found, err))
            return KW_ERR;
    }
    if (!found)
        return kw_fail(err, "%s: no rocprofiler-sdk-tool[].buffer_records.kernel_dispatch (not a "
                            "rocprofv3 JSON trace? it is written by 'rocprofv3 --kernel-trace "
                            "--output-format json')",
                       name);
    return KW_OK;
}
