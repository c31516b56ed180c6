/* kw_sidecar_zstd.c: a sidecar's zstd form, over libzstd's streaming API
 * (the decompressed size is bounded whether or not the frame records it). */
#include "sidecar/kw_sidecar_zstd.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

bool kw_sidecar_is_zstd(const void *data, size_t len) {
    static const unsigned char magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
    return data && len >= sizeof(magic) && memcmp(data, magic, sizeof(magic)) == 0;
}

kw_status kw_sidecar_zstd_compress(const void *data, size_t len, char **out, size_t *out_len,
                                   kw_err *err) {
    *out = NULL;
    *out_len = 0;
    size_t bound = ZSTD_compressBound(len);
    char *buf = malloc(bound ? bound : 1);
    if (!buf)
        return kw_fail(err, "cannot compress the sidecar: out of memory");
    /* with the frame's content checksum: a damaged file is an error, never
     * other YAML */
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    size_t r = cc ? ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1) : 0;
    if (cc && !ZSTD_isError(r))
        r = ZSTD_compress2(cc, buf, bound, data, len);
    ZSTD_freeCCtx(cc);
    if (!cc) {
        free(buf);
        return kw_fail(err, "cannot compress the sidecar: out of memory");
    }
    if (ZSTD_isError(r)) {
        free(buf);
        return kw_fail(err, "cannot compress the sidecar: %s", ZSTD_getErrorName(r));
    }
    *out = buf;
    *out_len = r;
    return KW_OK;
}

kw_status kw_sidecar_zstd_decompress(const char *name, const void *data, size_t len, size_t max,
                                     char **text, size_t *text_len, kw_err *err) {
    *text = NULL;
    *text_len = 0;
    ZSTD_DStream *ds = ZSTD_createDStream();
    size_t cap = len * 8 + 4096, used = 0; /* len: a file, at most 1 GiB */
    if (cap > max + 1)
        cap = max + 1;
    char *buf = ds ? malloc(cap + 1) : NULL;
    kw_status st = buf ? KW_OK : kw_fail(err, "%s: cannot decompress: out of memory", name);
    ZSTD_inBuffer in = {data, len, 0};
    while (st == KW_OK) {
        if (used == cap) { /* cap <= max here: more output than max ended the loop */
            size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                st = kw_fail(err, "%s: cannot decompress: out of memory", name);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ZSTD_outBuffer out = {buf, cap, used};
        size_t in_before = in.pos, out_before = used;
        size_t r = ZSTD_decompressStream(ds, &out, &in);
        used = out.pos;
        if (ZSTD_isError(r))
            st = kw_fail(err, "%s: damaged zstd data: %s", name, ZSTD_getErrorName(r));
        else if (used > max)
            st = kw_fail(err, "%s: decompresses to more than %zu bytes", name, max);
        else if (in.pos == in.size && r == 0) /* every frame read to its end */
            break;
        else if (in.pos == in_before && used == out_before && used < cap)
            st = kw_fail(err, "%s: truncated zstd data", name);
    }
    ZSTD_freeDStream(ds);
    if (st != KW_OK) {
        free(buf);
        return st;
    }
    buf[used] = '\0';
    *text = buf;
    *text_len = used;
    return KW_OK;
}
