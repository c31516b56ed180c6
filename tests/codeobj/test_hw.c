/* test_hw.c: the one hardware table (kw_co_hw_lookup, kw_co_hw_gpus: the
 * embedded annotations/hw/ files) against facts kwalk does not produce:
 * - each product's FP32 vector, FP16/BF16 and FP8 matrix peaks equal CUs x
 *   FLOP per clock per CU x clock, with the FLOP per clock of the vendor's
 *   ISA guides (CDNA3, MI300: 256 FP32 vector, 2048 dense FP16/BF16, 4096
 *   dense FP8 per CU and clock; CDNA4, MI350: 256, 4096, 8192), rounded to
 *   0.1 TFLOP/s as AMD's data sheets round them;
 * - each product's arch facts are its arch's (the same record
 *   kw_co_hw_lookup gives), with LLVM's AMDGPU target facts: LDS per CU
 *   (FeatureAddressableLocalMemorySize65536 on GFX9, 163840 on gfx950), 512
 *   unified VGPRs per lane and 8 waves per SIMD on gfx90a/gfx942/gfx950,
 *   wave64, EF_AMDGPU_MACH values of llvm/BinaryFormat/ELF.h;
 * - every arch has exactly one default product, and the MI300X (gfx942) and
 *   MI355X (gfx950) are there. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"
#include "kw_test.h"

/* FLOP per CU per clock: {fp32 vector, fp16/bf16 matrix, fp8 matrix}. */
static const double *flop_per_clock(const char *arch) {
    static const double cdna3[3] = {256, 2048, 4096}, cdna4[3] = {256, 4096, 8192};
    return !strcmp(arch, "gfx942") ? cdna3 : !strcmp(arch, "gfx950") ? cdna4 : NULL;
}

static double tflops(const kw_co_gpu *g, double per_clock) {
    return round(g->compute_units * per_clock * g->peak_clock_mhz / 1e5) / 10; /* 0.1 TFLOP/s */
}

static void test_products(void) {
    CHECK(kw_co_hw_error() == NULL);
    size_t n = 0;
    const kw_co_gpu *v = kw_co_hw_gpus(&n);
    CHECK(n >= 2);
    bool mi300x = false, mi355x = false;
    for (size_t i = 0; i < n; i++) {
        const kw_co_gpu *g = &v[i];
        mi300x |= !strcmp(g->product, "MI300X") && !strcmp(g->arch, "gfx942");
        mi355x |= !strcmp(g->product, "MI355X") && !strcmp(g->arch, "gfx950");
        CHECK(g->hw && g->hw == kw_co_hw_lookup(g->arch));
        CHECK(g->source && g->source[0]);
        const double *f = flop_per_clock(g->arch);
        CHECK(f != NULL);
        if (!f)
            continue;
        CHECK(g->compute_units > 0 && g->peak_clock_mhz > 0 && g->hbm_tbs > 0);
        CHECK(fabs(g->fp32_vector_tflops - tflops(g, f[0])) < 0.051);
        CHECK(fabs(g->fp16_tflops - tflops(g, f[1])) < 0.051);
        CHECK(fabs(g->bf16_tflops - tflops(g, f[1])) < 0.051);
        CHECK(fabs(g->fp8_tflops - tflops(g, f[2])) < 0.051);
        size_t defaults = 0;
        for (size_t j = 0; j < n; j++)
            defaults += !strcmp(v[j].arch, g->arch) && v[j].is_default;
        CHECK(defaults == 1);
    }
    CHECK(mi300x && mi355x);
}

static void test_archs(void) {
    static const struct {
        const char *arch;
        unsigned mach, lds, vgprs, waves;
    } want[] = {
        {"gfx90a", 0x03f, 65536, 512, 8},
        {"gfx942", 0x04c, 65536, 512, 8},
        {"gfx950", 0x04f, 163840, 512, 8},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const kw_co_hw *h = kw_co_hw_lookup(want[i].arch);
        CHECK(h != NULL);
        if (!h)
            continue;
        CHECK(h->mach == want[i].mach && h->wave_size == 64 && h->simds_per_cu == 4);
        CHECK(h->lds_bytes_per_cu == want[i].lds && h->vgprs_per_lane == want[i].vgprs);
        CHECK(h->max_waves_per_simd == want[i].waves);
        CHECK(!strcmp(kw_co_hw_arch_for_mach(want[i].mach), want[i].arch));
    }
    CHECK(kw_co_hw_lookup("gfx942:sramecc+:xnack-") == kw_co_hw_lookup("gfx942"));
    CHECK(kw_co_hw_lookup("gfx1100") == NULL);
}

int main(void) {
    test_products();
    test_archs();
    return kw_test_result("test_hw");
}
