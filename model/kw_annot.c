/* kw_annot.c: the annotation data files: the embedded defaults, the files of
 * $KWALK_ANNOTATIONS added over them, and a line tokenizer (see kw_annot.h). */
#define _POSIX_C_SOURCE 200809L
#include "model/kw_annot.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/kw_fs.h"

static kw_status kw_annot_put(kw_annot *a, const char *name, const char *data, size_t len,
                              kw_err *err) {
    for (size_t i = 0; i < a->files.n; i++)
        if (!strcmp(a->files.v[i].name, name)) {
            a->files.v[i].data = data;
            a->files.v[i].len = len;
            return KW_OK;
        }
    kw_annot_file *f = KW_PUSH(&a->arena, a->files);
    if (!f)
        return kw_fail(err, "out of memory");
    f->name = name;
    f->data = data;
    f->len = len;
    return KW_OK;
}

static bool kw_annot_is_txt(const char *name) {
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".txt");
}

/* Add the *.txt files of dir/rel (rel "" at the top), one level of
 * subdirectories deep, as "sub/file.txt". */
static kw_status kw_annot_scan(kw_annot *a, const char *dir, const char *rel, int depth,
                               kw_err *err) {
    char *path = kw_arena_printf(&a->arena, "%s%s%s", dir, rel[0] ? "/" : "", rel);
    if (!path)
        return kw_fail(err, "out of memory");
    DIR *d = opendir(path);
    if (!d)
        return kw_fail(err, "KWALK_ANNOTATIONS: %s: %s", path, strerror(errno));
    kw_status st = KW_OK;
    struct dirent *de;
    while (st == KW_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *sub = kw_arena_printf(&a->arena, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
        char *full = kw_arena_printf(&a->arena, "%s/%s", path, de->d_name);
        struct stat sb;
        if (!sub || !full) {
            st = kw_fail(err, "out of memory");
        } else if (stat(full, &sb) != 0) {
            continue;
        } else if (S_ISDIR(sb.st_mode)) {
            if (depth < 1)
                st = kw_annot_scan(a, dir, sub, depth + 1, err);
        } else if (kw_annot_is_txt(de->d_name) && depth == 1) {
            char *data;
            size_t len;
            if (kw_fs_read_as(full, KW_FS_TEXT, &data, &len, err) != KW_OK) {
                st = KW_ERR;
            } else {
                char *copy = kw_arena_strndup(&a->arena, data, len);
                free(data);
                st = copy ? kw_annot_put(a, sub, copy, len, err) : kw_fail(err, "out of memory");
            }
        }
    }
    closedir(d);
    return st;
}

static int kw_annot_cmp(const void *x, const void *y) {
    return strcmp(((const kw_annot_file *)x)->name, ((const kw_annot_file *)y)->name);
}

kw_status kw_annot_load(kw_annot *a, kw_err *err) {
    memset(a, 0, sizeof(*a));
    kw_arena_init(&a->arena);
    for (size_t i = 0; i < kw_annot_nembedded; i++)
        if (kw_annot_put(a, kw_annot_embedded[i].name, kw_annot_embedded[i].data,
                         kw_annot_embedded[i].len, err) != KW_OK)
            return KW_ERR;
    const char *dir = getenv("KWALK_ANNOTATIONS");
    if (dir && dir[0] && kw_annot_scan(a, dir, "", 0, err) != KW_OK)
        return KW_ERR;
    if (a->files.n)
        qsort(a->files.v, a->files.n, sizeof(kw_annot_file), kw_annot_cmp);
    return KW_OK;
}

void kw_annot_free(kw_annot *a) {
    kw_arena_free(&a->arena);
    memset(a, 0, sizeof(*a));
}

const kw_annot_file *kw_annot_get(const kw_annot *a, const char *name) {
    for (size_t i = 0; i < a->files.n; i++)
        if (!strcmp(a->files.v[i].name, name))
            return &a->files.v[i];
    return NULL;
}

static bool kw_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

kw_status kw_annot_lines(const kw_annot_file *f, kw_annot_line_fn fn, void *ctx, kw_err *err) {
    const char *p = f->data, *end = f->data + f->len;
    char buf[1024], rest[1024];
    for (int lineno = 1; p < end; lineno++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n >= sizeof(buf))
            return kw_fail(err, "annotations/%s:%d: line too long", f->name, lineno);
        memcpy(buf, p, n);
        buf[n] = '\0';
        p += n + (nl ? 1 : 0);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        /* the text after the first word, whole */
        char *s = buf;
        while (kw_blank(*s))
            s++;
        while (*s && !kw_blank(*s))
            s++;
        while (kw_blank(*s))
            s++;
        size_t rn = strlen(s);
        while (rn && (kw_blank(s[rn - 1])))
            rn--;
        memcpy(rest, s, rn);
        rest[rn] = '\0';
        kw_annot_line l;
        memset(&l, 0, sizeof(l));
        l.file = f->name;
        l.lineno = lineno;
        l.rest = rest;
        for (s = buf; *s;) {
            while (kw_blank(*s))
                s++;
            if (!*s)
                break;
            if (l.nwords == KW_ANNOT_MAXWORDS) {
                l.more = true;
                break;
            }
            l.word[l.nwords++] = s;
            while (*s && !kw_blank(*s))
                s++;
            if (*s)
                *s++ = '\0';
        }
        if (l.nwords && fn(ctx, &l, err) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}
