/* kw_hw.c: reading annotations/hw/amdgpu-peaks.txt (see kw_hw.h). */
#include "model/kw_hw.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"

static const struct {
    const char *key;
    size_t off;
} kw_gpu_keys[] = {
    {"compute_units", offsetof(kw_gpu, compute_units)},
    {"peak_clock_mhz", offsetof(kw_gpu, peak_clock_mhz)},
    {"memory_gb", offsetof(kw_gpu, memory_gb)},
    {"hbm_tbs", offsetof(kw_gpu, hbm_tbs)},
    {"fp32_vector_tflops", offsetof(kw_gpu, fp32_vector_tflops)},
    {"fp32_matrix_tflops", offsetof(kw_gpu, fp32_matrix_tflops)},
    {"fp16_tflops", offsetof(kw_gpu, fp16_tflops)},
    {"bf16_tflops", offsetof(kw_gpu, bf16_tflops)},
    {"fp8_tflops", offsetof(kw_gpu, fp8_tflops)},
    {"lds_kib_per_cu", offsetof(kw_gpu, lds_kib_per_cu)},
    {"vgprs_per_simd", offsetof(kw_gpu, vgprs_per_simd)},
};

static kw_status kw_gpu_line(void *ctx, const kw_annot_line *l, kw_err *err) {
    kw_gpus *g = ctx;
    const char *k = l->word[0];
    if (!strcmp(k, "product")) {
        if (l->nwords != 2)
            return kw_fail(err, "annotations/%s:%d: expected 'product NAME'", l->file, l->lineno);
        kw_gpu *p = KW_PUSH(&g->arena, g->v);
        if (!p || !(p->product = kw_arena_strdup(&g->arena, l->word[1])))
            return kw_fail(err, "out of memory");
        for (size_t i = 0; i < sizeof(kw_gpu_keys) / sizeof(kw_gpu_keys[0]); i++)
            *(double *)((char *)p + kw_gpu_keys[i].off) = -1;
        return KW_OK;
    }
    if (!g->v.n)
        return kw_fail(err, "annotations/%s:%d: expected 'product NAME' first", l->file,
                       l->lineno);
    kw_gpu *p = &g->v.v[g->v.n - 1];
    if (!strcmp(k, "arch") && l->nwords == 2) {
        p->arch = kw_arena_strdup(&g->arena, l->word[1]);
        return KW_OK;
    }
    if (!strcmp(k, "default") && l->nwords == 1) {
        p->is_default = true;
        return KW_OK;
    }
    if (!strcmp(k, "source")) {
        p->source = kw_arena_strdup(&g->arena, l->rest);
        return KW_OK;
    }
    for (size_t i = 0; i < sizeof(kw_gpu_keys) / sizeof(kw_gpu_keys[0]); i++) {
        if (strcmp(k, kw_gpu_keys[i].key))
            continue;
        char *end;
        double v = l->nwords == 2 ? strtod(l->word[1], &end) : -1;
        if (l->nwords != 2 || *end || v < 0)
            return kw_fail(err, "annotations/%s:%d: %s: expected one number", l->file, l->lineno,
                           k);
        *(double *)((char *)p + kw_gpu_keys[i].off) = v;
        return KW_OK;
    }
    return kw_fail(err, "annotations/%s:%d: unknown key '%s'", l->file, l->lineno, k);
}

kw_status kw_gpus_load(kw_gpus *g, const kw_annot *a, kw_err *err) {
    memset(g, 0, sizeof(*g));
    kw_arena_init(&g->arena);
    const kw_annot_file *f = kw_annot_get(a, "hw/amdgpu-peaks.txt");
    if (!f)
        return KW_OK; /* no data: every section says so */
    if (kw_annot_lines(f, kw_gpu_line, g, err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; i < g->v.n; i++)
        if (!g->v.v[i].arch)
            return kw_fail(err, "annotations/hw/amdgpu-peaks.txt: product %s has no arch",
                           g->v.v[i].product);
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
