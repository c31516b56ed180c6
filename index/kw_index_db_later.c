/* kw_index_db_later.c: the ISA listings and line tables of the index
 * database read one kernel arch at a time, after the rest
 * (kw_index_read_file_later). They are most of a big build's index; a
 * command that writes a page per kernel reads each when it writes the page,
 * on its worker threads, instead of all of them before the first page. Each
 * reader is its own connection with prepared statements, in a read
 * transaction begun inside the load's, so that all read one state of the
 * database (rollback-journal mode: no writer commits while they read).
 * Neither reads what no page shows: the inlined-at chains of line rows and
 * IR records and the indices accesses depend on (the load leaves them
 * unresolved: kw_dbread.chains). A line table is read as one
 * BLOB, not a row per entry (a tenth of a site's CPU). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "index/kw_index.h"
#include "index/kw_index_db.h"

typedef struct kw_later_conn {
    sqlite3 *db;
    sqlite3_stmt *isa;   /* the arch's listing */
    sqlite3_stmt *lines; /* its line table, packed (kw_index_db_lines.c) */
} kw_later_conn;

struct kw_index_later {
    char *path;
    kw_later_conn *c;
    unsigned n;
};

/* Tables no page shows, which a load for pages leaves unread (the
 * call-site chains of located records, once tables of their own, are
 * columns since index version 4, and the thread indices an access depends
 * on one since version 6: both left unresolved, kw_dbcur.chains). In a
 * realistic build those two were a third of the rows the load of `kwalk
 * site` read before the first page. */
static bool kw_later_unshown(const char *name) {
    static const char chain[] = "_inlined_at";
    size_t n = strlen(name), c = sizeof chain - 1;
    return n > c && !strcmp(name + n - c, chain);
}

bool kw_db_later_plan(kw_dblater *l, const kw_dbplan *pl) {
    memset(l, 0, sizeof *l);
    l->archs = kw_db_table(pl, "kernels_archs");
    l->lines = kw_db_table(pl, "kernels_archs_lines");
    const char *names = l->archs >= 0 ? pl->tabs[l->archs].names.ptr : NULL;
    const char *isa = names ? strstr(names, "\"isa\"") : NULL;
    if (l->lines < 0 || !isa || pl->tabs[l->lines].parent != l->archs)
        return false;
    for (int ti = 0; ti < pl->n; ti++) /* parents come first */
        l->skip[ti] = ti == l->lines || kw_later_unshown(pl->tabs[ti].name) ||
                      (pl->tabs[ti].parent >= 0 && l->skip[pl->tabs[ti].parent]);
    kw_buf_init(&l->archs_names);
    kw_buf_append(&l->archs_names, names, (size_t)(isa - names));
    kw_buf_puts(&l->archs_names,
                "(CASE WHEN \"isa\" IS NOT NULL OR EXISTS (SELECT 1 FROM \"_kernels_archs_lines\" "
                "AS l WHERE l._parent = \"_kernels_archs\"._id) THEN '' END)");
    kw_buf_puts(&l->archs_names, isa + strlen("\"isa\""));
    if (l->archs_names.oom) {
        kw_buf_free(&l->archs_names);
        return false;
    }
    return true;
}

void kw_db_later_free_plan(kw_dblater *l) {
    kw_buf_free(&l->archs_names);
}

static bool kw_later_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st) {
    return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK;
}

/* Open one reader: a connection, a read transaction holding its lock, the
 * statements. No mapping of the file (kw_index_db_read_in says why). */
static kw_status kw_later_conn_open(kw_later_conn *c, const char *path, kw_err *err) {
    char m[256];
    /* no mapping of the file: each page reads a few scattered pages of it,
     * which SQLite's page cache serves for less than mapped pages (their
     * faults and fetches were about a quarter of a 1,000-page site's CPU) */
    if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(c->db, "PRAGMA mmap_size = 0; BEGIN; SELECT count(*) FROM kwalk_meta", NULL,
                     NULL, NULL) != SQLITE_OK)
        return kw_fail(err, "%s: %s", path, kw_db_msg(c->db, m));
    sqlite3_busy_timeout(c->db, 10000);
    bool ok = kw_later_prepare(c->db, "SELECT isa, isa_size FROM _kernels_archs WHERE _id = ?1",
                               &c->isa) &&
              kw_later_prepare(c->db, "SELECT data FROM \"" KW_DB_LINES_PACKED "\" WHERE _id = ?1",
                               &c->lines);
    return ok ? KW_OK : kw_fail(err, "%s: %s", path, kw_db_msg(c->db, m));
}

static void kw_later_conn_close(kw_later_conn *c) {
    sqlite3_finalize(c->isa);
    sqlite3_finalize(c->lines);
    if (c->db) {
        sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(c->db);
    }
}

void kw_db_later_free(struct kw_index_later *later) {
    if (!later)
        return;
    for (unsigned i = 0; later->c && i < later->n; i++)
        kw_later_conn_close(&later->c[i]);
    free(later->c);
    free(later->path);
    free(later);
}

kw_status kw_db_later_open(kw_index *ix, const char *path, unsigned readers, kw_err *err) {
    struct kw_index_later *later = calloc(1, sizeof *later);
    if (!later)
        return kw_fail(err, "%s: out of memory", path);
    ix->later = later;
    later->path = strdup(path);
    later->c = calloc(readers ? readers : 1, sizeof *later->c);
    if (!later->path || !later->c)
        return kw_fail(err, "%s: out of memory", path);
    later->n = readers;
    for (unsigned i = 0; i < readers; i++)
        if (kw_later_conn_open(&later->c[i], path, err) != KW_OK)
            return KW_ERR;
    return KW_OK;
}

/* The line table of arch row `row` into a (none when it has none). */
static kw_status kw_later_lines(kw_later_conn *c, sqlite3_int64 row, kw_kernel_arch *a,
                                kw_arena *arena, const char **why) {
    sqlite3_bind_int64(c->lines, 1, row);
    int rc = sqlite3_step(c->lines);
    kw_status st = KW_OK;
    if (rc == SQLITE_ROW) {
        const void *data = sqlite3_column_blob(c->lines, 0);
        int n = sqlite3_column_bytes(c->lines, 0);
        kw_isa_line *v;
        size_t nv;
        st = kw_db_lines_unpack(data, (size_t)(n > 0 ? n : 0), arena, &v, &nv, why);
        if (st == KW_OK) {
            a->lines.v = v;
            a->lines.n = a->lines.cap = nv;
        }
    } else if (rc != SQLITE_DONE) {
        st = KW_ERR;
    }
    sqlite3_reset(c->lines);
    return st;
}

/* The listing of the arch bound as ?1 (NULL when it has none) into arena. */
static kw_status kw_later_isa(kw_later_conn *c, sqlite3_int64 row, kw_kernel_arch *a,
                              kw_arena *arena, const char **why) {
    sqlite3_bind_int64(c->isa, 1, row);
    int rc = sqlite3_step(c->isa);
    a->isa = NULL;
    if (rc == SQLITE_ROW)
        *why = kw_db_unpack(c->isa, 0, arena, &a->isa);
    sqlite3_reset(c->isa);
    if (rc == SQLITE_DONE)
        *why = "a listing's arch is gone";
    return rc == SQLITE_ROW && !*why ? KW_OK : KW_ERR;
}

kw_status kw_index_read_listing(const kw_index *ix, unsigned reader, kw_kernel_arch *a,
                                kw_arena *arena, kw_err *err) {
    struct kw_index_later *L = ix->later;
    if (!L || a->db_row <= 0)
        return KW_OK;
    if (reader >= L->n)
        return kw_fail(err, "%s: no listing reader %u", L->path, reader);
    kw_later_conn *c = &L->c[reader];
    sqlite3_int64 row = a->db_row;
    memset(&a->lines, 0, sizeof a->lines);
    const char *why = NULL;
    kw_status st = kw_later_isa(c, row, a, arena, &why);
    if (st == KW_OK)
        st = kw_later_lines(c, row, a, arena, &why);
    if (st != KW_OK) {
        char m[256];
        return kw_fail(err,
                       "%s: corrupt kwalk index (listing of row %lld: %s); rebuild it with "
                       "'kwalk index'",
                       L->path, (long long)row, why ? why : kw_db_msg(c->db, m));
    }
    return KW_OK;
}

kw_status kw_index_kernel_listings(const kw_index *ix, unsigned reader, kw_kernel *k,
                                   kw_arena *arena, kw_index_saved_listing **saved, kw_err *err) {
    *saved = NULL;
    if (!k || !k->archs.n)
        return KW_OK;
    *saved = kw_arena_alloc(arena, k->archs.n * sizeof **saved);
    if (!*saved)
        return kw_fail(err, "out of memory");
    for (size_t j = 0; j < k->archs.n; j++) {
        (*saved)[j].isa = k->archs.v[j].isa;
        memcpy(&(*saved)[j].lines, &k->archs.v[j].lines, sizeof k->archs.v[j].lines);
    }
    for (size_t j = 0; j < k->archs.n; j++)
        if (kw_index_read_listing(ix, reader, &k->archs.v[j], arena, err) != KW_OK)
            return KW_ERR;
    return KW_OK;
}

void kw_index_kernel_listings_done(kw_kernel *k, const kw_index_saved_listing *saved,
                                   kw_arena *arena) {
    for (size_t j = 0; k && saved && j < k->archs.n; j++) {
        k->archs.v[j].isa = saved[j].isa;
        memcpy(&k->archs.v[j].lines, &saved[j].lines, sizeof k->archs.v[j].lines);
    }
    kw_arena_free(arena);
    kw_arena_init(arena);
}
