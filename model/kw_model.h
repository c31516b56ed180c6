/* kw_model.h: the build as the renderer sees it: the index (kw_index.h)
 * joined once into the relations every walkthrough and the map need:
 * kernels sorted and grouped by template, the launches of each kernel, the
 * host call graph in both directions, which entry points reach a launch and
 * by which calls, and the Python ops bound to each entry point.
 *
 * Built in time linear in the index; the per-launch reachability is a
 * backward breadth-first search over the callers of the launching function,
 * which only visits that function's ancestors. */
#ifndef KW_MODEL_H
#define KW_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "index/kw_index.h"
#include "model/kw_calltree.h"
#include "model/kw_expr.h"
#include "model/kw_python_entries.h"

#define KW_NONE ((size_t)-1)

/* The nth precompiled ASM kernel a launch runs (false past the last): its
 * asm_kernel, or each row of its asm_choices; *sym may be NULL (a row that
 * names none); the code object is the file found on disk, else the path as
 * written. A launch of a kernel compiled from source (l->kernel) runs none. */
bool kw_launch_asm(const kw_launch *l, size_t n, const char **sym, const char **co);

typedef struct kw_mlaunch {
    const kw_index_tu *tu;
    const kw_launch *l;
    size_t node; /* the launching function's node, KW_NONE without function_symbol */
    /* One of the records of a library launch reached from several users'
     * lines (the plugin writes them one after another): its paths are those
     * through the call at its own location. */
    bool via_location;
} kw_mlaunch;

typedef struct kw_mentry {
    const kw_index_tu *tu;
    const kw_entry *e;
    size_t node;
    KW_ARRAY(size_t) ops; /* indices into the Python ops bound to it */
} kw_mentry;

typedef struct kw_mcall {
    const kw_index_tu *tu;
    const kw_host_call *c;
    size_t from, to; /* nodes */
} kw_mcall;

typedef struct kw_mkernel {
    const char *symbol;
    const char *name;          /* printed name (the symbol when unknown) */
    const kw_kernel *k;        /* NULL: launched, but no device record in the index */
    /* A kernel with internal linkage: the translation unit it belongs to
     * (another unit may have a different kernel of the same symbol); its
     * launches are that unit's. NULL for a kernel with external linkage. */
    const kw_index_tu *tu;
    /* A precompiled ASM kernel (launched through a loader or
     * hipModuleLaunchKernel): its code object as the launch gives it. symbol and
     * name are then the kernel's name in that code object. */
    const char *asm_code_object;
    /* every code object launches name for it (a table's rows may give the
     * same kernel in hsa/gfx942/ and hsa/gfx950/), the first being asm_code_object */
    KW_ARRAY(const char *) asm_code_objects;
    /* A precompiled ASM kernel: name is then LLVM's demangling of symbol (what
     * llvm-cxxfilt prints) where it is a C++ one, else the symbol. */
    bool is_asm;
    size_t group;
    KW_ARRAY(size_t) launches; /* indices into launches, in index order */
    const char *page;          /* file name of its walkthrough in `render --all` */
    /* what its page is titled (kw_title.c): the printed name; for a
     * trampoline's instantiation the kernel struct it runs, short, or
     * abbreviated down to the arguments that tell it from its siblings */
    const char *title;
} kw_mkernel;

typedef struct kw_mgroup {
    const char *key;          /* the template's name, or the kernel's for a non-template */
    /* A trampoline template (ck_tile's kentry): the template of the kernel
     * struct its instantiations of this group run ("ck_tile::GemmKernel"),
     * one group per struct; NULL for other kernels. Shown as "KEY running RUNS". */
    const char *runs;
    KW_ARRAY(size_t) kernels; /* in kernel order */
} kw_mgroup;

/* One way an entry point reaches a launch: the calls from the entry's
 * function to the launching function (empty when the entry's function is the
 * launching function itself). An entry may reach a launch along several
 * paths (different call sites, with different guards): they are listed
 * shortest first, nth of `of` (at_least: the search stopped, there may be
 * more than `of`); at most KW_PATHS_SHOWN per entry are kept. */
typedef struct kw_mpath {
    size_t entry;
    KW_ARRAY(size_t) calls;
    size_t nth, of;
    bool at_least;
} kw_mpath;

enum {
    KW_PATHS_SHOWN = 8,     /* paths kept per entry and launch */
    KW_PATHS_COUNTED = 64,  /* paths counted per entry and launch before giving up */
    KW_PATHS_STEPS = 20000, /* call edges followed per entry and launch before giving up */
};

typedef struct kw_mpaths {
    KW_ARRAY(kw_mpath) v; /* in entry order */
    /* No path (v is empty) because the launch never runs: it sits under a
     * condition that is constant false (the sidecar's `dead`), or every entry
     * point that would reach it does so only through calls that do. */
    bool dead;
} kw_mpaths;

typedef struct kw_model {
    kw_arena arena;
    const kw_index *ix;
    KW_ARRAY(kw_mkernel) kernels; /* sorted by name, then symbol */
    kw_symmap kernel_of;          /* kw_kernel_key (symbol, or symbol and tu) -> kernel */
    KW_ARRAY(kw_mgroup) groups;   /* sorted by key */
    KW_ARRAY(kw_mlaunch) launches;
    KW_ARRAY(kw_mentry) entries;
    KW_ARRAY(kw_mcall) calls;
    kw_symmap node_of;            /* host function key (kw_node.h) -> node */
    KW_ARRAY(const char *) node_name; /* printed name of each node, when known */
    size_t *rfirst, *redge;       /* callers: calls into node i are redge[rfirst[i]..rfirst[i+1]) */
    size_t *efirst, *eidx;        /* entries whose function is node i */
    /* breadth-first search scratch, one slot per node */
    unsigned *stamp;
    unsigned gen;
    size_t *queue;
    size_t *ffirst, *fedge;       /* callees: calls from node i are fedge[ffirst[i]..ffirst[i+1]) */
    unsigned char *on_path;       /* path enumeration scratch, one per node */
    size_t *dfs_node, *dfs_next, *dfs_calls; /* path enumeration stack */
    /* Python ops (optional) */
    const kw_py_ops *py;
    /* the call tree's helper patterns (optional; kw_calltree.h) */
    const kw_calltree_rules *tree_rules;
    /* --shape as the user gave it (cli/ parses it once), NULL when none: every
     * page's bindings start from it (kw_page_open) */
    const kw_shape *shape;
    /* kw_model_cache_paths: every launch's paths, computed once (read-only
     * afterwards, so renders on several threads can share the model) */
    kw_mpaths *lpaths;
    /* the listings a page decodes from its code objects (kw_decode.h;
     * kw_model_build makes it, kw_page_open uses it) */
    struct kw_decode *decode;
} kw_model;

/* Join ix (and the Python ops of py, which may be NULL) into m. */
kw_status kw_model_build(kw_model *m, const kw_index *ix, const kw_py_ops *py, kw_err *err);
void kw_model_free(kw_model *m);
/* Every kernel's title (kw_mkernel.title; kw_title.c); kw_model_build calls it. */
kw_status kw_model_titles(kw_model *m);
/* A printed name as prose shortens it: the whole name when short (60
 * characters), else "name<...>"; in a. */
const char *kw_title_short(kw_arena *a, const char *printed);
/* printed (a kernel struct's printed name) with each type argument that args
 * (its functor_args: dotted parameter paths, level by level) says the source
 * wrote through a qualified alias spelled so: "ck_tile::Reduce<ck_tile::bf16_t,
 * ...>" for "ck_tile::Reduce<unsigned short, ...>"; printed itself when none
 * applies or the name does not split. In a. */
const char *kw_title_aliased(kw_arena *a, const char *printed, const kw_template_arg *args,
                             size_t n);
/* mk's printed name with the kernel struct it runs written so (every place
 * the struct's name appears in it); mk->name when nothing applies. In a. */
const char *kw_title_name(kw_arena *a, const kw_mkernel *mk);
/* The same for kernel k printed as name (kwalk list's rows): name itself
 * when k runs no kernel struct or nothing applies. In a. */
const char *kw_title_kname(kw_arena *a, const kw_kernel *k, const char *name);

/* The kernel a launch of unit tu (NULL: of no unit in particular) names by
 * symbol: the unit's own when it has internal linkage, else the build's. */
const kw_mkernel *kw_model_kernel(const kw_model *m, const char *symbol, const kw_index_tu *tu);

/* Every entry point reaching launch li, each with its call paths (distinct
 * call sites; shortest first, KW_PATHS_SHOWN at most), in entry order; calls
 * that never happen (a host call's `dead`) are not followed;
 * arrays in arena a (or the cached ones, after kw_model_cache_paths). Not
 * thread-safe unless the paths are cached. */
kw_status kw_model_paths(kw_model *m, size_t li, kw_arena *a, kw_mpaths *out, kw_err *err);
/* Compute the paths of every launch once, in the model's arena. */
kw_status kw_model_cache_paths(kw_model *m, kw_err *err);

#endif
