/* kw_irview.h: the IR view of a Triton specialization (the site's
 * NAME.ir.html, docs/site.md): the TTIR, TTGIR, LLIR and AMDGCN texts of its
 * cache folder, read when the view is built (the index keeps the folder and
 * its files, not their text), the Python position of each of their lines
 * (kw_irloc.h), the positions' files in one list, each where it is read now,
 * and the source lines the view shows. Built by the site, one kernel at a
 * time, and written by render/kw_html_ir.c. */
#ifndef KW_IRVIEW_H
#define KW_IRVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_src.h"
#include "sidecar/kw_sidecar.h"

#define KW_IRVIEW_NSTAGES 4

typedef struct kw_irview_stage {
    const char *name; /* "TTIR", "TTGIR", "LLIR", "AMDGCN" */
    const char *ext;  /* ".ttir", ... */
    const char *path; /* the cache file; NULL when the record names none */
    const char *why;  /* NULL when read, else why it is not shown */
    const char *text; /* its text (why NULL) */
    size_t len;
    size_t nlines;
    int *file; /* per line: an index into kw_irview.files, -1 for no position */
    int *line; /* per line: the Python line (file >= 0) */
} kw_irview_stage;

typedef struct kw_irview_file {
    const char *ir;         /* the path as the IR writes it */
    const char *path;       /* where it is read: the IR's path with the prefix the
                             * kernel's own file moved by (its definition in the
                             * index against the IR's) replaced */
    const kw_src_file *src; /* NULL when not asked for (no line shown) */
    /* the lines shown, as runs [first, last] (1-based, ascending): every line
     * a stage names, two lines around it, runs closer than six lines joined;
     * the kernel's file: also its @triton.jit function, def to end */
    KW_ARRAY(int) runs;
} kw_irview_file;

typedef struct kw_irview {
    kw_arena arena;
    kw_irview_stage stages[KW_IRVIEW_NSTAGES];
    KW_ARRAY(kw_irview_file) files;
} kw_irview;

/* The view of Triton kernel k (k->triton set), its sources read through srcs. */
kw_status kw_irview_build(kw_irview *v, const kw_kernel *k, kw_srcs *srcs, kw_err *err);
void kw_irview_free(kw_irview *v);

#endif
