/* kw_call_graph.c: the device call graph of a translation unit: kernels' call
 * trees factored into one table of edges per calling function, and the walk
 * that gives them back (see kw_call_graph.h). */
#define _POSIX_C_SOURCE 200809L
#include "sidecar/kw_call_graph.h"

#include <fnmatch.h>

#include <stddef.h>
#include <string.h>

#include "sidecar/kw_schema.h"
#include "common/kw_symmap.h"

/* ---- Schema --------------------------------------------------------------------------------- */

/* An edge: a call record without caller (the table's key) and depth (the walk's). */
static const kw_field kw_f_edge[] = {
    {"name", KW_F_STR, offsetof(kw_call, name), NULL, 0, NULL},
    {"symbol", KW_F_STR, offsetof(kw_call, symbol), NULL, 0, NULL},
    {"system", KW_F_BOOL, offsetof(kw_call, system), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_call, location), NULL, 0, NULL},
    {"callee_location", KW_F_LOC, offsetof(kw_call, callee_location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_edge, "call edge", kw_call, true, kw_f_edge);

static const kw_field kw_f_device_fn[] = {
    {"symbol", KW_F_STR, offsetof(kw_device_fn, symbol), NULL, KW_F_REQUIRED, NULL},
    {"calls", KW_F_LIST, offsetof(kw_device_fn, calls), &kw_t_edge, KW_F_ALWAYS, NULL},
};
static KW_TYPE(kw_t_device_fn, "device function", kw_device_fn, false, kw_f_device_fn);

static const kw_field kw_f_call_graph[] = {
    {"device_calls", KW_F_KEYED, offsetof(kw_call_graph, fns), &kw_t_device_fn, 0, NULL},
};
KW_TYPE(kw_t_call_graph, "device call graph", kw_call_graph, false, kw_f_call_graph);

/* ---- The walk ------------------------------------------------------------------------------- */

typedef struct kw_walk {
    const kw_call_graph *g;
    kw_symmap by_symbol; /* symbol -> index in g->fns */
    unsigned *stamp;     /* per function: the walk that expanded it last */
    unsigned walk;       /* the current walk's number (from 1) */
    kw_arena *a;
    kw_call *out; /* the calls walked so far */
    size_t n, cap;
    bool oom;
} kw_walk;

static bool kw_walk_init(kw_walk *w, const kw_call_graph *g, kw_arena *a) {
    memset(w, 0, sizeof *w);
    w->g = g;
    w->a = a;
    kw_symmap_init(&w->by_symbol);
    w->stamp = g->fns.n ? kw_arena_alloc(a, g->fns.n * sizeof *w->stamp) : NULL;
    if (g->fns.n && !w->stamp)
        return false;
    for (size_t i = 0; i < g->fns.n; i++) {
        w->stamp[i] = 0;
        const char *s = g->fns.v[i].symbol;
        /* the first record of a symbol is the one written and read */
        if (s && !kw_symmap_get(&w->by_symbol, s) && kw_symmap_put(&w->by_symbol, s, i) != KW_OK)
            return false;
    }
    return true;
}

static void kw_walk_fn(kw_walk *w, const char *symbol, int depth) {
    if (w->oom || depth > KW_CALL_DEPTH_MAX || !symbol)
        return;
    size_t *at = kw_symmap_get(&w->by_symbol, symbol);
    if (!at || w->stamp[*at] == w->walk)
        return;
    w->stamp[*at] = w->walk;
    const kw_device_fn *fn = &w->g->fns.v[*at];
    for (size_t i = 0; i < fn->calls.n; i++) {
        kw_call *c = kw_arena_grow(w->a, (void **)&w->out, &w->n, &w->cap, sizeof *c);
        if (!c) {
            w->oom = true;
            return;
        }
        *c = fn->calls.v[i];
        c->caller = fn->symbol;
        c->depth = depth;
    }
    for (size_t i = 0; i < fn->calls.n; i++)
        if (!fn->calls.v[i].system)
            kw_walk_fn(w, fn->calls.v[i].symbol, depth + 1);
}

/* The calls of the kernel named symbol, into w->out[0 .. w->n). */
static bool kw_walk_kernel(kw_walk *w, const char *symbol) {
    w->n = 0;
    w->walk++;
    kw_walk_fn(w, symbol, 1);
    return !w->oom;
}

/* ---- Factoring ------------------------------------------------------------------------------ */

static bool kw_str_eq(const char *a, const char *b) {
    return a == b || (a && b && !strcmp(a, b));
}

static bool kw_loc_eq(const kw_loc *a, const kw_loc *b) {
    return kw_str_eq(a->file, b->file) && a->line == b->line && a->column == b->column;
}

static bool kw_call_eq(const kw_call *a, const kw_call *b) {
    return kw_str_eq(a->caller, b->caller) && kw_str_eq(a->name, b->name) &&
           kw_str_eq(a->symbol, b->symbol) && a->depth == b->depth && a->system == b->system &&
           kw_loc_eq(&a->location, &b->location) &&
           kw_loc_eq(&a->callee_location, &b->callee_location);
}

/* Each caller's first run of edges in the kernels' calls, in order of first appearance. */
static kw_status kw_call_graph_collect(const kw_sidecar *sc, kw_arena *a, kw_call_graph *g,
                                       kw_symmap *seen) {
    for (size_t k = 0; k < sc->kernels.n; k++) {
        const kw_kernel *K = &sc->kernels.v[k];
        for (size_t i = 0; i < K->calls.n;) {
            const char *caller = K->calls.v[i].caller;
            size_t j = i;
            while (j < K->calls.n && kw_str_eq(K->calls.v[j].caller, caller))
                j++;
            if (caller && !kw_symmap_get(seen, caller)) {
                kw_device_fn *fn = KW_PUSH(a, g->fns);
                if (!fn || kw_symmap_put(seen, caller, g->fns.n - 1) != KW_OK)
                    return KW_ERR;
                fn->symbol = caller;
                fn->calls.v = NULL;
                fn->calls.n = fn->calls.cap = 0;
                for (size_t e = i; e < j; e++) {
                    kw_call *c = KW_PUSH(a, fn->calls);
                    if (!c)
                        return KW_ERR;
                    *c = K->calls.v[e];
                }
            }
            i = j;
        }
    }
    return KW_OK;
}

kw_status kw_call_graph_factor(const kw_sidecar *sc, kw_arena *a, kw_call_graph *g,
                               kw_kernel **kernels, kw_err *err) {
    memset(g, 0, sizeof *g);
    *kernels = NULL;
    if (!sc->kernels.n)
        return KW_OK;
    kw_kernel *ks = kw_arena_alloc(a, sc->kernels.n * sizeof *ks);
    if (!ks)
        return kw_fail(err, "cannot write YAML: out of memory");
    memcpy(ks, sc->kernels.v, sc->kernels.n * sizeof *ks);
    *kernels = ks;
    kw_symmap seen;
    kw_symmap_init(&seen);
    kw_status st = kw_call_graph_collect(sc, a, g, &seen);
    kw_symmap_free(&seen);
    kw_walk w;
    bool ok = st == KW_OK && kw_walk_init(&w, g, a);
    size_t left_out = 0;
    for (size_t k = 0; ok && k < sc->kernels.n; k++) {
        const kw_kernel *K = &sc->kernels.v[k];
        if (!(ok = kw_walk_kernel(&w, K->symbol)))
            break;
        bool same = w.n == K->calls.n;
        for (size_t i = 0; same && i < w.n; i++)
            same = kw_call_eq(&w.out[i], &K->calls.v[i]);
        if (same) {
            ks[k].calls.v = NULL;
            ks[k].calls.n = ks[k].calls.cap = 0;
            left_out += K->calls.n > 0;
        } else if (!K->calls.n) {
            /* a kernel without calls whose walk finds some: no table can say so */
            left_out = 0;
            break;
        }
    }
    if (st == KW_OK)
        kw_symmap_free(&w.by_symbol);
    if (!ok)
        return kw_fail(err, "cannot write YAML: out of memory");
    if (!left_out) { /* nothing gained: every kernel as it is */
        memcpy(ks, sc->kernels.v, sc->kernels.n * sizeof *ks);
        memset(g, 0, sizeof *g);
    }
    return KW_OK;
}

kw_status kw_call_graph_replay(kw_sidecar *sc, const kw_call_graph *g, kw_err *err) {
    if (!g->fns.n)
        return KW_OK;
    kw_walk w;
    bool ok = kw_walk_init(&w, g, &sc->arena);
    for (size_t k = 0; ok && k < sc->kernels.n; k++) {
        kw_kernel *K = &sc->kernels.v[k];
        if (K->calls.n)
            continue;
        w.out = NULL;
        w.cap = 0;
        if (!(ok = kw_walk_kernel(&w, K->symbol)))
            break;
        K->calls.v = w.out;
        K->calls.n = w.n;
        K->calls.cap = w.cap;
    }
    kw_symmap_free(&w.by_symbol);
    return ok ? KW_OK : kw_fail(err, "out of memory");
}

/* ---- helper frames -------------------------------------------------------------------------- */

/* The length of an operator's symbol at s (s just after "operator"), for the
 * operators whose spelling holds '<' or '>'; 0 for any other text. */
static size_t kw_call_graph_op_len(const char *s) {
    static const char *const ops[] = {"<=>", "<<=", ">>=", "->*", "<<", ">>", "<=",
                                      ">=",  "->",  "<",   ">"};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (!strncmp(s, ops[i], strlen(ops[i])))
            return strlen(ops[i]);
    return 0;
}

size_t kw_call_graph_plain(const char *name, char *out) {
    size_t o = 0;
    int depth = 0;
    for (size_t i = 0; name[i]; i++) {
        char c = name[i];
        if (i >= 8 && !strncmp(name + i - 8, "operator", 8)) {
            size_t ol = kw_call_graph_op_len(name + i);
            if (ol) {
                if (!depth)
                    memcpy(out + o, name + i, ol), o += ol;
                i += ol - 1;
                continue;
            }
        }
        if (c == '<')
            depth++;
        else if (c == '>' && depth && !(i && name[i - 1] == '-'))
            depth--;
        else if (!depth)
            out[o++] = c;
    }
    out[o] = 0;
    return o;
}

bool kw_call_graph_helper(const char *const *patterns, size_t n, const char *plain) {
    for (size_t i = 0; plain && i < n; i++)
        if (fnmatch(patterns[i], plain, 0) == 0)
            return true;
    return false;
}
