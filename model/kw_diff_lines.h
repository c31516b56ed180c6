/* kw_diff_lines.h: which source lines' code changed between two listings of
 * one kernel on one arch (`kwalk diff`, docs/diff.md): each listing's
 * instructions attributed to their innermost source line through the arch's
 * line table, a line's code the sequence of its instructions' text (branches
 * by their mnemonic alone: their targets move with any code before them),
 * and the lines whose code differs merged into ranges of consecutive lines
 * of one file. */
#ifndef KW_DIFF_LINES_H
#define KW_DIFF_LINES_H

#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

/* Lines first..last of file whose code changed; old_insns / new_insns: the
 * instructions each listing attributes to them. */
typedef struct kw_diff_range {
    const char *file;
    int first, last;
    long long old_insns, new_insns;
} kw_diff_range;

typedef KW_ARRAY(kw_diff_range) kw_diff_ranges;

/* The ranges between o's and n's listings (isa and lines, both read), sorted
 * by file and line, in arena (file names copied). None when either arch has
 * no listing or no line table. */
kw_status kw_diff_lines(const kw_kernel_arch *o, const kw_kernel_arch *n, kw_arena *arena,
                        kw_diff_ranges *out, kw_err *err);

#endif
