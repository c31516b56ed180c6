/* kw_pool.h: running independent jobs on a few threads while their results
 * are consumed in order: `kwalk index` parses sidecars in parallel and adds
 * them to the index in name order (so the index is the same whatever the
 * thread count); the page workers of `kwalk render --all` and `kwalk site`
 * (render/kw_pages_pool.h) render and write pages in parallel.
 *
 * work(ctx, worker, i) runs on a worker thread (worker in [0, threads)) for
 * every i in [0, n); done(ctx, i) runs on the calling thread, in order of i,
 * after work(ctx, ·, i) finished; at most `window` items are worked on ahead
 * of the last one done. A nonzero return of done stops the run (items already
 * started still finish; their done is not called). Returns that value, or 0.
 * With threads <= 1 everything runs on the calling thread. */
#ifndef KW_POOL_H
#define KW_POOL_H

#include <stddef.h>

typedef void (*kw_pool_work_fn)(void *ctx, unsigned worker, size_t i);
typedef int (*kw_pool_done_fn)(void *ctx, size_t i);

int kw_pool_run(size_t n, unsigned threads, size_t window, kw_pool_work_fn work,
                kw_pool_done_fn done, void *ctx);
/* Threads to use: $KWALK_JOBS when set (1..64), else the online CPUs (at most 8). */
unsigned kw_pool_threads(void);

#endif
