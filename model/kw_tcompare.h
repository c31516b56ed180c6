/* kw_tcompare.h: two specializations of one @triton.jit function side by
 * side (`kwalk compare A B`, docs/triton.md "Comparing two
 * specializations"): what their constexprs and options are, and what those
 * changed in the code object's resources (first arch of each), its
 * instruction mix and the TTGIR's layouts. Rows hold both values as text
 * ("-" where one has none) and whether they differ; render/
 * kw_tcompare_write.c writes them. */
#ifndef KW_TCOMPARE_H
#define KW_TCOMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

typedef struct kw_tcmp_row {
    const char *key;
    const char *a, *b; /* "-": that specialization has none */
    bool changed;
} kw_tcmp_row;

typedef KW_ARRAY(kw_tcmp_row) kw_tcmp_rows;

typedef struct kw_tcmp {
    const kw_kernel *a, *b;
    const kw_kernel_arch *aa, *ba; /* the first arch of each; NULL when none */
    kw_tcmp_rows constexprs, options, resources, classes, layouts;
} kw_tcmp;

/* The comparison of Triton specializations a and b (both with a triton
 * record) in arena arena. KW_ERR with err when they are not of one function
 * (another name or definition). */
kw_status kw_tcmp_build(kw_tcmp *c, const kw_kernel *a, const kw_kernel *b, kw_arena *arena,
                        kw_err *err);

#endif
