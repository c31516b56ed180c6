/* kw_pool.c: the ordered thread pool of kw_pool.h, on POSIX threads. */
#define _POSIX_C_SOURCE 200809L
#include "common/kw_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct kw_pool {
    pthread_mutex_t mu;
    pthread_cond_t ready_cv, space_cv;
    size_t n, window, next, consumed;
    size_t awaited;         /* the item the calling thread waits for, or SIZE_MAX */
    unsigned space_waiters; /* workers waiting for the window to move */
    bool stop;
    unsigned char *ready;
    kw_pool_work_fn work;
    void *ctx;
} kw_pool;

typedef struct kw_pool_worker {
    kw_pool *p;
    unsigned id;
} kw_pool_worker;

static void *kw_pool_main(void *arg) {
    kw_pool_worker *w = arg;
    kw_pool *p = w->p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && p->next < p->n && p->next >= p->consumed + p->window) {
            p->space_waiters++;
            pthread_cond_wait(&p->space_cv, &p->mu);
            p->space_waiters--;
        }
        if (p->stop || p->next >= p->n) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        p->work(p->ctx, w->id, i);
        pthread_mutex_lock(&p->mu);
        p->ready[i] = 1;
        if (i == p->awaited) /* wake the caller only for the item it waits on */
            pthread_cond_signal(&p->ready_cv);
        pthread_mutex_unlock(&p->mu);
    }
}

static int kw_pool_serial(size_t n, kw_pool_work_fn work, kw_pool_done_fn done, void *ctx) {
    for (size_t i = 0; i < n; i++) {
        work(ctx, 0, i);
        int rc = done(ctx, i);
        if (rc)
            return rc;
    }
    return 0;
}

int kw_pool_run(size_t n, unsigned threads, size_t window, kw_pool_work_fn work,
                kw_pool_done_fn done, void *ctx) {
    if (threads <= 1 || n <= 1)
        return kw_pool_serial(n, work, done, ctx);
    if (threads > n)
        threads = (unsigned)n;
    kw_pool p = {
        .n = n, .window = window ? window : 1, .awaited = SIZE_MAX, .work = work, .ctx = ctx};
    p.ready = calloc(n, 1);
    pthread_t *tid = calloc(threads, sizeof(pthread_t));
    kw_pool_worker *ws = calloc(threads, sizeof(kw_pool_worker));
    if (!p.ready || !tid || !ws) {
        free(p.ready);
        free(tid);
        free(ws);
        return kw_pool_serial(n, work, done, ctx);
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.ready_cv, NULL);
    pthread_cond_init(&p.space_cv, NULL);
    unsigned started = 0;
    for (; started < threads; started++) {
        ws[started].p = &p;
        ws[started].id = started;
        if (pthread_create(&tid[started], NULL, kw_pool_main, &ws[started]) != 0)
            break;
    }
    int rc = 0;
    if (!started) { /* no thread at all: do it here */
        rc = kw_pool_serial(n, work, done, ctx);
    } else {
        for (size_t i = 0; i < n && !rc; i++) {
            pthread_mutex_lock(&p.mu);
            p.awaited = i;
            while (!p.ready[i])
                pthread_cond_wait(&p.ready_cv, &p.mu);
            p.awaited = SIZE_MAX;
            p.consumed = i + 1;
            if (p.space_waiters)
            pthread_cond_broadcast(&p.space_cv);
            pthread_mutex_unlock(&p.mu);
            rc = done(ctx, i);
        }
        pthread_mutex_lock(&p.mu);
        p.stop = true;
        pthread_cond_broadcast(&p.space_cv);
        pthread_mutex_unlock(&p.mu);
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_cond_destroy(&p.ready_cv);
    pthread_cond_destroy(&p.space_cv);
    pthread_mutex_destroy(&p.mu);
    free(p.ready);
    free(tid);
    free(ws);
    return rc;
}

unsigned kw_pool_threads(void) {
    const char *env = getenv("KWALK_JOBS");
    if (env && *env) {
        long v = strtol(env, NULL, 10);
        if (v >= 1 && v <= 64)
            return (unsigned)v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
}
