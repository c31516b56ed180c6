/* kw_ttgir.h: a Triton page's reading of its TTGIR (docs/triton.md), the part
 * of the page model sections 2 and 4 write their TTGIR lines from, built once
 * per page (kw_ttgir_build) from the layouts and ops the cache reader kept
 * (kw_triton.layouts, .memory_ops):
 *   - per layout, what its parameters say beyond the table: a blocked
 *     layout's tile (sizePerThread x threadsPerWarp x warpsPerCTA), an MFMA
 *     layout's instruction shape and wave arrangement, a shared layout's
 *     swizzle;
 *   - per load / store / LDS / dot op, the elements one thread holds under a
 *     blocked layout whose tile divides the tensor, and where its lanes
 *     fall: the distance between neighbouring lanes along the layout's
 *     fastest dim (order[0]) and the wave's footprint;
 *   - per tl.dot (its tt.dot ops of one Python position: the loop's and
 *     the copies pipelining writes after it), M x N x K, its FLOP (2MNK) per
 *     execution, its executions per program (the scf.for trip counts the
 *     cache reader kept), its result's MFMA shape and the
 *     MFMA instructions one execution needs per program and per wave, its
 *     operand bytes, and per arch shown the matrix peak and ridge of the GPU
 *     (annotations/hw/amdgpu-peaks.txt) against its FLOP per operand byte.
 * Only what the parameters say; nothing is derived where a shape does not
 * divide. Everything lives in the caller's arena. */
#ifndef KW_TTGIR_H
#define KW_TTGIR_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_hw.h"
#include "model/kw_page.h"
#include "sidecar/kw_sidecar.h"

enum { KW_TTGIR_MAXDIM = 8 };

/* An MFMA layout (#ttg.amd_mfma): its instrShape (M, N, K) and warpsPerCTA. */
typedef struct kw_ttgir_mfma {
    long long shape[3];
    long long warps[2];
} kw_ttgir_mfma;

/* What a layout's line says (the first that applies, in this order). */
typedef enum kw_ttgir_kind {
    KW_TTGIR_OTHER,   /* no line: the table says all */
    KW_TTGIR_BLOCKED, /* rank, tile, spt, order */
    KW_TTGIR_MFMA,    /* mfma */
    KW_TTGIR_SHARED,  /* vec, per_phase, max_phase, order[0] */
} kw_ttgir_kind;

typedef struct kw_ttgir_layout {
    const kw_triton_layout *l;
    kw_ttgir_kind kind;
    size_t rank;
    long long tile[KW_TTGIR_MAXDIM], spt[KW_TTGIR_MAXDIM], order[KW_TTGIR_MAXDIM];
    kw_ttgir_mfma mfma;
    long long vec, per_phase, max_phase;
} kw_ttgir_layout;

/* A memory op's elements per thread under a blocked layout (known false
 * where the layout is not blocked or a dimension is not a whole number of
 * tiles): elems in all, vec consecutive along dim vec_dim at a time. */
typedef struct kw_ttgir_per_thread {
    bool known;
    long long elems, vec, vec_dim;
    /* Where the wave's lanes fall under a blocked layout whose wave tile
     * (sizePerThread x threadsPerWarp) fits the tensor (lanes false
     * otherwise): lane l + 1 starts lane_elems elements (lane_bytes bytes; 0
     * when the element size is not known) after lane l along dim lane_dim
     * (order[0]) for lanes_along lanes (threadsPerWarp[order[0]]), then the
     * next lanes go on along the next dim of `order`; one wave covers
     * wave[d] elements of dim d (rank dims). */
    bool lanes;
    long long lane_elems, lane_bytes, lane_dim, lanes_along;
    size_t rank;
    long long wave[KW_TTGIR_MAXDIM];
} kw_ttgir_per_thread;

/* A tt.dot's work against one arch's GPU: the matrix peak for its operands'
 * element type (peak_name "FP16 matrix"), HBM bandwidth, the ridge
 * (peak / HBM, FLOP per byte) and the dot's FLOP per operand byte (ai). */
typedef struct kw_ttgir_peak {
    const char *arch;
    const kw_gpu *gpu;
    double peak;
    const char *peak_name;
    double ridge, ai;
    bool below; /* ai below the ridge */
} kw_ttgir_peak;

/* A tl.dot of the source: the tt.dot ops of one Python position, shape and
 * layout (Triton's pipelining writes the loop's last iterations as copies
 * after the loop: `copies` ops, op the first); M, N, K, its FLOP per
 * execution (2MNK), its result's MFMA layout and the MFMA instructions one
 * execution needs (0 when the shapes do not divide); its executions per
 * program: the sum over its copies of each one's scf.for trip count (1
 * outside a loop), as an expression over the kernel's arguments (execs;
 * NULL when a copy's loop has no trip count the TTGIR gives), its value
 * where it is a number (execs_n, -1 otherwise); its operands' bytes
 * (elem_bytes 0: the element type's size not known) and its work against
 * the peaks of the archs shown whose GPU has one. */
typedef struct kw_ttgir_dot {
    const kw_triton_memop *op;
    size_t copies;
    bool in_loop; /* some copy is inside an scf.for */
    const char *execs;
    long long execs_n;
    long long m, n, k, flop;
    /* FLOP per program over its executions: a number (flop_all; -1 when
     * execs is not a number) or flop_all_expr ("262144 * ((K + 31) / 32)",
     * NULL when execs is NULL) */
    long long flop_all;
    const char *flop_all_expr;
    /* execs evaluated with --shape's bindings (kw_ttgir_shape) where execs_n
     * is -1 and every name is bound; -1 otherwise */
    long long execs_shape;
    bool has_mfma;
    kw_ttgir_mfma mfma;
    long long per_program, per_wave;
    int elem_bytes;
    double bytes;
    KW_ARRAY(kw_ttgir_peak) peaks;
} kw_ttgir_dot;

typedef struct kw_ttgir {
    KW_ARRAY(kw_ttgir_layout) layouts;        /* one per t->layouts, in order */
    KW_ARRAY(kw_ttgir_per_thread) per_thread; /* one per t->memory_ops, in order */
    KW_ARRAY(kw_ttgir_dot) dots;              /* the tt.dot ops, in order */
} kw_ttgir;

/* The TTGIR reading of t for the archs shown (GPU per arch: the product
 * named gpu, --gpu, else the arch's default; kw_perf_gpu). */
/* Each dot's execs_shape: its executions evaluated with shape's bindings
 * (--shape: the kernel's argument names, blockIdx.x/y/z), where they are not
 * a number without them. shape NULL: nothing. */
void kw_ttgir_shape(kw_ttgir *g, const kw_shape *shape);

kw_status kw_ttgir_build(kw_ttgir *g, const kw_triton *t, const kw_page_arch *archs, size_t narchs,
                         const kw_gpus *gpus, const char *gpu, kw_arena *a, kw_err *err);

/* The integers of `key = [a, b]` in a layout's params; their count (0 when
 * the key is not there or not a list of integers). */
size_t kw_ttgir_ints(const char *params, const char *key, long long *out);

#endif
