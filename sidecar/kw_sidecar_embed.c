/* kw_sidecar_embed.c: the records of the embed section (kw_sidecar_embed.h):
 * written by the plugin's host job, walked by `kwalk index`. */
#include "sidecar/kw_sidecar_embed.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"
#include "sidecar/kw_sidecar_zstd.h"

kw_status kw_sidecar_embed_record(const kw_sidecar *sc, char **out, size_t *out_len, kw_err *err) {
    *out = NULL;
    *out_len = 0;
    kw_buf yaml;
    kw_buf_init(&yaml);
    char *packed = NULL;
    size_t packed_len = 0;
    kw_status st = kw_sidecar_emit(sc, &yaml, err);
    if (st == KW_OK)
        st = kw_sidecar_zstd_compress(yaml.ptr, yaml.len, &packed, &packed_len, err);
    kw_buf_free(&yaml);
    if (st != KW_OK)
        return st;
    char *rec = malloc(KW_EMBED_HEADER_LEN + packed_len);
    if (!rec) {
        free(packed);
        return kw_fail(err, "cannot embed the sidecar: out of memory");
    }
    memcpy(rec, KW_EMBED_MAGIC, KW_EMBED_MAGIC_LEN);
    uint64_t n = packed_len;
    for (int i = 0; i < 8; i++)
        rec[KW_EMBED_MAGIC_LEN + i] = (char)(unsigned char)(n >> (8 * i));
    memcpy(rec + KW_EMBED_HEADER_LEN, packed, packed_len);
    free(packed);
    *out = rec;
    *out_len = KW_EMBED_HEADER_LEN + packed_len;
    return KW_OK;
}

kw_status kw_sidecar_embed_next(const char *name, const unsigned char *sec, size_t len, size_t *pos,
                                size_t *payload, size_t *payload_len, kw_err *err) {
    size_t p = *pos;
    *payload = 0;
    *payload_len = 0;
    while (p < len && sec[p] == 0) /* a linker's alignment padding */
        p++;
    if (p >= len) {
        *pos = len;
        return KW_OK;
    }
    if (len - p < KW_EMBED_HEADER_LEN || memcmp(sec + p, KW_EMBED_MAGIC, KW_EMBED_MAGIC_LEN) != 0)
        return kw_fail(err, "%s: %s section: no kwalk record at offset %zu", name, KW_EMBED_SECTION,
                       p);
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)sec[p + KW_EMBED_MAGIC_LEN + i] << (8 * i);
    size_t room = len - p - KW_EMBED_HEADER_LEN;
    if (n == 0 || n > room)
        return kw_fail(err,
                       "%s: %s section: the record at offset %zu claims %llu bytes, %zu are left",
                       name, KW_EMBED_SECTION, p, (unsigned long long)n, room);
    *payload = p + KW_EMBED_HEADER_LEN;
    *payload_len = (size_t)n;
    *pos = *payload + (size_t)n;
    return KW_OK;
}
