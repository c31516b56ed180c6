/* test_index.c: the kwalk index (kw_index.h): sidecars added, kernels
 * deduplicated by symbol with archs unioned, host-side records kept per
 * translation unit (a kernel with internal linkage: by symbol and unit),
 * exact round trips of the YAML and packed forms (and from
 * one to the other), and the errors for documents that are not an index of
 * this version, truncated or corrupt (never a crash: the packed reader is fed
 * mutated payloads with a valid checksum). */
#include <stdlib.h>
#include <string.h>

#include "index/kw_index.h"
#include "index/kw_index_int.h"
#include "kw_test.h"
#include "kw_test_sidecar.h"

static const char *parse_err(const char *text) {
    static kw_err err;
    kw_index ix;
    kw_status st = kw_index_parse(&ix, "i.yaml", text, strlen(text), &err);
    CHECK(st == KW_OK || (ix.kernels.n == 0 && ix.tus.n == 0));
    kw_index_free(&ix);
    return st == KW_OK ? NULL : err.msg;
}

static void test_build_and_round_trip(void) {
    kw_index ix;
    kw_err err;
    kw_index_init(&ix);
    ix.producer.name = "kwalk";
    ix.producer.version = "0.1.0";

    kw_sidecar a, b;
    kw_sidecar_init(&a);
    kw_tc_full_sidecar(&a);
    kw_sidecar_init(&b);
    b.producer.name = "kwalk";
    b.tu.source = "/src/other.cu";
    kw_tc_kernel(&b, "_ZN2ns1kIfLi256ELi4ELb1ELNS_4ModeE0EEvPT_PKS2_i", "ns::k<...>", "gfx90a");
    kw_tc_kernel(&b, "_Z3newv", "new", "gfx942");
    kw_entry *e = KW_PUSH(&b.arena, b.entries);
    e->name = "other", e->kind = "extern_c", e->function_symbol = "other";

    CHECK(kw_index_add(&ix, &a, "build/a.kwalk.yaml", &err) == KW_OK);
    CHECK(kw_index_add(&ix, &b, "build/b.kwalk.yaml", &err) == KW_OK);
    kw_sidecar_free(&a); /* the index owns copies */
    kw_sidecar_free(&b);

    CHECK(ix.kernels.n == 3 && ix.tus.n == 2);
    const kw_kernel *k = kw_index_kernel(&ix, "_ZN2ns1kIfLi256ELi4ELb1ELNS_4ModeE0EEvPT_PKS2_i");
    CHECK(k && k->archs.n == 3 && k->calls.n == 2);
    CHECK(k && k->name && strcmp(k->name, "ns::k<float, 256, 4, true, ns::Mode::Plain>") == 0);
    CHECK(kw_index_kernel(&ix, "_Z3newv") == &ix.kernels.v[2]);
    CHECK(kw_index_kernel(&ix, "_Z7missingv") == NULL);
    CHECK(kw_index_kernel(&ix, NULL) == NULL);
    if (ix.tus.n == 2) {
        CHECK_STR(ix.tus.v[0].sidecar, "build/a.kwalk.yaml");
        CHECK(ix.tus.v[0].launches.n == 2 && ix.tus.v[0].entries.n == 2);
        CHECK(ix.tus.v[0].host_calls.n == 2 && ix.tus.v[0].tu.offload_archs.n == 2);
        CHECK_STR(ix.tus.v[0].tu.cuid, "1a2b3c4d");
        CHECK_STR(ix.tus.v[1].tu.source, "/src/other.cu");
        CHECK(ix.tus.v[1].launches.n == 0 && ix.tus.v[1].entries.n == 1);
    }

    kw_buf t1, t2;
    kw_buf_init(&t1);
    kw_buf_init(&t2);
    CHECK(kw_index_emit(&ix, &t1, &err) == KW_OK);
    CHECK(strncmp(kw_buf_str(&t1),
                  "kwalk_index: 1\nkwalk_schema: 1\nproducer: {name: kwalk, version: \"0.1.0\"}\n"
                  "translation_units:\n- sidecar: build/a.kwalk.yaml\n",
                  118) == 0);
    kw_index back;
    CHECK(kw_index_parse(&back, "ix.yaml", t1.ptr, t1.len, &err) == KW_OK);
    CHECK(back.kernels.n == 3 && back.tus.n == 2);
    CHECK(kw_index_kernel(&back, "_Z3newv") == &back.kernels.v[2]);
    CHECK(kw_index_emit(&back, &t2, &err) == KW_OK);
    CHECK(t1.len == t2.len && strcmp(kw_buf_str(&t1), kw_buf_str(&t2)) == 0);

    CHECK(kw_index_write_file(&back, "ix.kwalk-index.yaml", KW_INDEX_YAML, &err) == KW_OK);
    kw_index again;
    CHECK(kw_index_read_file(&again, "ix.kwalk-index.yaml", &err) == KW_OK);
    CHECK(again.kernels.n == 3);
    kw_index_free(&again);
    CHECK(kw_index_read_file(&again, "missing-index.yaml", &err) == KW_ERR);
    CHECK_STR(err.msg, "missing-index.yaml: No such file or directory");

    /* a sidecar is not an index, an index is not a sidecar */
    kw_sidecar sc;
    CHECK(kw_sidecar_parse(&sc, "ix.yaml", t1.ptr, t1.len, &err) == KW_ERR);
    CHECK_STR(err.msg, "ix.yaml: a kwalk index, not a sidecar");
    kw_sidecar_free(&sc);

    kw_buf_free(&t1);
    kw_buf_free(&t2);
    kw_index_free(&back);
    kw_index_free(&ix);
}

static void test_errors(void) {
    CHECK(parse_err("kwalk_index: 1\nkwalk_schema: 1\n...\n") == NULL);
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels: []\n...\n"),
              "i.yaml: a sidecar, not a kwalk index (build one with 'kwalk index')");
    CHECK_STR(parse_err("kwalk_index: 2\nkwalk_schema: 1\n...\n"),
              "i.yaml: unsupported kwalk_index 2 (this kwalk reads 1)");
    CHECK_STR(parse_err("kwalk_index: 1\nkwalk_schema: 3\n...\n"),
              "i.yaml: unsupported kwalk_schema 3 (this kwalk reads 1)");
    CHECK_STR(parse_err("kwalk_index: 1\nkernels: []\n...\n"),
              "i.yaml: unsupported kwalk_schema: missing (this kwalk reads 1)");
    CHECK_STR(parse_err("kwalk_index: 1\n...\n"),
              "i.yaml: unsupported kwalk_schema: missing (this kwalk reads 1)");
    CHECK_STR(parse_err("hello: world\n...\n"),
              "i.yaml: not a kwalk index (no kwalk_index key first)");
    CHECK_STR(parse_err("kwalk_index: 1\nkwalk_schema: 1\ntranslation_units:\n- launches: {}\n"
                        "...\n"),
              "i.yaml: line 4: translation_units[0].launches: expected a sequence, got a mapping");
    CHECK_STR(parse_err("kwalk_index: 1\nkwalk_schema: 1\nkernels:\n- {symbol: a}\n- {symbol: a}"
                        "\n...\n"),
              "i.yaml: kernels: symbol a appears twice");
    CHECK_STR(parse_err("kwalk_index: 1\nkwalk_schema: 1\nkernels:\n- {symbol: a}\n"),
              "i.yaml: line 5: truncated: the document does not end with '...'");
}

/* A small index with every field, in the packed form. */
static void build(kw_index *ix, kw_sidecar *a) {
    kw_err err;
    kw_index_init(ix);
    ix->producer.name = "kwalk";
    kw_sidecar_init(a);
    kw_tc_full_sidecar(a);
    CHECK(kw_index_add(ix, a, "a.kwalk.yaml", &err) == KW_OK);
}

static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void reseal(unsigned char *p, size_t n) {
    uint64_t h = kw_index_checksum(p, n - 8);
    for (int i = 0; i < 8; i++)
        p[n - 8 + i] = (unsigned char)(h >> (8 * i));
}

static const char *load_err(const unsigned char *p, size_t n) {
    static kw_err err;
    kw_index ix;
    kw_status st = kw_index_load(&ix, "p.db", p, n, &err);
    CHECK(st == KW_OK || (ix.kernels.n == 0 && ix.tus.n == 0));
    kw_index_free(&ix);
    if (st == KW_OK)
        return NULL;
    CHECK(!strchr(err.msg, '\n') && !strncmp(err.msg, "p.db: ", 6));
    return err.msg;
}

static void test_packed(void) {
    kw_index ix, back;
    kw_sidecar a;
    kw_err err;
    build(&ix, &a);
    kw_buf p1, p2, y1, y2;
    kw_buf_init(&p1);
    kw_buf_init(&p2);
    kw_buf_init(&y1);
    kw_buf_init(&y2);
    CHECK(kw_index_encode(&ix, &p1, &err) == KW_OK);
    CHECK(p1.len > 40 && memcmp(p1.ptr, "KWALKIDX", 8) == 0);
    CHECK(kw_index_load(&back, "p.db", p1.ptr, p1.len, &err) == KW_OK);
    CHECK(back.kernels.n == 2 && back.tus.n == 1);
    CHECK(kw_index_kernel(&back, "_Z6tricky") == &back.kernels.v[1]);
    /* same bytes again, and the same YAML as the index it came from */
    CHECK(kw_index_encode(&back, &p2, &err) == KW_OK);
    CHECK(p1.len == p2.len && memcmp(p1.ptr, p2.ptr, p1.len) == 0);
    CHECK(kw_index_emit(&ix, &y1, &err) == KW_OK);
    CHECK(kw_index_emit(&back, &y2, &err) == KW_OK);
    CHECK(strcmp(kw_buf_str(&y1), kw_buf_str(&y2)) == 0);
    if (back.kernels.n == 2) {
        CHECK(back.kernels.v[0].shared.v[1].bytes == -1);
        CHECK(back.tus.v[0].launches.v[1].grid.value[0] == 9223372036854775807LL);
        CHECK(back.tus.v[0].launches.v[1].grid.value[1] == -5);
        CHECK(back.tus.v[0].launches.v[0].grid.dims == 3);
        CHECK_STR(back.kernels.v[1].params.v[14].name, "\001ctrl");
    }
    kw_index_free(&back);

    /* files: packed by default name, YAML on request; read_file takes both */
    CHECK(kw_index_write_file(&ix, "p.db", KW_INDEX_PACKED, &err) == KW_OK);
    CHECK(kw_index_write_file(&ix, "p.yaml", KW_INDEX_YAML, &err) == KW_OK);
    CHECK(kw_index_read_file(&back, "p.db", &err) == KW_OK && back.kernels.n == 2);
    kw_index_free(&back);
    CHECK(kw_index_read_file(&back, "p.yaml", &err) == KW_OK && back.kernels.n == 2);
    kw_index_free(&back);

    unsigned char *m = malloc(p1.len);
    size_t n = p1.len;
    /* every truncation */
    size_t refused = 0;
    for (size_t cut = 0; cut < n; cut++)
        refused += load_err((const unsigned char *)p1.ptr, cut) != NULL;
    CHECK(refused == n);
    CHECK_STR(load_err((const unsigned char *)p1.ptr, 20),
              "p.db: truncated kwalk index (20 bytes); rebuild it with 'kwalk index'");
    /* every flipped byte: the checksum */
    refused = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(m, p1.ptr, n);
        m[i] ^= 0x5A;
        refused += load_err(m, n) != NULL;
    }
    CHECK(refused == n);
    memcpy(m, p1.ptr, n);
    m[n / 2] ^= 1;
    CHECK_STR(load_err(m, n),
              "p.db: corrupt kwalk index (checksum mismatch); rebuild it with 'kwalk index'");
    /* the header */
    memcpy(m, p1.ptr, n);
    put_u32(m + 8, 2);
    CHECK_STR(load_err(m, n), "p.db: unsupported kwalk_index 2 (this kwalk reads 1)");
    memcpy(m, p1.ptr, n);
    put_u32(m + 12, 7);
    CHECK_STR(load_err(m, n), "p.db: unsupported kwalk_schema 7 (this kwalk reads 1)");
    memcpy(m, p1.ptr, n);
    m[16] ^= 1;
    CHECK_STR(load_err(m, n), "p.db: written by a kwalk build with another record layout; "
                              "rebuild it with 'kwalk index'");
    /* mutated payloads that pass the checksum: the decoder's own bounds */
    unsigned long long seed = 42;
    int ok = 0, bad = 0;
    for (int round = 0; round < 20000; round++) {
        memcpy(m, p1.ptr, n);
        for (int e = 0; e < 1 + round % 3; e++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = 32 + (size_t)(seed >> 33) % (n - 40);
            m[at] = (unsigned char)(seed >> 13);
        }
        reseal(m, n);
        if (load_err(m, n))
            bad++;
        else
            ok++;
    }
    CHECK(bad > 0 && ok > 0); /* some mutations only change string bytes */
    free(m);

    kw_buf_free(&p1);
    kw_buf_free(&p2);
    kw_buf_free(&y1);
    kw_buf_free(&y2);
    kw_sidecar_free(&a);
    kw_index_free(&ix);
}

/* Two units, each with its own kernel of one internal-linkage symbol, and a
 * kernel of external linkage both have: two internal kernels (each with its
 * unit's record, tu set), one external (merged); the same after a YAML and a
 * packed round trip, and through kw_index_adopt. */
static void check_internal(const kw_index *ix, const char *what) {
    const char *sym = "_ZN12_GLOBAL__N_18helper_kEPfi";
    CHECK(ix->kernels.n == 3 && ix->tus.n == 2);
    if (ix->tus.n != 2) {
        fprintf(stderr, "  (%s)\n", what);
        return;
    }
    const kw_kernel *ka = kw_index_kernel_in(ix, sym, &ix->tus.v[0]);
    const kw_kernel *kb = kw_index_kernel_in(ix, sym, &ix->tus.v[1]);
    CHECK(ka && kb && ka != kb);
    if (ka && kb) {
        CHECK_STR(ka->tu, "u/a.kwalk.yaml");
        CHECK_STR(kb->tu, "u/b.kwalk.yaml");
        CHECK(ka->location.line == 9 && kb->location.line == 19);
        CHECK(kw_index_kernel_unit(ix, ka) == &ix->tus.v[0]);
        CHECK(kw_index_kernel_unit(ix, kb) == &ix->tus.v[1]);
    }
    CHECK(kw_index_kernel(ix, sym) == NULL); /* no external kernel of that symbol */
    const kw_kernel *x = kw_index_kernel_in(ix, "_Z3extv", &ix->tus.v[1]);
    CHECK(x && x == kw_index_kernel(ix, "_Z3extv") && !x->tu && x->archs.n == 2);
    CHECK(kw_index_kernel_unit(ix, x) == NULL);
}

static void internal_unit(kw_sidecar *sc, const char *src, int line, const char *arch) {
    kw_sidecar_init(sc);
    sc->producer.name = "kwalk";
    sc->tu.source = src;
    kw_kernel *k = kw_tc_kernel(sc, "_ZN12_GLOBAL__N_18helper_kEPfi",
                                "(anonymous namespace)::helper_k", "gfx942");
    k->linkage = "internal";
    k->location.file = src;
    k->location.line = line;
    kw_tc_kernel(sc, "_Z3extv", "ext", arch);
}

static void test_internal_linkage(void) {
    kw_err err;
    for (int adopt = 0; adopt < 2; adopt++) {
        kw_index ix;
        kw_index_init(&ix);
        ix.producer.name = "kwalk";
        kw_sidecar a, b;
        internal_unit(&a, "/src/a.hip", 9, "gfx942");
        internal_unit(&b, "/src/b.hip", 19, "gfx950");
        if (adopt) {
            CHECK(kw_index_adopt(&ix, &a, "u/a.kwalk.yaml", &err) == KW_OK);
            CHECK(kw_index_adopt(&ix, &b, "u/b.kwalk.yaml", &err) == KW_OK);
        } else {
            CHECK(kw_index_add(&ix, &a, "u/a.kwalk.yaml", &err) == KW_OK);
            CHECK(kw_index_add(&ix, &b, "u/b.kwalk.yaml", &err) == KW_OK);
        }
        kw_sidecar_free(&a);
        kw_sidecar_free(&b);
        check_internal(&ix, adopt ? "adopt" : "add");
        kw_buf t, p;
        kw_buf_init(&t);
        kw_buf_init(&p);
        kw_index back;
        CHECK(kw_index_emit(&ix, &t, &err) == KW_OK);
        CHECK(kw_index_parse(&back, "ix.yaml", t.ptr, t.len, &err) == KW_OK);
        check_internal(&back, "yaml");
        kw_index_free(&back);
        CHECK(kw_index_encode(&ix, &p, &err) == KW_OK);
        CHECK(kw_index_decode(&back, "ix.db", p.ptr, p.len, &err) == KW_OK);
        check_internal(&back, "packed");
        kw_index_free(&back);
        kw_buf_free(&t);
        kw_buf_free(&p);
        kw_index_free(&ix);
    }
}

int main(void) {
    test_build_and_round_trip();
    test_errors();
    test_packed();
    test_internal_linkage();
    return kw_test_result("test_index");
}
