/* kw_ipage.h: the index page's model: what DIR/index.md of `kwalk render
 * --all` and DIR/index.html of `kwalk site` say, built once from the model
 * before either is written (render/kw_render_index.c and
 * render/kw_html_index.c print it). Per kernel template (the model's
 * groups, in their order): its provider, the definitions it lists, and a row
 * per instantiation with the entry points reaching any of its launches (the
 * model's entry paths, kw_model_paths, each entry once) and its resources
 * per arch; the counts of the page's first line. */
#ifndef KW_IPAGE_H
#define KW_IPAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_model.h"
#include "model/kw_provider.h"

/* An entry point reaching a launch of the row's kernel. */
typedef struct kw_ipage_entry {
    size_t entry;      /* into the model's entries */
    const char *label; /* as the binding spells it (kw_entry_label); "?" when unknown */
} kw_ipage_entry;

/* The resources of a row's archs the site's index table shows, in its
 * column order. */
enum {
    KW_IPAGE_VGPR,
    KW_IPAGE_AGPR,
    KW_IPAGE_SGPR,
    KW_IPAGE_LDS,     /* bytes */
    KW_IPAGE_SCRATCH, /* bytes per lane */
    KW_IPAGE_SPILLS,  /* VGPR + SGPR spills (VGPR's when SGPR's is unknown) */
    KW_IPAGE_OCC,     /* waves per SIMD */
    KW_IPAGE_NRES
};

/* One instantiation. */
typedef struct kw_ipage_row {
    size_t kernel; /* into the model's kernels */
    /* per arch of its kernel (in the kernel's order), each resource; -1
     * where unknown */
    long long (*res)[KW_IPAGE_NRES];
    size_t narchs;
    /* over the archs: the largest of each resource, the smallest occupancy
     * (what the site's table sorts by); -1 where no arch knows it */
    long long best[KW_IPAGE_NRES];
    /* the entry points reaching any of its launches, each once, in the order
     * first reached (launch by launch, each launch's paths in entry order) */
    KW_ARRAY(kw_ipage_entry) entries;
    /* launched, and no launch ever runs (each is under a condition that is
     * constant false, or reached only through calls that are: kw_mpaths.dead) */
    bool unreachable;
} kw_ipage_row;

/* One kernel template (a model group). */
typedef struct kw_ipage_group {
    size_t group;         /* into the model's groups */
    const char *provider; /* of its first instantiation's definition file (kw_provider_of) */
    /* the instantiations whose definitions the template lists (into the
     * model's kernels): none when the first has no recorded location; else
     * the first, then each one of a unit of its own (internal linkage)
     * defined at a file:line no earlier one is */
    KW_ARRAY(size_t) defs;
    KW_ARRAY(kw_ipage_row) rows; /* in the group's kernel order */
} kw_ipage_group;

typedef struct kw_ipage {
    kw_arena arena;
    const kw_model *m;
    /* the counts: kernels (instantiations and specializations), templates,
     * launch sites, host entry points, and the kernels that are Triton
     * specializations */
    size_t nkernels, ngroups, nlaunches, nentries, ntriton;
    KW_ARRAY(kw_ipage_group) groups; /* the model's groups, in order */
} kw_ipage;

/* Build the index page of model m (providers: the annotation data's). The
 * paths of m's launches are read through kw_model_paths (cached or not).
 * kw_ipage_free frees it (also after a failure). */
kw_status kw_ipage_build(kw_ipage *p, kw_model *m, const kw_providers *providers, kw_err *err);
void kw_ipage_free(kw_ipage *p);

#endif
