/* kw_asm_kernel.c: reading a precompiled ASM kernel's code object for its
 * page (see kw_asm_kernel.h). */
#include "model/kw_asm_kernel.h"

#include <string.h>

#include "codeobj/kw_co_sidecar.h"

const kw_kernel *kw_asm_kernel_read(kw_sidecar *sc, const kw_mkernel *mk, kw_arena *a,
                                    const char **why) {
    kw_sidecar_free(sc);
    *why = NULL;
    kw_err err;
    if (kw_co_sidecar_fill_kernels(sc, mk->asm_code_object, KW_CO_SC_LISTING | KW_CO_SC_CACHE,
                                   mk->symbol, &err) != KW_OK) {
        *why = kw_arena_strdup(a, err.msg);
        return NULL;
    }
    for (size_t i = 0; i < sc->kernels.n; i++)
        if (sc->kernels.v[i].symbol && !strcmp(sc->kernels.v[i].symbol, mk->symbol))
            return &sc->kernels.v[i];
    *why = kw_arena_printf(a, "%s holds no kernel named %s", mk->asm_code_object, mk->symbol);
    return NULL;
}
