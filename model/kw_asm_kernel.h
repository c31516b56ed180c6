/* kw_asm_kernel.h: a precompiled ASM kernel's facts for its page. The index
 * records only which code object holds such a kernel (kw_mkernel's
 * asm_code_object); its metadata and listing are read from that file when its
 * page is built, into a sidecar document of its own. */
#ifndef KW_ASM_KERNEL_H
#define KW_ASM_KERNEL_H

#include "common/kw_arena.h"
#include "model/kw_model.h"
#include "sidecar/kw_sidecar.h"

/* Read mk's code object into sc (freed first; the caller frees it) and find
 * mk's symbol in it. Returns that kernel, or NULL with *why (in arena a) when
 * the file cannot be read or does not hold it. mk must have asm_code_object. */
const kw_kernel *kw_asm_kernel_read(kw_sidecar *sc, const kw_mkernel *mk, kw_arena *a,
                                    const char **why);

#endif
