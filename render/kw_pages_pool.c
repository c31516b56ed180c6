/* kw_pages_pool.c: the page workers of render --all and site
 * (kw_pages_pool.h), on the ordered thread pool of common/kw_pool.h. The
 * listings come through the model (model/kw_model_pages.h): nothing of
 * sidecar/ or index/ is included here. */
#include "render/kw_pages_pool.h"

#include <stdlib.h>

#include "common/kw_fs.h"
#include "common/kw_pool.h"
#include "model/kw_decode.h"
#include "model/kw_model_pages.h"

typedef struct kw_pages_worker {
    kw_render r;
    kw_srcs srcs;
    kw_buf page;
    kw_arena listing; /* the page's kernel's listings and line tables */
} kw_pages_worker;

typedef struct kw_pages_run {
    const kw_pages_pool *p;
    kw_model *m;
    kw_pages_worker *w;
    kw_status *st;
    kw_err *err;
} kw_pages_run;

/* Pages are rendered in chunks of KW_PAGES_CHUNK: one pool item per chunk
 * keeps the hand-offs between threads rare (a page takes tens of
 * microseconds). */
enum { KW_PAGES_CHUNK = 32 };

static void kw_pages_one(kw_pages_run *run, kw_pages_worker *w, unsigned worker, size_t i) {
    kw_buf_reset(&w->page);
    kw_model_pages_saved *saved;
    kw_status *st = &run->st[i];
    *st = kw_model_pages_listings(run->m, worker, i, &w->listing, &saved, &run->err[i]);
    if (*st == KW_OK)
        *st = run->p->page(&w->r, i, &w->page, &run->err[i]);
    kw_model_pages_listings_done(run->m, i, saved, &w->listing);
    if (*st != KW_OK)
        return;
    char *path = kw_arena_printf(&w->r.scratch, "%s/%s", run->p->dir, run->m->kernels.v[i].page);
    if (!path)
        *st = kw_fail(&run->err[i], "%s: out of memory", run->p->dir);
    else
        *st = kw_fs_write(path, w->page.ptr ? w->page.ptr : "", w->page.len, &run->err[i]);
}

static void kw_pages_work(void *ctx, unsigned worker, size_t chunk) {
    kw_pages_run *run = ctx;
    size_t n = run->m->kernels.n;
    for (size_t i = chunk * KW_PAGES_CHUNK; i < n && i < (chunk + 1) * KW_PAGES_CHUNK; i++) {
        kw_pages_one(run, &run->w[worker], worker, i);
        if (run->st[i] != KW_OK)
            break;
    }
}

/* The first failed page of the chunk stops the run. */
static int kw_pages_done(void *ctx, size_t chunk) {
    kw_pages_run *run = ctx;
    size_t n = run->m->kernels.n;
    for (size_t i = chunk * KW_PAGES_CHUNK; i < n && i < (chunk + 1) * KW_PAGES_CHUNK; i++)
        if (run->st[i] != KW_OK)
            return (int)i + 1;
    return 0;
}

kw_status kw_pages_pool_run(const kw_pages_pool *p, kw_err *err) {
    const kw_render *proto = p->proto;
    kw_model *m = proto->m;
    unsigned threads = p->threads ? p->threads : 1;
    kw_pages_run run = {p, m, calloc(threads, sizeof(kw_pages_worker)),
                        calloc(m->kernels.n + 1, sizeof(kw_status)),
                        calloc(m->kernels.n + 1, sizeof(kw_err))};
    kw_status st = KW_OK;
    if (!run.w || !run.st || !run.err) {
        st = kw_fail(err, "out of memory");
    } else if (kw_decode_all(m->decode, 0, err) != KW_OK) { /* the code objects first */
        st = KW_ERR;
    } else {
        for (unsigned t = 0; t < threads; t++) {
            kw_pages_worker *w = &run.w[t];
            kw_srcs_init(&w->srcs);
            kw_buf_init(&w->page);
            kw_arena_init(&w->listing);
            kw_render_init(&w->r, m, &w->srcs, proto->providers, proto->gpus, proto->notes,
                           proto->o);
        }
        size_t chunks = (m->kernels.n + KW_PAGES_CHUNK - 1) / KW_PAGES_CHUNK;
        int failed =
            kw_pool_run(chunks, threads, 4 * (size_t)threads, kw_pages_work, kw_pages_done, &run);
        if (failed) {
            *err = run.err[failed - 1];
            st = run.st[failed - 1];
        }
        for (unsigned t = 0; t < threads; t++) {
            kw_render_free(&run.w[t].r);
            kw_srcs_free(&run.w[t].srcs);
            kw_buf_free(&run.w[t].page);
            kw_arena_free(&run.w[t].listing);
        }
    }
    free(run.w);
    free(run.st);
    free(run.err);
    return st;
}
