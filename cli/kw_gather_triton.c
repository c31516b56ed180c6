/* kw_gather_triton.c: the Triton cache folders of `kwalk index`
 * (kw_gather_triton.h). */
#define _XOPEN_SOURCE 700 /* realpath, readlink */
#include "cli/kw_gather_triton.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kw_cli.h"
#include "common/kw_pool.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

int kw_gather_triton_add(kw_found *f, kw_tcache *tc, const char *path) {
    char *real = realpath(path, NULL);
    if (!real)
        return kw_cli_failf("%s: %s", path, strerror(errno));
    const char *key = kw_arena_printf(&f->arena, "triton:%s", real);
    free(real);
    if (!key)
        return kw_cli_failf("out of memory");
    if (kw_symmap_get(&f->seen, key))
        return KW_EXIT_OK;
    const char **slot = KW_PUSH(&f->arena, tc->entries);
    if (!slot || kw_symmap_put(&f->seen, key, 1) != KW_OK)
        return kw_cli_failf("out of memory");
    *slot = path;
    return KW_EXIT_OK;
}

static bool kw_irfacts_exec(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* The cache reader's options: the prefixes, and kwalk-irfacts for the IR
 * facts of each .llir: $KWALK_IRFACTS ("off": none), else the one beside this
 * kwalk (installed together), else a build tree's. */
static kw_triton_opts kw_tcache_opts(const kw_tcache *tc) {
    static char tool[4096];
    kw_triton_opts o = {tc->prefixes.v, tc->prefixes.n, KWALK_VERSION, NULL, NULL};
    const char *env = getenv("KWALK_IRFACTS");
    if (env && !strcmp(env, "off")) {
        o.irfacts_why = "not derived (KWALK_IRFACTS=off)";
        return o;
    }
    if (env && *env) {
        o.irfacts = env; /* given: used as is, its failure is the note */
        return o;
    }
    ssize_t n = readlink("/proc/self/exe", tool, sizeof tool - 1);
    char *slash = n > 0 ? (tool[n] = '\0', strrchr(tool, '/')) : NULL;
    if (slash && (size_t)(slash - tool) + sizeof "/kwalk-irfacts" <= sizeof tool) {
        strcpy(slash, "/kwalk-irfacts");
        if (kw_irfacts_exec(tool))
            o.irfacts = tool;
    }
#ifdef KWALK_BUILD_IRFACTS
    if (!o.irfacts && kw_irfacts_exec(KWALK_BUILD_IRFACTS))
        o.irfacts = KWALK_BUILD_IRFACTS;
#endif
    if (!o.irfacts)
        o.irfacts_why = "not derived: kwalk-irfacts not found beside kwalk (or set KWALK_IRFACTS)";
    return o;
}

/* The Triton cache folders are read on the pool's threads (each runs
 * kwalk-irfacts on its .llir) and handed to add() in order. */
typedef struct kw_tread {
    const kw_tcache *tc;
    kw_triton_opts o;
    kw_slot *slots;
    int (*add)(void *actx, size_t i, kw_sidecar *sc, kw_err *err);
    void *actx;
    int rc;
} kw_tread;

static void kw_tread_work(void *ctx, unsigned worker, size_t i) {
    kw_tread *t = ctx;
    kw_slot *s = &t->slots[i];
    (void)worker;
    kw_sidecar_init(&s->sc);
    s->st = kw_triton_cache_read(&s->sc, t->tc->entries.v[i], &t->o, &s->err);
}

static int kw_tread_done(void *ctx, size_t i) {
    kw_tread *t = ctx;
    kw_slot *s = &t->slots[i];
    if (s->st != KW_OK || t->add(t->actx, i, &s->sc, &s->err) != KW_OK)
        t->rc = kw_cli_fail(&s->err);
    kw_sidecar_free(&s->sc);
    return t->rc;
}

int kw_gather_triton_read(const kw_tcache *tc,
                          int (*add)(void *actx, size_t i, kw_sidecar *sc, kw_err *err),
                          void *actx) {
    if (!tc->entries.n)
        return KW_EXIT_OK;
    kw_tread t = {tc,   kw_tcache_opts(tc), calloc(tc->entries.n, sizeof(kw_slot)), add,
                  actx, KW_EXIT_OK};
    if (!t.slots)
        return kw_cli_failf("out of memory");
    unsigned threads = kw_pool_threads();
    int rc =
        kw_pool_run(tc->entries.n, threads, 2 * (size_t)threads, kw_tread_work, kw_tread_done, &t);
    for (size_t i = 0; i < tc->entries.n; i++) /* read ahead of a failure */
        kw_sidecar_free(&t.slots[i].sc);
    free(t.slots);
    return rc ? rc : t.rc;
}

typedef struct kw_tadd_index {
    kw_index *ix;
    const kw_tcache *tc;
} kw_tadd_index;

static int kw_tadd_index_fn(void *actx, size_t i, kw_sidecar *sc, kw_err *err) {
    kw_tadd_index *a = actx;
    return kw_index_adopt(a->ix, sc, a->tc->entries.v[i], err);
}

int kw_gather_triton_index(kw_index *ix, const kw_tcache *tc) {
    kw_tadd_index a = {ix, tc};
    return kw_gather_triton_read(tc, kw_tadd_index_fn, &a);
}
