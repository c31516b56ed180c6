/* kw_gather.c: the sidecars `kwalk index` reads, found (kw_gather.h). */
#define _XOPEN_SOURCE 700 /* realpath, readlink */
#include "cli/kw_gather.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kw_cli.h"
#include "codeobj/kw_co_embedded.h"
#include "common/kw_fs.h"
#include "sidecar/kw_sidecar_embed.h"
#include "sidecar/kw_sidecar_zstd.h"

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

kw_status kw_gather_read(const kw_found *f, size_t i, char **text, size_t *len, kw_err *err) {
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

int kw_gather(kw_found *f, const char *path) {
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
