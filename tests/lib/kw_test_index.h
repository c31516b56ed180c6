/* kw_test_index.h: the index unit tests' database set-up: one sidecar
 * indexed and written to a database, a file written back as it was, a
 * statement run on a database, and the error of a database so damaged. The includer links kw_index
 * (kw_test_c_unit's LINK), which gives the index/ headers and SQLite. */
#ifndef KW_TEST_INDEX_H
#define KW_TEST_INDEX_H

#include <sqlite3.h>

#include "common/kw_fs.h"
#include "index/kw_index.h"
#include "kw_test.h"

/* Index ix (made here; the caller frees it) of sidecar sc, filled by the
 * caller, as "a.kwalk.yaml" by producer "kwalk", written to the database
 * db. */
static inline void kw_test_index_one(kw_index *ix, kw_sidecar *sc, const char *db) {
    kw_err err;
    kw_index_init(ix);
    ix->producer.name = "kwalk";
    CHECK(kw_index_add(ix, sc, "a.kwalk.yaml", &err) == KW_OK);
    const kw_sidecar *scs[] = {sc};
    const char *names[] = {"a.kwalk.yaml"};
    CHECK(kw_index_db_write(db, &ix->producer, scs, names, 1, &err) == KW_OK);
}

/* The n bytes d written to path (a database put back as it was). */
static inline void kw_test_index_spit(const char *path, const void *d, size_t n) {
    kw_err err;
    CHECK(kw_fs_write(path, d, n, &err) == KW_OK);
}

/* SQL statement q run on the database at path. */
static inline void kw_test_index_sql(const char *path, const char *q) {
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, q, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
}

/* The error reading the database of n bytes d once put back as "c.db" and
 * damaged by statement q (a static message); NULL when it still reads. */
static inline const char *kw_test_index_damaged(const void *d, size_t n, const char *q) {
    static kw_err err;
    kw_index ix;
    kw_test_index_spit("c.db", d, n);
    kw_test_index_sql("c.db", q);
    if (kw_index_read_file(&ix, "c.db", &err) != KW_OK)
        return err.msg;
    kw_index_free(&ix);
    return NULL;
}

#endif
