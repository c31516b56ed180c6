/* kw_index_db_plan.c: the tables of the index database, derived from the
 * sidecar schema tables (kw_type / kw_field): the plan of tables and columns,
 * the one walk that binds or reads a row's columns in that order, and the
 * creation and identity checks of a database (docs/index-schema.md). */
#include "index/kw_index_db.h"
#include "sidecar/kw_call_graph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a column is stored: an integer, a string by its id in `strings`, a
 * string as it is (the listing), a chain by its innermost frame's id. */
typedef enum kw_colkind { KW_COL_INT, KW_COL_STR, KW_COL_TEXT, KW_COL_CHAIN } kw_colkind;

static void kw_plan_col(kw_dbplan *pl, kw_dbtab *tab, const char *name, const char *sfx,
                        kw_colkind kind) {
    if (tab->ncols) {
        kw_buf_puts(&tab->decl, ", ");
        kw_buf_puts(&tab->names, ", ");
        kw_buf_puts(&tab->view, ", ");
    }
    kw_buf_printf(&tab->decl, "\"%s%s\"%s", name, sfx, kind == KW_COL_TEXT ? "" : " INTEGER");
    kw_buf_printf(&tab->names, "\"%s%s\"", name, sfx);
    if (kind == KW_COL_STR)
        kw_buf_printf(&tab->strs, "%s\"%s%s\"", tab->strs.len ? ", " : "", name, sfx);
    if (kind == KW_COL_STR)
        kw_buf_printf(&tab->view, "(SELECT value FROM strings WHERE _id = t.\"%s%s\") AS \"%s%s\"",
                      name, sfx, name, sfx);
    else
        kw_buf_printf(&tab->view, "t.\"%s%s\"", name, sfx);
    tab->ncols++;
    pl->oom |= tab->decl.oom || tab->names.oom || tab->view.oom || tab->strs.oom;
}

bool kw_db_plain_text(const kw_field *f) {
    return f->kind == KW_F_STR && !strcmp(f->key, "isa");
}

bool kw_db_chain_field(const kw_field *f) {
    return f->kind == KW_F_LIST && !strcmp(f->key, "inlined_at");
}

static int kw_plan_add(kw_dbplan *pl, int parent, const kw_field *f, size_t off, const char *name);

/* The columns of record type t embedded at offset off of the table's element. */
static void kw_plan_cols(kw_dbplan *pl, int ti, const kw_type *t, size_t off, const char *prefix) {
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        kw_dbtab *tab = &pl->tabs[ti];
        char name[128];
        snprintf(name, sizeof name, "%s%s", prefix, f->key);
        switch (f->kind) {
        case KW_F_STR:
        case KW_F_SCALAR:
            if (kw_db_plain_text(f)) { /* the text, compressed when long, and its length */
                kw_plan_col(pl, tab, name, "", KW_COL_TEXT);
                kw_plan_col(pl, tab, name, "_size", KW_COL_INT);
            } else {
                kw_plan_col(pl, tab, name, "", KW_COL_STR);
            }
            break;
        case KW_F_INT:
        case KW_F_TRI:
        case KW_F_LL:
        case KW_F_BYTES:
        case KW_F_BOOL:
            kw_plan_col(pl, tab, name, "", KW_COL_INT);
            break;
        case KW_F_STRS: /* the JSON array text, a string (kw_index_db_list.c) */
        case KW_F_INTS:
            kw_plan_col(pl, tab, name, "", KW_COL_STR);
            break;
        case KW_F_LOC:
            kw_plan_col(pl, tab, name, "_file", KW_COL_STR);
            kw_plan_col(pl, tab, name, "_line", KW_COL_INT);
            kw_plan_col(pl, tab, name, "_column", KW_COL_INT);
            break;
        case KW_F_VAL:
            kw_plan_col(pl, tab, name, "_kind", KW_COL_INT);
            kw_plan_col(pl, tab, name, "", KW_COL_INT);
            kw_plan_col(pl, tab, name, "_expr", KW_COL_STR);
            kw_plan_col(pl, tab, name, "_why", KW_COL_STR);
            break;
        case KW_F_DIM3:
            kw_plan_col(pl, tab, name, "_expr", KW_COL_STR);
            kw_plan_col(pl, tab, name, "_x", KW_COL_INT);
            kw_plan_col(pl, tab, name, "_y", KW_COL_INT);
            kw_plan_col(pl, tab, name, "_z", KW_COL_INT);
            break;
        case KW_F_DIM1:
            kw_plan_col(pl, tab, name, "_expr", KW_COL_STR);
            kw_plan_col(pl, tab, name, "", KW_COL_INT);
            break;
        case KW_F_MAP: {
            char sub[132];
            snprintf(sub, sizeof sub, "%s_", name);
            kw_plan_cols(pl, ti, f->sub, off + f->off, sub);
            break;
        }
        case KW_F_LIST:
            if (kw_db_chain_field(f)) { /* one column: the chain's id (kw_index_db_share.c) */
                if (tab->nchains >= 4) {
                    pl->oom = true;
                    break;
                }
                snprintf(tab->chain_cols[tab->nchains], sizeof tab->chain_cols[0], "%s", name);
                tab->chains[tab->nchains++] = f;
                kw_plan_col(pl, tab, name, "", KW_COL_CHAIN);
                break;
            }
            /* fall through */
        case KW_F_COUNTS:
        case KW_F_KEYED:
        case KW_F_PTR:
            if (kw_plan_add(pl, ti, f, off + f->off, name) < 0)
                pl->oom = true;
            break;
        }
    }
}

static int kw_plan_add(kw_dbplan *pl, int parent, const kw_field *f, size_t off, const char *name) {
    if (pl->n >= KW_DB_MAXTABS)
        return -1;
    kw_dbtab *tab = &pl->tabs[pl->n];
    memset(tab, 0, sizeof *tab);
    kw_buf_init(&tab->decl);
    kw_buf_init(&tab->names);
    kw_buf_init(&tab->view);
    kw_buf_init(&tab->strs);
    tab->parent = parent;
    tab->f = f;
    tab->off = off;
    if (parent > 0) { /* the top level's tables and the root: the field's name */
        char full[sizeof tab->name];
        int w = snprintf(full, sizeof full, "%s_%s", pl->tabs[parent].name, name);
        if (w < 0 || (size_t)w >= sizeof full)
            return -1; /* a table name longer than the plan holds */
        memcpy(tab->name, full, sizeof full);
    } else {
        snprintf(tab->name, sizeof tab->name, "%s", name);
    }
    tab->raw[0] = '_';
    memcpy(tab->raw + 1, tab->name, sizeof tab->name); /* raw holds name and the '_' */
    if (!f || f->kind == KW_F_LIST || f->kind == KW_F_KEYED || f->kind == KW_F_PTR) {
        tab->kind = KW_DB_RECORD;
        tab->t = f ? f->sub : &kw_t_sidecar;
        tab->esize = tab->t->size;
    } else {
        tab->kind = KW_DB_COUNTS;
        tab->esize = kw_schema_elem_size(f);
    }
    return pl->n++;
}

static uint64_t kw_plan_hash(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

kw_status kw_db_plan_make(kw_dbplan *pl, kw_err *err) {
    memset(pl, 0, sizeof *pl);
    kw_plan_add(pl, -1, NULL, 0, "sidecars");
    /* each unit's device call graph, once (kernels keep calls only where its
     * walk does not give them back: sidecar/kw_call_graph.h) */
    int g = kw_plan_add(pl, 0, &kw_t_call_graph.fields[0], 0, "device_calls");
    if (g > 0)
        pl->tabs[g].graph = true;
    /* breadth first: a table's columns, then its children's */
    for (int i = 0; i < pl->n && !pl->oom; i++) {
        kw_dbtab *tab = &pl->tabs[i];
        if (tab->kind == KW_DB_RECORD)
            kw_plan_cols(pl, i, tab->t, 0, "");
        else {
            kw_plan_col(pl, tab, "key", "", KW_COL_STR);
            kw_plan_col(pl, tab, "n", "", KW_COL_INT);
        }
    }
    /* the call graphs' tables hold long C++ names that pages read and
     * queries join on (equal strings are one row: the same value) but do not
     * compare with text: stored compressed */
    for (int i = 0; i < pl->n; i++) {
        const char *nm = pl->tabs[i].name;
        pl->tabs[i].pack = !strncmp(nm, "device_calls", 12) || !strcmp(nm, "kernels_calls") ||
                           !strncmp(nm, "host_calls", 10);
    }
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < pl->n; i++) {
        h = kw_plan_hash(h, pl->tabs[i].name, strlen(pl->tabs[i].name) + 1);
        h = kw_plan_hash(h, pl->tabs[i].decl.ptr ? pl->tabs[i].decl.ptr : "", pl->tabs[i].decl.len);
    }
    pl->fingerprint = h;
    if (pl->oom) {
        kw_db_plan_free(pl);
        return kw_fail(err, "index database: out of memory (or more than %d tables)",
                       KW_DB_MAXTABS);
    }
    return KW_OK;
}

int kw_db_table(const kw_dbplan *pl, const char *name) {
    for (int ti = 0; ti < pl->n; ti++)
        if (!strcmp(pl->tabs[ti].name, name))
            return ti;
    return -1;
}

void kw_db_plan_free(kw_dbplan *pl) {
    for (int i = 0; i < pl->n; i++) {
        kw_buf_free(&pl->tabs[i].decl);
        kw_buf_free(&pl->tabs[i].names);
        kw_buf_free(&pl->tabs[i].view);
        kw_buf_free(&pl->tabs[i].strs);
    }
    pl->n = 0;
}

/* ---- One row's columns ---------------------------------------------------------------------- */

/* A string column stored in its row (the listing): two columns, the text
 * (zlib-compressed when that is shorter, a BLOB) and its length when
 * compressed. */
static void kw_cur_plain(kw_dbcur *c, const char **s) {
    if (c->mode == KW_DB_BIND) {
        size_t n = *s ? strlen(*s) : 0, zn = 0;
        const void *z = *s ? kw_db_share_pack(c->share, *s, n, &zn) : NULL;
        if (z) {
            sqlite3_bind_blob(c->st, c->col++, z, (int)zn, SQLITE_TRANSIENT);
            sqlite3_bind_int64(c->st, c->col++, (long long)n);
        } else {
            if (*s)
                sqlite3_bind_text(c->st, c->col++, *s, (int)n, SQLITE_STATIC);
            else
                sqlite3_bind_null(c->st, c->col++);
            sqlite3_bind_null(c->st, c->col++);
        }
        return;
    }
    const char *why = kw_db_unpack(c->st, c->col, c->arena, s);
    c->col += 2;
    if (why)
        c->bad = c->bad ? c->bad : why;
}

/* A string column: its id in `strings` (every string is stored once, and
 * read once: the rows share the reader's copy). */
static long long kw_cur_str_id(kw_dbcur *c, const char *s, bool pack) {
    if (!c->strs)
        return kw_db_share_str(c->share, s, pack);
    uintptr_t a = (uintptr_t)s;
    size_t h = (size_t)((a >> 3) ^ (a >> 15)) & (KW_DB_STRS - 1);
    __typeof__(c->strs->e[0]) *e = &c->strs->e[h];
    if (e->s == s && (pack || e->text)) /* what kw_db_share_str would answer */
        return e->id;
    long long id = kw_db_share_str(c->share, s, pack);
    if (id > 0) {
        e->text = !pack || (e->s == s && e->text);
        e->s = s;
        e->id = id;
    }
    return id;
}

static void kw_cur_text(kw_dbcur *c, const char **s, bool pack) {
    if (c->mode == KW_DB_BIND) {
        if (*s)
            sqlite3_bind_int64(c->st, c->col++, kw_cur_str_id(c, *s, pack));
        else
            sqlite3_bind_null(c->st, c->col++);
        return;
    }
    int col = c->col++;
    *s = NULL;
    if (sqlite3_column_type(c->st, col) == SQLITE_NULL)
        return;
    if (!(*s = kw_db_share_get(c->share, sqlite3_column_int64(c->st, col))))
        c->bad = c->bad ? c->bad : "a string id that is not stored";
}

/* An inlined_at chain (field f, the array at p): one column, the id of its
 * innermost frame. A reader without chains leaves it empty. */
static void kw_cur_chain(kw_dbcur *c, const kw_field *f, void *p) {
    kw_anyarr *arr = p;
    if (c->mode == KW_DB_BIND) {
        long long id = arr->n ? kw_db_share_chain(c->share, f->sub, arr->v, arr->n) : 0;
        if (id > 0)
            sqlite3_bind_int64(c->st, c->col++, id);
        else
            sqlite3_bind_null(c->st, c->col++);
        return;
    }
    int col = c->col++;
    memset(arr, 0, sizeof *arr);
    if (!c->chains || sqlite3_column_type(c->st, col) == SQLITE_NULL)
        return;
    void *v = NULL;
    size_t n = 0;
    if (!kw_db_share_chain_get(c->share, sqlite3_column_int64(c->st, col), f->sub, c->arena, &v,
                               &n)) {
        c->bad = c->bad ? c->bad : "a damaged inlined_at chain";
        return;
    }
    arr->v = v;
    arr->n = arr->cap = n;
}

/* A list of strings or integers (field f, the array at p): one column, the
 * id of its JSON array text (NULL: empty). A reader without chains leaves
 * a list no page shows empty. */
static void kw_cur_list(kw_dbcur *c, const kw_field *f, void *p) {
    kw_anyarr *arr = p;
    if (c->mode == KW_DB_BIND) {
        if (!arr->n) {
            sqlite3_bind_null(c->st, c->col++);
            return;
        }
        kw_buf b;
        kw_buf_init(&b);
        kw_db_list_json(&b, f, arr);
        long long id = b.oom ? 0 : kw_db_share_str(c->share, kw_buf_str(&b), false);
        kw_buf_free(&b);
        if (id > 0) {
            sqlite3_bind_int64(c->st, c->col++, id);
        } else { /* (kw_db_share_bad says why when the share failed) */
            c->col++;
            c->bad = c->bad ? c->bad : "out of memory";
        }
        return;
    }
    int col = c->col++;
    memset(arr, 0, sizeof *arr);
    if ((!c->chains && kw_db_list_unshown(f)) || sqlite3_column_type(c->st, col) == SQLITE_NULL)
        return;
    const char *s = kw_db_share_get(c->share, sqlite3_column_int64(c->st, col));
    const char *why = s ? kw_db_list_parse(s, f, c->arena, arr) : "a string id that is not stored";
    if (why)
        c->bad = c->bad ? c->bad : why;
}

/* An integer column; NULL reads as dflt, and with nullable a value below 0
 * is written as NULL. */
static long long kw_cur_ll(kw_dbcur *c, long long v, bool nullable, long long dflt) {
    if (c->mode == KW_DB_BIND) {
        if (nullable && v < 0)
            sqlite3_bind_null(c->st, c->col++);
        else
            sqlite3_bind_int64(c->st, c->col++, v);
        return v;
    }
    int col = c->col++;
    if (sqlite3_column_type(c->st, col) == SQLITE_NULL)
        return dflt;
    return sqlite3_column_int64(c->st, col);
}

static void kw_cur_int(kw_dbcur *c, int *p) {
    long long v = kw_cur_ll(c, *p, false, 0);
    if (c->mode == KW_DB_READ) {
        if (v < -0x7FFFFFFFLL - 1 || v > 0x7FFFFFFFLL)
            c->bad = c->bad ? c->bad : "integer out of range";
        *p = (int)v;
    }
}

static void kw_cur_fields(kw_dbcur *c, const kw_type *t, unsigned char *base, bool in_map) {
    bool rd = c->mode == KW_DB_READ;
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        void *p = base + f->off;
        switch (f->kind) {
        case KW_F_STR:
        case KW_F_SCALAR:
            if (kw_db_plain_text(f))
                kw_cur_plain(c, (const char **)p);
            else /* an IR location's function (a map's) is a long C++ name too */
                kw_cur_text(c, (const char **)p,
                            c->pack || (in_map && !strcmp(f->key, "function")));
            if (rd && (f->flags & KW_F_REQUIRED) && !*(const char **)p)
                c->bad = c->bad ? c->bad : "missing required string";
            break;
        case KW_F_INT:
            kw_cur_int(c, p);
            break;
        case KW_F_TRI: {
            long long v = kw_cur_ll(c, *(int *)p, false, -1);
            if (rd)
                *(int *)p = v < 0 ? -1 : v > 0;
            break;
        }
        case KW_F_LL: {
            long long v = kw_cur_ll(c, *(long long *)p, false, -1);
            if (rd)
                *(long long *)p = v;
            break;
        }
        case KW_F_BYTES: {
            long long v = kw_cur_ll(c, *(long long *)p, true, -1);
            if (rd)
                *(long long *)p = v < 0 ? -1 : v;
            break;
        }
        case KW_F_BOOL: {
            long long v = kw_cur_ll(c, *(bool *)p, false, 0);
            if (rd)
                *(bool *)p = v != 0;
            break;
        }
        case KW_F_LOC: {
            kw_loc *l = p;
            kw_cur_text(c, &l->file, false);
            kw_cur_int(c, &l->line);
            kw_cur_int(c, &l->column);
            break;
        }
        case KW_F_VAL: {
            kw_val *v = p;
            long long k = kw_cur_ll(c, v->kind, false, KW_VAL_ABSENT);
            if (rd && (k < 0 || k > KW_VAL_ABSENT))
                c->bad = c->bad ? c->bad : "bad value kind";
            if (rd)
                v->kind = (kw_val_kind)(k < 0 || k > KW_VAL_ABSENT ? KW_VAL_ABSENT : k);
            v->num = kw_cur_ll(c, v->num, false, 0);
            kw_cur_text(c, &v->expr, false);
            kw_cur_text(c, &v->why, false);
            break;
        }
        case KW_F_DIM3:
        case KW_F_DIM1: {
            kw_config_item *ci = p;
            int dims = f->kind == KW_F_DIM3 ? 3 : 1;
            kw_cur_text(c, &ci->expr, false);
            if (rd) {
                ci->dims = dims;
                ci->has_value = sqlite3_column_type(c->st, c->col) != SQLITE_NULL;
            }
            for (int k = 0; k < dims; k++) {
                if (!rd && !ci->has_value)
                    sqlite3_bind_null(c->st, c->col++);
                else
                    ci->value[k] = kw_cur_ll(c, ci->value[k], false, 0);
            }
            break;
        }
        case KW_F_MAP:
            kw_cur_fields(c, f->sub, p, true);
            if (rd)
                kw_schema_normalize(f->sub, p);
            break;
        case KW_F_LIST:
            if (kw_db_chain_field(f))
                kw_cur_chain(c, f, p);
            break;
        case KW_F_STRS:
        case KW_F_INTS:
            kw_cur_list(c, f, p);
            break;
        default: /* other arrays and pointers: rows of a child table */
            break;
        }
    }
}

void kw_db_row(kw_dbcur *c, const kw_dbtab *tab, void *elem) {
    switch (tab->kind) {
    case KW_DB_RECORD:
        c->pack = tab->pack;
        kw_cur_fields(c, tab->t, elem, false);
        if (c->mode == KW_DB_READ)
            kw_schema_normalize(tab->t, elem);
        break;
    case KW_DB_COUNTS: {
        kw_count *k = elem;
        kw_cur_text(c, &k->key, false);
        if (c->mode == KW_DB_READ && !k->key)
            c->bad = c->bad ? c->bad : "missing string";
        k->n = kw_cur_ll(c, k->n, false, 0);
        break;
    }
    }
}

/* ---- Creation and checks -------------------------------------------------------------------- */

const char *kw_db_msg(sqlite3 *db, char buf[256]) {
    snprintf(buf, 256, "%s", db ? sqlite3_errmsg(db) : "out of memory");
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

kw_status kw_db_exec(sqlite3 *db, const char *name, const char *sql, kw_err *err) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return KW_OK;
    char m[256];
    return kw_fail(err, "%s: %s", name, kw_db_msg(db, m));
}

/* Views with friendly names for what users ask (docs/index-schema.md). */
static const char kw_db_views[] =
#include "index/kw_index_db_views.inc"
    ;

bool kw_db_any(sqlite3 *db, char *sql) {
    sqlite3_stmt *st = NULL;
    bool yes = sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    sqlite3_free(sql);
    return yes;
}

bool kw_db_int(sqlite3 *db, const char *sql, long long none, long long *out) {
    sqlite3_stmt *st = NULL;
    *out = none;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return false;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

/* Whether table raw of db has a row (db NULL: taken as yes). */
static bool kw_db_has_rows(sqlite3 *db, const char *raw) {
    return !db || kw_db_any(db, sqlite3_mprintf("SELECT 1 FROM \"%w\" LIMIT 1", raw));
}

/* The indexes of plan pl's tables, as SQL, into b: of the tables of db that
 * have rows (an empty table's index would be a page of nothing; a later
 * update that fills it adds it). */
static void kw_db_indexes_sql(kw_buf *b, const kw_dbplan *pl, sqlite3 *db) {
    for (int i = 1; i < pl->n; i++) {
        const kw_dbtab *t = &pl->tabs[i];
        if (!kw_db_has_rows(db, t->raw))
            continue;
        /* the top level's rows by _sidecar (their _parent), the others' by
         * _parent (a sidecar's rows are deleted through their parents') */
        if (t->parent > 0)
            kw_buf_printf(b, "CREATE INDEX IF NOT EXISTS \"%s_parent\" ON \"%s\"(_parent);\n",
                          t->name, t->raw);
        else
            kw_buf_printf(b, "CREATE INDEX IF NOT EXISTS \"%s_sidecar\" ON \"%s\"(_sidecar);\n",
                          t->name, t->raw);
    }
    /* a page's kernel by symbol or printed name, and its template's kernels
     * (kw_index_db_only.c) */
    kw_buf_puts(b, "CREATE INDEX IF NOT EXISTS kernels_symbol ON _kernels(symbol);\n"
                   "CREATE INDEX IF NOT EXISTS kernels_name ON _kernels(\"name\");\n"
                   "CREATE INDEX IF NOT EXISTS kernels_group ON _kernels(coalesce(\"template\", "
                   "\"name\", symbol));\n"
                   "CREATE INDEX IF NOT EXISTS launches_kernel ON _launches(kernel);\n"
                   /* a page's host records (kw_index_db_host.c): its launches by
                    * printed name and ASM kernel name, the calls up from them */
                   "CREATE INDEX IF NOT EXISTS launches_kernel_name ON _launches(kernel_name);\n"
                   "CREATE INDEX IF NOT EXISTS launches_asm_kernel ON _launches(asm_kernel);\n"
                   "CREATE INDEX IF NOT EXISTS launches_asm_choices_candidates_asm_kernel ON "
                   "_launches_asm_choices_candidates(asm_kernel);\n"
                   "CREATE INDEX IF NOT EXISTS host_calls_callee ON _host_calls(callee);\n"
                   "CREATE INDEX IF NOT EXISTS host_calls_caller ON _host_calls(caller);\n"
                   "CREATE INDEX IF NOT EXISTS entries_function_symbol ON "
                   "_entries(function_symbol);\n"
                   /* the names a question asks for, to their string ids: by
                    * length, which finds a name among few rows and keeps the
                    * index a few bytes a string (names of composable_kernel
                    * are kilobytes: an index of the values doubled the file) */
                   "CREATE INDEX IF NOT EXISTS strings_length ON strings(length(value));\n");
    if (kw_db_has_rows(db, KW_DB_LINES_PACKED))
        kw_buf_puts(b, "CREATE INDEX IF NOT EXISTS \"" KW_DB_LINES_PACKED
                       "_sidecar\" ON \"" KW_DB_LINES_PACKED "\"(_sidecar);\n");
}

kw_status kw_db_create(sqlite3 *db, const kw_dbplan *pl, bool indexes, const char *name,
                       kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_buf_printf(&b, "PRAGMA application_id = %d;\n", KW_DB_APP_ID);
    kw_buf_puts(&b, "CREATE TABLE kwalk_meta (key TEXT PRIMARY KEY, value TEXT);\n");
    for (int i = 0; i < pl->n; i++) {
        const kw_dbtab *t = &pl->tabs[i];
        if (i == 0)
            kw_buf_printf(&b,
                          "CREATE TABLE _sidecars (_id INTEGER PRIMARY KEY, path TEXT NOT NULL "
                          "UNIQUE, size INTEGER, mtime_ns INTEGER, hash TEXT, _ord INTEGER, %s);\n",
                          t->decl.ptr);
        else
            kw_buf_printf(
                &b,
                "CREATE TABLE \"%s\" (_id INTEGER PRIMARY KEY, _sidecar INTEGER NOT NULL, "
                "_parent INTEGER NOT NULL, _ord INTEGER NOT NULL, %s);\n",
                t->raw, t->decl.ptr);
    }
    kw_db_share_tables_sql(&b);
    /* page readers' copy of the line tables (kw_index_db_lines.c) */
    kw_buf_puts(&b, "CREATE TABLE \"" KW_DB_LINES_PACKED "\" (_id INTEGER PRIMARY KEY, _sidecar "
                    "INTEGER NOT NULL, data BLOB NOT NULL);\n");
    if (indexes)
        kw_db_indexes_sql(&b, pl, NULL);
    kw_db_share_views_sql(&b, pl);
    kw_db_list_views_sql(&b, pl);
    kw_buf_puts(&b, kw_db_views);
    kw_buf_printf(&b,
                  "INSERT INTO kwalk_meta VALUES ('kwalk_index', '%d'), ('kwalk_schema', '%d'), "
                  "('layout', '%016llx');\n",
                  KW_INDEX_DB_VERSION, KW_SCHEMA_VERSION, (unsigned long long)pl->fingerprint);
    kw_status st =
        b.oom ? kw_fail(err, "%s: out of memory", name) : kw_db_exec(db, name, b.ptr, err);
    kw_buf_free(&b);
    return st;
}

kw_status kw_db_create_indexes(sqlite3 *db, const kw_dbplan *pl, const char *name, kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_db_indexes_sql(&b, pl, db);
    kw_status st =
        b.oom ? kw_fail(err, "%s: out of memory", name) : kw_db_exec(db, name, b.ptr, err);
    kw_buf_free(&b);
    return st;
}

/* The meta table's value of key, as text in buf ("" when absent). */
static bool kw_db_meta(sqlite3 *db, const char *key, char *buf, size_t n) {
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT value FROM kwalk_meta WHERE key = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    bool ok = true;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        snprintf(buf, n, "%s", v ? (const char *)v : "");
    } else if (rc != SQLITE_DONE) {
        ok = false;
    }
    sqlite3_finalize(st);
    return ok;
}

kw_status kw_db_check(sqlite3 *db, const kw_dbplan *pl, const char *name, kw_err *err) {
    char m[256];
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL);
    long long app = -1;
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        app = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return kw_fail(err, "%s: corrupt kwalk index (%s); rebuild it with 'kwalk index'", name,
                       kw_db_msg(db, m));
    if (app != KW_DB_APP_ID)
        return kw_fail(err, "%s: an SQLite database, not a kwalk index", name);
    char v[64];
    if (!kw_db_meta(db, "kwalk_index", v, sizeof v))
        return kw_fail(err, "%s: corrupt kwalk index (%s); rebuild it with 'kwalk index'", name,
                       kw_db_msg(db, m));
    if (atoi(v) != KW_INDEX_DB_VERSION)
        return kw_fail(err, "%s: unsupported kwalk_index %s (this kwalk reads %d)", name,
                       v[0] ? v : "missing", KW_INDEX_DB_VERSION);
    if (!kw_db_meta(db, "kwalk_schema", v, sizeof v) || atoi(v) != KW_SCHEMA_VERSION)
        return kw_fail(err, "%s: unsupported kwalk_schema %s (this kwalk reads %d)", name,
                       v[0] ? v : "missing", KW_SCHEMA_VERSION);
    char want[32];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)pl->fingerprint);
    if (!kw_db_meta(db, "layout", v, sizeof v) || strcmp(v, want))
        return kw_fail(err,
                       "%s: written by a kwalk build with another record layout; rebuild it with "
                       "'kwalk index'",
                       name);
    return KW_OK;
}
