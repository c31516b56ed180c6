/* kw_page.h: the page model of one kernel instantiation: what its walkthrough
 * says that is computed rather than copied from the index, built once before
 * render/ writes a line of it. A page holds
 *   - the kernel's device record, or a precompiled ASM kernel's facts read
 *     from its code object (kw_asm_kernel.h);
 *   - the shape bindings: --shape plus the kernel's integral template
 *     constants;
 *   - per launch, the entry points' call paths reaching it (kw_model_paths);
 *   - with --shape, each dispatch condition's verdict (section 1), evaluated
 *     with the shape plus the constants of the call or launch it is on;
 *   - each launch's grid and block for the shape and, per arch shown, the IR
 *     facts' bytes and FLOP per thread evaluated for that launch (section 4).
 *   - the archs shown (--arch picks one);
 *   - the data-flow diagram's boxes (kw_flow.h), from the IR facts of the
 *     first arch shown that has them;
 *   - the device call tree as shown (kw_calltree.h): helper frames folded,
 *     repeated calls merged, short labels;
 *   - the source files its sections quote, read when it is opened: the
 *     kernel's, each launch's (and its library <<<>>>'s), each inline asm
 *     statement's, each line-table row's; render/ looks them up with
 *     kw_page_src, which never reads;
 *   - for a Triton specialization (language: triton, docs/triton.md): its
 *     facts, the lines of the @triton.jit function (def to the end of its
 *     body) and of each launch's kernel[grid](...) statement, found in the
 *     Python source; the files of the launches' call chains are read too.
 * Everything lives in the caller's arena; kw_page_free frees the code object. */
#ifndef KW_PAGE_H
#define KW_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "codeobj/kw_codeobj.h"
#include "model/kw_expr.h"
#include "model/kw_calltree.h"
#include "model/kw_flow.h"
#include "model/kw_model.h"
#include "model/kw_src.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_sidecar_ir.h"

/* One arch of the kernel: its name, its ISA facts record
 * (kernels[].archs.<arch>: target_id, resources, classes, isa, lines), its IR
 * facts (NULL when none); of: its place in the list kw_page_finish chose from. */
typedef struct kw_page_arch {
    const char *arch;
    const kw_kernel_arch *facts;
    const kw_irf *ir;
    size_t of;
    /* occupancy at the block size the kernel is compiled for (its
     * __launch_bounds__ / amdgpu_flat_work_group_size maximum, the code
     * object's .max_flat_workgroup_size): known only when the source fixes it */
    kw_co_occ_block occ_block;
} kw_page_arch;

/* A dispatch condition as the --shape sees it. A loop, a `default:`, a
 * compile-time constant, or a page without --shape is not evaluated (tried
 * false, why NULL). */
typedef struct kw_page_verdict {
    const kw_guard *g;
    bool tried;      /* the evaluator was asked */
    bool evaluated;  /* and answered: holds is the path's verdict */
    bool holds;      /* the condition is as the path needs it (g->holds) */
    const char *why; /* tried but not evaluated: the evaluator's message */
    bool said;       /* the printer wrote why on the page already (once a page) */
} kw_page_verdict;

/* A launch's grid and block for the page's shape (kw_operand_value): the
 * "With --shape" column of section 1 and section 4's geometry. */
typedef struct kw_page_geom {
    bool block_known, grid_known;
    double block[3], grid[3];
    double threads_per_block, blocks;
    const char *why_block, *why_grid;
} kw_page_geom;

/* The IR facts' per-thread work of one arch at one launch: the expression
 * as written (NULL when none) and, when the launch binds its names, its value. */
typedef struct kw_page_work {
    bool krd, kwr, kfl; /* read / written / FLOP evaluated */
    double rd, wr, fl;
    const char *trd, *twr, *tfl;
} kw_page_work;

typedef struct kw_page {
    const kw_mkernel *mk;
    const kw_kernel *k; /* mk->k, else the ASM kernel read now (asm_k); NULL for neither */
    /* a precompiled ASM kernel: its code object read now (kw_co_sidecar.h) */
    kw_sidecar asm_sc;
    const kw_kernel *asm_k; /* the kernel found in it, or NULL */
    const char *asm_note;   /* why not, when asm_k is NULL */
    const kw_shape *user_shape; /* --shape as given (the model's), NULL when none */
    kw_shape shape;         /* --shape plus what the kernel binds (template constants) */
    kw_mpaths *paths;       /* per launch of the kernel: the entry points reaching it */
    KW_ARRAY(kw_page_verdict) verdicts;
    KW_ARRAY(kw_page_arch) archs; /* the archs shown */
    kw_page_geom *geom;           /* per launch of the kernel */
    kw_page_work *work;           /* per arch shown with IR facts, per launch: [a * nl + i] */
    kw_flow flow;                 /* section 3's diagram (kw_flow.h) */
    kw_calltree tree;             /* section 2's device call tree (kw_calltree.h) */
    kw_srcs *srcs;                /* the source files read (shared by the pages of a worker) */
    /* a Triton specialization: its facts (NULL for every other kernel), the
     * @triton.jit function's lines [def_first, def_last] in its source (0
     * when not found: def_why says why), and per launch the last line of its
     * kernel[grid](...) statement (0 when not found) */
    const kw_triton *triton;
    int def_first, def_last;
    const char *def_why;
    int *launch_last;
    /* section 4's numbers and the site's charts' (kw_page_perf.h), built
     * after kw_page_finish; NULL before */
    const struct kw_page_perf *perf;
    /* built after kw_page_finish (NULL until then): section 5 and the site's
     * source <-> ISA view (kw_page_isa.h); a Triton page's TTGIR reading
     * (kw_ttgir.h; NULL for every other kernel) */
    const struct kw_page_isa *isa;
    const struct kw_ttgir *ttgir;
} kw_page;

void kw_page_init(kw_page *p);
void kw_page_free(kw_page *p);

/* Start mk's page: its kernel (a precompiled ASM kernel's code object is read
 * now), the source files it quotes (into srcs), the shape bindings (the
 * model's --shape, m->shape, plus template constants) and the entry paths of
 * each launch; with a --shape, every dispatch condition's verdict. */
kw_status kw_page_open(kw_page *p, kw_model *m, const kw_mkernel *mk, kw_srcs *srcs, kw_arena *a,
                       kw_err *err);
/* Finish it for the kernel's archs (archs NULL) or the narchs given (a
 * test's): the archs shown (only the one named only, --arch, when not NULL;
 * in the kernel's or the given order), each
 * launch's geometry, and its work per arch shown with IR facts (with the
 * page's --shape, p->user_shape, where it gives the names). */
kw_status kw_page_finish(kw_page *p, kw_model *m, const kw_page_arch *archs, size_t narchs,
                         const char *only, kw_arena *a, kw_err *err);

/* The source file at path as read when the page was opened (ok false with
 * why when it cannot be read); NULL for a file the page did not read. */
const kw_src_file *kw_page_src(const kw_page *p, const char *path);

/* The verdict of guard g (a guard of a call on a path or of a launch of the
 * page), or NULL when the page has none for it. */
const kw_page_verdict *kw_page_verdict_of(const kw_page *p, const kw_guard *g);

#endif
