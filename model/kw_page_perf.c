/* kw_page_perf.c: section 4's numbers of a page and of the site's occupancy
 * and roofline charts (kw_page_perf.h), evaluated before the page is
 * written. Moved here from render/ (kw_render_memory.c, kw_render_trace.c,
 * kw_render_triton.c's section 4, kw_html_roofline.c, kw_html_charts.c's
 * occupancy curve) so that the writers only print. */
#include "model/kw_page_perf.h"

#include <string.h>

#include "codeobj/kw_codeobj.h"

/* ---- per arch ------------------------------------------------------------------------------- */

/* The occupancy chart's VGPR bound of arch's processor and the kernel's
 * VGPRs (plus AGPRs). */
static void kw_page_perf_occ(kw_page_occ *o, const char *arch, const kw_kernel_arch *facts) {
    memset(o, 0, sizeof(*o));
    const kw_co_hw *hw = facts ? kw_co_hw_lookup(arch) : NULL;
    if (!hw || !hw->vgprs_per_lane || !hw->max_waves_per_simd || !hw->vgpr_granule)
        return;
    o->known = true;
    o->vgprs_per_lane = hw->vgprs_per_lane;
    o->max_waves = hw->max_waves_per_simd;
    o->vgpr_granule = hw->vgpr_granule;
    unsigned prev = o->waves0 = kw_co_waves_by_vgpr(hw, 0);
    /* the VGPRs are rounded up to the granule g: the bound can change only
     * at g and just past each multiple of it */
    unsigned g = hw->vgpr_granule;
    for (unsigned x = g; x <= hw->vgprs_per_lane && o->nsteps < KW_PAGE_OCC_STEPS;
         x = x == g && g > 1 ? g + 1 : x + g) {
        unsigned w = kw_co_waves_by_vgpr(hw, x);
        if (w == prev)
            continue;
        o->vgprs[o->nsteps] = x;
        o->waves[o->nsteps++] = prev = w;
    }
    const kw_isa_resources *res = &facts->resources;
    o->kernel_vgprs = res->vgpr >= 0 ? res->vgpr + (res->agpr > 0 ? res->agpr : 0) : -1;
}

static kw_status kw_page_perf_arch_build(kw_page_perf_arch *x, const kw_page_arch *pa,
                                         const kw_gpus *gpus, const char *gpu, kw_arena *a,
                                         kw_err *err) {
    memset(x, 0, sizeof(*x));
    x->arch = pa->arch;
    x->gpu = kw_perf_gpu(gpus, gpu, pa->arch);
    x->gpu_mismatch = gpu && !x->gpu;
    x->roof = x->gpu && x->gpu->hbm_tbs > 0 && x->gpu->fp32_vector_tflops > 0;
    for (size_t i = 0; i < gpus->v.n; i++)
        x->npeaks += !strcmp(gpus->v.v[i].arch, pa->arch);
    x->peaks = x->npeaks ? kw_arena_alloc(a, x->npeaks * sizeof(kw_page_peak)) : NULL;
    if (x->npeaks && !x->peaks)
        return kw_fail(err, "out of memory");
    for (size_t i = 0, n = 0; i < gpus->v.n; i++)
        if (!strcmp(gpus->v.v[i].arch, pa->arch))
            x->peaks[n++] = (kw_page_peak){&gpus->v.v[i], kw_perf_ridge(&gpus->v.v[i])};
    kw_page_perf_occ(&x->occ, pa->arch, pa->facts);
    if (pa->ir) {
        const kw_irf_work *w = &pa->ir->work_per_thread;
        const kw_val *rd = &w->bytes_read, *wr = &w->bytes_written, *fl = &w->flops;
        x->ir_numbers = rd->kind == KW_VAL_NUM && wr->kind == KW_VAL_NUM &&
                        fl->kind == KW_VAL_NUM && rd->num + wr->num > 0;
        if (x->ir_numbers)
            x->ir_bound =
                kw_perf_classify((double)fl->num, (double)(rd->num + wr->num), -1, x->gpu);
    }
    return KW_OK;
}

/* ---- per launch and arch -------------------------------------------------------------------- */

/* Why the roofline has no point for the launch (NULL: it has one). */
static const char *kw_page_perf_miss(const kw_page_geom *g, const kw_page_work *w, double time_us) {
    if (!g->block_known || !g->grid_known)
        return "its grid or block is unknown (give the names with --shape)";
    if (!w->krd || !w->kwr)
        return !w->trd || !w->twr ? "the IR facts give no bytes read or written per thread"
                                  : "its bytes per thread name values --shape does not give";
    if (!w->kfl)
        return !w->tfl ? "the IR facts give no FLOP per thread"
                       : "its FLOP per thread name values --shape does not give";
    if (time_us < 0)
        return "bytes and FLOP are known, the time is not (give --time-us or --trace)";
    return NULL;
}

static void kw_page_perf_launch_build(kw_page_perf_launch *l, const kw_page *p,
                                      const kw_launch *launch, const kw_page_perf_arch *x,
                                      const kw_page_geom *g, const kw_page_work *w,
                                      double time_us) {
    memset(l, 0, sizeof(*l));
    const kw_gpu *gpu = x->gpu;
    /* a Triton page counts the programs of the launch's recorded grid */
    bool grid = p->triton ? launch->grid.has_value : g->grid_known;
    l->blocks = p->triton
                    ? (double)launch->grid.value[0] * launch->grid.value[1] * launch->grid.value[2]
                    : g->blocks;
    l->per_cu = grid && gpu && gpu->compute_units > 0;
    if (l->per_cu) {
        l->blocks_per_cu = l->blocks / gpu->compute_units;
        l->launch_bound = kw_perf_classify(-1, -1, l->blocks, gpu).launch;
    }
    if (g->block_known && g->grid_known)
        l->threads = g->blocks * g->threads_per_block;
    if (!w)
        return;
    double mult[3] = {1, g->threads_per_block, g->threads_per_block * g->blocks};
    bool mk[3] = {true, g->block_known, g->block_known && g->grid_known};
    bool kn[3] = {w->krd, w->kwr, w->kfl};
    double v[3] = {w->rd, w->wr, w->fl};
    for (int per = 0; per < 3; per++)
        for (int what = 0; what < 3; what++) {
            l->known[per][what] = kn[what] && mk[per];
            if (l->known[per][what])
                l->work[per][what] = v[what] * mult[per];
        }
    l->classified = w->krd && w->kwr && w->kfl && w->rd + w->wr > 0;
    if (l->classified)
        l->bound = kw_perf_classify(w->fl, w->rd + w->wr, -1, gpu);
    l->timed = time_us >= 0 && w->krd && w->kwr && mk[2] && gpu;
    if (l->timed) {
        l->bytes = (w->rd + w->wr) * mult[2];
        l->bw = kw_perf_bandwidth(l->bytes, time_us * 1e3, gpu);
        l->flop_timed = w->kfl;
        if (l->flop_timed) {
            l->tflops = w->fl * mult[2] / (time_us * 1e-6) / 1e12;
            l->tflops_pct =
                100 * w->fl * mult[2] / (time_us * 1e-6) / 1e12 / gpu->fp32_vector_tflops;
        }
    }
    l->miss = kw_page_perf_miss(g, w, time_us);
    if (!l->miss) {
        double threads = g->threads_per_block * g->blocks;
        l->pt_bytes = (w->rd + w->wr) * threads;
        l->pt_flops = w->fl * threads;
        l->pt_ns = time_us * 1e3;
    }
}

/* ---- per trace configuration ---------------------------------------------------------------- */

void kw_page_perf_tcfg_eval(kw_page_perf_tcfg *c, const kw_kernel *k, const char *arch,
                            const kw_perf_mcfg *m, const kw_gpus *gpus, const char *gpu,
                            const kw_shape *shape) {
    memset(c, 0, sizeof(*c));
    c->m = m;
    c->arch = arch;
    c->arch_from_trace = m->arch && !m->mixed_arch;
    c->blocks =
        m->known ? (double)m->grid_wg[0] * (double)m->grid_wg[1] * (double)m->grid_wg[2] : -1;
    kw_perf_kernel_work(k, arch, m->known, m->block, m->grid_wg, shape, &c->work, &c->ir_arch);
    if (!c->work.known)
        return;
    c->gpu = kw_perf_gpu(gpus, gpu, c->ir_arch);
    c->bw = kw_perf_bandwidth(c->work.bytes, m->t.median, c->gpu);
    c->bound = kw_perf_classify(c->work.flops, c->work.bytes, c->blocks, c->gpu);
}

/* The arch a configuration ran on: the trace's, else --gpu's, else --arch,
 * else the page's only arch shown. */
static const char *kw_page_perf_ran(const kw_perf_mcfg *m, const kw_page *p, const kw_gpus *gpus,
                                    const char *gpu, const char *only) {
    if (m->arch && !m->mixed_arch)
        return m->arch;
    const kw_gpu *g = gpu ? kw_gpu_named(gpus, gpu) : NULL;
    if (g)
        return g->arch;
    if (only)
        return only;
    return p->archs.n == 1 ? p->archs.v[0].arch : NULL;
}

static void kw_page_perf_tcfg_build(kw_page_perf_tcfg *c, const kw_page *p,
                                    const kw_perf_measured *ms, const kw_perf_mcfg *m,
                                    const kw_gpus *gpus, const char *gpu, const char *only,
                                    kw_arena *a) {
    kw_page_perf_tcfg_eval(c, ms->k, kw_page_perf_ran(m, p, gpus, gpu, only), m, gpus, gpu,
                           &p->shape);
    /* not known where it ran: the only arch with IR facts */
    c->chart_arch = c->arch ? c->arch : c->ir_arch;
    if (!c->chart_arch)
        c->miss = "the arch it ran on is not known (give --gpu or --arch)";
    else if (!c->work.known) {
        c->miss = kw_arena_printf(a, "bytes per dispatch %s", c->work.why);
        c->miss = c->miss ? c->miss : "bytes per dispatch not known";
    } else if (c->work.flops < 0)
        c->miss = "FLOP per dispatch not known";
    if (c->chart_arch && !c->miss) {
        c->pt_bytes = c->work.bytes;
        c->pt_flops = c->work.flops;
        c->pt_ns = m->t.median;
    }
}

/* ---- the page ------------------------------------------------------------------------------- */

kw_status kw_page_perf_build(kw_page_perf *out, const kw_page *p, const kw_model *m,
                             const kw_gpus *gpus, const char *gpu, const char *only, double time_us,
                             const kw_perf_measured *measured, kw_arena *a, kw_err *err) {
    memset(out, 0, sizeof(*out));
    out->time_us = time_us;
    out->measured = measured;
    size_t na = p->archs.n, nl = p->mk ? p->mk->launches.n : 0;
    out->nlaunches = nl;
    out->archs = na ? kw_arena_alloc(a, na * sizeof(kw_page_perf_arch)) : NULL;
    out->launches = na && nl ? kw_arena_alloc(a, na * nl * sizeof(kw_page_perf_launch)) : NULL;
    if ((na && !out->archs) || (na && nl && !out->launches))
        return kw_fail(err, "out of memory");
    if (out->launches)
        memset(out->launches, 0, na * nl * sizeof(kw_page_perf_launch));
    for (size_t x = 0; x < na; x++) {
        const kw_page_arch *pa = &p->archs.v[x];
        if (kw_page_perf_arch_build(&out->archs[x], pa, gpus, gpu, a, err) != KW_OK)
            return KW_ERR;
        for (size_t i = 0; i < nl && p->geom; i++) {
            const kw_page_work *w = pa->ir && p->work ? &p->work[x * nl + i] : NULL;
            kw_page_perf_launch_build(&out->launches[x * nl + i], p,
                                      m->launches.v[p->mk->launches.v[i]].l, &out->archs[x],
                                      &p->geom[i], w, time_us);
        }
    }
    if (!measured || !measured->ncfgs)
        return KW_OK;
    out->tcfgs = kw_arena_alloc(a, measured->ncfgs * sizeof(kw_page_perf_tcfg));
    if (!out->tcfgs)
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < measured->ncfgs; i++)
        kw_page_perf_tcfg_build(&out->tcfgs[i], p, measured, &measured->cfgs[i], gpus, gpu, only,
                                a);
    return KW_OK;
}
