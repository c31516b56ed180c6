/* kw_calltree.c: the device call tree a walkthrough shows (see kw_calltree.h):
 * helper frames folded into their callers, repeated calls merged with counts,
 * short labels. */
#include "model/kw_calltree.h"

#include <stdlib.h>
#include <string.h>

#include "sidecar/kw_call_graph.h"
#include "common/kw_symmap.h"

/* ---- rules ---------------------------------------------------------------------------------- */

static kw_status kw_calltree_rule_line(void *ctx, const kw_annot_line *l, kw_err *err) {
    kw_calltree_rules *r = ctx;
    if (l->nwords != 1)
        return kw_fail(err, "annotations/%s:%d: expected one PATTERN", l->file, l->lineno);
    const char **slot = !strcmp(l->file, "calltree/leaves.txt") ? KW_PUSH(&r->arena, r->leaves)
                                                                : KW_PUSH(&r->arena, r->helpers);
    if (!slot || !(*slot = kw_arena_strdup(&r->arena, l->word[0])))
        return kw_fail(err, "out of memory");
    return KW_OK;
}

kw_status kw_calltree_rules_load(kw_calltree_rules *r, const kw_annot *a, kw_err *err) {
    memset(r, 0, sizeof(*r));
    kw_arena_init(&r->arena);
    for (size_t i = 0; i < a->files.n; i++)
        if (!strncmp(a->files.v[i].name, "calltree/", 9) &&
            kw_annot_lines(&a->files.v[i], kw_calltree_rule_line, r, err) != KW_OK)
            return KW_ERR;
    return KW_OK;
}

void kw_calltree_rules_free(kw_calltree_rules *r) {
    kw_arena_free(&r->arena);
    memset(r, 0, sizeof(*r));
}

bool kw_calltree_is_helper(const kw_calltree_rules *r, const char *name, kw_arena *a) {
    if (!r || !name || !r->helpers.n)
        return false;
    return kw_call_graph_helper(r->helpers.v, r->helpers.n, kw_calltree_plain(name, a));
}

bool kw_calltree_is_leaf(const kw_calltree_rules *r, const char *name, kw_arena *a) {
    if (!r || !name || !r->leaves.n)
        return false;
    return kw_call_graph_helper(r->leaves.v, r->leaves.n, kw_calltree_plain(name, a));
}

/* ---- names ---------------------------------------------------------------------------------- */

const char *kw_calltree_plain(const char *name, kw_arena *a) {
    if (!name)
        return NULL;
    char *out = kw_arena_alloc_raw(a, strlen(name) + 1);
    if (out)
        kw_call_graph_plain(name, out);
    return out;
}

const char *kw_calltree_elide(const char *name, int depth, kw_arena *a) {
    size_t n = strlen(name);
    char *out = kw_arena_alloc_raw(a, 2 * n + 1); /* "<a>" grows to "<…>" */
    if (!out)
        return NULL;
    size_t o = 0;
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool op = i >= 8 && !strncmp(name + i - 8, "operator", 8);
        if (c == '<' && !op) {
            d++;
            if (d == depth + 1) {
                memcpy(out + o, "<\xe2\x80\xa6", 4); /* "<…" */
                o += 4;
            } else if (d <= depth) {
                out[o++] = c;
            }
        } else if (c == '>' && d && !op && !(i && name[i - 1] == '-')) {
            if (d <= depth + 1)
                out[o++] = c;
            d--;
        } else if (d <= depth) {
            out[o++] = c;
        }
    }
    out[o] = 0;
    return out;
}

/* The start of each "::"-separated component of s outside parentheses; the
 * count (at most max). */
static size_t kw_calltree_parts(const char *s, const char **at, size_t max) {
    size_t n = 0;
    int paren = 0;
    if (max)
        at[n++] = s;
    for (const char *p = s; *p; p++) {
        if (*p == '(')
            paren++;
        else if (*p == ')' && paren)
            paren--;
        else if (!paren && p[0] == ':' && p[1] == ':') {
            if (n < max)
                at[n++] = p + 2;
            else
                memmove(at, at + 1, (max - 1) * sizeof(*at)), at[max - 1] = p + 2;
            p++;
        }
    }
    return n;
}

const char *kw_calltree_label(const char *name, kw_arena *a) {
    const char *plain = kw_calltree_plain(name, a);
    if (!plain)
        return NULL;
    const char *at[2] = {NULL, NULL};
    size_t n = kw_calltree_parts(plain, at, 2);
    const char *s = n == 2 ? at[0] : plain;
    /* "(lambda at /a/b/file.hpp:12:3)": the file's base name */
    const char *lam = strstr(s, "(lambda at ");
    if (!lam)
        return s;
    const char *path = lam + 11, *end = strchr(path, ')');
    const char *base = path;
    for (const char *p = path; end && p < end; p++)
        if (*p == '/')
            base = p + 1;
    return kw_arena_printf(a, "%.*s%s", (int)(path - s), s, base);
}

/* ---- the tree ------------------------------------------------------------------------------- */

typedef KW_ARRAY(size_t) kw_ct_idx;

/* What a function's calls give its item, helpers folded: the non-helper,
 * non-system edges (indices into k->calls, repeated ones kept), the system
 * ones, and the helper frames folded. Memoized per helper symbol. */
typedef struct kw_ct_gather {
    kw_ct_idx user, sys;
    size_t folded;
    bool done;
} kw_ct_gather;

typedef struct kw_ct {
    const kw_kernel *k;
    const kw_calltree_rules *rules;
    kw_arena *a;
    kw_calltree *t;
    size_t *by_caller; /* edge indices with a caller, by caller then order */
    size_t nby;
    kw_symmap first;  /* caller symbol -> first position in by_caller */
    kw_symmap helper; /* helper symbol -> its memo in memo.v */
    KW_ARRAY(kw_ct_gather) memo;
    kw_symmap expanded; /* symbols whose item is expanded */
    kw_symmap full_of;  /* full name -> fulls index */
    unsigned char *is_helper; /* per edge: 0 unknown, 1 no, 2 yes */
    const char *stack[64];    /* helpers being gathered */
    size_t nstack;
} kw_ct;

enum { KW_CT_MAXLIST = 200000 }; /* a gathered list's cap (pathological nesting) */

static const kw_call *kw_ct_edge(const kw_ct *c, size_t i) { return &c->k->calls.v[i]; }

/* An edge with a caller, for sorting them by caller then order. */
typedef struct kw_ct_edge_key {
    const char *caller;
    size_t i;
} kw_ct_edge_key;

static int kw_ct_cmp(const void *a, const void *b) {
    const kw_ct_edge_key *x = a, *y = b;
    int d = strcmp(x->caller, y->caller);
    return d ? d : (x->i > y->i) - (x->i < y->i);
}

static bool kw_ct_helper_edge(kw_ct *c, size_t i) {
    if (!c->is_helper[i])
        c->is_helper[i] = kw_calltree_is_helper(c->rules, kw_ct_edge(c, i)->name, c->a) ? 2 : 1;
    return c->is_helper[i] == 2;
}

static kw_status kw_ct_add(kw_ct *c, kw_ct_idx *to, size_t v) {
    if (to->n >= KW_CT_MAXLIST)
        return KW_OK;
    size_t *slot = KW_PUSH(c->a, *to);
    if (!slot)
        return KW_ERR;
    *slot = v;
    return KW_OK;
}

static kw_status kw_ct_gather_into(kw_ct *c, const char *caller, kw_ct_gather *g);

/* The memo of helper symbol sym (gathered now when first asked); NULL when
 * it is being gathered (a cycle) or out of memory. */
static const kw_ct_gather *kw_ct_helper_memo(kw_ct *c, const char *sym) {
    size_t *at = kw_symmap_get(&c->helper, sym);
    if (at)
        return c->memo.v[*at].done ? &c->memo.v[*at] : NULL;
    if (c->nstack >= sizeof(c->stack) / sizeof(c->stack[0]))
        return NULL;
    kw_ct_gather *m = KW_PUSH(c->a, c->memo);
    if (!m || kw_symmap_put(&c->helper, sym, c->memo.n - 1) != KW_OK)
        return NULL;
    size_t mi = c->memo.n - 1;
    kw_ct_gather g;
    memset(&g, 0, sizeof(g));
    c->stack[c->nstack++] = sym;
    kw_status s = kw_ct_gather_into(c, sym, &g);
    c->nstack--;
    if (s != KW_OK)
        return NULL;
    g.done = true;
    c->memo.v[mi] = g; /* memo.v may have moved */
    return &c->memo.v[mi];
}

static kw_status kw_ct_gather_into(kw_ct *c, const char *caller, kw_ct_gather *g) {
    size_t *first = caller ? kw_symmap_get(&c->first, caller) : NULL;
    for (size_t p = first ? *first : c->nby; p < c->nby; p++) {
        size_t i = c->by_caller[p];
        const kw_call *e = kw_ct_edge(c, i);
        if (strcmp(e->caller, caller))
            break;
        if (e->system) {
            if (kw_ct_add(c, &g->sys, i) != KW_OK)
                return KW_ERR;
            continue;
        }
        if (!kw_ct_helper_edge(c, i)) {
            if (kw_ct_add(c, &g->user, i) != KW_OK)
                return KW_ERR;
            continue;
        }
        g->folded++;
        const kw_ct_gather *m = e->symbol ? kw_ct_helper_memo(c, e->symbol) : NULL;
        if (!m)
            continue;
        g->folded += m->folded;
        for (size_t j = 0; j < m->user.n; j++)
            if (kw_ct_add(c, &g->user, m->user.v[j]) != KW_OK)
                return KW_ERR;
        for (size_t j = 0; j < m->sys.n; j++)
            if (kw_ct_add(c, &g->sys, m->sys.v[j]) != KW_OK)
                return KW_ERR;
    }
    return KW_OK;
}

/* One item per function among calls: key (label + definition) -> group. */
typedef struct kw_ct_group {
    size_t edge; /* the first */
    size_t calls;
    const char *plain;
    kw_symmap syms; /* distinct symbols */
} kw_ct_group;

static kw_status kw_ct_full(kw_ct *c, const char *name, size_t *out) {
    if (!name)
        name = "?";
    size_t *at = kw_symmap_get(&c->full_of, name);
    if (at) {
        *out = *at;
        return KW_OK;
    }
    const char **slot = KW_PUSH(c->a, c->t->fulls);
    if (!slot || kw_symmap_put(&c->full_of, name, c->t->fulls.n - 1) != KW_OK)
        return KW_ERR;
    *slot = name;
    *out = c->t->fulls.n - 1;
    return KW_OK;
}

static kw_status kw_ct_hip(kw_ct *c, const kw_ct_idx *sys, int depth) {
    if (!sys->n)
        return KW_OK;
    kw_calltree_sys *v = kw_arena_alloc(c->a, sys->n * sizeof(*v));
    if (!v)
        return KW_ERR;
    size_t n = 0;
    for (size_t j = 0; j < sys->n; j++) {
        const kw_call *e = kw_ct_edge(c, sys->v[j]);
        const char *name = e->name ? e->name : "?";
        if (!strncmp(name, "std::", 5))
            continue;
        size_t q = 0;
        while (q < n && strcmp(v[q].name, name))
            q++;
        if (q < n)
            continue;
        v[n].name = name;
        v[n].line = e->location.file ? e->location.line : 0;
        n++;
    }
    if (!n)
        return KW_OK;
    kw_calltree_item *it = KW_PUSH(c->a, c->t->items);
    if (!it)
        return KW_ERR;
    memset(it, 0, sizeof(*it));
    it->depth = depth;
    it->hip = true;
    it->sys = v;
    it->nsys = n;
    return KW_OK;
}

static kw_status kw_ct_emit(kw_ct *c, const char *caller, int depth);

static kw_status kw_ct_groups(kw_ct *c, const kw_ct_gather *g, int depth) {
    KW_ARRAY(kw_ct_group) groups = {0};
    kw_symmap key_of;
    kw_symmap_init(&key_of);
    kw_status s = KW_OK;
    for (size_t j = 0; j < g->user.n && s == KW_OK; j++) {
        size_t i = g->user.v[j];
        const kw_call *e = kw_ct_edge(c, i);
        const char *plain = kw_calltree_plain(e->name ? e->name : "?", c->a);
        const char *key = plain ? kw_arena_printf(c->a, "%s\001%s:%d", plain,
                                                  e->callee_location.file ? e->callee_location.file
                                                                          : "",
                                                  e->callee_location.line)
                                : NULL;
        if (!key) {
            s = KW_ERR;
            break;
        }
        size_t *at = kw_symmap_get(&key_of, key);
        kw_ct_group *gr;
        if (at) {
            gr = &groups.v[*at];
        } else {
            gr = KW_PUSH(c->a, groups);
            if (!gr || kw_symmap_put(&key_of, key, groups.n - 1) != KW_OK) {
                s = KW_ERR;
                break;
            }
            memset(gr, 0, sizeof(*gr));
            gr->edge = i;
            gr->plain = plain;
            kw_symmap_init(&gr->syms);
        }
        gr->calls++;
        if (e->symbol && !kw_symmap_get(&gr->syms, e->symbol) &&
            kw_symmap_put(&gr->syms, e->symbol, 0) != KW_OK)
            s = KW_ERR;
    }
    kw_symmap_free(&key_of);
    for (size_t q = 0; q < groups.n; q++) {
        kw_ct_group *gr = &groups.v[q];
        const kw_call *e = kw_ct_edge(c, gr->edge);
        kw_calltree_item *it = s == KW_OK ? KW_PUSH(c->a, c->t->items) : NULL;
        if (!it)
            s = KW_ERR;
        size_t full = 0;
        if (s == KW_OK)
            s = kw_ct_full(c, e->name, &full);
        if (s == KW_OK) {
            memset(it, 0, sizeof(*it));
            it->depth = depth;
            it->label = kw_calltree_label(e->name ? e->name : "?", c->a);
            it->symbol = e->symbol;
            it->full = full;
            it->at = e->location;
            it->def = e->callee_location;
            it->calls = gr->calls;
            it->insts = gr->syms.n ? gr->syms.n : 1;
            if (!it->label)
                s = KW_ERR;
            if (depth > c->t->max_depth)
                c->t->max_depth = depth;
        }
        kw_symmap_free(&gr->syms);
        if (s != KW_OK || !e->symbol || !kw_symmap_get(&c->first, e->symbol))
            continue;
        size_t itx = c->t->items.n - 1;
        if (kw_calltree_is_leaf(c->rules, e->name, c->a)) {
            c->t->items.v[itx].leaf = true;
        } else if (kw_symmap_get(&c->expanded, e->symbol)) {
            c->t->items.v[itx].above = true;
        } else if (depth + 1 >= KW_CALLTREE_MAXDEPTH) {
            c->t->items.v[itx].cut = true;
        } else if (kw_symmap_put(&c->expanded, e->symbol, 1) != KW_OK) {
            s = KW_ERR;
        } else {
            s = kw_ct_emit(c, e->symbol, depth + 1);
        }
    }
    return s;
}

/* The items under caller (its calls, helpers folded), at depth. */
static kw_status kw_ct_emit(kw_ct *c, const char *caller, int depth) {
    kw_ct_gather g;
    memset(&g, 0, sizeof(g));
    if (kw_ct_gather_into(c, caller, &g) != KW_OK)
        return KW_ERR;
    c->t->folded += g.folded;
    if (depth > 0 && c->t->items.n)
        c->t->items.v[c->t->items.n - 1].folded = g.folded;
    if (kw_ct_hip(c, &g.sys, depth) != KW_OK)
        return KW_ERR;
    return kw_ct_groups(c, &g, depth);
}

kw_status kw_calltree_build(kw_calltree *t, const kw_kernel *k, const kw_calltree_rules *rules,
                            kw_arena *a, kw_err *err) {
    memset(t, 0, sizeof(*t));
    if (!k || !k->calls.n)
        return KW_OK;
    t->edges = k->calls.n;
    kw_ct c;
    memset(&c, 0, sizeof(c));
    c.k = k;
    c.rules = rules;
    c.a = a;
    c.t = t;
    kw_symmap_init(&c.first);
    kw_symmap_init(&c.helper);
    kw_symmap_init(&c.expanded);
    kw_symmap_init(&c.full_of);
    kw_status s = KW_OK;
    c.by_caller = kw_arena_alloc(a, k->calls.n * sizeof(size_t));
    c.is_helper = kw_arena_alloc(a, k->calls.n);
    if (!c.by_caller || !c.is_helper)
        s = KW_ERR;
    kw_ct_edge_key *keys = kw_arena_alloc_raw(a, k->calls.n * sizeof(*keys));
    if (!keys)
        s = KW_ERR;
    for (size_t i = 0; s == KW_OK && i < k->calls.n; i++)
        if (k->calls.v[i].caller)
            keys[c.nby++] = (kw_ct_edge_key){k->calls.v[i].caller, i};
    if (s == KW_OK) {
        qsort(keys, c.nby, sizeof(*keys), kw_ct_cmp);
        for (size_t p = 0; p < c.nby; p++)
            c.by_caller[p] = keys[p].i;
    }
    for (size_t p = 0; s == KW_OK && p < c.nby; p++) {
        const char *caller = k->calls.v[c.by_caller[p]].caller;
        if (!kw_symmap_get(&c.first, caller) && kw_symmap_put(&c.first, caller, p) != KW_OK)
            s = KW_ERR;
    }
    if (s == KW_OK && k->symbol)
        s = kw_symmap_put(&c.expanded, k->symbol, 1);
    if (s == KW_OK)
        s = kw_ct_emit(&c, k->symbol, 0);
    if (s == KW_OK && t->fulls.n &&
        !(t->shown = kw_arena_alloc(a, t->fulls.n * sizeof(*t->shown))))
        s = KW_ERR;
    for (size_t i = 0, used = 0; s == KW_OK && i < t->fulls.n; i++) {
        const char *f = t->fulls.v[i];
        size_t len = strlen(f);
        if (used + len > KW_CALLTREE_FULL_BUDGET) {
            f = kw_calltree_elide(f, 1, a);
            t->elided++;
            if (!f)
                s = KW_ERR;
        }
        t->shown[i] = f;
        used += f ? strlen(f) : 0;
    }
    kw_symmap_free(&c.first);
    kw_symmap_free(&c.helper);
    kw_symmap_free(&c.expanded);
    kw_symmap_free(&c.full_of);
    if (s != KW_OK)
        return kw_fail(err, "out of memory");
    return KW_OK;
}
