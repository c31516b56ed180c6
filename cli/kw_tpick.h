/* kw_tpick.h: the one Triton specialization a command's KERNEL argument
 * names (`kwalk repro`, `kwalk compare`), matched as `render KERNEL` matches
 * (model/kw_pick.h) among the index's Triton specializations. */
#ifndef KW_TPICK_H
#define KW_TPICK_H

#include <stddef.h>

#include "model/kw_model.h"

/* *out: the kernel index of the one Triton specialization q (and arch, when
 * not NULL) names; else a `kwalk: CMD: ...` error (the candidates listed when
 * several) and a non-zero exit status. */
int kw_tpick(const kw_model *m, const char *cmd, const char *q, const char *arch, size_t *out);

#endif
