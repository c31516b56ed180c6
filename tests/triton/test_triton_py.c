/* test_triton_py.c: the rules by which the Triton cache reader takes a
 * constexpr's value from the TTIR without guessing (docs/triton.md "What
 * the cache cannot know"): the `range(...)` argument a loop bound comes from,
 * the `if NAME:` statements and their branches, and the scf.for bounds the
 * TTIR reader keeps. Small texts written here, each rule's edge cases. */
#include <stdio.h>
#include <string.h>

#include "kw_test.h"
#include "triton/kw_triton_int.h"

static const char *range_arg(kw_arena *a, const char *line, int which) {
    return kw_tpy_range_arg(a, line, 1, which);
}

static void test_range_arg(kw_arena *a) {
    const char *l3 = "    for i in tl.range(start, n_rows, NUM_PRGMS, num_stages=2):\n";
    CHECK_STR(range_arg(a, l3, 0), "start");
    CHECK_STR(range_arg(a, l3, 1), "n_rows");
    CHECK_STR(range_arg(a, l3, 2), "NUM_PRGMS");
    /* range(end): only the end bound is written */
    const char *l1 = "for k in range(N_ITERS):\n";
    CHECK_STR(range_arg(a, l1, 1), "N_ITERS");
    CHECK(range_arg(a, l1, 0) == NULL && range_arg(a, l1, 2) == NULL);
    /* range(start, end) */
    const char *l2 = "for k in range(0, BLOCK):\n";
    CHECK(range_arg(a, l2, 0) == NULL); /* a literal, not a name */
    CHECK_STR(range_arg(a, l2, 1), "BLOCK");
    CHECK(range_arg(a, l2, 2) == NULL);
    /* an expression is not a name; two calls on a line: not known */
    CHECK(range_arg(a, "for k in range(0, N * 2):\n", 1) == NULL);
    CHECK(range_arg(a, "x = range(A) + range(B)\n", 1) == NULL);
    /* static_range and x.range are other calls */
    CHECK(range_arg(a, "for k in tl.static_range(0, N):\n", 1) == NULL);
    CHECK(range_arg(a, "for k in obj.range(0, N):\n", 1) == NULL);
    /* nested brackets in an argument: split at top-level commas only */
    CHECK_STR(range_arg(a, "for k in range(f(a, b), END, STEP):\n", 2), "STEP");
    CHECK(range_arg(a, "no call here\n", 1) == NULL);
    CHECK(kw_tpy_range_arg(a, "a\n", 5, 1) == NULL); /* past the end */
}

static const char *src_if = "@triton.jit\n"                 /* 1 */
                            "def k(x_ptr,\n"                /* 2 */
                            "      FLAG: tl.constexpr,\n"   /* 3 */
                            "      OTHER: tl.constexpr):\n" /* 4 */
                            "    if FLAG:\n"                /* 5 */
                            "        a = 1\n"               /* 6 */
                            "\n"                            /* 7 */
                            "        # comment\n"           /* 8 */
                            "        b = 2\n"               /* 9 */
                            "    else:\n"                   /* 10 */
                            "        c = 3\n"               /* 11 */
                            "    if OTHER:\n"               /* 12 */
                            "        d = 4\n"               /* 13 */
                            "    elif FLAG:\n"              /* 14 */
                            "        e = 5\n"               /* 15 */
                            "    if FLAG:\n"                /* 16 */
                            "        f = 6\n"               /* 17 */
                            "    if FLAG: g = 7\n"          /* 18 */
                            "    h = 8\n"                   /* 19 */
                            "def after():\n"                /* 20 */
                            "    if FLAG:\n"                /* 21 */
                            "        pass\n";               /* 22 */

static void test_if_statements(kw_arena *a) {
    kw_tpy_ifs ifs = {0};
    CHECK(kw_tpy_if_statements(a, src_if, 2, "FLAG", &ifs));
    /* line 5 with its else, line 16 without; not the elif (14), not the
     * one-line if (18), not the other function's (21) */
    CHECK(ifs.n == 2);
    if (ifs.n == 2) {
        CHECK(ifs.v[0].if_line == 5 && ifs.v[0].then_first == 6 && ifs.v[0].then_last == 9);
        CHECK(ifs.v[0].else_first == 11 && ifs.v[0].else_last == 11);
        CHECK(ifs.v[1].if_line == 16 && ifs.v[1].then_last == 17 && ifs.v[1].else_first == 0);
    }
    kw_tpy_ifs other = {0};
    CHECK(kw_tpy_if_statements(a, src_if, 2, "OTHER", &other));
    CHECK(other.n == 0); /* it has an elif: left out */
    kw_tpy_ifs none = {0};
    CHECK(kw_tpy_if_statements(a, src_if, 99, "FLAG", &none) && none.n == 0);
}

static void test_ttir_loops(kw_arena *a) {
    const char *ttir =
        "#loc = loc(\"/k.py\":2:0)\n"
        "module {\n"
        "  tt.func public @k(%x: i32 loc(\"x\"(#loc))) attributes {noinline = false} {\n"
        "    %c0_i32 = arith.constant 0 : i32 loc(#loc1)\n"
        "    %c304_i32 = arith.constant 304 : i32 loc(#loc1)\n"
        "    %cst = arith.constant 2.400000e+02 : f32 loc(#loc1)\n"
        "    scf.for %i = %c0_i32 to %x step %c304_i32  : i32 {\n"
        "      %s = scf.for %j = %x to %c304_i32 step %x iter_args(%a = %cst) -> (f32)  : i32 {\n"
        "        scf.yield %a : f32 loc(#loc3)\n"
        "      } {tt.num_stages = 2 : i32} loc(#loc3)\n"
        "    } {tt.num_stages = 1 : i32} loc(#loc2)\n"
        "    tt.return loc(#loc1)\n"
        "  } loc(#loc)\n"
        "} loc(#loc)\n"
        "#loc1 = loc(\"/k.py\":3:4)\n"
        "#loc2 = loc(\"/k.py\":7:8)\n"
        "#loc3 = loc(\"/k.py\":9:8)\n";
    kw_ttir ir;
    kw_err err;
    CHECK(kw_ttir_parse(a, "k.ttir", ttir, &ir, &err) == KW_OK);
    CHECK(ir.loops.n == 2);
    if (ir.loops.n != 2)
        return;
    /* the outer loop: start 0 and step 304 constants, end an argument */
    const kw_ttir_loop *o = &ir.loops.v[0], *in = &ir.loops.v[1];
    CHECK(o->known[0] && o->bound[0] == 0 && !o->known[1] && o->known[2] && o->bound[2] == 304);
    CHECK(o->loc.file && !strcmp(o->loc.file, "/k.py") && o->loc.line == 7);
    CHECK(!in->known[0] && in->known[1] && in->bound[1] == 304 && !in->known[2]);
    CHECK(in->loc.line == 9);
    /* every op's position is kept (the branch rule reads them) */
    CHECK(ir.op_locs.n >= 6);
}

int main(void) {
    kw_arena a;
    kw_arena_init(&a);
    test_range_arg(&a);
    test_if_statements(&a);
    test_ttir_loops(&a);
    kw_arena_free(&a);
    return kw_test_result("test_triton_py");
}
