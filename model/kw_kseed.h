/* kw_kseed.h: the seed's known-kernel table (`kwalk map --kernels
 * NAME,...`), one row per name as the user typed it: the kernel it means
 * (kw_kfamily.h: a template, a glob, an ASM family), its host entries (the
 * Python ops bound to the entry points that reach a launch of it, each at
 * its def line, a private op with its package's public callers; the C++
 * entry points where no op is bound) and its device
 * code (the kernel's definition; for precompiled ASM kernels, their code
 * objects, a directory's several as DIR/ *.co). */
#ifndef KW_KSEED_H
#define KW_KSEED_H

#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_kfamily.h"
#include "model/kw_model.h"

typedef struct kw_kseed_at {
    const char *what; /* the op's or entry's name */
    kw_loc loc;
    /* a Python op whose name is private (`_pa_fwd_asm`): the op, whose
     * public callers in its package (op->callers) are what users call */
    const struct kw_py_op *op;
} kw_kseed_at;

typedef KW_ARRAY(kw_kseed_at) kw_kseed_ats;

typedef struct kw_kseed_row {
    const char *query; /* the name as given */
    const char *why;   /* the row's error ("no kernel matches", "names 3 kernels: ...") */
    size_t ninst;      /* instantiations the name means */
    kw_kseed_ats host; /* Python ops, else C++ entry points; each once */
    bool host_is_python;
    kw_kseed_ats device; /* definitions (line > 0) or code objects (line 0) */
    bool is_asm;
} kw_kseed_row;

typedef struct kw_kseed {
    KW_ARRAY(kw_kseed_row) rows;
} kw_kseed;

/* A row per comma-separated name of names. */
kw_status kw_kseed_build(kw_kseed *s, kw_model *m, const kw_kfams *f, const char *names,
                         kw_arena *a, kw_err *err);

/* The device symbols of the kernels the comma-separated names of names
 * match (kw_kfam_match, as kw_kseed_build matches them), copied into a:
 * what a read of the index for these rows needs (kw_index_read_file_only). */
typedef KW_ARRAY(const char *) kw_kseed_syms;
kw_status kw_kseed_symbols(const kw_model *m, const kw_kfams *f, const char *names, kw_arena *a,
                           kw_kseed_syms *out, kw_err *err);

#endif
