/* kw_index_db_rows.c: rows of the index database's tables into memory: a
 * statement's rows into one block of elements per table with their ids,
 * parents and positions (kw_db_fill), then hung on their parents' elements
 * (kw_db_link). The whole load (kw_index_db_read.c) and the listings read
 * later (kw_index_db_later.c) share them. */
#include <stdlib.h>
#include <string.h>

#include "index/kw_index_db.h"
#include "sidecar/kw_call_graph.h"

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

/* Room for twice the n rows of table ti read so far (the block in a). */
static bool kw_dbr_grow(kw_dbread *r, int ti, size_t esize, kw_arena *a, size_t n, size_t *cap) {
    size_t ncap = n < 8 ? 16 : 2 * n;
    unsigned char *b = kw_arena_alloc(a, ncap * esize);
    sqlite3_int64 *ids = realloc(r->ids[ti], ncap * sizeof *ids);
    if (ids)
        r->ids[ti] = ids;
    sqlite3_int64 *parents = realloc(r->parents[ti], ncap * sizeof *parents);
    if (parents)
        r->parents[ti] = parents;
    long long *ords = realloc(r->ords[ti], ncap * sizeof *ords);
    if (ords)
        r->ords[ti] = ords;
    if (!b || !ids || !parents || !ords)
        return false;
    if (n)
        memcpy(b, r->block[ti], n * esize);
    r->block[ti] = b;
    *cap = ncap;
    return true;
}

kw_status kw_db_fill(sqlite3_stmt *st, size_t cap, bool grow, const kw_dbplan *pl, int ti,
                     kw_dbread *r, kw_arena *a, long row_off, const char **why) {
    const kw_dbtab *t = &pl->tabs[ti];
    r->block[ti] = cap ? kw_arena_alloc(a, cap * t->esize) : NULL;
    r->ids[ti] = malloc((cap ? cap : 1) * sizeof(sqlite3_int64));
    r->parents[ti] = malloc((cap ? cap : 1) * sizeof(sqlite3_int64));
    r->ords[ti] = malloc((cap ? cap : 1) * sizeof(long long));
    if ((cap && !r->block[ti]) || !r->ids[ti] || !r->parents[ti] || !r->ords[ti]) {
        *why = "out of memory";
        return KW_ERR;
    }
    if (ti == 0 && !(r->paths = calloc(cap ? cap : 1, sizeof(*r->paths)))) {
        *why = "out of memory";
        return KW_ERR;
    }
    int rc;
    size_t i = 0;
    kw_dbcur cur = {KW_DB_READ, st, 3, a, NULL, r->share, r->chains, false, NULL};
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (i >= cap && (ti == 0 || !grow || !kw_dbr_grow(r, ti, t->esize, a, i, &cap))) {
            *why = grow ? "out of memory" : "more rows than counted";
            break;
        }
        sqlite3_int64 id = sqlite3_column_int64(st, 0);
        if (i && id <= r->ids[ti][i - 1]) {
            *why = "rows out of order";
            break;
        }
        r->ids[ti][i] = id;
        r->ords[ti][i] = sqlite3_column_int64(st, 2);
        if (ti == 0) {
            const unsigned char *p = sqlite3_column_text(st, 1);
            if (!p || !(r->paths[i] = kw_arena_strdup(a, (const char *)p))) {
                *why = p ? "out of memory" : "a sidecar without a path";
                break;
            }
        } else {
            r->parents[ti][i] = sqlite3_column_int64(st, 1);
        }
        unsigned char *e = r->block[ti] + i * t->esize;
        cur.col = 3;
        kw_db_row(&cur, t, e);
        if (cur.bad) {
            *why = cur.bad;
            break;
        }
        if (row_off >= 0)
            *(long long *)(e + row_off) = id;
        i++;
    }
    r->n[ti] = i;
    if (*why)
        return KW_ERR;
    return rc == SQLITE_DONE ? KW_OK : KW_ERR;
}

unsigned char *kw_db_parent_at(const kw_dbplan *pl, int ti, const kw_dbread *r, size_t at) {
    const kw_dbtab *t = &pl->tabs[ti];
    if (t->graph)
        return (unsigned char *)&r->graphs[at];
    return r->block[t->parent] + at * pl->tabs[t->parent].esize;
}

/* Hang the rows of table ti (not the root) on their parents' elements (the
 * parent table linked before); *why says what is wrong. */
kw_status kw_db_link(const kw_dbplan *pl, int ti, kw_dbread *r, const char **why) {
    const kw_dbtab *t = &pl->tabs[ti];
    sqlite3_int64 prev = 0;
    kw_anyarr *arr = NULL;
    for (size_t i = 0; i < r->n[ti]; i++) {
        unsigned char *e = r->block[ti] + i * t->esize;
        sqlite3_int64 parent = r->parents[ti][i];
        long long ord = r->ords[ti][i];
        if (t->f->kind == KW_F_PTR) { /* at most one row per parent */
            long long at = kw_dbr_find(r->ids[t->parent], r->n[t->parent], parent);
            void **pp = at < 0 ? NULL : (void **)(kw_db_parent_at(pl, ti, r, (size_t)at) + t->off);
            if (!pp || *pp || ord != 0) {
                *why = pp ? "two records for one" : "a row without its parent";
                return KW_ERR;
            }
            *pp = e;
            continue;
        }
        if (!arr || parent != prev) {
            long long at = kw_dbr_find(r->ids[t->parent], r->n[t->parent], parent);
            if (at < 0) {
                *why = "a row without its parent";
                return KW_ERR;
            }
            arr = (kw_anyarr *)(kw_db_parent_at(pl, ti, r, (size_t)at) + t->off);
            if (arr->n) {
                *why = "rows of one list apart";
                return KW_ERR;
            }
            arr->v = e;
            prev = parent;
        }
        if (ord != (long long)arr->n) {
            *why = "a gap in a list";
            return KW_ERR;
        }
        arr->n = arr->cap = arr->n + 1;
    }
    return KW_OK;
}
