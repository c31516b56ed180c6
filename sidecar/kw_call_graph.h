/* kw_call_graph.h: a translation unit's device call graph, the form in which
 * a sidecar (kwalk_schema 3) stores its kernels' call trees.
 *
 * A kernel's `calls` is its call tree flattened by one depth-first walk
 * (plugin/kw_kernels.cpp): a function's edges in source order, then the walk
 * of each callee that is not in a system header; every function expanded
 * once per kernel, none deeper than KW_CALL_DEPTH_MAX. Kernels that reach the
 * same helpers repeat the helpers' edges. The writer stores each calling
 * function's edges once, in the top-level `device_calls`, and leaves out the
 * `calls` of every kernel for which the same walk over that table gives its
 * calls back exactly; the reader runs the walk for kernels without `calls`.
 * The model in memory is unchanged: every kernel has its calls. */
#ifndef KW_CALL_GRAPH_H
#define KW_CALL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "sidecar/kw_schema.h"

/* The plugin's walk stops below this depth (kw_kernels.cpp: Depth > 64). */
#define KW_CALL_DEPTH_MAX 64

/* One calling function and its edges (kw_call without caller and depth). */
typedef struct kw_device_fn {
    const char *symbol;
    KW_ARRAY(kw_call) calls;
} kw_device_fn;

typedef struct kw_call_graph {
    KW_ARRAY(kw_device_fn) fns;
} kw_call_graph;

/* The record {device_calls: {SYMBOL: {calls: [...]}}} as the schema tables
 * read and write it. */
extern const kw_type kw_t_call_graph;

/* The graph of sc's kernels into g (arena a) and, in *kernels (an array of
 * sc->kernels.n copies in a), the kernels as written: those the walk over g
 * gives back without their calls. g is left empty when no kernel can be
 * written without its calls. */
kw_status kw_call_graph_factor(const kw_sidecar *sc, kw_arena *a, kw_call_graph *g,
                               kw_kernel **kernels, kw_err *err);

/* The walk over g for every kernel of sc that has no calls (in sc's arena). */
kw_status kw_call_graph_replay(kw_sidecar *sc, const kw_call_graph *g, kw_err *err);

/* Helper frames (annotations/calltree/, kw_calltree.h in model/): a callee
 * whose plain name matches a pattern is not an edge of its own; its calls are
 * its caller's. */
/* name without its template argument lists into out (room for strlen(name)
 * + 1): "ns::A<int>::f<2>" -> "ns::A::f"; operators (operator<, operator->,
 * ...) kept. Returns the length written. */
size_t kw_call_graph_plain(const char *name, char *out);
/* Whether plain (kw_call_graph_plain's) matches one of the n fnmatch
 * patterns. */
bool kw_call_graph_helper(const char *const *patterns, size_t n, const char *plain);

#endif
