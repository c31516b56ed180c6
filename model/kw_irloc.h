/* kw_irloc.h: the Python line of every line of a Triton specialization's IR
 * texts, each read from its stage's own location information (docs/triton.md,
 * "The IR of every stage"): the MLIR of NAME.ttir and NAME.ttgir (the `#loc`
 * aliases and the `loc(...)` that ends an op's line, kw_irloc_mlir.c), the
 * LLVM IR of NAME.llir (an instruction's `!dbg` DILocation and its scope's
 * DIFile, kw_irloc_llir.c) and the assembly of NAME.amdgcn (the `.file` and
 * `.loc` directives before an instruction, kw_irloc_amdgcn.c). One position
 * per line: the innermost one the stage gives (a call site's callee, an
 * inlined DILocation itself, the `.loc` row), as a line table does. */
#ifndef KW_IRLOC_H
#define KW_IRLOC_H

#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"

typedef struct kw_irloc {
    const char *file; /* the path as the stage writes it; NULL: the line has no position */
    int line;         /* > 0 when file is set */
} kw_irloc;

/* One kw_irloc per line of the text (a last line without '\n' counts). */
typedef KW_ARRAY(kw_irloc) kw_irlocs;

/* Each parser fills out (empty on entry) from text[0, len), in arena a; KW_ERR
 * only when out of memory. What a parser does not recognize has no position. */
kw_status kw_irloc_mlir(kw_arena *a, const char *text, size_t len, kw_irlocs *out, kw_err *err);
kw_status kw_irloc_llir(kw_arena *a, const char *text, size_t len, kw_irlocs *out, kw_err *err);
kw_status kw_irloc_amdgcn(kw_arena *a, const char *text, size_t len, kw_irlocs *out, kw_err *err);

/* Helpers of the three parsers (kw_irloc.c). */
/* A number >= 0 written in decimal at p (at most 9 digits): its value, *end
 * after it; -1 (and *end = p) when there is none. */
long kw_irloc_num(const char *p, const char *e, const char **end);
/* The last occurrence of needle in [p, e), or NULL. */
const char *kw_irloc_last(const char *p, const char *e, const char *needle);
/* One line's entry appended to out; NULL when out of memory. */
kw_irloc *kw_irloc_push(kw_arena *a, kw_irlocs *out, const char *file, int line);

#endif
