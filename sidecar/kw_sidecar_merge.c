/* kw_sidecar_merge.c: merging kernels by symbol. The host job merges the
 * fragments of its device jobs (one per --offload-arch) into one sidecar, and
 * `kwalk index` merges the kernels of many sidecars into one table. A kernel
 * is one instantiation, named by its device symbol: the first record of a
 * symbol is kept whole, later ones only contribute the archs it lacks (an arch
 * already present keeps its first record) and clear not_in_object when their
 * object holds the kernel. One exception, so that the result does not depend
 * on the order sidecars are read in: a record whose object holds the kernel
 * replaces the archs of a first record marked not_in_object (a TU whose object
 * has no code object, whose archs have no code-object facts); and an arch
 * record with no fact at all (a Triton hook's) is replaced by a later one. In
 * an index, a kernel with internal linkage is named by its symbol and its
 * translation unit (kw_kernel.tu, kw_kernel_key): the same symbol in two units
 * is two kernels. */
#include "sidecar/kw_schema.h"

#include <stdlib.h>
#include <string.h>

/* symbol, then the unit after a byte no symbol or path holds */
#define KW_KEY_SEP '\x1f'

const char *kw_kernel_key(kw_arena *a, const char *symbol, const char *tu) {
    if (!tu)
        return symbol;
    return kw_arena_printf(a, "%s%c%s", symbol, KW_KEY_SEP, tu);
}

char *kw_kernel_key_buf(const char *symbol, const char *tu) {
    size_t ns = strlen(symbol), nt = tu ? strlen(tu) : 0;
    char *k = malloc(ns + nt + 2);
    if (!k)
        return NULL;
    memcpy(k, symbol, ns);
    k[ns] = '\0';
    if (tu) {
        k[ns] = KW_KEY_SEP;
        memcpy(k + ns + 1, tu, nt + 1);
    }
    return k;
}

/* The arch record of dst for arch, or NULL. */
static kw_kernel_arch *kw_merge_arch(kw_kernel *k, const char *arch) {
    for (size_t i = 0; i < k->archs.n; i++)
        if (k->archs.v[i].arch && !strcmp(k->archs.v[i].arch, arch))
            return &k->archs.v[i];
    return NULL;
}

/* An arch record with no code-object fact; with ir_too, no IR facts either. */
static bool kw_merge_arch_bare(const kw_kernel_arch *x, bool ir_too) {
    return !x->target_id && !kw_isa_resources_known(&x->resources) &&
           !kw_isa_classes_known(&x->classes) && !x->dpp_patterns.n && !x->memory.n && !x->isa &&
           !x->lines_note && !x->lines.n && (!ir_too || !x->ir);
}

/* An arch record with no fact at all (a Triton hook's `gfx942: {}`, which
 * reads no code object): a later record of the arch replaces it. */
static bool kw_merge_arch_empty(const kw_kernel_arch *x) {
    return kw_merge_arch_bare(x, true);
}

/* replace: src's record of an arch dst has replaces dst's. */
static kw_status kw_merge_archs(kw_arena *a, kw_kernel *dst, const kw_kernel *src, bool adopt,
                                bool replace, kw_err *err) {
    for (size_t i = 0; i < src->archs.n; i++) {
        const kw_kernel_arch *sa = &src->archs.v[i];
        if (!sa->arch)
            continue;
        kw_kernel_arch *da = kw_merge_arch(dst, sa->arch);
        /* a Triton hook's record with the IR facts kwalk-irfacts gave it and
         * no code-object fact: the cache's record replaces it, keeping those
         * IR facts when the cache's has none */
        bool hook_ir = da && dst->triton && da->ir && kw_merge_arch_bare(da, false) &&
                       !kw_merge_arch_bare(sa, false);
        if (da && !replace && !hook_ir && (!kw_merge_arch_empty(da) || kw_merge_arch_empty(sa)))
            continue;
        kw_irf *keep = hook_ir && !sa->ir ? da->ir : NULL;
        if (!da)
            da = KW_PUSH(a, dst->archs);
        if (da && adopt)
            *da = *sa;
        else if (!da || kw_schema_copy(a, &kw_t_kernel_arch, da, sa) != KW_OK)
            return kw_fail(err, "out of memory merging kernel %s", src->symbol);
        if (keep)
            da->ir = keep;
    }
    return KW_OK;
}

/* The TTGIR layouts and memory ops of src into dst (which has none). */
static kw_status kw_merge_ttgir(kw_arena *a, kw_triton *dst, const kw_triton *src, bool adopt) {
    kw_triton copy;
    if (!adopt) {
        if (kw_schema_copy(a, &kw_t_triton, &copy, src) != KW_OK)
            return KW_ERR;
        src = &copy;
    }
    dst->layouts.v = src->layouts.v;
    dst->layouts.n = dst->layouts.cap = src->layouts.n;
    dst->memory_ops.v = src->memory_ops.v;
    dst->memory_ops.n = dst->memory_ops.cap = src->memory_ops.n;
    return KW_OK;
}

/* The --map-prefix rules of src into dst (which has none). */
static kw_status kw_merge_prefixes(kw_arena *a, kw_triton *dst, const kw_triton *src, bool adopt) {
    size_t n = src->map_prefix.n;
    kw_path_prefix *v = adopt ? src->map_prefix.v : kw_arena_alloc(a, n * sizeof *v);
    if (!v)
        return KW_ERR;
    for (size_t i = 0; i < n && !adopt; i++)
        if (!(v[i].from = kw_arena_strdup(a, src->map_prefix.v[i].from)) ||
            !(v[i].to = kw_arena_strdup(a, src->map_prefix.v[i].to)))
            return KW_ERR;
    dst->map_prefix.v = v;
    dst->map_prefix.n = dst->map_prefix.cap = n;
    return KW_OK;
}

kw_status kw_sidecar_merge_kernel(kw_arena *a, kw_anyarr *kernels, kw_symmap *map,
                                  const kw_kernel *k, bool adopt, kw_err *err) {
    const char *key = kw_kernel_key(a, k->symbol, k->tu);
    if (!key)
        return kw_fail(err, "out of memory merging kernel %s", k->symbol);
    size_t *at = kw_symmap_get(map, key);
    if (at) {
        kw_kernel *have = (kw_kernel *)kernels->v + *at;
        bool replace = have->not_in_object && !k->not_in_object;
        /* a Triton specialization from the hook and from its cache: the
         * cache's TTGIR facts join the hook's record (its IR facts come
         * with its arch) */
        if (have->triton && k->triton && !have->triton->layouts.n && k->triton->layouts.n &&
            kw_merge_ttgir(a, have->triton, k->triton, adopt) != KW_OK)
            return kw_fail(err, "out of memory merging kernel %s", k->symbol);
        /* and why the cache's .llir gave no IR facts */
        if (have->triton && k->triton && !have->triton->ir_note && k->triton->ir_note &&
            !(have->triton->ir_note =
                  adopt ? k->triton->ir_note : kw_arena_strdup(a, k->triton->ir_note)))
            return kw_fail(err, "out of memory merging kernel %s", k->symbol);
        /* and the prefixes its line table, decoded on use, is rewritten with */
        if (have->triton && k->triton && !have->triton->map_prefix.n && k->triton->map_prefix.n &&
            kw_merge_prefixes(a, have->triton, k->triton, adopt) != KW_OK)
            return kw_fail(err, "out of memory merging kernel %s", k->symbol);
        if (!k->not_in_object) /* another object holds it (or may): no longer "not in" */
            have->not_in_object = NULL;
        return kw_merge_archs(a, have, k, adopt, replace, err);
    }
    kw_kernel *nk = kw_arena_grow(a, &kernels->v, &kernels->n, &kernels->cap, sizeof(kw_kernel));
    if (nk && adopt)
        *nk = *k;
    else if (!nk || kw_schema_copy(a, &kw_t_kernel, nk, k) != KW_OK)
        nk = NULL;
    if (!nk || kw_symmap_put(map, k->tu ? key : nk->symbol, kernels->n - 1) != KW_OK)
        return kw_fail(err, "out of memory merging kernel %s", k->symbol);
    return KW_OK;
}

static kw_status kw_merge_offload_archs(kw_sidecar *dst, const kw_sidecar *frag, kw_err *err) {
    for (size_t i = 0; i < frag->tu.offload_archs.n; i++) {
        const char *arch = frag->tu.offload_archs.v[i];
        bool have = !arch;
        for (size_t j = 0; j < dst->tu.offload_archs.n && !have; j++)
            have = dst->tu.offload_archs.v[j] && !strcmp(dst->tu.offload_archs.v[j], arch);
        if (have)
            continue;
        const char **slot = KW_PUSH(&dst->arena, dst->tu.offload_archs);
        if (!slot || !(*slot = kw_arena_strdup(&dst->arena, arch)))
            return kw_fail(err, "out of memory merging offload archs");
    }
    return KW_OK;
}

kw_status kw_sidecar_merge_kernels(kw_sidecar *dst, const kw_sidecar *frag, kw_err *err) {
    kw_symmap map;
    kw_symmap_init(&map);
    kw_status st = KW_OK;
    for (size_t i = 0; i < dst->kernels.n && st == KW_OK; i++) {
        const char *sym = dst->kernels.v[i].symbol;
        if (sym && !kw_symmap_get(&map, sym) && kw_symmap_put(&map, sym, i) != KW_OK)
            st = kw_fail(err, "out of memory merging kernels");
    }
    for (size_t i = 0; i < frag->kernels.n && st == KW_OK; i++) {
        const kw_kernel *k = &frag->kernels.v[i];
        if (!k->symbol)
            st = kw_fail(err, "cannot merge kernel %zu (%s): it has no symbol", i,
                         k->name ? k->name : "unnamed");
        else
            st = kw_sidecar_merge_kernel(&dst->arena, (kw_anyarr *)&dst->kernels, &map, k, false,
                                         err);
    }
    if (st == KW_OK)
        st = kw_merge_offload_archs(dst, frag, err);
    kw_symmap_free(&map);
    return st;
}
