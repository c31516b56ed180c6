/* kw_trace_rocpd.c: reading rocprofv3's default output, the rocpd SQLite
 * database (`%hostname%/%pid%_results.db`), into the dispatch records the
 * CSV and JSON readers make (kw_trace.h).
 *
 * The schema is ROCprofiler-SDK's (source/share/rocprofiler-sdk-rocpd/
 * rocpd_tables.sql and rocpd_views.sql): the views rocpd_kernel_dispatch
 * (one row per dispatch: kernel_id, grid_size_x/y/z, workgroup_size_x/y/z),
 * rocpd_info_kernel_symbol (kernel_name, the mangled symbol with ".kd";
 * display_name) and rocpd_info_agent (name: the arch), each row keyed by
 * (id, guid). Two layouts of the dispatch's times are published: `start` and
 * `end` (ns) and `agent_id` on the row, or `start_id` / `end_id` into
 * rocpd_timestamp (`value`) and the agent on the row's track (rocpd_track).
 *
 * The join to the index is made in SQL: with the kwalk index database
 * ATTACHed (read-only), a dispatch whose kernel_name (".kd" removed) is a
 * symbol of the index (a kernel, a launched kernel, an ASM kernel's name)
 * carries that symbol; the others keep their kernel_name (else display_name)
 * and go through kw_trace_join.c's name rules like any trace's names. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_fs.h"
#include "trace/kw_trace.h"

/* One line of SQLite's last message: control characters become '?'. */
static const char *kw_rp_msg(sqlite3 *db, char buf[256]) {
    snprintf(buf, 256, "%s", db ? sqlite3_errmsg(db) : "out of memory");
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

/* path as a read-only SQLite URI: every byte but unreserved ones and '/'
 * percent-encoded, so that no name is read as a URI parameter. */
static char *kw_rp_uri(kw_arena *a, const char *path) {
    kw_buf b;
    kw_buf_init(&b);
    kw_buf_puts(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            kw_buf_printf(&b, "%c", *p);
        else
            kw_buf_printf(&b, "%%%02X", *p);
    }
    kw_buf_puts(&b, "?mode=ro");
    char *s = b.oom ? NULL : kw_arena_strdup(a, b.ptr);
    kw_buf_free(&b);
    return s;
}

/* Does the database have a table or view named name? -1: it cannot be read. */
static int kw_rp_has(sqlite3 *db, const char *name) {
    sqlite3_stmt *st = NULL;
    int rc =
        sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_schema WHERE name = ?1", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Does table or view tab have column col? */
static bool kw_rp_col(sqlite3 *db, const char *tab, const char *col) {
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, tab, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

/* The query: per dispatch its id, start, end, grid x/y/z, workgroup x/y/z,
 * agent name, kernel_name without ".kd", display_name, and the index's
 * symbol equal to that kernel_name (NULL without an index). */
static const char kw_rp_select[] =
    "WITH d AS (SELECT K.id AS id, %s AS t0, %s AS t1, K.grid_size_x AS gx, K.grid_size_y AS gy,"
    " K.grid_size_z AS gz, K.workgroup_size_x AS wx, K.workgroup_size_y AS wy,"
    " K.workgroup_size_z AS wz, A.name AS agent, K.kernel_id AS kid,"
    " CASE WHEN substr(S.kernel_name, -3) = '.kd'"
    " THEN substr(S.kernel_name, 1, length(S.kernel_name) - 3) ELSE S.kernel_name END AS sym,"
    " S.display_name AS shown"
    " FROM main.rocpd_kernel_dispatch K"
    " LEFT JOIN main.rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"
    " %s)"
    " SELECT id, t0, t1, gx, gy, gz, wx, wy, wz, agent, kid, sym, shown, %s FROM d"
    " ORDER BY t0, id";

static const char kw_rp_times_row[] = "K.start";
static const char kw_rp_times_row_end[] = "K.\"end\"";
static const char kw_rp_agent_row[] =
    "LEFT JOIN main.rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid";
static const char kw_rp_times_ts[] = "T0.value";
static const char kw_rp_times_ts_end[] = "T1.value";
static const char kw_rp_agent_ts[] =
    "LEFT JOIN main.rocpd_timestamp T0 ON T0.id = K.start_id AND T0.guid = K.guid"
    " LEFT JOIN main.rocpd_timestamp T1 ON T1.id = K.end_id AND T1.guid = K.guid"
    " LEFT JOIN main.rocpd_track TR ON TR.id = K.track_id AND TR.guid = K.guid"
    " LEFT JOIN main.rocpd_info_agent A ON A.id = TR.agent_id AND A.guid = K.guid";
/* (the index's symbols gathered once: its string columns are ids, docs/index-schema.md) */
static const char kw_rp_join[] =
    "CASE WHEN d.sym IN (SELECT symbol FROM kw.kernels UNION ALL SELECT kernel FROM kw.launches"
    " UNION ALL SELECT asm_kernel FROM kw.launches) THEN d.sym END";

/* The documented layout this database has: the SELECT for it, or NULL with
 * *why set. */
static char *kw_rp_sql(sqlite3 *db, bool attached, kw_arena *a, const char **why) {
    static const char *const need[] = {"rocpd_kernel_dispatch", "rocpd_info_kernel_symbol",
                                       "rocpd_info_agent"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!kw_rp_has(db, need[i])) {
            *why = kw_arena_printf(a, "no %s table or view", need[i]);
            return NULL;
        }
    const char *t0, *t1, *joins;
    if (kw_rp_col(db, "rocpd_kernel_dispatch", "start") &&
        kw_rp_col(db, "rocpd_kernel_dispatch", "end")) {
        t0 = kw_rp_times_row;
        t1 = kw_rp_times_row_end;
        joins = kw_rp_agent_row;
    } else if (kw_rp_col(db, "rocpd_kernel_dispatch", "start_id") &&
               kw_rp_has(db, "rocpd_timestamp") && kw_rp_has(db, "rocpd_track")) {
        t0 = kw_rp_times_ts;
        t1 = kw_rp_times_ts_end;
        joins = kw_rp_agent_ts;
    } else {
        *why = "rocpd_kernel_dispatch has neither start and end nor start_id and end_id "
               "(with rocpd_timestamp and rocpd_track)";
        return NULL;
    }
    return kw_arena_printf(a, kw_rp_select, t0, t1, joins, attached ? kw_rp_join : "NULL");
}

/* Is path an SQLite database (its first 16 bytes)? */
static bool kw_rp_is_sqlite(const char *path) {
    char head[16];
    size_t got;
    kw_err ignored;
    return path && kw_fs_head(path, KW_FS_DATA, head, sizeof head, &got, &ignored) == KW_OK &&
           got == sizeof head && !memcmp(head, "SQLite format 3", 16);
}

/* ATTACH the index database index_db (read-only) as schema kw. */
static kw_status kw_rp_attach(sqlite3 *db, kw_arena *a, const char *index_db, kw_err *err) {
    char m[256];
    const char *uri = kw_rp_uri(a, index_db);
    sqlite3_stmt *st = NULL;
    kw_status s = KW_OK;
    if (!uri || sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS kw", -1, &st, NULL) != SQLITE_OK) {
        s = kw_fail(err, "%s: attaching the index: %s", index_db, kw_rp_msg(uri ? db : NULL, m));
    } else {
        sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            s = kw_fail(err, "%s: attaching the index: %s", index_db, kw_rp_msg(db, m));
    }
    sqlite3_finalize(st);
    return s;
}

static kw_status kw_rp_row(kw_trace *t, const char *name, sqlite3_stmt *st, kw_err *err) {
    long long id = sqlite3_column_int64(st, 0);
    kw_dispatch *d = KW_PUSH(&t->arena, t->d);
    if (!d)
        return kw_fail(err, "%s: out of memory", name);
    d->line = (long)id;
    for (int c = 1; c <= 8; c++)
        if (sqlite3_column_type(st, c) != SQLITE_INTEGER || sqlite3_column_int64(st, c) < 0)
            return kw_fail(err,
                           "%s: rocpd_kernel_dispatch id %lld: %s is not a non-negative integer",
                           name, id,
                           c == 1   ? "the start time"
                           : c == 2 ? "the end time"
                           : c <= 5 ? "a grid size"
                                    : "a workgroup size");
    d->start_ns = sqlite3_column_int64(st, 1);
    d->end_ns = sqlite3_column_int64(st, 2);
    if (d->end_ns < d->start_ns)
        return kw_fail(err, "%s: rocpd_kernel_dispatch id %lld: end %lld is before start %lld",
                       name, id, d->end_ns, d->start_ns);
    d->has_config = true;
    for (int k = 0; k < 3; k++) {
        d->grid[k] = sqlite3_column_int64(st, 3 + k);
        d->block[k] = sqlite3_column_int64(st, 6 + k);
        if (!d->block[k])
            return kw_fail(err,
                           "%s: rocpd_kernel_dispatch id %lld: workgroup_size_%c is 0 (a "
                           "workgroup has at least one work item)",
                           name, id, "xyz"[k]);
    }
    const char *agent = (const char *)sqlite3_column_text(st, 9);
    if (agent && !strncmp(agent, "gfx", 3) && !(d->arch = kw_arena_strdup(&t->arena, agent)))
        return kw_fail(err, "%s: out of memory", name);
    /* the index's symbol, else kernel_name, else display_name */
    t->joined_sql += sqlite3_column_type(st, 13) == SQLITE_TEXT;
    static const int cols[] = {13, 11, 12};
    for (int i = 0; i < 3 && !d->name; i++) {
        const char *s = (const char *)sqlite3_column_text(st, cols[i]);
        if (s && *s && !(d->name = kw_arena_strdup(&t->arena, s)))
            return kw_fail(err, "%s: out of memory", name);
    }
    if (!d->name)
        return kw_fail(err,
                       "%s: rocpd_kernel_dispatch id %lld: kernel_id %lld has no name in "
                       "rocpd_info_kernel_symbol",
                       name, id, sqlite3_column_int64(st, 10));
    return KW_OK;
}

kw_status kw_trace_read_rocpd(kw_trace *t, const char *path, const char *index_db, kw_err *err) {
    t->path = kw_arena_strdup(&t->arena, path);
    t->format = "rocpd";
    char m[256];
    sqlite3 *db = NULL;
    const char *uri = kw_rp_uri(&t->arena, path);
    if (!uri || !t->path)
        return kw_fail(err, "%s: out of memory", path);
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        kw_status s = kw_fail(err, "%s: %s", path, kw_rp_msg(db, m));
        sqlite3_close(db);
        return s;
    }
    sqlite3_busy_timeout(db, 10000);
    kw_status s = KW_OK;
    bool attached = false;
    if (kw_rp_has(db, "rocpd_kernel_dispatch") < 0)
        s = kw_fail(err, "%s: an unreadable SQLite database (%s)", path, kw_rp_msg(db, m));
    if (s == KW_OK && kw_rp_is_sqlite(index_db)) {
        s = kw_rp_attach(db, &t->arena, index_db, err);
        attached = s == KW_OK;
    }
    const char *why = NULL;
    char *sql = s == KW_OK ? kw_rp_sql(db, attached, &t->arena, &why) : NULL;
    if (s == KW_OK && !sql)
        s = why ? kw_fail(err,
                          "%s: an SQLite database, not rocprofv3's rocpd database: %s (rocprofv3 "
                          "writes one by default, %%hostname%%/%%pid%%_results.db)",
                          path, why)
                : kw_fail(err, "%s: out of memory", path);
    sqlite3_stmt *st = NULL;
    if (s == KW_OK && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        s = kw_fail(err, "%s: not the documented rocpd schema (%s)", path, kw_rp_msg(db, m));
    int rc = SQLITE_DONE;
    while (s == KW_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        s = kw_rp_row(t, path, st, err);
    if (s == KW_OK && rc != SQLITE_DONE)
        s = kw_fail(err, "%s: a damaged rocpd database (%s)", path, kw_rp_msg(db, m));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return s;
}
