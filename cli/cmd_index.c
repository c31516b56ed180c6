/* cmd_index.c: `kwalk index PATH... [-o FILE]`: gather the sidecars of a
 * build into one SQLite database (kw_index.h, docs/index-schema.md), by
 * default kwalk.db in the current directory, updated incrementally: a sidecar
 * whose size and mtime (or else content hash) are the ones stored is not
 * parsed again, one no longer given is removed, in one transaction. FILE.yaml
 * or FILE.yml (or --format yaml) exports the index as YAML instead.
 *
 * A PATH that is a file is read as a sidecar whatever its name, unless it is
 * an ELF file or an ar archive: then the sidecars the plugin's embed mode put
 * into it are read (codeobj/kw_co_embedded.h), one per translation unit, and
 * it is an error that it holds none. A directory is searched recursively for
 * *.kwalk.yaml and *.kwalk.yaml.zst, and for embedded sidecars in *.o, *.a,
 * *.so and *.so.N files (entries sorted by name, symbolic links to
 * directories not followed, like find; objects without any are skipped
 * silently, unreadable ones with a warning). A file reached twice (same real
 * path) is read once. No sidecar found at all is an error. Sidecars are
 * parsed on a few threads ($KWALK_JOBS, default the CPUs) and added in the
 * order found. --triton-cache DIR adds the specializations of a Triton cache
 * (triton/kw_triton.h, docs/triton.md) after them, one record per folder.
 *
 * A schema 2 sidecar names its object's code objects instead of carrying the
 * listings: each is read back from translation_unit.object (under a
 * --map-prefix NEW when it moved) while the sidecar is parsed, checked by
 * size and MD5 (codeobj/kw_co_sidecar.h, kw_co_sidecar_refill). A missing or
 * changed object costs its kernels' listings, each arch gets a note, and the
 * run warns once per sidecar; it is not an error. */
#define _XOPEN_SOURCE 700 /* realpath, readlink */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kw_cli.h"
#include "cli/kw_pool.h"
#include "codeobj/kw_co_embedded.h"
#include "codeobj/kw_co_sidecar.h"
#include "common/kw_fs.h"
#include "index/kw_index.h"
#include "sidecar/kw_schema.h"
#include "sidecar/kw_sidecar_embed.h"
#include "sidecar/kw_sidecar_zstd.h"
#include "triton/kw_triton.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

static const char kw_index_usage[] =
    "usage: kwalk index [PATH...] [--triton-cache DIR]... [--map-prefix OLD=NEW]... [-o FILE]\n"
    "                   [--format db|yaml]\n"
    "       kwalk index --db FILE -o OUT.yaml\n\n"
    "Gather sidecars into one database. Each PATH is a sidecar file, an object, archive\n"
    "or shared library holding sidecars (the plugin's embed mode), or a directory searched\n"
    "recursively for *.kwalk.yaml, *.kwalk.yaml.zst (zstd) and for sidecars embedded in\n"
    "*.o, *.a, *.so and *.so.N files. Kernels are merged\n"
    "by device symbol (archs unioned); launches, entry points and host calls are kept per\n"
    "translation unit.\n\n"
    "  -o, --output FILE   write the database to FILE (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --format db         an SQLite database, updated incrementally (the default)\n"
    "  --format yaml       export as YAML, to read or diff (the default for FILE.yaml, .yml)\n"
    "  --triton-cache DIR  add every specialization of a Triton cache (TRITON_CACHE_DIR, or\n"
    "                      one of its folders); repeatable\n"
    "  --map-prefix OLD=NEW  paths under OLD are under NEW now: the sidecars' source\n"
    "                      locations, the objects they name (listings are read from there)\n"
    "                      and the Triton cache's files; repeatable, the first match wins\n"
    "  --db FILE           (without PATHs) export the index FILE as YAML to OUT.yaml\n"
    "Every kwalk command reads both forms; docs/index-schema.md describes the tables.\n";

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

static int kw_found_push(kw_found *f, const char *seen_key, const char *name, kw_found_src src) {
    if (kw_symmap_get(&f->seen, seen_key))
        return KW_EXIT_OK;
    const char **slot = KW_PUSH(&f->arena, f->paths);
    kw_found_src *s = slot ? KW_PUSH(&f->arena, f->src) : NULL;
    if (!s || !(*slot = kw_arena_strdup(&f->arena, name)) ||
        kw_symmap_put(&f->seen, seen_key, 1) != KW_OK)
        return kw_cli_failf("out of memory");
    *s = src;
    return KW_EXIT_OK;
}

static int kw_found_add(kw_found *f, const char *path) {
    char *real = realpath(path, NULL);
    if (!real)
        return kw_cli_failf("%s: %s", path, strerror(errno));
    const char *key = kw_arena_strdup(&f->arena, real);
    free(real);
    const char *file = key ? kw_arena_strdup(&f->arena, path) : NULL;
    if (!file)
        return kw_cli_failf("out of memory");
    kw_found_src src = {file, false, 0, 0, NULL};
    return kw_found_push(f, key, path, src);
}

/* The sidecars embedded in path (an ELF file or an archive). *container:
 * whether it is one. In a directory walk (walking) an unreadable container
 * costs a warning; given by name, it is an error. */
static int kw_found_records(kw_found *f, const char *path, bool walking, bool *container,
                            size_t *added) {
    kw_co_embedded_list l;
    kw_err err;
    *added = 0;
    *container = false;
    if (kw_co_embedded_scan(path, &f->arena, &l, &err) != KW_OK) {
        *container = true;
        if (!walking)
            return kw_cli_fail(&err);
        kw_cli_warnf("%s, skipped", err.msg);
        return KW_EXIT_OK;
    }
    *container = l.container;
    if (!l.n)
        return KW_EXIT_OK;
    char *real = realpath(path, NULL);
    if (!real)
        return kw_cli_failf("%s: %s", path, strerror(errno));
    const char *file = kw_arena_strdup(&f->arena, path);
    int rc = file ? KW_EXIT_OK : kw_cli_failf("out of memory");
    for (size_t i = 0; i < l.n && rc == KW_EXIT_OK; i++) {
        const kw_co_embedded *r = &l.v[i];
        const char *name = kw_arena_printf(&f->arena, "%s%s%s%s", path, r->member ? "(" : "",
                                           r->member ? r->member : "", r->member ? ")" : "");
        if (name && r->count > 1)
            name = kw_arena_printf(&f->arena, "%s#%u", name, r->ordinal + 1);
        const char *key =
            kw_arena_printf(&f->arena, "%s@%llu", real, (unsigned long long)r->offset);
        if (!name || !key) {
            rc = kw_cli_failf("out of memory");
            break;
        }
        kw_found_src src = {file, true, r->offset, r->len, !l.archive ? file : NULL};
        size_t before = f->paths.n;
        rc = kw_found_push(f, key, name, src);
        *added += f->paths.n - before;
    }
    free(real);
    return rc;
}

/* A found sidecar's bytes (a whole file, or an embedded record's zstd
 * frame), malloc'ed and NUL-terminated. */
static kw_status kw_found_read(const kw_found *f, size_t i, char **text, size_t *len, kw_err *err) {
    const kw_found_src *s = &f->src.v[i];
    if (!s->record)
        return kw_fs_read(s->file, text, len, err);
    *len = s->len;
    return kw_fs_read_range(s->file, KW_FS_DATA, s->off, s->len, text, err);
}

static bool kw_has_suffix(const char *name, const char *suffix) {
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && !strcmp(name + n - s, suffix);
}

/* FILE.kwalk.yaml, or FILE.kwalk.yaml.zst, the plugin's default form (its
 * content, not its name, decides how it is read: kw_sidecar_parse). */
static bool kw_is_sidecar_name(const char *name) {
    return kw_has_suffix(name, ".kwalk.yaml") ||
           kw_has_suffix(name, ".kwalk.yaml" KW_SIDECAR_ZSTD_SUFFIX);
}

/* Names of files that may hold embedded sidecars: *.o, *.a, *.so, *.so.N... */
static bool kw_is_object_name(const char *name) {
    if (kw_has_suffix(name, ".o") || kw_has_suffix(name, ".a") || kw_has_suffix(name, ".so"))
        return true;
    const char *so = strstr(name, ".so.");
    if (!so || so == name)
        return false;
    for (const char *p = so + 4; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return false;
    return true;
}

static int kw_cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int kw_walk(kw_found *f, const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return kw_cli_failf("%s: %s", dir, strerror(errno));
    kw_arena names_arena;
    kw_arena_init(&names_arena);
    KW_ARRAY(const char *) names = {0};
    int rc = KW_EXIT_OK;
    struct dirent *de;
    errno = 0;
    while (rc == KW_EXIT_OK && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        const char **slot = KW_PUSH(&names_arena, names);
        if (!slot || !(*slot = kw_arena_strdup(&names_arena, de->d_name)))
            rc = kw_cli_failf("out of memory");
    }
    if (rc == KW_EXIT_OK && errno)
        rc = kw_cli_failf("%s: %s", dir, strerror(errno));
    closedir(d);
    if (names.n)
        qsort(names.v, names.n, sizeof(names.v[0]), kw_cmp_str);
    size_t dlen = strlen(dir);
    const char *sep = dlen && dir[dlen - 1] == '/' ? "" : "/";
    for (size_t i = 0; i < names.n && rc == KW_EXIT_OK; i++) {
        char *path = kw_arena_printf(&names_arena, "%s%s%s", dir, sep, names.v[i]);
        struct stat st;
        if (!path) {
            rc = kw_cli_failf("out of memory");
        } else if (lstat(path, &st) != 0) {
            rc = kw_cli_failf("%s: %s", path, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            rc = kw_walk(f, path);
        } else if (kw_is_sidecar_name(names.v[i])) {
            /* a symbolic link counts when it leads to a regular file; anything
             * else by a sidecar's name is skipped with a warning */
            if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
                if (errno == ENOENT)
                    kw_cli_warnf("%s: dangling symbolic link, skipped", path);
                else
                    kw_cli_warnf("%s: symbolic link: %s, skipped", path, strerror(errno));
                continue;
            }
            if (S_ISREG(st.st_mode))
                rc = kw_found_add(f, path);
            else
                kw_cli_warnf("%s: not a regular file, skipped", path);
        } else if (kw_is_object_name(names.v[i])) {
            bool container;
            size_t added;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                rc = kw_found_records(f, path, true, &container, &added);
        }
    }
    kw_arena_free(&names_arena);
    return rc;
}

static int kw_gather(kw_found *f, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0)
        return kw_cli_failf("%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return kw_walk(f, path);
    bool container;
    size_t added;
    int rc = kw_found_records(f, path, false, &container, &added);
    if (rc != KW_EXIT_OK || !container)
        return rc != KW_EXIT_OK ? rc : kw_found_add(f, path);
    if (!added)
        return kw_cli_failf("%s: no sidecar embedded (no %s section): compile with "
                            "-fplugin-arg-kwalk-embed (docs/plugin.md)",
                            path, KW_EMBED_SECTION);
    return KW_EXIT_OK;
}

/* Whether a file name asks for the YAML export: *.yaml and *.yml. */
static bool kw_yaml_name(const char *path) {
    size_t n = strlen(path);
    return (n >= 5 && !strcmp(path + n - 5, ".yaml")) || (n >= 4 && !strcmp(path + n - 4, ".yml"));
}

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

/* A sidecar just read, made ready for the index: its paths mapped, and a
 * schema 2 sidecar's listings read back from its object (object when given:
 * the object an embedded sidecar was found in; *isa_note: why they were not,
 * in sc's arena). Errors name path. */
static kw_status kw_build_prepare(kw_sidecar *sc, kw_prefixes p, const char *path,
                                  const char *object, const char **isa_note, kw_err *err) {
    kw_build_map_paths(sc, p);
    if (object && !(sc->tu.object = kw_arena_strdup(&sc->arena, object)))
        return kw_fail(err, "out of memory");
    if (!sc->tu.code_objects.n)
        return KW_OK;
    if (kw_co_sidecar_refill(sc, sc->tu.object, isa_note, err) == KW_OK)
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
    s->st = kw_found_read(b->f, i, &text, &len, &s->err);
    if (s->st != KW_OK)
        return;
    s->st = kw_sidecar_parse(&s->sc, b->f->paths.v[i], text, len, &s->err);
    free(text);
    if (s->st == KW_OK)
        s->st = kw_build_prepare(&s->sc, b->prefixes, b->f->paths.v[i], b->f->src.v[i].object,
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

/* The Triton cache folders, read one by one after the sidecars. */
typedef struct kw_tcache {
    kw_triton_paths entries;
    KW_ARRAY(kw_triton_prefix) prefixes;
} kw_tcache;

/* Add a cache folder unless its real path was added before (f->seen). */
static int kw_tcache_add(kw_found *f, kw_tcache *tc, const char *path) {
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

static int kw_read_triton(const kw_tcache *tc,
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

static int kw_build_triton(kw_index *ix, const kw_tcache *tc) {
    kw_tadd_index a = {ix, tc};
    return kw_read_triton(tc, kw_tadd_index_fn, &a);
}

static int kw_build_yaml(const kw_found *f, const kw_tcache *tc, const char *out) {
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
        rc = kw_build_triton(&ix, tc);
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

/* `kwalk index --db FILE -o OUT.yaml`: the index FILE as YAML. */
static int kw_export(const char *from, const char *out) {
    kw_index ix;
    kw_err err;
    if (kw_index_read_file(&ix, from, &err) != KW_OK)
        return kw_cli_fail(&err);
    int rc = kw_index_write_yaml(&ix, out, &err) == KW_OK ? KW_EXIT_OK : kw_cli_fail(&err);
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
    s->st = kw_found_read(b->f, i, &text, &len, &s->err);
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
                                     &s->isa_note, &s->err);
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

static int kw_build_db(const kw_found *f, const kw_tcache *tc, const char *out) {
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
        rc = kw_read_triton(tc, kw_tadd_db_fn, &adb);
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

int kw_cmd_index(int argc, char **argv) {
    const char *out = KW_INDEX_DEFAULT_PATH, *from = NULL;
    int yaml = -1; /* from the output name unless given */
    kw_found f;
    kw_arena_init(&f.arena);
    kw_symmap_init(&f.seen);
    memset(&f.paths, 0, sizeof(f.paths));
    memset(&f.src, 0, sizeof(f.src));
    KW_ARRAY(const char *) inputs = {0};
    KW_ARRAY(const char *) tdirs = {0};
    kw_tcache tc;
    memset(&tc, 0, sizeof tc);
    int rc = KW_EXIT_OK;
    bool opts = true;
    for (int i = 1; i < argc && rc == KW_EXIT_OK; i++) {
        const char *a = argv[i], *v;
        int r;
        if (opts && kw_cli_is_help(a)) {
            fputs(kw_index_usage, stdout);
            rc = kw_cli_flush_stdout();
            goto done;
        } else if (opts && !strcmp(a, "--")) {
            opts = false;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0 || !*v)
                rc = kw_cli_usage_error("index", "option %s needs a file name", a);
            else
                out = v;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (r > 0 && !strcmp(v, "db"))
                yaml = 0;
            else if (r > 0 && !strcmp(v, "yaml"))
                yaml = 1;
            else
                rc = kw_cli_usage_error("index", "--format takes 'db' or 'yaml'");
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                rc = kw_cli_usage_error("index", "option %s needs a file name", a);
            else
                from = v;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--triton-cache", NULL, &v)) != 0) {
            const char **slot = r > 0 && *v ? KW_PUSH(&f.arena, tdirs) : NULL;
            if (r < 0 || !*v)
                rc = kw_cli_usage_error("index", "option %s needs a directory", a);
            else if (!slot)
                rc = kw_cli_failf("out of memory");
            else
                *slot = v;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--map-prefix", NULL, &v)) != 0) {
            const char *eq = r > 0 ? strchr(v, '=') : NULL;
            kw_triton_prefix *p = eq && eq != v ? KW_PUSH(&f.arena, tc.prefixes) : NULL;
            if (!eq || eq == v)
                rc = kw_cli_usage_error("index", "--map-prefix takes OLD=NEW");
            else if (!p || !(p->from = kw_arena_strndup(&f.arena, v, (size_t)(eq - v))))
                rc = kw_cli_failf("out of memory");
            else
                p->to = eq + 1;
        } else if (opts && a[0] == '-' && a[1]) {
            rc = kw_cli_usage_error("index", "unknown option '%s'", a);
        } else {
            const char **slot = KW_PUSH(&f.arena, inputs);
            if (!slot)
                rc = kw_cli_failf("out of memory");
            else
                *slot = a;
        }
    }
    if (rc == KW_EXIT_OK && from) {
        if (inputs.n || tdirs.n)
            rc = kw_cli_usage_error("index", "--db exports an index: give no PATH");
        else if (!(yaml >= 0 ? yaml : kw_yaml_name(out)))
            rc = kw_cli_usage_error("index", "--db exports as YAML: -o FILE.yaml");
        else
            rc = kw_export(from, out);
        goto done;
    }
    if (rc == KW_EXIT_OK && !inputs.n && !tdirs.n)
        rc = kw_cli_usage_error("index", "no PATH given");
    for (size_t i = 0; i < inputs.n && rc == KW_EXIT_OK; i++)
        rc = kw_gather(&f, inputs.v[i]);
    for (size_t i = 0; i < tdirs.n && rc == KW_EXIT_OK; i++) {
        kw_err err;
        kw_triton_paths found = {0};
        if (kw_triton_cache_entries(&f.arena, tdirs.v[i], &found, &err))
            rc = kw_cli_fail(&err);
        else if (!found.n)
            rc = kw_cli_failf("%s: no Triton cache entries (folders with a __grp__NAME.json) found",
                              tdirs.v[i]);
        for (size_t j = 0; j < found.n && rc == KW_EXIT_OK; j++) /* a folder given twice: once */
            rc = kw_tcache_add(&f, &tc, found.v[j]);
    }
    if (rc == KW_EXIT_OK && !f.paths.n && inputs.n)
        rc = kw_cli_failf(
            "%s%s: no sidecars (*.kwalk.yaml, *.kwalk.yaml.zst, or embedded in objects) found",
            inputs.v[0], inputs.n > 1 ? " ..." : "");
    if (rc == KW_EXIT_OK)
        rc = (yaml >= 0 ? yaml : kw_yaml_name(out)) ? kw_build_yaml(&f, &tc, out)
                                                    : kw_build_db(&f, &tc, out);
done:
    kw_symmap_free(&f.seen);
    kw_arena_free(&f.arena);
    return rc;
}
