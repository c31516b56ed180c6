/* kw_co_sidecar.h: puts the facts of the linked code objects that a HIP
 * compile produced (the host job's .hipfb bundle) into a sidecar: for every
 * kernel and arch, target id, resources and occupancy from the code object's
 * metadata, instruction classes, DPP patterns, memory widths, the listing and,
 * with line tables, the source lines. Kernels found in a code object but not
 * captured from the AST (e.g. written in inline asm only) get an entry too. */
#ifndef KW_CO_SIDECAR_H
#define KW_CO_SIDECAR_H

#include "kw_err.h"
#include "kw_sidecar.h"

enum {
    KW_CO_SC_LISTING = 1u << 0, /* disassemble: classes, patterns, listing, lines */
};

/* Read the code objects in path (any container kw_co_open reads) and fill
 * sc's kernels[].archs. Strings go into sc's arena. */
kw_status kw_co_sidecar_fill(kw_sidecar *sc, const char *path, unsigned flags, kw_err *err);

#endif
