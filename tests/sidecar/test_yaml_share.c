/* test_yaml_share.c: the sharing writer (kw_yaml_emit_shared: repeated
 * subtrees as YAML anchors and aliases) and the readers' aliases.
 *
 *   test_yaml_share                      hand-built and fixture sidecars, hostile aliases
 *   test_yaml_share --roundtrip FILE...  the round trip on real sidecars
 *   test_yaml_share --write shared|plain [--no-isa] IN OUT
 *                                        IN rewritten (for PyYAML and time measurements)
 *   test_yaml_share --measure [--no-isa] FILE...
 *                                        sizes and the writer's CPU time, unshared and shared
 *
 * The round trip: a sidecar written unshared (A) and shared (B); B read back
 * (by the fast reader and by libyaml) and written unshared again must be A
 * byte for byte, B must be smaller and within the fast reader's subset, and
 * writing it twice gives the same bytes. That PyYAML loads B to the same data
 * as A is tests/sidecar/check_share_pyyaml.py's (ground truth outside kwalk).
 * --no-isa drops the ISA listings (kernels.archs.ARCH.isa) before writing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/kw_fs.h"
#include "kw_test.h"
#include "kw_test_sidecar.h"
#include "sidecar/kw_schema.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_yaml_fast.h"

static void share_mode(bool on) {
    setenv("KWALK_YAML_SHARE", on ? "1" : "0", 1);
}

static void fast_mode(bool on) {
    setenv("KWALK_YAML_FAST", on ? "1" : "0", 1);
}

static void drop_isa(kw_sidecar *sc) {
    for (size_t i = 0; i < sc->kernels.n; i++)
        for (size_t j = 0; j < sc->kernels.v[i].archs.n; j++)
            sc->kernels.v[i].archs.v[j].isa = NULL;
}

/* sc written with sharing on or off into out (emptied first). */
static bool emit(const kw_sidecar *sc, bool shared, kw_buf *out) {
    kw_err err;
    share_mode(shared);
    kw_buf_reset(out);
    bool ok = kw_sidecar_emit(sc, out, &err) == KW_OK;
    if (!ok)
        fprintf(stderr, "emit failed: %s\n", err.msg);
    share_mode(true);
    return ok;
}

/* text read back (fast reader on or off) and written unshared into out. */
static bool reread(const char *what, const kw_buf *text, bool fast, kw_buf *out) {
    kw_sidecar sc;
    kw_err err;
    fast_mode(fast);
    bool ok = kw_sidecar_parse(&sc, what, text->ptr, text->len, &err) == KW_OK;
    fast_mode(true);
    if (!ok) {
        fprintf(stderr, "%s: cannot read the shared text back: %s\n", what, err.msg);
        return false;
    }
    ok = emit(&sc, false, out);
    kw_sidecar_free(&sc);
    return ok;
}

static bool same(const kw_buf *a, const kw_buf *b) {
    return a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0;
}

/* The round trip on sc; what names it in messages. */
static void roundtrip(const char *what, const kw_sidecar *sc) {
    kw_buf a, b, b2, c;
    kw_buf_init(&a);
    kw_buf_init(&b);
    kw_buf_init(&b2);
    kw_buf_init(&c);
    CHECK(emit(sc, false, &a));
    CHECK(emit(sc, true, &b));
    CHECK(emit(sc, true, &b2));
    CHECK(same(&b, &b2)); /* deterministic */
    CHECK(b.len <= a.len);
    kw_yaml_fast_doc d;
    kw_yaml_fast_init(&d);
    bool plain_fast = kw_yaml_fast_parse(&d, a.ptr, a.len);
    bool shared_fast = kw_yaml_fast_parse(&d, b.ptr, b.len);
    CHECK(shared_fast == plain_fast); /* sharing keeps the text within the fast reader's subset */
    kw_yaml_fast_free(&d);
    for (int fast = 1; fast >= 0; fast--) {
        bool ok = reread(what, &b, fast, &c);
        CHECK(ok);
        bool eq = ok && same(&a, &c);
        CHECK(eq);
        if (!eq)
            fprintf(stderr, "%s: shared, read back (%s) and written again: not the same text\n",
                    what, fast ? "fast reader" : "libyaml");
    }
    kw_buf_free(&a);
    kw_buf_free(&b);
    kw_buf_free(&b2);
    kw_buf_free(&c);
}

static void roundtrip_file(const char *path) {
    kw_sidecar sc;
    kw_err err;
    bool ok = kw_sidecar_read_file(&sc, path, &err) == KW_OK;
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    roundtrip(path, &sc);
    kw_sidecar_free(&sc);
}

/* ---- Hostile input -------------------------------------------------------------------------- */

/* text must be refused by the reader (both ways) with a message holding want. */
static void refused(const char *what, const char *text, const char *want) {
    for (int fast = 1; fast >= 0; fast--) {
        kw_sidecar sc;
        kw_err err;
        fast_mode(fast);
        clock_t t0 = clock();
        kw_status st = kw_sidecar_parse(&sc, what, text, strlen(text), &err);
        double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
        fast_mode(true);
        CHECK(st == KW_ERR);
        if (st == KW_OK) {
            kw_sidecar_free(&sc);
            fprintf(stderr, "%s: read without an error\n", what);
            continue;
        }
        CHECK(strstr(err.msg, want) != NULL);
        CHECK(!strchr(err.msg, '\n'));
        CHECK(s < 5.0); /* refused, not expanded */
        if (!strstr(err.msg, want))
            fprintf(stderr, "%s: got \"%s\", wanted \"%s\"\n", what, err.msg, want);
    }
}

static void hostile(void) {
    char text[4096];
    snprintf(text, sizeof text, "kwalk_schema: %d\nproducer: *nowhere\n...\n", KW_SCHEMA_VERSION);
    refused("undefined alias", text, "alias *nowhere: no anchor &nowhere before it");
    snprintf(text, sizeof text, "kwalk_schema: %d\nx: &a [1, *a]\n...\n", KW_SCHEMA_VERSION);
    refused("recursive alias", text, "alias *a inside its own anchored node");
    snprintf(text, sizeof text, "kwalk_schema: %d\nx: &a\n  k: [1, 2]\n  l: *a\n...\n",
             KW_SCHEMA_VERSION);
    refused("recursive alias in a block", text, "alias *a inside its own anchored node");
    /* "billion laughs": ten levels of ten aliases each, 10^10 scalars */
    int n = snprintf(text, sizeof text,
                     "kwalk_schema: %d\nl0: &a0 [lol, lol, lol, lol, lol, lol, "
                     "lol, lol, lol, lol]\n",
                     KW_SCHEMA_VERSION);
    for (int i = 1; i < 10; i++) {
        n += snprintf(text + n, sizeof text - (size_t)n, "l%d: &a%d [", i, i);
        for (int j = 0; j < 10; j++)
            n += snprintf(text + n, sizeof text - (size_t)n, "%s*a%d", j ? ", " : "", i - 1);
        n += snprintf(text + n, sizeof text - (size_t)n, "]\n");
    }
    snprintf(text + n, sizeof text - (size_t)n, "...\n");
    refused("billion laughs", text, "aliases expand to more than");
}

/* ---- Modes ---------------------------------------------------------------------------------- */

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int measure(int argc, char **argv, bool no_isa) {
    printf("%-44s %11s %11s %6s %9s %10s %10s %9s %7s\n", "sidecar", "unshared", "shared", "ratio",
           "cpu_plain", "cpu_shared", "ev_plain", "ev_shared", "replay");
    for (int i = 0; i < argc; i++) {
        kw_sidecar sc;
        kw_err err;
        if (kw_sidecar_read_file(&sc, argv[i], &err) != KW_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        if (no_isa)
            drop_isa(&sc);
        kw_buf a, b;
        kw_buf_init(&a);
        kw_buf_init(&b);
        double t0 = cpu_now();
        bool ok = emit(&sc, false, &a);
        double t1 = cpu_now();
        ok = ok && emit(&sc, true, &b);
        double t2 = cpu_now();
        if (!ok)
            return 1;
        /* events of each text: what an alias-replaying reader reads, per event written */
        kw_yaml_fast_doc d;
        kw_yaml_fast_init(&d);
        size_t ea = kw_yaml_fast_parse(&d, a.ptr, a.len) ? d.n : 0;
        size_t eb = kw_yaml_fast_parse(&d, b.ptr, b.len) ? d.n : 0;
        kw_yaml_fast_free(&d);
        const char *base = strrchr(argv[i], '/');
        printf("%-44s %11zu %11zu %6.3f %9.3f %10.3f %10zu %9zu %7.2f\n", base ? base + 1 : argv[i],
               a.len, b.len, (double)b.len / (double)a.len, t1 - t0, t2 - t1, ea, eb,
               eb ? (double)(ea > eb ? ea - eb : 0) / (double)eb : 0.0);
        kw_buf_free(&a);
        kw_buf_free(&b);
        kw_sidecar_free(&sc);
    }
    return 0;
}

static int write_one(const char *mode, bool no_isa, const char *in, const char *out) {
    kw_sidecar sc;
    kw_err err;
    if (kw_sidecar_read_file(&sc, in, &err) != KW_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    if (no_isa)
        drop_isa(&sc);
    kw_buf b;
    kw_buf_init(&b);
    double t0 = cpu_now();
    bool ok = emit(&sc, !strcmp(mode, "shared"), &b);
    fprintf(stderr, "%s: %zu bytes, writer %.3f s CPU\n", out, b.len, cpu_now() - t0);
    ok = ok && kw_fs_write_atomic(out, b.ptr, b.len, &err) == KW_OK;
    kw_buf_free(&b);
    kw_sidecar_free(&sc);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    bool no_isa = argc > 2 && !strcmp(argv[2], "--no-isa");
    if (argc > 1 && !strcmp(argv[1], "--measure"))
        return measure(argc - 2 - no_isa, argv + 2 + no_isa, no_isa);
    if (argc > 1 && !strcmp(argv[1], "--write")) {
        no_isa = argc > 3 && !strcmp(argv[3], "--no-isa");
        if (argc != 5 + no_isa) {
            fprintf(stderr, "usage: test_yaml_share --write shared|plain [--no-isa] IN OUT\n");
            return 2;
        }
        return write_one(argv[2], no_isa, argv[3 + no_isa], argv[4 + no_isa]);
    }
    if (argc > 1 && !strcmp(argv[1], "--roundtrip")) {
        for (int i = 2; i < argc; i++)
            roundtrip_file(argv[i]);
        return kw_test_result("test_yaml_share --roundtrip");
    }

    /* the hand-built sidecar with every field and the writer's edge cases */
    kw_sidecar sc;
    kw_sidecar_init(&sc);
    kw_tc_full_sidecar(&sc);
    roundtrip("full sidecar", &sc);
    kw_sidecar_free(&sc);
    static const char *const files[] = {"/good/a/rmsnorm.kwalk.yaml", "/good/b/rope.kwalk.yaml"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", KW_FIXTURES, files[i]);
        roundtrip_file(path);
    }
    /* a repeated subtree is written once: the same location twice */
    kw_sidecar_init(&sc);
    kw_kernel *k1 = kw_tc_kernel(&sc, "_Z1av", "a", "gfx942");
    kw_kernel *k2 = kw_tc_kernel(&sc, "_Z1bv", "b", "gfx942");
    k1->location = k2->location = kw_tc_loc("/some/long/path/kernels.hip", 12, 3);
    kw_buf b;
    kw_buf_init(&b);
    CHECK(emit(&sc, true, &b));
    CHECK(strstr(b.ptr, "&0 {file: /some/long/path/kernels.hip, line: 12, column: 3}") != NULL);
    CHECK(strstr(b.ptr, "location: *0\n") != NULL);
    CHECK(emit(&sc, false, &b));
    CHECK(!strchr(b.ptr, '&') && !strchr(b.ptr, '*'));
    kw_buf_free(&b);
    roundtrip("two kernels", &sc);
    kw_sidecar_free(&sc);
    hostile();
    return kw_test_result("test_yaml_share");
}
