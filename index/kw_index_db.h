/* kw_index_db.h: internal interface of the index's SQLite database
 * (docs/index-schema.md), shared by kw_index_db_plan.c (the tables derived
 * from the sidecar schema tables), kw_index_db_write.c and kw_index_db_read.c.
 *
 * Every record type reachable from kw_t_sidecar is a table: the root table
 * `sidecars` has one row per sidecar; a list, keyed map or pointer field of a
 * record is a child table named <parent table>_<field> (the top level's lists
 * drop the prefix: `kernels`, `launches`, ...) with the columns _id, _sidecar
 * (the root row), _parent (the _id of the parent row) and _ord (the position
 * in the parent's list); scalar fields are columns; embedded mappings are
 * flattened into columns named <field>_<member>.
 *
 * Shared things are stored once (index version 4): a table's rows are in
 * "_<name>" and every string column holds an id into `strings` (except the
 * ISA listing, kernels_archs.isa, read on its own by page readers); an
 * `inlined_at` chain is one column, the id of its innermost frame in
 * `inline_frames` (each frame names the next outer one: chains share their
 * outer frames). A view named <name> gives each table's rows with its
 * strings, and a view <name>_inlined_at each chain's frames as rows, so SQL
 * reads the tables as before (kw_index_db_share.c). */
#ifndef KW_INDEX_DB_H
#define KW_INDEX_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/kw_symmap.h"
#include "index/kw_index.h"
#include "sidecar/kw_schema.h"

enum { KW_DB_MAXTABS = 128 };

/* What the rows of a table hold. */
typedef enum kw_dbkind {
    KW_DB_RECORD, /* a record of type t (LIST, KEYED, PTR; the root: kw_t_sidecar) */
    KW_DB_COUNTS  /* a kw_count: columns key, n (a list of strings or integers is a
                   * column of its record: kw_index_db_list.c) */
} kw_dbkind;

typedef struct kw_dbtab {
    char name[128];
    int parent;        /* the parent table; -1 for the root */
    const kw_field *f; /* the parent's field holding the rows (NULL for the root) */
    size_t off;        /* that field's offset in the parent's element */
    kw_dbkind kind;
    const kw_type *t;          /* KW_DB_RECORD: the record type */
    size_t esize;              /* element size */
    int ncols;                 /* data columns */
    kw_buf decl;               /* "\"a\" TEXT, \"b\" INTEGER" */
    kw_buf names;              /* "\"a\", \"b\"" */
    kw_buf view;               /* the view's columns: "t.\"a\", (SELECT ...) AS \"b\"" */
    char raw[130];             /* the table of its rows: "_" name */
    const kw_field *chains[4]; /* its inlined_at fields (one column each) */
    char chain_cols[4][128];   /* their columns */
    int nchains;
    bool graph;  /* device_calls: its parent element is the sidecar's kw_call_graph */
    bool pack;   /* a call graph's table: its long strings stored compressed */
    kw_buf strs; /* its string columns: "\"a\", \"b\"" */
} kw_dbtab;

typedef struct kw_dbplan {
    kw_dbtab tabs[KW_DB_MAXTABS];
    int n;
    uint64_t fingerprint; /* of the table names, columns and their types */
    bool oom;
} kw_dbplan;

/* Make the plan (tabs[0] is the root, every parent before its children). */
kw_status kw_db_plan_make(kw_dbplan *pl, kw_err *err);
void kw_db_plan_free(kw_dbplan *pl);
/* The plan's table called name ("kernels_archs"), or -1. */
int kw_db_table(const kw_dbplan *pl, const char *name);

/* Whether field f is a string stored as it is (the listing), an inlined_at
 * chain stored as one column. */
bool kw_db_plain_text(const kw_field *f);
bool kw_db_chain_field(const kw_field *f);

/* Column walks over the data columns of one row, in plan order. */
typedef enum kw_dbmode { KW_DB_BIND, KW_DB_READ } kw_dbmode;
typedef struct kw_dbshare kw_dbshare;
/* BIND: the ids of the strings bound lately, by their address (one sidecar's
 * strings, which its aliases share: kw_sidecar_parse_str), so that a string
 * bound again skips kw_db_share_str's hashing and comparing. text: the id was
 * asked for without pack (its text row is stored). Emptied when the strings
 * it points to may be freed (kw_index_db_put). */
enum { KW_DB_STRS = 4096 };
typedef struct kw_dbstrs {
    struct {
        const char *s;
        long long id;
        bool text;
    } e[KW_DB_STRS];
} kw_dbstrs;

typedef struct kw_dbcur {
    kw_dbmode mode;
    sqlite3_stmt *st;
    int col;           /* next column (BIND: 1-based parameter; READ: 0-based column) */
    kw_arena *arena;   /* READ: where strings go */
    const char *bad;   /* READ: first problem */
    kw_dbshare *share; /* BIND: where strings and chains get their ids; READ: what ids name */
    bool chains;       /* READ: resolve inlined_at chains and read the lists no page
                        * shows (else left empty) */
    bool pack;         /* BIND: long strings of this row may be stored compressed */
    kw_dbstrs *strs;   /* BIND: the ids of strings bound lately, or NULL */
} kw_dbcur;
/* Bind (BIND) or read (READ) the data columns of an element of table tab. */
void kw_db_row(kw_dbcur *c, const kw_dbtab *tab, void *elem);

/* The database's identity: PRAGMA application_id and the meta table's keys. */
#define KW_DB_APP_ID 0x6B77616C /* "kwal" */
/* 3: kernels_archs_lines_packed; 4: strings, chains and call graphs stored once; 5: no
 * listing of a code object a unit names (a page decodes it: model/kw_decode.h); 6: a list
 * of strings or integers is one column (its JSON array text), and no listing of a Triton
 * cache's .hsaco either */
#define KW_INDEX_DB_VERSION 6

/* SQLite's message for db's last error on one line (a message may quote a
 * corrupt schema's text): control characters become '?'. In buf. */
const char *kw_db_msg(sqlite3 *db, char buf[256]);
/* Run SQL; on error fail with "<name>: <what>: <sqlite message>". */
kw_status kw_db_exec(sqlite3 *db, const char *name, const char *sql, kw_err *err);
/* Whether query sql (from sqlite3_mprintf, freed here; NULL: out of memory,
 * taken as no) gives db a row. */
bool kw_db_any(sqlite3 *db, char *sql);
/* The integer in the first column of query sql's first row on db, into
 * *out; none when the query gives no row. False, *out none, when the query
 * cannot be prepared or fails. */
bool kw_db_int(sqlite3 *db, const char *sql, long long none, long long *out);
/* Create the tables, views and (when indexes) indexes of plan pl in an
 * empty database. A database filled anew is faster to fill without its
 * indexes: kw_db_create_indexes adds them once the rows are in. */
kw_status kw_db_create(sqlite3 *db, const kw_dbplan *pl, bool indexes, const char *name,
                       kw_err *err);
/* (those of the tables that have rows, where they are missing) */
kw_status kw_db_create_indexes(sqlite3 *db, const kw_dbplan *pl, const char *name, kw_err *err);
/* Check application_id, kwalk_index, kwalk_schema and the layout of an open
 * database: KW_OK, or an error saying what (not an index, other version). */
kw_status kw_db_check(sqlite3 *db, const kw_dbplan *pl, const char *name, kw_err *err);

/* ---- Shared strings and chains (kw_index_db_share.c) ---- */

/* Writing: strings and frames get ids, new ones inserted into db (the ids
 * already stored read in first when load is true). */
kw_status kw_db_share_writer(kw_dbshare **out, sqlite3 *db, bool load, const char **why);
/* Reading: every string and frame of db, by id. */
kw_status kw_db_share_reader(kw_dbshare **out, sqlite3 *db, kw_arena *a, const char **why);
/* Reading on demand: each string and frame read from db when first asked
 * (into a), for a read of few rows on one thread (kw_index_db_only.c);
 * kw_db_share_detach before db is closed ends it (what was read stays). */
kw_status kw_db_share_lazy(kw_dbshare **out, sqlite3 *db, kw_arena *a, const char **why);
void kw_db_share_detach(kw_dbshare *s);
void kw_db_share_free(kw_dbshare *s);
/* The id of string s (writing; 0 with *bad set on an error); stored
 * compressed when long and pack is true, as text when any column that
 * names it has pack false. */
long long kw_db_share_str(kw_dbshare *s, const char *str, bool pack);
/* str (n bytes) zlib-compressed into the writer's buffer, *zn bytes; NULL
 * when it is short or does not shrink (then stored as text). */
const void *kw_db_share_pack(kw_dbshare *s, const char *str, size_t n, size_t *zn);
/* Column col of st, text or a compressed BLOB whose length is column col + 1,
 * into *out (in a; NULL for NULL); NULL, or what is wrong. */
const char *kw_db_unpack(sqlite3_stmt *st, int col, kw_arena *a, const char **out);
/* The string of id (reading; NULL for an id not stored). */
const char *kw_db_share_get(const kw_dbshare *s, long long id);
/* The id of the chain of n frames at v (elements of type sub), innermost
 * first (writing; 0: none). */
long long kw_db_share_chain(kw_dbshare *s, const kw_type *sub, const void *v, size_t n);
/* The chain of id into *v / *n (elements of type sub, in a); false: a
 * damaged chain. */
bool kw_db_share_chain_get(const kw_dbshare *s, long long id, const kw_type *sub, kw_arena *a,
                           void **v, size_t *n);
/* The first error of the writer's inserts (NULL: none). */
const char *kw_db_share_bad(const kw_dbshare *s);
/* Delete the strings and frames no row refers to (after a sidecar's rows
 * were deleted). */
kw_status kw_db_share_collect(sqlite3 *db, const kw_dbplan *pl);
/* The SQL of the shared tables, and of the views over plan pl's tables. */
void kw_db_share_tables_sql(kw_buf *b);
void kw_db_share_views_sql(kw_buf *b, const kw_dbplan *pl);

/* ---- Lists of strings or integers (kw_index_db_list.c) ---- */

/* Whether field f is a list of strings or integers: one column of its
 * record, the id of its JSON array text in `strings` (NULL: empty). */
bool kw_db_list_field(const kw_field *f);
/* Whether no page shows list f (an access's depends_on): a load without
 * chains (kw_dbcur.chains false) leaves it empty. */
bool kw_db_list_unshown(const kw_field *f);
/* List arr of field f as its JSON array text, appended to b. */
void kw_db_list_json(kw_buf *b, const kw_field *f, const kw_anyarr *arr);
/* The JSON text s of kw_db_list_json back into *out (in a); NULL, or what
 * is wrong. */
const char *kw_db_list_parse(const char *s, const kw_field *f, kw_arena *a, kw_anyarr *out);
/* The views giving each list's values as rows (_sidecar, _parent, _ord,
 * value), named as their tables were before index version 6. */
void kw_db_list_views_sql(kw_buf *b, const kw_dbplan *pl);

/* ---- Packed line tables (kw_index_db_lines.c) ---- */

/* The table of each arch's line table in one BLOB (_id: the arch's row). */
#define KW_DB_LINES_PACKED "kernels_archs_lines_packed"
/* v[0, n) (offsets and locations, not the inlining chains) into out. */
kw_status kw_db_lines_pack(kw_buf *out, const kw_isa_line *v, size_t n, const char **why);
/* A BLOB of kw_db_lines_pack back into *out (n entries, in a; files shared
 * by their entries, no inlining chains); *why says what is wrong. */
kw_status kw_db_lines_unpack(const void *data, size_t len, kw_arena *a, kw_isa_line **out,
                             size_t *n, const char **why);

/* ---- Reading (kw_index_db_rows.c, kw_index_db_read.c) ---- */

/* The tables as read: per table, its elements (one block) and each row's
 * _id, _parent (the root: none) and _ord. */
typedef struct kw_dbread {
    unsigned char *block[KW_DB_MAXTABS];
    sqlite3_int64 *ids[KW_DB_MAXTABS];
    sqlite3_int64 *parents[KW_DB_MAXTABS];
    long long *ords[KW_DB_MAXTABS];
    size_t n[KW_DB_MAXTABS];
    const char **paths;           /* of the root rows */
    kw_dbshare *share;            /* the strings and frames the rows' ids name */
    struct kw_call_graph *graphs; /* each root row's device call graph (device_calls) */
    bool chains;                  /* resolve inlined_at chains (else left empty) */
} kw_dbread;

/* Step st (columns _id, then _parent, or path for the root, then _ord, then
 * table ti's data columns) into r's arrays for ti: at most cap rows, or as
 * many as there are when grow is true (not for the root); strings in a
 * (each string id read once, kw_dbshare); each row's _id also into its
 * element at row_off unless that is negative. *why says what is wrong with
 * the rows; NULL with KW_ERR: SQLite's error. */
kw_status kw_db_fill(sqlite3_stmt *st, size_t cap, bool grow, const kw_dbplan *pl, int ti,
                     kw_dbread *r, kw_arena *a, long row_off, const char **why);
/* The element of row `at` of table ti's parent table (for device_calls: the
 * sidecar's call graph). */
unsigned char *kw_db_parent_at(const kw_dbplan *pl, int ti, const kw_dbread *r, size_t at);
/* Hang the rows of table ti (not the root) on their parents' elements (the
 * parent table's rows in r); *why says what is wrong. */
kw_status kw_db_link(const kw_dbplan *pl, int ti, kw_dbread *r, const char **why);
/* The kernels a read is for (kw_index_read_file_only): their device symbols
 * (or printed names). every: every other kernel's own rows too (picking by
 * name sees the build); else, where the chosen kernels allow it, only the
 * rows of their templates' kernels, and *some says so (kw_index.kernels_some). */
typedef struct kw_dbonly {
    const char *const *symbols;
    size_t n;
    bool every;
    bool *some;
} kw_dbonly;
/* What temp.kw_only keeps under t (kw_index_db_only.c, kw_index_db_host.c):
 * the string ids of the symbols and names a read is for (and of the chosen
 * kernels' symbols), the rows of the chosen kernels' templates, the
 * launches whose own tables a page reads (those of its kernels), the host
 * functions above them (string ids). A table's chosen rows are kept under
 * its number, the rows read of an archs table under KW_ONLY_READ - its number. */
enum {
    KW_ONLY_SYMBOLS = -1,
    KW_ONLY_GROUP = -2,
    KW_ONLY_KEPT = -3,
    KW_ONLY_UP = -4,
    KW_ONLY_READ = -1000
};
/* Choose the host records a page of the kernels chosen in temp.kw_only
 * reads (kw_index_db_host.c): the rows of `launches`, `host_calls` and
 * `entries` under their table numbers, the launches kept (KW_ONLY_KEPT);
 * pick_all: also every launch that makes a kernel of its own in the model
 * (picking by name sees the whole build). */
kw_status kw_db_host_choose(sqlite3 *db, const kw_dbplan *pl, bool pick_all);
/* kw_index_db_read, leaving the listings for `readers` connections when
 * later is true (kw_index_read_file_later), or reading only what a question
 * about the kernels of `only` needs when that is not NULL. */
kw_status kw_index_db_read_in(kw_index *ix, const char *path, bool later, unsigned readers,
                              const kw_dbonly *only, kw_err *err);
/* Read the tables of pl for a question about `only`'s kernels on db, in its
 * read transaction (kw_index_db_only.c), and hang them on their parents. */
kw_status kw_db_only_tables(sqlite3 *db, const char *path, const kw_dbplan *pl,
                            const kw_dbonly *only, kw_dbread *r, kw_arena *a, kw_err *err);

/* ---- Listings read later (kw_index_db_later.c) ---- */

/* What a load leaves for later: the line table, and the listing column of
 * kernels_archs (archs_names lists that table's columns with the listing
 * replaced by "" where the arch has a listing or a line table, NULL
 * elsewhere). skip also marks the tables no page shows, read by neither
 * the load nor the readers (kw_index_db_later.c, kw_later_unshown). */
typedef struct kw_dblater {
    int archs, lines; /* the tables kernels_archs and kernels_archs_lines */
    bool skip[KW_DB_MAXTABS];
    kw_buf archs_names;
} kw_dblater;

/* Fill l from plan pl: false (and nothing to free) when pl has not these tables. */
bool kw_db_later_plan(kw_dblater *l, const kw_dbplan *pl);
void kw_db_later_free_plan(kw_dblater *l);
/* Open ix->later: `readers` connections to path in read transactions (begun
 * while the caller's still holds the state it read). */
kw_status kw_db_later_open(kw_index *ix, const char *path, unsigned readers, kw_err *err);
/* Free ix->later (kw_index_free). */
void kw_db_later_free(struct kw_index_later *later);

#endif
