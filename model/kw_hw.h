/* kw_hw.h: the products of the one hardware table (codeobj/kw_co_hw.c:
 * annotations/hw/amdgpu-peaks.txt per product, amdgpu-occupancy.txt per
 * arch) as the model reads them: published peak rates of AMD Instinct
 * products for the memory and bound analysis of a walkthrough. A value the
 * file does not give is negative ("not known"). The table is read once per
 * process; KWALK_ANNOTATIONS does not replace it. */
#ifndef KW_HW_H
#define KW_HW_H

#include <stdbool.h>

#include "codeobj/kw_codeobj.h"
#include "common/kw_arena.h"
#include "common/kw_err.h"

typedef kw_co_gpu kw_gpu;

typedef struct kw_gpus {
    kw_arena arena;
    KW_ARRAY(kw_gpu) v; /* in file order */
} kw_gpus;

/* The products of the hardware table; KW_ERR (with the table's one-line
 * reason) when the embedded files did not read. */
kw_status kw_gpus_load(kw_gpus *g, kw_err *err);
void kw_gpus_free(kw_gpus *g);
/* The product named name (case-insensitive), or NULL. */
const kw_gpu *kw_gpu_named(const kw_gpus *g, const char *name);
/* The default product of arch (its "default" one, else its first), or NULL. */
const kw_gpu *kw_gpu_for_arch(const kw_gpus *g, const char *arch);
/* The wave size of arch (a target id's features ignored) from the hardware
 * table, or 0 when the table does not know it. */
int kw_hw_wave_size(const char *arch);

#endif
