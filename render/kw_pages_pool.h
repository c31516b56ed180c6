/* kw_pages_pool.h: the page workers of `kwalk render --all` and `kwalk
 * site`: every kernel instantiation's page rendered and written as
 * DIR/PAGE (the model's page names, kw_pages.h) on a few threads
 * (common/kw_pool.h), each with its own render context and source cache.
 * The pool takes a model cli/ opened (the index it was built from open for
 * reading), read-only once every launch's paths are cached
 * (kw_model_cache_paths), but for the listings: the load leaves the ISA
 * listings and line tables in the database, and each page reads its
 * kernel's through the model (kw_model_pages_listings) on its worker's own
 * connection, into the worker's arena, freed once the page is written, so
 * that a run never holds more than a page's listings per thread. Includes
 * nothing of sidecar/ or index/. */
#ifndef KW_PAGES_POOL_H
#define KW_PAGES_POOL_H

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "render/kw_render.h"

/* One page: kernel ki's page into out (kw_render_kernel, kw_html_page). */
typedef kw_status (*kw_pages_page_fn)(kw_render *r, size_t ki, kw_buf *out, kw_err *err);

typedef struct kw_pages_pool {
    const kw_render *proto;  /* model, providers, hardware, notes and options of every worker */
    const char *dir;         /* the pages are written as DIR/PAGE */
    kw_pages_page_fn page;   /* renders one page */
    unsigned threads;        /* workers (kw_pool_threads) */
} kw_pages_pool;

/* Render and write every page of proto->m; the first failure (in page
 * order) in *err. */
kw_status kw_pages_pool_run(const kw_pages_pool *p, kw_err *err);

#endif
