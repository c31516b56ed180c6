/* kw_index_db_only.c: reading from the index database only the rows one
 * question needs (kw_index_read_file_only): the rows of the kernels of a few
 * device symbols whole, and of every other kernel its own row and its archs'
 * rows without their listings and its kernel struct's template arguments (the
 * names list prints), so that picking a kernel and a page of it see
 * the same build as the whole read; what hangs below another kernel (its
 * calls, parameters, IR facts, line tables, ...), the device call graphs
 * of the translation units that define none of those kernels and what hangs
 * below a launch of another symbol (its guards, constants, arguments, operand
 * declarations, macro expansions) are not read.
 *
 * The rows are found through the indexes the database has (kernels(symbol),
 * each table's _parent, the top level's _sidecar): the ids chosen at each
 * level go into a temporary table of this connection, and a child table's
 * rows are those whose _parent is chosen. One connection, one thread: the
 * rows are few. They are then put into their parents as the whole read does
 * (kw_db_link), and the caller adds the sidecars with kw_index_adopt's rules. */
#include <stdlib.h>
#include <string.h>

#include "index/kw_index_db.h"
#include "sidecar/kw_call_graph.h"

/* What a table's rows are, for this read. */
typedef enum kw_only_role {
    KW_ONLY_ALL,    /* every row (the sidecars, launches, entries, host calls, ...) */
    KW_ONLY_KERNEL, /* `kernels`: every row; the chosen symbols' ids kept */
    KW_ONLY_ARCHS,  /* `kernels_archs`, `kernels_triton`: every row, the chosen kernels' kept
                       (a listing only under a chosen kernel) */
    KW_ONLY_BELOW,  /* below a kernel or a unit's call graph: the chosen parents' rows */
    KW_ONLY_GRAPH,  /* `device_calls`: the rows of the units that define a chosen kernel */
    KW_ONLY_LAUNCH  /* `launches`: every row; those of a chosen symbol or of none kept */
} kw_only_role;

/* A launch's tables read only under the launches kept (KW_ONLY_LAUNCH): what
 * a page shows of its own kernel's launch sites. Those every launch gives the
 * model (its instantiation chain, the ASM kernels it may pick) are read whole. */
static bool kw_only_launch_part(const char *name) {
    static const char *const parts[] = {"launches_guards", "launches_constants", "launches_args",
                                        "launches_operand_decls", "launches_macro_expansions"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!strcmp(name, parts[i]))
            return true;
    return false;
}

static kw_only_role kw_only_role_of(const kw_dbplan *pl, int ti, int kt, int at) {
    if (ti == kt)
        return KW_ONLY_KERNEL;
    /* a kernel's archs, and a Triton kernel's record and files (its kind and
     * code object in `kwalk list`): every row, the chosen kernels' kept */
    const char *name = pl->tabs[ti].name;
    if (ti == at || !strcmp(name, "kernels_triton") || !strcmp(name, "kernels_triton_files"))
        return KW_ONLY_ARCHS;
    /* the kernel struct's template arguments as the source wrote them: the
     * names `kwalk list` prints and `render NAME` matches (model/kw_title.c) */
    if (!strcmp(name, "kernels_functor_args"))
        return KW_ONLY_ALL;
    const kw_dbtab *t = &pl->tabs[ti];
    if (t->graph && t->parent == 0)
        return KW_ONLY_GRAPH;
    if (!strcmp(name, "launches") && t->parent == 0)
        return KW_ONLY_LAUNCH;
    if (kw_only_launch_part(name))
        return KW_ONLY_BELOW;
    for (int p = t->parent; p > 0; p = pl->tabs[p].parent)
        if (p == kt || (pl->tabs[p].graph && pl->tabs[p].parent == 0) ||
            kw_only_launch_part(pl->tabs[p].name))
            return KW_ONLY_BELOW;
    return KW_ONLY_ALL;
}

static kw_status kw_only_exec(sqlite3 *db, char *sql) {
    int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    return rc == SQLITE_OK ? KW_OK : KW_ERR;
}

/* Choose the `kernels` rows (table kt) of the n symbols, and keep the
 * symbols' string ids (t = -1: the launches of the symbols, KW_ONLY_LAUNCH). */
static kw_status kw_only_choose(sqlite3 *db, int kt, const char *const *symbols, size_t n) {
    char *sql =
        sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id FROM _kernels "
                        "WHERE symbol IN (SELECT _id FROM strings WHERE value = ?1)",
                        kt);
    sqlite3_stmt *st = NULL, *sy = NULL;
    int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT -1, _id FROM "
                                "strings WHERE value = ?1",
                                -1, &sy, NULL);
    for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
        sqlite3_bind_text(st, 1, symbols[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(sy, 1, symbols[i], -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE && sqlite3_step(sy) == SQLITE_DONE ? SQLITE_OK
                                                                                : SQLITE_ERROR;
        sqlite3_reset(st);
        sqlite3_reset(sy);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(sy);
    return rc == SQLITE_OK ? KW_OK : KW_ERR;
}

/* The SELECT of table ti's rows for its role (NULL: out of memory). */
static char *kw_only_sql(const kw_dbplan *pl, int ti, kw_only_role role, int kt) {
    const kw_dbtab *t = &pl->tabs[ti];
    const char *names = t->names.ptr;
    if (ti == 0)
        return sqlite3_mprintf("SELECT _id, path, _ord, %s FROM _sidecars ORDER BY _id", names);
    switch (role) {
    case KW_ONLY_ARCHS: {
        /* the listing of a chosen kernel's arch only */
        const char *isa = strstr(names, "\"isa\"");
        if (!isa)
            break;
        return sqlite3_mprintf("SELECT _id, _parent, _ord, %.*s(CASE WHEN _parent IN (SELECT id "
                               "FROM temp.kw_only WHERE t = %d) THEN \"isa\" END)%s FROM \"%w\" "
                               "ORDER BY _id",
                               (int)(isa - names), names, kt, isa + strlen("\"isa\""), t->raw);
    }
    case KW_ONLY_BELOW:
    case KW_ONLY_GRAPH:
        return sqlite3_mprintf("SELECT _id, _parent, _ord, %s FROM \"%w\" WHERE _id IN (SELECT id "
                               "FROM temp.kw_only WHERE t = %d) ORDER BY _id",
                               names, t->raw, ti);
    default:
        break;
    }
    return sqlite3_mprintf("SELECT _id, _parent, _ord, %s FROM \"%w\" ORDER BY _id", names, t->raw);
}

/* Choose table ti's rows of its role before they are read: those below a
 * chosen parent, or the call graphs of the units of the chosen kernels. */
static kw_status kw_only_below(sqlite3 *db, const kw_dbplan *pl, int ti, kw_only_role role,
                               int kt) {
    const kw_dbtab *t = &pl->tabs[ti];
    if (role == KW_ONLY_GRAPH)
        return kw_only_exec(
            db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id "
                                "FROM \"%w\" WHERE _sidecar IN (SELECT _sidecar FROM _kernels "
                                "WHERE _id IN (SELECT id FROM temp.kw_only WHERE t = %d))",
                                ti, t->raw, kt));
    if (role == KW_ONLY_LAUNCH)
        return kw_only_exec(
            db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id "
                                "FROM \"%w\" WHERE kernel IS NULL OR kernel IN (SELECT id FROM "
                                "temp.kw_only WHERE t = -1)",
                                ti, t->raw));
    if (role == KW_ONLY_BELOW || role == KW_ONLY_ARCHS)
        return kw_only_exec(
            db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id "
                                "FROM \"%w\" WHERE _parent IN (SELECT id FROM temp.kw_only "
                                "WHERE t = %d)",
                                ti, t->raw, t->parent));
    return KW_OK;
}

kw_status kw_db_only_tables(sqlite3 *db, const char *path, const kw_dbplan *pl,
                            const kw_dbonly *only, kw_dbread *r, kw_arena *a, kw_err *err) {
    int kt = kw_db_table(pl, "kernels"), at = kw_db_table(pl, "kernels_archs");
    char m[256];
    if (kw_only_exec(db, sqlite3_mprintf("CREATE TEMP TABLE IF NOT EXISTS kw_only (t INTEGER, id "
                                         "INTEGER, PRIMARY KEY (t, id)) WITHOUT ROWID; "
                                         "DELETE FROM temp.kw_only")) != KW_OK ||
        (kt >= 0 && kw_only_choose(db, kt, only->symbols, only->n) != KW_OK))
        return kw_fail(err, "%s: %s", path, kw_db_msg(db, m));
    for (int ti = 0; ti < pl->n; ti++) {
        kw_only_role role = kw_only_role_of(pl, ti, kt, at);
        const char *why = NULL;
        sqlite3_stmt *st = NULL;
        size_t cap = 0;
        if (ti == 0 &&
            sqlite3_prepare_v2(db, "SELECT count(*) FROM _sidecars", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            cap = (size_t)sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        st = NULL;
        char *sql =
            kw_only_below(db, pl, ti, role, kt) == KW_OK ? kw_only_sql(pl, ti, role, kt) : NULL;
        int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_ERROR;
        sqlite3_free(sql);
        kw_status s =
            rc == SQLITE_OK ? kw_db_fill(st, cap, ti != 0, pl, ti, r, a, -1, &why) : KW_ERR;
        sqlite3_finalize(st);
        if (s != KW_OK)
            return kw_fail(err, "%s: corrupt kwalk index (%s: %s); rebuild it with 'kwalk index'",
                           path, pl->tabs[ti].name, why ? why : kw_db_msg(db, m));
    }
    /* the sidecars' call graphs, which device_calls' rows hang on */
    if (!(r->graphs = calloc(r->n[0] ? r->n[0] : 1, sizeof *r->graphs)))
        return kw_fail(err, "%s: out of memory", path);
    for (int ti = 1; ti < pl->n; ti++) {
        const char *why = NULL;
        if (kw_db_link(pl, ti, r, &why) != KW_OK)
            return kw_fail(err, "%s: corrupt kwalk index (%s: %s); rebuild it with 'kwalk index'",
                           path, pl->tabs[ti].name, why);
    }
    return KW_OK;
}
