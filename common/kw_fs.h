/* kw_fs.h: file-system helpers: the one checked reader that every file kwalk
 * reads goes through (regular files only, a size limit per kind of file, code
 * objects mapped rather than copied), atomic writes (temporary file then
 * rename, so readers never see a partial file), mkdir -p. */
#ifndef KW_FS_H
#define KW_FS_H

#include <stddef.h>
#include <stdint.h>

#include "common/kw_err.h"

/* What a file is read as. Each kind has a size limit (docs/inputs.md); a larger
 * file is refused with one line before anything is allocated for it. */
typedef enum kw_fs_kind {
    KW_FS_TEXT, /* source files, Python files, annotations, manifests: 64 MiB */
    KW_FS_DATA, /* sidecars, indexes, traces, the plugin's fragments: 1 GiB */
    KW_FS_CODE  /* code objects and the files holding them (kw_fs_map): 4 GiB */
} kw_fs_kind;

/* The size limit of a kind, in bytes. */
uint64_t kw_fs_limit(kw_fs_kind kind);

/* Read a whole file into a malloc'd buffer (NUL-terminated); caller frees.
 * Only a regular file (or a symbolic link to one) is read: a directory, FIFO,
 * socket or device is refused without blocking (the open is non-blocking), as
 * is a file larger than the kind's limit (also one that grows past it while it
 * is read). On error *data is NULL and *len 0. */
kw_status kw_fs_read_as(const char *path, kw_fs_kind kind, char **data, size_t *len, kw_err *err);
/* The first bytes of a file (up to n; *got says how many), with
 * kw_fs_read_as's checks: what a reader looks at to tell a file's form
 * before it reads it whole or hands it to a library (an SQLite database). */
kw_status kw_fs_head(const char *path, kw_fs_kind kind, void *buf, size_t n, size_t *got,
                     kw_err *err);
/* path opened for reading (*fd, the caller closes it; *size its size) with
 * kw_fs_read_as's checks: for a library that reads only the parts it needs
 * (libelf's ELF_C_READ: an object's section headers, not its bytes). */
kw_status kw_fs_open_fd(const char *path, kw_fs_kind kind, int *fd, uint64_t *size, kw_err *err);
/* len bytes of a file from offset off (NUL-terminated, malloc'd): a record
 * inside a larger file (a sidecar embedded in an object). The range must lie
 * in the file and len within the kind's limit. */
kw_status kw_fs_read_range(const char *path, kw_fs_kind kind, uint64_t off, size_t len, char **data,
                           kw_err *err);
/* kw_fs_read_as(path, KW_FS_DATA, ...). */
kw_status kw_fs_read(const char *path, char **data, size_t *len, kw_err *err);

/* A regular file's bytes mapped into memory (private, copy on write: changes
 * stay in this process), so that a large file costs only the pages touched. */
typedef struct kw_fs_map {
    unsigned char *data; /* len bytes; not NUL-terminated; non-NULL after kw_fs_map_open */
    size_t len;
    void *base_; /* the mapping (NULL for an empty file) */
} kw_fs_map;

/* Map path, with kw_fs_read_as's checks (regular file, the kind's limit). */
kw_status kw_fs_map_open(kw_fs_map *m, const char *path, kw_fs_kind kind, kw_err *err);
void kw_fs_map_close(kw_fs_map *m);

/* Write data to path (created, or truncated): one write for most files. */
kw_status kw_fs_write(const char *path, const void *data, size_t len, kw_err *err);
/* Write data to path atomically: path.tmp.<pid>.<n>, fsync-free, then rename. */
kw_status kw_fs_write_atomic(const char *path, const void *data, size_t len, kw_err *err);
/* Create a directory and its parents; existing directories are fine. */
kw_status kw_fs_mkdirs(const char *path, kw_err *err);

/* path relative to root when it lies under root (trailing slashes of root
 * ignored), else path itself; "?" for NULL. Text only: nothing is resolved. */
const char *kw_fs_rel(const char *root, const char *path);

#endif
