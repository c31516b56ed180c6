/* kw_gather_triton.h: the Triton cache folders `kwalk index --triton-cache`
 * reads after the sidecars (triton/kw_triton.h, docs/triton.md), one record
 * per folder, on the pool's threads (each runs kwalk-irfacts on its .llir),
 * handed on in order. */
#ifndef KW_GATHER_TRITON_H
#define KW_GATHER_TRITON_H

#include "cli/kw_gather.h"
#include "index/kw_index.h"

/* The Triton cache folders, read one by one after the sidecars. */
typedef struct kw_tcache {
    kw_triton_paths entries;
    KW_ARRAY(kw_triton_prefix) prefixes;
} kw_tcache;

/* Add a cache folder unless its real path was added before (f->seen). */
int kw_gather_triton_add(kw_found *f, kw_tcache *tc, const char *path);
/* Read every folder of tc and hand each record to add(actx, i, sc, err) in
 * order; the exit status (the one-line error printed). */
int kw_gather_triton_read(const kw_tcache *tc,
                          int (*add)(void *actx, size_t i, kw_sidecar *sc, kw_err *err),
                          void *actx);
/* The same, each record adopted by ix. */
int kw_gather_triton_index(kw_index *ix, const kw_tcache *tc);

#endif
