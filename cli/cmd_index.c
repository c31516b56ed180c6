/* cmd_index.c: `kwalk index PATH... [-o FILE] [--format packed|yaml]`:
 * gather the sidecars of a build into one database file (kw_index.h), by
 * default kwalk-index.db in the current directory, written atomically. The
 * form is packed unless --format says otherwise or FILE ends in .yaml/.yml.
 *
 * A PATH that is a file is read as a sidecar whatever its name; a directory is
 * searched recursively for *.kwalk.yaml (entries sorted by name, symbolic
 * links to directories not followed, like find). A file reached twice (same
 * real path) is read once. No sidecar found at all is an error. Sidecars are
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
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/kw_cli.h"
#include "cli/kw_pool.h"
#include "codeobj/kw_co_sidecar.h"
#include "index/kw_index.h"
#include "triton/kw_triton.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

static const char kw_index_usage[] =
    "usage: kwalk index [PATH...] [--triton-cache DIR]... [--map-prefix OLD=NEW]... [-o FILE]\n"
    "                   [--format packed|yaml]\n\n"
    "Gather sidecars into one database. Each PATH is a sidecar file, or a directory\n"
    "searched recursively for *.kwalk.yaml. Kernels are merged by device symbol (archs\n"
    "unioned); launches, entry points and host calls are kept per translation unit.\n\n"
    "  -o, --output FILE   write the database to FILE (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --format packed     binary, fast to load (the default)\n"
    "  --format yaml       YAML, to read or diff (the default for FILE.yaml, FILE.yml)\n"
    "  --triton-cache DIR  add every specialization of a Triton cache (TRITON_CACHE_DIR, or\n"
    "                      one of its folders); repeatable\n"
    "  --map-prefix OLD=NEW  paths under OLD are under NEW now: the objects sidecars name\n"
    "                      (their listings are read from there) and the Triton cache's\n"
    "                      files; repeatable, the first match wins\n"
    "Every kwalk command reads both forms.\n";

/* The sidecar files found, in order, with their real paths for deduplication. */
typedef struct kw_found {
    kw_arena arena;
    KW_ARRAY(const char *) paths;
    kw_symmap seen; /* real path -> 1 */
} kw_found;

static int kw_found_add(kw_found *f, const char *path) {
    char *real = realpath(path, NULL);
    if (!real)
        return kw_cli_failf("%s: %s", path, strerror(errno));
    const char *key = kw_arena_strdup(&f->arena, real);
    free(real);
    if (!key)
        return kw_cli_failf("out of memory");
    if (kw_symmap_get(&f->seen, key))
        return KW_EXIT_OK;
    const char **slot = KW_PUSH(&f->arena, f->paths);
    if (!slot || !(*slot = kw_arena_strdup(&f->arena, path)) ||
        kw_symmap_put(&f->seen, key, 1) != KW_OK)
        return kw_cli_failf("out of memory");
    return KW_EXIT_OK;
}

static bool kw_is_sidecar_name(const char *name) {
    static const char suffix[] = ".kwalk.yaml";
    size_t n = strlen(name), s = sizeof(suffix) - 1;
    return n > s && !strcmp(name + n - s, suffix);
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
    return kw_found_add(f, path);
}

/* The form a file name asks for: YAML for *.yaml and *.yml, else packed. */
static kw_index_format kw_format_of(const char *path) {
    size_t n = strlen(path);
    if ((n >= 5 && !strcmp(path + n - 5, ".yaml")) || (n >= 4 && !strcmp(path + n - 4, ".yml")))
        return KW_INDEX_YAML;
    return KW_INDEX_PACKED;
}

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
    const kw_triton_prefix *prefixes; /* --map-prefix */
    size_t nprefixes;
    kw_slot *slots;
    kw_index *ix;
    size_t launches, entries;
    int rc;
} kw_build_ctx;

/* path with the first --map-prefix whose OLD is a leading part of it (whole
 * path components) rewritten, in arena a. */
static const char *kw_build_map(kw_arena *a, const kw_build_ctx *b, const char *path) {
    for (size_t i = 0; path && i < b->nprefixes; i++) {
        const char *f = b->prefixes[i].from;
        size_t n = strlen(f);
        while (n > 1 && f[n - 1] == '/')
            n--;
        if (!strncmp(path, f, n) && (path[n] == '/' || path[n] == '\0'))
            return kw_arena_printf(a, "%s%s", b->prefixes[i].to, path + n);
    }
    return path;
}

static void kw_build_parse(void *ctx, unsigned worker, size_t i) {
    kw_build_ctx *b = ctx;
    kw_slot *s = &b->slots[i];
    (void)worker;
    s->st = kw_sidecar_read_file(&s->sc, b->f->paths.v[i], &s->err);
    if (s->st == KW_OK && s->sc.tu.code_objects.n) {
        const char *obj = kw_build_map(&s->sc.arena, b, s->sc.tu.object);
        s->st = obj || !s->sc.tu.object ? kw_co_sidecar_refill(&s->sc, obj, &s->isa_note, &s->err)
                                        : kw_fail(&s->err, "out of memory");
        if (s->st != KW_OK) {
            kw_err e = s->err;
            kw_fail(&s->err, "%s: %s", b->f->paths.v[i], e.msg);
        }
    }
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

static int kw_build_triton(kw_index *ix, const kw_tcache *tc) {
    kw_triton_opts o = {tc->prefixes.v, tc->prefixes.n, KWALK_VERSION};
    for (size_t i = 0; i < tc->entries.n; i++) {
        kw_sidecar sc;
        kw_sidecar_init(&sc);
        kw_err err;
        if (kw_triton_cache_read(&sc, tc->entries.v[i], &o, &err) ||
            kw_index_adopt(ix, &sc, tc->entries.v[i], &err)) {
            kw_sidecar_free(&sc);
            return kw_cli_fail(&err);
        }
        kw_sidecar_free(&sc);
    }
    return KW_EXIT_OK;
}

static int kw_build(const kw_found *f, const kw_tcache *tc, const char *out,
                    kw_index_format format) {
    kw_index ix;
    kw_index_init(&ix);
    ix.producer.name = "kwalk";
    ix.producer.version = KWALK_VERSION;
    kw_err err;
    kw_build_ctx b = {
        f, tc->prefixes.v, tc->prefixes.n, calloc(f->paths.n + 1, sizeof(kw_slot)), &ix, 0,
        0, KW_EXIT_OK};
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
    if (rc == KW_EXIT_OK && kw_index_write_file(&ix, out, format, &err) != KW_OK)
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

int kw_cmd_index(int argc, char **argv) {
    const char *out = KW_INDEX_DEFAULT_PATH;
    int format = -1; /* from the output name unless given */
    kw_found f;
    kw_arena_init(&f.arena);
    kw_symmap_init(&f.seen);
    memset(&f.paths, 0, sizeof(f.paths));
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
            if (r > 0 && !strcmp(v, "packed"))
                format = KW_INDEX_PACKED;
            else if (r > 0 && !strcmp(v, "yaml"))
                format = KW_INDEX_YAML;
            else
                rc = kw_cli_usage_error("index", "--format takes 'packed' or 'yaml'");
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
        rc = kw_cli_failf("%s%s: no sidecars (*.kwalk.yaml) found", inputs.v[0],
                          inputs.n > 1 ? " ..." : "");
    if (rc == KW_EXIT_OK)
        rc = kw_build(&f, &tc, out, format >= 0 ? (kw_index_format)format : kw_format_of(out));
done:
    kw_symmap_free(&f.seen);
    kw_arena_free(&f.arena);
    return rc;
}
