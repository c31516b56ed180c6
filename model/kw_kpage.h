/* kw_kpage.h: the page model of one kernel (a family of instantiations,
 * kw_kfamily.h): its dispatch table. Each instantiation a row, with every
 * way the build reaches it (an entry point, the calls from it to a launch,
 * the launch) and the conditions on that way as the path needs them (a
 * guard that must be false written "!(cond)"); a precompiled ASM kernel's
 * row also has its table row's fields (`Gqa=8` as `Gqa == 8`). Loops and
 * compile-time constant guards are not dispatch conditions and are left
 * out. Rows are grouped by their conditions (rows with the same set are one
 * group). With a --shape, each condition is evaluated (kw_expr, with the
 * constants of the call or launch it is on and the instantiation's integral
 * template arguments), each way holds (every condition true), fails (one
 * false) or is open (the rest not evaluated; but a way needing both C and
 * "!(C)" fails, kw_kway.contra), and a row is selected when a way of it
 * holds, a candidate when none holds but one is open. Also: the
 * template arguments that differ between the rows, and per row its
 * resources and occupancy on each arch and its instruction mix per arch
 * (kw_page_isa_mix: the walkthrough's classes). */
#ifndef KW_KPAGE_H
#define KW_KPAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_expr.h"
#include "model/kw_kfamily.h"
#include "model/kw_model.h"
#include "model/kw_page_isa.h"

typedef enum kw_kverdict {
    KW_KV_NONE = 0, /* no --shape */
    KW_KV_HOLDS,
    KW_KV_FAILS,
    KW_KV_OPEN, /* not evaluated (why says why) */
} kw_kverdict;

typedef struct kw_kcond {
    const char *text; /* as the way needs it */
    kw_loc loc;       /* the guard (or the ASM table row) */
    kw_kverdict v;
    const char *why; /* KW_KV_OPEN: the evaluator's reason */
    /* what is evaluated (the site's shape box evaluates it again): expr,
     * which must be true (need) or false for the way, with the constants of
     * the call or launch it is on (kw_operand_shape; none for a table row's
     * field) */
    const char *expr;
    bool need;
    const kw_constant *consts;
    size_t nconsts;
} kw_kcond;

typedef struct kw_kway {
    size_t entry; /* into the model's entries; KW_NONE: none reaches the launch */
    const kw_mlaunch *launch;
    KW_ARRAY(kw_kcond) conds; /* outermost first, each text once */
    kw_kverdict v;            /* with --shape */
    /* with --shape, a way that would be open but needs a condition C and
     * "!(C)" (either first), one of them not evaluated: no shape takes it
     * unless a name in C changes between the two tests, so it fails (v);
     * contra the later of the two, contra_of the earlier. NULL: not so. */
    const kw_kcond *contra, *contra_of;
} kw_kway;

/* An instantiation's instruction mix on one arch. */
typedef struct kw_kmix {
    const char *arch;
    kw_isa_mix m;
} kw_kmix;

typedef struct kw_krow {
    size_t kernel; /* into the model's kernels */
    KW_ARRAY(kw_kway) ways;
    size_t nlaunches, ndead; /* its launches, those under a constant-false condition */
    const char *conds;     /* its ways' entry points and conditions, "; "-joined: the
                              grouping key of a folded page */
    const char *ways_at;   /* conds and the ways' launch sites: the key of a page's groups */
    const char *args;      /* the differing template arguments "N=v, ..." (NULL: none) */
    kw_kverdict v;         /* HOLDS: selected; OPEN: a candidate; FAILS: ruled out */
    size_t group;          /* rows with the same key share it (0, 1, ... in first-row order;
                              a folded page's in its tree's order) */
    KW_ARRAY(kw_kmix) mix; /* per arch with class counts, in the kernel's arch order */
} kw_krow;

/* A launch site or entry point the rows share, with the rows reaching it. */
typedef struct kw_kshared {
    const kw_loc *loc; /* a launch site; NULL for an entry */
    size_t entry;      /* an entry: into the model's entries */
    size_t rows;
} kw_kshared;
typedef KW_ARRAY(kw_kshared) kw_kshareds;

/* A large family's group in one line (kw_kpage.fold): its rows, the
 * conditions of its ways beyond those every way needs ("entry: a && b",
 * ways "; "-joined; "(none beyond those)" when none), and the differing
 * template arguments, each with its values in the group ("N=v" where the
 * group agrees, "N=v1 | v2" where not). */
typedef struct kw_kgroup {
    size_t first, n;         /* first row, row count */
    const char *rest, *args; /* args: the values only, in kw_kpage.differ's order */
} kw_kgroup;

/* A node of a folded page's condition tree: a condition (or an entry
 * point's name, or a group's several ways in one text) under the node
 * depth - 1 above it, followed by the conditions in more: a chain of nodes
 * each the only child of the one before is one node; a group's last node
 * names it (group + 1, 0 for an inner node). */
typedef struct kw_ktree {
    size_t depth, group;
    const char *text;
    bool entry;                  /* text is an entry point's name */
    KW_ARRAY(const char *) more; /* the chain's later conditions, outermost first */
    /* a condition of this node that is "!(C)" of a C above it on the same way
     * (or C of a "!(C)"): that C, else NULL. The way is taken by no shape
     * unless a name in C changes between the two tests. */
    const char *contra;
} kw_ktree;

/* A family with more rows than this is written folded: one line per group,
 * the instantiations listed by symbol under it. */
#define KW_KPAGE_FOLD_ROWS 64

typedef struct kw_kpage {
    const kw_kfam *fam;
    bool subset;            /* the rows are some of the family's (a glob, a substring) */
    const kw_shape *shape;  /* --shape, NULL when none */
    KW_ARRAY(kw_krow) rows; /* in model order */
    size_t ngroups;
    KW_ARRAY(const char *) differ; /* the template parameters whose arguments differ */
    size_t nselected, ncandidates;
    /* the distinct conditions a --shape left open on a candidate's open
     * ways, each with the reason (a name it does not bind); but not those of
     * a way another open way settles (its open conditions are some of this
     * way's: it is taken wherever this one is, so the rest decide nothing) */
    KW_ARRAY(const kw_kcond *) open;
    /* the ways of ruled-out rows that a contradiction failed (kw_kway.contra),
     * one per pair of conditions */
    KW_ARRAY(const kw_kway *) unreach;
    /* what the rows share, for the page's first section: the launch sites
     * and entry points of their ways, each with the rows reaching it, in
     * first-seen order */
    kw_kshareds sites, entries;
    /* the template's definition and parameters (kw_kpage_src.h): set by the
     * caller after kw_kpage_build, NULL when not read */
    const struct kw_kpage_src *src;
    /* the facts of the six walkthrough sections every row has alike
     * (kw_kpage_walk.h), built by kw_kpage_build */
    const struct kw_kpage_walk *walk;
    /* more than KW_KPAGE_FOLD_ROWS rows: the conditions every way of every
     * row needs (in the first way's order) and a line per group */
    bool fold;
    KW_ARRAY(const char *) common;
    KW_ARRAY(kw_kgroup) groups;
    /* the groups by their conditions, depth first: siblings in text order,
     * but those comparing one name against integer literals by value
     * (`n == 2` before `n == 16`); the groups numbered in this order */
    KW_ARRAY(kw_ktree) tree;
} kw_kpage;

/* The value a template argument binds for the conditions (an integral or
 * bool argument), or false. */
bool kw_kpage_targ_value(const kw_template_arg *t, double *v);

/* The page of the family's instantiations kernels[0..n) (all of them, or
 * the ones a name matched), evaluated with m->shape when set. */
kw_status kw_kpage_build(kw_kpage *p, kw_model *m, const kw_kfam *fam, const size_t *kernels,
                         size_t n, kw_arena *a, kw_err *err);

/* The verdict of shape (KW_KV_NONE when NULL) on the ways to
 * instantiation ki (into the model's kernels) through its launch li (into
 * the model's launches) from entry (KW_NONE: the launch's own conditions,
 * when paths has no way): the best of those ways, as a row's (KW_KV_FAILS
 * when there is none); paths are kw_model_paths of li. `kwalk map --shape`. */
kw_kverdict kw_kpage_launch_verdict(kw_model *m, const kw_shape *shape, size_t ki, size_t li,
                                    const kw_mpaths *paths, size_t entry, kw_arena *a);

#endif
