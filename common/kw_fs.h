/* kw_fs.h: file-system helpers: whole-file reads, atomic writes (temporary
 * file then rename, so readers never see a partial file), mkdir -p. */
#ifndef KW_FS_H
#define KW_FS_H

#include <stddef.h>

#include "kw_err.h"

/* Read a whole file into a malloc'd buffer (NUL-terminated); caller frees. */
kw_status kw_fs_read(const char *path, char **data, size_t *len, kw_err *err);
/* Write data to path atomically: path.tmp.<pid>.<n>, fsync-free, then rename. */
kw_status kw_fs_write_atomic(const char *path, const void *data, size_t len, kw_err *err);
/* Create a directory and its parents; existing directories are fine. */
kw_status kw_fs_mkdirs(const char *path, kw_err *err);

#endif
