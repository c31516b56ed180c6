/* kw_co_sidecar.h: puts the facts of the linked code objects that a HIP
 * compile produced (the host job's .hipfb bundle) into a sidecar: for every
 * kernel and arch, target id, resources and occupancy from the code object's
 * metadata, instruction classes, DPP patterns, memory widths, the listing and,
 * with line tables, the source lines. Kernels found in a code object but not
 * captured from the AST (e.g. written in inline asm only) get an entry too. */
#ifndef KW_CO_SIDECAR_H
#define KW_CO_SIDECAR_H

#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

enum {
    KW_CO_SC_LISTING = 1u << 0,  /* disassemble: classes, patterns, listing, lines */
    KW_CO_SC_NO_LINES = 1u << 1, /* with KW_CO_SC_LISTING: no source lines even when
                                  * the code object has line tables */
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

#endif
