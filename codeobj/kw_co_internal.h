/* kw_co_internal.h: what the kw_co_*.c files share and nobody else sees. */
#ifndef KW_CO_INTERNAL_H
#define KW_CO_INTERNAL_H

#include <stdint.h>

#include "codeobj/kw_codeobj.h"

/* A data file embedded at build time (cmake/KwalkEmbed.cmake): its name
 * under annotations/, its bytes (NUL-terminated) and their number. */
typedef struct kw_co_data_file {
    const char *name;
    const char *data;
    size_t len;
} kw_co_data_file;

/* annotations/hw/amdgpu-occupancy.txt and amdgpu-peaks.txt (kw_co_hw_data.c,
 * read by kw_co_hw.c). */
extern const kw_co_data_file kw_co_hw_files[];
extern const size_t kw_co_hw_nfiles;

/* Little-endian reads from unaligned bytes. */
static inline uint16_t kw_co_le16(const unsigned char *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t kw_co_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t kw_co_le64(const unsigned char *p) {
    return (uint64_t)kw_co_le32(p) | (uint64_t)kw_co_le32(p + 4) << 32;
}

/* Called by the input walker for every AMDGPU ELF found. origin describes
 * where it came from, container how it was wrapped; bundle_id is NULL for a
 * bare code object. */
typedef kw_status (*kw_co_found_fn)(void *ctx, const char *origin, const char *container,
                                    const char *bundle_id, const unsigned char *data,
                                    size_t size, kw_err *err);

/* Walk an input (mutable private copy: libelf may need to write to it). Also
 * reports non-ELF entries through note (may be NULL). */
typedef void (*kw_co_note_fn)(void *ctx, const char *note);
kw_status kw_co_walk(const char *name, unsigned char *data, size_t size, kw_co_found_fn found,
                     kw_co_note_fn note, void *ctx, bool all_entries, kw_err *err);

/* kw_co_object.priv: the open libelf handle and, once asked for, libdw's. */
typedef struct kw_co_priv {
    struct Elf *elf;
    struct Dwarf *dwarf;
    bool dwarf_tried;
} kw_co_priv;

/* kw_co_md5.c: the first 8 bytes (little-endian) of the MD5 of data. */
uint64_t kw_co_md5_low64(const unsigned char *data, size_t n);

/* kw_co_elf.c: parse one AMDGPU code object into a new entry of set: its
 * bytes copied into set's arena, or, with KW_CO_ADD_BORROW, used where they
 * are (a file kw_co_open mapped, kept until kw_co_set_free); with
 * KW_CO_ADD_IDS only its identity is read (target id, arch, ELF flags,
 * metadata version, whether it has line tables), no kernel (kw_co_ids.h). */
enum { KW_CO_ADD_BORROW = 1u << 0, KW_CO_ADD_IDS = 1u << 1 };
kw_status kw_co_add_elf(kw_co_set *set, const char *origin, const char *container,
                        const char *bundle_id, const unsigned char *data, size_t size, unsigned how,
                        kw_err *err);
void kw_co_object_release(kw_co_object *obj);
/* Bytes addr..addr+len of section shndx (addr in the section's address
 * space: its sh_addr for linked objects, 0 for relocatable ones), or NULL. */
const unsigned char *kw_co_section_bytes(const kw_co_object *obj, size_t shndx, uint64_t addr,
                                        uint64_t len);

/* kw_co_lines.c: fill l->locs and insns[].loc from .debug_line. */
void kw_co_map_lines(const kw_co_object *obj, kw_co_listing *l);

/* kw_co_disasm.c: drop the disassembler contexts of a set. */
void kw_co_disasm_release(kw_co_set *set);

#endif
