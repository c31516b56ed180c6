/* kw_decode.h: a kernel's listings decoded when a page needs them (index
 * version 5, docs/index-schema.md "Listings decoded on use"). `kwalk index`
 * stores no listing, line table or instruction class of a kernel whose
 * translation unit names its code objects (translation_unit.code_objects:
 * target id, size, MD5); a page fills them from the code object itself, read
 * from the unit's object, checked by size and MD5 and disassembled through
 * the decode cache (codeobj/kw_co_cache.h: once per code object, kept by its
 * MD5). A code object gone or changed since the index gives the arch the
 * isa_note `kwalk index` gives one it finds so (`ARCH ISA not shown: ...` on
 * the page), never another object's listing. A Triton specialization
 * (index version 6) is decoded the same way from its cache folder's .hsaco
 * (its unit's object), its line table's paths rewritten with the
 * --map-prefix rules the index keeps (kw_triton.map_prefix); a .hsaco this
 * LLVM cannot disassemble gives its arch `lines_note: no listing: ...`.
 *
 * Each code object is opened, checked and its record read once per process
 * (kept in memory for the pages after); several page workers may ask at
 * once. */
#ifndef KW_DECODE_H
#define KW_DECODE_H

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "index/kw_index.h"

typedef struct kw_decode kw_decode;

/* The code objects ix's units name (none: an index of schema 1 sidecars, or
 * a YAML export); NULL when out of memory. Nothing is opened yet. */
kw_decode *kw_decode_new(const kw_index *ix);
void kw_decode_free(kw_decode *d);

/* k as its page shows it: when an arch of k has its listing in a code object
 * (no listing, no isa_note, its unit names code objects), *out is a copy of
 * k in a whose archs are filled from their code objects (listing, line
 * table, instruction classes, DPP patterns, memory widths, lines note; or
 * isa_note); else *out is k. k is not changed. KW_ERR when out of memory or
 * a disassembly fails. */
kw_status kw_decode_kernel(kw_decode *d, const kw_kernel *k, kw_arena *a, const kw_kernel **out,
                           kw_err *err);

/* Open, check and decode every code object the index names, `threads` at
 * once (0: $KWALK_JOBS when set, else every online CPU), one code object
 * each; the records then serve every page of `site` and `render --all`. */
kw_status kw_decode_all(kw_decode *d, unsigned threads, kw_err *err);

#endif
