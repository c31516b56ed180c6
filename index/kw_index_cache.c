/* kw_index_cache.c: the decode cache's SQLite file (see kw_index_cache.h).
 * One table, decoded(key, size, data): data is the record as it is (size
 * NULL; a record compresses its own parts, codeobj/kw_co_cache.c), or, as
 * earlier kwalks wrote it, compressed with zlib (size: the record's length),
 * which is still read. The file's application_id is 0x6B77636F ("kwco"), its
 * user_version 1; a file of anything else is left alone (cache off). */
#define _POSIX_C_SOURCE 200809L
#include "index/kw_index_cache.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "common/kw_fs.h"
#include "index/kw_index_db.h"

#define KW_CACHE_APP_ID 0x6B77636F
#define KW_CACHE_VERSION 1

struct kw_index_cache {
    char *path, *ns;
    pthread_mutex_t mu;
    bool tried, off;
    sqlite3 *db;
    sqlite3_stmt *get, *put;
};

kw_index_cache *kw_index_cache_new(const char *ns) {
    const char *env = getenv("KWALK_CACHE");
    if (env && !strcmp(env, "off"))
        return NULL;
    kw_buf p;
    kw_buf_init(&p);
    if (env && *env) {
        kw_buf_puts(&p, env);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg && *xdg == '/')
            kw_buf_printf(&p, "%s/kwalk/decoded.db", xdg);
        else if (home && *home)
            kw_buf_printf(&p, "%s/.cache/kwalk/decoded.db", home);
        else
            return NULL;
    }
    kw_index_cache *c = calloc(1, sizeof *c);
    if (!c || p.oom) {
        free(c);
        kw_buf_free(&p);
        return NULL;
    }
    c->path = p.ptr;
    c->ns = strdup(ns ? ns : "");
    if (!c->ns) {
        free(c->path);
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

const char *kw_index_cache_path(const kw_index_cache *c) {
    return c ? c->path : NULL;
}

void kw_index_cache_free(kw_index_cache *c) {
    if (!c)
        return;
    sqlite3_finalize(c->get);
    sqlite3_finalize(c->put);
    sqlite3_close(c->db);
    pthread_mutex_destroy(&c->mu);
    free(c->path);
    free(c->ns);
    free(c);
}

/* Bind the stored key of key (ns, a blank, key) as ?1 of st; false when out
 * of memory. */
static bool kw_cache_bind_key(kw_index_cache *c, sqlite3_stmt *st, const char *key) {
    kw_buf k;
    kw_buf_init(&k);
    kw_buf_printf(&k, "%s %s", c->ns, key);
    if (k.oom)
        return false;
    sqlite3_bind_text(st, 1, k.ptr, (int)k.len, SQLITE_TRANSIENT);
    kw_buf_free(&k);
    return true;
}

/* Open the file (under c->mu); false: the cache is off from now on. */
static bool kw_cache_open(kw_index_cache *c) {
    if (c->tried)
        return !c->off;
    c->tried = true;
    c->off = true;
    char *dir = strdup(c->path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    kw_err err;
    if (slash && slash != dir) {
        *slash = '\0';
        (void)kw_fs_mkdirs(dir, &err); /* failing, the open below fails */
    }
    free(dir);
    if (sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK)
        return false;
    sqlite3_busy_timeout(c->db, 10000);
    /* -1: not read (the checks below then fail: the cache is off) */
    long long app, tables, version;
    kw_db_int(c->db, "PRAGMA application_id", -1, &app);
    kw_db_int(c->db, "SELECT count(*) FROM sqlite_master", -1, &tables);
    if (app == 0 && tables == 0) { /* new: set it up (two processes may race: IF NOT EXISTS) */
        if (sqlite3_exec(c->db,
                         "PRAGMA journal_mode = WAL; BEGIN IMMEDIATE; "
                         "PRAGMA application_id = 1802986351; PRAGMA user_version = 1; "
                         "CREATE TABLE IF NOT EXISTS decoded(key TEXT PRIMARY KEY, size INTEGER, "
                         "data BLOB NOT NULL) WITHOUT ROWID; COMMIT",
                         NULL, NULL, NULL) != SQLITE_OK)
            return false;
        kw_db_int(c->db, "PRAGMA application_id", -1, &app);
    }
    kw_db_int(c->db, "PRAGMA user_version", -1, &version);
    if (app != KW_CACHE_APP_ID || version != KW_CACHE_VERSION)
        return false;
    sqlite3_exec(c->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    if (sqlite3_prepare_v2(c->db, "SELECT size, data FROM decoded WHERE key = ?1", -1, &c->get,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(c->db,
                           "INSERT OR REPLACE INTO decoded(key, size, data) VALUES (?1, ?2, ?3)",
                           -1, &c->put, NULL) != SQLITE_OK)
        return false;
    c->off = false;
    return true;
}

bool kw_index_cache_get(void *ctx, const char *key, unsigned char **data, size_t *n) {
    kw_index_cache *c = ctx;
    *data = NULL;
    *n = 0;
    if (!c)
        return false;
    pthread_mutex_lock(&c->mu);
    bool ok = false;
    if (kw_cache_open(c) && kw_cache_bind_key(c, c->get, key)) {
        if (sqlite3_step(c->get) == SQLITE_ROW) {
            const void *b = sqlite3_column_blob(c->get, 1);
            int nb = sqlite3_column_bytes(c->get, 1);
            bool packed = sqlite3_column_type(c->get, 0) != SQLITE_NULL;
            sqlite3_int64 size = packed ? sqlite3_column_int64(c->get, 0) : nb;
            unsigned char *out = size >= 0 && size < (1LL << 40) ? malloc((size_t)size + 1) : NULL;
            uLongf got = (uLongf)size;
            if (out && b && !packed) {
                memcpy(out, b, (size_t)nb);
                ok = true;
            } else if (out && b) {
                ok = uncompress(out, &got, b, (uLong)nb) == Z_OK && got == (uLongf)size;
            }
            if (ok) {
                *data = out;
                *n = (size_t)size;
            } else {
                free(out);
            }
        }
        sqlite3_reset(c->get);
        sqlite3_clear_bindings(c->get);
    }
    pthread_mutex_unlock(&c->mu);
    return ok;
}

void kw_index_cache_put(void *ctx, const char *key, const unsigned char *data, size_t n) {
    kw_index_cache *c = ctx;
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    if (kw_cache_open(c) && kw_cache_bind_key(c, c->put, key)) {
        sqlite3_bind_null(c->put, 2);
        sqlite3_bind_blob64(c->put, 3, data, n, SQLITE_STATIC);
        (void)sqlite3_step(c->put); /* busy past the timeout, full: decoded again next time */
        sqlite3_reset(c->put);
        sqlite3_clear_bindings(c->put);
    }
    pthread_mutex_unlock(&c->mu);
}
