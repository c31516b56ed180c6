/* test_sidecar_zstd.c: the compressed form of a sidecar
 * (sidecar/kw_sidecar_zstd.c). The golden sidecar compressed by kwalk comes
 * back byte for byte through libzstd's own one-shot decompression (the ground
 * truth), kw_sidecar_parse reads the compressed text to the same document as
 * the plain one, and damaged input is one error line each: truncated, a byte
 * changed (the frame's checksum), more output than allowed, not zstd at all.
 * Concatenated frames read as their texts joined, as the zstd format says. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/kw_buf.h"
#include "common/kw_fs.h"
#include "kw_test.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_sidecar_zstd.h"

#define GOLDEN KW_FIXTURES "/golden/full.kwalk.yaml"

/* The document of text[0..len) written again (plain), or NULL */
static char *reemit(const char *text, size_t len, size_t *out_len) {
    kw_sidecar sc;
    kw_err err;
    if (kw_sidecar_parse(&sc, "t", text, len, &err) != KW_OK) {
        fprintf(stderr, "parse: %s\n", err.msg);
        return NULL;
    }
    kw_buf b;
    kw_buf_init(&b);
    kw_status st = kw_sidecar_emit(&sc, &b, &err);
    kw_sidecar_free(&sc);
    if (st != KW_OK) {
        kw_buf_free(&b);
        return NULL;
    }
    *out_len = b.len;
    return b.ptr;
}

static bool starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void test_round_trip(const char *plain, size_t len, const char *z, size_t zlen) {
    CHECK(kw_sidecar_is_zstd(z, zlen));
    CHECK(!kw_sidecar_is_zstd(plain, len));
    CHECK(!kw_sidecar_is_zstd(z, 3));
    CHECK(zlen < len); /* a sidecar compresses */
    /* libzstd's one-shot API, with the size the frame records */
    unsigned long long n = ZSTD_getFrameContentSize(z, zlen);
    CHECK(n == len);
    char *back = malloc(len + 1);
    CHECK(back && !ZSTD_isError(ZSTD_decompress(back, len + 1, z, zlen)));
    CHECK(back && memcmp(back, plain, len) == 0);
    free(back);
    /* kwalk's own reading */
    char *text;
    size_t text_len;
    kw_err err;
    CHECK(kw_sidecar_zstd_decompress("z", z, zlen, len, &text, &text_len, &err) == KW_OK);
    CHECK(text_len == len && memcmp(text, plain, len) == 0 && text[len] == '\0');
    free(text);
    /* the parsed documents are the same */
    size_t a_len = 0, b_len = 0;
    char *a = reemit(plain, len, &a_len), *b = reemit(z, zlen, &b_len);
    CHECK(a && b && a_len == b_len && memcmp(a, b, a_len) == 0);
    free(a);
    free(b);
}

static void test_damage(const char *plain, size_t len, const char *z, size_t zlen) {
    char *text;
    size_t text_len;
    kw_err err;
    /* one byte short of what it holds */
    CHECK(kw_sidecar_zstd_decompress("z", z, zlen, len - 1, &text, &text_len, &err) == KW_ERR);
    CHECK(starts_with(err.msg, "z: decompresses to more than"));
    CHECK(text == NULL && text_len == 0);
    /* truncated: at several places */
    for (size_t cut = 4; cut < zlen; cut += zlen / 7 + 1) {
        CHECK(kw_sidecar_zstd_decompress("z", z, cut, len, &text, &text_len, &err) == KW_ERR);
        CHECK(strchr(err.msg, '\n') == NULL && starts_with(err.msg, "z: "));
    }
    /* a byte changed inside the compressed blocks: the checksum says so */
    char *bad = malloc(zlen);
    CHECK(bad != NULL);
    if (bad) {
        memcpy(bad, z, zlen);
        bad[zlen / 2] ^= 0x20;
        CHECK(kw_sidecar_zstd_decompress("z", bad, zlen, len, &text, &text_len, &err) == KW_ERR);
        CHECK(starts_with(err.msg, "z: damaged zstd data"));
        /* the same through the sidecar reader: an error, not another document */
        kw_sidecar sc;
        CHECK(kw_sidecar_parse(&sc, "bad.kwalk.yaml.zst", bad, zlen, &err) == KW_ERR);
        CHECK(starts_with(err.msg, "bad.kwalk.yaml.zst: "));
        kw_sidecar_free(&sc);
        free(bad);
    }
    (void)plain;
}

static void test_two_frames(const char *z, size_t zlen, size_t len) {
    char *two = malloc(2 * zlen);
    CHECK(two != NULL);
    if (!two)
        return;
    memcpy(two, z, zlen);
    memcpy(two + zlen, z, zlen);
    char *text;
    size_t text_len;
    kw_err err;
    CHECK(kw_sidecar_zstd_decompress("z", two, 2 * zlen, 2 * len, &text, &text_len, &err) == KW_OK);
    CHECK(text_len == 2 * len);
    free(text);
    free(two);
}

int main(void) {
    char *plain;
    size_t len;
    kw_err err;
    CHECK(kw_fs_read(GOLDEN, &plain, &len, &err) == KW_OK);
    char *z = NULL;
    size_t zlen = 0;
    CHECK(kw_sidecar_zstd_compress(plain, len, &z, &zlen, &err) == KW_OK);
    if (plain && z) {
        test_round_trip(plain, len, z, zlen);
        test_damage(plain, len, z, zlen);
        test_two_frames(z, zlen, len);
    }
    free(z);
    free(plain);
    return kw_test_result("test_sidecar_zstd");
}
