/* test_index.c: the kwalk index (kw_index.h): sidecars added, kernels
 * deduplicated by symbol with archs unioned, host-side records kept per
 * translation unit (a kernel with internal linkage: by symbol and unit),
 * exact round trips of the YAML form and of the database (the same YAML
 * again), and the errors for files that are not an index of this version,
 * truncated or corrupt (never a crash: the database reader is fed truncated
 * and mutated files, and rows it cannot place), and the listings read one
 * arch at a time after the rest (kw_index_read_listing). */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/kw_index.h"
#include "index/kw_index_db.h"
#include "index/kw_index_int.h"
#include "kw_test.h"
#include "kw_test_index.h"
#include "kw_test_sidecar.h"
#include "kw_test_tmp.h"

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
                  "kwalk_index: 1\nkwalk_schema: 3\nproducer: {name: kwalk, version: \"0.1.0\"}\n"
                  "translation_units:\n- sidecar: build/a.kwalk.yaml\n",
                  118) == 0);
    kw_index back;
    CHECK(kw_index_parse(&back, "ix.yaml", t1.ptr, t1.len, &err) == KW_OK);
    CHECK(back.kernels.n == 3 && back.tus.n == 2);
    CHECK(kw_index_kernel(&back, "_Z3newv") == &back.kernels.v[2]);
    CHECK(kw_index_emit(&back, &t2, &err) == KW_OK);
    CHECK(t1.len == t2.len && strcmp(kw_buf_str(&t1), kw_buf_str(&t2)) == 0);

    CHECK(kw_index_write_yaml(&back, "ix-index.yaml", &err) == KW_OK);
    kw_index again;
    CHECK(kw_index_read_file(&again, "ix-index.yaml", &err) == KW_OK);
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
    CHECK_STR(parse_err("kwalk_index: 1\nkwalk_schema: 4\n...\n"),
              "i.yaml: unsupported kwalk_schema 4 (this kwalk reads 1 to 3)");
    CHECK_STR(parse_err("kwalk_index: 1\nkernels: []\n...\n"),
              "i.yaml: unsupported kwalk_schema: missing (this kwalk reads 1 to 3)");
    CHECK_STR(parse_err("kwalk_index: 1\n...\n"),
              "i.yaml: unsupported kwalk_schema: missing (this kwalk reads 1 to 3)");
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

/* A small index with every field, and its database. */
static void build(kw_index *ix, kw_sidecar *a) {
    kw_sidecar_init(a);
    kw_tc_full_sidecar(a);
    kw_test_index_one(ix, a, "p.db");
}

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    char *d = NULL;
    *n = 0;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        rewind(f);
        d = len > 0 ? malloc((size_t)len) : NULL;
        if (d && fread(d, 1, (size_t)len, f) == (size_t)len)
            *n = (size_t)len;
    }
    if (f)
        fclose(f);
    return d;
}

/* The error reading the file of n bytes d as "c.db", NULL when it reads. */
static const char *load_err(const void *d, size_t n) {
    static kw_err err;
    kw_index ix;
    kw_test_index_spit("c.db", d, n);
    kw_status st = kw_index_read_file(&ix, "c.db", &err);
    CHECK(st == KW_OK || (ix.kernels.n == 0 && ix.tus.n == 0));
    kw_index_free(&ix);
    if (st == KW_OK)
        return NULL;
    CHECK(!strchr(err.msg, '\n') && !strncmp(err.msg, "c.db: ", 6));
    return err.msg;
}

static void test_db(void) {
    kw_index ix, back;
    kw_sidecar a;
    kw_err err;
    build(&ix, &a);
    kw_buf y1, y2;
    kw_buf_init(&y1);
    kw_buf_init(&y2);
    CHECK(kw_index_read_file(&back, "p.db", &err) == KW_OK);
    CHECK(back.kernels.n == 2 && back.tus.n == 1);
    CHECK(kw_index_kernel(&back, "_Z6tricky") == &back.kernels.v[1]);
    /* the same YAML as the index it came from */
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
    /* the YAML export reads back too */
    CHECK(kw_index_write_yaml(&ix, "p.yaml", &err) == KW_OK);
    CHECK(kw_index_read_file(&back, "p.yaml", &err) == KW_OK && back.kernels.n == 2);
    kw_index_free(&back);

    size_t n;
    char *d = slurp("p.db", &n);
    CHECK(d && n > 4096);
    if (!d)
        return;
    CHECK(load_err(d, n) == NULL);
    /* truncated: every page boundary and a few bytes into the pages. SQLite
     * reads a short last page as zeros, so a cut that leaves every page the
     * reader needs (an index page or a free page lost) may still load: then
     * it must load the same index, else be refused. */
    size_t refused = 0, tried = 0, same = 0;
    for (size_t cut = 0; cut < n; cut += cut < 200 ? 37 : 1024, tried++) {
        if (load_err(d, cut) != NULL) {
            refused++;
            continue;
        }
        kw_index cutix;
        kw_buf y3;
        kw_buf_init(&y3);
        if (kw_index_read_file(&cutix, "c.db", &err) == KW_OK &&
            kw_index_emit(&cutix, &y3, &err) == KW_OK && !strcmp(kw_buf_str(&y1), kw_buf_str(&y3)))
            same++;
        kw_index_free(&cutix);
        kw_buf_free(&y3);
    }
    CHECK(refused + same == tried && refused > tried / 2);
    /* the packed form of earlier kwalks */
    CHECK_STR(load_err("KWALKIDX\x01\x00\x00\x00", 12),
              "c.db: an index in the packed form of an earlier kwalk; rebuild it with 'kwalk "
              "index'");
    /* not SQLite */
    CHECK_STR(load_err("\x7f"
                       "ELF\x02\x01\x01",
                       7),
              "c.db: not a kwalk index (neither its database nor YAML text)");
    /* a byte changed anywhere: never a crash; a one-line error or a reading */
    unsigned char *m = malloc(n);
    unsigned seed = 12345;
    for (int i = 0; i < 300 && m; i++) {
        memcpy(m, d, n);
        for (int k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            m[(seed >> 4) % n] ^= (unsigned char)(1u + (seed >> 24) % 255u);
        }
        (void)load_err(m, n);
    }
    free(m);
    /* another SQLite database, another version, another layout */
    CHECK_STR(kw_test_index_damaged(d, n, "PRAGMA application_id = 7"),
              "c.db: an SQLite database, not a kwalk index");
    CHECK_STR(
        kw_test_index_damaged(d, n, "UPDATE kwalk_meta SET value = '99' WHERE key = 'kwalk_index'"),
        "c.db: unsupported kwalk_index 99 (this kwalk reads 6)");
    CHECK_STR(kw_test_index_damaged(d, n, "UPDATE kwalk_meta SET value = '0' WHERE key = 'layout'"),
              "c.db: written by a kwalk build with another record layout; rebuild it "
              "with 'kwalk index'");
    /* rows a reader cannot place */
    CHECK_STR(
        kw_test_index_damaged(d, n, "UPDATE _kernels_params SET _ord = _ord + 1 WHERE _ord = 3"),
        "c.db: corrupt kwalk index (kernels_params: a gap in a list); rebuild it "
        "with 'kwalk index'");
    CHECK_STR(kw_test_index_damaged(d, n, "UPDATE _kernels_archs SET _parent = 999999"),
              "c.db: corrupt kwalk index (kernels_archs: a row without its parent); "
              "rebuild it with 'kwalk index'");
    const char *e = kw_test_index_damaged(d, n, "DROP TABLE _kernels_calls");
    CHECK(e && strstr(e, "c.db: corrupt kwalk index (kernels_calls: ") == e);
    free(d);
    kw_buf_free(&y1);
    kw_buf_free(&y2);
    kw_index_free(&ix);
    kw_sidecar_free(&a);
}

/* A sidecar whose first kernel has a listing and line table (with inlining
 * chains) and IR facts (an access with its depends_on and inlining chain)
 * on gfx942, and only a line table on gfx950. */
static void listing_sidecar(kw_sidecar *sc) {
    kw_sidecar_init(sc);
    kw_tc_full_sidecar(sc);
    kw_arena *a = &sc->arena;
    kw_kernel_arch *x = &sc->kernels.v[0].archs.v[0], *y = &sc->kernels.v[0].archs.v[1];
    x->isa = "0: s_load_dword s0, s[0:1], 0x0\nloop:\n4: v_add_f32 v0, v1, v2\n8: s_endpgm\n";
    for (int i = 0; i < 3; i++) {
        kw_isa_line *l = KW_PUSH(a, x->lines);
        l->offset = 4 * i;
        l->location = kw_tc_loc(i == 1 ? "/src/h.h" : "/src/k.hip", 10 + i, 3);
        for (int j = 0; j < i; j++)
            *KW_PUSH(a, l->inlined_at) = kw_tc_loc("/src/k.hip", 20 + j, 5);
    }
    kw_isa_line *l = KW_PUSH(a, y->lines);
    l->offset = 0;
    l->location = kw_tc_loc("/src/k.hip", 7, 1);
    kw_irf *ir = kw_arena_alloc(a, sizeof *ir);
    kw_irf_access *acc = ir ? KW_PUSH(a, ir->accesses) : NULL;
    if (!acc)
        return;
    ir->symbol = sc->kernels.v[0].symbol, ir->arch = "gfx942", ir->wave_size = 64;
    acc->op = "load", acc->space = "global", acc->what = "load", acc->type = "float";
    acc->bytes_per_lane = 4, acc->align = 4, acc->param_index = -1, acc->param_offset = -1;
    acc->lane_stride_bytes.kind = KW_VAL_NUM, acc->lane_stride_bytes.num = 4;
    acc->group_stride_bytes.kind = acc->group_stride_bytes_y.kind = KW_VAL_ABSENT;
    acc->group_stride_bytes_z.kind = KW_VAL_ABSENT;
    acc->active_lanes = 64, acc->wave_bytes = 256, acc->segments_per_wave = 4;
    acc->segments_per_wave_128 = -1, acc->coalesced = 1, acc->bank_conflict_degree = -1;
    acc->group = acc->loop = -1;
    *KW_PUSH(a, acc->depends_on) = "threadIdx.x";
    acc->loc.location.at = kw_tc_loc("/src/h.h", 11, 3);
    kw_irf_frame *f = KW_PUSH(a, acc->loc.inlined_at);
    if (f)
        f->at = kw_tc_loc("/src/k.hip", 20, 5), f->function = "helper";
    x->ir = ir;
}

/* Listings read later (kw_index_read_file_later): the same index once each
 * arch's is read, on either reader, less the line rows' inlined_at chains
 * (pages show none); none when a YAML index is read whole; a corrupt line
 * table is an error of the arch that has it. */
static void test_db_later(void) {
    kw_index ix, back;
    kw_sidecar a;
    kw_err err;
    listing_sidecar(&a);
    kw_test_index_one(&ix, &a, "l.db");
    kw_buf y1, y2;
    kw_buf_init(&y1);
    kw_buf_init(&y2);
    CHECK(kw_index_emit(&ix, &y1, &err) == KW_OK);
    CHECK(strstr(kw_buf_str(&y1), "v_add_f32") && strstr(kw_buf_str(&y1), "inlined_at"));
    /* a whole read gives the chains */
    CHECK(kw_index_read_file(&back, "l.db", &err) == KW_OK);
    CHECK(kw_index_emit(&back, &y2, &err) == KW_OK);
    CHECK_STR(kw_buf_str(&y2), kw_buf_str(&y1));
    kw_index_free(&back);
    kw_buf_reset(&y2);
    CHECK(strstr(kw_buf_str(&y1), "depends_on: [threadIdx.x]") &&
          strstr(kw_buf_str(&y1), "helper"));
    /* what the later read gives: the same without what no page shows, the
     * chains and depends_on */
    for (size_t i = 0; i < ix.kernels.n; i++)
        for (size_t j = 0; j < ix.kernels.v[i].archs.n; j++) {
            kw_kernel_arch *x = &ix.kernels.v[i].archs.v[j];
            for (size_t k = 0; k < x->lines.n; k++)
                x->lines.v[k].inlined_at.n = 0;
            for (size_t k = 0; x->ir && k < x->ir->accesses.n; k++)
                x->ir->accesses.v[k].depends_on.n = x->ir->accesses.v[k].loc.inlined_at.n = 0;
        }
    kw_buf_reset(&y1);
    CHECK(kw_index_emit(&ix, &y1, &err) == KW_OK);
    CHECK(strstr(kw_buf_str(&y1), "v_add_f32") && !strstr(kw_buf_str(&y1), "inlined_at") &&
          strstr(kw_buf_str(&y1), "depends_on: []") &&
          strstr(kw_buf_str(&y1), "segments_per_wave"));
    CHECK(kw_index_read_file_later(&back, "l.db", 2, &err) == KW_OK);
    kw_arena listings;
    kw_arena_init(&listings);
    unsigned reader = 0;
    for (size_t i = 0; i < back.kernels.n; i++) {
        kw_kernel *k = &back.kernels.v[i];
        for (size_t j = 0; j < k->archs.n; j++) {
            kw_kernel_arch *x = &k->archs.v[j];
            bool has = i == 0 && j < 2; /* a listing or a line table */
            CHECK(x->lines.n == 0 && (x->db_row > 0) == has);
            CHECK(has ? x->isa && !*x->isa : !x->isa);
            CHECK(kw_index_read_listing(&back, reader++ % 2, x, &listings, &err) == KW_OK);
        }
    }
    CHECK(kw_index_emit(&back, &y2, &err) == KW_OK);
    CHECK_STR(kw_buf_str(&y2), kw_buf_str(&y1));
    if (back.kernels.n && back.kernels.v[0].archs.n == 2)
        CHECK(!back.kernels.v[0].archs.v[1].isa && back.kernels.v[0].archs.v[1].lines.n == 1);
    /* the second connection: no such reader */
    if (back.kernels.n && back.kernels.v[0].archs.n) {
        CHECK(kw_index_read_listing(&back, 2, &back.kernels.v[0].archs.v[0], &listings, &err) ==
              KW_ERR);
        CHECK_STR(err.msg, "l.db: no listing reader 2");
    }
    kw_index_free(&back);
    kw_arena_free(&listings);
    /* a YAML index: read whole */
    CHECK(kw_index_write_yaml(&ix, "l.yaml", &err) == KW_OK);
    CHECK(kw_index_read_file_later(&back, "l.yaml", 2, &err) == KW_OK);
    CHECK(back.kernels.n && back.kernels.v[0].archs.v[0].lines.n == 3 &&
          !back.kernels.v[0].archs.v[0].db_row);
    kw_index_free(&back);
    /* a damaged packed line table (its last byte gone): the load succeeds,
     * reading that arch's listing does not; the whole read has the rows */
    size_t n;
    char *d = slurp("l.db", &n);
    CHECK(d != NULL);
    if (d) {
        kw_test_index_spit("c.db", d, n);
        kw_test_index_sql(
            "c.db", "UPDATE kernels_archs_lines_packed SET data = substr(data, 1, length(data) - "
                    "1) WHERE _id = (SELECT min(_id) FROM kernels_archs_lines_packed)");
        CHECK(kw_index_read_file(&back, "c.db", &err) == KW_OK);
        kw_index_free(&back);
        CHECK(kw_index_read_file_later(&back, "c.db", 1, &err) == KW_OK);
        kw_arena_init(&listings);
        if (back.kernels.n && back.kernels.v[0].archs.n == 2) {
            CHECK(kw_index_read_listing(&back, 0, &back.kernels.v[0].archs.v[1], &listings, &err) ==
                  KW_OK);
            CHECK(kw_index_read_listing(&back, 0, &back.kernels.v[0].archs.v[0], &listings, &err) ==
                  KW_ERR);
            CHECK(strstr(err.msg, "c.db: corrupt kwalk index (listing of row ") == err.msg &&
                  strstr(err.msg, ": a damaged packed line table); rebuild it with 'kwalk "
                                  "index'"));
        }
        kw_arena_free(&listings);
        kw_index_free(&back);
    }
    free(d);
    kw_buf_free(&y1);
    kw_buf_free(&y2);
    kw_index_free(&ix);
    kw_sidecar_free(&a);
}

/* kw_db_lines_pack / unpack: every entry back (100 files, negative and
 * large numbers, entries without a file); every truncation of the BLOB and
 * a byte past it refused, never read past. */
static void test_lines_packed(void) {
    enum { N = 300 };
    kw_isa_line v[N];
    char names[100][32];
    for (int i = 0; i < 100; i++)
        snprintf(names[i], sizeof names[i], "/src/file_%d.hpp", i);
    for (int i = 0; i < N; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].offset = i == 7 ? -1 : (long long)i * 4 + (i == 9 ? (1ll << 40) : 0);
        v[i].location.file = i % 13 == 5 ? NULL : names[(i * 7) % 100];
        v[i].location.line = i % 11 == 3 ? -1 : i * 37 + 1;
        v[i].location.column = i % 17;
    }
    kw_buf b;
    kw_buf_init(&b);
    const char *why = NULL;
    CHECK(kw_db_lines_pack(&b, v, N, &why) == KW_OK);
    kw_arena a;
    kw_arena_init(&a);
    kw_isa_line *back = NULL;
    size_t n = 0;
    CHECK(kw_db_lines_unpack(b.ptr, b.len, &a, &back, &n, &why) == KW_OK);
    CHECK(n == N);
    for (size_t i = 0; i < n && i < N; i++) {
        CHECK(back[i].offset == v[i].offset && back[i].location.line == v[i].location.line &&
              back[i].location.column == v[i].location.column && !back[i].inlined_at.n);
        CHECK(v[i].location.file
                  ? back[i].location.file && !strcmp(back[i].location.file, v[i].location.file)
                  : !back[i].location.file);
    }
    size_t refused = 0;
    for (size_t cut = 0; cut < b.len; cut++) {
        char *t = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees a read past */
        memcpy(t, b.ptr, cut);
        refused += kw_db_lines_unpack(t, cut, &a, &back, &n, &why) == KW_ERR;
        free(t);
    }
    CHECK(refused == b.len);
    kw_buf_putc(&b, 0);
    CHECK(kw_db_lines_unpack(b.ptr, b.len, &a, &back, &n, &why) == KW_ERR);
    CHECK_STR(why, "a damaged packed line table");
    kw_arena_free(&a);
    kw_buf_free(&b);
}

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
        kw_buf t;
        kw_buf_init(&t);
        kw_index back;
        CHECK(kw_index_emit(&ix, &t, &err) == KW_OK);
        CHECK(kw_index_parse(&back, "ix.yaml", t.ptr, t.len, &err) == KW_OK);
        check_internal(&back, "yaml");
        kw_index_free(&back);
        kw_buf_free(&t);
        kw_index_free(&ix);
    }
}

/* The first column of the first row of query q on path (-1: no row). */
static long long q1(const char *path, const char *q) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
    if (st && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* The text of the first column of the first row of q, into buf. */
static const char *q1s(const char *path, const char *q, char *buf, size_t n) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
    if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* What index version 4 stores once (docs/index-schema.md, "Shared strings,
 * chains and call graphs"), against the sidecars given: a string of both
 * sidecars is one row of `strings`; a long one is compressed (a BLOB, its
 * length in `size`) and reads back; chains that end in the same call site
 * share its frame, and the view gives each chain's frames in order; the
 * device call graph is written once per unit (no per-kernel rows where its
 * walk gives them back); the database reads as the index built in memory;
 * ids the reader cannot resolve are a corrupt index, never a crash. */
static void test_db_shared(void) {
    kw_sidecar a, b;
    kw_err err;
    listing_sidecar(&a);
    kw_sidecar_init(&b);
    kw_tc_full_sidecar(&b);
    /* a long inline asm text and a long callee name (compressible: 40 times
     * the same line): the call graph's is stored compressed, the asm's not */
    char asmtext[4096] = "", callee[4096] = "ns::reduce<";
    for (int i = 0; i < 40; i++)
        strcat(asmtext, "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]\n");
    for (int i = 0; i < 40; i++)
        strcat(callee, "ck_tile::sequence<0, 1, 2, 3>, ");
    strcat(callee, "256>");
    a.kernels.v[0].inline_asm.v[0].text = asmtext;
    a.kernels.v[0].calls.v[0].name = callee;
    /* a second access whose chain ends in the first one's frame */
    kw_irf *ir = a.kernels.v[0].archs.v[0].ir;
    kw_irf_access first = ir->accesses.v[0];
    kw_irf_access *acc = KW_PUSH(&a.arena, ir->accesses);
    CHECK(acc != NULL);
    if (!acc)
        return;
    *acc = first;
    memset(&acc->loc.inlined_at, 0, sizeof acc->loc.inlined_at);
    acc->depends_on.n = 0;
    kw_irf_frame *f = KW_PUSH(&a.arena, acc->loc.inlined_at);
    f->at = kw_tc_loc("/src/k.hip", 30, 5), f->function = "other";
    f = KW_PUSH(&a.arena, acc->loc.inlined_at);
    *f = first.loc.inlined_at.v[0];
    const kw_sidecar *scs[] = {&a, &b};
    const char *names[] = {"a.kwalk.yaml", "b.kwalk.yaml"};
    CHECK(kw_index_db_write("s.db", &(kw_producer){.name = "kwalk"}, scs, names, 2, &err) == KW_OK);
    kw_index ix, back;
    kw_index_init(&ix);
    ix.producer.name = "kwalk";
    CHECK(kw_index_add(&ix, &a, "a.kwalk.yaml", &err) == KW_OK);
    CHECK(kw_index_add(&ix, &b, "b.kwalk.yaml", &err) == KW_OK);
    kw_buf y1, y2;
    kw_buf_init(&y1);
    kw_buf_init(&y2);
    CHECK(kw_index_emit(&ix, &y1, &err) == KW_OK);
    CHECK(kw_index_read_file(&back, "s.db", &err) == KW_OK);
    CHECK(kw_index_emit(&back, &y2, &err) == KW_OK);
    CHECK_STR(kw_buf_str(&y2), kw_buf_str(&y1));
    CHECK(strstr(kw_buf_str(&y1), "other") && strstr(kw_buf_str(&y1), "v_mfma_f32_32x32x8f16") &&
          strstr(kw_buf_str(&y1), "ns::reduce<ck_tile::sequence<0, 1, 2, 3>, "));
    kw_index_free(&back);
    /* strings: one row each, both units' rows naming it */
    CHECK(q1("s.db", "SELECT count(*) FROM strings WHERE value = "
                     "'/src/aiter/csrc/kernels/rmsnorm.cu'") == 1);
    CHECK(q1("s.db", "SELECT count(*) - count(DISTINCT value) FROM strings") == 0);
    CHECK(q1("s.db", "SELECT count(DISTINCT location_file) FROM _kernels") == 1);
    CHECK(q1("s.db", "SELECT count(*) FROM kernels WHERE location_file = "
                     "'/src/aiter/csrc/kernels/rmsnorm.cu'") == 2 * 1);
    char q[256];
    snprintf(q, sizeof q,
             "SELECT count(*) FROM strings WHERE typeof(value) = 'blob' AND size = %zu AND "
             "length(value) < size",
             strlen(callee));
    CHECK(q1("s.db", q) == 1);
    CHECK(q1("s.db", "SELECT count(*) FROM strings WHERE typeof(value) = 'blob'") == 1);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM strings WHERE typeof(value) = 'text' AND "
             "length(value) = %zu",
             strlen(asmtext));
    CHECK(q1("s.db", q) == 1);
    /* chains: line rows [20], [20, 21]; accesses [20 helper], [30 other, 20 helper]:
     * 20 with nothing after it, 21, 20 before 21, 20 helper, 30 other -> 5 frames */
    CHECK(q1("s.db", "SELECT count(*) FROM inline_frames") == 5);
    CHECK(q1("s.db", "SELECT count(*) FROM inline_frames f JOIN _kernels_archs_ir_accesses x ON "
                     "f._id = x.inlined_at WHERE f.next = (SELECT inlined_at FROM "
                     "_kernels_archs_ir_accesses WHERE _ord = 0)") == 1);
    char got[256];
    CHECK_STR(q1s("s.db",
                  "SELECT group_concat(function || ':' || line, ',') FROM (SELECT * FROM "
                  "kernels_archs_ir_accesses_inlined_at ORDER BY _parent, _ord)",
                  got, sizeof got),
              "helper:20,other:30,helper:20");
    CHECK_STR(q1s("s.db",
                  "SELECT group_concat(at_line, ',') FROM (SELECT * FROM "
                  "kernels_archs_lines_inlined_at ORDER BY _parent, _ord)",
                  got, sizeof got),
              "20,20,21");
    /* the call graph: each unit's edges once (the test sidecar's kernel
     * expands each function once: its calls are the edges) */
    size_t edges = 0;
    for (size_t i = 0; i < a.kernels.n; i++)
        edges += a.kernels.v[i].calls.n;
    for (size_t i = 0; i < b.kernels.n; i++)
        edges += b.kernels.v[i].calls.n;
    CHECK(edges == 4);
    CHECK(q1("s.db", "SELECT count(*) FROM device_calls_calls") == (long long)edges);
    CHECK(q1("s.db", "SELECT count(*) FROM kernels_calls") == 0);
    CHECK(q1("s.db", "SELECT count(*) FROM device_calls WHERE symbol = "
                     "'_ZN2ns6reduceILi256EEEff'") == 2);
    /* ids that name nothing */
    size_t n;
    char *d = slurp("s.db", &n);
    CHECK(d != NULL);
    static const struct {
        const char *sql, *msg;
    } bad[] = {
        {"UPDATE _kernels SET name = 99999",
         "c.db: corrupt kwalk index (kernels: a string id that is not stored); rebuild it with "
         "'kwalk index'"},
        {"UPDATE inline_frames SET next = _id WHERE _id = (SELECT max(_id) FROM inline_frames)",
         "c.db: corrupt kwalk index (a damaged frame); rebuild it with 'kwalk index'"},
        {"UPDATE strings SET value = substr(value, 1, 20) WHERE typeof(value) = 'blob'",
         "c.db: corrupt kwalk index (a damaged compressed string); rebuild it with 'kwalk "
         "index'"},
        {"UPDATE _kernels_archs_ir_accesses SET inlined_at = 99999",
         "c.db: corrupt kwalk index (kernels_archs_ir_accesses: a damaged inlined_at chain); "
         "rebuild it with 'kwalk index'"},
        {"UPDATE _device_calls_calls SET _parent = 99999",
         "c.db: corrupt kwalk index (device_calls_calls: a row without its parent); rebuild it "
         "with 'kwalk index'"},
    };
    for (size_t i = 0; d && i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STR(kw_test_index_damaged(d, n, bad[i].sql), bad[i].msg);
    }
    free(d);
    kw_buf_free(&y1);
    kw_buf_free(&y2);
    kw_index_free(&ix);
    kw_sidecar_free(&a);
    kw_sidecar_free(&b);
}

static void test_all(void) {
    test_build_and_round_trip();
    test_errors();
    test_db();
    test_db_later();
    test_db_shared();
    test_lines_packed();
    test_internal_linkage();
}

int main(void) {
    /* its files (p.db, l.db, s.db, c.db, ...) in a folder of its own: one
     * an earlier run left would be read where this run's write failed */
    if (!kw_test_tmp_run("kw-index-unit", test_all))
        return 1;
    return kw_test_result("test_index");
}
