/* kw_fs.c: file-system helpers. */
#define _POSIX_C_SOURCE 200809L
#include "kw_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

kw_status kw_fs_read(const char *path, char **data, size_t *len, kw_err *err) {
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return kw_fail(err, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return kw_fail(err, "%s: out of memory", path);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return kw_fail(err, "%s: read error", path);
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return KW_OK;
}

kw_status kw_fs_write_atomic(const char *path, const void *data, size_t len, kw_err *err) {
    static unsigned counter;
    size_t plen = strlen(path) + 64;
    char *tmp = malloc(plen);
    if (!tmp)
        return kw_fail(err, "%s: out of memory", path);
    snprintf(tmp, plen, "%s.tmp.%ld.%u", path, (long)getpid(), counter++);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        kw_status s = kw_fail(err, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return s;
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            kw_status s = kw_fail(err, "cannot write %s: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return s;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        kw_status s = kw_fail(err, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return s;
    }
    free(tmp);
    return KW_OK;
}

kw_status kw_fs_mkdirs(const char *path, kw_err *err) {
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    if (!p)
        return kw_fail(err, "%s: out of memory", path);
    memcpy(p, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                kw_status s = kw_fail(err, "cannot create directory %s: %s", p, strerror(errno));
                free(p);
                return s;
            }
            p[i] = c;
        }
    }
    free(p);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return kw_fail(err, "%s: not a directory", path);
    return KW_OK;
}
