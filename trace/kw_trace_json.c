/* kw_trace_json.c: reading a rocprofv3 kernel trace in its JSON form
 * (`rocprofv3 --kernel-trace --output-format json`, the *_results.json file):
 * a small JSON parser (RFC 8259; integers kept exact as 64-bit values, since
 * nanosecond timestamps exceed a double's 53 bits) building a tree in an
 * arena, then the walk over rocprofiler-sdk-tool[] described in kw_trace.h. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"
#include "trace/kw_trace.h"

typedef enum kw_jtype { KW_J_NULL, KW_J_BOOL, KW_J_NUM, KW_J_STR, KW_J_ARR, KW_J_OBJ } kw_jtype;

typedef struct kw_json kw_json;
struct kw_json {
    kw_jtype type;
    bool b;
    bool is_int;      /* KW_J_NUM written as an integer that fits in i */
    long long i;
    double d;
    const char *s;    /* KW_J_STR */
    size_t n;         /* KW_J_ARR, KW_J_OBJ: elements */
    kw_json *items;   /* KW_J_ARR: n values; KW_J_OBJ: n values, keys in keys */
    const char **keys;
};

enum { KW_JSON_MAX_DEPTH = 512 };

typedef struct kw_jp {
    const char *name;
    const char *start, *p, *end;
    kw_arena *arena;
    kw_buf tmp;
    kw_err *err;
} kw_jp;

static kw_status kw_trace_json_fail(kw_jp *jp, const char *what) {
    size_t line = 1;
    for (const char *q = jp->start; q < jp->p; q++)
        line += *q == '\n';
    return kw_fail(jp->err, "%s: line %zu (offset %zu): %s", jp->name, line,
                   (size_t)(jp->p - jp->start), what);
}

static void kw_trace_json_ws(kw_jp *jp) {
    while (jp->p < jp->end &&
           (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
        jp->p++;
}

static void kw_utf8(kw_buf *b, unsigned long cp) {
    char u[4];
    if (cp < 0x80) {
        kw_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        kw_buf_append(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        kw_buf_append(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        kw_buf_append(b, u, 4);
    }
}

static int kw_hex4(const char *p, const char *end, unsigned long *out) {
    if (end - p < 4)
        return 0;
    unsigned long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned long)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* A string at jp->p (the opening quote); the result in the arena. */
static kw_status kw_trace_json_string(kw_jp *jp, const char **out) {
    jp->p++;
    kw_buf_reset(&jp->tmp);
    for (;;) {
        const char *s = jp->p;
        while (jp->p < jp->end && *jp->p != '"' && *jp->p != '\\' && (unsigned char)*jp->p >= 0x20)
            jp->p++;
        kw_buf_append(&jp->tmp, s, (size_t)(jp->p - s));
        if (jp->p >= jp->end)
            return kw_trace_json_fail(jp, "unterminated string");
        char c = *jp->p;
        if (c == '"') {
            jp->p++;
            break;
        }
        if (c != '\\')
            return kw_trace_json_fail(jp, "control character in a string");
        if (jp->end - jp->p < 2)
            return kw_trace_json_fail(jp, "unterminated string");
        char e = jp->p[1];
        jp->p += 2;
        switch (e) {
        case '"': kw_buf_putc(&jp->tmp, '"'); break;
        case '\\': kw_buf_putc(&jp->tmp, '\\'); break;
        case '/': kw_buf_putc(&jp->tmp, '/'); break;
        case 'b': kw_buf_putc(&jp->tmp, '\b'); break;
        case 'f': kw_buf_putc(&jp->tmp, '\f'); break;
        case 'n': kw_buf_putc(&jp->tmp, '\n'); break;
        case 'r': kw_buf_putc(&jp->tmp, '\r'); break;
        case 't': kw_buf_putc(&jp->tmp, '\t'); break;
        case 'u': {
            unsigned long cp, lo;
            if (!kw_hex4(jp->p, jp->end, &cp))
                return kw_trace_json_fail(jp, "bad \\u escape");
            jp->p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && jp->end - jp->p >= 6 && jp->p[0] == '\\' &&
                jp->p[1] == 'u' && kw_hex4(jp->p + 2, jp->end, &lo) && lo >= 0xDC00 &&
                lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                jp->p += 6;
            } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                cp = 0xFFFD; /* a lone surrogate */
            }
            if (cp == 0)
                return kw_trace_json_fail(jp, "\\u0000 in a string");
            kw_utf8(&jp->tmp, cp);
            break;
        }
        default:
            jp->p--;
            return kw_trace_json_fail(jp, "bad escape in a string");
        }
    }
    if (jp->tmp.oom)
        return kw_fail(jp->err, "%s: out of memory", jp->name);
    *out = kw_arena_strndup(jp->arena, kw_buf_str(&jp->tmp), jp->tmp.len);
    return *out ? KW_OK : kw_fail(jp->err, "%s: out of memory", jp->name);
}

static kw_status kw_trace_json_number(kw_jp *jp, kw_json *v) {
    const char *s = jp->p;
    if (jp->p < jp->end && *jp->p == '-')
        jp->p++;
    if (jp->p >= jp->end || *jp->p < '0' || *jp->p > '9')
        return kw_trace_json_fail(jp, "unexpected character");
    if (*jp->p == '0')
        jp->p++;
    else
        while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
            jp->p++;
    bool integer = true;
    if (jp->p < jp->end && *jp->p == '.') {
        integer = false;
        jp->p++;
        if (jp->p >= jp->end || *jp->p < '0' || *jp->p > '9')
            return kw_trace_json_fail(jp, "bad number");
        while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
            jp->p++;
    }
    if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E')) {
        integer = false;
        jp->p++;
        if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
            jp->p++;
        if (jp->p >= jp->end || *jp->p < '0' || *jp->p > '9')
            return kw_trace_json_fail(jp, "bad number");
        while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
            jp->p++;
    }
    char buf[64];
    size_t n = (size_t)(jp->p - s);
    if (n >= sizeof buf)
        n = sizeof buf - 1; /* a longer number is beyond any value read here */
    memcpy(buf, s, n);
    buf[n] = '\0';
    v->type = KW_J_NUM;
    v->d = strtod(buf, NULL);
    if (integer) {
        errno = 0;
        long long i = strtoll(buf, NULL, 10);
        if (errno != ERANGE) {
            v->is_int = true;
            v->i = i;
        }
    }
    return KW_OK;
}

static kw_status kw_trace_json_value(kw_jp *jp, kw_json *v, int depth);

/* Elements of an array or members of an object, collected in a temporary
 * growable block, then copied into the arena at their final size. */
typedef struct kw_jlist {
    kw_json *v;
    const char **k;
    size_t n, cap;
} kw_jlist;

static kw_status kw_trace_json_push(kw_jp *jp, kw_jlist *l, bool keys) {
    if (l->n < l->cap)
        return KW_OK;
    size_t cap = l->cap ? 2 * l->cap : 8;
    kw_json *v = realloc(l->v, cap * sizeof *v);
    if (!v)
        return kw_fail(jp->err, "%s: out of memory", jp->name);
    l->v = v;
    if (keys) {
        const char **k = realloc(l->k, cap * sizeof *k);
        if (!k)
            return kw_fail(jp->err, "%s: out of memory", jp->name);
        l->k = k;
    }
    l->cap = cap;
    return KW_OK;
}

static kw_status kw_trace_json_finish(kw_jp *jp, kw_jlist *l, kw_json *out, bool keys) {
    out->n = l->n;
    if (l->n) {
        out->items = kw_arena_alloc(jp->arena, l->n * sizeof(kw_json));
        if (keys)
            out->keys = kw_arena_alloc(jp->arena, l->n * sizeof(char *));
        if (!out->items || (keys && !out->keys))
            return kw_fail(jp->err, "%s: out of memory", jp->name);
        memcpy(out->items, l->v, l->n * sizeof(kw_json));
        if (keys)
            memcpy(out->keys, l->k, l->n * sizeof(char *));
    }
    return KW_OK;
}

static kw_status kw_trace_json_compound(kw_jp *jp, kw_json *v, int depth, bool obj) {
    if (depth >= KW_JSON_MAX_DEPTH)
        return kw_trace_json_fail(jp, "nested too deeply");
    char close = obj ? '}' : ']';
    v->type = obj ? KW_J_OBJ : KW_J_ARR;
    jp->p++;
    kw_jlist l = {0};
    kw_status st = KW_ERR;
    kw_trace_json_ws(jp);
    if (jp->p < jp->end && *jp->p == close) {
        jp->p++;
        return KW_OK;
    }
    for (;;) {
        if (kw_trace_json_push(jp, &l, obj))
            goto out;
        kw_json *e = &l.v[l.n];
        memset(e, 0, sizeof *e);
        kw_trace_json_ws(jp);
        if (obj) {
            if (jp->p >= jp->end || *jp->p != '"') {
                kw_trace_json_fail(jp, "expected a string key");
                goto out;
            }
            if (kw_trace_json_string(jp, &l.k[l.n]))
                goto out;
            kw_trace_json_ws(jp);
            if (jp->p >= jp->end || *jp->p != ':') {
                kw_trace_json_fail(jp, "expected ':'");
                goto out;
            }
            jp->p++;
        }
        if (kw_trace_json_value(jp, e, depth + 1))
            goto out;
        l.n++;
        kw_trace_json_ws(jp);
        if (jp->p < jp->end && *jp->p == ',') {
            jp->p++;
            continue;
        }
        if (jp->p < jp->end && *jp->p == close) {
            jp->p++;
            break;
        }
        kw_trace_json_fail(jp, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        goto out;
    }
    st = kw_trace_json_finish(jp, &l, v, obj);
out:
    free(l.v);
    free(l.k);
    return st;
}

static kw_status kw_trace_json_value(kw_jp *jp, kw_json *v, int depth) {
    kw_trace_json_ws(jp);
    if (jp->p >= jp->end)
        return kw_trace_json_fail(jp, "unexpected end of file (truncated?)");
    switch (*jp->p) {
    case '{':
        return kw_trace_json_compound(jp, v, depth, true);
    case '[':
        return kw_trace_json_compound(jp, v, depth, false);
    case '"':
        v->type = KW_J_STR;
        return kw_trace_json_string(jp, &v->s);
    case 't':
    case 'f':
    case 'n': {
        static const char *const words[] = {"true", "false", "null"};
        for (int i = 0; i < 3; i++) {
            size_t n = strlen(words[i]);
            if ((size_t)(jp->end - jp->p) >= n && !memcmp(jp->p, words[i], n)) {
                jp->p += n;
                v->type = i == 2 ? KW_J_NULL : KW_J_BOOL;
                v->b = i == 0;
                return KW_OK;
            }
        }
        return kw_trace_json_fail(jp, "unexpected word");
    }
    default:
        return kw_trace_json_number(jp, v);
    }
}

/* ---- The rocprofv3 document ---- */

static const kw_json *kw_jget(const kw_json *o, const char *key) {
    if (!o || o->type != KW_J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key))
            return &o->items[i];
    return NULL;
}

static bool kw_jint(const kw_json *v, long long *out) {
    if (!v || v->type != KW_J_NUM)
        return false;
    if (v->is_int) {
        *out = v->i;
        return true;
    }
    if (v->d != floor(v->d) || fabs(v->d) > 9.0e15)
        return false;
    *out = (long long)v->d;
    return true;
}

/* An id: a number, or {"handle": number}. */
static bool kw_jid(const kw_json *v, long long *out) {
    if (v && v->type == KW_J_OBJ)
        v = kw_jget(v, "handle");
    return kw_jint(v, out);
}

static const char *kw_jstr(const kw_json *v) {
    return v && v->type == KW_J_STR && v->s[0] ? v->s : NULL;
}

static bool kw_jdim3(const kw_json *v, long long out[3]) {
    static const char *const xyz[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++)
        if (!kw_jint(kw_jget(v, xyz[i]), &out[i]) || out[i] < 0)
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
    const char *n = kw_jstr(kw_jget(s, "kernel_name"));
    if (n) {
        size_t len = strlen(n);
        if (len > 3 && !strcmp(n + len - 3, ".kd"))
            return kw_arena_strndup(&t->arena, n, len - 3);
        return n;
    }
    static const char *const alt[] = {"formatted_kernel_name", "demangled_kernel_name",
                                      "truncated_kernel_name"};
    for (int k = 0; k < 3; k++)
        if ((n = kw_jstr(kw_jget(s, alt[k]))))
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
        } else if (!kw_jint(kw_jget(s, "kernel_id"), &id)) {
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
        if (kw_jid(kw_jget(a, "id"), &aid) && aid == id) {
            const char *n = kw_jstr(kw_jget(a, "name"));
            return n && !strncmp(n, "gfx", 3) ? n : NULL;
        }
    }
    return NULL;
}

static kw_status kw_jtool(kw_trace *t, const char *name, const kw_json *tool, size_t ti,
                          bool *found, kw_err *err) {
    const kw_json *recs = kw_jget(kw_jget(tool, "buffer_records"), "kernel_dispatch");
    if (!recs)
        return KW_OK;
    if (recs->type != KW_J_ARR)
        return kw_fail(err, "%s: rocprofiler-sdk-tool[%zu].buffer_records.kernel_dispatch is not "
                            "a list",
                       name, ti);
    *found = true;
    size_t nsyms;
    kw_jsym *syms = kw_jsyms(t, kw_jget(tool, "kernel_symbols"), &nsyms);
    const kw_json *agents = kw_jget(tool, "agents");
    for (size_t i = 0; i < recs->n; i++) {
        const kw_json *r = &recs->items[i];
        const kw_json *info = kw_jget(r, "dispatch_info");
        long long kid;
        if (!kw_jint(kw_jget(info, "kernel_id"), &kid))
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
        if (!kw_jint(kw_jget(r, "start_timestamp"), &d->start_ns) ||
            !kw_jint(kw_jget(r, "end_timestamp"), &d->end_ns) || d->start_ns < 0)
            return kw_fail(err, "%s: kernel_dispatch[%zu]: start_timestamp / end_timestamp are not "
                                "non-negative integers",
                           name, i);
        if (d->end_ns < d->start_ns)
            return kw_fail(err, "%s: kernel_dispatch[%zu]: end_timestamp %lld is before "
                                "start_timestamp %lld",
                           name, i, d->end_ns, d->start_ns);
        d->has_config = kw_jdim3(kw_jget(info, "grid_size"), d->grid) &&
                        kw_jdim3(kw_jget(info, "workgroup_size"), d->block);
        for (int k = 0; d->has_config && k < 3; k++)
            if (d->block[k] == 0)
                return kw_fail(err,
                               "%s: kernel_dispatch[%zu]: workgroup_size.%c is 0 (a workgroup "
                               "has at least one work item)",
                               name, i, "xyz"[k]);
        long long aid;
        if (kw_jid(kw_jget(info, "agent_id"), &aid))
            d->arch = kw_jagent_arch(agents, aid);
    }
    return KW_OK;
}

kw_status kw_trace_parse_json(kw_trace *t, const char *name, const char *text, size_t len,
                              kw_err *err) {
    kw_jp jp = {.name = name, .start = text, .p = text, .end = text + len, .arena = &t->arena,
                .err = err};
    kw_buf_init(&jp.tmp);
    t->path = kw_arena_strdup(&t->arena, name);
    t->format = "json";
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        jp.p += 3;
    kw_json root;
    memset(&root, 0, sizeof root);
    kw_status st = kw_trace_json_value(&jp, &root, 0);
    kw_buf_free(&jp.tmp);
    if (st)
        return st;
    kw_trace_json_ws(&jp);
    if (jp.p != jp.end)
        return kw_trace_json_fail(&jp, "text after the JSON value");
    const kw_json *tools = kw_jget(&root, "rocprofiler-sdk-tool");
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
