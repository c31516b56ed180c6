/* kw_index_db_only.c: reading from the index database only the rows one
 * question needs (kw_index_read_file_only): the rows of the kernels of a few
 * device symbols (or printed names) whole, and of the kernels of their
 * templates (or of every kernel, where picking by name needs them) their own
 * rows, their archs' rows without their listings and their kernel structs'
 * template arguments (the names list prints), so that picking a kernel and a
 * page of it see the same build as the whole read; what hangs below another kernel (its
 * calls, parameters, IR facts, line tables, ...) and the device call graphs
 * of the translation units that define none of those kernels are not read.
 * Of the host records, a page reads those of its kernels' launches
 * (kw_index_db_host.c: the launches, the calls and entry points above them),
 * `kwalk list` the columns it lists (every launch, entry point and host
 * call, not what hangs below them but a launch's ASM kernels).
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
    KW_ONLY_ALL,    /* every row (the sidecars, their units' offload archs, ...) */
    KW_ONLY_KERNEL, /* `kernels`: every row; the chosen symbols' ids kept */
    KW_ONLY_ARCHS,  /* `kernels_archs`, `kernels_triton`: every row, the chosen kernels' kept
                       (a listing only under a chosen kernel) */
    KW_ONLY_BELOW,  /* below a kernel or a unit's call graph: the chosen parents' rows */
    KW_ONLY_GRAPH,  /* `device_calls`: the rows of the units that define a chosen kernel */
    KW_ONLY_HOST,   /* a page's `launches`, `entries`, `host_calls`: those chosen before
                       (kw_db_host_choose) */
    KW_ONLY_PART,   /* a page's launch's guards, constants, ...: below the launches kept */
    KW_ONLY_NONE    /* `kwalk list`: a host table none of its columns comes from */
} kw_only_role;

/* A launch's tables read only under the launches kept (KW_ONLY_KEPT): what
 * a page shows of its own kernel's launch sites. */
static bool kw_only_launch_part(const char *name) {
    static const char *const parts[] = {"launches_guards", "launches_constants", "launches_args",
                                        "launches_operand_decls", "launches_macro_expansions"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!strcmp(name, parts[i]))
            return true;
    return false;
}

/* The role of a host table (below the sidecars: `launches`, `entries`,
 * `host_calls` and what hangs below them). A page (page) reads the rows
 * kw_db_host_choose chose and what hangs below them; `kwalk list` every
 * launch, entry and host call, and of what hangs below a launch the ASM
 * kernels it may run only (a table's rows: asm_choices). */
static kw_only_role kw_only_host_role(const kw_dbplan *pl, int ti, bool page) {
    const kw_dbtab *t = &pl->tabs[ti];
    if (t->parent == 0)
        return page ? KW_ONLY_HOST : KW_ONLY_ALL;
    if (kw_only_launch_part(t->name))
        return page ? KW_ONLY_PART : KW_ONLY_NONE;
    if (page)
        return KW_ONLY_BELOW;
    return !strncmp(t->name, "launches_asm_choices", strlen("launches_asm_choices")) ? KW_ONLY_ALL
                                                                                     : KW_ONLY_NONE;
}

/* The top level's host table (launches, entries, host_calls) table ti is or
 * hangs below, or -1. */
static int kw_only_host_top(const kw_dbplan *pl, int ti) {
    int top = ti;
    while (top > 0 && pl->tabs[top].parent > 0)
        top = pl->tabs[top].parent;
    if (top <= 0 || pl->tabs[top].graph)
        return -1;
    const char *name = pl->tabs[top].name;
    return !strcmp(name, "launches") || !strcmp(name, "entries") || !strcmp(name, "host_calls")
               ? top
               : -1;
}

/* page: a page's read (kw_db_host_choose chose its host records); units:
 * only the units of the rows read are (kw_only_units), so are their own
 * tables' rows (their offload archs and code objects). */
static kw_only_role kw_only_role_of(const kw_dbplan *pl, int ti, int kt, int at, bool page,
                                    bool units) {
    if (ti == kt)
        return KW_ONLY_KERNEL;
    /* a kernel's archs, and a Triton kernel's record with its files (its kind
     * and code object in `kwalk list`): every row, the chosen kernels' kept */
    const char *name = pl->tabs[ti].name;
    if (ti == at || !strcmp(name, "kernels_triton"))
        return KW_ONLY_ARCHS;
    /* the kernel struct's template arguments as the source wrote them: the
     * names `kwalk list` prints and `render NAME` matches (model/kw_title.c);
     * read as an arch is, for every kernel whose own row is read */
    if (!strcmp(name, "kernels_functor_args"))
        return KW_ONLY_ARCHS;
    const kw_dbtab *t = &pl->tabs[ti];
    if (t->graph && t->parent == 0)
        return KW_ONLY_GRAPH;
    if (kw_only_host_top(pl, ti) >= 0) {
        /* below a launch part (an argument's parameters): below its rows */
        for (int p = t->parent; p > 0; p = pl->tabs[p].parent)
            if (kw_only_launch_part(pl->tabs[p].name))
                return page ? KW_ONLY_BELOW : KW_ONLY_NONE;
        return kw_only_host_role(pl, ti, page);
    }
    for (int p = t->parent; p > 0; p = pl->tabs[p].parent)
        if (p == kt || (pl->tabs[p].graph && pl->tabs[p].parent == 0))
            return KW_ONLY_BELOW;
    return units && ti > 0 ? KW_ONLY_BELOW : KW_ONLY_ALL;
}

static kw_status kw_only_exec(sqlite3 *db, char *sql) {
    int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    return rc == SQLITE_OK ? KW_OK : KW_ERR;
}

/* A kernel's template key: its template's name, else its printed name,
 * else its symbol (the model's group key; kernels_group indexes it). */
#define KW_ONLY_KEY "coalesce(\"template\", \"name\", symbol)"

/* Choose the `kernels` rows (table kt) of the n symbols or printed names,
 * keep the chosen kernels' symbols' string ids, and unless every is set,
 * where at least one kernel is chosen and none is a trampoline (whose
 * family spans templates: kw_kfamily.c), keep the rows of their templates
 * (KW_ONLY_GROUP) and set *some. */
static kw_status kw_only_choose(sqlite3 *db, int kt, const kw_dbonly *only, bool *some) {
    /* the names' string ids (through the index strings(length(value)); an
     * index written without it: one scan of `strings`) */
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_exec(db,
                          "CREATE TEMP TABLE IF NOT EXISTS kw_want (v TEXT); DELETE FROM "
                          "temp.kw_want",
                          NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO temp.kw_want (v) VALUES (?1)", -1, &st, NULL);
    for (size_t i = 0; i < only->n && rc == SQLITE_OK; i++) {
        sqlite3_bind_text(st, 1, only->symbols[i], -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    char *sql = sqlite3_mprintf(
        "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT -1, _id FROM strings WHERE length(value) "
        "IN (SELECT length(v) FROM temp.kw_want) AND value IN (SELECT v FROM temp.kw_want); "
        "INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id FROM _kernels WHERE symbol IN "
        "(SELECT id FROM temp.kw_only WHERE t = -1) OR \"name\" IN (SELECT id FROM temp.kw_only "
        "WHERE t = -1)",
        kt);
    if (rc != SQLITE_OK) {
        sqlite3_free(sql);
        return KW_ERR;
    }
    *some = false;
    if (kw_only_exec(db, sql) != KW_OK ||
        kw_only_exec(db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT -1, "
                                         "symbol FROM _kernels WHERE _id IN (SELECT id FROM "
                                         "temp.kw_only WHERE t = %d) AND symbol IS NOT NULL",
                                         kt)) != KW_OK)
        return KW_ERR;
    if (only->every || !only->n)
        return KW_OK;
    /* how many are chosen, and how many of them are trampolines */
    sql = sqlite3_mprintf("SELECT count(*), count(functor) FROM _kernels WHERE _id IN (SELECT id "
                          "FROM temp.kw_only WHERE t = %d)",
                          kt);
    st = NULL;
    rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    int step = rc == SQLITE_OK ? sqlite3_step(st) : SQLITE_ERROR;
    bool group =
        step == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0 && sqlite3_column_int64(st, 1) == 0;
    sqlite3_finalize(st);
    if (step != SQLITE_ROW)
        return KW_ERR;
    if (!group)
        return KW_OK;
    *some = true;
    return kw_only_exec(
        db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT -2, _id FROM "
                            "_kernels WHERE " KW_ONLY_KEY " IN (SELECT " KW_ONLY_KEY " FROM "
                            "_kernels WHERE _id IN (SELECT id FROM temp.kw_only WHERE t = %d))",
                            kt));
}

/* Were kernels chosen (kw_only_choose: of the symbols or names asked for)? */
static bool kw_only_chosen(sqlite3 *db, int kt) {
    return kw_db_any(db, sqlite3_mprintf("SELECT 1 FROM temp.kw_only WHERE t = %d LIMIT 1", kt));
}

/* The kw_only key of the rows read of table ti when only some kernels' are
 * (the kernels of the chosen templates and the rows below them). */
static int kw_only_read_key(int ti, int kt) {
    return ti == kt ? KW_ONLY_GROUP : KW_ONLY_READ - ti;
}

/* The SELECT of table ti's rows for its role (NULL: out of memory). */
static char *kw_only_sql(const kw_dbplan *pl, int ti, kw_only_role role, int kt, bool some,
                         bool units) {
    const kw_dbtab *t = &pl->tabs[ti];
    const char *names = t->names.ptr;
    if (ti == 0)
        return sqlite3_mprintf("SELECT _id, path, _ord, %s FROM _sidecars %s ORDER BY _id", names,
                               units ? "WHERE _id IN (SELECT id FROM temp.kw_only WHERE t = 0)"
                                     : "");
    /* only some kernels: the rows read of `kernels` and of their archs' tables */
    char *where = some && (role == KW_ONLY_KERNEL || role == KW_ONLY_ARCHS)
                      ? sqlite3_mprintf("WHERE _id IN (SELECT id FROM temp.kw_only WHERE t = %d)",
                                        kw_only_read_key(ti, kt))
                      : sqlite3_mprintf("%s", "");
    char *sql = NULL;
    switch (role) {
    case KW_ONLY_ARCHS: {
        /* the listing of a chosen kernel's arch only */
        const char *isa = strstr(names, "\"isa\"");
        if (!isa || !where)
            break;
        sql =
            sqlite3_mprintf("SELECT _id, _parent, _ord, %.*s(CASE WHEN _parent IN (SELECT id "
                            "FROM temp.kw_only WHERE t = %d) THEN \"isa\" END)%s FROM \"%w\" "
                            "%s ORDER BY _id",
                            (int)(isa - names), names, kt, isa + strlen("\"isa\""), t->raw, where);
        sqlite3_free(where);
        return sql;
    }
    case KW_ONLY_BELOW:
    case KW_ONLY_GRAPH:
    case KW_ONLY_HOST:
    case KW_ONLY_PART:
    case KW_ONLY_NONE:
        sqlite3_free(where);
        return sqlite3_mprintf("SELECT _id, _parent, _ord, %s FROM \"%w\" WHERE _id IN (SELECT id "
                               "FROM temp.kw_only WHERE t = %d) ORDER BY _id",
                               names, t->raw, ti);
    default:
        break;
    }
    if (where)
        sql = sqlite3_mprintf("SELECT _id, _parent, _ord, %s FROM \"%w\" %s ORDER BY _id", names,
                              t->raw, where);
    sqlite3_free(where);
    return sql;
}

/* Choose table ti's rows of its role before they are read: those below a
 * chosen parent, or the call graphs of the units of the chosen kernels. */
static kw_status kw_only_below(sqlite3 *db, const kw_dbplan *pl, int ti, kw_only_role role, int kt,
                               bool some) {
    const kw_dbtab *t = &pl->tabs[ti];
    /* only some kernels: an archs table's rows below the rows read of its parent */
    if (some && role == KW_ONLY_ARCHS &&
        kw_only_exec(db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, "
                                         "_id FROM \"%w\" WHERE _parent IN (SELECT id FROM "
                                         "temp.kw_only WHERE t = %d)",
                                         kw_only_read_key(ti, kt), t->raw,
                                         kw_only_read_key(t->parent, kt))) != KW_OK)
        return KW_ERR;
    if (role == KW_ONLY_GRAPH)
        return kw_only_exec(
            db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id "
                                "FROM \"%w\" WHERE _sidecar IN (SELECT _sidecar FROM _kernels "
                                "WHERE _id IN (SELECT id FROM temp.kw_only WHERE t = %d))",
                                ti, t->raw, kt));
    /* below their parents chosen; a launch's guards, ...: below the launches kept */
    if (role == KW_ONLY_BELOW || role == KW_ONLY_ARCHS || role == KW_ONLY_PART)
        return kw_only_exec(
            db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) SELECT %d, _id "
                                "FROM \"%w\" WHERE _parent IN (SELECT id FROM temp.kw_only "
                                "WHERE t = %d)",
                                ti, t->raw, role == KW_ONLY_PART ? KW_ONLY_KEPT : t->parent));
    return KW_OK;
}

/* The units (sidecars, under table 0) of the rows a page reads of only some
 * kernels (those of its kernels' templates) and of its host records:
 * the other units are not read. */
static kw_status kw_only_units(sqlite3 *db, const kw_dbplan *pl) {
    int lt = kw_db_table(pl, "launches"), ct = kw_db_table(pl, "host_calls"),
        et = kw_db_table(pl, "entries");
    return kw_only_exec(
        db, sqlite3_mprintf("INSERT OR IGNORE INTO temp.kw_only (t, id) "
                            "SELECT 0, _sidecar FROM _kernels WHERE _id IN (SELECT id FROM "
                            "temp.kw_only WHERE t = %d) "
                            "UNION SELECT 0, _sidecar FROM \"%w\" WHERE _id IN (SELECT id FROM "
                            "temp.kw_only WHERE t = %d) "
                            "UNION SELECT 0, _sidecar FROM \"%w\" WHERE _id IN (SELECT id FROM "
                            "temp.kw_only WHERE t = %d) "
                            "UNION SELECT 0, _sidecar FROM \"%w\" WHERE _id IN (SELECT id FROM "
                            "temp.kw_only WHERE t = %d)",
                            KW_ONLY_GROUP, pl->tabs[lt].raw, lt, pl->tabs[ct].raw, ct,
                            pl->tabs[et].raw, et));
}

/* Only some of table ti's rows read (kernels, a page's launches, entries,
 * host calls): they are a unit's list with gaps, which are closed (in _ord
 * order, which stays increasing: else the list is left as read and
 * kw_db_link says it is corrupt). */
static void kw_only_close_gaps(kw_dbread *r, int ti) {
    long long next = 0, last = -1;
    for (size_t i = 0; i < r->n[ti]; i++) {
        if (i == 0 || r->parents[ti][i] != r->parents[ti][i - 1])
            next = 0, last = -1;
        if (r->ords[ti][i] <= last)
            return;
        last = r->ords[ti][i];
        r->ords[ti][i] = next++;
    }
}

kw_status kw_db_only_tables(sqlite3 *db, const char *path, const kw_dbplan *pl,
                            const kw_dbonly *only, kw_dbread *r, kw_arena *a, kw_err *err) {
    int kt = kw_db_table(pl, "kernels"), at = kw_db_table(pl, "kernels_archs");
    char m[256];
    bool some = false;
    if (kw_only_exec(db, sqlite3_mprintf("CREATE TEMP TABLE IF NOT EXISTS kw_only (t INTEGER, id "
                                         "INTEGER, PRIMARY KEY (t, id)) WITHOUT ROWID; "
                                         "DELETE FROM temp.kw_only")) != KW_OK ||
        (kt >= 0 && kw_only_choose(db, kt, only, &some) != KW_OK))
        return kw_fail(err, "%s: %s", path, kw_db_msg(db, m));
    /* a page (some kernels named): the host records of their launches only;
     * where picking by name needs the whole build (every, or no kernel of
     * those symbols or names) also every launch that makes a kernel of its
     * own (a trampoline's family is the kernels' own rows') */
    bool page = only->n > 0;
    if (page && kw_db_host_choose(db, pl, only->every || !kw_only_chosen(db, kt)) != KW_OK)
        return kw_fail(err, "%s: %s", path, kw_db_msg(db, m));
    /* some kernels' rows and a page's host records: the units they are in */
    bool units = page && some;
    if (units && kw_only_units(db, pl) != KW_OK)
        return kw_fail(err, "%s: %s", path, kw_db_msg(db, m));
    for (int ti = 0; ti < pl->n; ti++) {
        kw_only_role role = kw_only_role_of(pl, ti, kt, at, page, units);
        const char *why = NULL;
        sqlite3_stmt *st = NULL;
        size_t cap = 0;
        if (ti == 0 &&
            sqlite3_prepare_v2(db, "SELECT count(*) FROM _sidecars", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            cap = (size_t)sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        st = NULL;
        char *sql = kw_only_below(db, pl, ti, role, kt, some) == KW_OK
                        ? kw_only_sql(pl, ti, role, kt, some, units)
                        : NULL;
        int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_ERROR;
        sqlite3_free(sql);
        kw_status s =
            rc == SQLITE_OK ? kw_db_fill(st, cap, ti != 0, pl, ti, r, a, -1, &why) : KW_ERR;
        if (s == KW_OK && ((some && ti == kt) || role == KW_ONLY_HOST))
            kw_only_close_gaps(r, ti);
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
    if (only->some)
        *only->some = some;
    return KW_OK;
}
