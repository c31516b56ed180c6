/* kw_trace_json.c: reading a rocprofv3 kernel trace in its JSON form
 * (`rocprofv3 --kernel-trace --output-format json`, the *_results.json file):
 * the document parsed by jansson (common/kw_jansson.h), then the walk over
 * rocprofiler-sdk-tool[] described in kw_trace.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_jansson.h"
#include "trace/kw_trace.h"

/* ---- The rocprofv3 document ---- */

/* An id: a number, or {"handle": number}. */
static bool kw_jid(const json_t *v, long long *out) {
    if (json_is_object(v))
        v = json_object_get(v, "handle");
    return kw_jansson_int(v, out);
}

static bool kw_jdim3(const json_t *v, long long out[3]) {
    static const char *const xyz[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++)
        if (!kw_jansson_int(json_object_get(v, xyz[i]), &out[i]) || out[i] < 0)
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

/* A string of the document, copied into the trace's arena (the document is
 * released once read). */
static const char *kw_jkeep(kw_trace *t, const char *s, size_t len) {
    return s ? kw_arena_strndup(&t->arena, s, len) : NULL;
}

/* The name a kernel_symbols record gives: the mangled kernel_name without
 * ".kd", else the formatted, demangled or truncated name. NULL also when out
 * of memory (the record is then left out). */
static const char *kw_jsymbol_name(kw_trace *t, const json_t *s) {
    const char *n = kw_jansson_str(json_object_get(s, "kernel_name"));
    if (n) {
        size_t len = strlen(n);
        return kw_jkeep(t, n, len > 3 && !strcmp(n + len - 3, ".kd") ? len - 3 : len);
    }
    static const char *const alt[] = {"formatted_kernel_name", "demangled_kernel_name",
                                      "truncated_kernel_name"};
    for (int k = 0; k < 3; k++)
        if ((n = kw_jansson_str(json_object_get(s, alt[k]))))
            return kw_jkeep(t, n, strlen(n));
    return NULL;
}

static void kw_jsym_add(kw_trace *t, kw_jsym *v, size_t *n, long long id, const json_t *s) {
    const char *name = kw_jsymbol_name(t, s);
    if (name)
        v[(*n)++] = (kw_jsym){id, name};
}

/* The table of kernel_symbols: a list of records with kernel_id (a record
 * without one has its position as id), or an object keyed by the id. Records
 * without a name are left out. */
static kw_jsym *kw_jsyms(kw_trace *t, const json_t *syms, size_t *n) {
    *n = 0;
    size_t total = json_is_array(syms)    ? json_array_size(syms)
                   : json_is_object(syms) ? json_object_size(syms)
                                          : 0;
    kw_jsym *v = total ? kw_arena_alloc(&t->arena, total * sizeof *v) : NULL;
    if (!v)
        return NULL;
    if (json_is_object(syms)) {
        const char *key;
        json_t *s;
        json_object_foreach((json_t *)syms, key, s) {
            char *e;
            errno = 0;
            long long id = strtoll(key, &e, 10);
            if (!*e && !errno && key[0])
                kw_jsym_add(t, v, n, id, s);
        }
    } else {
        size_t i;
        json_t *s;
        json_array_foreach(syms, i, s) {
            long long id;
            if (!kw_jansson_int(json_object_get(s, "kernel_id"), &id))
                id = (long long)i; /* a list indexed by the id */
            kw_jsym_add(t, v, n, id, s);
        }
    }
    qsort(v, *n, sizeof *v, kw_jsym_cmp);
    return v;
}

/* The arch of agent id: its name when that is a gfx name, copied. */
static const char *kw_jagent_arch(kw_trace *t, const json_t *agents, long long id) {
    size_t i;
    json_t *a;
    json_array_foreach(agents, i, a) {
        long long aid;
        if (kw_jid(json_object_get(a, "id"), &aid) && aid == id) {
            const char *n = kw_jansson_str(json_object_get(a, "name"));
            return n && !strncmp(n, "gfx", 3) ? kw_jkeep(t, n, strlen(n)) : NULL;
        }
    }
    return NULL;
}

static kw_status kw_jtool(kw_trace *t, const char *name, const json_t *tool, size_t ti, bool *found,
                          kw_err *err) {
    const json_t *recs =
        json_object_get(json_object_get(tool, "buffer_records"), "kernel_dispatch");
    if (!recs)
        return KW_OK;
    if (!json_is_array(recs))
        return kw_fail(err, "%s: rocprofiler-sdk-tool[%zu].buffer_records.kernel_dispatch is not "
                            "a list",
                       name, ti);
    *found = true;
    size_t nsyms;
    kw_jsym *syms = kw_jsyms(t, json_object_get(tool, "kernel_symbols"), &nsyms);
    const json_t *agents = json_object_get(tool, "agents");
    size_t i;
    json_t *r;
    json_array_foreach(recs, i, r) {
        const json_t *info = json_object_get(r, "dispatch_info");
        long long kid;
        if (!kw_jansson_int(json_object_get(info, "kernel_id"), &kid))
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
        if (!kw_jansson_int(json_object_get(r, "start_timestamp"), &d->start_ns) ||
            !kw_jansson_int(json_object_get(r, "end_timestamp"), &d->end_ns) || d->start_ns < 0)
            return kw_fail(err, "%s: kernel_dispatch[%zu]: start_timestamp / end_timestamp are not "
                                "non-negative integers",
                           name, i);
        if (d->end_ns < d->start_ns)
            return kw_fail(err, "%s: kernel_dispatch[%zu]: end_timestamp %lld is before "
                                "start_timestamp %lld",
                           name, i, d->end_ns, d->start_ns);
        d->has_config = kw_jdim3(json_object_get(info, "grid_size"), d->grid) &&
                        kw_jdim3(json_object_get(info, "workgroup_size"), d->block);
        for (int k = 0; d->has_config && k < 3; k++)
            if (d->block[k] == 0)
                return kw_fail(err,
                               "%s: kernel_dispatch[%zu]: workgroup_size.%c is 0 (a workgroup "
                               "has at least one work item)",
                               name, i, "xyz"[k]);
        long long aid;
        if (kw_jid(json_object_get(info, "agent_id"), &aid))
            d->arch = kw_jagent_arch(t, agents, aid);
    }
    return KW_OK;
}

kw_status kw_trace_parse_json(kw_trace *t, const char *name, const char *text, size_t len,
                              kw_err *err) {
    t->path = kw_arena_strdup(&t->arena, name);
    t->format = "json";
    json_t *root;
    if (kw_jansson_load(name, text, len, &root, err))
        return KW_ERR;
    const json_t *tools = json_object_get(root, "rocprofiler-sdk-tool");
    bool found = false;
    kw_status st = KW_OK;
    if (json_is_array(tools)) {
        size_t i;
        json_t *tool;
        json_array_foreach(tools, i, tool) {
            if ((st = kw_jtool(t, name, tool, i, &found, err)) != KW_OK)
                break;
        }
    } else if (json_is_object(tools)) {
        st = kw_jtool(t, name, tools, 0, &found, err);
    }
    json_decref(root);
    if (st == KW_OK && !found)
        st = kw_fail(err,
                     "%s: no rocprofiler-sdk-tool[].buffer_records.kernel_dispatch (not a "
                     "rocprofv3 JSON trace? it is written by 'rocprofv3 --kernel-trace "
                     "--output-format json')",
                     name);
    return st;
}
