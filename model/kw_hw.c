/* kw_hw.c: the products of the one hardware table (see kw_hw.h). */
#include "model/kw_hw.h"

#include <ctype.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"

kw_status kw_gpus_load(kw_gpus *g, kw_err *err) {
    memset(g, 0, sizeof(*g));
    kw_arena_init(&g->arena);
    const char *why = kw_co_hw_error();
    if (why)
        return kw_fail(err, "%s", why);
    size_t n;
    const kw_co_gpu *v = kw_co_hw_gpus(&n);
    for (size_t i = 0; i < n; i++) {
        kw_gpu *p = KW_PUSH(&g->arena, g->v);
        if (!p)
            return kw_fail(err, "out of memory");
        *p = v[i];
    }
    return KW_OK;
}

void kw_gpus_free(kw_gpus *g) {
    kw_arena_free(&g->arena);
    memset(g, 0, sizeof(*g));
}

static bool kw_ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

const kw_gpu *kw_gpu_named(const kw_gpus *g, const char *name) {
    for (size_t i = 0; i < g->v.n; i++)
        if (kw_ieq(g->v.v[i].product, name))
            return &g->v.v[i];
    return NULL;
}

const kw_gpu *kw_gpu_for_arch(const kw_gpus *g, const char *arch) {
    const kw_gpu *first = NULL;
    for (size_t i = 0; i < g->v.n; i++) {
        if (strcmp(g->v.v[i].arch, arch))
            continue;
        if (g->v.v[i].is_default)
            return &g->v.v[i];
        if (!first)
            first = &g->v.v[i];
    }
    return first;
}

int kw_hw_wave_size(const char *arch) {
    const kw_co_hw *h = arch ? kw_co_hw_lookup(arch) : NULL;
    return h ? (int)h->wave_size : 0;
}
