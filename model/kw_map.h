/* kw_map.h: the rows of `kwalk map`, the "known kernel -> host entry ->
 * device code" table, joined from the model before a line of it is written
 * (render/kw_map_write.h writes them as Markdown or TSV, render/kw_map_json.h
 * as JSON). One row per kernel (template), launch site and entry point
 * reaching it, with the number of the kernel's instantiations on that path;
 * a Triton launch reached through other recorded Python frames is a row of
 * its own, and so is a kernel with internal linkage (its unit's own). A
 * kernel every launch of which never runs has its launches as rows whose
 * entry is KW_MAP_DEAD; such launches of a kernel that another launch does
 * run are left out. A kernel never launched is one row with no launch.
 * Rows are sorted by group, launch site (file, line), entry, then the
 * recorded Python frames.
 *
 * The Python side (with two --python-root or more: the helper's chains,
 * model/kw_python_chains.h) is looked up per row through the kw_map_*ops
 * and kw_map_model_chains calls below; the ops whose chains a writer
 * looked up are remembered (kw_map.shown) for the unresolved calls written
 * after the rows. */
#ifndef KW_MAP_H
#define KW_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_model.h"
#include "model/kw_python_chains.h"
#include "common/kw_symmap.h"

/* The entry of a row whose launches never run. */
#define KW_MAP_DEAD ((size_t)-2)

typedef struct kw_map_row {
    size_t group;
    const kw_mlaunch *launch; /* NULL: never launched */
    size_t entry;             /* KW_NONE: no entry reaches the launch; KW_MAP_DEAD: never runs */
    size_t count;             /* instantiations */
    const char *functors;     /* trampoline kernels: the functor templates they run, ", "-joined */
    const kw_mkernel *kernel; /* the first instantiation of the row (its device code) */
} kw_map_row;

typedef struct kw_map {
    kw_model *model;
    const kw_py_ops *py;        /* the model's Python ops (--python-root), or NULL */
    const kw_py_chains *chains; /* the helper's chains (two --python-root or more), or NULL */
    kw_arena arena;             /* the rows' strings, and the writers' scratch */
    KW_ARRAY(kw_map_row) rows;
    kw_symmap row_of;       /* "group|file:line|entry|unit[|frames]" -> row */
    KW_ARRAY(size_t) shown; /* the helper's ops whose chains were looked up, each once */
} kw_map;

/* The rows of model md, joined and sorted. kw_map_free frees them (also
 * after a failure). */
kw_status kw_map_build(kw_map *m, kw_model *md, kw_err *err);
void kw_map_free(kw_map *m);

/* Is the row's launch a Triton kernel's (`kernel[grid](...)` in Python)? */
bool kw_map_row_triton(const kw_map_row *r);
/* The instantiation whose device code the row shows: the row's own kernel
 * (a kernel with internal linkage: its unit's definition), else the
 * template's first instantiation. */
const kw_mkernel *kw_map_row_first(const kw_map *m, const kw_map_row *r);
/* The row's entry point, or NULL (none reaches it, or it never runs). */
const kw_entry *kw_map_row_entry(const kw_map *m, const kw_map_row *r);

/* The outermost chains of the helper's ops ops[0..nops), merged shortest
 * first (stable), into *out (indexes into m->chains->v); the ops are
 * remembered in m->shown. Their number, (size_t)-1 when out of memory. */
size_t kw_map_model_chains(kw_map *m, const size_t *ops, size_t nops, size_t **out);
/* The helper's ops bound to op's module (pybind ops) and function, into
 * *ops; their number, (size_t)-1 when out of memory. */
size_t kw_map_op_ops(kw_map *m, const kw_py_op *op, size_t **ops);
/* The helper's launches of the row's Triton kernel; with l (a launch the
 * hook recorded), those at its line in a file of its name. Their number,
 * (size_t)-1 when out of memory. */
size_t kw_map_py_launches(kw_map *m, const kw_map_row *r, const kw_launch *l, size_t **out);
/* The wrappers (the helper's ops) that launch the row's Triton kernel (at
 * the hook's launch l, when recorded), each once, into *ops; their number,
 * (size_t)-1 when out of memory. */
size_t kw_map_triton_ops(kw_map *m, const kw_map_row *r, const kw_launch *l, size_t **ops);

#endif
