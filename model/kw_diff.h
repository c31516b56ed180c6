/* kw_diff.h: what changed between two indexes (`kwalk diff OLD NEW`), per
 * kernel instantiation and arch, as rows sorted by consequence. Kernels are
 * matched by device symbol; one with internal linkage by its symbol and its
 * unit's source file; a Triton specialization by its function, arch,
 * signature and constexprs (not its hash). For a kernel in both, per arch
 * in both: VGPR, AGPR,
 * SGPR, LDS, scratch, VGPR/SGPR spills, occupancy (and its limiter), the
 * instruction count and each instruction class's count, and whether the ISA
 * listing's text changed (read through kw_index_read_listing) and, with line
 * tables in both, the ranges of source lines whose code changed
 * (kw_diff_lines.h). A kernel (or
 * one of its archs) in one index only is a row "added" or "removed", with the
 * launch sites and entry points of the index that has it. render/kw_diff_write.h writes the
 * rows; docs/diff.md describes them. */
#ifndef KW_DIFF_H
#define KW_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "index/kw_index.h"

/* What a row is about; the names (kw_diff_kind_name) are --fail-on's kinds. */
typedef enum kw_diff_kind {
    KW_DIFF_OCCUPANCY, /* occupancy (waves/SIMD); the limiters in old_text/new_text */
    KW_DIFF_SPILLS,    /* field "vgpr_spill" or "sgpr_spill" */
    KW_DIFF_REMOVED,   /* a kernel (arch NULL) or one of its archs in OLD only */
    KW_DIFF_VGPR,
    KW_DIFF_AGPR,
    KW_DIFF_SGPR,
    KW_DIFF_LDS,     /* bytes */
    KW_DIFF_SCRATCH, /* bytes per lane */
    KW_DIFF_ADDED,   /* in NEW only */
    KW_DIFF_LIMITER, /* the occupancy limiter alone changed (old_text, new_text) */
    KW_DIFF_INSNS,   /* the instruction count */
    KW_DIFF_CLASS,   /* one instruction class's count (field: the class key) */
    KW_DIFF_ISA,     /* the listing's text differs */
    KW_DIFF_LINES,   /* the code of source lines src.line..src_last changed (line tables) */
    KW_DIFF_OPTION,  /* a Triton compile option (field: its name; old_text, new_text) */
    KW_DIFF_NKINDS
} kw_diff_kind;

/* Which way a row goes. */
typedef enum kw_diff_dir {
    KW_DIFF_WORSE,  /* a regression: occupancy down, spills/registers/LDS/scratch up, removed */
    KW_DIFF_CHANGE, /* neither: added, instruction counts, listing, limiter */
    KW_DIFF_BETTER  /* an improvement: the opposite of a regression */
} kw_diff_dir;

typedef struct kw_diff_row {
    kw_diff_kind kind;
    kw_diff_dir dir;
    const char *name;               /* printed name (the symbol when the index has none; a
                                       Triton specialization's with [constexpr=value, ...]) */
    const char *symbol;             /* device symbol */
    const char *tu;                 /* internal linkage: its unit's source; NULL otherwise */
    const char *arch;               /* NULL: the whole instantiation (added, removed) */
    const char *field;              /* "vgpr", "vgpr_spill", "occupancy", a class key, "isa", ... */
    long long old_value, new_value; /* -1 where not a number (added, removed, isa, limiter) */
    const char *old_text, *new_text; /* occupancy/limiter: the limiters; option: the values;
                                        NULL otherwise */
    KW_ARRAY(kw_loc) launches;       /* added, removed: the launch sites of the index that has it */
    /* added, removed: the host entry points reaching one of its launches
     * in the index that has it (as `kwalk list` finds them) */
    KW_ARRAY(const kw_entry *) entries;
    /* lines: the changed lines src.file:src.line..src_last; old_value /
     * new_value the instructions each build attributes to them */
    kw_loc src;
    int src_last;
} kw_diff_row;

typedef struct kw_diff {
    kw_arena arena;
    KW_ARRAY(kw_diff_row) rows; /* sorted (kw_diff_sort) */
    size_t compared;            /* instantiations in both */
} kw_diff;

/* The rows between old and new, restricted to arch when not NULL. The
 * listings of a database index read later (kw_index_read_file_later with a
 * reader) are read on reader 0 of each. kw_diff_free frees d (also after a
 * failure). */
kw_status kw_diff_build(kw_diff *d, const kw_index *old_ix, const kw_index *new_ix,
                        const char *arch, kw_err *err);
void kw_diff_free(kw_diff *d);

/* Sort rows by consequence: regressions before the rest before improvements;
 * among regressions occupancy drops, then new spills, removed
 * instantiations, VGPR/AGPR/SGPR/LDS/scratch growth, each kind with the
 * largest change first (improvements the same way); the rest (added,
 * limiter, instruction counts, listing) by instantiation; ties by printed
 * name (natural order), symbol, unit, arch, kind, field. */
void kw_diff_sort(kw_diff_row *rows, size_t n);

/* "occupancy", "spills", "removed", "vgpr", "agpr", "sgpr", "lds", "scratch",
 * "added", "limiter", "insns", "class", "isa", "lines", "option". */
const char *kw_diff_kind_name(kw_diff_kind k);
/* The kind of a name, KW_DIFF_NKINDS when none. */
kw_diff_kind kw_diff_kind_of(const char *name);
/* Does the row count as kind k occurring for --fail-on: a regression of k,
 * or for added / isa / lines / option / limiter / insns / class any row of k. */
bool kw_diff_fails(const kw_diff_row *r);

#endif
