/* fuzz_sidecar.c: the fuzz target of the sidecar reader. Each input is read
 * by the fast reader alone (kw_yaml_fast.c), by kw_sidecar_parse as kwalk
 * reads (the fast reader, libyaml when it declines), and by the libyaml path
 * alone (KWALK_YAML_FAST=0). Checked: both readings accept or reject alike and,
 * when they accept, give the same document; a document read back from its own
 * emitted YAML is the same document (the IR facts of every arch included:
 * they are typed records of the same schema tables), and so is the document
 * packed and unpacked (kw_sidecar_pack.h, the plugin's fragments). The input
 * is also read as a packed document, which must fail or succeed cleanly. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kw_fuzz.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_sidecar_pack.h"
#include "sidecar/kw_yaml_fast.h"

static void emit_or_die(const kw_sidecar *sc, kw_buf *out, const char *what) {
    kw_err err;
    kw_buf_init(out);
    KW_FUZZ_CHECK(kw_sidecar_emit(sc, out, &err) == KW_OK, "%s: emit failed: %s", what, err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    kw_yaml_fast_doc d;
    kw_yaml_fast_init(&d);
    (void)kw_yaml_fast_parse(&d, text, size);
    kw_yaml_fast_free(&d);

    kw_err err_fast, err_yaml;
    kw_sidecar a, b;
    kw_status sa = kw_sidecar_parse(&a, "fuzz", text, size, &err_fast);
    setenv("KWALK_YAML_FAST", "0", 1);
    kw_status sb = kw_sidecar_parse(&b, "fuzz", text, size, &err_yaml);
    unsetenv("KWALK_YAML_FAST");
    KW_FUZZ_CHECK(sa == sb, "the fast path says %s, libyaml's %s",
                  sa == KW_OK ? "ok" : err_fast.msg, sb == KW_OK ? "ok" : err_yaml.msg);
    if (sa == KW_OK) {
        kw_buf ea, eb;
        emit_or_die(&a, &ea, "fast path's document");
        emit_or_die(&b, &eb, "libyaml's document");
        KW_FUZZ_CHECK(ea.len == eb.len && !memcmp(ea.ptr, eb.ptr, ea.len),
                      "the fast path and libyaml read different documents");
        kw_sidecar c;
        kw_err err;
        KW_FUZZ_CHECK(kw_sidecar_parse(&c, "emitted", ea.ptr, ea.len, &err) == KW_OK,
                      "the emitted document does not read back: %s", err.msg);
        kw_buf ec;
        emit_or_die(&c, &ec, "the document read back");
        KW_FUZZ_CHECK(ec.len == ea.len && !memcmp(ec.ptr, ea.ptr, ea.len),
                      "the document read back from its YAML differs");
        kw_buf packed, ep;
        kw_buf_init(&packed);
        kw_sidecar p;
        KW_FUZZ_CHECK(kw_sidecar_pack(&a, &packed, &err) == KW_OK, "pack failed: %s", err.msg);
        KW_FUZZ_CHECK(kw_sidecar_unpack(&p, "packed", packed.ptr, packed.len, &err) == KW_OK,
                      "the packed document does not unpack: %s", err.msg);
        emit_or_die(&p, &ep, "the document unpacked");
        KW_FUZZ_CHECK(ep.len == ea.len && !memcmp(ep.ptr, ea.ptr, ea.len),
                      "the document packed and unpacked differs");
        kw_buf_free(&packed);
        kw_buf_free(&ep);
        kw_sidecar_free(&p);
        kw_buf_free(&ea);
        kw_buf_free(&eb);
        kw_buf_free(&ec);
        kw_sidecar_free(&c);
    }
    kw_sidecar u;
    kw_err err_u;
    if (kw_sidecar_unpack(&u, "raw", data, size, &err_u) == KW_OK) {
        kw_buf eu;
        kw_buf_init(&eu);
        (void)kw_sidecar_emit(&u, &eu, &err_u); /* may refuse (a key missing), never crash */
        kw_buf_free(&eu);
    }
    kw_sidecar_free(&u);
    kw_sidecar_free(&a);
    kw_sidecar_free(&b);
    return 0;
}
