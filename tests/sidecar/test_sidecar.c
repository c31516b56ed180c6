/* test_sidecar.c: the sidecar writer and reader (kw_sidecar_emit.c,
 * kw_sidecar_parse.c): an exact emit -> parse -> emit round trip of a sidecar
 * with every field, the documented layout (golden file), the one-line error
 * messages for truncated, malformed, wrong-schema and wrong-type input,
 * forward compatibility (unknown keys), and mutated input never crashing. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "common/kw_fs.h"
#include "sidecar/kw_sidecar.h"
#include "kw_test.h"
#include "kw_test_sidecar.h"

#ifndef KW_FIXTURES
#define KW_FIXTURES "fixtures"
#endif

static char *emit(const kw_sidecar *sc) {
    kw_buf b;
    kw_err err;
    kw_buf_init(&b);
    kw_status st = kw_sidecar_emit(sc, &b, &err);
    CHECK(st == KW_OK);
    if (st != KW_OK) {
        fprintf(stderr, "emit: %s\n", err.msg);
        kw_buf_free(&b);
        return NULL;
    }
    return b.ptr;
}

/* Parse text; on success return NULL, on failure the message (static). */
static const char *parse_err(const char *text) {
    static kw_err err;
    kw_sidecar sc;
    kw_status st = kw_sidecar_parse(&sc, "t.yaml", text, strlen(text), &err);
    CHECK(sc.kernels.n == 0 || st == KW_OK); /* left empty on failure */
    kw_sidecar_free(&sc);
    if (st == KW_OK)
        return NULL;
    CHECK(strchr(err.msg, '\n') == NULL);
    return err.msg;
}

static void test_round_trip(void) {
    kw_sidecar sc, back;
    kw_err err;
    kw_sidecar_init(&sc);
    kw_tc_full_sidecar(&sc);
    char *a = emit(&sc);
    if (!a)
        return;
    CHECK(kw_sidecar_parse(&back, "a.yaml", a, strlen(a), &err) == KW_OK);
    char *b = emit(&back);
    CHECK(b && strcmp(a, b) == 0);
    if (b && strcmp(a, b) != 0)
        fprintf(stderr, "first emit:\n%s\nsecond emit:\n%s\n", a, b);

    /* the values themselves came back, not only the same bytes */
    CHECK(back.schema == KW_SCHEMA_VERSION);
    CHECK_STR(back.producer.clang_version, "22.1.8");
    CHECK_STR(back.tu.cuid, "1a2b3c4d");
    CHECK(back.tu.offload_archs.n == 2);
    CHECK(back.kernels.n == 2 && back.launches.n == 2 && back.entries.n == 2 &&
          back.host_calls.n == 2);
    if (back.kernels.n == 2 && back.launches.n == 2) {
        const kw_kernel *k = &back.kernels.v[0], *t = &back.kernels.v[1];
        CHECK_STR(k->name, "ns::k<float, 256, 4, true, ns::Mode::Plain>");
        CHECK_STR(k->doc, sc.kernels.v[0].doc);
        CHECK(k->location.line == 14 && k->location.column == 17);
        CHECK(k->template_args.n == 5 && k->template_args.v[2].defaulted);
        CHECK(k->template_args.n == 5 && k->template_args.v[4].name == NULL);
        CHECK_STR(k->template_args.v[1].value, "256");
        CHECK(k->shared.n == 2 && k->shared.v[0].bytes == 1024 && k->shared.v[1].bytes == -1);
        CHECK(k->shared.n == 2 && k->shared.v[1].location.file == NULL);
        CHECK_STR(k->inline_asm.v[0].text, "s_waitcnt lgkmcnt(0)\n\tv_mov_b32 %0, %1");
        CHECK(k->calls.n == 2 && k->calls.v[1].system && k->calls.v[1].depth == 2);
        CHECK(k->archs.n == 2);
        CHECK_STR(k->archs.v[1].arch, "gfx950");
        CHECK(t->archs.n == 0);
        CHECK(t->params.n == sc.kernels.v[1].params.n);
        for (size_t i = 0; i < t->params.n && i < sc.kernels.v[1].params.n; i++) {
            CHECK_STR(t->params.v[i].name, sc.kernels.v[1].params.v[i].name);
            CHECK_STR(t->attrs.v[i].value, sc.kernels.v[1].params.v[i].name);
            CHECK_STR(t->inline_asm.v[i].text, sc.kernels.v[1].params.v[i].name);
        }
        const kw_launch *l = &back.launches.v[0], *o = &back.launches.v[1];
        CHECK(l->grid.has_value && l->grid.value[0] == 4096 && l->grid.dims == 3);
        CHECK(l->shared_mem.has_value && l->shared_mem.value[0] == 0);
        CHECK(!l->stream.has_value);
        CHECK_STR(l->stream.expr, "stream");
        CHECK(l->macro_expansions.n == 2 && l->macro_expansions.v[1].location.file == NULL);
        CHECK(l->guards.n == 2 && l->guards.v[0].holds && !l->guards.v[1].holds);
        CHECK(o->grid.value[0] == 9223372036854775807LL && o->grid.value[1] == -5);
        CHECK(!o->block.has_value && o->block.expr == NULL && o->kernel == NULL);
        CHECK_STR(back.entries.v[0].module, "aiter");
        CHECK(back.entries.v[1].module == NULL);
        CHECK(back.host_calls.v[0].guards.n == 1);
    }

    /* the layout: kwalk_schema first, quoted numbers-as-strings, the end marker */
    CHECK(strncmp(a, "kwalk_schema: 3\nproducer: {name: kwalk, version: \"0.1.0\"", 56) == 0);
    CHECK(strstr(a, "{name: BlockSize, kind: value, value: \"256\", defaulted: false}"));
    CHECK(strstr(a, "\n  archs:\n    gfx942: {}\n    gfx950: {}\n"));
    CHECK(strstr(a, "\n  archs: {}\n"));
    CHECK(strstr(a, "grid: {expr: dim3(n / 256), value: [4096, 1, 1]}"));
    size_t n = strlen(a);
    CHECK(n > 4 && strcmp(a + n - 4, "...\n") == 0);

    /* the golden file pins the documented layout byte for byte */
    char *golden;
    size_t glen;
    if (kw_fs_read(KW_FIXTURES "/golden/full.kwalk.yaml", &golden, &glen, &err) == KW_OK) {
        CHECK(glen == n && memcmp(golden, a, n) == 0);
        if (glen != n || memcmp(golden, a, n) != 0)
            fprintf(stderr, "golden differs; emitted:\n%s", a);
        free(golden);
    } else {
        CHECK(!"golden file missing");
        fprintf(stderr, "%s\n", err.msg);
    }
    if (getenv("KW_WRITE_GOLDEN"))
        kw_fs_write_atomic(getenv("KW_WRITE_GOLDEN"), a, n, &err);

    /* write_file / read_file */
    CHECK(kw_sidecar_write_file(&back, "rt.kwalk.yaml", &err) == KW_OK);
    kw_sidecar again;
    CHECK(kw_sidecar_read_file(&again, "rt.kwalk.yaml", &err) == KW_OK);
    char *c = emit(&again);
    CHECK(c && strcmp(a, c) == 0);
    kw_sidecar_free(&again);
    CHECK(kw_sidecar_read_file(&again, "does-not-exist.kwalk.yaml", &err) == KW_ERR);
    CHECK_STR(err.msg, "does-not-exist.kwalk.yaml: No such file or directory");
    kw_sidecar_free(&again);
    CHECK(kw_sidecar_read_file(&again, ".", &err) == KW_ERR);
    CHECK_STR(err.msg, ".: Is a directory");
    CHECK(again.kernels.n == 0);
    kw_sidecar_free(&again);

    free(a);
    free(b);
    free(c);
    kw_sidecar_free(&back);
    kw_sidecar_free(&sc);
}

/* Invalid UTF-8 is repaired once; the repaired text then round-trips. */
static void test_invalid_utf8(void) {
    kw_sidecar sc, back;
    kw_err err;
    kw_sidecar_init(&sc);
    kw_kernel *k = kw_tc_kernel(&sc, "_Z1kv", "bad \xff\xfe utf8 \xed\xa0\x80 end\xc3", "gfx942");
    k->doc = "latin-1 caf\xe9";
    char *a = emit(&sc);
    CHECK(a && strstr(a, "bad \xef\xbf\xbd\xef\xbf\xbd utf8"));
    CHECK(a && kw_sidecar_parse(&back, "u.yaml", a, strlen(a), &err) == KW_OK);
    if (a && back.kernels.n == 1) {
        CHECK_STR(back.kernels.v[0].doc, "latin-1 caf\xef\xbf\xbd");
        char *b = emit(&back);
        CHECK(b && strcmp(a, b) == 0);
        free(b);
    }
    free(a);
    kw_sidecar_free(&back);
    kw_sidecar_free(&sc);
}

static void test_emit_errors(void) {
    kw_sidecar sc;
    kw_buf b;
    kw_err err;
    kw_sidecar_init(&sc);
    kw_buf_init(&b);
    kw_tc_kernel(&sc, "_Z1kv", "k", "gfx942")->symbol = NULL;
    CHECK(kw_sidecar_emit(&sc, &b, &err) == KW_ERR);
    CHECK_STR(err.msg, "cannot write YAML: a kernel has no 'symbol'");
    CHECK(b.len == 0);
    sc.kernels.n = 0;
    kw_kernel *k = kw_tc_kernel(&sc, "_Z1kv", "k", "gfx942");
    kw_tc_arch(&sc, k, "gfx942");
    CHECK(kw_sidecar_emit(&sc, &b, &err) == KW_ERR);
    CHECK_STR(err.msg, "cannot write YAML: duplicate arch 'gfx942' in 'archs'");
    kw_buf_free(&b);
    kw_sidecar_free(&sc);
}

static void test_truncated(void) {
    kw_sidecar sc;
    kw_sidecar_init(&sc);
    kw_tc_full_sidecar(&sc);
    char *a = emit(&sc);
    if (!a)
        return;
    size_t n = strlen(a), tried = 0, failed = 0;
    /* every prefix that ends a line, and every 7th other one, must be refused
     * (the complete document minus its final newline is still complete) */
    for (size_t cut = 0; cut + 1 < n; cut++) {
        if (a[cut] != '\n' && cut % 7)
            continue;
        char *t = malloc(cut + 1);
        memcpy(t, a, cut);
        t[cut] = '\0';
        kw_sidecar p;
        kw_err err;
        tried++;
        if (kw_sidecar_parse(&p, "cut.yaml", t, cut, &err) == KW_ERR) {
            failed++;
            CHECK(strncmp(err.msg, "cut.yaml: ", 10) == 0 && !strchr(err.msg, '\n'));
        } else {
            fprintf(stderr, "a prefix of %zu bytes parsed\n", cut);
        }
        kw_sidecar_free(&p);
        free(t);
    }
    CHECK(tried > 100 && failed == tried);
    free(a);
    kw_sidecar_free(&sc);
}

static void test_errors(void) {
    /* truncated at a line boundary: only the missing end marker tells */
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- symbol: _Z1kv\n"),
              "t.yaml: line 4: truncated: the document does not end with '...'");
    CHECK_STR(parse_err(""), "t.yaml: line 1: empty file (truncated?)");
    /* broken YAML: libyaml's own problem, at its line */
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels: [\n  {symbol: a,\n...\n"),
              "t.yaml: line 4: did not find expected node content (while parsing a flow node at "
              "line 4)");
    CHECK_STR(parse_err("kwalk_schema: 1\nproducer: {name: \"kwalk}\n"),
              "t.yaml: line 3: found unexpected end of stream (while scanning a quoted scalar at "
              "line 2)");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n\t- a\n...\n"),
              "t.yaml: line 3: found character that cannot start any token (while scanning for the next "
              "token at line 3)");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels: []\n\xff\n...\n"),
              "t.yaml: line 3: invalid leading UTF-8 octet (byte 0xFF)");
    /* schema */
    CHECK_STR(parse_err("kwalk_schema: 4\nkernels: {}\n...\n"),
              "t.yaml: unsupported kwalk_schema 4 (this kwalk reads 1 to 3)");
    CHECK_STR(parse_err("kwalk_schema: 0\nkernels: {}\n...\n"),
              "t.yaml: unsupported kwalk_schema 0 (this kwalk reads 1 to 3)");
    CHECK_STR(parse_err("kernels: []\n...\n"),
              "t.yaml: unsupported kwalk_schema: missing (this kwalk reads 1 to 3)");
    CHECK_STR(parse_err("kwalk_schema: \"1\"\n...\n"),
              "t.yaml: line 1: kwalk_schema: expected an integer, got a quoted string \"1\"");
    CHECK_STR(parse_err("kwalk_index: 1\nkwalk_schema: 1\n...\n"),
              "t.yaml: a kwalk index, not a sidecar");
    /* node types, with the path to the node */
    CHECK_STR(parse_err("- a\n- b\n...\n"),
              "t.yaml: line 1: expected a mapping at the top level, got a sequence");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels: {a: 1}\n...\n"),
              "t.yaml: line 2: kernels: expected a sequence, got a mapping");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- symbol: s\n- symbol: t\n"
                        "  location: {file: f, line: x12}\n...\n"),
              "t.yaml: line 5: kernels[1].location.line: expected an integer, got \"x12\"");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- symbol: [a]\n...\n"),
              "t.yaml: line 3: kernels[0].symbol: expected a string, got a sequence");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- name: k\n...\n"),
              "t.yaml: line 3: kernels[0]: this kernel has no 'symbol'");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- {symbol: s, archs: [gfx942]}\n...\n"),
              "t.yaml: line 3: kernels[0].archs: expected a mapping, got a sequence");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- {symbol: s, archs: {gfx942: {}, gfx942: "
                        "{}}}\n...\n"),
              "t.yaml: line 3: kernels[0].archs: duplicate arch 'gfx942'");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- {symbol: s, archs: {gfx942: 1}}\n...\n"),
              "t.yaml: line 3: kernels[0].archs.gfx942: expected a mapping, got a scalar");
    CHECK_STR(parse_err("kwalk_schema: 1\nlaunches:\n- config: {grid: {value: [1, 2]}}\n...\n"),
              "t.yaml: line 3: launches[0].config.grid.value: expected 3 integers [x, y, z], "
              "got 2");
    CHECK_STR(parse_err("kwalk_schema: 1\nlaunches:\n- config: {shared_mem: {value: [1]}}\n...\n"),
              "t.yaml: line 3: launches[0].config.shared_mem.value: expected an integer, got a "
              "sequence");
    CHECK_STR(parse_err("kwalk_schema: 1\nlaunches:\n- guards: [{holds: maybe}]\n...\n"),
              "t.yaml: line 3: launches[0].guards[0].holds: expected true or false, got \"maybe\"");
    CHECK_STR(parse_err("kwalk_schema: 1\nentries: []\nentries: []\n...\n"),
              "t.yaml: line 3: duplicate key 'entries'");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- {symbol: s, location: {line: 99999999999}}"
                        "\n...\n"),
              "t.yaml: line 3: kernels[0].location.line: expected an integer, got "
              "\"99999999999\"");
    CHECK_STR(parse_err("kwalk_schema: 1\nproducer: {name: x}\ntranslation_unit: *p\n...\n"),
              "t.yaml: line 3: translation_unit: alias *p: no anchor &p before it");
    CHECK_STR(parse_err("kwalk_schema: 1\ntranslation_unit: &p {source: *p}\n...\n"),
              "t.yaml: line 2: translation_unit.source: alias *p inside its own anchored node");
    CHECK_STR(parse_err("kwalk_schema: 1\n...\n---\nkwalk_schema: 1\n...\n"),
              "t.yaml: line 3: more than one YAML document");
    CHECK_STR(parse_err("kwalk_schema: 1\nkernels:\n- symbol: \"a\\0b\"\n...\n"),
              "t.yaml: line 3: kernels[0].symbol: strings must not contain NUL characters");
    CHECK_STR(parse_err("kwalk_schema: 1\ntranslation_unit: {offload_archs: [gfx942, ~]}\n...\n"),
              "t.yaml: line 2: translation_unit.offload_archs[1]: expected a string, got null");
    CHECK_STR(parse_err("kwalk_schema: 1\n? [a]\n: b\n...\n"),
              "t.yaml: line 2: expected a key, got a sequence");
}

/* Unknown keys anywhere are skipped; plain nulls mean absent. */
static void test_forward_compat(void) {
    const char *text = "kwalk_schema: 1\n"
                       "future_top: {deep: [1, {x: [2, 3]}], more: {}}\n"
                       "producer: {name: kwalk, future: [a]}\n"
                       "kernels:\n"
                       "- symbol: _Z1kv\n"
                       "  future_list: [{a: 1}, {b: [2]}]\n"
                       "  doc: ~\n"
                       "  name: null\n"
                       "  template:\n"
                       "  location: {file: /a.cu, line: 3, column: 4, offset: 99}\n"
                       "  shared: [{name: s, bytes: ~}]\n"
                       "  calls: [{depth: 2, system: true, extra: x}]\n"
                       "  archs: {gfx942: {future_facts: {lines: 100}}, gfx950: ~}\n"
                       "launches:\n"
                       "- config: {grid: {expr: g, value: ~, note: z}, future: 1}\n"
                       "  kernel: _Z1kv\n"
                       "  kernel_name: \"null\"\n"
                       "...\n";
    kw_sidecar sc;
    kw_err err;
    CHECK(kw_sidecar_parse(&sc, "f.yaml", text, strlen(text), &err) == KW_OK);
    if (sc.kernels.n == 1 && sc.launches.n == 1) {
        const kw_kernel *k = &sc.kernels.v[0];
        CHECK_STR(sc.producer.name, "kwalk");
        CHECK(k->doc == NULL && k->name == NULL && k->template_name == NULL);
        CHECK(k->location.line == 3 && k->location.column == 4);
        CHECK(k->shared.n == 1 && k->shared.v[0].bytes == -1);
        CHECK(k->calls.n == 1 && k->calls.v[0].depth == 2 && k->calls.v[0].system);
        CHECK(k->archs.n == 2);
        CHECK_STR(k->archs.v[1].arch, "gfx950");
        CHECK_STR(sc.launches.v[0].grid.expr, "g");
        CHECK(!sc.launches.v[0].grid.has_value);
        CHECK_STR(sc.launches.v[0].kernel_name, "null");
    } else {
        CHECK(!"forward-compatible document not read");
        fprintf(stderr, "%s\n", err.msg);
    }
    kw_sidecar_free(&sc);
}

/* Mutated documents: never a crash or a leak (ASan), always a one-line error
 * or a document. */
static void test_mutations(void) {
    kw_sidecar sc;
    kw_sidecar_init(&sc);
    kw_tc_full_sidecar(&sc);
    char *a = emit(&sc);
    kw_sidecar_free(&sc);
    if (!a)
        return;
    size_t n = strlen(a);
    static const char bytes[] = {'\0', '\n', ' ', ':', '-', '[', ']', '{', '}', '"',
                                 '\'', '&', '*', '!', '|', '>', '#', 'x', '1', '\xff'};
    unsigned long long seed = 0x9E3779B97F4A7C15ull;
    int ok = 0, bad = 0;
    char *t = malloc(n + 1);
    for (int round = 0; round < 3000; round++) {
        memcpy(t, a, n + 1);
        int edits = 1 + round % 4;
        for (int e = 0; e < edits; e++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % n;
            t[at] = bytes[(seed >> 17) % sizeof(bytes)];
        }
        size_t len = (size_t)(seed >> 40) % 5 == 0 ? (size_t)(seed >> 20) % n : n;
        kw_err err;
        if (kw_sidecar_parse(&sc, "m.yaml", t, len, &err) == KW_OK) {
            ok++;
        } else {
            bad++;
            if (strncmp(err.msg, "m.yaml: ", 8) != 0 || strchr(err.msg, '\n'))
                CHECK(!"bad error message");
        }
        kw_sidecar_free(&sc);
    }
    CHECK(ok > 0 && bad > 0);
    free(t);
    free(a);
}

int main(void) {
    /* the unshared layout (the golden file, the documented text); sharing is
     * test_yaml_share's */
    setenv("KWALK_YAML_SHARE", "0", 1);
    test_round_trip();
    test_invalid_utf8();
    test_emit_errors();
    test_truncated();
    test_errors();
    test_forward_compat();
    test_mutations();
    return kw_test_result("test_sidecar");
}
