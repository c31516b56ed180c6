/* kw_tpick.h: the command line `kwalk repro` and `kwalk compare` share
 * (--db, --arch, -o, the KERNEL names), and the one Triton specialization a
 * KERNEL argument names, matched as `render KERNEL` matches
 * (model/kw_pick.h) among the index's Triton specializations. */
#ifndef KW_TPICK_H
#define KW_TPICK_H

#include <stddef.h>

#include "model/kw_model.h"

/* The command line of `kwalk CMD [--db FILE] [--arch ARCH] [-o FILE] NAME...`. */
typedef struct kw_tpick_args {
    const char *db, *arch, *output; /* NULL when not given */
    const char *q[2];               /* the names, nq of them */
    size_t nq;
} kw_tpick_args;

/* Reads argv[1..] into out, taking at most max (1 or 2) names. Returns -1 to
 * go on; else the exit status the command returns: 0 after -h printed usage,
 * KW_EXIT_USAGE after a `kwalk: CMD: ...` line (an option without its value,
 * an unknown option, a name too many). */
int kw_tpick_args_parse(int argc, char **argv, const char *cmd, const char *usage, size_t max,
                        kw_tpick_args *out);

/* *out: the kernel index of the one Triton specialization q (and arch, when
 * not NULL) names; else a `kwalk: CMD: ...` error (the candidates listed when
 * several) and a non-zero exit status. */
int kw_tpick(const kw_model *m, const char *cmd, const char *q, const char *arch, size_t *out);

#endif
