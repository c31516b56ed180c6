/* kw_render_trace.c: section 4's "Measured" subsection for `kwalk render
 * --trace FILE`: what a rocprofv3 kernel trace recorded for this
 * instantiation: dispatch count, total / median / min / max duration, the
 * launch configurations seen, and per configuration the bytes one dispatch
 * moves per the IR facts evaluated with its grid, the achieved bandwidth at
 * the median against the arch's HBM peak, and the bound classification.
 * When the trace has no dispatch of this kernel, the subsection says so (and
 * names the ambiguous trace names it may hide behind). Every number is read
 * from the page model (model/kw_page_perf.h: what the trace measured, joined
 * and evaluated before the page is written, with the same arithmetic as
 * `kwalk trace`); this file computes nothing: it calls no evaluator or
 * kw_perf_* function and uses neither codeobj/ nor trace/. */
#include <stdio.h>
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

static void kw_rt_us(kw_buf *o, double ns) {
    kw_buf_printf(o, "%.3f us", ns / 1000.0);
}

static void kw_rt_dims(kw_buf *o, const long long v[3]) {
    kw_buf_printf(o, "[%lld, %lld, %lld]", v[0], v[1], v[2]);
}

/* Ambiguous trace names this instantiation is a candidate of: items of the
 * open list. */
static void kw_rt_ambiguous(kw_render *r, const kw_perf_measured *ms) {
    for (size_t i = 0; i < ms->nambiguous; i++) {
        const kw_perf_mambiguous *am = &ms->ambiguous[i];
        kw_r_item(r, 0);
        kw_r_tf(r, "%zu dispatch%s named ", am->dispatches, am->dispatches == 1 ? "" : "es");
        kw_r_c(r, am->trace_name);
        kw_r_tf(r,
                " may be this kernel's, but the name matches %zu instantiations (by "
                "%s): counted for none of them. rocprofv3 `--mangled-kernels` names "
                "each exactly.",
                am->candidates, am->match);
    }
}

static void kw_rt_config_table(kw_render *r, const kw_page_perf *pf) {
    kw_buf *o = r->out;
    static const char *const head[] = {
        "Grid (workgroups)", "Workgroup", "Arch", "Dispatches", "Total", "Median", "Min", "Max"};
    kw_r_table(r, 8, head);
    for (size_t i = 0; i < pf->measured->ncfgs; i++) {
        const kw_page_perf_tcfg *c = &pf->tcfgs[i];
        const kw_perf_mcfg *cfg = c->m;
        kw_r_row(r);
        kw_r_cell(r);
        if (cfg->known) {
            kw_rt_dims(o, cfg->grid_wg);
            if (cfg->partial)
                kw_buf_puts(o, " (last partial)");
            kw_r_cell(r);
            kw_rt_dims(o, cfg->block);
        } else {
            kw_buf_puts(o, "not in the trace");
            kw_r_cell(r);
            kw_buf_puts(o, "not in the trace");
        }
        kw_r_cell(r);
        kw_r_plainf(r, "%s%s", c->arch ? c->arch : "not known",
                    c->arch_from_trace ? " (trace)" : "");
        kw_r_cell(r);
        kw_r_plainf(r, "%zu", cfg->t.n);
        kw_r_cell(r);
        kw_rt_us(o, (double)cfg->t.total);
        kw_r_cell(r);
        kw_rt_us(o, cfg->t.median);
        kw_r_cell(r);
        kw_rt_us(o, (double)cfg->t.min);
        kw_r_cell(r);
        kw_rt_us(o, (double)cfg->t.max);
    }
    kw_r_table_end(r);
    kw_r_gap(r);
}

/* Bytes, bandwidth and bound of one configuration, an item of the open list. */
static void kw_rt_config_work(kw_render *r, const kw_page_perf_tcfg *c) {
    kw_buf *o = r->out;
    const kw_perf_mcfg *cfg = c->m;
    kw_r_item(r, 0);
    if (cfg->known) {
        kw_r_t(r, "Grid ");
        kw_rt_dims(o, cfg->grid_wg);
        kw_r_t(r, " x workgroup ");
        kw_rt_dims(o, cfg->block);
    } else {
        kw_r_t(r, "Dispatches without grid and workgroup sizes");
    }
    const kw_perf_work *w = &c->work;
    if (!w->known) {
        kw_r_t(r, ": bytes per dispatch ");
        kw_md_text(o, w->why, kw_r_prose_in(r));
        kw_r_t(r, "; bandwidth and bound not derived.");
        return;
    }
    kw_r_tf(r, ": %.0f bytes per dispatch (", w->bytes);
    kw_num_bytes(o, w->bytes);
    kw_r_t(r, "; the ");
    kw_r_s(r, c->ir_arch);
    kw_r_t(r, " IR facts' bytes read and written per thread, summed over the dispatch's threads)");
    const kw_gpu *g = c->gpu;
    if (c->bw.tbs >= 0) {
        kw_r_t(r, "; at the median ");
        kw_rt_us(o, cfg->t.median);
        kw_r_tf(r, " that is %.3f TB/s achieved", c->bw.tbs);
        if (c->bw.of_peak >= 0) {
            kw_r_tf(r, " = %.1f%% of %s's %.2f TB/s peak", 100 * c->bw.of_peak, g->product,
                    g->hbm_tbs);
        } else {
            kw_r_t(r, " (no ");
            kw_r_s(r, c->ir_arch);
            kw_r_t(r, " peak in annotations/hw/amdgpu-peaks.txt)");
        }
        if (c->bw.of_peak > 1)
            kw_r_t(r, " (above the peak: the bytes are an upper bound, or caches serve "
                      "part of them)");
    }
    const kw_perf_bound *b = &c->bound;
    if (b->kind != KW_BOUND_UNKNOWN) {
        kw_r_tf(r, "; %.3g FLOP per byte against %s's FP32 ridge point %.1f: ", b->intensity,
                g->product, b->ridge);
        kw_md_strong(o, b->name, kw_r_prose_in(r));
    } else {
        kw_r_t(r, "; bound not classified (FLOP per dispatch or the peaks not known)");
    }
    if (b->launch) {
        kw_r_tf(r, "; %.0f workgroups, fewer than %s's %.0f CUs: ", c->blocks, g->product,
                g->compute_units);
        kw_md_strong(o, "launch-bound", kw_r_prose_in(r));
    }
    kw_r_t(r, ".");
}

void kw_render_trace(kw_render *r) {
    kw_buf *o = r->out;
    const kw_page_perf *pf = r->page.perf;
    const kw_perf_measured *ms = pf->measured;
    KW_R_HEADING(r, 3, "Measured: rocprofv3 kernel trace");
    kw_r_p(r);
    kw_r_t(r, "Trace ");
    kw_r_c(r, kw_r_path(r, ms->path));
    kw_r_tf(r, " (%s, %zu dispatches). ", ms->format, ms->dispatches);
    if (!ms->found) {
        kw_md_strong(o, "The trace has no dispatch of this kernel", kw_r_prose_in(r));
        kw_r_t(r, " (no trace name joins to ");
        kw_r_c(r, r->mk->symbol);
        kw_r_t(r, " by symbol, demangled or printed name, prefix or base name).");
        kw_r_p_end_list(r, ms->nambiguous > 0);
        kw_r_list(r);
        kw_rt_ambiguous(r, ms);
        kw_r_list_end(r);
        if (ms->nambiguous)
            kw_r_gap(r);
        return;
    }
    kw_md_strong(o,
                 kw_arena_printf(&r->scratch, "%zu dispatch%s", ms->t.n, ms->t.n == 1 ? "" : "es"),
                 kw_r_prose_in(r));
    kw_r_tf(r, " of this instantiation (trace name%s ", ms->nnames == 1 ? "" : "s");
    for (size_t i = 0; i < ms->nnames; i++) {
        if (i)
            kw_r_t(r, i + 1 == ms->nnames ? " and " : ", ");
        kw_r_c(r, ms->names[i]);
    }
    kw_r_tf(r, ", joined by %s): total ", ms->match);
    kw_rt_us(o, (double)ms->t.total);
    kw_r_t(r, ", median ");
    kw_rt_us(o, ms->t.median);
    kw_r_t(r, ", min ");
    kw_rt_us(o, (double)ms->t.min);
    kw_r_t(r, ", max ");
    kw_rt_us(o, (double)ms->t.max);
    kw_r_t(r, ".");
    kw_r_p_end(r);
    kw_r_ptf(r, "Launch configurations seen (%zu):", ms->ncfgs);
    kw_rt_config_table(r, pf);
    kw_r_list(r);
    for (size_t i = 0; i < ms->ncfgs; i++)
        kw_rt_config_work(r, &pf->tcfgs[i]);
    kw_rt_ambiguous(r, ms);
    kw_r_list_end(r);
    kw_r_gap(r);
    kw_r_para(r, "Bytes per dispatch take the most expensive path through every branch (an "
                 "upper bound; exact for straight-line code); the bandwidth is that over the "
                 "configuration's median duration.");
}
