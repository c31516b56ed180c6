/* kw_co_embedded.h: finds the sidecars the plugin's embed mode put into host
 * objects (sidecar/kw_sidecar_embed.h): in an ELF object, a relocatable link
 * of several (`ld -r`), a static archive's members, a shared library or an
 * executable. Each record is given as a byte range of the file, so that a
 * reader can read it on its own thread; nothing is decompressed here. */
#ifndef KW_CO_EMBEDDED_H
#define KW_CO_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"

typedef struct kw_co_embedded {
    const char *member; /* the archive member holding it; NULL outside an archive */
    unsigned ordinal;   /* its place among the records of its ELF file, from 0 */
    unsigned count;     /* how many records that ELF file holds */
    uint64_t offset;    /* the payload (a zstd frame): bytes [offset, offset + len) of the file */
    size_t len;
} kw_co_embedded;

/* What kw_co_embedded_scan found at a path. */
typedef struct kw_co_embedded_list {
    bool container; /* the file is an ELF file or an ar archive */
    bool archive;   /* ... an archive */
    bool shared;    /* ... an ELF shared library or executable (not relocatable) */
    kw_co_embedded *v;
    size_t n, cap;
} kw_co_embedded_list;

/* Does a file start with the bytes of an ELF file or an ar archive? */
bool kw_co_embedded_is_container(const void *head, size_t n);

/* The records in path, in file order (archive members in archive order);
 * strings and the array in a. A file that is not a container gives
 * container == false and no record; a container with no section gives none.
 * KW_ERR for a container that cannot be read, or a section whose bytes are
 * not records (naming path, and the member). */
kw_status kw_co_embedded_scan(const char *path, kw_arena *a, kw_co_embedded_list *out, kw_err *err);

#endif
