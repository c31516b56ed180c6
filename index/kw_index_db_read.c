/* kw_index_db_read.c: reading the index database into a kw_index. Each table
 * is read once in _id order (the order it was written in: the rows of one
 * parent are consecutive and in _ord order, which the reader checks) into one
 * block of elements; a row finds its parent's element by binary search on the
 * parent table's ids. The sidecars are then added in _ord order with
 * kw_index_adopt's rules, so the index equals the one built from the same
 * sidecars in memory. All of it in one read transaction. */
#include "index/kw_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index/kw_index_db.h"
#include "index/kw_index_int.h"

typedef struct kw_dbread {
    unsigned char *block[KW_DB_MAXTABS];
    sqlite3_int64 *ids[KW_DB_MAXTABS];
    size_t n[KW_DB_MAXTABS];
    const char **paths; /* of the root rows */
    long long *ords;
} kw_dbread;

static long long kw_dbr_find(const sqlite3_int64 *ids, size_t n, sqlite3_int64 id) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ids[lo] == id ? (long long)lo : -1;
}

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

/* Read table ti; *why says what is wrong with its rows. */
static kw_status kw_dbr_table(sqlite3 *db, const kw_dbplan *pl, int ti, kw_dbread *r, kw_arena *a,
                              kw_symmap *intern, const char **why) {
    const kw_dbtab *t = &pl->tabs[ti];
    size_t cap = 0;
    if (kw_dbr_count(db, t->name, &cap) != KW_OK)
        return KW_ERR;
    r->block[ti] = cap ? kw_arena_alloc(a, cap * t->esize) : NULL;
    r->ids[ti] = malloc((cap ? cap : 1) * sizeof(sqlite3_int64));
    if ((cap && !r->block[ti]) || !r->ids[ti]) {
        *why = "out of memory";
        return KW_ERR;
    }
    if (cap)
        memset(r->block[ti], 0, cap * t->esize);
    if (ti == 0) {
        r->paths = calloc(cap ? cap : 1, sizeof(*r->paths));
        r->ords = calloc(cap ? cap : 1, sizeof(*r->ords));
        if (!r->paths || !r->ords) {
            *why = "out of memory";
            return KW_ERR;
        }
    }
    char *sql = ti == 0 ? sqlite3_mprintf("SELECT _id, path, _ord, %s FROM sidecars ORDER BY _id",
                                          t->names.ptr)
                        : sqlite3_mprintf("SELECT _id, _parent, _ord, %s FROM \"%w\" ORDER BY _id",
                                          t->names.ptr, t->name);
    sqlite3_stmt *st = NULL;
    int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc != SQLITE_OK)
        return KW_ERR;
    const kw_dbtab *pt = t->parent >= 0 ? &pl->tabs[t->parent] : NULL;
    sqlite3_int64 prev = 0;
    kw_anyarr *arr = NULL;
    size_t i = 0;
    kw_dbcur cur = {KW_DB_READ, st, 3, a, intern, NULL};
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (i >= cap) {
            *why = "more rows than counted";
            break;
        }
        unsigned char *e = r->block[ti] + i * t->esize;
        sqlite3_int64 id = sqlite3_column_int64(st, 0);
        long long ord = sqlite3_column_int64(st, 2);
        if (i && id <= r->ids[ti][i - 1]) {
            *why = "rows out of order";
            break;
        }
        r->ids[ti][i] = id;
        if (!pt) {
            const unsigned char *p = sqlite3_column_text(st, 1);
            if (!p || !(r->paths[i] = kw_arena_strdup(a, (const char *)p))) {
                *why = p ? "out of memory" : "a sidecar without a path";
                break;
            }
            r->ords[i] = ord;
        } else {
            sqlite3_int64 parent = sqlite3_column_int64(st, 1);
            if (t->f->kind == KW_F_PTR) { /* at most one row per parent */
                long long at = kw_dbr_find(r->ids[t->parent], r->n[t->parent], parent);
                void **pp = at < 0
                                ? NULL
                                : (void **)(r->block[t->parent] + (size_t)at * pt->esize + t->off);
                if (!pp || *pp || ord != 0) {
                    *why = pp ? "two records for one" : "a row without its parent";
                    break;
                }
                *pp = e;
            } else {
                if (!arr || parent != prev) {
                    long long at = kw_dbr_find(r->ids[t->parent], r->n[t->parent], parent);
                    if (at < 0) {
                        *why = "a row without its parent";
                        break;
                    }
                    arr = (kw_anyarr *)(r->block[t->parent] + (size_t)at * pt->esize + t->off);
                    if (arr->n) {
                        *why = "rows of one list apart";
                        break;
                    }
                    arr->v = e;
                    prev = parent;
                }
                if (ord != (long long)arr->n) {
                    *why = "a gap in a list";
                    break;
                }
                arr->n = arr->cap = arr->n + 1;
            }
        }
        cur.col = 3;
        kw_db_row(&cur, t, e);
        if (cur.bad) {
            *why = cur.bad;
            break;
        }
        i++;
    }
    r->n[ti] = i;
    sqlite3_finalize(st);
    if (*why)
        return KW_ERR;
    return rc == SQLITE_DONE ? KW_OK : KW_ERR;
}

/* Keys of a keyed map or map of counts are unique, as in YAML. */
static const char *kw_dbr_unique(const kw_dbplan *pl, const kw_dbread *r) {
    for (int ti = 1; ti < pl->n; ti++) {
        const kw_dbtab *t = &pl->tabs[ti];
        if (t->f->kind != KW_F_KEYED && t->f->kind != KW_F_COUNTS)
            continue;
        size_t koff = t->f->kind == KW_F_KEYED ? t->t->fields[0].off : offsetof(kw_count, key);
        const kw_dbtab *pt = &pl->tabs[t->parent];
        for (size_t p = 0; p < r->n[t->parent]; p++) {
            const kw_anyarr *a = (const kw_anyarr *)(r->block[t->parent] + p * pt->esize + t->off);
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
    kw_index_init(ix);
    kw_dbplan pl;
    if (kw_db_plan_make(&pl, err) != KW_OK)
        return KW_ERR;
    sqlite3 *db = NULL;
    kw_status st = KW_OK;
    char m[256];
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        st = kw_fail(err, "%s: %s", path, kw_db_msg(db, m));
    if (st == KW_OK) {
        sqlite3_busy_timeout(db, 10000);
        /* read through a mapping of the file, not a copy of each page */
        st = kw_db_exec(db, path, "PRAGMA mmap_size = 4294967296; BEGIN", err);
    }
    if (st == KW_OK)
        st = kw_db_check(db, &pl, path, err);
    kw_dbread r;
    memset(&r, 0, sizeof r);
    const char *why = NULL;
    kw_symmap intern;
    kw_symmap_init(&intern);
    for (int ti = 0; ti < pl.n && st == KW_OK; ti++)
        if (kw_dbr_table(db, &pl, ti, &r, &ix->arena, &intern, &why) != KW_OK)
            st = kw_fail(err, "%s: corrupt kwalk index (%s: %s); rebuild it with 'kwalk index'",
                         path, pl.tabs[ti].name, why ? why : kw_db_msg(db, m));
    if (st == KW_OK && (why = kw_dbr_unique(&pl, &r)))
        st = kw_fail(err, "%s: corrupt kwalk index (%s); rebuild it with 'kwalk index'", path, why);
    if (st == KW_OK && kw_dbr_meta_producer(db, ix) != KW_OK)
        st = kw_fail(err, "%s: corrupt kwalk index (%s); rebuild it with 'kwalk index'", path,
                     kw_db_msg(db, m));
    kw_symmap_free(&intern);
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
            order[i] = (kw_dbr_ord){r.ords[i], i};
        qsort(order, ns, sizeof *order, kw_dbr_by_ord);
    }
    for (size_t i = 0; i < ns && st == KW_OK; i++) {
        kw_sidecar *sc = (kw_sidecar *)(r.block[0] + order[i].i * sizeof(kw_sidecar));
        st = kw_index_adopt(ix, sc, r.paths[order[i].i], err);
    }
    free(order);
    for (int ti = 0; ti < KW_DB_MAXTABS; ti++)
        free(r.ids[ti]);
    free(r.paths);
    free(r.ords);
    kw_db_plan_free(&pl);
    if (st != KW_OK)
        kw_index_free(ix);
    return st;
}
