/* kw_triton.h: Triton's cache as kwalk records (docs/triton.md): each cache
 * folder (one compiled specialization) becomes a sidecar holding one
 * `language: triton` kernel (docs/sidecar-schema.md, "Triton
 * specializations"): name, options and arch from NAME.json, definition and
 * signature from the TTIR, constexprs where the IR shows them, the code
 * object facts of the .hsaco through codeobj/. */
#ifndef KW_TRITON_H
#define KW_TRITON_H

#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

/* A path prefix the cache's locations are rewritten with: the tree that was
 * at `from` when Triton compiled (`/opt/aiter`) is at `to` now. */
typedef kw_path_prefix kw_triton_prefix;

/* kw_path_prefix_map (sidecar/kw_sidecar.h): path with the first prefix
 * that matches (whole path components) replaced. */
const char *kw_triton_map_path(kw_arena *a, const kw_triton_prefix *prefixes, size_t n,
                               const char *path);

typedef struct kw_triton_opts {
    const kw_triton_prefix *prefixes; /* the first whose `from` matches wins */
    size_t nprefixes;
    const char *version; /* kwalk's version, for producer */
    /* kwalk-irfacts, run on each folder's NAME.llir for the IR facts
     * (kw_triton_llir.c); NULL: not found, irfacts_why says why */
    const char *irfacts;
    const char *irfacts_why;
} kw_triton_opts;

typedef KW_ARRAY(const char *) kw_triton_paths;

/* The cache folders under dir, sorted: dir itself when it is one (it holds a
 * __grp__*.json), else each folder directly under it that is one. Paths in a. */
kw_status kw_triton_cache_entries(kw_arena *a, const char *dir, kw_triton_paths *out, kw_err *err);

/* Read the cache folder entry into sc (initialized and empty). */
kw_status kw_triton_cache_read(kw_sidecar *sc, const char *entry, const kw_triton_opts *o,
                               kw_err *err);

#endif
