/* kw_sidecar_zstd.h: the compressed form of a sidecar. The plugin writes a
 * sidecar as one zstd frame (libzstd, Debian's libzstd) holding the YAML text
 * byte for byte (docs/sidecar-schema.md, "Compression"); every reader takes
 * either form and tells them apart by the frame's magic number, so the file
 * name (FILE.kwalk.yaml.zst by convention) never decides how it is read. */
#ifndef KW_SIDECAR_ZSTD_H
#define KW_SIDECAR_ZSTD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_err.h"

/* The suffix the plugin gives a compressed sidecar, after ".kwalk.yaml". */
#define KW_SIDECAR_ZSTD_SUFFIX ".zst"

/* Does data[0..len) start with a zstd frame's magic number? */
bool kw_sidecar_is_zstd(const void *data, size_t len);

/* Compress data[0..len) as one frame (libzstd's default level, with the
 * content checksum) into a malloc'ed *out of *out_len bytes. */
kw_status kw_sidecar_zstd_compress(const void *data, size_t len, char **out, size_t *out_len,
                                   kw_err *err);

/* Decompress the frame(s) in data[0..len) into a malloc'ed, NUL-terminated
 * *text of *text_len bytes. At most max bytes come out: a larger result (a
 * damaged or hostile file) is an error, as is a truncated or damaged frame.
 * name prefixes the one-line error. */
kw_status kw_sidecar_zstd_decompress(const char *name, const void *data, size_t len, size_t max,
                                     char **text, size_t *text_len, kw_err *err);

#endif
