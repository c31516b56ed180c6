/* kw_index_db_share.c: what the index database stores once (index version
 * 4, docs/index-schema.md "Shared strings and chains"): every string of the
 * records in `strings` (a row's column holds its id), and every inlined_at
 * chain as frames in `inline_frames`, each naming the next outer frame, so
 * that chains ending in the same call sites share those frames (a record's
 * column holds the id of its innermost frame). A string longer than
 * KW_DB_STR_PACK bytes that only the call graph's tables and IR locations'
 * functions name (long C++ names no query looks up) is stored
 * zlib-compressed when that is shorter (a BLOB and its length in `size`:
 * SQLite's sqlar_uncompress(value, size)). The
 * writer interns as it binds, the reader resolves ids from tables read once;
 * views with the tables' names give the rows with their strings for SQL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "index/kw_index_db.h"

/* Strings up to this long are stored as text (names a query compares). */
#define KW_DB_STR_PACK 256

/* One frame as stored: its strings (ids when writing, text when reading). */
typedef struct kw_dbframe {
    const char *file, *function;
    int line, column;
    long long next; /* the next outer frame's id, 0 at the outermost */
    bool stored;    /* reading: a row of that id was read */
} kw_dbframe;

/* A frame's key when writing: its columns, all ids or numbers. */
typedef struct kw_dbfkey {
    long long file, function, next, id;
    int line, column;
} kw_dbfkey;

struct kw_dbshare {
    kw_arena arena;
    const char *bad;
    /* writing */
    sqlite3_stmt *str_ins, *frame_ins;
    sqlite3 *db;
    kw_buf z;               /* room for a string compressed */
    kw_symmap strs;         /* string -> id * 2, + 1 when stored compressed */
    sqlite3_stmt *str_text; /* a compressed string stored as text again */
    kw_htab frames;         /* the frames stored, by their key's hash: fkey's numbers */
    kw_dbfkey *fkey;        /* malloc'd: nfkey of capfkey */
    size_t nfkey, capfkey;
    bool unloaded;          /* the ids already stored not read in yet (read on first use) */
    /* reading: by id */
    const char **str;
    size_t nstr;
    kw_dbframe *fr;
    size_t nfr;
    /* reading on demand (kw_db_share_lazy): each id read when first asked */
    bool lazy;
    sqlite3_stmt *str_get, *frame_get;
    kw_arena *ra; /* where they go */
};

void kw_db_share_tables_sql(kw_buf *b) {
    kw_buf_puts(b, "CREATE TABLE strings (_id INTEGER PRIMARY KEY, value NOT NULL, size INTEGER);\n"
                   "CREATE TABLE inline_frames (_id INTEGER PRIMARY KEY, next INTEGER, "
                   "file INTEGER, line INTEGER, \"column\" INTEGER, function INTEGER);\n");
}

/* ---- frames of either element type ----------------------------------------------------------- */

/* Frame element e of type sub (kw_loc's "at", or file/line/column/function
 * fields) into f; strings as they are. */
static void kw_frame_of(const kw_type *sub, const void *e, kw_dbframe *f) {
    memset(f, 0, sizeof *f);
    const unsigned char *b = e;
    for (size_t i = 0; i < sub->nfields; i++) {
        const kw_field *x = &sub->fields[i];
        if (x->kind == KW_F_LOC) {
            const kw_loc *l = (const kw_loc *)(b + x->off);
            f->file = l->file;
            f->line = l->line;
            f->column = l->column;
        } else if (x->kind == KW_F_STR && !strcmp(x->key, "file")) {
            f->file = *(const char *const *)(b + x->off);
        } else if (x->kind == KW_F_STR && !strcmp(x->key, "function")) {
            f->function = *(const char *const *)(b + x->off);
        } else if (x->kind == KW_F_INT && !strcmp(x->key, "line")) {
            f->line = *(const int *)(b + x->off);
        } else if (x->kind == KW_F_INT && !strcmp(x->key, "column")) {
            f->column = *(const int *)(b + x->off);
        }
    }
}

static void kw_frame_to(const kw_type *sub, void *e, const kw_dbframe *f) {
    unsigned char *b = e;
    memset(e, 0, sub->size);
    for (size_t i = 0; i < sub->nfields; i++) {
        const kw_field *x = &sub->fields[i];
        if (x->kind == KW_F_LOC) {
            kw_loc *l = (kw_loc *)(b + x->off);
            l->file = f->file;
            l->line = f->line;
            l->column = f->column;
        } else if (x->kind == KW_F_STR && !strcmp(x->key, "file")) {
            *(const char **)(b + x->off) = f->file;
        } else if (x->kind == KW_F_STR && !strcmp(x->key, "function")) {
            *(const char **)(b + x->off) = f->function;
        } else if (x->kind == KW_F_INT && !strcmp(x->key, "line")) {
            *(int *)(b + x->off) = f->line;
        } else if (x->kind == KW_F_INT && !strcmp(x->key, "column")) {
            *(int *)(b + x->off) = f->column;
        }
    }
}

/* ---- writing -------------------------------------------------------------------------------- */

/* A frame key's hash: its numbers as four words, kw_symmap's word hash. */
static uint64_t kw_fkey_hash(const kw_dbfkey *k) {
    uint64_t w[4] = {(uint64_t)k->file, (uint64_t)k->function, (uint64_t)k->next,
                     (uint64_t)(unsigned)k->line << 32 | (unsigned)k->column};
    return kw_htab_hash_words(w, sizeof w);
}

typedef struct kw_fkey_ctx {
    const kw_dbshare *s;
    const kw_dbfkey *k;
} kw_fkey_ctx;

static bool kw_fkey_eq(const void *ctx, size_t i) {
    const kw_fkey_ctx *c = ctx;
    const kw_dbfkey *a = &c->s->fkey[i], *b = c->k;
    return a->file == b->file && a->function == b->function && a->next == b->next &&
           a->line == b->line && a->column == b->column;
}

/* The id of the stored frame of key k, or 0 with *slot where it would go
 * (the table has room: kw_htab_reserve first). */
static long long kw_share_frame_find(kw_dbshare *s, const kw_dbfkey *k, kw_htab_slot **slot) {
    kw_fkey_ctx c = {s, k};
    *slot = kw_htab_find(&s->frames, kw_fkey_hash(k), kw_fkey_eq, &c);
    return (*slot)->idx ? s->fkey[(*slot)->idx - 1].id : 0;
}

/* Room for n frame keys in all (the array and the table). */
static kw_status kw_share_frame_room(kw_dbshare *s, size_t n) {
    if (n > s->capfkey) {
        size_t cap = s->capfkey ? s->capfkey : 256;
        while (cap < n)
            cap *= 2;
        kw_dbfkey *v = cap < SIZE_MAX / sizeof *v ? realloc(s->fkey, cap * sizeof *v) : NULL;
        if (!v)
            return KW_ERR;
        s->fkey = v;
        s->capfkey = cap;
    }
    return kw_htab_presize(&s->frames, n);
}

static long long kw_share_max(sqlite3 *db, const char *sql);

static bool kw_fkey_none(const void *ctx, size_t i) {
    (void)ctx;
    (void)i;
    return false;
}

/* Add frame key k (with its id), known not to be in the table (the stored
 * frames are distinct; a new one was looked up first); KW_ERR when out of
 * memory. Its empty slot is found without reading any other key. */
static kw_status kw_share_frame_add(kw_dbshare *s, const kw_dbfkey *k) {
    if (s->nfkey == s->capfkey && kw_share_frame_room(s, s->nfkey + 1) != KW_OK)
        return KW_ERR;
    if (kw_htab_reserve(&s->frames) != KW_OK)
        return KW_ERR;
    uint64_t h = kw_fkey_hash(k);
    kw_htab_slot *slot = kw_htab_find(&s->frames, h, kw_fkey_none, NULL);
    s->fkey[s->nfkey] = *k;
    kw_htab_fill(&s->frames, slot, h, s->nfkey++);
    return KW_OK;
}

static kw_status kw_share_load(kw_dbshare *s) {
    s->unloaded = false;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT _id, value, size FROM strings", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = NULL;
        bool packed = sqlite3_column_type(st, 1) == SQLITE_BLOB;
        size_t v = (size_t)sqlite3_column_int64(st, 0) * 2 + packed;
        if (kw_db_unpack(st, 1, &s->arena, &k) || !k || kw_symmap_put(&s->strs, k, v) != KW_OK)
            rc = SQLITE_NOMEM;
        else
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return KW_ERR;
    st = NULL;
    long long nf = kw_share_max(s->db, "SELECT count(*) FROM inline_frames");
    if (nf < 0 || (unsigned long long)nf >= SIZE_MAX / 4 ||
        kw_share_frame_room(s, (size_t)nf + 1024) != KW_OK)
        return KW_ERR;
    rc = sqlite3_prepare_v2(s->db,
                            "SELECT _id, file, function, line, \"column\", next FROM inline_frames",
                            -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        kw_dbfkey k = {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                       sqlite3_column_int64(st, 5), sqlite3_column_int64(st, 0),
                       sqlite3_column_int(st, 3),   sqlite3_column_int(st, 4)};
        rc = kw_share_frame_add(s, &k) == KW_OK ? SQLITE_OK : SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? KW_OK : KW_ERR;
}

/* The ids already stored, read in before the first string or chain is
 * interned (a run that writes nothing reads none). */
static bool kw_share_ready(kw_dbshare *s) {
    if (s->unloaded && kw_share_load(s) != KW_OK)
        s->bad = s->bad ? s->bad : "cannot read the shared strings";
    return !s->bad;
}

kw_status kw_db_share_writer(kw_dbshare **out, sqlite3 *db, bool load, const char **why) {
    kw_dbshare *s = calloc(1, sizeof *s);
    *out = s;
    if (!s) {
        *why = "out of memory";
        return KW_ERR;
    }
    kw_arena_init(&s->arena);
    kw_buf_init(&s->z);
    kw_symmap_init(&s->strs);
    kw_htab_init(&s->frames);
    s->db = db;
    if (sqlite3_prepare_v3(db, "INSERT INTO strings (value, size) VALUES (?, ?)", -1,
                           SQLITE_PREPARE_PERSISTENT, &s->str_ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db,
                           "INSERT INTO inline_frames (file, function, line, \"column\", next) "
                           "VALUES (?, ?, ?, ?, ?)",
                           -1, SQLITE_PREPARE_PERSISTENT, &s->frame_ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, "UPDATE strings SET value = ?, size = NULL WHERE _id = ?", -1,
                           SQLITE_PREPARE_PERSISTENT, &s->str_text, NULL) != SQLITE_OK) {
        *why = "cannot prepare a statement";
        return KW_ERR;
    }
    s->unloaded = load;
    return KW_OK;
}

void kw_db_share_free(kw_dbshare *s) {
    if (!s)
        return;
    sqlite3_finalize(s->str_ins);
    sqlite3_finalize(s->frame_ins);
    sqlite3_finalize(s->str_text);
    kw_db_share_detach(s);
    kw_symmap_free(&s->strs);
    kw_htab_free(&s->frames);
    free(s->fkey);
    kw_buf_free(&s->z);
    free(s->str);
    free(s->fr);
    kw_arena_free(&s->arena);
    free(s);
}

const char *kw_db_share_bad(const kw_dbshare *s) {
    return s->bad;
}

/* Step an INSERT (or UPDATE) of s: the row's id (1 for an UPDATE), 0 on an error. */
static long long kw_share_insert(kw_dbshare *s, sqlite3_stmt *st) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        s->bad = s->bad ? s->bad : "cannot write a shared string";
        return 0;
    }
    return st == s->str_text ? 1 : sqlite3_last_insert_rowid(s->db);
}

const void *kw_db_share_pack(kw_dbshare *s, const char *str, size_t n, size_t *zn) {
    uLongf bound = n > KW_DB_STR_PACK ? compressBound((uLong)n) : 0;
    kw_buf_reset(&s->z);
    char *zb = bound ? kw_buf_room(&s->z, bound) : NULL;
    if (!zb || compress2((Bytef *)zb, &bound, (const Bytef *)str, (uLong)n, 9) != Z_OK ||
        bound >= n)
        return NULL;
    *zn = bound;
    return zb;
}

long long kw_db_share_str(kw_dbshare *s, const char *str, bool pack) {
    if (s->unloaded && !kw_share_ready(s))
        return 0;
    size_t *have = kw_symmap_get(&s->strs, str);
    if (have && (*have & 1) && !pack) { /* a column that looks it up names it: text */
        sqlite3_bind_text(s->str_text, 1, str, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s->str_text, 2, (long long)(*have / 2));
        if (!kw_share_insert(s, s->str_text))
            return 0;
        *have &= ~(size_t)1;
    }
    if (have)
        return (long long)(*have / 2);
    size_t n = strlen(str), zn = 0;
    const void *zb = pack ? kw_db_share_pack(s, str, n, &zn) : NULL;
    if (zb) {
        sqlite3_bind_blob(s->str_ins, 1, zb, (int)zn, SQLITE_STATIC);
        sqlite3_bind_int64(s->str_ins, 2, (long long)n);
    } else {
        sqlite3_bind_text(s->str_ins, 1, str, (int)n, SQLITE_STATIC);
    }
    long long id = kw_share_insert(s, s->str_ins);
    const char *k = id ? kw_arena_strdup(&s->arena, str) : NULL;
    if (id && (!k || kw_symmap_put(&s->strs, k, (size_t)id * 2 + (zb != NULL)) != KW_OK)) {
        s->bad = s->bad ? s->bad : "out of memory";
        return 0;
    }
    return id;
}

long long kw_db_share_chain(kw_dbshare *s, const kw_type *sub, const void *v, size_t n) {
    if (s->unloaded && !kw_share_ready(s))
        return 0;
    long long next = 0;
    for (size_t i = n; i-- > 0;) { /* the outermost frame first: the others name it */
        kw_dbframe f;
        kw_frame_of(sub, (const unsigned char *)v + i * sub->size, &f);
        kw_dbfkey k = {f.file ? kw_db_share_str(s, f.file, false) : 0,
                       f.function ? kw_db_share_str(s, f.function, true) : 0,
                       next,
                       0,
                       f.line,
                       f.column};
        kw_htab_slot *slot = NULL;
        long long have = 0;
        if (kw_htab_reserve(&s->frames) != KW_OK) {
            s->bad = s->bad ? s->bad : "out of memory";
            return 0;
        }
        if ((have = kw_share_frame_find(s, &k, &slot))) {
            next = have;
            continue;
        }
        sqlite3_stmt *st = s->frame_ins;
        if (k.file)
            sqlite3_bind_int64(st, 1, k.file);
        if (k.function)
            sqlite3_bind_int64(st, 2, k.function);
        sqlite3_bind_int(st, 3, f.line);
        sqlite3_bind_int(st, 4, f.column);
        if (next)
            sqlite3_bind_int64(st, 5, next);
        k.id = kw_share_insert(s, st);
        if (!k.id || kw_share_frame_add(s, &k) != KW_OK) {
            s->bad = s->bad ? s->bad : "out of memory";
            return 0;
        }
        next = k.id;
    }
    return next;
}

/* ---- reading -------------------------------------------------------------------------------- */

static long long kw_share_max(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

const char *kw_db_unpack(sqlite3_stmt *st, int col, kw_arena *a, const char **out) {
    *out = NULL;
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_NULL)
        return NULL;
    if (type != SQLITE_BLOB) {
        const unsigned char *t = sqlite3_column_text(st, col);
        int n = sqlite3_column_bytes(st, col);
        if (!t || memchr(t, '\0', (size_t)n))
            return "a damaged string";
        return (*out = kw_arena_strndup(a, (const char *)t, (size_t)n)) ? NULL : "out of memory";
    }
    const void *z = sqlite3_column_blob(st, col);
    int zn = sqlite3_column_bytes(st, col);
    long long n = sqlite3_column_int64(st, col + 1);
    /* deflate expands at most about 1032:1 */
    if (!z || zn <= 0 || n <= 0 || n / 1032 > zn || n > (long long)1 << 30)
        return "a damaged compressed string";
    char *t = kw_arena_alloc_raw(a, (size_t)n + 1);
    if (!t)
        return "out of memory";
    uLongf got = (uLongf)n;
    if (uncompress((Bytef *)t, &got, z, (uLong)zn) != Z_OK || got != (uLongf)n ||
        memchr(t, '\0', (size_t)n))
        return "a damaged compressed string";
    t[n] = '\0';
    *out = t;
    return NULL;
}

/* The reader's arrays, one slot per id (the ids are rowids: their maximum is
 * one lookup). */
static kw_status kw_share_alloc(kw_dbshare **out, sqlite3 *db, const char **why) {
    kw_dbshare *s = calloc(1, sizeof *s);
    *out = s;
    *why = NULL;
    if (!s)
        return KW_ERR;
    kw_arena_init(&s->arena);
    long long ns = kw_share_max(db, "SELECT coalesce(max(_id), 0) FROM strings");
    long long nf = kw_share_max(db, "SELECT coalesce(max(_id), 0) FROM inline_frames");
    if (ns < 0 || nf < 0)
        return KW_ERR;
    /* ids are rowids: a count far above the rows is a damaged table */
    if (ns > (long long)1 << 31 || nf > (long long)1 << 31) {
        *why = "string ids out of range";
        return KW_ERR;
    }
    s->nstr = (size_t)ns + 1;
    s->nfr = (size_t)nf + 1;
    s->str = calloc(s->nstr, sizeof *s->str);
    s->fr = calloc(s->nfr, sizeof *s->fr);
    if (!s->str || !s->fr) {
        *why = "out of memory";
        return KW_ERR;
    }
    return KW_OK;
}

kw_status kw_db_share_lazy(kw_dbshare **out, sqlite3 *db, kw_arena *a, const char **why) {
    if (kw_share_alloc(out, db, why) != KW_OK)
        return KW_ERR;
    kw_dbshare *s = *out;
    s->ra = a;
    s->lazy = true;
    if (sqlite3_prepare_v2(db, "SELECT value, size FROM strings WHERE _id = ?", -1, &s->str_get,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT file, function, line, \"column\", next FROM inline_frames "
                           "WHERE _id = ?",
                           -1, &s->frame_get, NULL) != SQLITE_OK)
        return KW_ERR;
    return KW_OK;
}

void kw_db_share_detach(kw_dbshare *s) {
    if (!s)
        return;
    sqlite3_finalize(s->str_get);
    sqlite3_finalize(s->frame_get);
    s->str_get = s->frame_get = NULL;
    s->lazy = false;
}

/* String id read on demand into its slot (left NULL when not stored or damaged). */
static void kw_share_fetch_str(kw_dbshare *s, long long id) {
    sqlite3_bind_int64(s->str_get, 1, id);
    if (sqlite3_step(s->str_get) == SQLITE_ROW && kw_db_unpack(s->str_get, 0, s->ra, &s->str[id]))
        s->str[id] = NULL;
    sqlite3_reset(s->str_get);
}

/* Frame id read on demand (left not stored when it is not, or is damaged). */
static void kw_share_fetch_frame(kw_dbshare *s, long long id) {
    kw_dbframe *f = &s->fr[id];
    sqlite3_bind_int64(s->frame_get, 1, id);
    if (sqlite3_step(s->frame_get) == SQLITE_ROW) {
        long long file = sqlite3_column_int64(s->frame_get, 0);
        long long fn = sqlite3_column_int64(s->frame_get, 1);
        f->line = sqlite3_column_int(s->frame_get, 2);
        f->column = sqlite3_column_int(s->frame_get, 3);
        f->next = sqlite3_column_int64(s->frame_get, 4);
        sqlite3_reset(s->frame_get);
        f->file = file ? kw_db_share_get(s, file) : NULL;
        f->function = fn ? kw_db_share_get(s, fn) : NULL;
        /* as the whole read checks: strings stored, the outer frame earlier */
        f->stored = !(file && !f->file) && !(fn && !f->function) && f->next >= 0 && f->next < id;
    }
    sqlite3_reset(s->frame_get);
}

kw_status kw_db_share_reader(kw_dbshare **out, sqlite3 *db, kw_arena *a, const char **why) {
    if (kw_share_alloc(out, db, why) != KW_OK)
        return KW_ERR;
    kw_dbshare *s = *out;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT _id, value, size FROM strings", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
        if (id < 1 || id >= (long long)s->nstr) {
            *why = "a damaged string";
            break;
        }
        if ((*why = kw_db_unpack(st, 1, a, &s->str[id])))
            break;
        if (!s->str[id]) {
            *why = "a damaged string";
            break;
        }
    }
    sqlite3_finalize(st);
    if (*why || rc != SQLITE_DONE)
        return KW_ERR;
    st = NULL;
    rc = sqlite3_prepare_v2(
        db, "SELECT _id, file, function, line, \"column\", next FROM inline_frames", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
        if (id < 1 || id >= (long long)s->nfr) {
            *why = "a damaged frame";
            break;
        }
        kw_dbframe *f = &s->fr[id];
        long long file = sqlite3_column_int64(st, 1), fn = sqlite3_column_int64(st, 2);
        f->file = file ? kw_db_share_get(s, file) : NULL;
        f->function = fn ? kw_db_share_get(s, fn) : NULL;
        f->line = sqlite3_column_int(st, 3);
        f->column = sqlite3_column_int(st, 4);
        f->next = sqlite3_column_int64(st, 5);
        f->stored = true;
        /* the outer frame is written first: a chain ends (no cycle) */
        if ((file && !f->file) || (fn && !f->function) || f->next < 0 || f->next >= id) {
            *why = "a damaged frame";
            break;
        }
    }
    sqlite3_finalize(st);
    return !*why && rc == SQLITE_DONE ? KW_OK : KW_ERR;
}

const char *kw_db_share_get(const kw_dbshare *s, long long id) {
    if (!s || id <= 0 || (size_t)id >= s->nstr)
        return NULL;
    if (!s->str[id] && s->lazy) /* one thread reads a lazy share: its slots may fill */
        kw_share_fetch_str((kw_dbshare *)s, id);
    return s->str[id];
}

bool kw_db_share_chain_get(const kw_dbshare *s, long long id, const kw_type *sub, kw_arena *a,
                           void **v, size_t *n) {
    if (id <= 0 || (size_t)id >= s->nfr)
        return false;
    size_t len = 0;
    for (long long f = id; f; f = s->fr[f].next, len++) { /* next < f: it ends */
        if (!s->fr[f].stored && s->lazy)
            kw_share_fetch_frame((kw_dbshare *)s, f);
        if (!s->fr[f].stored)
            return false;
    }
    unsigned char *out = kw_arena_alloc(a, len * sub->size);
    if (!out)
        return false;
    size_t i = 0;
    for (long long f = id; f; f = s->fr[f].next)
        kw_frame_to(sub, out + i++ * sub->size, &s->fr[f]);
    *v = out;
    *n = len;
    return true;
}

/* ---- deleting what no row refers to, views ----------------------------------------------------
 */

kw_status kw_db_share_collect(sqlite3 *db, const kw_dbplan *pl) {
    kw_buf b;
    kw_buf_init(&b);
    /* the frames chains reach: their innermost, then each next */
    kw_buf_puts(&b, "WITH RECURSIVE live(id) AS (SELECT NULL");
    for (int i = 0; i < pl->n; i++)
        for (int k = 0; k < pl->tabs[i].nchains; k++)
            kw_buf_printf(&b, " UNION SELECT \"%s\" FROM \"%s\"", pl->tabs[i].chain_cols[k],
                          pl->tabs[i].raw);
    kw_buf_puts(&b, " UNION SELECT f.next FROM inline_frames f JOIN live ON f._id = live.id) "
                    "DELETE FROM inline_frames WHERE _id NOT IN (SELECT id FROM live WHERE id "
                    "IS NOT NULL);\n");
    /* (NOT IN a list holding NULL is never true: the NULLs left out) */
    kw_buf_puts(&b, "DELETE FROM strings WHERE _id NOT IN (SELECT id FROM (SELECT file AS id FROM "
                    "inline_frames UNION ALL SELECT function FROM inline_frames");
    for (int i = 0; i < pl->n; i++) {
        const kw_dbtab *t = &pl->tabs[i];
        const char *c = t->strs.ptr;
        /* one SELECT per column of the list "\"a\", \"b\"" */
        while (c && *c) {
            const char *e = strstr(c + 1, "\"");
            if (!e)
                break;
            kw_buf_printf(&b, " UNION ALL SELECT %.*s FROM \"%s\"", (int)(e + 1 - c), c, t->raw);
            c = e + 1;
            while (*c == ',' || *c == ' ')
                c++;
        }
    }
    kw_buf_puts(&b, ") WHERE id IS NOT NULL);\n");
    kw_status st = b.oom                                                    ? KW_ERR
                   : sqlite3_exec(db, b.ptr, NULL, NULL, NULL) == SQLITE_OK ? KW_OK
                                                                            : KW_ERR;
    kw_buf_free(&b);
    return st;
}

void kw_db_share_views_sql(kw_buf *b, const kw_dbplan *pl) {
    for (int i = 0; i < pl->n; i++) {
        const kw_dbtab *t = &pl->tabs[i];
        if (i == 0)
            kw_buf_printf(b,
                          "CREATE VIEW sidecars AS SELECT t._id, t.path, t.size, t.mtime_ns, "
                          "t.hash, t._ord, %s FROM _sidecars t;\n",
                          t->view.ptr);
        else
            kw_buf_printf(b,
                          "CREATE VIEW \"%s\" AS SELECT t._id, t._sidecar, t._parent, t._ord, %s "
                          "FROM \"%s\" t;\n",
                          t->name, t->view.ptr, t->raw);
        for (int k = 0; k < t->nchains; k++) {
            const kw_field *f = t->chains[k];
            const char *col = t->chain_cols[k];
            kw_buf_printf(b,
                          "CREATE VIEW \"%s_%s\" AS WITH RECURSIVE c(_sidecar, _parent, _ord, f) "
                          "AS (SELECT _sidecar, _id, 0, \"%s\" FROM \"%s\" WHERE \"%s\" IS NOT "
                          "NULL UNION ALL SELECT c._sidecar, c._parent, c._ord + 1, x.next FROM c "
                          "JOIN inline_frames x ON x._id = c.f WHERE x.next IS NOT NULL) SELECT "
                          "c._sidecar, c._parent, c._ord",
                          t->name, col, col, t->raw, col);
            for (size_t j = 0; j < f->sub->nfields; j++) {
                const kw_field *x = &f->sub->fields[j];
                if (x->kind == KW_F_LOC)
                    kw_buf_printf(
                        b,
                        ", (SELECT value FROM strings WHERE _id = x.file) AS \"%s_file\", "
                        "x.line AS \"%s_line\", x.\"column\" AS \"%s_column\"",
                        x->key, x->key, x->key);
                else if (x->kind == KW_F_STR)
                    kw_buf_printf(b, ", (SELECT value FROM strings WHERE _id = x.\"%s\") AS \"%s\"",
                                  x->key, x->key);
                else
                    kw_buf_printf(b, ", x.\"%s\"", x->key);
            }
            kw_buf_puts(b, " FROM c JOIN inline_frames x ON x._id = c.f;\n");
        }
    }
}
