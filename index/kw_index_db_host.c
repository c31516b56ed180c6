/* kw_index_db_host.c: the host records one page reads of the index
 * (kw_db_host_choose, for kw_index_db_only.c), chosen in SQL through the
 * indexes on the keys looked up, instead of every translation unit's:
 *
 * - the launches that launch the page's kernels (their device symbol or
 *   printed name; for a precompiled ASM kernel, the loader's kernel name or
 *   a table row's): they are kept (KW_ONLY_KEPT), and their guards,
 *   constants, arguments, ... are read below them;
 * - their neighbours in their unit's list (the model tells a library
 *   launch's records for several users' lines by the launch beside it);
 * - where picking by name needs the whole build (every kernel's own rows
 *   read), every launch that makes a kernel of its own in the model: an
 *   ASM launch, or one of a symbol no kernel row has;
 * - the host functions above the kept launches (KW_ONLY_UP: a walk up
 *   host_calls from the launching functions, by symbol), every host call
 *   into or out of one of them (a path's search counts the calls it passes
 *   over) and every entry point at one of them (whether a `cxx` entry is
 *   shadowed depends on the other entries and calls of its function only).
 *
 * A function is keyed by its symbol here, in every unit: a unit's own
 * (`static`) functions of one symbol are several nodes of the model
 * (model/kw_node.c), so this reads at most more of them than it needs. */
#include "index/kw_index_db.h"

static kw_status kw_host_exec(sqlite3 *db, char *sql) {
    int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    return rc == SQLITE_OK ? KW_OK : KW_ERR;
}

/* The launches of the chosen kernels' symbols or names (KW_ONLY_SYMBOLS),
 * as KW_ONLY_KEPT. */
static kw_status kw_host_kept(sqlite3 *db) {
    return kw_host_exec(
        db, sqlite3_mprintf(
                "INSERT OR IGNORE INTO temp.kw_only (t, id) "
                "SELECT %d, _id FROM _launches WHERE kernel IN (SELECT id FROM temp.kw_only "
                "WHERE t = %d) "
                "UNION SELECT %d, _id FROM _launches WHERE kernel_name IN (SELECT id FROM "
                "temp.kw_only WHERE t = %d) "
                "UNION SELECT %d, _id FROM _launches WHERE kernel IS NULL AND asm_kernel IN "
                "(SELECT id FROM temp.kw_only WHERE t = %d) "
                "UNION SELECT %d, c._parent FROM _launches_asm_choices c WHERE c._id IN (SELECT "
                "_parent FROM _launches_asm_choices_candidates WHERE asm_kernel IN (SELECT id "
                "FROM temp.kw_only WHERE t = %d))",
                KW_ONLY_KEPT, KW_ONLY_SYMBOLS, KW_ONLY_KEPT, KW_ONLY_SYMBOLS, KW_ONLY_KEPT,
                KW_ONLY_SYMBOLS, KW_ONLY_KEPT, KW_ONLY_SYMBOLS));
}

/* The launches read (table lt): the kept ones, their neighbours, and with
 * pick_all every launch of an ASM kernel or of a symbol no kernel row has. */
static kw_status kw_host_launches(sqlite3 *db, int lt, bool pick_all) {
    if (kw_host_exec(db, sqlite3_mprintf(
                             "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, id FROM "
                             "temp.kw_only WHERE t = %d; "
                             "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, n._id FROM "
                             "_launches w JOIN _launches n ON n._sidecar = w._sidecar AND n._ord "
                             "IN (w._ord - 1, w._ord + 1) WHERE w._id IN (SELECT id FROM "
                             "temp.kw_only WHERE t = %d)",
                             lt, KW_ONLY_KEPT, lt, KW_ONLY_KEPT)) != KW_OK)
        return KW_ERR;
    if (!pick_all)
        return KW_OK;
    return kw_host_exec(db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT "
                                            "%d, _id FROM _launches WHERE kernel IS NULL OR "
                                            "kernel NOT IN (SELECT symbol FROM _kernels WHERE "
                                            "symbol IS NOT NULL)",
                                            lt));
}

/* The host functions above the kept launches (KW_ONLY_UP: string ids), the
 * host calls into and out of them (table ct) and the entries at them (et). */
static kw_status kw_host_up(sqlite3 *db, int ct, int et) {
    return kw_host_exec(
        db, sqlite3_mprintf(
                "WITH RECURSIVE up(fn) AS (SELECT function_symbol FROM _launches WHERE _id IN "
                "(SELECT id FROM temp.kw_only WHERE t = %d) AND function_symbol IS NOT NULL "
                "UNION SELECT h.caller FROM _host_calls h JOIN up ON h.callee = up.fn WHERE "
                "h.caller IS NOT NULL) "
                "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, fn FROM up; "
                "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id FROM _host_calls "
                "WHERE callee IN (SELECT id FROM temp.kw_only WHERE t = %d) "
                "UNION SELECT %d, _id FROM _host_calls WHERE caller IN (SELECT id FROM "
                "temp.kw_only WHERE t = %d); "
                "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id FROM _entries WHERE "
                "function_symbol IN (SELECT id FROM temp.kw_only WHERE t = %d)",
                KW_ONLY_KEPT, KW_ONLY_UP, ct, KW_ONLY_UP, ct, KW_ONLY_UP, et, KW_ONLY_UP));
}

kw_status kw_db_host_choose(sqlite3 *db, const kw_dbplan *pl, bool pick_all) {
    int lt = kw_db_table(pl, "launches"), ct = kw_db_table(pl, "host_calls"),
        et = kw_db_table(pl, "entries");
    if (lt < 0 || ct < 0 || et < 0 || kw_db_table(pl, "launches_asm_choices_candidates") < 0)
        return KW_ERR;
    if (kw_host_kept(db) != KW_OK || kw_host_launches(db, lt, pick_all) != KW_OK)
        return KW_ERR;
    return kw_host_up(db, ct, et);
}
