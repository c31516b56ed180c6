/* test_diff_unit.c: diff.order. kw_diff_sort on hand-made rows, the order
 * worked out by hand from docs/diff.md: regressions (occupancy drops, the
 * larger first; new spills; removed instantiations; VGPR, then LDS growth),
 * then the other changes by instantiation, then improvements, a changed
 * source lines' rows by file and line number; kw_diff_fails /
 * kw_diff_kind_of for --fail-on; and kw_diff_lines on two hand-written
 * listings with line tables, the changed ranges worked out by hand. */
#include <string.h>

#include "kw_test.h"
#include "model/kw_diff.h"
#include "model/kw_diff_lines.h"

/* Two listings of one kernel: line 6's add became a mul, line 7's branch
 * only moved its target (the same by its mnemonic), line 8 is new, g.hip:3
 * lost one of its two instructions; the last instruction has no line. */
static void check_lines(void) {
    static const kw_isa_line ol[] = {
        {0x0, {"/s/f.hip", 5, 1}, {0}}, {0x8, {"/s/f.hip", 6, 1}, {0}},
        {0xc, {"/s/f.hip", 7, 1}, {0}}, {0x10, {"/s/g.hip", 3, 1}, {0}},
        {0x18, {NULL, 0, 0}, {0}},
    };
    static const kw_isa_line nl[] = {
        {0x0, {"/s/f.hip", 5, 1}, {0}},  {0x8, {"/s/f.hip", 6, 1}, {0}},
        {0xc, {"/s/f.hip", 7, 1}, {0}},  {0x10, {"/s/f.hip", 8, 1}, {0}},
        {0x14, {"/s/g.hip", 3, 1}, {0}}, {0x18, {"/s/f.hip", 0, 0}, {0}},
    };
    kw_kernel_arch o, n;
    kw_kernel_arch_init(&o);
    kw_kernel_arch_init(&n);
    o.isa = "0000: s_load_dword s0, s[4:5], 0x0\n"
            "0008: v_add_f32_e32 v1, v2, v3\n"
            "000c: s_cbranch_scc1 3  ; -> L0\n"
            "0010: v_mov_b32_e32 v0, 0\n"
            "0014: v_mov_b32_e32 v4, 1\n"
            "L0:\n"
            "0018: s_endpgm\n";
    n.isa = "0000: s_load_dword  s0, s[4:5], 0x0\n"
            "0008: v_mul_f32_e32 v1, v2, v3\n"
            "000c: s_cbranch_scc1 2  ; -> L1\n"
            "0010: v_mov_b32_e32 v5, 0\n"
            "0014: v_mov_b32_e32 v0, 0\n"
            "L1:\n"
            "0018: s_endpgm\n";
    o.lines.v = (kw_isa_line *)ol;
    o.lines.n = sizeof ol / sizeof ol[0];
    n.lines.v = (kw_isa_line *)nl;
    n.lines.n = sizeof nl / sizeof nl[0];
    kw_arena a;
    kw_arena_init(&a);
    kw_diff_ranges r;
    kw_err err;
    CHECK(kw_diff_lines(&o, &n, &a, &r, &err) == KW_OK);
    static const struct {
        const char *file;
        int first, last;
        long long o, n;
    } want[] = {{"/s/f.hip", 6, 6, 1, 1}, {"/s/f.hip", 8, 8, 0, 1}, {"/s/g.hip", 3, 3, 2, 1}};
    CHECK(r.n == sizeof want / sizeof want[0]);
    for (size_t i = 0; i < r.n && i < sizeof want / sizeof want[0]; i++) {
        CHECK_STR(r.v[i].file, want[i].file);
        CHECK(r.v[i].first == want[i].first && r.v[i].last == want[i].last);
        CHECK(r.v[i].old_insns == want[i].o && r.v[i].new_insns == want[i].n);
    }
    /* the same listing: nothing; no line table on one side: nothing */
    CHECK(kw_diff_lines(&o, &o, &a, &r, &err) == KW_OK && r.n == 0);
    n.lines.n = 0;
    CHECK(kw_diff_lines(&o, &n, &a, &r, &err) == KW_OK && r.n == 0);
    kw_arena_free(&a);
}

static kw_diff_row row(kw_diff_kind kind, kw_diff_dir dir, const char *name, const char *field,
                       long long o, long long n) {
    kw_diff_row r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.dir = dir;
    r.name = name;
    r.symbol = name;
    r.arch = "gfx942";
    r.field = field;
    r.old_value = o;
    r.new_value = n;
    return r;
}

int main(void) {
    kw_diff_row rows[] = {
        row(KW_DIFF_VGPR, KW_DIFF_BETTER, "a<1>", "vgpr", 64, 32),
        row(KW_DIFF_ISA, KW_DIFF_CHANGE, "b<2>", "isa", -1, -1),
        row(KW_DIFF_LDS, KW_DIFF_WORSE, "a<1>", "lds_bytes", 0, 4096),
        row(KW_DIFF_ADDED, KW_DIFF_CHANGE, "a<10>", "added", -1, -1),
        row(KW_DIFF_REMOVED, KW_DIFF_WORSE, "z<1>", "removed", -1, -1),
        row(KW_DIFF_VGPR, KW_DIFF_WORSE, "c<3>", "vgpr", 32, 40),
        row(KW_DIFF_SPILLS, KW_DIFF_WORSE, "d<4>", "vgpr_spill", 0, 12),
        row(KW_DIFF_OCCUPANCY, KW_DIFF_WORSE, "e<5>", "occupancy", 8, 7),
        row(KW_DIFF_VGPR, KW_DIFF_WORSE, "f<6>", "vgpr", 32, 128),
        row(KW_DIFF_OCCUPANCY, KW_DIFF_WORSE, "g<7>", "occupancy", 8, 4),
        row(KW_DIFF_OCCUPANCY, KW_DIFF_BETTER, "h<8>", "occupancy", 4, 8),
        row(KW_DIFF_INSNS, KW_DIFF_CHANGE, "a<2>", "insns", 10, 30),
        row(KW_DIFF_LINES, KW_DIFF_CHANGE, "b<2>", "lines", 3, 4),
        row(KW_DIFF_LINES, KW_DIFF_CHANGE, "b<2>", "lines", 1, 2),
    };
    /* the lines rows: line 10 after line 9 (by number, not text) */
    rows[12].src = (kw_loc){"/s/k.hip", 10, 0};
    rows[12].src_last = 12;
    rows[13].src = (kw_loc){"/s/k.hip", 9, 0};
    rows[13].src_last = 9;
    static const char *const want[][2] = {
        {"g<7>", "occupancy"}, {"e<5>", "occupancy"}, {"d<4>", "vgpr_spill"}, {"z<1>", "removed"},
        {"f<6>", "vgpr"},      {"c<3>", "vgpr"},      {"a<1>", "lds_bytes"},  {"a<2>", "insns"},
        {"a<10>", "added"},    {"b<2>", "isa"},       {"b<2>", "lines"},      {"b<2>", "lines"},
        {"h<8>", "occupancy"}, {"a<1>", "vgpr"},
    };
    size_t n = sizeof rows / sizeof rows[0];
    CHECK(n == sizeof want / sizeof want[0]);
    kw_diff_sort(rows, n);
    for (size_t i = 0; i < n; i++) {
        CHECK_STR(rows[i].name, want[i][0]);
        CHECK_STR(rows[i].field, want[i][1]);
    }
    CHECK(rows[10].src.line == 9 && rows[11].src.line == 10);

    /* --fail-on: a kind's regression fails, its improvement does not; added
     * and isa fail on any row */
    kw_diff_row better = row(KW_DIFF_VGPR, KW_DIFF_BETTER, "a", "vgpr", 64, 32);
    kw_diff_row worse = row(KW_DIFF_VGPR, KW_DIFF_WORSE, "a", "vgpr", 32, 64);
    kw_diff_row added = row(KW_DIFF_ADDED, KW_DIFF_CHANGE, "a", "added", -1, -1);
    CHECK(!kw_diff_fails(&better));
    CHECK(kw_diff_fails(&worse));
    CHECK(kw_diff_fails(&added));
    CHECK(kw_diff_kind_of("spills") == KW_DIFF_SPILLS);
    CHECK(kw_diff_kind_of("occupancy") == KW_DIFF_OCCUPANCY);
    CHECK(kw_diff_kind_of("nosuch") == KW_DIFF_NKINDS);
    CHECK_STR(kw_diff_kind_name(KW_DIFF_LDS), "lds");
    CHECK(kw_diff_kind_of("lines") == KW_DIFF_LINES);
    CHECK(kw_diff_kind_of("option") == KW_DIFF_OPTION);
    kw_diff_row opt = row(KW_DIFF_OPTION, KW_DIFF_CHANGE, "a", "num_warps", -1, -1);
    CHECK(kw_diff_fails(&opt));
    check_lines();
    return kw_test_result("diff.order");
}
