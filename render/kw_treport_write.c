/* kw_treport_write.c: the report of `kwalk trace` (trace/kw_treport.h) as
 * text and as YAML (docs/trace.md), written from the evaluated report: every
 * number, verdict and name (medians, bandwidth, bound, match kind, group) is
 * the report model's; this file computes nothing (no evaluator, no kw_perf_*
 * or trace/ function). */
#include "render/kw_treport_write.h"

#include <math.h>
#include <string.h>

#include "common/kw_num.h"
#include "sidecar/kw_yaml_emit.h"

static const char *kw_row_label(const kw_trow *r) {
    if (!r->k)
        return r->trace_name;
    return r->k->name ? r->k->name : r->k->symbol;
}

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

static void kw_text_cfg(kw_buf *o, const kw_tcfg *cfg) {
    if (!cfg->known) {
        kw_buf_puts(o, "grid and workgroup size not in the trace");
        return;
    }
    kw_buf_printf(o, "grid [%lld, %lld, %lld] workgroups x [%lld, %lld, %lld]", cfg->grid_wg[0],
                  cfg->grid_wg[1], cfg->grid_wg[2], cfg->block[0], cfg->block[1], cfg->block[2]);
    if (cfg->partial)
        kw_buf_puts(o, " (last workgroups partial)");
}

static void kw_text_row(const kw_treport *c, kw_buf *o, const kw_treport_row *rr) {
    const kw_trow *r = rr->row;
    if (r->k) {
        kw_buf_printf(o, "%s\n", kw_row_label(r));
        kw_buf_printf(o, "  symbol: %s\n", r->k->symbol);
        kw_buf_printf(o, "  matched by %s:", rr->match);
        for (size_t i = 0; i < r->names.n; i++)
            kw_buf_printf(o, "%s \"%s\"", i ? "," : "", r->names.v[i]);
        kw_buf_puts(o, "\n  ");
        kw_text_stats(o, &rr->t);
        kw_buf_puts(o, "\n  launch configurations:\n");
        for (size_t i = 0; i < r->cfgs.n; i++) {
            const kw_treport_cfg *rc = &rr->cfgs[i];
            const kw_tcfg *cfg = rc->cfg;
            kw_buf_puts(o, "    ");
            kw_text_cfg(o, cfg);
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
    if (r->match.n > 1) {
        kw_buf_printf(o, "ambiguous: \"%s\"\n  ", r->trace_name);
        kw_text_stats(o, &rr->t);
        kw_buf_printf(o,
                      "\n  matches %zu instantiations (by %s); counted for none of them "
                      "(rocprofv3 --mangled-kernels names each exactly):\n",
                      r->match.n, rr->match);
        for (size_t i = 0; i < r->match.n; i++) {
            const kw_tkernel *k = &c->join->kernels.v[r->match.cand[i]];
            kw_buf_printf(o, "    %s  %s\n", k->name ? k->name : "-", k->symbol);
        }
        kw_buf_puts(o, "\n");
        return;
    }
    kw_buf_printf(o, "not in the index: \"%s\"\n  ", r->trace_name);
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
            d_inst += c->rows.v[i].row->dur.n;
    }
    kw_buf_printf(o,
                  "%s (%s): %zu dispatches; %zu joined to %zu kernel instantiation%s, "
                  "%zu ambiguous name%s, %zu name%s not in the index\n",
                  c->trace->path, c->trace->format, c->trace->d.n, d_inst, inst,
                  inst == 1 ? "" : "s", amb, amb == 1 ? "" : "s", unk, unk == 1 ? "" : "s");
    if (!c->join->have_demangler)
        kw_buf_puts(o, "note: no C++ demangler in this process (__cxa_demangle): demangled names "
                       "cannot be joined; use rocprofv3 --mangled-kernels\n");
    kw_buf_puts(o, "\n");
    for (size_t i = 0; i < c->rows.n; i++)
        kw_text_row(c, o, &c->rows.v[i]);
}

/* Written through the one YAML writer (kw_yaml_emit.h): strings
 * double-quoted (libyaml's escapes; invalid UTF-8 becomes U+FFFD), numbers
 * and enum words plain. */

static void kw_ystats(kw_yaml_emitter *e, const kw_perf_times *t) {
    double m = t->median;
    size_t n = t->n;
    kw_yaml_emit_key(e, "dispatches");
    kw_yaml_emit_fmt(e, "%zu", n);
    kw_yaml_emit_key(e, "total_ns");
    kw_yaml_emit_ll(e, t->total);
    kw_yaml_emit_key(e, "median_ns");
    if (m == floor(m))
        kw_yaml_emit_fmt(e, "%.0f", m);
    else
        kw_yaml_emit_fmt(e, "%.1f", m);
    if (n) {
        kw_yaml_emit_key(e, "min_ns");
        kw_yaml_emit_ll(e, t->min);
        kw_yaml_emit_key(e, "max_ns");
        kw_yaml_emit_ll(e, t->max);
    }
}

static void kw_ytriple(kw_yaml_emitter *e, const char *key, const long long *v) {
    kw_yaml_emit_key(e, key);
    kw_yaml_emit_seq_start(e, true);
    for (int i = 0; i < 3; i++)
        kw_yaml_emit_ll(e, v[i]);
    kw_yaml_emit_seq_end(e);
}

static void kw_ykey_str(kw_yaml_emitter *e, const char *key, const char *s) {
    kw_yaml_emit_key(e, key);
    kw_yaml_emit_quoted(e, s);
}

static void kw_yaml_cfg(kw_yaml_emitter *e, const kw_treport_cfg *rc) {
    const kw_tcfg *cfg = rc->cfg;
    kw_yaml_emit_map_start(e, false);
    if (cfg->known) {
        kw_ytriple(e, "grid_workgroups", cfg->grid_wg);
        kw_ytriple(e, "workgroup_size", cfg->block);
        kw_yaml_emit_key(e, "partial_workgroups");
        kw_yaml_emit_bool(e, cfg->partial);
    } else {
        kw_yaml_emit_key(e, "grid_workgroups");
        kw_yaml_emit_null(e);
        kw_yaml_emit_key(e, "workgroup_size");
        kw_yaml_emit_null(e);
    }
    if (cfg->arch && !cfg->mixed_arch)
        kw_ykey_str(e, "arch", cfg->arch);
    kw_ystats(e, &rc->t);
    const kw_perf_work w = rc->work;
    const char *ir_arch = rc->ir_arch;
    if (!w.known) {
        kw_yaml_emit_key(e, "bytes_moved");
        kw_yaml_emit_null(e);
        kw_ykey_str(e, "bytes_moved_note", w.why);
        kw_yaml_emit_map_end(e);
        return;
    }
    kw_yaml_emit_key(e, "bytes_moved");
    kw_yaml_emit_fmt(e, "%.0f", w.bytes);
    kw_ykey_str(e, "ir_arch", ir_arch);
    if (w.flops >= 0) {
        kw_yaml_emit_key(e, "flops");
        kw_yaml_emit_fmt(e, "%.0f", w.flops);
    }
    const kw_gpu *g = rc->gpu;
    kw_perf_bw bw = rc->bw;
    if (bw.tbs >= 0) {
        kw_yaml_emit_key(e, "achieved_tbs");
        kw_yaml_emit_fmt(e, "%.6g", bw.tbs);
        if (bw.of_peak >= 0) {
            kw_yaml_emit_key(e, "percent_of_peak");
            kw_yaml_emit_fmt(e, "%.4g", 100 * bw.of_peak);
        }
    }
    kw_perf_bound bd = rc->bound;
    if (bd.kind != KW_BOUND_UNKNOWN) {
        kw_yaml_emit_key(e, "intensity");
        kw_yaml_emit_fmt(e, "%.6g", bd.intensity);
        kw_yaml_emit_key(e, "ridge");
        kw_yaml_emit_fmt(e, "%.6g", bd.ridge);
        kw_yaml_emit_key(e, "bound");
        kw_yaml_emit_plain(e, bd.kind == KW_BOUND_MEMORY ? "memory" : "compute");
    }
    if (g) {
        kw_yaml_emit_key(e, "launch_bound");
        kw_yaml_emit_bool(e, bd.launch);
    }
    kw_yaml_emit_map_end(e);
}

static void kw_yaml_row(const kw_treport *c, kw_yaml_emitter *e, const kw_treport_row *rr) {
    const kw_trow *r = rr->row;
    kw_yaml_emit_map_start(e, false);
    if (r->k) {
        kw_ykey_str(e, "symbol", r->k->symbol);
        if (r->k->name)
            kw_ykey_str(e, "name", r->k->name);
        kw_yaml_emit_key(e, "match");
        kw_yaml_emit_plain(e, rr->match);
        kw_yaml_emit_key(e, "trace_names");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < r->names.n; i++)
            kw_yaml_emit_quoted(e, r->names.v[i]);
        kw_yaml_emit_seq_end(e);
        kw_ystats(e, &rr->t);
        kw_yaml_emit_key(e, "launch_configs");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < r->cfgs.n; i++)
            kw_yaml_cfg(e, &rr->cfgs[i]);
        kw_yaml_emit_seq_end(e);
        const char *const *archs = rr->archs;
        size_t na = rr->narchs;
        kw_yaml_emit_key(e, "peaks");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < na; i++) {
            const kw_gpu *g = rr->peaks[i];
            kw_yaml_emit_map_start(e, false);
            kw_ykey_str(e, "arch", archs[i]);
            if (g && g->hbm_tbs > 0) {
                kw_ykey_str(e, "gpu", g->product);
                kw_yaml_emit_key(e, "hbm_tbs");
                kw_yaml_emit_fmt(e, "%g", g->hbm_tbs);
            }
            kw_yaml_emit_map_end(e);
        }
        kw_yaml_emit_seq_end(e);
        kw_yaml_emit_map_end(e);
        return;
    }
    kw_ykey_str(e, "trace_name", r->trace_name);
    kw_ystats(e, &rr->t);
    if (r->match.n > 1) {
        kw_yaml_emit_key(e, "match");
        kw_yaml_emit_plain(e, rr->match);
        kw_yaml_emit_key(e, "candidates");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < r->match.n; i++) {
            const kw_tkernel *k = &c->join->kernels.v[r->match.cand[i]];
            kw_yaml_emit_map_start(e, false);
            kw_ykey_str(e, "symbol", k->symbol);
            if (k->name)
                kw_ykey_str(e, "name", k->name);
            kw_yaml_emit_map_end(e);
        }
        kw_yaml_emit_seq_end(e);
    }
    kw_yaml_emit_map_end(e);
}

kw_status kw_treport_write_yaml(const kw_treport *c, kw_buf *o, kw_err *err) {
    kw_yaml_emitter e;
    kw_yaml_emit_begin(&e, o, err);
    kw_yaml_emit_key_int(&e, "kwalk_trace", 1);
    kw_ykey_str(&e, "trace", c->trace->path);
    kw_yaml_emit_key(&e, "format");
    kw_yaml_emit_plain(&e, c->trace->format);
    kw_yaml_emit_key(&e, "dispatches");
    kw_yaml_emit_fmt(&e, "%zu", c->trace->d.n);
    kw_yaml_emit_key(&e, "skipped_rows");
    kw_yaml_emit_fmt(&e, "%ld", c->trace->skipped);
    if (!strcmp(c->trace->format, "rocpd")) {
        kw_yaml_emit_key(&e, "joined_in_sql");
        kw_yaml_emit_fmt(&e, "%ld", c->trace->joined_sql);
    }
    kw_yaml_emit_key(&e, "demangler");
    kw_yaml_emit_bool(&e, c->join->have_demangler);
    kw_ykey_str(&e, "index", c->db);
    static const char *const group[3] = {"kernels", "ambiguous", "unmatched"};
    for (int g = 0; g < 3; g++) {
        kw_yaml_emit_key(&e, group[g]);
        kw_yaml_emit_seq_start(&e, false);
        for (size_t i = 0; i < c->rows.n; i++)
            if ((int)c->rows.v[i].group == g)
                kw_yaml_row(c, &e, &c->rows.v[i]);
        kw_yaml_emit_seq_end(&e);
    }
    kw_status st = kw_yaml_emit_end(&e);
    kw_yaml_emit_free(&e);
    return st;
}
