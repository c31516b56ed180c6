/* kw_page_perf.h: the numbers of a page's section 4 (memory analysis, its
 * --trace subsection) and of the site's occupancy and roofline charts,
 * evaluated before a line of the page is written (render/ only prints
 * them). Built after kw_page_finish from the page's geometry and IR work
 * (kw_page.h), the GPU peaks (kw_hw.h, --gpu), --time-us and what a
 * profiler trace measured for the instantiation (kw_perf_measured, filled by
 * trace/ from its statistics). Per arch shown: its GPU, the hardware table's
 * rows with their ridge points, the occupancy chart's VGPR bound (codeobj's
 * occupancy rules) and, for a Triton page, the bound of the IR facts' numbers
 * per thread; per launch and arch shown: blocks per CU, the per-thread work
 * times a block and an invocation, the bound, the achieved bandwidth for
 * --time-us and the roofline point (or why there is none); per trace
 * configuration: the arch it ran on, one dispatch's work, its bandwidth at
 * the median and its bound, and its roofline point. The arithmetic is
 * kw_perf.h's. */
#ifndef KW_PAGE_PERF_H
#define KW_PAGE_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_hw.h"
#include "model/kw_model.h"
#include "model/kw_page.h"
#include "model/kw_perf.h"

/* ---- what a profiler trace measured (the input; trace/ fills it) ---------------------------- */

/* Durations of a set of dispatches, in ns (min/max of none: 0). */
typedef struct kw_perf_times {
    size_t n;
    long long total, min, max;
    double median;
} kw_perf_times;

/* One launch configuration seen. */
typedef struct kw_perf_mcfg {
    bool known;           /* the trace has grid and workgroup sizes */
    long long grid_wg[3]; /* workgroups per dimension (rounded up) */
    long long block[3];
    bool partial;     /* a grid size not a multiple of the workgroup size */
    const char *arch; /* the dispatches' arch when the trace says (all the same), else NULL */
    bool mixed_arch;
    kw_perf_times t;
} kw_perf_mcfg;

/* A trace name that may be the instantiation's but matches several. */
typedef struct kw_perf_mambiguous {
    const char *trace_name;
    size_t dispatches;
    size_t candidates;
    const char *match; /* how it matched: "demangled", "prefix", ... */
} kw_perf_mambiguous;

typedef struct kw_perf_measured {
    const char *path, *format; /* the trace file, "csv" / "json" / "rocpd" */
    size_t dispatches;         /* of the whole trace */
    bool found;                /* the trace has dispatches of this instantiation */
    const kw_kernel *k;        /* the instantiation's device record as the join found it */
    const char *const *names;  /* the trace names joined to it */
    size_t nnames;
    const char *match; /* how they matched */
    kw_perf_times t;
    const kw_perf_mcfg *cfgs;
    size_t ncfgs;
    const kw_perf_mambiguous *ambiguous;
    size_t nambiguous;
} kw_perf_measured;

/* Where a page reads what a profiler trace measured (`render --trace`):
 * measured fills *out for the instantiation with this symbol, in a, and
 * says false when out of memory. trace/ provides it (kw_tstats_source), so
 * that the page's writer needs nothing of trace/. */
typedef struct kw_perf_source {
    bool (*measured)(const void *ctx, const char *symbol, kw_arena *a, kw_perf_measured *out);
    const void *ctx;
} kw_perf_source;

/* ---- the page's numbers --------------------------------------------------------------------- */

/* A row of section 4's hardware table. */
typedef struct kw_page_peak {
    const kw_gpu *g;
    double ridge; /* FP32 FLOP per byte, < 0 when not known */
} kw_page_peak;

/* The VGPR bound on waves per SIMD of one processor (the occupancy chart's
 * curve) and the kernel's point. */
enum { KW_PAGE_OCC_STEPS = 64 };
typedef struct kw_page_occ {
    bool known; /* the processor's occupancy facts are known */
    unsigned vgprs_per_lane, max_waves, vgpr_granule;
    unsigned waves0; /* the bound at 0 VGPRs */
    /* where the bound drops: from vgprs[i] VGPRs on it is waves[i] */
    unsigned vgprs[KW_PAGE_OCC_STEPS], waves[KW_PAGE_OCC_STEPS];
    size_t nsteps;
    long long kernel_vgprs; /* VGPRs plus AGPRs, -1 when not known */
} kw_page_occ;

typedef struct kw_page_perf_arch {
    const char *arch;
    const kw_gpu *gpu;   /* --gpu when of this arch, else the arch's default; NULL: none */
    bool gpu_mismatch;   /* --gpu names a product of another arch */
    bool roof;           /* gpu has HBM and FP32 peaks: a roofline is drawn */
    kw_page_peak *peaks; /* every product of the arch, in the file's order */
    size_t npeaks;
    kw_page_occ occ; /* known only with the arch's ISA facts */
    /* a Triton page: the IR facts' global bytes and FLOP per thread when all
     * are numbers (their sum > 0), classified against gpu */
    bool ir_numbers;
    kw_perf_bound ir_bound;
} kw_page_perf_arch;

enum { KW_PAGE_PER_THREAD = 0, KW_PAGE_PER_BLOCK = 1, KW_PAGE_PER_INVOCATION = 2 };
enum { KW_PAGE_READ = 0, KW_PAGE_WRITTEN = 1, KW_PAGE_FLOP = 2 };

/* One launch on one arch shown. */
typedef struct kw_page_perf_launch {
    /* blocks per CU (a Triton page: programs, from the launch's recorded
     * grid); per_cu false when the blocks or the GPU's CUs are not known */
    bool per_cu;
    double blocks, blocks_per_cu;
    bool launch_bound; /* fewer blocks than CUs */
    double threads;    /* of the invocation, when block and grid are known */
    /* the IR work per thread / block / invocation (KW_PAGE_PER_*) of bytes
     * read, written and FLOP (KW_PAGE_READ...): known[per][what] */
    bool known[3][3];
    double work[3][3];
    /* bytes read and written and FLOP per thread known, bytes > 0 */
    bool classified;
    kw_perf_bound bound;
    /* --time-us given, bytes per invocation known and a GPU: achieved rates */
    bool timed;
    double bytes; /* per invocation */
    kw_perf_bw bw;
    bool flop_timed;           /* FLOP known too */
    double tflops, tflops_pct; /* TFLOP/s, percent of the FP32 vector peak */
    /* the roofline's point: miss NULL, else why there is none */
    const char *miss;
    double pt_bytes, pt_flops, pt_ns;
} kw_page_perf_launch;

/* One launch configuration of the trace. */
typedef struct kw_page_perf_tcfg {
    const kw_perf_mcfg *m;
    const char *arch;     /* where it ran: the trace's, else --gpu's, else --arch, else the
                             page's only arch; NULL when not known */
    bool arch_from_trace; /* the trace names it */
    kw_perf_work work;    /* one dispatch (kw_perf_kernel_work) */
    const char *ir_arch;  /* the arch whose IR facts gave it */
    const kw_gpu *gpu;    /* ir_arch's (work.known) */
    kw_perf_bw bw;        /* at the median */
    kw_perf_bound bound;
    double blocks; /* workgroups of a dispatch, < 0 when not in the trace */
    /* the roofline: the arch whose chart shows it (arch, else ir_arch; NULL:
     * every chart, with miss), and its point (miss NULL) */
    const char *chart_arch;
    const char *miss;
    double pt_bytes, pt_flops, pt_ns;
} kw_page_perf_tcfg;

typedef struct kw_page_perf {
    kw_page_perf_arch *archs;      /* per arch shown (kw_page.archs) */
    kw_page_perf_launch *launches; /* per arch shown, per launch: [a * nlaunches + i] */
    size_t nlaunches;
    const kw_perf_measured *measured; /* --trace: NULL when none */
    kw_page_perf_tcfg *tcfgs;         /* measured->ncfgs of them */
    double time_us;                   /* --time-us, < 0 when not given */
} kw_page_perf;

/* Section 4's numbers of page p (kw_page_finish done) into out: gpus the
 * peaks, gpu the --gpu product (NULL: each arch's default), only the --arch
 * (NULL: none), time_us --time-us (< 0: none), measured what a trace
 * measured of the instantiation (NULL: no --trace). In a. */
kw_status kw_page_perf_build(kw_page_perf *out, const kw_page *p, const kw_model *m,
                             const kw_gpus *gpus, const char *gpu, const char *only, double time_us,
                             const kw_perf_measured *measured, kw_arena *a, kw_err *err);

/* One configuration's bytes and FLOP of a dispatch from k's IR facts for
 * arch (kw_perf_kernel_work with shape), then its bandwidth at the median
 * and its bound against ir_arch's GPU (gpu: --gpu, or NULL): the numbers
 * both section 4 and `kwalk trace` print. */
void kw_page_perf_tcfg_eval(kw_page_perf_tcfg *c, const kw_kernel *k, const char *arch,
                            const kw_perf_mcfg *m, const kw_gpus *gpus, const char *gpu,
                            const kw_shape *shape);

#endif
