/* kw_sidecar_embed.h: the sidecar carried inside the host object (the
 * plugin's opt-in embed mode, docs/plugin.md "Embed mode"), so that it
 * survives ccache, sccache and remote builds, which return the object only.
 *
 * The section KW_EMBED_SECTION is non-allocated (no SHF_ALLOC: never loaded,
 * never part of the program's memory image) and holds records, one per
 * translation unit: the 8 bytes KW_EMBED_MAGIC, the payload's length as a
 * little-endian 64-bit number, then the payload, the sidecar as one zstd
 * frame (kw_sidecar_zstd.h). A relocatable link (`ld -r`), an archive and a
 * final link (executable or shared library) concatenate the sections of their
 * inputs; a reader walks the records and skips zero bytes between them (a
 * linker's alignment padding). docs/sidecar-schema.md describes the layout. */
#ifndef KW_SIDECAR_EMBED_H
#define KW_SIDECAR_EMBED_H

#include <stddef.h>

#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

#define KW_EMBED_SECTION ".kwalk.sidecar"
#define KW_EMBED_MAGIC "KWALKSC1"
enum { KW_EMBED_MAGIC_LEN = 8, KW_EMBED_HEADER_LEN = 16 };

/* sc as one record (header and zstd payload) in a malloc'ed *out. */
kw_status kw_sidecar_embed_record(const kw_sidecar *sc, char **out, size_t *out_len, kw_err *err);

/* The next record of a section's contents sec[0..len), from *pos on: its
 * payload is sec[*payload .. *payload + *payload_len) and *pos moves past it.
 * KW_OK with *payload_len == 0 at the end; KW_ERR (naming name) for bytes that
 * are neither a record nor padding, or a record that runs past the end. */
kw_status kw_sidecar_embed_next(const char *name, const unsigned char *sec, size_t len, size_t *pos,
                                size_t *payload, size_t *payload_len, kw_err *err);

#endif
