/* kw_co_sidecar.h: puts the facts of the linked code objects that a HIP
 * compile produced (the host job's .hipfb bundle) into a sidecar: for every
 * kernel and arch, target id, resources and occupancy from the code object's
 * metadata, instruction classes, DPP patterns, memory widths, the listing and,
 * with line tables, the source lines. Kernels found in a code object but not
 * captured from the AST (e.g. written in inline asm only) get an entry too.
 *
 * Schema 2 (docs/sidecar-schema.md): the plugin records only what is small
 * (target id, resources, occupancy) and a table of the code objects
 * (KW_CO_SC_CODE_OBJECTS); `kwalk index` reads the listing and what is
 * derived from it back from the object with kw_co_sidecar_refill, the same
 * code, so the facts are the same. */
#ifndef KW_CO_SIDECAR_H
#define KW_CO_SIDECAR_H

#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

enum {
    KW_CO_SC_LISTING = 1u << 0,      /* disassemble: classes, patterns, listing, lines */
    KW_CO_SC_NO_LINES = 1u << 1,     /* with KW_CO_SC_LISTING: no source lines even when
                                      * the code object has line tables */
    KW_CO_SC_CODE_OBJECTS = 1u << 2, /* record translation_unit.code_objects */
    KW_CO_SC_CACHE = 1u << 3,        /* with KW_CO_SC_LISTING: through the decode cache
                                      * (kw_co_cache.h): a code object decoded once */
};

/* Read the code objects in path (any container kw_co_open reads) and fill
 * sc's kernels[].archs. Strings go into sc's arena.
 *
 * A kernel already in sc (from the AST) whose attrs give its flat workgroup
 * size range (amdgpu_flat_work_group_size "MIN,MAX", launch_bounds "N[,M]" =
 * 1..N) gets its occupancy over that range, when the range's maximum is the
 * code object's .max_flat_workgroup_size: the code object does not record the
 * minimum, which changes occupancy (576,576: 7 waves/SIMD on gfx942, not 8). */
kw_status kw_co_sidecar_fill(kw_sidecar *sc, const char *path, unsigned flags, kw_err *err);

/* The same for the kernels match picks (kw_co_match: the symbol, the
 * demangled name blanks aside, else a part of either; all when NULL). */
kw_status kw_co_sidecar_fill_kernels(kw_sidecar *sc, const char *path, unsigned flags,
                                     const char *match, kw_err *err);

/* The same from code objects already read (set->name names them in
 * messages), leaving out objects i with skip[i] (skip may be NULL). */
typedef struct kw_co_set kw_co_set;
kw_status kw_co_sidecar_fill_set(kw_sidecar *sc, kw_co_set *set, unsigned flags, const char *match,
                                 const bool *skip, kw_err *err);

/* Schema 2: read back what a sidecar whose translation unit names code
 * objects (tu.code_objects) left out. object is the TU's object (its
 * tu.object, or where it lies now). Each named code object is looked up in
 * the object by target id, in order, and checked by size and MD5; the kernels'
 * archs are filled from those that match (KW_CO_SC_LISTING: listing, classes,
 * DPP patterns, memory widths, lines). Every kernel arch of a code object
 * that is missing or changed gets isa_note instead (all of them when the
 * object cannot be read), and *note says the first such problem in one line
 * (NULL when everything matched); both live in sc's arena. A sidecar without
 * code objects is left alone. KW_ERR only when filling fails (out of memory,
 * a disassembly error): the object's state is never an error. */
kw_status kw_co_sidecar_refill(kw_sidecar *sc, const char *object, const char **note, kw_err *err);

/* kw_co_sidecar_refill without the fill (`kwalk index`, index version 5):
 * the object is opened and each named code object checked by size and MD5,
 * the archs of those missing or changed get isa_note and *note says the
 * first problem, but nothing is disassembled: a page decodes its code
 * object when it needs the listing (model/kw_decode.h). */
kw_status kw_co_sidecar_check(kw_sidecar *sc, const char *object, const char **note, kw_err *err);

/* The code object of set for table entry c, among those not taken yet
 * (taken may be NULL: none is) with c's target id (its arch when c has
 * none): the one of c's size and MD5 (*same set), else the first (which then
 * reads as changed); -1 when there is none. The read-back above and a page's
 * decoding (model/kw_decode.c) match code objects by it. */
long kw_co_sidecar_find(const kw_co_set *set, const kw_code_object *c, const bool *taken,
                        bool *same);

/* The decode cache's record (kw_co_cache.h) of code object o of set, line
 * tables read when it has them: the store's, else decoded once and stored
 * (or only returned, with no store). md5: the code object's MD5 in hex when
 * the caller has checked it already (kw_co_sidecar_find), else NULL (it is
 * computed). *data is malloc'd (the caller frees it), *n its length; open it
 * with kw_co_record_open for the code object's kernels.n kernels. KW_ERR only
 * when out of memory or the disassembly fails. */
kw_status kw_co_sidecar_record_of(kw_co_set *set, size_t o, const char *md5, unsigned char **data,
                                  size_t *n, kw_err *err);

#endif
