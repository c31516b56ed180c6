/* kw_treport_write.c: the report of `kwalk trace` (model/kw_treport.h) as
 * text (docs/trace.md), written from the evaluated report: every number,
 * verdict and name (medians, bandwidth, bound, match kind, group) is the
 * report model's; this file computes nothing (no evaluator, no kw_perf_*
 * function). */
#include "render/kw_treport_write.h"

#include <string.h>

#include "common/kw_num.h"

static void kw_text_stats(kw_buf *o, const kw_perf_times *t) {
    size_t n = t->n;
    kw_buf_printf(o, "%zu dispatch%s, total ", n, n == 1 ? "" : "es");
    kw_num_us(o, (double)t->total);
    kw_buf_puts(o, ", median ");
    kw_num_us(o, t->median);
    if (n > 1) {
        kw_buf_puts(o, " (min ");
        kw_num_us(o, (double)t->min);
        kw_buf_puts(o, ", max ");
        kw_num_us(o, (double)t->max);
        kw_buf_puts(o, ")");
    }
}

static void kw_text_cfg(kw_buf *o, const kw_treport_cfg *cfg) {
    if (!cfg->known) {
        kw_buf_puts(o, "grid and workgroup size not in the trace");
        return;
    }
    kw_buf_printf(o, "grid [%lld, %lld, %lld] workgroups x [%lld, %lld, %lld]", cfg->grid_wg[0],
                  cfg->grid_wg[1], cfg->grid_wg[2], cfg->block[0], cfg->block[1], cfg->block[2]);
    if (cfg->partial)
        kw_buf_puts(o, " (last workgroups partial)");
}

static void kw_text_row(kw_buf *o, const kw_treport_row *rr) {
    if (rr->group == KW_TREPORT_JOINED) {
        kw_buf_printf(o, "%s\n", rr->name ? rr->name : rr->symbol);
        kw_buf_printf(o, "  symbol: %s\n", rr->symbol);
        kw_buf_printf(o, "  matched by %s:", rr->match);
        for (size_t i = 0; i < rr->nnames; i++)
            kw_buf_printf(o, "%s \"%s\"", i ? "," : "", rr->names[i]);
        kw_buf_puts(o, "\n  ");
        kw_text_stats(o, &rr->t);
        kw_buf_puts(o, "\n  launch configurations:\n");
        for (size_t i = 0; i < rr->ncfgs; i++) {
            const kw_treport_cfg *rc = &rr->cfgs[i];
            kw_buf_puts(o, "    ");
            kw_text_cfg(o, rc);
            kw_buf_puts(o, ": ");
            kw_text_stats(o, &rc->t);
            kw_buf_puts(o, "\n");
            if (!rc->work.known) {
                kw_buf_printf(o, "      bytes moved: %s\n", rc->work.why);
                continue;
            }
            kw_buf_printf(o, "      bytes moved: %.0f per dispatch (%s IR facts)\n", rc->work.bytes,
                          rc->ir_arch);
            const kw_gpu *g = rc->gpu;
            kw_perf_bw bw = rc->bw;
            if (bw.tbs >= 0) {
                kw_buf_printf(o, "      achieved bandwidth at the median: %.3f TB/s", bw.tbs);
                if (bw.of_peak >= 0)
                    kw_buf_printf(o, " = %.1f%% of %s's %.2f TB/s peak", 100 * bw.of_peak,
                                  g->product, g->hbm_tbs);
                kw_buf_puts(o, "\n");
            }
            kw_perf_bound bd = rc->bound;
            if (bd.kind != KW_BOUND_UNKNOWN)
                kw_buf_printf(o, "      bound: %s (%.3g FLOP/byte vs. %s's FP32 ridge %.1f)\n",
                              bd.name, bd.intensity, g->product, bd.ridge);
            if (bd.launch)
                kw_buf_printf(o, "      launch-bound: %.0f workgroups, fewer than %s's %.0f CUs\n",
                              rc->blocks, g->product, g->compute_units);
        }
        const char *const *archs = rr->archs;
        size_t na = rr->narchs;
        if (na) {
            kw_buf_puts(o, "  peak HBM bandwidth:");
            for (size_t i = 0; i < na; i++) {
                const kw_gpu *g = rr->peaks[i];
                if (g && g->hbm_tbs > 0)
                    kw_buf_printf(o, "%s %s %.2f TB/s (%s)", i ? "," : "", g->product, g->hbm_tbs,
                                  archs[i]);
                else
                    kw_buf_printf(o, "%s not known for %s", i ? "," : "", archs[i]);
            }
            kw_buf_puts(o, "\n");
        }
        kw_buf_puts(o, "\n");
        return;
    }
    if (rr->ncand > 1) {
        kw_buf_printf(o, "ambiguous: \"%s\"\n  ", rr->trace_name);
        kw_text_stats(o, &rr->t);
        kw_buf_printf(o,
                      "\n  matches %zu instantiations (by %s); counted for none of them "
                      "(rocprofv3 --mangled-kernels names each exactly):\n",
                      rr->ncand, rr->match);
        for (size_t i = 0; i < rr->ncand; i++) {
            const kw_treport_kernel *k = &rr->cand[i];
            kw_buf_printf(o, "    %s  %s\n", k->name ? k->name : "-", k->symbol);
        }
        kw_buf_puts(o, "\n");
        return;
    }
    kw_buf_printf(o, "not in the index: \"%s\"\n  ", rr->trace_name);
    kw_text_stats(o, &rr->t);
    kw_buf_puts(o, "\n\n");
}

void kw_treport_write_text(const kw_treport *c, kw_buf *o) {
    size_t inst = 0, amb = 0, unk = 0, d_inst = 0;
    for (size_t i = 0; i < c->rows.n; i++) {
        int g = (int)c->rows.v[i].group;
        inst += g == 0;
        amb += g == 1;
        unk += g == 2;
        if (g == 0)
            d_inst += c->rows.v[i].t.n;
    }
    kw_buf_printf(o,
                  "%s (%s): %zu dispatches; %zu joined to %zu kernel instantiation%s, "
                  "%zu ambiguous name%s, %zu name%s not in the index\n",
                  c->path, c->format, c->dispatches, d_inst, inst,
                  inst == 1 ? "" : "s", amb, amb == 1 ? "" : "s", unk, unk == 1 ? "" : "s");
    if (!c->have_demangler)
        kw_buf_puts(o, "note: no C++ demangler in this process (__cxa_demangle): demangled names "
                       "cannot be joined; use rocprofv3 --mangled-kernels\n");
    kw_buf_puts(o, "\n");
    for (size_t i = 0; i < c->rows.n; i++)
        kw_text_row(o, &c->rows.v[i]);
}
