/* kw_gather_build.c: the index of `kwalk index` built from what was
 * gathered (kw_gather_build.h): as YAML, or the database, incrementally. */
#define _XOPEN_SOURCE 700
#include "cli/kw_gather_build.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/kw_cli.h"
#include "codeobj/kw_co_sidecar.h"
#include "common/kw_fs.h"
#include "common/kw_pool.h"
#include "model/kw_decode.h"
#include "sidecar/kw_schema.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

bool kw_gather_yaml_name(const char *path) {
    size_t n = strlen(path);
    return (n >= 5 && !strcmp(path + n - 5, ".yaml")) || (n >= 4 && !strcmp(path + n - 4, ".yml"));
}

typedef struct kw_build_ctx {
    const kw_found *f;
    kw_prefixes prefixes; /* --map-prefix */
    kw_slot *slots;
    kw_index *ix;
    size_t launches, entries;
    int rc;
} kw_build_ctx;

typedef struct kw_map_locs {
    kw_arena *a;
    kw_prefixes p;
} kw_map_locs;

static void kw_build_map_loc(void *ctx, kw_loc *l) {
    kw_map_locs *m = ctx;
    l->file = kw_triton_map_path(m->a, m->p.v, m->p.n, l->file);
}

static void kw_build_map_str(kw_arena *a, kw_prefixes p, const char **s) {
    *s = kw_triton_map_path(a, p.v, p.n, *s);
}

/* Every path of sc under the first --map-prefix that matches: its source
 * locations, the unit's source and object, a Triton record's cache folder
 * and files. */
static void kw_build_map_paths(kw_sidecar *sc, kw_prefixes p) {
    if (!p.n)
        return;
    kw_map_locs m = {&sc->arena, p};
    kw_schema_each_loc(&kw_t_sidecar, sc, kw_build_map_loc, &m);
    kw_build_map_str(&sc->arena, p, &sc->tu.source);
    kw_build_map_str(&sc->arena, p, &sc->tu.object);
    for (size_t i = 0; i < sc->kernels.n; i++) {
        kw_triton *t = sc->kernels.v[i].triton;
        if (!t)
            continue;
        kw_build_map_str(&sc->arena, p, &t->cache_dir);
        for (size_t j = 0; j < t->files.n; j++)
            kw_build_map_str(&sc->arena, p, &t->files.v[j]);
    }
}

/* A sidecar just read, made ready for the index: its paths mapped, and the
 * code objects a schema 2 sidecar names checked in its object (object when
 * given: the object an embedded sidecar was found in; *isa_note: why one is
 * gone or changed, in sc's arena). For the database they are not decoded: a
 * page decodes them when it shows their listings (index version 5,
 * model/kw_decode.h); with fill (the YAML form, read without the objects)
 * the listings are read back into sc. Errors name path. */
static kw_status kw_build_prepare(kw_sidecar *sc, kw_prefixes p, const char *path,
                                  const char *object, bool fill, const char **isa_note,
                                  kw_err *err) {
    kw_build_map_paths(sc, p);
    if (object && !(sc->tu.object = kw_arena_strdup(&sc->arena, object)))
        return kw_fail(err, "out of memory");
    if (!sc->tu.code_objects.n)
        return KW_OK;
    if ((fill ? kw_co_sidecar_refill : kw_co_sidecar_check)(sc, sc->tu.object, isa_note, err) ==
        KW_OK)
        return KW_OK;
    kw_err e = *err;
    return kw_fail(err, "%s: %s", path, e.msg);
}

static void kw_build_parse(void *ctx, unsigned worker, size_t i) {
    kw_build_ctx *b = ctx;
    kw_slot *s = &b->slots[i];
    (void)worker;
    char *text;
    size_t len;
    kw_sidecar_init(&s->sc);
    s->st = kw_gather_read(b->f, i, &text, &len, &s->err);
    if (s->st != KW_OK)
        return;
    s->st = kw_sidecar_parse(&s->sc, b->f->paths.v[i], text, len, &s->err);
    free(text);
    if (s->st == KW_OK)
        s->st = kw_build_prepare(&s->sc, b->prefixes, b->f->paths.v[i], b->f->src.v[i].object, true,
                                 &s->isa_note, &s->err);
}

static int kw_build_add(void *ctx, size_t i) {
    kw_build_ctx *b = ctx;
    kw_slot *s = &b->slots[i];
    if (s->st == KW_OK && s->isa_note)
        kw_cli_warnf("%s: ISA not shown: %s", b->f->paths.v[i], s->isa_note);
    if (s->st != KW_OK || kw_index_adopt(b->ix, &s->sc, b->f->paths.v[i], &s->err) != KW_OK)
        b->rc = kw_cli_fail(&s->err);
    b->launches += s->sc.launches.n;
    b->entries += s->sc.entries.n;
    kw_sidecar_free(&s->sc);
    return b->rc;
}

/* The export carries the listings the database leaves in the code objects
 * (index version 5; a Triton cache's since version 6): each kernel's archs
 * decoded from them (model/kw_decode.h). The YAML form of `kwalk index`
 * decodes a Triton cache's .hsaco files the same way. */
static kw_status kw_gather_export_listings(kw_index *ix, kw_err *err) {
    kw_decode *d = kw_decode_new(ix);
    if (!d)
        return kw_fail(err, "out of memory");
    kw_status st = kw_decode_all(d, 0, err);
    for (size_t i = 0; i < ix->kernels.n && st == KW_OK; i++) {
        const kw_kernel *k = &ix->kernels.v[i];
        st = kw_decode_kernel(d, k, &ix->arena, &k, err);
        if (st == KW_OK)
            ix->kernels.v[i] = *k;
    }
    kw_decode_free(d);
    return st;
}

int kw_gather_build_yaml(const kw_found *f, const kw_tcache *tc, const char *out) {
    kw_index ix;
    kw_index_init(&ix);
    ix.producer.name = "kwalk";
    ix.producer.version = KWALK_VERSION;
    kw_err err;
    kw_build_ctx b = {f,
                      {tc->prefixes.v, tc->prefixes.n},
                      calloc(f->paths.n + 1, sizeof(kw_slot)),
                      &ix,
                      0,
                      0,
                      KW_EXIT_OK};
    if (!b.slots)
        return kw_cli_failf("out of memory");
    unsigned threads = kw_pool_threads();
    int rc =
        kw_pool_run(f->paths.n, threads, 4 * (size_t)threads, kw_build_parse, kw_build_add, &b);
    /* sidecars parsed ahead of a failure are freed here */
    for (size_t i = 0; i < f->paths.n; i++)
        kw_sidecar_free(&b.slots[i].sc);
    free(b.slots);
    size_t launches = b.launches, entries = b.entries;
    if (rc == KW_EXIT_OK)
        rc = kw_gather_triton_index(&ix, tc);
    if (rc == KW_EXIT_OK && tc->entries.n && kw_gather_export_listings(&ix, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    if (rc == KW_EXIT_OK && kw_index_write_yaml(&ix, out, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    if (rc == KW_EXIT_OK) {
        printf("%s: %zu sidecars, ", out, f->paths.n);
        if (tc->entries.n)
            printf("%zu Triton cache entries, ", tc->entries.n);
        printf("%zu kernels, %zu launches, %zu entry points\n", ix.kernels.n, launches, entries);
        rc = kw_cli_flush_stdout();
    }
    kw_index_free(&ix);
    return rc;
}

int kw_gather_export(const char *from, const char *out) {
    kw_index ix;
    kw_err err;
    if (kw_index_read_file(&ix, from, &err) != KW_OK)
        return kw_cli_fail(&err);
    int rc = kw_gather_export_listings(&ix, &err) == KW_OK &&
                     kw_index_write_yaml(&ix, out, &err) == KW_OK
                 ? KW_EXIT_OK
                 : kw_cli_fail(&err);
    kw_index_free(&ix);
    return rc;
}

/* ---- The database, incrementally ------------------------------------------------------------ */

/* A sidecar of this run: kept (its stored records are current) or parsed. */
typedef struct kw_dbslot {
    long long size, mtime_ns;
    bool stored;   /* the database has records of this path */
    bool keep;     /* ... and they are current: same size and mtime, or same content */
    uint64_t hash; /* of the content (the stored one when kept unread) */
    kw_sidecar sc;
    kw_status st;
    kw_err err;
    const char *isa_note; /* why listings were not read back (sc's arena) */
} kw_dbslot;

typedef struct kw_dbctx {
    const kw_found *f;
    kw_prefixes prefixes; /* --map-prefix */
    kw_dbslot *slots;
    kw_index_db *db;
    size_t read;
    int rc;
} kw_dbctx;

static void kw_db_parse(void *ctx, unsigned worker, size_t i) {
    kw_dbctx *b = ctx;
    kw_dbslot *s = &b->slots[i];
    (void)worker;
    if (s->keep)
        return;
    char *text;
    size_t len;
    s->st = kw_gather_read(b->f, i, &text, &len, &s->err);
    if (s->st != KW_OK)
        return;
    uint64_t h = kw_index_hash(text, len);
    if (s->stored && h == s->hash) { /* touched, not changed */
        s->keep = true;
    } else {
        s->hash = h;
        s->st = kw_sidecar_parse(&s->sc, b->f->paths.v[i], text, len, &s->err);
        if (s->st == KW_OK)
            s->st = kw_build_prepare(&s->sc, b->prefixes, b->f->paths.v[i], b->f->src.v[i].object,
                                     false, &s->isa_note, &s->err);
    }
    free(text);
}

static int kw_db_add(void *ctx, size_t i) {
    kw_dbctx *b = ctx;
    kw_dbslot *s = &b->slots[i];
    const char *path = b->f->paths.v[i];
    if (s->st == KW_OK && s->isa_note)
        kw_cli_warnf("%s: ISA not shown: %s", path, s->isa_note);
    if (s->st != KW_OK)
        b->rc = kw_cli_fail(&s->err);
    else if (s->keep)
        s->st = kw_index_db_keep(b->db, path, s->size, s->mtime_ns, s->hash, i, &s->err);
    else if ((s->st = kw_index_db_put(b->db, path, &s->sc, s->size, s->mtime_ns, s->hash, i,
                                      &s->err)) == KW_OK)
        b->read++;
    if (b->rc == KW_EXIT_OK && s->st != KW_OK)
        b->rc = kw_cli_fail(&s->err);
    kw_sidecar_free(&s->sc);
    return b->rc;
}

typedef struct kw_tadd_db {
    kw_index_db *db;
    const kw_tcache *tc;
    size_t first; /* the order of the first cache folder: after the sidecars */
} kw_tadd_db;

static int kw_tadd_db_fn(void *actx, size_t i, kw_sidecar *sc, kw_err *err) {
    kw_tadd_db *a = actx;
    return kw_index_db_put(a->db, a->tc->entries.v[i], sc, -1, 0, 0, a->first + i, err);
}

/* Keep freed memory for the next sidecar: each one's text, events and arena
 * are megabytes, and glibc would hand them back to the kernel (a block over
 * its mmap threshold, a heap top over its trim threshold) only to take new
 * zeroed pages for the next; those page faults were a sixth of `kwalk
 * index`'s CPU on the aiter build. */
static void kw_gather_keep_memory(void) {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's largest */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int kw_gather_build_db(const kw_found *f, const kw_tcache *tc, const char *out) {
    kw_gather_keep_memory();
    kw_producer prod = {"kwalk", KWALK_VERSION, NULL};
    kw_err err;
    kw_dbctx b = {f,
                  {tc->prefixes.v, tc->prefixes.n},
                  calloc(f->paths.n + 1, sizeof(kw_dbslot)),
                  NULL,
                  0,
                  KW_EXIT_OK};
    if (!b.slots)
        return kw_cli_failf("out of memory");
    for (size_t i = 0; i <= f->paths.n; i++)
        kw_sidecar_init(&b.slots[i].sc);
    if (kw_index_db_begin(&b.db, out, &prod, &err) != KW_OK) {
        free(b.slots);
        return kw_cli_fail(&err);
    }
    int rc = KW_EXIT_OK;
    for (size_t i = 0; i < f->paths.n && rc == KW_EXIT_OK; i++) {
        kw_dbslot *s = &b.slots[i];
        struct stat st;
        if (stat(f->src.v[i].file, &st) != 0) {
            rc = kw_cli_failf("%s: %s", f->src.v[i].file, strerror(errno));
            break;
        }
        s->size = (long long)st.st_size;
        s->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        long long size, mtime;
        s->stored = kw_index_db_stored(b.db, f->paths.v[i], &size, &mtime, &s->hash);
        s->keep = s->stored && size == s->size && mtime == s->mtime_ns;
    }
    unsigned threads = kw_pool_threads();
    if (rc == KW_EXIT_OK)
        rc = kw_pool_run(f->paths.n, threads, 4 * (size_t)threads, kw_db_parse, kw_db_add, &b);
    for (size_t i = 0; i < f->paths.n; i++)
        kw_sidecar_free(&b.slots[i].sc);
    free(b.slots);
    kw_tadd_db adb = {b.db, tc, f->paths.n};
    if (rc == KW_EXIT_OK)
        rc = kw_gather_triton_read(tc, kw_tadd_db_fn, &adb);
    if (rc != KW_EXIT_OK) {
        kw_index_db_abort(b.db);
        return rc;
    }
    kw_index_db_counts n;
    if (kw_index_db_commit(b.db, &n, &err) != KW_OK)
        return kw_cli_fail(&err);
    printf("%s: %zu sidecars, ", out, f->paths.n);
    if (b.read < f->paths.n)
        printf("%zu updated, %zu unchanged, ", b.read, f->paths.n - b.read);
    if (tc->entries.n)
        printf("%zu Triton cache entries, ", tc->entries.n);
    printf("%zu kernels, %zu launches, %zu entry points\n", n.kernels, n.launches, n.entries);
    return kw_cli_flush_stdout();
}
