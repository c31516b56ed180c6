/* kw_render_memory.c: section 4, memory access analysis: the launch
 * geometry for --shape, bytes read and written per thread / block /
 * invocation (the IR facts' expressions), arithmetic intensity, the
 * hardware's peaks and ridge point (annotations/hw/amdgpu-peaks.txt),
 * achieved bandwidth for --time-us, and the bound classification. Every
 * number is read from the page model (model/kw_page.h, model/kw_page_perf.h:
 * evaluated before the page is written) or marked as missing; this file
 * computes nothing: it calls no evaluator or kw_perf_* function and uses
 * neither codeobj/ nor trace/. The figures of a profiler trace (--trace) are
 * kw_render_trace.c. */
#include <stdio.h>
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

static void kw_num(kw_buf *o, double v) {
    char b[32];
    kw_num_value_to(b, sizeof b, v);
    kw_buf_puts(o, b);
}

static void kw_mem_hw_table_text(kw_render *r) {
    const kw_page_perf *pf = r->page.perf;
    bool any = false;
    for (size_t a = 0; a < r->archs.n; a++)
        any |= pf->archs[a].npeaks > 0;
    if (!any) {
        kw_r_p(r);
        kw_r_t(r, "No hardware peaks are known for ");
        kw_r_s(r, kw_r_arch_list(r));
        kw_r_t(r, " (annotations/hw/amdgpu-peaks.txt).");
        kw_r_p_end(r);
        return;
    }
    kw_r_para(r, "Hardware peaks (vendor data, dense; annotations/hw/amdgpu-peaks.txt):");
    static const char *const head[] = {"GPU",
                                       "Arch",
                                       "CUs",
                                       "Clock (MHz)",
                                       "HBM (TB/s)",
                                       "FP32 vector (TFLOP/s)",
                                       "FP16 / BF16 matrix",
                                       "FP8 matrix",
                                       "Ridge FP32 (FLOP/byte)"};
    kw_r_table(r, 9, head);
    for (size_t a = 0; a < r->archs.n; a++)
        for (size_t i = 0; i < pf->archs[a].npeaks; i++) {
            const kw_gpu *g = pf->archs[a].peaks[i].g;
            kw_r_row(r);
            kw_r_cell(r);
            kw_r_plainf(r, "%s%s", g->product, g->is_default ? " (default)" : "");
            kw_r_cell(r);
            kw_r_plainf(r, "%s", g->arch);
            static const char *const fmt[] = {"%.0f",        "%.0f", "%.1f", "%.1f",
                                              "%.1f / %.1f", "%.1f", "%.1f"};
            double v[] = {
                g->compute_units, g->peak_clock_mhz, g->hbm_tbs,    g->fp32_vector_tflops,
                g->fp16_tflops,   g->bf16_tflops,    g->fp8_tflops, pf->archs[a].peaks[i].ridge};
            for (size_t c = 0, x = 0; c < sizeof fmt / sizeof fmt[0]; c++) {
                kw_r_cell(r);
                if (c == 4) {
                    kw_r_plainf(r, fmt[c], v[x], v[x + 1]);
                    x += 2;
                } else {
                    kw_r_plainf(r, fmt[c], v[x++]);
                }
            }
        }
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_r_para(r, "The ridge point is peak FLOP/s over peak bytes/s: a kernel doing fewer "
                 "FLOP per byte of HBM traffic than that cannot reach the compute peak.");
}

/* The table is the same for every kernel with the same archs: made once. */
void kw_render_memory_peaks(kw_render *r) {
    char key[128];
    /* the archs, and the form: a Markdown or HTML table */
    size_t n = (size_t)snprintf(key, sizeof key, "%s:", r->o->printer == KW_R_HTML ? "html" : "md");
    for (size_t a = 0; a < r->archs.n && n + 32 < sizeof key; a++)
        n += (size_t)snprintf(key + n, sizeof key - n, "%s,", r->archs.v[a].arch);
    if (!r->hw_table.len || strcmp(key, r->hw_key)) {
        kw_buf_reset(&r->hw_table);
        /* written as the page's blocks, in its printer */
        kw_buf *out = r->out, *page = r->page_out;
        r->out = r->page_out = &r->hw_table;
        kw_mem_hw_table_text(r);
        r->out = out;
        r->page_out = page;
        memcpy(r->hw_key, key, sizeof key);
    }
    kw_buf_append(r->out, r->hw_table.ptr, r->hw_table.len);
}

/* Launch i of the kernel on arch a (the a'th shown): the page's geometry,
 * work and their figures (model/kw_page_perf.h) as prose and a table. */
static void kw_mem_launch(kw_render *r, size_t i, size_t a) {
    kw_buf *o = r->out;
    const kw_page_arch *pa = &r->page.archs.v[a];
    const kw_page_perf *pf = r->page.perf;
    const kw_page_perf_launch *pl = &pf->launches[a * pf->nlaunches + i];
    const kw_page_geom g = r->page.geom[i];
    const kw_gpu *gpu = pf->archs[a].gpu;
    kw_r_list(r);
    kw_r_item(r, 0);
    kw_buf_puts(o, "Geometry: ");
    if (g.block_known) {
        kw_num(o, g.threads_per_block);
        kw_buf_puts(o, " threads per block");
    } else {
        kw_buf_puts(o, "threads per block unknown (");
        kw_md_prose(o, g.why_block, kw_r_prose_in(r));
        kw_buf_puts(o, ")");
    }
    if (g.grid_known) {
        kw_buf_puts(o, ", ");
        kw_num(o, g.blocks);
        kw_buf_puts(o, " blocks");
        if (g.block_known) {
            kw_buf_puts(o, ", ");
            kw_num(o, pl->threads);
            kw_buf_puts(o, " threads");
        }
    } else {
        kw_buf_puts(o, "; blocks unknown (");
        kw_md_prose(o, g.why_grid, kw_r_prose_in(r));
        kw_buf_puts(o, ")");
    }
    kw_buf_puts(o, ".");
    if (pl->per_cu) {
        kw_r_item(r, 0);
        kw_r_plainf(r, "%s has %.0f CUs: %.2f blocks per CU%s.", gpu->product, gpu->compute_units,
                    pl->blocks_per_cu,
                    pl->launch_bound
                        ? "; fewer blocks than CUs, so part of the GPU stays idle (launch-bound "
                          "at this shape)"
                        : "");
    }
    if (!pa->ir) {
        kw_r_item(r, 0);
        kw_r_plainf(r,
                    "Bytes read and written: not derived, no IR facts for %s in this "
                    "sidecar (per-thread traffic comes from the plugin's IR analysis).",
                    pa->arch);
        if (pf->time_us >= 0) {
            kw_r_item(r, 0);
            kw_buf_puts(o, "Achieved bandwidth for --time-us: not computed, the bytes moved "
                           "are unknown.");
        }
        kw_r_item(r, 0);
        kw_buf_puts(o, "Bound: not classified (needs the bytes and FLOP per invocation).");
        kw_r_list_end(r);
        return;
    }
    kw_r_list_end(r);
    const kw_page_work *w = &r->page.work[a * r->mk->launches.n + i];
    static const char *const head[] = {"Per", "Bytes read", "Bytes written", "FLOP"};
    kw_r_gap(r);
    kw_r_table(r, 4, head);
    kw_r_row(r);
    kw_r_cell(r);
    kw_buf_puts(o, "thread (expression)");
    kw_r_cell(r);
    kw_md_code(o, w->trd ? w->trd : "unknown", r->in);
    kw_r_cell(r);
    kw_md_code(o, w->twr ? w->twr : "unknown", r->in);
    kw_r_cell(r);
    kw_md_code(o, w->tfl ? w->tfl : "unknown", r->in);
    static const char *const per[3] = {"thread", "block", "invocation"};
    for (int p = 0; p < 3; p++) {
        kw_r_row(r);
        kw_r_cell(r);
        kw_buf_puts(o, per[p]);
        for (int what = 0; what < 3; what++) {
            kw_r_cell(r);
            if (!pl->known[p][what])
                kw_buf_puts(o, "-");
            else if (what == KW_PAGE_FLOP)
                kw_num(o, pl->work[p][what]);
            else
                kw_num_bytes(o, pl->work[p][what]);
        }
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_r_para(r, "Per-thread counts take the most expensive path through every branch "
                 "(an upper bound; exact for straight-line code). A '-' needs --shape "
                 "values for the names in the expression.");
    kw_r_list(r);
    if (pl->classified) {
        kw_perf_bound b = pl->bound;
        kw_r_item(r, 0);
        kw_r_plainf(r, "Arithmetic intensity: %.3g FLOP per byte of global traffic.", b.intensity);
        if (b.kind != KW_BOUND_UNKNOWN) {
            kw_r_item(r, 0);
            kw_r_plainf(r, "Against %s's FP32 ridge point (%.1f FLOP/byte): ", gpu->product,
                        b.ridge);
            kw_md_strong(o, b.name, r->in);
            kw_buf_puts(o, b.kind == KW_BOUND_MEMORY ? " (below the ridge)."
                                                     : " (at or above the ridge).");
        }
    } else {
        kw_r_item(r, 0);
        kw_buf_puts(o, "Bound: not classified at this shape (bytes or FLOP unknown).");
    }
    if (pl->timed) {
        kw_r_item(r, 0);
        kw_r_plainf(r, "With --time-us %g: ", pf->time_us);
        kw_num_bytes(o, pl->bytes);
        kw_r_plainf(r, " moved, %.3f TB/s achieved = %.1f%% of %s's %.1f TB/s peak", pl->bw.tbs,
                    100 * pl->bw.of_peak, gpu->product, gpu->hbm_tbs);
        if (pl->bw.of_peak > 1)
            kw_buf_puts(o, " (above the peak: the bytes are an upper bound, caches serve "
                           "part of them, or the time is not this kernel's)");
        if (pl->flop_timed)
            kw_buf_printf(o, "; %.3f TFLOP/s = %.1f%% of its FP32 vector peak", pl->tflops,
                          pl->tflops_pct);
        kw_buf_puts(o, ".");
    } else if (pf->time_us >= 0) {
        kw_r_item(r, 0);
        kw_buf_puts(o, "Achieved bandwidth for --time-us: not computed (bytes per invocation "
                       "unknown at this shape).");
    }
    kw_r_list_end(r);
}

void kw_render_memory(kw_render *r) {
    KW_R_HEADING(r, 2, "4. Memory Access Analysis");
    const kw_mkernel *mk = r->mk;
    if ((!mk->k && !r->page.asm_k) || !r->archs.n) {
        kw_r_para(r, "No device facts for this kernel in the index.");
        if (r->page.perf->measured)
            kw_render_trace(r);
        return;
    }
    for (size_t a = 0; a < r->archs.n; a++) {
        const kw_rarch *ra = &r->archs.v[a];
        const kw_gpu *gpu = r->page.perf->archs[a].gpu;
        kw_r_h(r, 3);
        kw_r_s(r, ra->arch);
        if (gpu) {
            kw_r_t(r, " (");
            kw_r_s(r, gpu->product);
            kw_r_t(r, ")");
        }
        kw_r_h_end(r);
        if (r->page.perf->archs[a].gpu_mismatch) {
            kw_r_p(r);
            kw_r_t(r, "--gpu ");
            kw_r_s(r, r->o->gpu);
            kw_r_t(r, " is not a ");
            kw_r_s(r, ra->arch);
            kw_r_t(r, " product in annotations/hw/amdgpu-peaks.txt.");
            kw_r_p_end(r);
        }
        if (!mk->launches.n) {
            kw_r_para(r, "No launch recorded: the geometry is unknown.");
            continue;
        }
        for (size_t i = 0; i < mk->launches.n; i++) {
            const kw_mlaunch *ml = &r->m->launches.v[mk->launches.v[i]];
            if (mk->launches.n > 1) {
                kw_r_p(r);
                kw_r_t(r, "Launch at ");
                kw_r_s(r, kw_r_path(r, ml->l->location.file));
                kw_r_tf(r, ":%d:", ml->l->location.line);
                kw_r_p_end(r);
            }
            kw_mem_launch(r, i, a);
            kw_r_gap(r);
        }
    }
    if (r->page.perf->measured)
        kw_render_trace(r);
    kw_render_memory_peaks(r);
}
