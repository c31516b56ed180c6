/* test_page_perf_unit.c: unit test of section 4's page model
 * (model/kw_page_perf.h) on a hand-built index of one kernel (IR facts of
 * 16 bytes read, 4 written and 64 FLOP per thread on gfx942) and one launch
 * of 100 blocks of 256 threads, with --time-us and one trace configuration.
 * The expected numbers are worked out here from ground truth the model does
 * not produce: the vendor peaks and the occupancy facts read by this test
 * from the annotation files themselves (annotations/hw/amdgpu-peaks.txt,
 * amdgpu-occupancy.txt: argv[1] is their folder), with its own parser, and
 * LLVM's VGPR rule (the VGPRs rounded up to the granule, the lane's VGPRs
 * over that, at most the wave slots) written out here: the work per block
 * and invocation, the bound verdict against the FP32 ridge, launch-bound,
 * the achieved bandwidth and FLOP rate, the roofline points, the hardware
 * table's rows and the occupancy chart's curve at every VGPR count. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/kw_index_int.h"
#include "kw_test.h"
#include "model/kw_annot.h"
#include "model/kw_page.h"
#include "model/kw_page_perf.h"

static bool kw_near(double a, double b) {
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

/* ---- the annotation files, read here -------------------------------------------------------- */

typedef struct kw_tgpu {
    char product[64], arch[64];
    bool is_default;
    double cus, hbm, fp32;
} kw_tgpu;

static size_t kw_read_peaks(const char *dir, kw_tgpu *out, size_t max) {
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/amdgpu-peaks.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = 0;
    kw_tgpu *g = NULL;
    while (f && fgets(line, sizeof line, f)) {
        char key[64], val[64];
        int k = sscanf(line, " %63s %63s", key, val);
        if (k < 1 || key[0] == '#')
            continue;
        if (!strcmp(key, "product") && k == 2 && n < max) {
            g = &out[n++];
            memset(g, 0, sizeof *g);
            snprintf(g->product, sizeof g->product, "%s", val);
        } else if (g && !strcmp(key, "arch") && k == 2) {
            snprintf(g->arch, sizeof g->arch, "%s", val);
        } else if (g && !strcmp(key, "default")) {
            g->is_default = true;
        } else if (g && !strcmp(key, "compute_units") && k == 2) {
            g->cus = atof(val);
        } else if (g && !strcmp(key, "hbm_tbs") && k == 2) {
            g->hbm = atof(val);
        } else if (g && !strcmp(key, "fp32_vector_tflops") && k == 2) {
            g->fp32 = atof(val);
        }
    }
    if (f)
        fclose(f);
    return n;
}

/* max_waves_per_simd, vgprs_per_lane and vgpr_granule of arch. */
static bool kw_read_occ(const char *dir, const char *arch, unsigned v[3]) {
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/amdgpu-occupancy.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    bool in = false;
    int got = 0;
    static const char *const keys[3] = {"max_waves_per_simd", "vgprs_per_lane", "vgpr_granule"};
    while (f && fgets(line, sizeof line, f)) {
        char key[64], val[64];
        if (sscanf(line, " %63s %63s", key, val) != 2)
            continue;
        if (!strcmp(key, "arch"))
            in = !strcmp(val, arch);
        for (int i = 0; in && i < 3; i++)
            if (!strcmp(key, keys[i])) {
                v[i] = (unsigned)atoi(val);
                got |= 1 << i;
            }
    }
    if (f)
        fclose(f);
    return got == 7;
}

/* LLVM's VGPR term (AMDGPU::IsaInfo::getNumWavesPerEUWithNumVGPRs). */
static unsigned kw_waves(const unsigned occ[3], unsigned vgprs) {
    unsigned maxw = occ[0], lane = occ[1], gran = occ[2];
    if (vgprs < gran)
        return maxw;
    unsigned rounded = (vgprs + gran - 1) / gran * gran;
    unsigned w = lane / rounded;
    w = w ? w : 1;
    return w < maxw ? w : maxw;
}

/* The model's step curve at x VGPRs. */
static unsigned kw_curve_at(const kw_page_occ *o, unsigned x) {
    unsigned w = o->waves0;
    for (size_t i = 0; i < o->nsteps; i++)
        if (x >= o->vgprs[i])
            w = o->waves[i];
    return w;
}

/* ---- the test ------------------------------------------------------------------------------- */

static void test_page_perf(const char *hwdir) {
    kw_tgpu tg[64];
    size_t ng = kw_read_peaks(hwdir, tg, 64);
    const kw_tgpu *mi = NULL, *other = NULL; /* gfx942's default; a product of another arch */
    size_t n942 = 0;
    for (size_t i = 0; i < ng; i++) {
        bool is942 = !strcmp(tg[i].arch, "gfx942");
        n942 += is942;
        if (is942 && tg[i].is_default)
            mi = &tg[i];
        if (!is942 && !other)
            other = &tg[i];
    }
    CHECK(mi != NULL && other != NULL && n942 > 0);
    unsigned occ[3];
    CHECK(kw_read_occ(hwdir, "gfx942", occ));
    if (!mi || !other)
        return;

    kw_arena a;
    kw_arena_init(&a);
    kw_err err;
    kw_index ix;
    kw_index_init(&ix);
    kw_kernel *k = KW_PUSH(&ix.arena, ix.kernels);
    k->symbol = "_Z1kv";
    k->name = "k";
    kw_irf ir;
    kw_irf_init(&ir);
    ir.work_per_thread.bytes_read = (kw_val){KW_VAL_NUM, 16, NULL, NULL};
    ir.work_per_thread.bytes_written = (kw_val){KW_VAL_NUM, 4, NULL, NULL};
    ir.work_per_thread.flops = (kw_val){KW_VAL_NUM, 64, NULL, NULL};
    kw_kernel_arch *ka = KW_PUSH(&ix.arena, k->archs);
    kw_kernel_arch_init(ka);
    ka->arch = "gfx942";
    ka->ir = &ir;
    ka->resources.vgpr = 100;
    ka->resources.agpr = 28;
    CHECK(kw_index_build_map(&ix, "t", &err) == KW_OK);
    kw_index_tu *tu = KW_PUSH(&ix.arena, ix.tus);
    kw_launch *l = KW_PUSH(&ix.arena, tu->launches);
    l->kernel = k->symbol;
    l->function = "launch";
    l->function_symbol = "_Z6launchv";
    l->location.line = 1;
    kw_config_item *items[2] = {&l->grid, &l->block};
    long long vals[2] = {100, 256};
    for (int i = 0; i < 2; i++) {
        items[i]->dims = 3;
        items[i]->has_value = true;
        items[i]->value[0] = vals[i];
        items[i]->value[1] = items[i]->value[2] = 1;
    }
    kw_model m;
    CHECK(kw_model_build(&m, &ix, NULL, &err) == KW_OK);
    CHECK(m.kernels.n == 1);
    if (m.kernels.n != 1)
        return;
    kw_annot an;
    kw_gpus gpus;
    CHECK(kw_annot_load(&an, &err) == KW_OK);
    CHECK(kw_gpus_load(&gpus, &err) == KW_OK);
    kw_srcs srcs;
    kw_srcs_init(&srcs);

    /* one trace configuration: 50 x 2 workgroups of 128, median 2.5 us */
    kw_perf_mcfg mc = {.known = true,
                       .grid_wg = {50, 2, 1},
                       .block = {128, 1, 1},
                       .arch = "gfx942",
                       .t = {.n = 3, .total = 7000, .min = 2000, .max = 2500, .median = 2500}};
    kw_perf_measured ms = {.path = "t.csv",
                           .format = "csv",
                           .dispatches = 3,
                           .found = true,
                           .k = k,
                           .t = mc.t,
                           .cfgs = &mc,
                           .ncfgs = 1};

    for (int c = 0; c < 2; c++) {
        /* c = 0: the arch's default product; c = 1: --gpu of another arch */
        const char *gpu = c ? other->product : NULL;
        kw_page p;
        kw_page_init(&p);
        CHECK(kw_page_open(&p, &m, &m.kernels.v[0], &srcs, &a, &err) == KW_OK);
        CHECK(kw_page_finish(&p, &m, NULL, 0, NULL, &a, &err) == KW_OK);
        kw_page_perf pf;
        CHECK(kw_page_perf_build(&pf, &p, &m, &gpus, gpu, NULL, 10, &ms, &a, &err) == KW_OK);
        CHECK(p.archs.n == 1 && pf.nlaunches == 1);
        if (p.archs.n != 1 || pf.nlaunches != 1)
            break;
        const kw_page_perf_arch *pa = &pf.archs[0];
        const kw_page_perf_launch *pl = &pf.launches[0];
        if (c == 1) {
            CHECK(!pa->gpu && pa->gpu_mismatch && !pa->roof);
            CHECK(!pl->per_cu && !pl->timed);
            CHECK(pl->classified && pl->bound.kind == KW_BOUND_UNKNOWN);
            /* the trace ran on gfx942: --gpu names no product of it */
            CHECK(pf.tcfgs[0].work.known && !pf.tcfgs[0].gpu && pf.tcfgs[0].bw.of_peak < 0);
            kw_page_free(&p);
            continue;
        }
        /* the arch's GPU and the hardware table */
        CHECK(pa->gpu && !strcmp(pa->gpu->product, mi->product) && !pa->gpu_mismatch && pa->roof);
        CHECK(pa->npeaks == n942);
        double ridge = mi->fp32 / mi->hbm;
        for (size_t i = 0; i < pa->npeaks; i++)
            for (size_t j = 0; j < ng; j++)
                if (!strcmp(tg[j].product, pa->peaks[i].g->product))
                    CHECK(kw_near(pa->peaks[i].ridge, tg[j].fp32 / tg[j].hbm));
        /* blocks per CU: 100 blocks */
        CHECK(pl->per_cu && kw_near(pl->blocks_per_cu, 100 / mi->cus));
        CHECK(pl->launch_bound == (100 < mi->cus));
        /* work per thread, block (256) and invocation (25600 threads) */
        double per[3] = {16, 4, 64}, threads[3] = {1, 256, 25600};
        for (int x = 0; x < 3; x++)
            for (int w = 0; w < 3; w++)
                CHECK(pl->known[x][w] && kw_near(pl->work[x][w], per[w] * threads[x]));
        CHECK(kw_near(pl->threads, 25600));
        /* the bound: 64 FLOP per 20 bytes against the FP32 ridge */
        CHECK(pl->classified && kw_near(pl->bound.intensity, 64.0 / 20));
        CHECK(kw_near(pl->bound.ridge, ridge));
        CHECK(pl->bound.kind == (64.0 / 20 < ridge ? KW_BOUND_MEMORY : KW_BOUND_COMPUTE));
        CHECK(!strcmp(pl->bound.name, 64.0 / 20 < ridge ? "memory-bound" : "compute-bound"));
        /* --time-us 10: 512000 bytes in 10000 ns */
        CHECK(pl->timed && kw_near(pl->bytes, 20 * 25600.0));
        CHECK(kw_near(pl->bw.tbs, 20 * 25600.0 / 10000 / 1000));
        CHECK(kw_near(pl->bw.of_peak, 20 * 25600.0 / 10000 / 1000 / mi->hbm));
        CHECK(pl->flop_timed && kw_near(pl->tflops, 64 * 25600.0 / 10e-6 / 1e12));
        CHECK(kw_near(pl->tflops_pct, 100 * 64 * 25600.0 / 10e-6 / 1e12 / mi->fp32));
        /* its roofline point */
        CHECK(!pl->miss && kw_near(pl->pt_bytes, 20 * 25600.0) &&
              kw_near(pl->pt_flops, 64 * 25600.0) && kw_near(pl->pt_ns, 10000));
        /* the occupancy chart: the curve at every VGPR count, the kernel's point */
        const kw_page_occ *o = &pa->occ;
        CHECK(o->known && o->vgprs_per_lane == occ[1] && o->max_waves == occ[0]);
        CHECK(o->kernel_vgprs == 128);
        size_t wrong = 0;
        for (unsigned x = 0; x <= occ[1]; x++)
            wrong += kw_curve_at(o, x) != kw_waves(occ, x);
        CHECK(wrong == 0 && o->nsteps > 0);
        /* the Triton form of the bound: the IR facts' numbers */
        CHECK(pa->ir_numbers && kw_near(pa->ir_bound.intensity, 64.0 / 20));
        /* the trace configuration: 12800 threads, 2500 ns */
        const kw_page_perf_tcfg *tc = &pf.tcfgs[0];
        CHECK(tc->arch && !strcmp(tc->arch, "gfx942") && tc->arch_from_trace);
        CHECK(tc->work.known && kw_near(tc->work.bytes, 20 * 12800.0));
        CHECK(kw_near(tc->work.flops, 64 * 12800.0));
        CHECK(tc->ir_arch && !strcmp(tc->ir_arch, "gfx942"));
        CHECK(tc->gpu && !strcmp(tc->gpu->product, mi->product));
        CHECK(kw_near(tc->bw.tbs, 20 * 12800.0 / 2500 / 1000));
        CHECK(kw_near(tc->bw.of_peak, 20 * 12800.0 / 2500 / 1000 / mi->hbm));
        CHECK(kw_near(tc->blocks, 100) && tc->bound.launch == (100 < mi->cus));
        CHECK(tc->chart_arch && !strcmp(tc->chart_arch, "gfx942") && !tc->miss);
        CHECK(kw_near(tc->pt_bytes, 20 * 12800.0) && kw_near(tc->pt_ns, 2500));
        kw_page_free(&p);
    }
    kw_srcs_free(&srcs);
    kw_gpus_free(&gpus);
    kw_annot_free(&an);
    kw_model_free(&m);
    kw_index_free(&ix);
    kw_arena_free(&a);
}

int main(int argc, char **argv) {
    CHECK(argc == 2);
    if (argc == 2)
        test_page_perf(argv[1]);
    return kw_test_result("test_page_perf_unit");
}
