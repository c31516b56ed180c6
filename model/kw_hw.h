/* kw_hw.h: published peak rates of AMD Instinct products
 * (annotations/hw/amdgpu-peaks.txt) for the memory and bound analysis of a
 * walkthrough. A value the file does not give is negative ("not known").
 * Per-arch occupancy facts are the code-object library's one table
 * (kw_co_hw_lookup, kw_codeobj.h); kw_hw_wave_size reads the wave size from it. */
#ifndef KW_HW_H
#define KW_HW_H

#include <stdbool.h>

#include "model/kw_annot.h"

typedef struct kw_gpu {
    const char *product; /* "MI300X" */
    const char *arch;    /* "gfx942" */
    bool is_default;     /* the product used for its arch unless --gpu says otherwise */
    double compute_units, peak_clock_mhz, memory_gb, hbm_tbs;
    double fp32_vector_tflops, fp32_matrix_tflops, fp16_tflops, bf16_tflops, fp8_tflops;
    double lds_kib_per_cu, vgprs_per_simd;
    const char *source;
} kw_gpu;

typedef struct kw_gpus {
    kw_arena arena;
    KW_ARRAY(kw_gpu) v; /* in file order */
} kw_gpus;

kw_status kw_gpus_load(kw_gpus *g, const kw_annot *a, kw_err *err);
void kw_gpus_free(kw_gpus *g);
/* The product named name (case-insensitive), or NULL. */
const kw_gpu *kw_gpu_named(const kw_gpus *g, const char *name);
/* The default product of arch (its "default" one, else its first), or NULL. */
const kw_gpu *kw_gpu_for_arch(const kw_gpus *g, const char *arch);
/* The wave size of arch (a target id's features ignored) from the code-object
 * library's occupancy table, or 0 when the table does not know it. */
int kw_hw_wave_size(const char *arch);

#endif
