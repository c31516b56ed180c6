/* kw_index.h: the kwalk index, one database file gathering the sidecars of a
 * build (written by `kwalk index`, read by every other kwalk command). It
 * holds one kernel table, unique by device symbol with the archs of all
 * sidecars unioned (a kernel with internal linkage: unique by symbol and
 * translation unit, kw_kernel.tu), and one record per translation unit with that unit's
 * launches, entry points and host calls.
 *
 * On disk it has two forms with the same content: packed (binary, the
 * default: loads 10,000 kernels in tens of milliseconds) and YAML (readable,
 * about 50x slower to load). Readers take either. Both are documented in
 * docs/sidecar-schema.md ("The index"). */
#ifndef KW_INDEX_H
#define KW_INDEX_H

#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_symmap.h"

#define KW_INDEX_VERSION 1
/* Where `kwalk index` writes and the other commands look by default. */
#define KW_INDEX_DEFAULT_PATH "kwalk-index.db"

typedef enum kw_index_format {
    KW_INDEX_PACKED = 0, /* binary, fast to load */
    KW_INDEX_YAML = 1
} kw_index_format;

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

/* Write the index: YAML text, or the packed form. */
kw_status kw_index_emit(const kw_index *ix, kw_buf *out, kw_err *err);
kw_status kw_index_encode(const kw_index *ix, kw_buf *out, kw_err *err);
/* Write atomically to path in the given form. */
kw_status kw_index_write_file(const kw_index *ix, const char *path, kw_index_format format,
                             kw_err *err);

/* Read an index. ix is initialized by the call (free any previous contents
 * first); on failure it is left empty and err holds one line, "<name>: ...".
 * kw_index_parse reads the YAML form, kw_index_decode the packed form,
 * kw_index_load and kw_index_read_file either (by its first bytes). */
kw_status kw_index_parse(kw_index *ix, const char *name, const char *text, size_t len, kw_err *err);
kw_status kw_index_decode(kw_index *ix, const char *name, const void *data, size_t len,
                          kw_err *err);
kw_status kw_index_load(kw_index *ix, const char *name, const void *data, size_t len, kw_err *err);
kw_status kw_index_read_file(kw_index *ix, const char *path, kw_err *err);

#endif
