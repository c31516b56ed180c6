/* kw_kpage_walk.c: the walkthrough facts every instantiation of a kernel
 * page shares (kw_kpage_walk.h): the call trees compared item by item
 * through a key per item (its path of labels and call sites), the
 * resources, mix classes and IR idioms compared arch by arch. */
#include "model/kw_kpage_walk.h"

#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_symmap.h"
#include "model/kw_calltree.h"
#include "model/kw_page_isa.h"

static kw_status kw_kpage_walk_oom(kw_err *err) {
    return kw_fail(err, "out of memory");
}

static const char *kw_kpage_walk_file(const char *f) {
    return f ? f : "";
}

/* ---- the call trees -------------------------------------------------------------------------
 */

/* A call seen in some tree: its first sighting and the rows having it. */
typedef struct kw_kwalk_seen {
    kw_kwalk_call c;
    const char *parent; /* the key of the call it is under ("" for the kernel) */
    size_t last;        /* the last row counted + 1 */
} kw_kwalk_seen;

typedef KW_ARRAY(kw_kwalk_seen) kw_kwalk_seens;

/* Each item's key in tree t (keys[i], in a): its parent's key, then its
 * label, call site and definition. */
static kw_status kw_kpage_walk_keys(const kw_calltree *t, const char **keys, kw_arena *a) {
    const char *stack[KW_CALLTREE_MAXDEPTH + 2];
    for (size_t i = 0; i < t->items.n; i++) {
        const kw_calltree_item *it = &t->items.v[i];
        int d = it->depth < 0                      ? 0
                : it->depth > KW_CALLTREE_MAXDEPTH ? KW_CALLTREE_MAXDEPTH
                                                   : it->depth;
        const char *up = d ? stack[d - 1] : "";
        keys[i] = it->hip
                      ? NULL
                      : kw_arena_printf(a, "%s\n%s@%s:%d=%s:%d", up, it->label ? it->label : "?",
                                        kw_kpage_walk_file(it->at.file), it->at.line,
                                        kw_kpage_walk_file(it->def.file), it->def.line);
        if (!it->hip && !keys[i])
            return KW_ERR;
        stack[d] = keys[i] ? keys[i] : up;
    }
    return KW_OK;
}

/* Count row r's tree t in seen (by key through map). */
static kw_status kw_kpage_walk_count(kw_kwalk_seens *seen, kw_symmap *map, const kw_calltree *t,
                                     const char **keys, size_t r, kw_arena *a) {
    for (size_t i = 0; i < t->items.n; i++) {
        if (!keys[i])
            continue;
        size_t *at = kw_symmap_get(map, keys[i]);
        if (at) {
            kw_kwalk_seen *s = &seen->v[*at];
            if (s->last != r + 1)
                s->c.rows++, s->last = r + 1;
            continue;
        }
        const kw_calltree_item *it = &t->items.v[i];
        kw_kwalk_seen *s = KW_PUSH(a, *seen);
        const char *key = kw_arena_strdup(a, keys[i]);
        if (!s || !key)
            return KW_ERR;
        memset(s, 0, sizeof(*s));
        s->c.depth = it->depth;
        s->c.label = kw_arena_strdup(a, it->label ? it->label : "?");
        s->c.at = it->at;
        s->c.def = it->def;
        s->c.at.file = kw_arena_strdup(a, it->at.file);
        s->c.def.file = kw_arena_strdup(a, it->def.file);
        s->c.rows = 1;
        s->last = r + 1;
        const char *nl = strrchr(key, '\n');
        s->parent = kw_arena_strndup(a, key, nl ? (size_t)(nl - key) : 0);
        if (!s->c.label || !s->parent || kw_symmap_put(map, key, seen->n - 1) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

/* Every row's call tree, counted; each built in a scratch arena. */
static kw_status kw_kpage_walk_trees(kw_kpage_walk *w, const kw_kpage *p, const kw_model *m,
                                     kw_kwalk_seens *seen, kw_symmap *map, kw_arena *a,
                                     kw_err *err) {
    for (size_t r = 0; r < p->rows.n; r++) {
        const kw_kernel *k = m->kernels.v[p->rows.v[r].kernel].k;
        if (!k || k->language)
            continue;
        kw_arena tmp;
        kw_arena_init(&tmp);
        kw_calltree t;
        kw_status st = kw_calltree_build(&t, k, m->tree_rules, &tmp, err);
        const char **keys =
            st == KW_OK ? kw_arena_alloc(&tmp, (t.items.n + 1) * sizeof *keys) : NULL;
        if (st == KW_OK && (!keys || kw_kpage_walk_keys(&t, keys, &tmp) != KW_OK ||
                            kw_kpage_walk_count(seen, map, &t, keys, w->trees, a) != KW_OK))
            st = kw_kpage_walk_oom(err);
        kw_arena_free(&tmp);
        if (st != KW_OK)
            return st;
        w->trees++;
    }
    return KW_OK;
}

/* The calls every tree has, and the first of each subtree only some have. */
static kw_status kw_kpage_walk_split(kw_kpage_walk *w, const kw_kwalk_seens *seen,
                                     const kw_symmap *map, kw_arena *a) {
    for (size_t i = 0; i < seen->n; i++) {
        const kw_kwalk_seen *s = &seen->v[i];
        bool all = s->c.rows == w->trees;
        if (!all) {
            size_t *up = *s->parent ? kw_symmap_get(map, s->parent) : NULL;
            if (up && seen->v[*up].c.rows != w->trees)
                continue; /* inside a subtree counted at its top */
            if (w->some.n >= KW_KWALK_SOME_MAX) {
                w->some_more++;
                continue;
            }
        }
        if (all && s->c.depth > KW_KWALK_DEPTH_MAX) {
            w->calls_deep++;
            continue;
        }
        if (all && w->calls.n >= KW_KWALK_CALLS_MAX) {
            w->calls_more++;
            continue;
        }
        kw_kwalk_call *c = all ? KW_PUSH(a, w->calls) : KW_PUSH(a, w->some);
        if (!c)
            return KW_ERR;
        *c = s->c;
        size_t *up = *s->parent ? kw_symmap_get(map, s->parent) : NULL;
        c->under = up ? seen->v[*up].c.label : NULL;
    }
    return KW_OK;
}

/* ---- __shared__ and inline asm ----------------------------------------------------------------
 */

static bool kw_kpage_walk_same_loc(const kw_loc *x, const kw_loc *y) {
    return x->line == y->line && !strcmp(kw_kpage_walk_file(x->file), kw_kpage_walk_file(y->file));
}

static bool kw_kpage_walk_str_eq(const char *x, const char *y) {
    return !strcmp(x ? x : "", y ? y : "");
}

static bool kw_kpage_walk_has_shared_one(const kw_shared_var *u, const kw_shared_var *v) {
    return kw_kpage_walk_str_eq(u->name, v->name) && kw_kpage_walk_str_eq(u->type, v->type) &&
           u->bytes == v->bytes && kw_kpage_walk_same_loc(&u->location, &v->location);
}

static bool kw_kpage_walk_has_shared(const kw_kernel *k, const kw_shared_var *v) {
    for (size_t i = 0; i < k->shared.n; i++)
        if (kw_kpage_walk_has_shared_one(&k->shared.v[i], v))
            return true;
    return false;
}

static bool kw_kpage_walk_has_asm(const kw_kernel *k, const kw_inline_asm *v) {
    for (size_t i = 0; i < k->inline_asm.n; i++)
        if (kw_kpage_walk_str_eq(k->inline_asm.v[i].text, v->text) &&
            kw_kpage_walk_same_loc(&k->inline_asm.v[i].location, &v->location))
            return true;
    return false;
}

/* The rows' kernels (NULL for a row without a device record: then nothing
 * is common). */
static const kw_kernel *kw_kpage_walk_k(const kw_kpage *p, const kw_model *m, size_t r) {
    const kw_kernel *k = m->kernels.v[p->rows.v[r].kernel].k;
    return k && !k->language ? k : NULL;
}

static kw_status kw_kpage_walk_decls(kw_kpage_walk *w, const kw_kpage *p, const kw_model *m,
                                     kw_arena *a) {
    const kw_kernel *k0 = p->rows.n ? kw_kpage_walk_k(p, m, 0) : NULL;
    if (!k0 || w->trees != p->rows.n)
        return KW_OK;
    for (size_t i = 0; i < k0->shared.n; i++) {
        bool all = true; /* and not listed yet */
        for (size_t j = 0; j < w->shared.n && all; j++)
            all = !kw_kpage_walk_has_shared_one(w->shared.v[j], &k0->shared.v[i]);
        for (size_t r = 1; r < p->rows.n && all; r++)
            all = kw_kpage_walk_has_shared(kw_kpage_walk_k(p, m, r), &k0->shared.v[i]);
        const kw_shared_var **s = all ? KW_PUSH(a, w->shared) : NULL;
        if (all && !s)
            return KW_ERR;
        if (s)
            *s = &k0->shared.v[i];
    }
    for (size_t i = 0; i < k0->inline_asm.n; i++) {
        bool all = true; /* and not listed yet: each text and place once */
        for (size_t j = 0; j < w->asms.n && all; j++)
            all = !kw_kpage_walk_str_eq(w->asms.v[j]->text, k0->inline_asm.v[i].text) ||
                  !kw_kpage_walk_same_loc(&w->asms.v[j]->location, &k0->inline_asm.v[i].location);
        for (size_t r = 1; r < p->rows.n && all; r++)
            all = kw_kpage_walk_has_asm(kw_kpage_walk_k(p, m, r), &k0->inline_asm.v[i]);
        const kw_inline_asm **s = all ? KW_PUSH(a, w->asms) : NULL;
        if (all && !s)
            return KW_ERR;
        if (s)
            *s = &k0->inline_asm.v[i];
    }
    return KW_OK;
}

/* ---- per arch ---------------------------------------------------------------------------------
 */

static const kw_kernel_arch *kw_kpage_walk_arch_of(const kw_kernel *k, const char *arch) {
    for (size_t i = 0; k && i < k->archs.n; i++)
        if (kw_kpage_walk_str_eq(k->archs.v[i].arch, arch))
            return &k->archs.v[i];
    return NULL;
}

static long long kw_kpage_walk_res(const kw_isa_resources *r, size_t i, const char **what) {
    static const char *const names[] = {"VGPR",
                                        "AGPR",
                                        "SGPR",
                                        "VGPR spills",
                                        "SGPR spills",
                                        "LDS bytes",
                                        "scratch bytes per lane",
                                        "kernel-argument bytes",
                                        "wavefront size",
                                        "max flat workgroup size",
                                        "waves per SIMD"};
    const long long v[] = {r->vgpr,           r->agpr,
                           r->sgpr,           r->vgpr_spill,
                           r->sgpr_spill,     r->lds_bytes,
                           r->scratch_bytes,  r->kernarg_bytes,
                           r->wavefront_size, r->max_flat_workgroup_size,
                           r->occupancy};
    *what = i < sizeof(names) / sizeof(names[0]) ? names[i] : NULL;
    return *what ? v[i] : -1;
}

static bool kw_kpage_walk_has_idiom(const kw_irf *ir, const kw_irf_idiom *d) {
    for (size_t i = 0; ir && i < ir->idioms.n; i++) {
        const kw_irf_idiom *e = &ir->idioms.v[i];
        if (kw_kpage_walk_str_eq(e->kind, d->kind) && kw_kpage_walk_str_eq(e->op, d->op) &&
            kw_kpage_walk_same_loc(&e->loc.location.at, &d->loc.location.at))
            return true;
    }
    return false;
}

/* The mix class i of m ("MFMA", ...) and its count. */
static const char *kw_kpage_walk_mix(const kw_isa_mix *m, size_t i, long long *n) {
    static const char *const names[] = {"MFMA", "VALU", "SALU", "VMEM", "LDS", "branch"};
    const long long v[] = {m->mfma, m->valu, m->salu, m->vmem, m->lds, m->branch};
    if (i >= 6)
        return NULL;
    *n = v[i];
    return names[i];
}

static kw_status kw_kpage_walk_isa(kw_kwalk_arch *x, const kw_kpage *p, const kw_model *m,
                                   const kw_kernel_arch *a0, kw_arena *a) {
    const char *what;
    for (size_t f = 0; kw_kpage_walk_res(&a0->resources, f, &what), what; f++) {
        long long v = kw_kpage_walk_res(&a0->resources, f, &what);
        bool same = v >= 0;
        for (size_t r = 1; r < p->rows.n && same; r++) {
            const kw_kernel_arch *ar = kw_kpage_walk_arch_of(kw_kpage_walk_k(p, m, r), x->arch);
            same = ar && kw_kpage_walk_res(&ar->resources, f, &what) == v;
        }
        kw_kwalk_res *s = same ? KW_PUSH(a, x->same) : NULL;
        if (same && !s)
            return KW_ERR;
        if (s)
            s->what = what, s->v = v;
    }
    long long n;
    for (size_t c = 0; c < 6; c++) {
        size_t with = 0, known = 0;
        for (size_t r = 0; r < p->rows.n; r++) {
            const kw_kernel_arch *ar = kw_kpage_walk_arch_of(kw_kpage_walk_k(p, m, r), x->arch);
            kw_isa_mix mix;
            if (!ar || !kw_page_isa_mix(&ar->classes, &mix))
                continue;
            known++;
            kw_kpage_walk_mix(&mix, c, &n);
            with += n > 0;
        }
        const char *name = kw_kpage_walk_mix(&(kw_isa_mix){0}, c, &n);
        const char **s = known != p->rows.n ? NULL
                         : with == known    ? KW_PUSH(a, x->every)
                         : !with            ? KW_PUSH(a, x->none)
                                            : NULL;
        if (known == p->rows.n && (with == known || !with) && !s)
            return KW_ERR;
        if (s)
            *s = name;
    }
    return KW_OK;
}

static kw_status kw_kpage_walk_ir(kw_kwalk_arch *x, const kw_kpage *p, const kw_model *m,
                                  const kw_kernel_arch *a0, kw_arena *a) {
    x->barriers = -1;
    x->ir = a0->ir != NULL;
    for (size_t r = 1; r < p->rows.n && x->ir; r++) {
        const kw_kernel_arch *ar = kw_kpage_walk_arch_of(kw_kpage_walk_k(p, m, r), x->arch);
        x->ir = ar && ar->ir;
    }
    if (!x->ir)
        return KW_OK;
    x->barriers = a0->ir->barriers;
    for (size_t r = 1; r < p->rows.n; r++)
        if (kw_kpage_walk_arch_of(kw_kpage_walk_k(p, m, r), x->arch)->ir->barriers != x->barriers)
            x->barriers = -1;
    for (size_t i = 0; i < a0->ir->idioms.n; i++) {
        const kw_irf_idiom *d = &a0->ir->idioms.v[i];
        bool all = true, seen = false;
        for (size_t j = 0; j < i && !seen; j++) /* each kind, op and place once */
            seen =
                kw_kpage_walk_str_eq(a0->ir->idioms.v[j].kind, d->kind) &&
                kw_kpage_walk_str_eq(a0->ir->idioms.v[j].op, d->op) &&
                kw_kpage_walk_same_loc(&a0->ir->idioms.v[j].loc.location.at, &d->loc.location.at);
        for (size_t r = 1; r < p->rows.n && all && !seen; r++)
            all = kw_kpage_walk_has_idiom(
                kw_kpage_walk_arch_of(kw_kpage_walk_k(p, m, r), x->arch)->ir, d);
        const kw_irf_idiom **s = all && !seen ? KW_PUSH(a, x->idioms) : NULL;
        if (all && !seen && !s)
            return KW_ERR;
        if (s)
            *s = d;
    }
    return KW_OK;
}

/* Per arch of the first row: what every row built for it shares. */
static kw_status kw_kpage_walk_archs(kw_kpage_walk *w, const kw_kpage *p, const kw_model *m,
                                     kw_arena *a) {
    const kw_kernel *k0 = p->rows.n ? kw_kpage_walk_k(p, m, 0) : NULL;
    if (!k0 || w->trees != p->rows.n)
        return KW_OK;
    for (size_t i = 0; i < k0->archs.n; i++) {
        const kw_kernel_arch *a0 = &k0->archs.v[i];
        size_t rows = 0;
        for (size_t r = 0; r < p->rows.n; r++)
            rows += kw_kpage_walk_arch_of(kw_kpage_walk_k(p, m, r), a0->arch) != NULL;
        if (rows != p->rows.n)
            continue; /* not built for every one */
        kw_kwalk_arch *x = KW_PUSH(a, w->archs);
        if (!x)
            return KW_ERR;
        memset(x, 0, sizeof(*x));
        x->arch = a0->arch;
        x->rows = rows;
        if (kw_kpage_walk_isa(x, p, m, a0, a) != KW_OK || kw_kpage_walk_ir(x, p, m, a0, a) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

kw_status kw_kpage_walk_build(kw_kpage_walk *w, const kw_kpage *p, const kw_model *m, kw_arena *a,
                              kw_err *err) {
    memset(w, 0, sizeof(*w));
    kw_kwalk_seens seen;
    memset(&seen, 0, sizeof(seen));
    kw_symmap map;
    kw_symmap_init(&map);
    kw_status st = kw_kpage_walk_trees(w, p, m, &seen, &map, a, err);
    if (st == KW_OK && w->trees == p->rows.n && kw_kpage_walk_split(w, &seen, &map, a) != KW_OK)
        st = kw_kpage_walk_oom(err);
    kw_symmap_free(&map);
    if (st == KW_OK &&
        (kw_kpage_walk_decls(w, p, m, a) != KW_OK || kw_kpage_walk_archs(w, p, m, a) != KW_OK))
        st = kw_kpage_walk_oom(err);
    return st;
}
