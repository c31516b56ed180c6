/* kw_treport_build.h: the report of `kwalk trace` (model/kw_treport.h) filled
 * from the trace's statistics (kw_trace.h's kw_tstats): each row's names,
 * match and durations copied out of the join, each launch configuration's
 * work, bandwidth and bound evaluated (kw_treport_build.c). */
#ifndef KW_TREPORT_BUILD_H
#define KW_TREPORT_BUILD_H

#include "common/kw_err.h"
#include "model/kw_expr.h"
#include "model/kw_hw.h"
#include "model/kw_treport.h"
#include "trace/kw_trace.h"

/* The report of stats (gathered from a trace through its join) against gpus;
 * gpu the --gpu product (NULL: the arch's default), shape the --shape
 * bindings (may be NULL), db the index's path as given. stats must outlive
 * rep (its strings are the statistics'). kw_treport_free frees it (also after
 * a failure). */
kw_status kw_treport_build(kw_treport *rep, const kw_tstats *stats, const kw_gpus *gpus,
                           const char *gpu, const kw_shape *shape, const char *db, kw_err *err);

#endif
