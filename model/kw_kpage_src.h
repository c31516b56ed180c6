/* kw_kpage_src.h: what a kernel page (kw_kpage.h) says once for all its
 * instantiations: the template's definition in its source (the lines the
 * instantiation page quotes: the declaration from its template header to
 * the body's '{'), and its parameters as the source writes them, each with
 * the types the instantiations give it (one when they agree). */
#ifndef KW_KPAGE_SRC_H
#define KW_KPAGE_SRC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "model/kw_kpage.h"
#include "model/kw_src.h"

typedef struct kw_kparam_src {
    const char *name;    /* as the source names it ("" when unnamed) */
    const char *written; /* the declaration as written, whitespace folded ("const T* __restrict__ x") */
    /* the instantiations' types of the parameter at the same position, each
     * once, in row order; the rows whose record has no such parameter left out */
    KW_ARRAY(const char *) types;
} kw_kparam_src;

typedef struct kw_kpage_src {
    const char *file;   /* NULL: no definition found (an ASM kernel, an unreadable file) */
    const kw_src_file *f;
    int first, last;    /* the quoted lines */
    const char *why;    /* file set, lines not: why they are not quoted */
    KW_ARRAY(kw_kparam_src) params;
} kw_kpage_src;

/* The definition and parameters of the page's kernel, read through srcs. */
kw_status kw_kpage_src_build(kw_kpage_src *s, const kw_kpage *p, const kw_model *m, kw_srcs *srcs,
                             kw_arena *a);

#endif
