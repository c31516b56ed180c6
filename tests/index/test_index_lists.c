/* test_index_lists.c: a list of strings or integers in the index database
 * (index version 6, docs/index-schema.md "Lists of strings and integers"):
 * one column of its record holding the list's JSON array text, no table
 * of its own, the view of the old table's name giving its values as rows
 * (read back through SQLite's own JSON reader, json_each), the round trip
 * exact for strings with quotes, backslashes, control characters and
 * UTF-8 and for negative and large integers, equal lists stored once, a
 * page's load leaving depends_on unread, and every damaged list text a
 * one-line corrupt-index error, never a crash. */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/kw_fs.h"
#include "index/kw_index.h"
#include "kw_test.h"
#include "kw_test_index.h"
#include "kw_test_sidecar.h"
#include "kw_test_tmp.h"

static const char *const deps[] = {"threadIdx.x", "q\"b\\s\nc\x01", "\xc3\xa9t\xc3\xa9"};
static const long long members[] = {0, -3, 4000000000LL};

/* A sidecar whose first kernel's gfx942 IR facts have two accesses with
 * the same depends_on list and a group of them. */
static void lists_sidecar(kw_sidecar *sc) {
    kw_sidecar_init(sc);
    kw_tc_full_sidecar(sc);
    kw_arena *a = &sc->arena;
    kw_irf *ir = kw_arena_alloc(a, sizeof *ir);
    CHECK(ir != NULL);
    if (!ir)
        return;
    ir->symbol = sc->kernels.v[0].symbol, ir->arch = "gfx942", ir->wave_size = 64;
    for (int i = 0; i < 2; i++) {
        kw_irf_access *acc = KW_PUSH(a, ir->accesses);
        acc->op = "load", acc->space = "global", acc->what = "load", acc->type = "float";
        acc->bytes_per_lane = 4, acc->align = 4, acc->param_index = -1, acc->param_offset = -1;
        acc->lane_stride_bytes.kind = KW_VAL_NUM, acc->lane_stride_bytes.num = 4;
        acc->group_stride_bytes.kind = acc->group_stride_bytes_y.kind = KW_VAL_ABSENT;
        acc->group_stride_bytes_z.kind = KW_VAL_ABSENT;
        acc->active_lanes = 64, acc->wave_bytes = 256, acc->segments_per_wave = 4;
        acc->segments_per_wave_128 = -1, acc->coalesced = 1, acc->bank_conflict_degree = -1;
        acc->group = 0, acc->loop = -1;
        for (size_t k = 0; k < sizeof deps / sizeof *deps; k++)
            *KW_PUSH(a, acc->depends_on) = deps[k];
    }
    kw_irf_group *g = KW_PUSH(a, ir->groups);
    for (size_t k = 0; k < sizeof members / sizeof *members; k++)
        *KW_PUSH(a, g->members) = members[k];
    g->segments_per_wave_128 = -1;
    sc->kernels.v[0].archs.v[0].ir = ir;
}

/* Every row of query q's first column, as text, joined by '|' into buf. */
static const char *rows(const char *path, const char *q, char *buf, size_t n) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    size_t at = 0;
    buf[0] = '\0';
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        int w = snprintf(buf + at, n - at, "%s%s", at ? "|" : "", v ? (const char *)v : "NULL");
        at += w > 0 && (size_t)w < n - at ? (size_t)w : 0;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* The YAML of the index read from path (whole), into y; false: no read. */
static bool read_yaml(const char *path, kw_buf *y) {
    kw_index ix;
    kw_err err;
    kw_buf_reset(y);
    if (kw_index_read_file(&ix, path, &err) != KW_OK)
        return false;
    CHECK(kw_index_emit(&ix, y, &err) == KW_OK);
    kw_index_free(&ix);
    return true;
}

static void test_lists(void) {
    kw_index ix;
    kw_sidecar a;
    kw_err err;
    lists_sidecar(&a);
    kw_test_index_one(&ix, &a, "v.db");
    kw_buf want, got;
    kw_buf_init(&want);
    kw_buf_init(&got);
    CHECK(kw_index_emit(&ix, &want, &err) == KW_OK);
    kw_index_free(&ix);
    CHECK(strstr(kw_buf_str(&want), "members: [0, -3, 4000000000]") != NULL);
    /* the whole read: the same YAML */
    CHECK(read_yaml("v.db", &got));
    CHECK_STR(kw_buf_str(&got), kw_buf_str(&want));
    /* no table of one row per value; the column's text is the JSON array
     * (written here by hand), both accesses naming one string */
    char buf[512];
    CHECK_STR(rows("v.db",
                   "SELECT name FROM sqlite_schema WHERE type = 'table' AND (name LIKE "
                   "'%depends_on%' OR name LIKE '%members%' OR name LIKE '%offload_archs%')",
                   buf, sizeof buf),
              "");
    CHECK_STR(rows("v.db", "SELECT depends_on FROM kernels_archs_ir_accesses ORDER BY _id", buf,
                   sizeof buf),
              "[\"threadIdx.x\",\"q\\\"b\\\\s\\u000ac\\u0001\",\"\xc3\xa9t\xc3\xa9\"]|"
              "[\"threadIdx.x\",\"q\\\"b\\\\s\\u000ac\\u0001\",\"\xc3\xa9t\xc3\xa9\"]");
    CHECK_STR(rows("v.db", "SELECT count(DISTINCT depends_on) FROM _kernels_archs_ir_accesses", buf,
                   sizeof buf),
              "1");
    /* the views: SQLite's JSON reader gives back the values, in order */
    char exp[256];
    snprintf(exp, sizeof exp, "%s|%s|%s|%s|%s|%s", deps[0], deps[1], deps[2], deps[0], deps[1],
             deps[2]);
    CHECK_STR(rows("v.db",
                   "SELECT value FROM kernels_archs_ir_accesses_depends_on ORDER BY _parent, _ord",
                   buf, sizeof buf),
              exp);
    CHECK_STR(rows("v.db",
                   "SELECT value || ':' || typeof(value) FROM kernels_archs_ir_groups_members "
                   "ORDER BY _ord",
                   buf, sizeof buf),
              "0:integer|-3:integer|4000000000:integer");
    CHECK_STR(rows("v.db",
                   "SELECT o.value FROM translation_unit_offload_archs o JOIN sidecars s ON "
                   "s._id = o._parent AND s._id = o._sidecar ORDER BY o._ord",
                   buf, sizeof buf),
              "gfx942|gfx950");
    /* a page's load leaves depends_on empty, and reads the other lists */
    kw_index later;
    CHECK(kw_index_read_file_later(&later, "v.db", 1, &err) == KW_OK);
    const kw_irf *ir =
        later.kernels.n && later.kernels.v[0].archs.n ? later.kernels.v[0].archs.v[0].ir : NULL;
    CHECK(ir && ir->accesses.n == 2 && ir->accesses.v[0].depends_on.n == 0 && ir->groups.n == 1 &&
          ir->groups.v[0].members.n == 3 && ir->groups.v[0].members.v[2] == members[2]);
    kw_index_free(&later);
    /* damaged list texts: one line, no crash */
    static const char *const bad[] = {
        "'['",        "']'",          "'[\"a\"'",        "'[\"a\",]'",
        "'[,]'",      "'[\"a\\q\"]'", "'[\"\\u0041\"]'", "'[\"\\u00'",
        "'[\"a\"]x'", "'[1]'",        "'[\"a\"\"b\"]'",  "'[\"\\\\\"'",
        "''",         "x'5b22'"};
    size_t n = 0;
    char *d = NULL;
    CHECK(kw_fs_read("v.db", &d, &n, &err) == KW_OK);
    for (size_t i = 0; d && i < sizeof bad / sizeof *bad; i++) {
        char q[256];
        snprintf(q, sizeof q,
                 "UPDATE strings SET value = %s WHERE _id = (SELECT depends_on FROM "
                 "_kernels_archs_ir_accesses LIMIT 1)",
                 bad[i]);
        const char *e = kw_test_index_damaged(d, n, q);
        CHECK(e && !strchr(e, '\n') && strstr(e, "c.db: corrupt kwalk index (") == e);
    }
    /* an integer list with a string in it, and an id no string has */
    CHECK_STR(kw_test_index_damaged(
                  d, n,
                  "UPDATE strings SET value = '[0,\"a\"]' WHERE _id = (SELECT members FROM "
                  "_kernels_archs_ir_groups)"),
              "c.db: corrupt kwalk index (kernels_archs_ir_groups: a damaged list); "
              "rebuild it with 'kwalk index'");
    const char *e =
        kw_test_index_damaged(d, n, "UPDATE _kernels_archs_ir_groups SET members = 999999");
    CHECK(e && strstr(e, "c.db: corrupt kwalk index (") == e);
    free(d);
    kw_buf_free(&want);
    kw_buf_free(&got);
    kw_sidecar_free(&a);
}

int main(void) {
    /* its files (v.db, c.db) in a folder of its own: index.unit, run beside
     * it, writes a c.db of its own */
    if (!kw_test_tmp_run("kw-index-lists", test_lists))
        return 1;
    return kw_test_result("test_index_lists");
}
