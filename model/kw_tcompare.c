/* kw_tcompare.c: builds the comparison of two Triton specializations
 * (kw_tcompare.h): each section's rows are the union of both sides' keys,
 * in A's order then B's. */
#include <string.h>

#include "model/kw_tcompare.h"

static kw_status kw_tc_add(kw_arena *ar, kw_tcmp_rows *rows, const char *key, const char *a,
                           const char *b, kw_err *err) {
    for (size_t i = 0; i < rows->n; i++)
        if (!strcmp(rows->v[i].key, key)) {
            if (a)
                rows->v[i].a = a;
            if (b)
                rows->v[i].b = b;
            rows->v[i].changed = strcmp(rows->v[i].a, rows->v[i].b) != 0;
            return KW_OK;
        }
    kw_tcmp_row *r = KW_PUSH(ar, *rows);
    if (!r)
        return kw_fail(err, "out of memory");
    r->key = key;
    r->a = a ? a : "-";
    r->b = b ? b : "-";
    r->changed = strcmp(r->a, r->b) != 0;
    return KW_OK;
}

static const char *kw_tc_num(kw_arena *ar, long long v) {
    return v < 0 ? "-" : kw_arena_printf(ar, "%lld", v);
}

/* The numbers of one arch record (NULL: none), side 0 (A) or 1 (B). */
static kw_status kw_tc_arch(kw_tcmp *c, const kw_kernel_arch *x, int side, kw_arena *ar,
                            kw_err *err) {
    if (!x)
        return KW_OK;
    const kw_isa_resources *r = &x->resources;
    const struct {
        const char *key;
        long long v;
    } nums[] = {{"VGPR", r->vgpr},
                {"AGPR", r->agpr},
                {"SGPR", r->sgpr},
                {"VGPR spills", r->vgpr_spill},
                {"SGPR spills", r->sgpr_spill},
                {"LDS bytes", r->lds_bytes},
                {"scratch bytes per lane", r->scratch_bytes},
                {"waves per SIMD", r->occupancy}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        const char *v = kw_tc_num(ar, nums[i].v);
        if (!v || kw_tc_add(ar, &c->resources, nums[i].key, side ? NULL : v, side ? v : NULL,
                            err) != KW_OK)
            return v ? KW_ERR : kw_fail(err, "out of memory");
    }
    const char *lim = r->occupancy_limiter ? r->occupancy_limiter : "-";
    if (kw_tc_add(ar, &c->resources, "occupancy limited by", side ? NULL : lim, side ? lim : NULL,
                  err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; kw_isa_class_key(i); i++) {
        long long n = kw_isa_class_count(&x->classes, i);
        if (n < 0)
            continue; /* no listing */
        const char *v = kw_tc_num(ar, n);
        if (!v || kw_tc_add(ar, &c->classes, kw_isa_class_key(i), side ? NULL : v, side ? v : NULL,
                            err) != KW_OK)
            return v ? KW_ERR : kw_fail(err, "out of memory");
    }
    return KW_OK;
}

static kw_status kw_tc_side(kw_tcmp *c, const kw_kernel *k, int side, kw_arena *ar, kw_err *err) {
    const kw_triton *t = k->triton;
#define KW_TC(rows, key, v)                                                                        \
    if (kw_tc_add(ar, rows, key, side ? NULL : (v), side ? (v) : NULL, err) != KW_OK)              \
        return KW_ERR;
    for (size_t i = 0; i < t->constexprs.n; i++) {
        const kw_triton_constexpr *x = &t->constexprs.v[i];
        KW_TC(&c->constexprs, x->name, x->value ? x->value : "not known");
    }
    for (size_t i = 0; i < t->options.n; i++)
        KW_TC(&c->options, t->options.v[i].name,
              t->options.v[i].value ? t->options.v[i].value : "-");
    const char *sh = kw_tc_num(ar, t->shared_bytes), *ws = kw_tc_num(ar, t->warp_size);
    if (!sh || !ws)
        return kw_fail(err, "out of memory");
    KW_TC(&c->options, "shared (NAME.json)", sh);
    KW_TC(&c->options, "warp size", ws);
    KW_TC(&c->options, "arch", k->archs.n ? k->archs.v[0].arch : "-");
    for (size_t i = 0; i < t->layouts.n; i++) {
        const kw_triton_layout *l = &t->layouts.v[i];
        const char *v =
            kw_arena_printf(ar, "%s<{%s}>", l->kind ? l->kind : "?", l->params ? l->params : "");
        if (!v)
            return kw_fail(err, "out of memory");
        KW_TC(&c->layouts, l->name, v);
    }
#undef KW_TC
    return kw_tc_arch(c, k->archs.n ? &k->archs.v[0] : NULL, side, ar, err);
}

kw_status kw_tcmp_build(kw_tcmp *c, const kw_kernel *a, const kw_kernel *b, kw_arena *arena,
                        kw_err *err) {
    memset(c, 0, sizeof *c);
    if (!a->triton || !b->triton)
        return kw_fail(err, "compare: both kernels must be Triton specializations");
    const char *an = a->name ? a->name : a->symbol, *bn = b->name ? b->name : b->symbol;
    if (strcmp(an, bn) ||
        (a->location.file && b->location.file &&
         (strcmp(a->location.file, b->location.file) || a->location.line != b->location.line)))
        return kw_fail(err,
                       "compare: '%s' and '%s' are not specializations of one function "
                       "(another name or def)",
                       an, bn);
    c->a = a;
    c->b = b;
    c->aa = a->archs.n ? &a->archs.v[0] : NULL;
    c->ba = b->archs.n ? &b->archs.v[0] : NULL;
    if (kw_tc_side(c, a, 0, arena, err) != KW_OK || kw_tc_side(c, b, 1, arena, err) != KW_OK)
        return KW_ERR;
    return KW_OK;
}
