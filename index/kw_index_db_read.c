/* kw_index_db_read.c: reading the index database into a kw_index. Each table
 * is read once in _id order (the order it was written in: the rows of one
 * parent are consecutive and in _ord order, which the reader checks) into one
 * block of elements; then, parents first, a row finds its parent's element by
 * binary search on the parent table's ids. The sidecars are then added in
 * _ord order with kw_index_adopt's rules, so the index equals the one built
 * from the same sidecars in memory. The tables are read on a few threads,
 * each with its own connection, arena and string table (the ISA listings and
 * line tables of a big build are most of the time); the first connection's
 * read transaction stays open until they are done, so that no writer can
 * commit in between (the database is in rollback-journal mode). */
#define _POSIX_C_SOURCE 200809L
#include "index/kw_index.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/kw_index_db.h"
#include "index/kw_index_int.h"
#include "sidecar/kw_call_graph.h"

static kw_status kw_dbr_count(sqlite3 *db, const char *table, size_t *n) {
    char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", table);
    sqlite3_stmt *st = NULL;
    int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        *n = (size_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? KW_OK : KW_ERR;
}

/* Read the rows of table ti, its data columns as names lists them, into its
 * block (kw_db_fill). */
static kw_status kw_dbr_rows(sqlite3 *db, const kw_dbplan *pl, int ti, const char *names,
                             kw_dbread *r, kw_arena *a, long row_off, const char **why) {
    const kw_dbtab *t = &pl->tabs[ti];
    size_t cap = 0;
    if (kw_dbr_count(db, t->raw, &cap) != KW_OK)
        return KW_ERR;
    char *sql =
        ti == 0 ? sqlite3_mprintf("SELECT _id, path, _ord, %s FROM _sidecars ORDER BY _id", names)
                : sqlite3_mprintf("SELECT _id, _parent, _ord, %s FROM \"%w\" ORDER BY _id", names,
                                  t->raw);
    sqlite3_stmt *st = NULL;
    int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc != SQLITE_OK)
        return KW_ERR;
    kw_status s = kw_db_fill(st, cap, false, pl, ti, r, a, row_off, why);
    sqlite3_finalize(st);
    return s;
}

/* ---- reading the tables on a few threads ------------------------------------------------------
 */

typedef struct kw_dbr_tab {
    kw_status st;
    const char *why; /* NULL: SQLite's message, in msg */
    char msg[256];
} kw_dbr_tab;

typedef struct kw_dbr_pool {
    const char *path;
    const kw_dbplan *pl;
    kw_dbread *r;
    const kw_dblater *later; /* tables left for later, or NULL */
    kw_dbr_tab tab[KW_DB_MAXTABS];
    pthread_mutex_t mu;
    int next; /* the next table to read */
} kw_dbr_pool;

typedef struct kw_dbr_worker {
    kw_dbr_pool *p;
    sqlite3 *db; /* the caller's for worker 0, else its own */
    kw_arena arena;
    kw_status st; /* its own connection could not be opened */
    char msg[256];
} kw_dbr_worker;

static sqlite3 *kw_dbr_open(const char *path, char msg[256]) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA mmap_size = 0; BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        kw_db_msg(db, msg);
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 10000);
    return db;
}

static void *kw_dbr_main(void *arg) {
    kw_dbr_worker *w = arg;
    kw_dbr_pool *p = w->p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int ti = p->next < p->pl->n ? p->next++ : -1;
        pthread_mutex_unlock(&p->mu);
        if (ti < 0)
            return NULL;
        kw_dbr_tab *t = &p->tab[ti];
        t->why = NULL;
        const kw_dblater *l = p->later;
        if (l && l->skip[ti])
            continue; /* no rows now: kw_index_read_listing reads them */
        bool archs = l && ti == l->archs;
        t->st = kw_dbr_rows(w->db, p->pl, ti,
                            archs ? l->archs_names.ptr : p->pl->tabs[ti].names.ptr, p->r, &w->arena,
                            archs ? (long)offsetof(kw_kernel_arch, db_row) : -1, &t->why);
        if (t->st != KW_OK && !t->why)
            kw_db_msg(w->db, t->msg);
    }
}

/* Threads that read tables: $KWALK_JOBS when set (1..64), else the online
 * CPUs, at most 4 (the big tables are two or three). */
static unsigned kw_dbr_threads(void) {
    const char *env = getenv("KWALK_JOBS");
    long v = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return v < 1 ? 1 : v > 4 ? 4 : (unsigned)v;
}

/* Read every table of pl: db (in its read transaction) on this thread, other
 * connections on the others; then link them, parents first. */
static kw_status kw_dbr_tables(sqlite3 *db, const char *path, const kw_dbplan *pl,
                               const kw_dblater *later, kw_dbread *r, kw_arena *a, kw_err *err) {
    kw_dbr_pool p;
    memset(&p, 0, sizeof p);
    p.path = path;
    p.pl = pl;
    p.r = r;
    p.later = later;
    pthread_mutex_init(&p.mu, NULL);
    enum { KW_DBR_MAXW = 4 };
    kw_dbr_worker w[KW_DBR_MAXW];
    pthread_t tid[KW_DBR_MAXW];
    bool started[KW_DBR_MAXW] = {false};
    unsigned nw = kw_dbr_threads();
    for (unsigned i = 0; i < nw; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].p = &p;
        kw_arena_init(&w[i].arena);
        w[i].db = i ? kw_dbr_open(path, w[i].msg) : db;
        /* a connection that cannot be opened reads nothing: the others do it all */
        if (i && w[i].db && pthread_create(&tid[i], NULL, kw_dbr_main, &w[i]) == 0)
            started[i] = true;
    }
    kw_dbr_main(&w[0]);
    kw_status st = KW_OK;
    for (unsigned i = 0; i < nw; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        if (i && w[i].db)
            sqlite3_close(w[i].db);
        kw_arena_adopt(a, &w[i].arena);
    }
    pthread_mutex_destroy(&p.mu);
    /* the sidecars' call graphs, which device_calls' rows hang on */
    if (!(r->graphs = calloc(r->n[0] ? r->n[0] : 1, sizeof *r->graphs)))
        st = kw_fail(err, "%s: out of memory", path);
    for (int ti = 0; ti < pl->n && st == KW_OK; ti++) {
        const kw_dbr_tab *t = &p.tab[ti];
        const char *why = NULL;
        if (t->st != KW_OK || (ti && kw_db_link(pl, ti, r, &why) != KW_OK))
            st = kw_fail(err, "%s: corrupt kwalk index (%s: %s); rebuild it with 'kwalk index'",
                         path, pl->tabs[ti].name, t->st != KW_OK ? t->why ? t->why : t->msg : why);
    }
    return st;
}

/* Keys of a keyed map or map of counts are unique, as in YAML. */
static const char *kw_dbr_unique(const kw_dbplan *pl, const kw_dbread *r) {
    for (int ti = 1; ti < pl->n; ti++) {
        const kw_dbtab *t = &pl->tabs[ti];
        if (t->f->kind != KW_F_KEYED && t->f->kind != KW_F_COUNTS)
            continue;
        size_t koff = t->f->kind == KW_F_KEYED ? t->t->fields[0].off : offsetof(kw_count, key);
        for (size_t p = 0; p < r->n[t->parent]; p++) {
            const kw_anyarr *a = (const kw_anyarr *)(kw_db_parent_at(pl, ti, r, p) + t->off);
            const unsigned char *v = a->v;
            for (size_t i = 0; i < a->n; i++)
                for (size_t j = 0; j < i; j++)
                    if (!strcmp(*(const char *const *)(v + i * t->esize + koff),
                                *(const char *const *)(v + j * t->esize + koff)))
                        return "duplicate key";
        }
    }
    return NULL;
}

static kw_status kw_dbr_meta_producer(sqlite3 *db, kw_index *ix) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM kwalk_meta WHERE key LIKE 'producer_%'", -1,
                           &st, NULL) != SQLITE_OK)
        return KW_ERR;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        const char **slot = NULL;
        if (k && !strcmp(k, "producer_name"))
            slot = &ix->producer.name;
        else if (k && !strcmp(k, "producer_version"))
            slot = &ix->producer.version;
        else if (k && !strcmp(k, "producer_clang_version"))
            slot = &ix->producer.clang_version;
        if (slot && v && !(*slot = kw_arena_strdup(&ix->arena, v)))
            rc = SQLITE_NOMEM;
        if (rc == SQLITE_NOMEM)
            break;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? KW_OK : KW_ERR;
}

typedef struct kw_dbr_ord {
    long long ord;
    size_t i;
} kw_dbr_ord;

static int kw_dbr_by_ord(const void *a, const void *b) {
    const kw_dbr_ord *x = a, *y = b;
    if (x->ord != y->ord)
        return x->ord < y->ord ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

kw_status kw_index_db_read(kw_index *ix, const char *path, kw_err *err) {
    return kw_index_db_read_in(ix, path, false, 0, NULL, err);
}

kw_status kw_index_db_read_in(kw_index *ix, const char *path, bool later, unsigned readers,
                              const kw_dbonly *only, kw_err *err) {
    kw_index_init(ix);
    kw_dbplan pl;
    if (kw_db_plan_make(&pl, err) != KW_OK)
        return KW_ERR;
    kw_dblater lt;
    bool lazy = later && !only && kw_db_later_plan(&lt, &pl);
    sqlite3 *db = NULL;
    kw_status st = KW_OK;
    char m[256];
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        st = kw_fail(err, "%s: %s", path, kw_db_msg(db, m));
    if (st == KW_OK) {
        sqlite3_busy_timeout(db, 10000);
        /* no mapping of the file: SQLite's page cache reads it for less CPU
         * than faulting in mapped pages (kwalk render of one kernel from a
         * 10,000-kernel index: 4.2 s instead of 4.8 s; docs/site.md), and a
         * mapped page stays in the resident set once per connection that read
         * it (`render --all` of a 220 MB index peaked at 541 MB mapped, 115 MB
         * not; docs/render.md) */
        st = kw_db_exec(db, path, "PRAGMA mmap_size = 0; BEGIN", err);
    }
    if (st == KW_OK)
        st = kw_db_check(db, &pl, path, err);
    kw_dbread r;
    memset(&r, 0, sizeof r);
    const char *why = NULL;
    /* the strings and frames first: every table's rows name them */
    /* (one question's few rows: each read when a row names it) */
    if (st == KW_OK && (only ? kw_db_share_lazy(&r.share, db, &ix->arena, &why)
                             : kw_db_share_reader(&r.share, db, &ix->arena, &why)) != KW_OK)
        st = kw_fail(err, "%s: corrupt kwalk index (%s); rebuild it with 'kwalk index'", path,
                     why ? why : kw_db_msg(db, m));
    r.chains = !lazy;
    if (st == KW_OK)
        st = only ? kw_db_only_tables(db, path, &pl, only, &r, &ix->arena, err)
                  : kw_dbr_tables(db, path, &pl, lazy ? &lt : NULL, &r, &ix->arena, err);
    if (st == KW_OK && (why = kw_dbr_unique(&pl, &r)))
        st = kw_fail(err, "%s: corrupt kwalk index (%s); rebuild it with 'kwalk index'", path, why);
    if (st == KW_OK && kw_dbr_meta_producer(db, ix) != KW_OK)
        st = kw_fail(err, "%s: corrupt kwalk index (%s); rebuild it with 'kwalk index'", path,
                     kw_db_msg(db, m));
    /* the readers of the listings begin while this transaction holds the state read */
    if (st == KW_OK && lazy)
        st = kw_db_later_open(ix, path, readers, err);
    if (lazy)
        kw_db_later_free_plan(&lt);
    kw_db_share_detach(r.share); /* its statements, before db closes */
    if (db) {
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(db);
    }
    /* the sidecars in _ord order */
    size_t ns = r.n[0];
    kw_dbr_ord *order = st == KW_OK ? malloc((ns ? ns : 1) * sizeof *order) : NULL;
    if (st == KW_OK && !order)
        st = kw_fail(err, "%s: out of memory", path);
    if (st == KW_OK) {
        for (size_t i = 0; i < ns; i++)
            order[i] = (kw_dbr_ord){r.ords[0][i], i};
        qsort(order, ns, sizeof *order, kw_dbr_by_ord);
    }
    for (size_t i = 0; i < ns && st == KW_OK; i++) {
        kw_sidecar *sc = (kw_sidecar *)(r.block[0] + order[i].i * sizeof(kw_sidecar));
        /* each kernel's calls from its unit's graph, as a sidecar's reader does */
        if (kw_call_graph_replay(sc, &r.graphs[order[i].i], err) != KW_OK)
            st = kw_fail(err, "%s: out of memory", path);
        else
            st = kw_index_adopt(ix, sc, r.paths[order[i].i], err);
    }
    free(order);
    for (int ti = 0; ti < KW_DB_MAXTABS; ti++) {
        free(r.ids[ti]);
        free(r.parents[ti]);
        free(r.ords[ti]);
    }
    free(r.paths);
    free(r.graphs);
    kw_db_share_free(r.share);
    kw_db_plan_free(&pl);
    if (st != KW_OK)
        kw_index_free(ix);
    return st;
}
