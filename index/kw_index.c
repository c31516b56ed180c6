/* kw_index.c: the kwalk index in memory: building it from sidecars (one
 * translation-unit record each, kernels unique by symbol, their archs
 * unioned), looking kernels up, and the schema table of its top level. Its
 * stored forms are the database (kw_index_db_*.c) and YAML (kw_index_yaml.c);
 * kw_index_file.c reads either. */
#include "index/kw_index.h"

#include <stdlib.h>
#include <string.h>

#include "index/kw_index_db.h"
#include "index/kw_index_int.h"

static const kw_field kw_f_index_tu[] = {
    {"sidecar", KW_F_STR, offsetof(kw_index_tu, sidecar), NULL, 0, NULL},
    {"producer", KW_F_MAP, offsetof(kw_index_tu, producer), &kw_t_producer, KW_F_ALWAYS, NULL},
    {"translation_unit", KW_F_MAP, offsetof(kw_index_tu, tu), &kw_t_tu, KW_F_ALWAYS, NULL},
    {"launches", KW_F_LIST, offsetof(kw_index_tu, launches), &kw_t_launch, KW_F_ALWAYS, NULL},
    {"entries", KW_F_LIST, offsetof(kw_index_tu, entries), &kw_t_entry, KW_F_ALWAYS, NULL},
    {"host_calls", KW_F_LIST, offsetof(kw_index_tu, host_calls), &kw_t_host_call, KW_F_ALWAYS,
     NULL},
};
static KW_TYPE(kw_t_index_tu, "translation unit", kw_index_tu, false, kw_f_index_tu);

/* The top level after kwalk_index and kwalk_schema. */
static const kw_field kw_f_index[] = {
    {"producer", KW_F_MAP, offsetof(kw_index, producer), &kw_t_producer, KW_F_ALWAYS, NULL},
    {"translation_units", KW_F_LIST, offsetof(kw_index, tus), &kw_t_index_tu, KW_F_ALWAYS, NULL},
    {"kernels", KW_F_LIST, offsetof(kw_index, kernels), &kw_t_kernel, KW_F_ALWAYS, NULL},
};
KW_TYPE(kw_t_index, "index", kw_index, false, kw_f_index);

void kw_index_init(kw_index *ix) {
    memset(ix, 0, sizeof(*ix));
    kw_arena_init(&ix->arena);
    kw_symmap_init(&ix->by_symbol);
    kw_symmap_init(&ix->tu_by_sidecar);
}

void kw_index_free(kw_index *ix) {
    kw_db_later_free(ix->later);
    kw_symmap_free(&ix->by_symbol);
    kw_symmap_free(&ix->tu_by_sidecar);
    kw_arena_free(&ix->arena);
    kw_index_init(ix);
}

const kw_kernel *kw_index_kernel(const kw_index *ix, const char *symbol) {
    const size_t *at = symbol ? kw_symmap_get(&ix->by_symbol, symbol) : NULL;
    return at ? &ix->kernels.v[*at] : NULL;
}

const kw_index_tu *kw_index_kernel_unit(const kw_index *ix, const kw_kernel *k) {
    const size_t *at = k && k->tu ? kw_symmap_get(&ix->tu_by_sidecar, k->tu) : NULL;
    return at ? &ix->tus.v[*at] : NULL;
}

const kw_kernel *kw_index_kernel_in(const kw_index *ix, const char *symbol, const kw_index_tu *tu) {
    if (!symbol)
        return NULL;
    if (tu && tu->sidecar) {
        char *key = kw_kernel_key_buf(symbol, tu->sidecar);
        const size_t *at = key ? kw_symmap_get(&ix->by_symbol, key) : NULL;
        free(key);
        if (at)
            return &ix->kernels.v[*at];
    }
    return kw_index_kernel(ix, symbol);
}

static kw_status kw_index_take(kw_index *ix, kw_sidecar *sc, const char *path, bool adopt,
                               kw_err *err) {
    kw_arena *a = &ix->arena;
    for (size_t i = 0; i < sc->kernels.n; i++)
        if (!sc->kernels.v[i].symbol)
            return kw_fail(err, "%s: kernel %zu has no symbol", path, i);
    if (adopt)
        kw_arena_adopt(a, &sc->arena);
    const char *sidecar = kw_arena_strdup(a, path);
    if (!sidecar)
        return kw_fail(err, "%s: out of memory", path);
    /* each arch record knows its unit (the one pushed below), whose object
     * holds its code: the listing is decoded from there on first use */
    for (size_t i = 0; i < sc->kernels.n; i++)
        for (size_t j = 0; j < sc->kernels.v[i].archs.n; j++)
            sc->kernels.v[i].archs.v[j].unit = ix->tus.n + 1;
    for (size_t i = 0; i < sc->kernels.n; i++) {
        /* a kernel with internal linkage is this unit's own: keyed by the unit too */
        kw_kernel k = sc->kernels.v[i];
        k.tu = k.linkage && !strcmp(k.linkage, "internal") ? sidecar : NULL;
        if (kw_sidecar_merge_kernel(a, (kw_anyarr *)&ix->kernels, &ix->by_symbol, &k, adopt, err) !=
            KW_OK)
            return KW_ERR;
    }
    kw_index_tu *tu = KW_PUSH(a, ix->tus);
    if (!tu)
        return kw_fail(err, "%s: out of memory", path);
    /* A view of the sidecar as an index record: the same member types. */
    kw_index_tu src = {0};
    src.sidecar = path;
    src.producer = sc->producer;
    src.tu = sc->tu;
    memcpy(&src.launches, &sc->launches, sizeof(src.launches));
    memcpy(&src.entries, &sc->entries, sizeof(src.entries));
    memcpy(&src.host_calls, &sc->host_calls, sizeof(src.host_calls));
    if (adopt) {
        *tu = src;
        tu->sidecar = sidecar;
    } else if (kw_schema_copy(a, &kw_t_index_tu, tu, &src) != KW_OK) {
        return kw_fail(err, "%s: out of memory", path);
    }
    if (!kw_symmap_get(&ix->tu_by_sidecar, tu->sidecar) &&
        kw_symmap_put(&ix->tu_by_sidecar, tu->sidecar, ix->tus.n - 1) != KW_OK)
        return kw_fail(err, "%s: out of memory", path);
    return KW_OK;
}

kw_status kw_index_add(kw_index *ix, const kw_sidecar *sc, const char *path, kw_err *err) {
    return kw_index_take(ix, (kw_sidecar *)sc, path, false, err);
}

kw_status kw_index_adopt(kw_index *ix, kw_sidecar *sc, const char *path, kw_err *err) {
    return kw_index_take(ix, sc, path, true, err);
}

kw_status kw_index_build_map(kw_index *ix, const char *name, kw_err *err) {
    for (size_t i = 0; i < ix->tus.n; i++) {
        const char *sc = ix->tus.v[i].sidecar;
        if (sc && !kw_symmap_get(&ix->tu_by_sidecar, sc) &&
            kw_symmap_put(&ix->tu_by_sidecar, sc, i) != KW_OK)
            return kw_fail(err, "%s: out of memory", name);
    }
    for (size_t i = 0; i < ix->kernels.n; i++) {
        const char *sym = ix->kernels.v[i].symbol;
        const char *key = kw_kernel_key(&ix->arena, sym, ix->kernels.v[i].tu);
        if (!key)
            return kw_fail(err, "%s: out of memory", name);
        if (kw_symmap_get(&ix->by_symbol, key))
            return kw_fail(err, "%s: kernels: symbol %s appears twice%s%s", name, sym,
                           ix->kernels.v[i].tu ? " for translation unit " : "",
                           ix->kernels.v[i].tu ? ix->kernels.v[i].tu : "");
        if (kw_symmap_put(&ix->by_symbol, key, i) != KW_OK)
            return kw_fail(err, "%s: out of memory", name);
    }
    return KW_OK;
}
