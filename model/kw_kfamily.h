/* kw_kfamily.h: kernels as people name them, above instantiations. A kernel
 * (a family) is
 *   - a template's instantiations (the model's group of one template);
 *   - for a trampoline (ck_tile's kentry<Kernel>, aiter's
 *     opus_moe_sorting_entry<Functor>): the instantiations running one kernel
 *     struct or functor template, named by that template;
 *   - a precompiled ASM kernel family: the ASM kernels one launch can run
 *     (a loader's table rows), joined across launches that share a kernel,
 *     named by the table (or the kernels' common name prefix);
 *   - a Triton function's specializations;
 *   - a kernel that is none of these, alone.
 * kw_kfam_match matches a name as people type it: a glob over names
 * (`pa_bf16_pertokenFp8_gqa8_*`), a kernel's name or its last part
 * (`add_rmsnorm_quant_kernel` for aiter::add_rmsnorm_quant_kernel), an
 * instantiation's last name part or code object name (an ASM kernel's
 * short name, `pa_bf16_pertokenFp8_gqa8_2tg_4w`), then
 * kw_pick's stages (a symbol, a printed name, a demangled signature, a
 * substring, a regular expression); the hits' kernels say whether the name
 * means one kernel or several. */
#ifndef KW_KFAMILY_H
#define KW_KFAMILY_H

#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_model.h"

typedef enum kw_kfam_kind {
    KW_KFAM_KERNEL,     /* one kernel, not a template */
    KW_KFAM_TEMPLATE,   /* a template's instantiations */
    KW_KFAM_TRAMPOLINE, /* the instantiations of trampolines running one struct/functor */
    KW_KFAM_ASM,        /* precompiled ASM kernels one dispatch picks from */
    KW_KFAM_TRITON,     /* a @triton.jit function's specializations */
} kw_kfam_kind;

typedef struct kw_kfam {
    const char *name; /* what it is called (qualified as printed) */
    kw_kfam_kind kind;
    const char *via;          /* a trampoline family: the trampoline template; else NULL */
    KW_ARRAY(size_t) kernels; /* into the model's kernels, in model order */
} kw_kfam;

typedef struct kw_kfams {
    KW_ARRAY(kw_kfam) v; /* sorted by name */
    size_t *of;          /* per model kernel: its family */
} kw_kfams;

/* The families of m's kernels, in a. */
kw_status kw_kfams_build(kw_kfams *f, const kw_model *m, kw_arena *a, kw_err *err);

/* "topkGatingSoftmax" for "vllm::moe::topkGatingSoftmax": the name after its
 * last "::" outside template arguments. */
const char *kw_kfam_last(const char *name);
/* "kernel", "template", "trampoline", "ASM kernels", "Triton function" */
const char *kw_kfam_kind_name(kw_kfam_kind k);

typedef struct kw_kfam_hits {
    KW_ARRAY(size_t) kernels; /* the instantiations q names, in model order */
    KW_ARRAY(size_t) fams;    /* their families, each once, in family order */
    const char *how;          /* "glob", "kernel name", or kw_pick's */
} kw_kfam_hits;

/* The instantiations query q names (built for arch, NULL: any; belonging to
 * the unit tu names, NULL: any; as kw_pick_match) and their families. */
void kw_kfam_match(const kw_kfams *f, const kw_model *m, const char *q, const char *arch,
                   const char *tu, kw_arena *a, kw_kfam_hits *h);

#endif
