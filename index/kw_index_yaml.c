/* kw_index_yaml.c: the YAML form of the kwalk index, written and read (in
 * one pass of libyaml events straight into the structs) with the sidecar's
 * schema tables, writer and reader (sidecar/kw_schema.h).
 *
 * The YAML form (details in docs/sidecar-schema.md):
 *   kwalk_index: 1
 *   kwalk_schema: 1            # the sidecar schema of the records inside
 *   producer: {name: kwalk, version: ...}
 *   translation_units: [{sidecar, producer, translation_unit, launches, entries, host_calls}]
 *   kernels: [...]             # unique by symbol, archs unioned
 *   ... */
#include "index/kw_index.h"

#include <string.h>

#include "index/kw_index_int.h"

kw_status kw_index_emit(const kw_index *ix, kw_buf *out, kw_err *err) {
    kw_yaml_emitter e;
    size_t start = out->len;
    kw_yaml_emit_begin(&e, out, err);
    kw_yaml_emit_key_int(&e, "kwalk_index", KW_INDEX_VERSION);
    kw_yaml_emit_key_int(&e, "kwalk_schema", KW_SCHEMA_VERSION);
    kw_sidecar_emit_fields(&e, &kw_t_index, ix);
    kw_status st = kw_yaml_emit_end(&e);
    kw_yaml_emit_free(&e);
    if (st != KW_OK) {
        out->len = start;
        if (out->ptr)
            out->ptr[start] = '\0';
    }
    return st;
}

/* The version keys, which come first. */
/* The version under key, which must be in [oldest, want]. */
static kw_status kw_index_version(kw_sidecar_parser *p, const char *key, int oldest, int want,
                                  bool *have) {
    long long v;
    if (kw_sidecar_parse_int(p, key, &v) != KW_OK)
        return KW_ERR;
    if ((v < oldest || v > want) && oldest == want)
        return kw_fail(p->err, "%s: unsupported %s %lld (this kwalk reads %d)", p->name, key, v,
                       want);
    if (v < oldest || v > want)
        return kw_fail(p->err, "%s: unsupported %s %lld (this kwalk reads %d to %d)", p->name, key,
                       v, oldest, want);
    *have = true;
    return KW_OK;
}

static kw_status kw_index_parse_mode(void *obj, const char *name, const char *text, size_t len,
                                     bool fast, bool *used_fast, kw_err *err) {
    kw_index *ix = obj;
    kw_index_init(ix);
    kw_sidecar_parser p;
    kw_status st = kw_sidecar_parse_begin_mode(&p, name, text, len, &ix->arena, fast, err);
    *used_fast = p.fast;
    bool have_index = false, have_schema = false;
    uint64_t seen = 0;
    while (st == KW_OK) {
        const char *key;
        if ((st = kw_sidecar_parse_next_key(&p, &key)) != KW_OK || !key)
            break;
        if (!have_index) {
            if (!strcmp(key, "kwalk_index"))
                st = kw_index_version(&p, "kwalk_index", KW_INDEX_VERSION, KW_INDEX_VERSION,
                                      &have_index);
            else if (!strcmp(key, "kwalk_schema"))
                st = kw_fail(err, "%s: a sidecar, not a kwalk index (build one with 'kwalk index')",
                             name);
            else
                st = kw_fail(err, "%s: not a kwalk index (no kwalk_index key first)", name);
        } else if (!have_schema && !strcmp(key, "kwalk_schema")) {
            st = kw_index_version(&p, "kwalk_schema", KW_SCHEMA_OLDEST, KW_SCHEMA_VERSION,
                                  &have_schema);
        } else if (!have_schema) {
            st = kw_fail(err, "%s: unsupported kwalk_schema: missing (this kwalk reads %d to %d)",
                         name, KW_SCHEMA_OLDEST, KW_SCHEMA_VERSION);
        } else {
            st = kw_sidecar_parse_field(&p, &kw_t_index, ix, key, &seen);
        }
    }
    if (st == KW_OK && !have_index)
        st = kw_fail(err, "%s: not a kwalk index (no kwalk_index key first)", name);
    if (st == KW_OK && !have_schema)
        st = kw_fail(err, "%s: unsupported kwalk_schema: missing (this kwalk reads %d to %d)", name,
                     KW_SCHEMA_OLDEST, KW_SCHEMA_VERSION);
    if (st == KW_OK)
        st = kw_sidecar_parse_end(&p);
    kw_sidecar_parse_free(&p);
    if (st == KW_OK)
        st = kw_index_build_map(ix, name, err);
    if (st != KW_OK)
        kw_index_free(ix);
    return st;
}

kw_status kw_index_parse(kw_index *ix, const char *name, const char *text, size_t len,
                         kw_err *err) {
    return kw_sidecar_parse_read(kw_index_parse_mode, ix, name, text, len, err);
}
