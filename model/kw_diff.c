/* kw_diff.c: the rows of `kwalk diff` (kw_diff.h): both indexes' kernels
 * keyed by symbol (and unit source, internal linkage), the kernels of one
 * index only as added / removed rows with their launch sites, and per arch
 * of a kernel in both the resources, instruction counts and listing
 * compared; then the rows sorted by consequence. */
#include "model/kw_diff.h"

#include <stdlib.h>
#include <string.h>

#include "common/kw_natcmp.h"
#include "common/kw_symmap.h"
#include "model/kw_decode.h"
#include "model/kw_diff_lines.h"
#include "model/kw_diff_triton.h"
#include "model/kw_list.h"

typedef KW_ARRAY(kw_loc) kw_diff_locs;

/* One side: its index, kernels by key, launch sites by kernel. */
typedef struct kw_diff_side {
    const kw_index *ix;
    kw_symmap by_key; /* key -> index in ix->kernels */
    const char **keys;
    kw_diff_locs *launches; /* per kernel */
    kw_list list;           /* its entry points, built for the first added / removed row */
    bool listed;
    kw_decode *dec; /* its listings in code objects (index version 5) */
} kw_diff_side;

static const char *const kw_diff_names[KW_DIFF_NKINDS] = {
    "occupancy", "spills",  "removed", "vgpr",  "agpr", "sgpr",  "lds",   "scratch",
    "added",     "limiter", "insns",   "class", "isa",  "lines", "option"};

const char *kw_diff_kind_name(kw_diff_kind k) {
    return k < KW_DIFF_NKINDS ? kw_diff_names[k] : "?";
}

kw_diff_kind kw_diff_kind_of(const char *name) {
    for (int k = 0; k < KW_DIFF_NKINDS; k++)
        if (!strcmp(kw_diff_names[k], name))
            return (kw_diff_kind)k;
    return KW_DIFF_NKINDS;
}

bool kw_diff_fails(const kw_diff_row *r) {
    switch (r->kind) {
    case KW_DIFF_ADDED:
    case KW_DIFF_LIMITER:
    case KW_DIFF_INSNS:
    case KW_DIFF_CLASS:
    case KW_DIFF_ISA:
    case KW_DIFF_LINES:
    case KW_DIFF_OPTION:
        return true;
    default:
        return r->dir == KW_DIFF_WORSE;
    }
}

/* The key a kernel is matched by across the two indexes (in arena). */
static const char *kw_diff_key(kw_arena *a, const kw_index *ix, const kw_kernel *k) {
    if (kw_diff_triton_is(k))
        return kw_diff_triton_key(a, k);
    const kw_index_tu *u = kw_index_kernel_unit(ix, k);
    if (!u)
        return k->symbol;
    return kw_arena_printf(a, "%s\x1f%s", k->symbol, u->tu.source ? u->tu.source : u->sidecar);
}

/* How many kernels of s have key. */
static size_t kw_diff_count(const kw_diff_side *s, const char *key) {
    size_t n = 0;
    for (size_t i = 0; i < s->ix->kernels.n; i++)
        n += s->keys[i] && !strcmp(s->keys[i], key);
    return n;
}

/* Triton specializations whose key is not unique in either side get their
 * options added to it, then, where still not unique, their hash; the maps
 * by key rebuilt. */
static kw_status kw_diff_triton_unique(kw_diff_side *o, kw_diff_side *n, kw_arena *a, kw_err *err) {
    for (int pass = 0; pass < 2; pass++) {
        bool changed = false;
        kw_diff_side *sides[2] = {o, n};
        const char **more[2];
        for (int s = 0; s < 2; s++) {
            size_t nk = sides[s]->ix->kernels.n;
            if (!(more[s] = kw_arena_alloc(a, (nk ? nk : 1) * sizeof *more[s])))
                return kw_fail(err, "out of memory");
            for (size_t i = 0; i < nk; i++) {
                const kw_kernel *k = &sides[s]->ix->kernels.v[i];
                const char *key = sides[s]->keys[i];
                more[s][i] = NULL;
                if (!key || !kw_diff_triton_is(k) ||
                    (kw_diff_count(o, key) <= 1 && kw_diff_count(n, key) <= 1))
                    continue;
                if (!(more[s][i] = kw_diff_triton_key_more(a, key, k, pass == 1)))
                    return kw_fail(err, "out of memory");
                changed = true;
            }
        }
        if (!changed)
            return KW_OK;
        for (int s = 0; s < 2; s++) {
            kw_symmap_free(&sides[s]->by_key);
            kw_symmap_init(&sides[s]->by_key);
            for (size_t i = 0; i < sides[s]->ix->kernels.n; i++) {
                if (more[s][i])
                    sides[s]->keys[i] = more[s][i];
                if (sides[s]->keys[i] &&
                    kw_symmap_put(&sides[s]->by_key, sides[s]->keys[i], i) != KW_OK)
                    return kw_fail(err, "out of memory");
            }
        }
    }
    return KW_OK;
}

static kw_status kw_diff_side_init(kw_diff_side *s, kw_arena *a, const kw_index *ix, kw_err *err) {
    memset(s, 0, sizeof *s);
    s->ix = ix;
    kw_symmap_init(&s->by_key);
    if (!(s->dec = kw_decode_new(ix)))
        return kw_fail(err, "out of memory");
    size_t n = ix->kernels.n;
    s->keys = kw_arena_alloc(a, (n ? n : 1) * sizeof *s->keys);
    s->launches = kw_arena_alloc(a, (n ? n : 1) * sizeof *s->launches);
    if (!s->keys || !s->launches)
        return kw_fail(err, "out of memory");
    memset(s->launches, 0, (n ? n : 1) * sizeof *s->launches);
    for (size_t i = 0; i < n; i++) {
        const kw_kernel *k = &ix->kernels.v[i];
        if (!k->symbol)
            continue;
        if (!(s->keys[i] = kw_diff_key(a, ix, k)) ||
            kw_symmap_put(&s->by_key, s->keys[i], i) != KW_OK)
            return kw_fail(err, "out of memory");
    }
    for (size_t t = 0; t < ix->tus.n; t++) {
        const kw_index_tu *u = &ix->tus.v[t];
        for (size_t j = 0; j < u->launches.n; j++) {
            const kw_launch *la = &u->launches.v[j];
            const kw_kernel *k = la->kernel ? kw_index_kernel_in(ix, la->kernel, u) : NULL;
            if (!k || !la->location.file)
                continue;
            kw_loc *l = KW_PUSH(a, s->launches[k - ix->kernels.v]);
            if (!l)
                return kw_fail(err, "out of memory");
            *l = la->location;
        }
    }
    return KW_OK;
}

static kw_diff_row *kw_diff_row_new(kw_diff *d, const kw_diff_side *s, const kw_kernel *k,
                                    const char *arch, kw_diff_kind kind, kw_diff_dir dir,
                                    const char *field) {
    kw_diff_row *r = KW_PUSH(&d->arena, d->rows);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    const kw_index_tu *u = kw_index_kernel_unit(s->ix, k);
    r->kind = kind;
    r->dir = dir;
    r->name = kw_diff_triton_name(&d->arena, k);
    r->symbol = k->symbol;
    r->tu = u ? (u->tu.source ? u->tu.source : u->sidecar) : NULL;
    r->arch = arch;
    r->field = field;
    r->old_value = r->new_value = -1;
    return r;
}

/* The entry points reaching kernel k of side s (`kwalk list`'s) into r. */
static kw_status kw_diff_entries(kw_diff *d, kw_diff_side *s, const kw_kernel *k, kw_diff_row *r,
                                 kw_err *err) {
    if (!s->listed) {
        s->listed = true;
        if (kw_list_build(&s->list, s->ix, err) != KW_OK)
            return KW_ERR;
    }
    const kw_list_row *lr = NULL; /* the rows are sorted after row_of was made: scan */
    for (size_t j = 0; j < s->list.rows.n && !lr; j++)
        if (s->list.rows.v[j].kernel == k)
            lr = &s->list.rows.v[j];
    for (size_t j = 0; lr && j < lr->entries.n; j++) {
        const kw_entry **e = KW_PUSH(&d->arena, r->entries);
        if (!e)
            return kw_fail(err, "out of memory");
        *e = s->list.entries.v[lr->entries.v[j]];
    }
    return KW_OK;
}

/* A kernel (arch NULL) or one of its archs in side s only. */
static kw_status kw_diff_only(kw_diff *d, kw_diff_side *s, size_t i, const char *arch, bool added,
                              kw_err *err) {
    const kw_kernel *k = &s->ix->kernels.v[i];
    kw_diff_row *r =
        kw_diff_row_new(d, s, k, arch, added ? KW_DIFF_ADDED : KW_DIFF_REMOVED,
                        added ? KW_DIFF_CHANGE : KW_DIFF_WORSE, added ? "added" : "removed");
    if (!r)
        return kw_fail(err, "out of memory");
    r->launches.v = s->launches[i].v;
    r->launches.n = s->launches[i].n;
    return kw_diff_entries(d, s, k, r, err);
}

static const kw_kernel_arch *kw_diff_arch(const kw_kernel *k, const char *arch) {
    for (size_t i = 0; i < k->archs.n; i++)
        if (k->archs.v[i].arch && !strcmp(k->archs.v[i].arch, arch))
            return &k->archs.v[i];
    return NULL;
}

/* A number that changed: a row of kind, worse when it grew (or, up false, shrank). */
static kw_status kw_diff_num(kw_diff *d, const kw_diff_side *s, const kw_kernel *k,
                             const char *arch, kw_diff_kind kind, const char *field, long long o,
                             long long n, bool up, kw_diff_dir neutral, kw_err *err) {
    if (o < 0 || n < 0 || o == n)
        return KW_OK;
    kw_diff_dir dir = neutral;
    if (neutral != KW_DIFF_CHANGE)
        dir = (n > o) == up ? KW_DIFF_WORSE : KW_DIFF_BETTER;
    kw_diff_row *r = kw_diff_row_new(d, s, k, arch, kind, dir, field);
    if (!r)
        return kw_fail(err, "out of memory");
    r->old_value = o;
    r->new_value = n;
    return KW_OK;
}

static bool kw_diff_streq(const char *a, const char *b) {
    return a == b || (a && b && !strcmp(a, b));
}

/* The lines of source whose code changed: a row per range. */
static kw_status kw_diff_line_rows(kw_diff *d, const kw_diff_side *n, const kw_kernel *nk,
                                   const char *arch, const kw_kernel_arch *oc,
                                   const kw_kernel_arch *nc, kw_err *err) {
    kw_diff_ranges ranges;
    if (kw_diff_lines(oc, nc, &d->arena, &ranges, err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; i < ranges.n; i++) {
        const kw_diff_range *g = &ranges.v[i];
        kw_diff_row *r = kw_diff_row_new(d, n, nk, arch, KW_DIFF_LINES, KW_DIFF_CHANGE, "lines");
        if (!r)
            return kw_fail(err, "out of memory");
        r->src.file = g->file;
        r->src.line = g->first;
        r->src_last = g->last;
        r->old_value = g->old_insns;
        r->new_value = g->new_insns;
    }
    return KW_OK;
}

/* Did the listing's text change (a row "isa"), and which source lines' code
 * (rows "lines")? Nothing when either has no listing. */
static kw_status kw_diff_isa(kw_diff *d, const kw_diff_side *o, const kw_kernel_arch *oa,
                             const kw_diff_side *n, const kw_kernel *nk, const kw_kernel_arch *na,
                             kw_err *err) {
    kw_arena a;
    kw_arena_init(&a);
    kw_kernel_arch oc = *oa, nc = *na; /* copies: the listing read replaces isa and lines */
    kw_status st = KW_ERR;
    /* a listing decoded from its code object (kw_decode.h) is there already */
    if ((oc.isa && *oc.isa ? KW_OK : kw_index_read_listing(o->ix, 0, &oc, &a, err)) == KW_OK &&
        (nc.isa && *nc.isa ? KW_OK : kw_index_read_listing(n->ix, 0, &nc, &a, err)) == KW_OK) {
        st = KW_OK;
        if (oc.isa && *oc.isa && nc.isa && *nc.isa && !oc.isa_note && !nc.isa_note &&
            strcmp(oc.isa, nc.isa)) {
            if (!kw_diff_row_new(d, n, nk, oa->arch, KW_DIFF_ISA, KW_DIFF_CHANGE, "isa"))
                st = kw_fail(err, "out of memory");
            else
                st = kw_diff_line_rows(d, n, nk, oa->arch, &oc, &nc, err);
        }
    }
    kw_arena_free(&a);
    return st;
}

/* A Triton compile option whose value changed (or that one side lacks). */
static kw_status kw_diff_options(kw_diff *d, const kw_diff_side *n, const kw_kernel *ok,
                                 const kw_kernel *nk, const char *arch, kw_err *err) {
    const kw_triton *to = ok->triton, *tn = nk->triton;
    for (int side = 0; side < 2; side++) {
        const kw_triton *t = side ? tn : to;
        for (size_t i = 0; i < t->options.n; i++) {
            const char *name = t->options.v[i].name;
            if (!name || (side && kw_diff_triton_option(to, name)))
                continue; /* the second pass: the options OLD lacks */
            const char *ov = kw_diff_triton_option(to, name), *nv = kw_diff_triton_option(tn, name);
            if (kw_diff_streq(ov, nv))
                continue;
            kw_diff_row *r = kw_diff_row_new(d, n, nk, arch, KW_DIFF_OPTION, KW_DIFF_CHANGE, name);
            if (!r)
                return kw_fail(err, "out of memory");
            r->old_text = ov;
            r->new_text = nv;
        }
    }
    return KW_OK;
}

static kw_status kw_diff_pair(kw_diff *d, const kw_diff_side *o, const kw_kernel *ok,
                              const kw_diff_side *n, const kw_kernel *nk, const char *arch,
                              kw_err *err) {
    const kw_kernel_arch *oa = kw_diff_arch(ok, arch), *na = kw_diff_arch(nk, arch);
    const kw_isa_resources *r0 = &oa->resources, *r1 = &na->resources;
    const char *a = oa->arch;
    struct {
        kw_diff_kind kind;
        const char *field;
        long long o, n;
    } nums[] = {
        {KW_DIFF_SPILLS, "vgpr_spill", r0->vgpr_spill, r1->vgpr_spill},
        {KW_DIFF_SPILLS, "sgpr_spill", r0->sgpr_spill, r1->sgpr_spill},
        {KW_DIFF_VGPR, "vgpr", r0->vgpr, r1->vgpr},
        {KW_DIFF_AGPR, "agpr", r0->agpr, r1->agpr},
        {KW_DIFF_SGPR, "sgpr", r0->sgpr, r1->sgpr},
        {KW_DIFF_LDS, "lds_bytes", r0->lds_bytes, r1->lds_bytes},
        {KW_DIFF_SCRATCH, "scratch_bytes", r0->scratch_bytes, r1->scratch_bytes},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (kw_diff_num(d, n, nk, a, nums[i].kind, nums[i].field, nums[i].o, nums[i].n, true,
                        KW_DIFF_WORSE, err) != KW_OK)
            return KW_ERR;
    bool lim = !kw_diff_streq(r0->occupancy_limiter, r1->occupancy_limiter);
    if (r0->occupancy >= 0 && r1->occupancy >= 0 && r0->occupancy != r1->occupancy) {
        if (kw_diff_num(d, n, nk, a, KW_DIFF_OCCUPANCY, "occupancy", r0->occupancy, r1->occupancy,
                        false, KW_DIFF_WORSE, err) != KW_OK)
            return KW_ERR;
        d->rows.v[d->rows.n - 1].old_text = r0->occupancy_limiter;
        d->rows.v[d->rows.n - 1].new_text = r1->occupancy_limiter;
    } else if (lim && r0->occupancy_limiter && r1->occupancy_limiter) {
        kw_diff_row *r = kw_diff_row_new(d, n, nk, a, KW_DIFF_LIMITER, KW_DIFF_CHANGE, "limiter");
        if (!r)
            return kw_fail(err, "out of memory");
        r->old_text = r0->occupancy_limiter;
        r->new_text = r1->occupancy_limiter;
    }
    if (kw_diff_num(d, n, nk, a, KW_DIFF_INSNS, "insns", oa->classes.insns, na->classes.insns, true,
                    KW_DIFF_CHANGE, err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; kw_isa_class_key(i); i++) {
        const char *key = kw_isa_class_key(i);
        if (!strcmp(key, "insns"))
            continue;
        if (kw_diff_num(d, n, nk, a, KW_DIFF_CLASS, key, kw_isa_class_count(&oa->classes, i),
                        kw_isa_class_count(&na->classes, i), true, KW_DIFF_CHANGE, err) != KW_OK)
            return KW_ERR;
    }
    if (kw_diff_triton_is(ok) && kw_diff_triton_is(nk) &&
        kw_diff_options(d, n, ok, nk, a, err) != KW_OK)
        return KW_ERR;
    return kw_diff_isa(d, o, oa, n, nk, na, err);
}

/* The archs of a kernel in both: compared; in one only: added / removed. */
static kw_status kw_diff_kernel(kw_diff *d, kw_diff_side *o, size_t oi, kw_diff_side *n, size_t ni,
                                const char *arch, kw_err *err) {
    const kw_kernel *ok = &o->ix->kernels.v[oi], *nk = &n->ix->kernels.v[ni];
    /* with their listings, classes and line tables (decoded from their code
     * objects where the index keeps none) */
    if (kw_decode_kernel(o->dec, ok, &d->arena, &ok, err) != KW_OK ||
        kw_decode_kernel(n->dec, nk, &d->arena, &nk, err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; i < ok->archs.n; i++) {
        const char *a = ok->archs.v[i].arch;
        if (!a || (arch && strcmp(a, arch)))
            continue;
        kw_status st = kw_diff_arch(nk, a) ? kw_diff_pair(d, o, ok, n, nk, a, err)
                                           : kw_diff_only(d, o, oi, a, false, err);
        if (st != KW_OK)
            return st;
    }
    for (size_t i = 0; i < nk->archs.n; i++) {
        const char *a = nk->archs.v[i].arch;
        if (a && (!arch || !strcmp(a, arch)) && !kw_diff_arch(ok, a) &&
            kw_diff_only(d, n, ni, a, true, err) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

static bool kw_diff_has_arch(const kw_kernel *k, const char *arch) {
    return !arch || kw_diff_arch(k, arch);
}

static kw_status kw_diff_run(kw_diff *d, kw_diff_side *o, kw_diff_side *n, const char *arch,
                             kw_err *err) {
    if (kw_diff_side_init(o, &d->arena, o->ix, err) != KW_OK ||
        kw_diff_side_init(n, &d->arena, n->ix, err) != KW_OK ||
        kw_diff_triton_unique(o, n, &d->arena, err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; i < o->ix->kernels.n; i++) {
        if (!o->keys[i] || !kw_diff_has_arch(&o->ix->kernels.v[i], arch))
            continue;
        size_t *at = kw_symmap_get(&n->by_key, o->keys[i]);
        if (!at || !kw_diff_has_arch(&n->ix->kernels.v[*at], arch)) {
            if (kw_diff_only(d, o, i, NULL, false, err) != KW_OK)
                return KW_ERR;
            continue;
        }
        d->compared++;
        if (kw_diff_kernel(d, o, i, n, *at, arch, err) != KW_OK)
            return KW_ERR;
    }
    for (size_t i = 0; i < n->ix->kernels.n; i++) {
        if (!n->keys[i] || !kw_diff_has_arch(&n->ix->kernels.v[i], arch))
            continue;
        size_t *at = kw_symmap_get(&o->by_key, n->keys[i]);
        if ((!at || !kw_diff_has_arch(&o->ix->kernels.v[*at], arch)) &&
            kw_diff_only(d, n, i, NULL, true, err) != KW_OK)
            return KW_ERR;
    }
    kw_diff_sort(d->rows.v, d->rows.n);
    return KW_OK;
}

kw_status kw_diff_build(kw_diff *d, const kw_index *old_ix, const kw_index *new_ix,
                        const char *arch, kw_err *err) {
    memset(d, 0, sizeof *d);
    kw_arena_init(&d->arena);
    kw_diff_side o = {.ix = old_ix}, n = {.ix = new_ix};
    kw_status st = kw_diff_run(d, &o, &n, arch, err);
    kw_symmap_free(&o.by_key);
    kw_symmap_free(&n.by_key);
    kw_decode_free(o.dec);
    kw_decode_free(n.dec);
    if (o.listed)
        kw_list_free(&o.list);
    if (n.listed)
        kw_list_free(&n.list);
    return st;
}

void kw_diff_free(kw_diff *d) {
    kw_arena_free(&d->arena);
    memset(d, 0, sizeof *d);
}

/* ---- the order ----------------------------------------------------------------------------- */

/* Regressions by consequence (0..3), then the rest (4), then improvements (5). */
static int kw_diff_rank(const kw_diff_row *r) {
    if (r->dir == KW_DIFF_BETTER)
        return 5;
    if (r->dir == KW_DIFF_CHANGE)
        return 4;
    switch (r->kind) {
    case KW_DIFF_OCCUPANCY:
        return 0;
    case KW_DIFF_SPILLS:
        return 1;
    case KW_DIFF_REMOVED:
        return 2;
    default:
        return 3;
    }
}

static long long kw_diff_size(const kw_diff_row *r) {
    if (r->old_value < 0 || r->new_value < 0)
        return 0;
    return r->new_value > r->old_value ? r->new_value - r->old_value : r->old_value - r->new_value;
}

static int kw_diff_strcmp(const char *a, const char *b) {
    return strcmp(a ? a : "", b ? b : "");
}

static int kw_diff_cmp(const void *pa, const void *pb) {
    const kw_diff_row *a = pa, *b = pb;
    int c = kw_diff_rank(a) - kw_diff_rank(b);
    if (c)
        return c;
    if (kw_diff_rank(a) != 4) { /* by kind, then the largest change first */
        if (a->kind != b->kind)
            return (int)a->kind - (int)b->kind;
        long long sa = kw_diff_size(a), sb = kw_diff_size(b);
        if (sa != sb)
            return sa > sb ? -1 : 1;
    }
    if ((c = kw_natcmp(a->name, b->name)) || (c = kw_diff_strcmp(a->symbol, b->symbol)) ||
        (c = kw_diff_strcmp(a->tu, b->tu)) || (c = kw_diff_strcmp(a->arch, b->arch)))
        return c;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    if (a->kind == KW_DIFF_LINES) {
        if ((c = kw_diff_strcmp(a->src.file, b->src.file)))
            return c;
        return (a->src.line > b->src.line) - (a->src.line < b->src.line);
    }
    return kw_diff_strcmp(a->field, b->field);
}

void kw_diff_sort(kw_diff_row *rows, size_t n) {
    if (n > 1)
        qsort(rows, n, sizeof *rows, kw_diff_cmp);
}
