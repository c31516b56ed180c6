/* kw_pick.h: the kernel instantiations a query names (`kwalk render
 * KERNEL`). The query is matched, in order, as a device symbol, a printed
 * name, a template's name (or the kernel struct a trampoline runs), a
 * printed name or demangled signature with blanks ignored (kw_name_written,
 * codeobj/kw_names.h: the matcher `isa --kernel` shares), a substring of
 * printed names or symbols, and finally a POSIX extended regular expression
 * over printed names; the first stage that matches any kernel gives the
 * hits. */
#ifndef KW_PICK_H
#define KW_PICK_H

#include "common/kw_arena.h"
#include "model/kw_model.h"

typedef struct kw_pick_hits {
    KW_ARRAY(size_t) v; /* indexes into the model's kernels, in model order */
} kw_pick_hits;

/* The kernels of m query q matches, built for arch (NULL: any) and, for one
 * with internal linkage, belonging to the unit whose source, object or
 * sidecar file tu names (NULL: any), into *h (in a). */
void kw_pick_match(const kw_model *m, const char *q, const char *arch, const char *tu, kw_arena *a,
                   kw_pick_hits *h);

/* Whether kernel mk was built for arch (NULL: any) and, with internal
 * linkage, belongs to the unit tu names (NULL: any): the filters of
 * kw_pick_match. */
bool kw_pick_fits(const kw_mkernel *mk, const char *arch, const char *tu);

#endif
