/* kw_treport.h: the report of `kwalk trace`, the model its writers print,
 * every number evaluated and every name chosen before a line is written.
 * trace/kw_treport_build.h fills it from the trace's statistics (the trace
 * read, joined to the index, gathered per instantiation); render/ writes it as
 * text (kw_treport_write.h) and JSON (kw_treport_json.h), trace/ as YAML
 * (kw_treport_yaml.h). It holds no trace/ type: per row of the statistics (an
 * instantiation, an ambiguous name, a name not in the index) and per launch
 * configuration of an instantiation, the bytes and FLOP of one dispatch from
 * the IR facts (kw_page_perf_tcfg_eval with --shape, as a page's section 4),
 * the GPU whose peaks it is measured against, the achieved bandwidth at the
 * median and the bound (kw_perf.h); per row and configuration the durations;
 * per instantiation the archs whose peak bandwidth is shown (the trace's, else
 * --gpu's, else the kernel's) and their GPUs. */
#ifndef KW_TREPORT_H
#define KW_TREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "model/kw_hw.h"
#include "model/kw_page_perf.h"
#include "model/kw_perf.h"

/* One launch configuration of an instantiation. */
typedef struct kw_treport_cfg {
    bool known;           /* the trace has grid and workgroup sizes */
    long long grid_wg[3]; /* workgroups per dimension (rounded up) */
    long long block[3];   /* workgroup size */
    bool partial;         /* a grid size not a multiple of the workgroup size */
    const char *arch;     /* the dispatches' arch when the trace says (all the same), else NULL */
    bool mixed_arch;      /* the dispatches ran on several archs */
    kw_perf_times t;      /* its durations: count, total, median, min, max */
    kw_perf_work work;    /* one dispatch's bytes and FLOP (work.known: bytes known) */
    const char *ir_arch;  /* the arch whose IR facts gave them */
    const kw_gpu *gpu;    /* the peaks of ir_arch (work.known), or NULL */
    kw_perf_bw bw;        /* at the median duration */
    kw_perf_bound bound;
    double blocks; /* workgroups of a dispatch, < 0 when not in the trace */
} kw_treport_cfg;

/* Which group a row is in, the order the report writes them. */
typedef enum kw_treport_group {
    KW_TREPORT_JOINED = 0,    /* one instantiation */
    KW_TREPORT_AMBIGUOUS = 1, /* a name matching several instantiations */
    KW_TREPORT_UNKNOWN = 2,   /* a name not in the index */
} kw_treport_group;

/* An instantiation a name matched: an ambiguous row's candidate. */
typedef struct kw_treport_kernel {
    const char *symbol;
    const char *name; /* printed name; NULL if unknown */
} kw_treport_kernel;

enum { KW_TREPORT_ARCHS = 8 };

typedef struct kw_treport_row {
    kw_treport_group group;
    const char *symbol;     /* JOINED: the instantiation's symbol */
    const char *name;       /* JOINED: its printed name; NULL if unknown */
    const char *trace_name; /* AMBIGUOUS, UNKNOWN: the name as the trace gives it */
    const char *match;      /* how its names matched ("symbol", ...) */
    const char *const *names; /* JOINED: the trace names joined to it, nnames of them */
    size_t nnames;
    kw_perf_times t;              /* its durations */
    kw_treport_cfg *cfgs;         /* JOINED: its launch configurations, first seen first */
    size_t ncfgs;
    const kw_treport_kernel *cand; /* the instantiations the name matched (ncand > 1: ambiguous) */
    size_t ncand;
    const char *archs[KW_TREPORT_ARCHS];   /* whose peak bandwidth is shown */
    const kw_gpu *peaks[KW_TREPORT_ARCHS]; /* their GPUs (NULL: not known) */
    size_t narchs;
} kw_treport_row;

typedef struct kw_treport {
    kw_arena arena;
    const char *path;   /* the trace file */
    const char *format; /* "csv", "json" or "rocpd" */
    size_t dispatches;  /* the trace's dispatches */
    long skipped;       /* CSV rows of another Kind */
    long joined_sql;    /* rocpd: dispatches the index's symbols matched in SQL */
    bool have_demangler; /* a C++ demangler joined demangled names */
    const char *db;      /* the index's path, as given */
    KW_ARRAY(kw_treport_row) rows; /* the statistics' rows, in their order */
} kw_treport;

/* Frees rep's memory (also of one whose building failed). */
void kw_treport_free(kw_treport *rep);

#endif
