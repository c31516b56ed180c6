/* fuzz_index.c: the fuzz target of the kwalk index reader: either stored
 * form (packed or YAML, told by the first bytes: kw_index_load), the YAML
 * form also through libyaml alone (KWALK_YAML_FAST=0). Checked: both readings
 * agree; an index that loads re-encodes, and the packed and YAML forms it
 * writes load back to the same index; every kernel is found by its symbol. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kw_fuzz.h"
#include "index/kw_index.h"

static void encode_or_die(const kw_index *ix, kw_buf *packed, kw_buf *yaml, const char *what) {
    kw_err err;
    kw_buf_init(packed);
    kw_buf_init(yaml);
    KW_FUZZ_CHECK(kw_index_encode(ix, packed, &err) == KW_OK, "%s: encode: %s", what, err.msg);
    KW_FUZZ_CHECK(kw_index_emit(ix, yaml, &err) == KW_OK, "%s: emit: %s", what, err.msg);
}

static bool same(const kw_buf *x, const kw_buf *y) {
    return x->len == y->len && !memcmp(x->ptr, y->ptr, x->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kw_err err, err2;
    kw_index a, b;
    kw_status sa = kw_index_load(&a, "fuzz", data, size, &err);
    setenv("KWALK_YAML_FAST", "0", 1);
    kw_status sb = kw_index_load(&b, "fuzz", data, size, &err2);
    unsetenv("KWALK_YAML_FAST");
    KW_FUZZ_CHECK(sa == sb, "the fast path says %s, libyaml's %s", sa == KW_OK ? "ok" : err.msg,
                  sb == KW_OK ? "ok" : err2.msg);
    if (sa == KW_OK) {
        for (size_t i = 0; i < a.kernels.n; i++)
            KW_FUZZ_CHECK(kw_index_kernel(&a, a.kernels.v[i].symbol) != NULL,
                          "kernel %zu not found by its symbol", i);
        kw_buf pa, ya, pb, yb;
        encode_or_die(&a, &pa, &ya, "the index");
        encode_or_die(&b, &pb, &yb, "libyaml's index");
        KW_FUZZ_CHECK(same(&pa, &pb) && same(&ya, &yb),
                      "the fast path and libyaml read different indexes");
        kw_index c, d;
        KW_FUZZ_CHECK(kw_index_decode(&c, "packed", pa.ptr, pa.len, &err) == KW_OK,
                      "the packed form does not load back: %s", err.msg);
        KW_FUZZ_CHECK(kw_index_parse(&d, "yaml", ya.ptr, ya.len, &err) == KW_OK,
                      "the YAML form does not load back: %s", err.msg);
        kw_buf pc, yc, pd, yd;
        encode_or_die(&c, &pc, &yc, "the packed form read back");
        encode_or_die(&d, &pd, &yd, "the YAML form read back");
        KW_FUZZ_CHECK(same(&pa, &pc) && same(&ya, &yc), "the packed form read back differs");
        KW_FUZZ_CHECK(same(&pa, &pd) && same(&ya, &yd), "the YAML form read back differs");
        kw_buf *bufs[] = {&pa, &ya, &pb, &yb, &pc, &yc, &pd, &yd};
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
            kw_buf_free(bufs[i]);
        kw_index_free(&c);
        kw_index_free(&d);
    }
    kw_index_free(&a);
    kw_index_free(&b);
    return 0;
}
