/* kw_fs.c: file-system helpers: the checked reader, the mapping of code
 * objects, atomic writes, mkdir -p. */
#define _DEFAULT_SOURCE /* MAP_NORESERVE */
#define _POSIX_C_SOURCE 200809L
#include "common/kw_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    uint64_t limit;
    const char *what;
} kw_fs_kinds[] = {
    [KW_FS_TEXT] = {(uint64_t)64 << 20, "a source or text file"},
    [KW_FS_DATA] = {(uint64_t)1 << 30, "a sidecar, index or trace"},
    [KW_FS_CODE] = {(uint64_t)4 << 30, "a code object"},
};

uint64_t kw_fs_limit(kw_fs_kind kind) {
    return kw_fs_kinds[kind].limit;
}

static const char *kw_fs_type(mode_t m) {
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

static kw_status kw_fs_not_regular(const char *path, mode_t m, kw_err *err) {
    if (S_ISDIR(m))
        return kw_fail(err, "%s: %s", path, strerror(EISDIR));
    return kw_fail(err, "%s: not a regular file (%s)", path, kw_fs_type(m));
}

static kw_status kw_fs_too_big(const char *path, kw_fs_kind kind, unsigned long long size,
                               kw_err *err) {
    uint64_t lim = kw_fs_kinds[kind].limit;
    int gib = lim % ((uint64_t)1 << 30) == 0;
    return kw_fail(err, "%s: %llu bytes, over kwalk's %llu %s limit for %s", path, size,
                   (unsigned long long)(lim >> (gib ? 30 : 20)), gib ? "GiB" : "MiB",
                   kw_fs_kinds[kind].what);
}

/* Open path for reading if it is a regular file within the kind's limit. The
 * open does not block on a FIFO (O_NONBLOCK, cleared once the file is known
 * to be regular). */
kw_status kw_fs_open_fd(const char *path, kw_fs_kind kind, int *fd, uint64_t *size,
                            kw_err *err) {
    struct stat st;
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) {
        int e = errno;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return kw_fs_not_regular(path, st.st_mode, err); /* a socket: ENXIO */
        return kw_fail(err, "%s: %s", path, strerror(e));
    }
    kw_status s = KW_OK;
    if (fstat(*fd, &st) != 0)
        s = kw_fail(err, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        s = kw_fs_not_regular(path, st.st_mode, err);
    else if ((uint64_t)st.st_size > kw_fs_kinds[kind].limit || (uint64_t)st.st_size >= SIZE_MAX)
        s = kw_fs_too_big(path, kind, (unsigned long long)st.st_size, err);
    else if (fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        s = kw_fail(err, "%s: %s", path, strerror(errno));
    if (s != KW_OK) {
        close(*fd);
        *fd = -1;
        return s;
    }
    *size = (uint64_t)st.st_size;
    return KW_OK;
}

kw_status kw_fs_head(const char *path, kw_fs_kind kind, void *buf, size_t n, size_t *got,
                     kw_err *err) {
    *got = 0;
    int fd;
    uint64_t size;
    if (kw_fs_open_fd(path, kind, &fd, &size, err) != KW_OK)
        return KW_ERR;
    kw_status s = KW_OK;
    while (*got < n) {
        ssize_t r = read(fd, (char *)buf + *got, n - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            s = kw_fail(err, "%s: %s", path, strerror(errno));
        if (r <= 0)
            break;
        *got += (size_t)r;
    }
    close(fd);
    return s;
}

kw_status kw_fs_read_range(const char *path, kw_fs_kind kind, uint64_t off, size_t len, char **data,
                           kw_err *err) {
    *data = NULL;
    int fd;
    uint64_t size;
    if (kw_fs_open_fd(path, kind, &fd, &size, err) != KW_OK)
        return KW_ERR;
    kw_status s = KW_OK;
    char *buf = NULL;
    if (off > size || len > size - off || len > kw_fs_kinds[kind].limit)
        s = kw_fail(err, "%s: %zu bytes at offset %llu are outside the file (%llu bytes)", path,
                    len, (unsigned long long)off, (unsigned long long)size);
    else if (!(buf = malloc(len + 1)))
        s = kw_fail(err, "%s: out of memory", path);
    for (size_t n = 0; s == KW_OK && n < len;) {
        ssize_t r = pread(fd, buf + n, len - n, (off_t)(off + n));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            s = kw_fail(err, "%s: %s", path, strerror(errno));
        else if (r == 0)
            s = kw_fail(err, "%s: the file shrank while it was read", path);
        else
            n += (size_t)r;
    }
    close(fd);
    if (s != KW_OK) {
        free(buf);
        return s;
    }
    buf[len] = '\0';
    *data = buf;
    return KW_OK;
}

kw_status kw_fs_read_as(const char *path, kw_fs_kind kind, char **data, size_t *len, kw_err *err) {
    *data = NULL;
    *len = 0;
    int fd;
    uint64_t size;
    if (kw_fs_open_fd(path, kind, &fd, &size, err) != KW_OK)
        return KW_ERR;
    /* the size fstat gave; a file that says 0 (in /proc) or grows is read on,
     * in bounded chunks, up to the limit */
    size_t limit = (size_t)kw_fs_kinds[kind].limit, cap = (size_t)size + 1, n = 0;
    if (cap < 4096)
        cap = 4096;
    char *buf = malloc(cap);
    kw_status s = buf ? KW_OK : kw_fail(err, "%s: out of memory", path);
    while (s == KW_OK) {
        if (n + 1 == cap) {
            if (n >= limit) {
                char probe;
                ssize_t r = read(fd, &probe, 1);
                if (r > 0)
                    s = kw_fs_too_big(path, kind, (unsigned long long)n + 1, err);
                else if (r < 0 && errno != EINTR)
                    s = kw_fail(err, "%s: %s", path, strerror(errno));
                if (r == 0 || s != KW_OK)
                    break;
                continue;
            }
            size_t ncap = cap > limit / 2 ? limit + 1 : cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                s = kw_fail(err, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t want = cap - 1 - n;
        ssize_t r = read(fd, buf + n, want < ((size_t)1 << 24) ? want : (size_t)1 << 24);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            s = kw_fail(err, "%s: %s", path, strerror(errno));
        else if (r == 0)
            break;
        else
            n += (size_t)r;
    }
    close(fd);
    if (s != KW_OK) {
        free(buf);
        return s;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return KW_OK;
}

kw_status kw_fs_read(const char *path, char **data, size_t *len, kw_err *err) {
    return kw_fs_read_as(path, KW_FS_DATA, data, len, err);
}

static unsigned char kw_fs_empty[1];

kw_status kw_fs_map_open(kw_fs_map *m, const char *path, kw_fs_kind kind, kw_err *err) {
    m->data = NULL;
    m->len = 0;
    m->base_ = NULL;
    int fd = -1;
    uint64_t size = 0;
    if (kw_fs_open_fd(path, kind, &fd, &size, err) != KW_OK)
        return KW_ERR;
    if (size == 0) {
        close(fd);
        m->data = kw_fs_empty;
        return KW_OK;
    }
    int flags = MAP_PRIVATE;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;
#endif
    void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, flags, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED)
        return kw_fail(err, "%s: cannot map %llu bytes: %s", path, (unsigned long long)size,
                       strerror(e));
    m->base_ = p;
    m->data = p;
    m->len = (size_t)size;
    return KW_OK;
}

void kw_fs_map_close(kw_fs_map *m) {
    if (m->base_)
        munmap(m->base_, m->len);
    m->data = NULL;
    m->len = 0;
    m->base_ = NULL;
}

/* All of data[0, len) to fd; false (errno set) when a write fails. */
static bool kw_fs_write_all(int fd, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += w;
        len -= (size_t)w;
    }
    return true;
}

kw_status kw_fs_write(const char *path, const void *data, size_t len, kw_err *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return kw_fail(err, "cannot write %s: %s", path, strerror(errno));
    bool ok = kw_fs_write_all(fd, data, len);
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    return ok ? KW_OK : kw_fail(err, "cannot write %s: %s", path, strerror(e));
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
    if (!kw_fs_write_all(fd, data, len)) {
        kw_status s = kw_fail(err, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return s;
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

const char *kw_fs_rel(const char *root, const char *path) {
    if (!path)
        return "?";
    if (root && root[0]) {
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
            n--;
        if (!strncmp(path, root, n) && path[n] == '/')
            return path + n + 1;
    }
    return path;
}
