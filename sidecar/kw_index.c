/* kw_index.c: the kwalk index: building it from sidecars, and its YAML form
 * (read in one pass of libyaml events straight into the structs, with the
 * same tables and reader as a sidecar). The packed form, the default on disk,
 * is kw_index_bin.c; kw_index_read_file takes either.
 *
 * The YAML form (details in docs/sidecar-schema.md):
 *   kwalk_index: 1
 *   kwalk_schema: 1            # the sidecar schema of the records inside
 *   producer: {name: kwalk, version: ...}
 *   translation_units: [{sidecar, producer, translation_unit, launches, entries, host_calls}]
 *   kernels: [...]             # unique by symbol, archs unioned
 *   ... */
#include "kw_index.h"

#include <stdlib.h>
#include <string.h>

#include "kw_fs.h"
#include "kw_sidecar_int.h"

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
    for (size_t i = 0; i < sc->kernels.n; i++) {
        /* a kernel with internal linkage is this unit's own: keyed by the unit too */
        kw_kernel k = sc->kernels.v[i];
        k.tu = k.linkage && !strcmp(k.linkage, "internal") ? sidecar : NULL;
        if (kw_sc_merge_kernel(a, (kw_anyarr *)&ix->kernels, &ix->by_symbol, &k, adopt, err) !=
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
    } else if (kw_sc_copy(a, &kw_t_index_tu, tu, &src) != KW_OK) {
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

kw_status kw_index_emit(const kw_index *ix, kw_buf *out, kw_err *err) {
    kw_ye e;
    size_t start = out->len;
    kw_ye_begin(&e, out, err);
    kw_ye_key_int(&e, "kwalk_index", KW_INDEX_VERSION);
    kw_ye_key_int(&e, "kwalk_schema", KW_SCHEMA_VERSION);
    kw_ye_fields(&e, &kw_t_index, ix);
    kw_status st = kw_ye_end(&e);
    kw_ye_free(&e);
    if (st != KW_OK) {
        out->len = start;
        if (out->ptr)
            out->ptr[start] = '\0';
    }
    return st;
}

kw_status kw_index_write_file(const kw_index *ix, const char *path, kw_index_format format,
                             kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_status st =
        format == KW_INDEX_YAML ? kw_index_emit(ix, &b, err) : kw_index_encode(ix, &b, err);
    if (st == KW_OK)
        st = kw_fs_write_atomic(path, b.ptr, b.len, err);
    kw_buf_free(&b);
    return st;
}

/* The version keys, which come first. */
static kw_status kw_index_version(kw_yp *p, const char *key, int want, bool *have) {
    long long v;
    if (kw_yp_int(p, key, &v) != KW_OK)
        return KW_ERR;
    if (v != want)
        return kw_fail(p->err, "%s: unsupported %s %lld (this kwalk reads %d)", p->name, key, v,
                       want);
    *have = true;
    return KW_OK;
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

static kw_status kw_index_parse_mode(void *obj, const char *name, const char *text, size_t len,
                                     bool fast, bool *used_fast, kw_err *err) {
    kw_index *ix = obj;
    kw_index_init(ix);
    kw_yp p;
    kw_status st = kw_yp_begin_mode(&p, name, text, len, &ix->arena, fast, err);
    *used_fast = p.fast;
    bool have_index = false, have_schema = false;
    uint64_t seen = 0;
    while (st == KW_OK) {
        const char *key;
        if ((st = kw_yp_next_key(&p, &key)) != KW_OK || !key)
            break;
        if (!have_index) {
            if (!strcmp(key, "kwalk_index"))
                st = kw_index_version(&p, "kwalk_index", KW_INDEX_VERSION, &have_index);
            else if (!strcmp(key, "kwalk_schema"))
                st = kw_fail(err, "%s: a sidecar, not a kwalk index (build one with 'kwalk index')",
                             name);
            else
                st = kw_fail(err, "%s: not a kwalk index (no kwalk_index key first)", name);
        } else if (!have_schema && !strcmp(key, "kwalk_schema")) {
            st = kw_index_version(&p, "kwalk_schema", KW_SCHEMA_VERSION, &have_schema);
        } else if (!have_schema) {
            st = kw_fail(err, "%s: unsupported kwalk_schema: missing (this kwalk reads %d)", name,
                         KW_SCHEMA_VERSION);
        } else {
            st = kw_yp_field(&p, &kw_t_index, ix, key, &seen);
        }
    }
    if (st == KW_OK && !have_index)
        st = kw_fail(err, "%s: not a kwalk index (no kwalk_index key first)", name);
    if (st == KW_OK && !have_schema)
        st = kw_fail(err, "%s: unsupported kwalk_schema: missing (this kwalk reads %d)", name,
                     KW_SCHEMA_VERSION);
    if (st == KW_OK)
        st = kw_yp_end(&p);
    kw_yp_free(&p);
    if (st == KW_OK)
        st = kw_index_build_map(ix, name, err);
    if (st != KW_OK)
        kw_index_free(ix);
    return st;
}

kw_status kw_index_parse(kw_index *ix, const char *name, const char *text, size_t len,
                         kw_err *err) {
    return kw_yp_read(kw_index_parse_mode, ix, name, text, len, err);
}

kw_status kw_index_read_file(kw_index *ix, const char *path, kw_err *err) {
    char *text;
    size_t len;
    if (kw_sc_read_text(path, &text, &len, err) != KW_OK) {
        kw_index_init(ix);
        return KW_ERR;
    }
    kw_status st = kw_index_load(ix, path, text, len, err);
    free(text);
    return st;
}

/* Whether data can be YAML text: no control character (other than tab, line
 * feed, carriage return) in its first bytes, where a binary file has its own
 * magic number or header fields. */
static bool kw_index_is_text(const unsigned char *d, size_t len) {
    for (size_t i = 0; i < len && i < 512; i++)
        if ((d[i] < 0x20 && d[i] != '\t' && d[i] != '\n' && d[i] != '\r') || d[i] == 0x7f)
            return false;
    return true;
}

kw_status kw_index_load(kw_index *ix, const char *name, const void *data, size_t len, kw_err *err) {
    if (kw_index_is_packed(data, len))
        return kw_index_decode(ix, name, data, len, err);
    if (!kw_index_is_text(data, len)) {
        kw_index_init(ix);
        return kw_fail(err, "%s: not a kwalk index (neither its packed form nor YAML text)", name);
    }
    return kw_index_parse(ix, name, data, len, err);
}
