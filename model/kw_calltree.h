/* kw_calltree.h: the device call tree a walkthrough shows (section 2), part
 * of the page model (kw_page.h), built from a kernel's call edges
 * (kernels[].calls) before a line of the page is written.
 *
 * What a kernel author reads is the chain of calls that do the work (a
 * pipeline, its block GEMM, the warp GEMM, the MFMA), not the compile-time
 * machinery between them. So:
 *   - a call of a *helper* (a function whose name, template arguments left
 *     out, matches a pattern of annotations/calltree/, e.g. static_for, its
 *     lambda frames, sequence / tuple / constant helpers) is not an item: its
 *     own calls are hoisted into its caller, and the helper frames folded so
 *     are counted;
 *   - the calls under one item of the same function (same name without
 *     template arguments, same definition) are one item with a count of its
 *     calls and of its instantiations (several template arguments);
 *   - a call of a *leaf* (leaves.txt: a library's internals, e.g. tensor
 *     descriptor and coordinate machinery) is an item whose calls are not
 *     shown;
 *   - a function is expanded once, at its first item; later items say that
 *     its calls are listed above;
 *   - every item is labelled by its short name: the name without template
 *     arguments and without the namespaces above its class
 *     ("BlockGemmARegBSmemCRegV1::operator()"); its full name (every template
 *     argument) is kept once per function for the page to show on demand.
 * HIP's accessors and other system-header callees are one item per caller
 * (hoisted ones included), each accessor once with its first line; the C++
 * library's (std::) are left out. */
#ifndef KW_CALLTREE_H
#define KW_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_annot.h"
#include "sidecar/kw_sidecar.h"

/* The patterns of annotations/calltree/helpers.txt and leaves.txt: one
 * fnmatch pattern per line, tested against a callee's qualified name with its
 * template argument lists removed ("ck_tile::static_for::operator()"). */
typedef struct kw_calltree_rules {
    kw_arena arena;
    KW_ARRAY(const char *) helpers;
    KW_ARRAY(const char *) leaves;
} kw_calltree_rules;

kw_status kw_calltree_rules_load(kw_calltree_rules *r, const kw_annot *a, kw_err *err);
void kw_calltree_rules_free(kw_calltree_rules *r);
/* Whether a callee's printed name names a helper, a leaf (rules may be
 * NULL: none). */
bool kw_calltree_is_helper(const kw_calltree_rules *r, const char *name, kw_arena *a);
bool kw_calltree_is_leaf(const kw_calltree_rules *r, const char *name, kw_arena *a);

/* name without its template argument lists ("ns::A<int>::f<2>" -> "ns::A::f"),
 * operators (operator<, operator->, ...) and lambda names kept; in arena a. */
const char *kw_calltree_plain(const char *name, kw_arena *a);
/* The short label: kw_calltree_plain's last two components ("A::f"; a
 * lambda keeps its "(lambda at FILE:LINE:COL)" with the file's base name). */
const char *kw_calltree_label(const char *name, kw_arena *a);

/* A HIP runtime callee under one item: its name and first call's line. */
typedef struct kw_calltree_sys {
    const char *name;
    int line; /* 0: not known */
} kw_calltree_sys;

/* One item of the tree, in the order printed (preorder). */
typedef struct kw_calltree_item {
    int depth;          /* 0: a call of the kernel itself */
    bool hip;           /* the HIP runtime line: sys[0 .. nsys) */
    const kw_calltree_sys *sys;
    size_t nsys;
    const char *label;  /* short name */
    const char *symbol; /* the first instantiation's */
    size_t full;        /* its full name: fulls.v[full] */
    kw_loc at, def;     /* its first call site; the callee's definition */
    size_t calls;       /* call sites merged into the item */
    size_t insts;       /* instantiations (distinct symbols) merged */
    size_t folded;      /* helper frames folded into this item's calls */
    bool above;         /* its calls are listed at an earlier item */
    bool cut;           /* its calls are not shown: the tree is at its depth limit */
    bool leaf;          /* its calls are not shown: a leaf (library internals) */
} kw_calltree_item;

typedef struct kw_calltree {
    KW_ARRAY(kw_calltree_item) items;
    KW_ARRAY(const char *) fulls; /* full names, once each, in order of first item */
    /* as the page shows them: the first KW_CALLTREE_FULL_BUDGET bytes whole,
     * later ones with template arguments nested deeper than one level
     * elided ("A<B<…>, 4>::f"); elided: how many were */
    const char **shown;
    size_t elided;
    size_t edges;                 /* the kernel's call edges */
    size_t folded;                /* helper frames folded, whole tree */
    int max_depth;                /* deepest item */
} kw_calltree;

enum { KW_CALLTREE_MAXDEPTH = 30, KW_CALLTREE_FULL_BUDGET = 16 * 1024 };

/* name with template argument lists nested deeper than depth levels written
 * as "<…>"; in arena a. */
const char *kw_calltree_elide(const char *name, int depth, kw_arena *a);

/* Build k's tree (rules may be NULL: nothing is folded). */
kw_status kw_calltree_build(kw_calltree *t, const kw_kernel *k, const kw_calltree_rules *rules,
                            kw_arena *a, kw_err *err);

#endif
