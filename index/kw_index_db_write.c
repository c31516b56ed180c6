/* kw_index_db_write.c: writing the index database (`kwalk index`), fresh or
 * incrementally. A run is one transaction: sidecars whose size and mtime (or
 * content hash) are those stored are kept as they are; a changed one has its
 * rows deleted and written again; the rows of a sidecar not given in this run
 * are deleted at the commit. A new database (or one of another version or
 * layout) is written to a temporary file beside it and renamed over it;
 * an existing one is updated in place under SQLite's rollback journal, so a
 * reader sees the index before or after a run, never between.
 * (docs/index-schema.md) */
#define _POSIX_C_SOURCE 200809L
#include "index/kw_index.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/kw_index_db.h"
#include "sidecar/kw_call_graph.h"

struct kw_index_db {
    sqlite3 *db;
    const char *name; /* the path given */
    char *tmp;        /* the temporary file renamed over name at the commit, or NULL */
    kw_dbplan plan;
    sqlite3_stmt *ins[KW_DB_MAXTABS];
    sqlite3_stmt *del[KW_DB_MAXTABS];
    sqlite3_stmt *find, *keep, *root_ins;
    /* each arch's line table packed (kw_index_db_lines.c): the table of the
     * archs in the plan, the statements, the BLOB being made */
    int archs;
    int graph; /* the table device_calls */
    sqlite3_stmt *pack_ins, *pack_del;
    kw_buf pack;
    int children[KW_DB_MAXTABS][16]; /* child tables of each table */
    int nchildren[KW_DB_MAXTABS];
    kw_arena arena;
    kw_symmap seen;    /* sidecar paths kept or written this run */
    kw_dbshare *share; /* strings and chains stored once (kw_index_db_share.c) */
    kw_dbstrs *strs;   /* the ids of the strings of the sidecar being written */
    long long deleted; /* sidecars whose rows were deleted (replaced or gone) */
    kw_producer producer;
};

uint64_t kw_index_hash(const void *data, size_t n) {
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static kw_status kw_dbw_fail(kw_index_db *w, const char *what, kw_err *err) {
    char m[256];
    return kw_fail(err, "%s: %s: %s", w->name, what, kw_db_msg(w->db, m));
}

static kw_status kw_dbw_prepare(kw_index_db *w, const char *sql, sqlite3_stmt **st, kw_err *err) {
    if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
        return kw_dbw_fail(w, "cannot prepare a statement", err);
    return KW_OK;
}

/* The DELETE of a sidecar's rows of table ti: by _sidecar in the top
 * level's tables, else by _parent through the parent tables' rows (indexed;
 * the children are deleted before their parents). */
static void kw_dbw_delete_sql(kw_buf *b, const kw_dbplan *pl, int ti) {
    kw_buf_printf(b, "DELETE FROM \"%s\" WHERE ", pl->tabs[ti].raw);
    int depth = 0;
    for (int t = ti; pl->tabs[t].parent > 0; t = pl->tabs[t].parent, depth++)
        kw_buf_printf(b, "_parent IN (SELECT _id FROM \"%s\" WHERE ",
                      pl->tabs[pl->tabs[t].parent].raw);
    kw_buf_puts(b, "_sidecar = ?");
    while (depth-- > 0)
        kw_buf_putc(b, ')');
}

static kw_status kw_dbw_statements(kw_index_db *w, kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_status st = KW_OK;
    for (int i = 0; i < w->plan.n && st == KW_OK; i++) {
        const kw_dbtab *t = &w->plan.tabs[i];
        kw_buf_reset(&b);
        if (i == 0) {
            kw_buf_printf(&b,
                          "INSERT INTO _sidecars (path, size, mtime_ns, hash, _ord, %s) VALUES "
                          "(?, ?, ?, ?, ?",
                          t->names.ptr);
        } else {
            kw_buf_printf(&b, "INSERT INTO \"%s\" (_sidecar, _parent, _ord, %s) VALUES (?, ?, ?",
                          t->raw, t->names.ptr);
            int p = t->parent;
            if (w->nchildren[p] >= 16)
                st = kw_fail(err, "%s: a record with more than 16 lists", w->name);
            else
                w->children[p][w->nchildren[p]++] = i;
        }
        for (int k = 0; k < t->ncols; k++)
            kw_buf_puts(&b, ", ?");
        kw_buf_puts(&b, ")");
        if (st == KW_OK)
            st = kw_dbw_prepare(w, b.ptr, &w->ins[i], err);
        kw_buf_reset(&b);
        if (i == 0)
            kw_buf_puts(&b, "DELETE FROM _sidecars WHERE _id = ?");
        else
            kw_dbw_delete_sql(&b, &w->plan, i);
        if (st == KW_OK)
            st = kw_dbw_prepare(w, b.ptr, &w->del[i], err);
    }
    kw_buf_free(&b);
    w->archs = kw_db_table(&w->plan, "kernels_archs");
    w->graph = kw_db_table(&w->plan, "device_calls");
    if (st == KW_OK && w->archs < 0)
        st = kw_fail(err, "%s: the schema has no kernels_archs table", w->name);
    if (st == KW_OK)
        st = kw_dbw_prepare(w,
                            "INSERT INTO \"" KW_DB_LINES_PACKED "\" (_id, _sidecar, data) "
                            "VALUES (?, ?, ?)",
                            &w->pack_ins, err);
    if (st == KW_OK)
        st = kw_dbw_prepare(w, "DELETE FROM \"" KW_DB_LINES_PACKED "\" WHERE _sidecar = ?",
                            &w->pack_del, err);
    if (st == KW_OK)
        st = kw_dbw_prepare(w, "SELECT _id, size, mtime_ns, hash FROM _sidecars WHERE path = ?",
                            &w->find, err);
    if (st == KW_OK)
        st = kw_dbw_prepare(
            w, "UPDATE _sidecars SET size = ?, mtime_ns = ?, hash = ?, _ord = ? WHERE _id = ?",
            &w->keep, err);
    const char *why = NULL;
    if (st == KW_OK && kw_db_share_writer(&w->share, w->db, !w->tmp, &why) != KW_OK)
        st = kw_dbw_fail(w, why, err);
    return st;
}

void kw_index_db_abort(kw_index_db *w) {
    if (!w)
        return;
    for (int i = 0; i < KW_DB_MAXTABS; i++) {
        sqlite3_finalize(w->ins[i]);
        sqlite3_finalize(w->del[i]);
    }
    sqlite3_finalize(w->find);
    sqlite3_finalize(w->keep);
    sqlite3_finalize(w->pack_ins);
    sqlite3_finalize(w->pack_del);
    kw_buf_free(&w->pack);
    kw_db_share_free(w->share);
    w->share = NULL;
    if (w->db) {
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(w->db);
    }
    if (w->tmp) {
        unlink(w->tmp);
        free(w->tmp);
    }
    kw_db_plan_free(&w->plan);
    kw_symmap_free(&w->seen);
    kw_arena_free(&w->arena);
    free(w->strs);
    free(w);
}

/* Open name for an update; false (and db closed) when it is to be written
 * anew: absent, not SQLite, or another version or layout. */
static bool kw_dbw_open_existing(kw_index_db *w) {
    if (access(w->name, F_OK) != 0)
        return false;
    if (sqlite3_open_v2(w->name, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
        SQLITE_OK) {
        sqlite3_busy_timeout(w->db, 10000);
        kw_err ignored;
        if (kw_db_check(w->db, &w->plan, w->name, &ignored) == KW_OK)
            return true;
    }
    sqlite3_close(w->db);
    w->db = NULL;
    return false;
}

kw_status kw_index_db_begin(kw_index_db **out, const char *path, const kw_producer *producer,
                            kw_err *err) {
    kw_index_db *w = calloc(1, sizeof *w);
    char m[256];
    *out = NULL;
    if (!w)
        return kw_fail(err, "%s: out of memory", path);
    w->name = path;
    w->producer = *producer;
    w->strs = calloc(1, sizeof *w->strs); /* none: every string looked up (kw_index_db.h) */
    kw_arena_init(&w->arena);
    kw_symmap_init(&w->seen);
    kw_status st = kw_db_plan_make(&w->plan, err);
    if (st == KW_OK && !kw_dbw_open_existing(w)) {
        w->tmp = malloc(strlen(path) + 32);
        if (!w->tmp) {
            st = kw_fail(err, "%s: out of memory", path);
        } else {
            sprintf(w->tmp, "%s.tmp.%ld", path, (long)getpid());
            unlink(w->tmp);
            if (sqlite3_open_v2(w->tmp, &w->db,
                                SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                NULL) != SQLITE_OK)
                st = kw_fail(err, "cannot write %s: %s", path, kw_db_msg(w->db, m));
            else
                st = kw_db_exec(w->db, w->tmp,
                                "PRAGMA page_size = 1024; PRAGMA journal_mode = OFF; "
                                "PRAGMA synchronous = OFF; PRAGMA cache_size = -262144",
                                err);
            if (st == KW_OK)
                st = kw_db_create(w->db, &w->plan, false, w->tmp, err); /* indexes at the commit */
        }
    }
    if (st == KW_OK)
        st = kw_db_exec(w->db, path, "BEGIN IMMEDIATE", err);
    if (st == KW_OK)
        st = kw_dbw_statements(w, err);
    if (st != KW_OK) {
        kw_index_db_abort(w);
        return KW_ERR;
    }
    *out = w;
    return KW_OK;
}

static kw_status kw_dbw_step(kw_index_db *w, sqlite3_stmt *st, kw_err *err) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return kw_dbw_fail(w, "cannot write", err);
    return KW_OK;
}

static kw_status kw_dbw_mark(kw_index_db *w, const char *path, kw_err *err) {
    const char *key = kw_arena_strdup(&w->arena, path);
    if (!key || kw_symmap_put(&w->seen, key, 1) != KW_OK)
        return kw_fail(err, "%s: out of memory", w->name);
    return KW_OK;
}

static void kw_hash_text(char buf[17], uint64_t h) {
    snprintf(buf, 17, "%016llx", (unsigned long long)h);
}

bool kw_index_db_stored(kw_index_db *w, const char *path, long long *size, long long *mtime_ns,
                        uint64_t *hash) {
    sqlite3_stmt *st = w->find;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        *size = sqlite3_column_int64(st, 1);
        *mtime_ns = sqlite3_column_int64(st, 2);
        const unsigned char *h = sqlite3_column_text(st, 3);
        *hash = h ? strtoull((const char *)h, NULL, 16) : 0;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return found;
}

static long long kw_dbw_find_id(kw_index_db *w, const char *path) {
    sqlite3_stmt *st = w->find;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    long long id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return id;
}

kw_status kw_index_db_keep(kw_index_db *w, const char *path, long long size, long long mtime_ns,
                           uint64_t hash, size_t ord, kw_err *err) {
    long long id = kw_dbw_find_id(w, path);
    if (id < 0)
        return kw_fail(err, "%s: %s is not in the index", w->name, path);
    char h[17];
    kw_hash_text(h, hash);
    sqlite3_bind_int64(w->keep, 1, size);
    sqlite3_bind_int64(w->keep, 2, mtime_ns);
    sqlite3_bind_text(w->keep, 3, h, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(w->keep, 4, (long long)ord);
    sqlite3_bind_int64(w->keep, 5, id);
    if (kw_dbw_step(w, w->keep, err) != KW_OK)
        return KW_ERR;
    return kw_dbw_mark(w, path, err);
}

/* After rows were deleted: the strings and inlining frames no row names
 * are deleted once the sidecars replaced or removed since the last such
 * collection are a quarter of the index's sidecars or more (kwalk_meta's
 * garbage_sidecars counts them; docs/index-schema.md "Shared strings,
 * chains and call graphs"). Collecting reads every row of the index, so doing it on
 * each update made re-indexing one changed sidecar cost what the whole
 * build's index holds; deferred, its cost per replaced sidecar is a few
 * sidecars' rows, and what is left meanwhile is rows no reader reaches. */
static kw_status kw_dbw_collect(kw_index_db *w, kw_err *err) {
    long long before, n;
    if (!kw_db_int(w->db,
                   "SELECT CAST(value AS INTEGER) FROM kwalk_meta WHERE key = 'garbage_sidecars'",
                   0, &before) ||
        !kw_db_int(w->db, "SELECT count(*) FROM _sidecars", 0, &n))
        return kw_dbw_fail(w, "cannot read", err);
    long long garbage = before + w->deleted;
    if (garbage * 4 >= n) {
        if (kw_db_share_collect(w->db, &w->plan) != KW_OK)
            return kw_dbw_fail(w, "cannot delete the strings no row names", err);
        garbage = 0;
    }
    char *sql = sqlite3_mprintf(garbage ? "INSERT OR REPLACE INTO kwalk_meta VALUES "
                                          "('garbage_sidecars', '%lld')"
                                        : "DELETE FROM kwalk_meta WHERE key = 'garbage_sidecars'",
                                garbage);
    kw_status st =
        sql ? kw_db_exec(w->db, w->name, sql, err) : kw_fail(err, "%s: out of memory", w->name);
    sqlite3_free(sql);
    return st;
}

static kw_status kw_dbw_delete(kw_index_db *w, long long id, kw_err *err) {
    w->deleted++;
    sqlite3_bind_int64(w->pack_del, 1, id);
    if (kw_dbw_step(w, w->pack_del, err) != KW_OK)
        return KW_ERR;
    for (int i = w->plan.n - 1; i >= 0; i--) {
        sqlite3_bind_int64(w->del[i], 1, id);
        if (kw_dbw_step(w, w->del[i], err) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

/* The line table of arch a (row id) packed, when it has one. */
static kw_status kw_dbw_pack(kw_index_db *w, const kw_kernel_arch *a, long long id, long long sid,
                             kw_err *err) {
    if (!a->lines.n)
        return KW_OK;
    const char *why = NULL;
    if (kw_db_lines_pack(&w->pack, a->lines.v, a->lines.n, &why) != KW_OK)
        return kw_fail(err, "%s: %s", w->name, why);
    sqlite3_bind_int64(w->pack_ins, 1, id);
    sqlite3_bind_int64(w->pack_ins, 2, sid);
    sqlite3_bind_blob(w->pack_ins, 3, w->pack.ptr, (int)w->pack.len, SQLITE_STATIC);
    return kw_dbw_step(w, w->pack_ins, err);
}

static kw_status kw_dbw_children(kw_index_db *w, int ti, const void *elem, long long id,
                                 long long sid, kw_err *err);

/* Insert the rows of child table ci held at p (its field in the parent's
 * element, whose row is id). */
static kw_status kw_dbw_list(kw_index_db *w, int ci, const unsigned char *p, long long id,
                             long long sid, kw_err *err) {
    const kw_dbtab *c = &w->plan.tabs[ci];
    const void *one = NULL;
    size_t n = 0;
    const unsigned char *v = NULL;
    if (c->f->kind == KW_F_PTR) {
        one = *(const void *const *)p;
        n = one ? 1 : 0;
        v = one;
    } else {
        const kw_anyarr *a = (const kw_anyarr *)p;
        n = a->n;
        v = a->v;
    }
    for (size_t i = 0; i < n; i++) {
        const void *e = v + i * c->esize;
        sqlite3_stmt *st = w->ins[ci];
        sqlite3_bind_int64(st, 1, sid);
        sqlite3_bind_int64(st, 2, id);
        sqlite3_bind_int64(st, 3, (long long)i);
        kw_dbcur cur = {KW_DB_BIND, st, 4, NULL, NULL, w->share, false, false, w->strs};
        kw_db_row(&cur, c, (void *)e);
        if (kw_db_share_bad(w->share))
            return kw_dbw_fail(w, kw_db_share_bad(w->share), err);
        if (cur.bad)
            return kw_fail(err, "%s: %s", w->name, cur.bad);
        if (kw_dbw_step(w, st, err) != KW_OK)
            return KW_ERR;
        long long row = sqlite3_last_insert_rowid(w->db);
        if (w->nchildren[ci] && kw_dbw_children(w, ci, e, row, sid, err) != KW_OK)
            return KW_ERR;
        if (ci == w->archs && kw_dbw_pack(w, e, row, sid, err) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

/* Insert the rows of the children of element elem (row id) of table ti (the
 * root's device_calls aside: kw_index_db_put writes them). */
static kw_status kw_dbw_children(kw_index_db *w, int ti, const void *elem, long long id,
                                 long long sid, kw_err *err) {
    for (int k = 0; k < w->nchildren[ti]; k++) {
        int ci = w->children[ti][k];
        const kw_dbtab *c = &w->plan.tabs[ci];
        if (!c->graph &&
            kw_dbw_list(w, ci, (const unsigned char *)elem + c->off, id, sid, err) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

kw_status kw_index_db_put(kw_index_db *w, const char *path, const kw_sidecar *sc, long long size,
                          long long mtime_ns, uint64_t hash, size_t ord, kw_err *err) {
    long long old = kw_dbw_find_id(w, path);
    if (old >= 0 && kw_dbw_delete(w, old, err) != KW_OK)
        return KW_ERR;
    if (w->strs) /* the last sidecar's strings may be freed, their addresses reused */
        memset(w->strs, 0, sizeof *w->strs);
    sqlite3_stmt *st = w->ins[0];
    char h[17];
    kw_hash_text(h, hash);
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    if (size >= 0) {
        sqlite3_bind_int64(st, 2, size);
        sqlite3_bind_int64(st, 3, mtime_ns);
        sqlite3_bind_text(st, 4, h, -1, SQLITE_TRANSIENT);
    }
    sqlite3_bind_int64(st, 5, (long long)ord);
    kw_dbcur cur = {KW_DB_BIND, st, 6, NULL, NULL, w->share, false, false, w->strs};
    kw_db_row(&cur, &w->plan.tabs[0], (void *)sc);
    if (kw_db_share_bad(w->share))
        return kw_dbw_fail(w, kw_db_share_bad(w->share), err);
    if (cur.bad)
        return kw_fail(err, "%s: %s", w->name, cur.bad);
    if (kw_dbw_step(w, st, err) != KW_OK)
        return KW_ERR;
    long long sid = sqlite3_last_insert_rowid(w->db);
    /* the device call graph once, and kernels without the calls its walk
     * gives back (sidecar/kw_call_graph.h) */
    kw_arena ga;
    kw_arena_init(&ga);
    kw_call_graph g;
    kw_kernel *kernels = NULL;
    kw_status s = kw_call_graph_factor(sc, &ga, &g, &kernels, err);
    kw_sidecar as = *sc;
    if (kernels)
        as.kernels.v = kernels;
    if (s == KW_OK)
        s = kw_dbw_children(w, 0, &as, sid, sid, err);
    if (s == KW_OK && w->graph > 0)
        s = kw_dbw_list(w, w->graph, (const unsigned char *)&g + w->plan.tabs[w->graph].off, sid,
                        sid, err);
    kw_arena_free(&ga);
    if (s != KW_OK)
        return KW_ERR;
    return kw_dbw_mark(w, path, err);
}

static kw_status kw_dbw_count(kw_index_db *w, const char *sql, size_t *n, kw_err *err) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
        return kw_dbw_fail(w, "cannot count", err);
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? KW_OK : kw_dbw_fail(w, "cannot count", err);
}

kw_status kw_index_db_commit(kw_index_db *w, kw_index_db_counts *n, kw_err *err) {
    kw_status st = KW_OK;
    char m[256];
    /* rows of sidecars not given in this run */
    sqlite3_stmt *q = NULL;
    KW_ARRAY(long long) gone = {0};
    if (sqlite3_prepare_v2(w->db, "SELECT _id, path FROM _sidecars", -1, &q, NULL) != SQLITE_OK)
        st = kw_dbw_fail(w, "cannot read", err);
    while (st == KW_OK && q) {
        int rc = sqlite3_step(q);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            st = kw_dbw_fail(w, "cannot read", err);
            break;
        }
        const char *p = (const char *)sqlite3_column_text(q, 1);
        if (!p || !kw_symmap_get(&w->seen, p)) {
            long long *slot = KW_PUSH(&w->arena, gone);
            if (!slot)
                st = kw_fail(err, "%s: out of memory", w->name);
            else
                *slot = sqlite3_column_int64(q, 0);
        }
    }
    sqlite3_finalize(q);
    for (size_t i = 0; i < gone.n && st == KW_OK; i++)
        st = kw_dbw_delete(w, gone.v[i], err);
    if (st == KW_OK && w->deleted)
        st = kw_dbw_collect(w, err);
    if (st == KW_OK) {
        kw_buf b;
        kw_buf_init(&b);
        kw_buf_puts(&b, "DELETE FROM kwalk_meta WHERE key LIKE 'producer_%';");
        const char *k[3] = {"name", "version", "clang_version"};
        const char *v[3] = {w->producer.name, w->producer.version, w->producer.clang_version};
        for (int i = 0; i < 3; i++)
            if (v[i]) {
                char *s = sqlite3_mprintf("INSERT INTO kwalk_meta VALUES ('producer_%s', %Q);",
                                          k[i], v[i]);
                kw_buf_puts(&b, s ? s : "");
                sqlite3_free(s);
            }
        st = kw_db_exec(w->db, w->name, b.ptr, err);
        kw_buf_free(&b);
    }
    /* a database written anew gets its indexes once filled; an update, those
     * of the tables it filled first (an empty table has none) */
    if (st == KW_OK)
        st = kw_db_create_indexes(w->db, &w->plan, w->name, err);
    if (st == KW_OK && n) {
        memset(n, 0, sizeof *n);
        st = kw_dbw_count(w, "SELECT count(*) FROM sidecars", &n->sidecars, err);
        if (st == KW_OK)
            st = kw_dbw_count(w,
                              /* strings are stored once: their ids compare as they do */
                              "SELECT count(*) FROM (SELECT DISTINCT t.symbol, CASE WHEN (SELECT "
                              "value FROM strings WHERE _id = t.linkage) = 'internal' THEN "
                              "t._sidecar END FROM _kernels t)",
                              &n->kernels, err);
        if (st == KW_OK)
            st = kw_dbw_count(w, "SELECT count(*) FROM launches", &n->launches, err);
        if (st == KW_OK)
            st = kw_dbw_count(w, "SELECT count(*) FROM entries", &n->entries, err);
    }
    if (st == KW_OK)
        st = kw_db_exec(w->db, w->name, "COMMIT", err);
    for (int i = 0; i < KW_DB_MAXTABS; i++) {
        sqlite3_finalize(w->ins[i]);
        sqlite3_finalize(w->del[i]);
        w->ins[i] = w->del[i] = NULL;
    }
    sqlite3_finalize(w->find);
    sqlite3_finalize(w->keep);
    w->find = w->keep = NULL;
    sqlite3_finalize(w->pack_ins);
    sqlite3_finalize(w->pack_del);
    w->pack_ins = w->pack_del = NULL;
    kw_db_share_free(w->share);
    w->share = NULL;
    if (st == KW_OK && w->tmp) {
        st = kw_db_exec(w->db, w->tmp, "PRAGMA journal_mode = DELETE", err);
        if (sqlite3_close(w->db) != SQLITE_OK && st == KW_OK)
            st = kw_fail(err, "%s: cannot close: %s", w->tmp, kw_db_msg(w->db, m));
        w->db = NULL;
        if (st == KW_OK && rename(w->tmp, w->name) != 0)
            st = kw_fail(err, "%s: cannot rename %s over it: %s", w->name, w->tmp, strerror(errno));
    }
    if (st == KW_OK && w->tmp) {
        free(w->tmp);
        w->tmp = NULL;
    }
    kw_index_db_abort(w);
    return st;
}

kw_status kw_index_db_write(const char *path, const kw_producer *producer,
                            const kw_sidecar *const *scs, const char *const *names, size_t n,
                            kw_err *err) {
    kw_index_db *w;
    if (unlink(path) != 0 && errno != ENOENT)
        return kw_fail(err, "%s: %s", path, strerror(errno));
    if (kw_index_db_begin(&w, path, producer, err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; i < n; i++)
        if (kw_index_db_put(w, names[i], scs[i], -1, 0, 0, i, err) != KW_OK) {
            kw_index_db_abort(w);
            return KW_ERR;
        }
    return kw_index_db_commit(w, NULL, err);
}
