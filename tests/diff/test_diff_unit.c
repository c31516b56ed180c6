/* test_diff_unit.c: diff.order. kw_diff_sort on hand-made rows, the order
 * worked out by hand from docs/diff.md: regressions (occupancy drops, the
 * larger first; new spills; removed instantiations; VGPR, then LDS growth),
 * then the other changes by instantiation, then improvements; and
 * kw_diff_fails / kw_diff_kind_of for --fail-on. */
#include <string.h>

#include "kw_test.h"
#include "model/kw_diff.h"

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
    };
    static const char *const want[][2] = {
        {"g<7>", "occupancy"}, {"e<5>", "occupancy"}, {"d<4>", "vgpr_spill"}, {"z<1>", "removed"},
        {"f<6>", "vgpr"},      {"c<3>", "vgpr"},      {"a<1>", "lds_bytes"},  {"a<2>", "insns"},
        {"a<10>", "added"},    {"b<2>", "isa"},       {"h<8>", "occupancy"},  {"a<1>", "vgpr"},
    };
    size_t n = sizeof rows / sizeof rows[0];
    CHECK(n == sizeof want / sizeof want[0]);
    kw_diff_sort(rows, n);
    for (size_t i = 0; i < n; i++) {
        CHECK_STR(rows[i].name, want[i][0]);
        CHECK_STR(rows[i].field, want[i][1]);
    }

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
    return kw_test_result("diff.order");
}
