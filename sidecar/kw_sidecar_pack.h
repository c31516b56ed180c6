/* kw_sidecar_pack.h: the sidecar document in the plugin's private exchange
 * form: msgpack (msgpack-c) walked by the schema tables, each record an array
 * of its fields in table order, each string written once and later referred
 * to by its number. The device jobs write their fragments this way and the
 * host job of the same compile reads them back: no YAML is written or parsed
 * between the jobs. It is not a public format: a document starts with a
 * header naming the kwalk version and a fingerprint of the schema tables, and
 * the reader refuses any other (docs/plugin.md, "Fragments"). */
#ifndef KW_SIDECAR_PACK_H
#define KW_SIDECAR_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

/* Append the document's packed form to out. */
kw_status kw_sidecar_pack(const kw_sidecar *sc, kw_buf *out, kw_err *err);
/* Write the packed form atomically to path. */
kw_status kw_sidecar_pack_write_file(const kw_sidecar *sc, const char *path, kw_err *err);

/* Read a packed document into sc (initialized here). name is used in
 * messages. On failure sc is left initialized and empty, and err says
 * "<name>: what". */
kw_status kw_sidecar_unpack(kw_sidecar *sc, const char *name, const void *data, size_t len,
                            kw_err *err);
kw_status kw_sidecar_unpack_file(kw_sidecar *sc, const char *path, kw_err *err);

#endif
