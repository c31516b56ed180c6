/* kw_render_trace.c: section 4's "Measured" subsection for `kwalk render
 * --trace FILE`: what a rocprofv3 kernel trace recorded for this
 * instantiation (kw_trace.h: the dispatches joined to it by name, gathered by
 * kw_trace_stats.c): dispatch count, total / median / min / max duration, the
 * launch configurations seen, and per configuration the bytes one dispatch
 * moves per the IR facts evaluated with its grid, the achieved bandwidth at
 * the median against the arch's HBM peak, and the bound classification
 * (kw_perf.h, the same arithmetic as `kwalk trace`). When the trace has no
 * dispatch of this kernel, the subsection says so (and names the ambiguous
 * trace names it may hide behind). */
#include <stdio.h>
#include <string.h>

#include "render/kw_md.h"
#include "model/kw_perf.h"
#include "render/kw_render.h"

static void kw_rt_dims(kw_buf *o, const long long v[3]) {
    kw_buf_printf(o, "[%lld, %lld, %lld]", v[0], v[1], v[2]);
}

/* Ambiguous trace names this instantiation is a candidate of. */
static void kw_rt_ambiguous(kw_render *r, const kw_tstats *ts) {
    kw_buf *o = r->out;
    for (size_t i = 0; i < ts->rows.n; i++) {
        const kw_trow *row = &ts->rows.v[i];
        if (!kw_trow_has_candidate(ts, row, r->mk->symbol))
            continue;
        kw_buf_printf(o, "- %zu dispatch%s named ", row->dur.n, row->dur.n == 1 ? "" : "es");
        kw_md_code(o, row->trace_name, false);
        kw_buf_printf(o,
                      " may be this kernel's, but the name matches %zu instantiations (by "
                      "%s): counted for none of them. rocprofv3 `--mangled-kernels` names "
                      "each exactly.\n",
                      row->match.n, kw_match_kind_name(row->match.kind));
    }
}

static void kw_rt_config_table(kw_render *r, const kw_trow *row) {
    kw_buf *o = r->out;
    static const char *const head[] = {
        "Grid (workgroups)", "Workgroup", "Arch", "Dispatches", "Total", "Median", "Min", "Max"};
    kw_r_table(r, 8, head);
    for (size_t i = 0; i < row->cfgs.n; i++) {
        const kw_tcfg *cfg = &row->cfgs.v[i];
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
        const char *arch = kw_r_trace_arch(r, cfg);
        kw_r_cell(r);
        kw_r_plainf(r, "%s%s", arch ? arch : "not known",
                    arch && cfg->arch && !cfg->mixed_arch ? " (trace)" : "");
        kw_r_cell(r);
        kw_r_plainf(r, "%zu", cfg->dur.n);
        kw_r_cell(r);
        kw_num_us(o, (double)cfg->total);
        kw_r_cell(r);
        kw_num_us(o, kw_trace_median(cfg->dur.v, cfg->dur.n));
        kw_r_cell(r);
        kw_num_us(o, cfg->dur.n ? (double)cfg->dur.v[0] : 0);
        kw_r_cell(r);
        kw_num_us(o, cfg->dur.n ? (double)cfg->dur.v[cfg->dur.n - 1] : 0);
    }
    kw_r_table_end(r);
    kw_buf_puts(o, "\n");
}

/* Bytes, bandwidth and bound of one configuration, one bullet. */
static void kw_rt_config_work(kw_render *r, const kw_trow *row, const kw_tcfg *cfg) {
    kw_buf *o = r->out;
    kw_buf_puts(o, "- ");
    if (cfg->known) {
        kw_buf_puts(o, "Grid ");
        kw_rt_dims(o, cfg->grid_wg);
        kw_buf_puts(o, " x workgroup ");
        kw_rt_dims(o, cfg->block);
    } else {
        kw_buf_puts(o, "Dispatches without grid and workgroup sizes");
    }
    kw_perf_work w;
    const char *ir_arch;
    kw_tcfg_work(row->k ? row->k->k : NULL, kw_r_trace_arch(r, cfg), cfg, &r->page.shape, &w,
                 &ir_arch);
    if (!w.known) {
        kw_buf_puts(o, ": bytes per dispatch ");
        kw_md_text(o, w.why, false);
        kw_buf_puts(o, "; bandwidth and bound not derived.\n");
        return;
    }
    kw_buf_printf(o, ": %.0f bytes per dispatch (", w.bytes);
    kw_num_bytes(o, w.bytes);
    kw_buf_printf(o,
                  "; the %s IR facts' bytes read and written per thread, summed over the "
                  "dispatch's threads)",
                  kw_r_safe(r, ir_arch));
    const kw_gpu *g = kw_perf_gpu(r->gpus, r->o->gpu, ir_arch);
    double med = kw_trace_median(cfg->dur.v, cfg->dur.n);
    kw_perf_bw bw = kw_perf_bandwidth(w.bytes, med, g);
    if (bw.tbs >= 0) {
        kw_buf_printf(o, "; at the median ");
        kw_num_us(o, med);
        kw_buf_printf(o, " that is %.3f TB/s achieved", bw.tbs);
        if (bw.of_peak >= 0)
            kw_buf_printf(o, " = %.1f%% of %s's %.2f TB/s peak", 100 * bw.of_peak, g->product,
                          g->hbm_tbs);
        else
            kw_buf_printf(o, " (no %s peak in annotations/hw/amdgpu-peaks.txt)", kw_r_safe(r, ir_arch));
        if (bw.of_peak > 1)
            kw_buf_puts(o, " (above the peak: the bytes are an upper bound, or caches serve "
                           "part of them)");
    }
    double blocks =
        cfg->known ? (double)cfg->grid_wg[0] * (double)cfg->grid_wg[1] * (double)cfg->grid_wg[2]
                   : -1;
    kw_perf_bound b = kw_perf_classify(w.flops, w.bytes, blocks, g);
    if (b.kind != KW_BOUND_UNKNOWN)
        kw_buf_printf(o, "; %.3g FLOP per byte against %s's FP32 ridge point %.1f: **%s**",
                      b.intensity, g->product, b.ridge, kw_perf_bound_name(b.kind));
    else
        kw_buf_puts(o, "; bound not classified (FLOP per dispatch or the peaks not known)");
    if (b.launch)
        kw_buf_printf(o, "; %.0f workgroups, fewer than %s's %.0f CUs: **launch-bound**", blocks,
                      g->product, g->compute_units);
    kw_buf_puts(o, ".\n");
}

void kw_render_trace(kw_render *r) {
    kw_buf *o = r->out;
    const kw_tstats *ts = r->o->trace;
    KW_R_HEADING(r, 3, "Measured: rocprofv3 kernel trace");
    kw_buf_puts(o, "Trace ");
    kw_md_code(o, kw_r_path(r, ts->trace->path), false);
    kw_buf_printf(o, " (%s, %zu dispatches).", ts->trace->format, ts->trace->d.n);
    const kw_trow *row = kw_tstats_kernel(ts, r->mk->symbol);
    if (!row) {
        kw_buf_puts(o, " **The trace has no dispatch of this kernel** (no trace name joins to ");
        kw_md_code(o, r->mk->symbol, false);
        kw_buf_puts(o, " by symbol, demangled or printed name, prefix or base name).\n");
        kw_rt_ambiguous(r, ts);
        kw_buf_puts(o, "\n");
        return;
    }
    kw_buf_printf(o, " **%zu dispatch%s** of this instantiation (trace name%s ", row->dur.n,
                  row->dur.n == 1 ? "" : "es", row->names.n == 1 ? "" : "s");
    for (size_t i = 0; i < row->names.n; i++) {
        if (i)
            kw_buf_puts(o, i + 1 == row->names.n ? " and " : ", ");
        kw_md_code(o, row->names.v[i], false);
    }
    kw_buf_printf(o, ", joined by %s): total ", kw_match_kind_name(row->match.kind));
    kw_num_us(o, (double)row->total);
    kw_buf_puts(o, ", median ");
    kw_num_us(o, kw_trace_median(row->dur.v, row->dur.n));
    kw_buf_puts(o, ", min ");
    kw_num_us(o, row->dur.n ? (double)row->dur.v[0] : 0);
    kw_buf_puts(o, ", max ");
    kw_num_us(o, row->dur.n ? (double)row->dur.v[row->dur.n - 1] : 0);
    kw_buf_printf(o, ".\n\nLaunch configurations seen (%zu):\n\n", row->cfgs.n);
    kw_rt_config_table(r, row);
    for (size_t i = 0; i < row->cfgs.n; i++)
        kw_rt_config_work(r, row, &row->cfgs.v[i]);
    kw_rt_ambiguous(r, ts);
    kw_buf_putc(o, '\n');
    KW_R_LIT(r, "Bytes per dispatch take the most expensive path through every branch (an "
                "upper bound; exact for straight-line code); the bandwidth is that over the "
                "configuration's median duration.\n\n");
}
