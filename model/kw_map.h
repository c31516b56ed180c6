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
 * The map's lines (kw_map.lines) are what the writers print, complete:
 * a line per row and Python op bound to its entry, with its device code,
 * entry and label resolved, and, with two --python-root or more (the
 * helper's chains, model/kw_python_chains.h), its Model entries looked up:
 * the chains to the op, or to the wrappers that launch a Triton row's
 * kernel; for a Triton kernel no launch of which was recorded, the
 * `kernel[grid](...)` statements of it the helper found, each with its
 * chains. Then what follows the rows: the ops whose chains a line shows (for
 * the unresolved calls, render/kw_map_unresolved.h), and the Python ops bound
 * to no entry point. For `kwalk site`'s map page, kw_map_sites_* answer which
 * kernel a printed launch site launches and which template a name is.
 * render/ writes the lines and computes nothing. */
#ifndef KW_MAP_H
#define KW_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_kpage.h"
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
    /* with kw_map_build_shape's shape: the best verdict of its
     * instantiations' ways (kw_kpage_launch_verdict), HOLDS or OPEN: an
     * instantiation whose ways all fail is not on the row (nor counted), a
     * row with none is left out, and so are launches that never run and
     * kernels never launched */
    kw_kverdict v;
} kw_map_row;

/* A Triton kernel no launch of which was recorded (cache-only): one
 * `kernel[grid](...)` of it the helper found in the Python trees. */
typedef struct kw_map_static {
    const kw_py_launch *launch; /* the helper's */
    const char *wrapper;        /* the op (function) it is in */
    const size_t *chains;       /* the chains to the wrapper (into chains->v), shortest first */
    size_t nchains;
} kw_map_static;

/* One line of the map as written: a row, and one Python op bound to its
 * entry (a line per op; op NULL when none is). */
typedef struct kw_map_line {
    const kw_map_row *row;
    const kw_py_op *op;
    const kw_mkernel *first; /* the instantiation whose device code it shows (the row's own kernel,
                                else its template's first) */
    const kw_entry *entry;   /* its entry point, or NULL (none reaches it, or it never runs) */
    const char *entry_label; /* the entry as its binding spells it (kw_entry_label), or NULL */
    bool triton;             /* a Triton launch's row (`kernel[grid](...)` in Python) */
    /* with the chains: its Model entries (into chains->v), shortest first:
     * the outermost chains of the helper's ops bound to the op's module and
     * function, or for a Triton row of the wrappers that launch its kernel at
     * the hook's launch; ops are those helper ops (the JSON's lookups) */
    const size_t *chains;
    size_t nchains;
    const size_t *ops;
    size_t nops;
    /* with the chains: the calls that cross from the model's package into
     * the op's (kw_map_crossing), each function and line once, in the chains'
     * order; Markdown and JSON write them beside the Model entries */
    KW_ARRAY(const kw_py_frame *) crossings;
    /* with the chains, a cache-only Triton kernel's `kernel[grid](...)`
     * statements the helper found: the table writes a row for each of them
     * instead of the line (the JSON document writes the line) */
    KW_ARRAY(kw_map_static) statics;
} kw_map_line;

/* The helper's ops whose chains lines show, for the unresolved calls
 * after them (render/kw_map_unresolved.h). */
typedef struct kw_map_shown {
    KW_ARRAY(size_t) ops; /* into chains->ops, each once, in line order */
    /* the calls not resolved statically listed only for ops not in ops
     * (each call once, though several such ops may list it) */
    size_t elsewhere;
} kw_map_shown;

/* A Python op bound to no entry point of the index, and the entry points of
 * its function's name the index has (in another module, of another kind). */
typedef struct kw_map_unjoined {
    const kw_py_op *op;
    size_t same[4]; /* into the model's entries */
    size_t nsame;
    bool more; /* there are more than the four */
} kw_map_unjoined;

/* What kw_map_sites_kernel answers for a launch site of several kernels. */
#define KW_MAP_MANY ((size_t)-3)

typedef struct kw_map {
    kw_model *model;
    const kw_py_ops *py;        /* the model's Python ops (--python-root), or NULL */
    const kw_py_chains *chains; /* the helper's chains (two --python-root or more), or NULL */
    kw_arena arena;             /* the rows' strings, and the writers' scratch */
    KW_ARRAY(kw_map_row) rows;
    kw_symmap row_of;            /* "group|file:line|entry|unit[|frames]" -> row */
    KW_ARRAY(kw_map_line) lines; /* in row order, then the entry's ops' order */
    kw_map_shown shown;          /* the table's (Markdown, TSV), statics' wrappers included */
    kw_map_shown shown_json;     /* the JSON document's, which does not write statics */
    KW_ARRAY(kw_map_unjoined) unjoined; /* with --python-root, in the ops' order */
    /* kw_map_sites_build: "PATH:LINE" (PATH as printed) -> kernel, or KW_MAP_MANY;
     * a template's name -> group */
    kw_symmap site_of, group_of;
    const kw_shape *shape; /* `map --shape` (kw_map_build_shape), or NULL */
} kw_map;

/* The call of chain c that crosses into the op's package: the last frame
 * (entry first) whose function's top-level package is not the op's
 * (`atom.model_ops.topK.rocm_aiter_topk_softmax_impl` calling into
 * `aiter`), or NULL when every frame is in the op's package or the chain
 * has no frames. */
const kw_py_frame *kw_map_crossing(const kw_py_chain *c);

/* The device code a map line cites for instantiation mk: for a kernel that
 * runs a functor (a trampoline: ck_tile's kentry<Kernel>, aiter's
 * opus_moe_sorting_entry<Functor>), the functor's member it runs; else its
 * definition. NULL: none (an ASM kernel). */
const kw_loc *kw_map_device(const kw_mkernel *mk);

/* The rows and lines of model md, joined and sorted. kw_map_free frees them
 * (also after a failure). */
kw_status kw_map_build(kw_map *m, kw_model *md, kw_err *err);
/* The same, the rows kept and marked by shape's verdicts (kw_map_row.v);
 * NULL: as kw_map_build. The model's own shape (render's, the site's) is
 * not the map's. */
kw_status kw_map_build_shape(kw_map *m, kw_model *md, const kw_shape *shape, kw_err *err);
void kw_map_free(kw_map *m);

/* Index every launch site of the model as printed with paths relative to
 * root (NULL: as recorded), "PATH:LINE", and every template's name, for
 * the two lookups below. */
kw_status kw_map_sites_build(kw_map *m, const char *root, kw_err *err);
/* The kernel (into the model's kernels) launched at the printed site at,
 * KW_MAP_MANY when several are, KW_NONE when none is. */
size_t kw_map_sites_kernel(const kw_map *m, const char *at);
/* The group (template) of that name, KW_NONE when none. */
size_t kw_map_sites_group(const kw_map *m, const char *name);

#endif
