/* kw_perf.h: the numbers of a memory analysis that section 4 of a
 * walkthrough (kw_render_memory.c, also with --trace) and `kwalk trace` both
 * print, computed in one place: the IR facts' per-thread bytes and FLOP
 * summed over the threads of one dispatch, the achieved bandwidth against a
 * GPU's HBM peak, and the bound classification (arithmetic intensity against
 * the FP32 ridge point; fewer workgroups than compute units is launch-bound).
 * Peaks come from annotations/hw/amdgpu-peaks.txt (kw_hw.h). */
#ifndef KW_PERF_H
#define KW_PERF_H

#include <stdbool.h>

#include "model/kw_expr.h"
#include "model/kw_hw.h"
#include "sidecar/kw_sidecar.h"

/* The product whose peaks apply to arch: the one named gpu (--gpu) when it is
 * a product of that arch, NULL when it is not; the arch's default product
 * when gpu is NULL. */
const kw_gpu *kw_perf_gpu(const kw_gpus *g, const char *gpu, const char *arch);

/* What one dispatch moves and computes, from the IR facts
 * (ir.work_per_thread.bytes_read / bytes_written / flops). */
typedef struct kw_perf_work {
    bool known;      /* bytes known */
    double bytes;    /* read + written, all threads of the dispatch */
    double flops;    /* all threads; < 0 when not known */
    const char *why; /* when !known: "not known (...)", a static string */
} kw_perf_work;

/* The work of one dispatch of grid[3] workgroups of block[3] work items. ir
 * is an arch's IR facts (NULL when none). An integer per
 * thread is multiplied by the threads; an expression is evaluated with shape
 * plus blockDim.* / gridDim.* (and threadIdx.* / blockIdx.* for every thread
 * and block when it names them, up to KW_PERF_MAX_EVALS evaluations; beyond
 * that it is not known). */
enum { KW_PERF_MAX_EVALS = 1 << 20 };
void kw_perf_dispatch_work(const kw_irf *ir, const kw_shape *shape, const long long block[3],
                           const long long grid[3], kw_perf_work *out);

/* The work of one dispatch of kernel k that a profiler measured: from k's IR
 * facts for arch (NULL: not known which ran it; used only when a single arch
 * has IR facts), with shape's bindings (--shape, template constants; may be
 * NULL); known: the trace gave the grid (in workgroups) and block. *ir_arch:
 * the arch whose facts were used (NULL when none). */
void kw_perf_kernel_work(const kw_kernel *k, const char *arch, bool known, const long long block[3],
                         const long long grid[3], const kw_shape *shape, kw_perf_work *out,
                         const char **ir_arch);

/* Achieved bandwidth of bytes moved in ns nanoseconds, in TB/s; the share of
 * g's HBM peak (1.0 = the peak), < 0 when g or its peak is not known. */
typedef struct kw_perf_bw {
    double tbs;
    double of_peak;
} kw_perf_bw;
kw_perf_bw kw_perf_bandwidth(double bytes, double ns, const kw_gpu *g);

/* The FP32 ridge point of g (vector FP32 FLOP/s over HBM bytes/s), < 0 when
 * the peaks are not known. */
double kw_perf_ridge(const kw_gpu *g);

typedef enum kw_perf_bound_kind {
    KW_BOUND_UNKNOWN = 0, /* FLOP, bytes or the peaks not known */
    KW_BOUND_MEMORY,      /* below the ridge */
    KW_BOUND_COMPUTE,     /* at or above the ridge */
} kw_perf_bound_kind;

typedef struct kw_perf_bound {
    kw_perf_bound_kind kind;
    double intensity; /* FLOP per byte; < 0 when not known */
    double ridge;     /* < 0 when not known */
    bool launch;      /* fewer workgroups than g's compute units (launch-bound) */
    const char *name; /* kw_perf_bound_name(kind) */
} kw_perf_bound;
/* Classify flops over bytes (either < 0: not known) against g; blocks < 0
 * when the number of workgroups is not known. */
kw_perf_bound kw_perf_classify(double flops, double bytes, double blocks, const kw_gpu *g);
/* "memory-bound", "compute-bound" or "not classified" */
const char *kw_perf_bound_name(kw_perf_bound_kind k);

#endif
