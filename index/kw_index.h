/* kw_index.h: the kwalk index, one database file gathering the sidecars of a
 * build (written by `kwalk index`, read by every other kwalk command). It
 * holds one kernel table, unique by device symbol with the archs of all
 * sidecars unioned (a kernel with internal linkage: unique by symbol and
 * translation unit, kw_kernel.tu), and one record per translation unit with that unit's
 * launches, entry points and host calls.
 *
 * On disk it is an SQLite database (docs/index-schema.md) holding every
 * sidecar's records as they are, one row per record, and updated
 * incrementally; reading it merges them as kw_index_add does. It can also be
 * exported as YAML (docs/sidecar-schema.md, "The index"), which readers take
 * too. */
#ifndef KW_INDEX_H
#define KW_INDEX_H

#include "sidecar/kw_sidecar.h"
#include "common/kw_symmap.h"

#define KW_INDEX_VERSION 1
/* Where `kwalk index` writes and the other commands look by default. */
#define KW_INDEX_DEFAULT_PATH "kwalk.db"

/* One sidecar's translation unit and its host-side records. */
typedef struct kw_index_tu {
    const char *sidecar; /* the sidecar file it came from, as kwalk index found it */
    kw_producer producer;
    kw_tu tu;
    KW_ARRAY(kw_launch) launches;
    KW_ARRAY(kw_entry) entries;
    KW_ARRAY(kw_host_call) host_calls;
} kw_index_tu;

typedef struct kw_index {
    kw_arena arena;
    kw_producer producer; /* the kwalk that wrote the index */
    KW_ARRAY(kw_index_tu) tus;
    KW_ARRAY(kw_kernel) kernels; /* unique by kw_kernel_key (symbol, or symbol and tu) */
    kw_symmap by_symbol;         /* kw_kernel_key -> index in kernels */
    kw_symmap tu_by_sidecar;     /* kw_index_tu.sidecar -> index in tus */
    struct kw_index_later *later; /* kw_index_read_file_later's readers, or NULL */
    bool kernels_some; /* kw_index_read_file_only read some kernels' rows, not every one's */
} kw_index;

void kw_index_init(kw_index *ix);
void kw_index_free(kw_index *ix);

/* Add a sidecar read from path: its kernels are merged into the kernel table
 * (kw_sidecar_merge_kernels' rules), the rest becomes a new translation unit.
 * Everything is copied into the index's arena; sc can be freed afterwards. */
kw_status kw_index_add(kw_index *ix, const kw_sidecar *sc, const char *path, kw_err *err);
/* The same without copying: sc's arena moves into the index and sc is left
 * empty (free it as usual). On error sc may be partly taken. */
kw_status kw_index_adopt(kw_index *ix, kw_sidecar *sc, const char *path, kw_err *err);

/* The kernel of a device symbol with external linkage, NULL when the index has none. */
const kw_kernel *kw_index_kernel(const kw_index *ix, const char *symbol);
/* The kernel a launch of translation unit tu runs: the unit's own kernel of
 * that symbol when it has internal linkage, else the one of the build. */
const kw_kernel *kw_index_kernel_in(const kw_index *ix, const char *symbol, const kw_index_tu *tu);

/* The translation unit of a kernel with internal linkage (kw_kernel.tu); NULL
 * for one with external linkage. */
const kw_index_tu *kw_index_kernel_unit(const kw_index *ix, const kw_kernel *k);

/* Write the index as YAML text (the export), or atomically to a file. */
kw_status kw_index_emit(const kw_index *ix, kw_buf *out, kw_err *err);
kw_status kw_index_write_yaml(const kw_index *ix, const char *path, kw_err *err);

/* Read an index. ix is initialized by the call (free any previous contents
 * first); on failure it is left empty and err holds one line, "<name>: ...".
 * kw_index_parse reads the YAML form, kw_index_db_read the database,
 * kw_index_read_file either (by the file's first bytes). */
kw_status kw_index_parse(kw_index *ix, const char *name, const char *text, size_t len, kw_err *err);
kw_status kw_index_db_read(kw_index *ix, const char *path, kw_err *err);
kw_status kw_index_read_file(kw_index *ix, const char *path, kw_err *err);

/* kw_index_read_file reading from the database only what a question about
 * the kernels of the n device symbols (or printed names) needs (one page,
 * `kwalk list`; n may be 0): those kernels whole, in every translation
 * unit, and the device call graphs of their units; of the host records
 * (launches, entry points, host calls), with n > 0 those of their launches
 * (the launches, their guards, ..., the host calls and entry points above
 * them: kw_index_db_host.c), with n == 0 (the list) every launch, entry
 * point and host call without what hangs below them (but a launch's ASM
 * kernels). Of the other
 * kernels: with every, or where no kernel is chosen or one chosen is a
 * trampoline, every kernel's own record, its archs without their listings
 * and its kernel struct's template arguments (so that picking a kernel by
 * name, template or arch sees the whole build); else only those of the
 * chosen kernels' templates (the kernels of the same template, or printed
 * name where there is none: their model groups and families are whole), and
 * ix->kernels_some is set, and of the translation units only those the
 * rows read belong to. A YAML index is read whole. (kw_index_db_only.c) */
kw_status kw_index_read_file_only(kw_index *ix, const char *path, const char *const *symbols,
                                  size_t n, bool every, kw_err *err);

/* ---- Listings read later (kw_index_db_later.c) ----------------------------------------------- */

/* kw_index_read_file without the ISA listings and line tables when path is
 * the database (they are most of a big build's index, and a command that
 * writes a page per kernel needs one kernel's at a time): an arch that has
 * either keeps its row (kw_kernel_arch.db_row), an empty listing ("") and no
 * lines until kw_index_read_listing reads them. Nothing a page does not
 * show is read at all: no inlined_at chain (of a line row or an IR record:
 * pages give the innermost location) and no access's depends_on.
 * `readers` connections are opened in the load's read transaction, so they
 * read the same state of the database (none: a command that shows no
 * listing). A YAML index is read whole. */
kw_status kw_index_read_file_later(kw_index *ix, const char *path, unsigned readers, kw_err *err);
/* Read arch a's listing and line table (without inlined_at) on connection
 * `reader` (< readers; one thread at a time each) into arena, replacing
 * a->isa and a->lines.
 * KW_OK and nothing done when a's were read with the rest. */
kw_status kw_index_read_listing(const kw_index *ix, unsigned reader, kw_kernel_arch *a,
                                kw_arena *arena, kw_err *err);

/* What a kernel's archs held before kw_index_kernel_listings replaced their
 * listings and line tables. */
typedef struct kw_index_saved_listing {
    const char *isa;
    KW_ARRAY(kw_isa_line) lines;
} kw_index_saved_listing;
/* Read the listings and line tables of kernel k's archs on connection
 * `reader` into arena, for one page: *saved (in arena) holds what the archs
 * held, for kw_index_kernel_listings_done, which puts it back (only the page
 * of k reads them meanwhile) and frees arena. */
kw_status kw_index_kernel_listings(const kw_index *ix, unsigned reader, kw_kernel *k,
                                   kw_arena *arena, kw_index_saved_listing **saved, kw_err *err);
void kw_index_kernel_listings_done(kw_kernel *k, const kw_index_saved_listing *saved,
                                   kw_arena *arena);

/* ---- Writing the database (kw_index_db_write.c) ---------------------------------------------- */

/* One run of `kwalk index` on the database at path: begin, then per sidecar
 * in order either keep (stored and unchanged) or put (written anew), then
 * commit, which deletes the sidecars given neither, all in one transaction.
 * A sidecar is known by its path as given (kw_index_tu.sidecar). */
typedef struct kw_index_db kw_index_db;
typedef struct kw_index_db_counts {
    size_t sidecars, kernels, launches, entries;
} kw_index_db_counts;

kw_status kw_index_db_begin(kw_index_db **db, const char *path, const kw_producer *producer,
                            kw_err *err);
/* Is path stored, and with which size, mtime and content hash? */
bool kw_index_db_stored(kw_index_db *db, const char *path, long long *size, long long *mtime_ns,
                        uint64_t *hash);
/* Keep the stored records of path, now at position ord, with this size, mtime and hash. */
kw_status kw_index_db_keep(kw_index_db *db, const char *path, long long size, long long mtime_ns,
                           uint64_t hash, size_t ord, kw_err *err);
/* Store sc as the records of path (replacing any), at position ord; size < 0
 * when the records do not come from one file (a Triton cache folder). */
kw_status kw_index_db_put(kw_index_db *db, const char *path, const kw_sidecar *sc, long long size,
                          long long mtime_ns, uint64_t hash, size_t ord, kw_err *err);
/* Delete what was not kept or put, commit, and count (n may be NULL). db is
 * freed either way. */
kw_status kw_index_db_commit(kw_index_db *db, kw_index_db_counts *n, kw_err *err);
/* Give up: nothing of this run is written. db is freed. */
void kw_index_db_abort(kw_index_db *db);
/* Write a new database at path (replacing any) holding sidecars scs, named
 * names, in that order, written by producer: the whole run above in one call
 * (tests, tools). */
kw_status kw_index_db_write(const char *path, const kw_producer *producer,
                            const kw_sidecar *const *scs, const char *const *names, size_t n,
                            kw_err *err);
/* The content hash stored for a sidecar. */
uint64_t kw_index_hash(const void *data, size_t n);

#endif
