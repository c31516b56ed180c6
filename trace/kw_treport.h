/* kw_treport.h: the report of `kwalk trace`, with its numbers evaluated
 * before a line of it is written (render/kw_treport_write.h writes it as text
 * or YAML, render/kw_treport_json.h as JSON): per row of the trace's
 * statistics (kw_tstats: an instantiation, an ambiguous name, a name not in
 * the index) and per launch configuration of an instantiation, the bytes and
 * FLOP of one dispatch from the IR facts (kw_page_perf_tcfg_eval with
 * --shape, as a page's section 4), the GPU whose peaks it is measured
 * against, the achieved bandwidth at the median and the bound (kw_perf.h);
 * per row and configuration the durations' median; per instantiation, the archs whose peak
 * bandwidth is shown (the trace's, else --gpu's, else the kernel's) and
 * their GPUs. */
#ifndef KW_TREPORT_H
#define KW_TREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_expr.h"
#include "model/kw_hw.h"
#include "model/kw_page_perf.h"
#include "model/kw_perf.h"
#include "trace/kw_trace.h"

/* One launch configuration of an instantiation. */
typedef struct kw_treport_cfg {
    const kw_tcfg *cfg;
    kw_perf_times t;     /* its durations: count, total, median, min, max */
    kw_perf_work work;   /* one dispatch's bytes and FLOP (work.known: bytes known) */
    const char *ir_arch; /* the arch whose IR facts gave them */
    const kw_gpu *gpu;   /* the peaks of ir_arch (work.known), or NULL */
    kw_perf_bw bw;       /* at the median duration */
    kw_perf_bound bound;
    double blocks; /* workgroups of a dispatch, < 0 when not in the trace */
} kw_treport_cfg;

enum { KW_TREPORT_ARCHS = 8 };

typedef struct kw_treport_row {
    const kw_trow *row;
    kw_trow_group group;                   /* joined, ambiguous or not in the index */
    const char *match;                     /* how its names matched ("symbol", ...) */
    kw_perf_times t;                       /* its durations */
    kw_treport_cfg *cfgs;                  /* row->cfgs.n of them (an instantiation's), else NULL */
    const char *archs[KW_TREPORT_ARCHS];   /* whose peak bandwidth is shown */
    const kw_gpu *peaks[KW_TREPORT_ARCHS]; /* their GPUs (NULL: not known) */
    size_t narchs;
} kw_treport_row;

typedef struct kw_treport {
    kw_arena arena;
    const kw_trace *trace;
    const kw_tjoin *join;
    const char *db;                /* the index's path, as given */
    KW_ARRAY(kw_treport_row) rows; /* the statistics' rows, in their order */
} kw_treport;

/* The report of stats (gathered from trace through join) against gpus; gpu
 * the --gpu product (NULL: the arch's default), shape the --shape bindings
 * (may be NULL). kw_treport_free frees it (also after a failure). */
kw_status kw_treport_build(kw_treport *rep, const kw_tstats *stats, const kw_gpus *gpus,
                           const char *gpu, const kw_shape *shape, const char *db, kw_err *err);
void kw_treport_free(kw_treport *rep);

#endif
