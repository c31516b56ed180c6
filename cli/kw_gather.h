/* kw_gather.h: the sidecars `kwalk index` reads (cmd_index.c): each PATH
 * given is a sidecar file, an ELF file or archive holding embedded sidecars
 * (codeobj/kw_co_embedded.h), or a directory searched recursively for
 * *.kwalk.yaml, *.kwalk.yaml.zst and for embedded sidecars in *.o, *.a, *.so
 * and *.so.N files (entries sorted by name, symbolic links to directories not
 * followed; objects without any skipped, unreadable ones with a warning). A
 * file reached twice (same real path) is read once. The Triton cache folders
 * are kw_gather_triton.h, the index built from both kw_gather_build.h. */
#ifndef KW_GATHER_H
#define KW_GATHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"
#include "common/kw_symmap.h"
#include "triton/kw_triton.h"

/* Where a sidecar found is read from: a whole file, or a record embedded in
 * one (the byte range of its payload). */
typedef struct kw_found_src {
    const char *file;
    bool record;
    uint64_t off;
    size_t len;
    const char *object; /* a record of an ELF file (not an archive): that file,
                         * which the listings are read back from (it is where
                         * the code is now, whatever the sidecar says) */
} kw_found_src;

/* The sidecars found, in order: their names (paths.v[i]: the file, or for a
 * record FILE, FILE(MEMBER) with #K when the ELF file holds several), where
 * they are read from (src.v[i]), and their real paths for deduplication. */
typedef struct kw_found {
    kw_arena arena;
    KW_ARRAY(const char *) paths;
    KW_ARRAY(kw_found_src) src;
    kw_symmap seen; /* real path (a record: "real path@offset") -> 1 */
} kw_found;

/* The --map-prefix rewrites of a run. */
typedef struct kw_prefixes {
    const kw_triton_prefix *v;
    size_t n;
} kw_prefixes;

/* Sidecars are parsed on a few threads (kw_pool.h) and added to the index in
 * the order found, so the index does not depend on the thread count. */
typedef struct kw_slot {
    kw_sidecar sc;
    kw_status st;
    kw_err err;
    const char *isa_note; /* why listings were not read back (sc's arena) */
} kw_slot;

/* Add the sidecars of path (a file or a directory) to f; the exit status
 * (the one-line error printed). */
int kw_gather(kw_found *f, const char *path);
/* A found sidecar's bytes (a whole file, or an embedded record's zstd
 * frame), malloc'ed and NUL-terminated. */
kw_status kw_gather_read(const kw_found *f, size_t i, char **text, size_t *len, kw_err *err);

#endif
