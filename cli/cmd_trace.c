/* cmd_trace.c: `kwalk trace FILE [--db FILE] [--format text|yaml|json] [--gpu NAME]
 * [--shape NAME=V,...]`: a profiler's kernel trace (rocprofv3 --kernel-trace:
 * the rocpd database, CSV or JSON; kw_trace.h) joined to the kernel
 * instantiations of the index.
 *
 * Per instantiation: the dispatches, their total and median duration, the
 * launch configurations seen (grid in workgroups = Grid_Size / Workgroup_Size,
 * rounded up; workgroup size), and the bytes moved per dispatch with the
 * achieved bandwidth against the arch's peak, when the sidecar has IR facts
 * (kernels[].archs.<arch>.ir.work_per_thread.bytes_read / bytes_written,
 * evaluated with the dispatch's blockDim / gridDim and --shape); without them
 * the bytes are "not known (no IR facts)", never guessed.
 *
 * Names the index does not know are listed apart; a name that matches several
 * instantiations (a base name from --truncate-kernels, a name cut short) is
 * reported as ambiguous with its candidates, and its dispatches are counted
 * for none of them.
 *
 * The gathering per instantiation is kw_trace_stats.c (shared with `kwalk
 * render --trace`), the bytes, bandwidth and bound arithmetic kw_perf.c; this
 * file parses the command line and prints the report (YAML through the one
 * YAML writer, kw_yaml_emit.h; JSON, the same shape, through jansson). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/kw_cli.h"
#include "cli/kw_cli_json.h"
#include "common/kw_buf.h"
#include "index/kw_index.h"
#include "model/kw_annot.h"
#include "model/kw_expr.h"
#include "model/kw_hw.h"
#include "model/kw_perf.h"
#include "sidecar/kw_yaml_emit.h"
#include "trace/kw_trace.h"

static const char kw_trace_usage[] =
    "usage: kwalk trace FILE [--db FILE] [--format text|yaml|json] [--json] [--gpu NAME]\n"
    "                   [--shape N=V,...]\n\n"
    "Join a profiler's kernel trace to the kernel instantiations of the index:\n"
    "per instantiation, dispatches, total and median duration, launch\n"
    "configurations (grid in workgroups x workgroup size), bytes moved and\n"
    "achieved bandwidth vs. the GPU's peak (from IR facts, when the sidecars\n"
    "have them).\n\n"
    "FILE: a rocprofv3 kernel trace: its default rocpd database (rocprofv3\n"
    "--kernel-trace, the %hostname%/%pid%_results.db file), CSV (--output-format\n"
    "csv, *_kernel_trace.csv) or JSON (--output-format json). Kernel names may be\n"
    "mangled (--mangled-kernels; best), demangled (the default), truncated\n"
    "(--truncate-kernels) or cut short; a name matching several instantiations\n"
    "is reported as ambiguous.\n\n"
    "  --db FILE       the database written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --format F      text (default), yaml or json (docs/json.md; --json is the same)\n"
    "  --gpu NAME      the GPU the trace ran on, for peaks (MI300X, MI325X, MI355X, ...;\n"
    "                  default: the arch's default product, annotations/hw/amdgpu-peaks.txt)\n"
    "  --shape N=V,... values for names in IR expressions the trace cannot give\n";

typedef struct kw_tctx {
    kw_arena arena;
    const char *db;
    const char *gpu;
    kw_shape shape;
    kw_trace trace;
    kw_index ix;
    kw_annot annot;
    kw_gpus gpus;
    kw_tjoin join;
    kw_tstats stats;
} kw_tctx;

static int kw_oom(void) {
    return kw_cli_failf("out of memory");
}

static const char *kw_row_label(const kw_trow *r) {
    if (!r->k)
        return r->trace_name;
    return r->k->name ? r->k->name : r->k->symbol;
}

/* The bytes and FLOP of one dispatch of cfg (kw_tcfg_work): the IR facts of
 * the arch the trace names, else --gpu's, else the kernel's only one. */
static void kw_cfg_work(const kw_tctx *c, const kw_trow *r, const kw_tcfg *cfg, kw_perf_work *w,
                        const char **ir_arch) {
    const kw_gpu *g = c->gpu ? kw_gpu_named(&c->gpus, c->gpu) : NULL;
    kw_tcfg_work(r->k ? r->k->k : NULL, kw_tcfg_arch(cfg, g ? g->arch : NULL), cfg, &c->shape, w,
                 ir_arch);
}

static const kw_gpu *kw_peak_gpu(const kw_tctx *c, const char *arch) {
    return kw_perf_gpu(&c->gpus, c->gpu, arch);
}

static double kw_cfg_blocks(const kw_tcfg *cfg) {
    return cfg->known ? (double)cfg->grid_wg[0] * (double)cfg->grid_wg[1] * (double)cfg->grid_wg[2]
                      : -1;
}

/* The archs whose peaks are shown for a row: the trace's, else --gpu's, else the kernel's. */
static size_t kw_row_archs(const kw_tctx *c, const kw_trow *r, const char **out, size_t max) {
    size_t n = 0;
    for (size_t i = 0; i < r->cfgs.n && n < max; i++) {
        const char *a = r->cfgs.v[i].arch;
        bool dup = false;
        for (size_t j = 0; j < n; j++)
            dup |= a && !strcmp(out[j], a);
        if (a && !dup)
            out[n++] = a;
    }
    if (n)
        return n;
    if (c->gpu) {
        const kw_gpu *g = kw_gpu_named(&c->gpus, c->gpu);
        if (g) {
            out[0] = g->arch;
            return 1;
        }
    }
    if (r->k && r->k->k)
        for (size_t i = 0; i < r->k->k->archs.n && n < max; i++)
            out[n++] = r->k->k->archs.v[i].arch;
    return n;
}

/* ---- text ---- */

static void kw_us(kw_buf *o, double ns) {
    kw_buf_printf(o, "%.3f us", ns / 1000.0);
}

static void kw_text_stats(kw_buf *o, const long long *v, size_t n, long long total) {
    kw_buf_printf(o, "%zu dispatch%s, total ", n, n == 1 ? "" : "es");
    kw_us(o, (double)total);
    kw_buf_puts(o, ", median ");
    kw_us(o, kw_trace_median(v, n));
    if (n > 1) {
        kw_buf_puts(o, " (min ");
        kw_us(o, (double)v[0]);
        kw_buf_puts(o, ", max ");
        kw_us(o, (double)v[n - 1]);
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

static void kw_text_row(kw_tctx *c, kw_buf *o, const kw_trow *r) {
    if (r->k) {
        kw_buf_printf(o, "%s\n", kw_row_label(r));
        kw_buf_printf(o, "  symbol: %s\n", r->k->symbol);
        kw_buf_printf(o, "  matched by %s:", kw_match_kind_name(r->match.kind));
        for (size_t i = 0; i < r->names.n; i++)
            kw_buf_printf(o, "%s \"%s\"", i ? "," : "", r->names.v[i]);
        kw_buf_puts(o, "\n  ");
        kw_text_stats(o, r->dur.v, r->dur.n, r->total);
        kw_buf_puts(o, "\n  launch configurations:\n");
        for (size_t i = 0; i < r->cfgs.n; i++) {
            const kw_tcfg *cfg = &r->cfgs.v[i];
            kw_buf_puts(o, "    ");
            kw_text_cfg(o, cfg);
            kw_buf_puts(o, ": ");
            kw_text_stats(o, cfg->dur.v, cfg->dur.n, cfg->total);
            kw_buf_puts(o, "\n");
            kw_perf_work w;
            const char *ir_arch;
            kw_cfg_work(c, r, cfg, &w, &ir_arch);
            if (!w.known) {
                kw_buf_printf(o, "      bytes moved: %s\n", w.why);
                continue;
            }
            kw_buf_printf(o, "      bytes moved: %.0f per dispatch (%s IR facts)\n", w.bytes,
                          ir_arch);
            const kw_gpu *g = kw_peak_gpu(c, ir_arch);
            kw_perf_bw bw = kw_perf_bandwidth(w.bytes, kw_trace_median(cfg->dur.v, cfg->dur.n), g);
            if (bw.tbs >= 0) {
                kw_buf_printf(o, "      achieved bandwidth at the median: %.3f TB/s", bw.tbs);
                if (bw.of_peak >= 0)
                    kw_buf_printf(o, " = %.1f%% of %s's %.2f TB/s peak", 100 * bw.of_peak,
                                  g->product, g->hbm_tbs);
                kw_buf_puts(o, "\n");
            }
            kw_perf_bound bd = kw_perf_classify(w.flops, w.bytes, kw_cfg_blocks(cfg), g);
            if (bd.kind != KW_BOUND_UNKNOWN)
                kw_buf_printf(o, "      bound: %s (%.3g FLOP/byte vs. %s's FP32 ridge %.1f)\n",
                              kw_perf_bound_name(bd.kind), bd.intensity, g->product, bd.ridge);
            if (bd.launch)
                kw_buf_printf(o, "      launch-bound: %.0f workgroups, fewer than %s's %.0f CUs\n",
                              kw_cfg_blocks(cfg), g->product, g->compute_units);
        }
        const char *archs[8];
        size_t na = kw_row_archs(c, r, archs, 8);
        if (na) {
            kw_buf_puts(o, "  peak HBM bandwidth:");
            for (size_t i = 0; i < na; i++) {
                const kw_gpu *g = kw_peak_gpu(c, archs[i]);
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
        kw_text_stats(o, r->dur.v, r->dur.n, r->total);
        kw_buf_printf(o, "\n  matches %zu instantiations (by %s); counted for none of them "
                         "(rocprofv3 --mangled-kernels names each exactly):\n",
                      r->match.n, kw_match_kind_name(r->match.kind));
        for (size_t i = 0; i < r->match.n; i++) {
            const kw_tkernel *k = &c->join.kernels.v[r->match.cand[i]];
            kw_buf_printf(o, "    %s  %s\n", k->name ? k->name : "-", k->symbol);
        }
        kw_buf_puts(o, "\n");
        return;
    }
    kw_buf_printf(o, "not in the index: \"%s\"\n  ", r->trace_name);
    kw_text_stats(o, r->dur.v, r->dur.n, r->total);
    kw_buf_puts(o, "\n\n");
}

static void kw_text(kw_tctx *c, kw_buf *o) {
    size_t inst = 0, amb = 0, unk = 0, d_inst = 0;
    for (size_t i = 0; i < c->stats.rows.n; i++) {
        int g = (int)kw_trow_group_of(&c->stats.rows.v[i]);
        inst += g == 0;
        amb += g == 1;
        unk += g == 2;
        if (g == 0)
            d_inst += c->stats.rows.v[i].dur.n;
    }
    kw_buf_printf(o, "%s (%s): %zu dispatches; %zu joined to %zu kernel instantiation%s, "
                     "%zu ambiguous name%s, %zu name%s not in the index\n",
                  c->trace.path, c->trace.format, c->trace.d.n, d_inst, inst, inst == 1 ? "" : "s",
                  amb, amb == 1 ? "" : "s", unk, unk == 1 ? "" : "s");
    if (!c->join.have_demangler)
        kw_buf_puts(o, "note: no C++ demangler in this process (__cxa_demangle): demangled names "
                       "cannot be joined; use rocprofv3 --mangled-kernels\n");
    kw_buf_puts(o, "\n");
    for (size_t i = 0; i < c->stats.rows.n; i++)
        kw_text_row(c, o, &c->stats.rows.v[i]);
}

/* ---- yaml ---- */

/* Written through the one YAML writer (kw_yaml_emit.h): strings
 * double-quoted (libyaml's escapes; invalid UTF-8 becomes U+FFFD), numbers
 * and enum words plain. */

static void kw_ystats(kw_yaml_emitter *e, const long long *v, size_t n, long long total) {
    double m = kw_trace_median(v, n);
    kw_yaml_emit_key(e, "dispatches");
    kw_yaml_emit_fmt(e, "%zu", n);
    kw_yaml_emit_key(e, "total_ns");
    kw_yaml_emit_ll(e, total);
    kw_yaml_emit_key(e, "median_ns");
    if (m == floor(m))
        kw_yaml_emit_fmt(e, "%.0f", m);
    else
        kw_yaml_emit_fmt(e, "%.1f", m);
    if (n) {
        kw_yaml_emit_key(e, "min_ns");
        kw_yaml_emit_ll(e, v[0]);
        kw_yaml_emit_key(e, "max_ns");
        kw_yaml_emit_ll(e, v[n - 1]);
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

static void kw_yaml_cfg(kw_tctx *c, kw_yaml_emitter *e, const kw_trow *r, const kw_tcfg *cfg) {
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
    kw_ystats(e, cfg->dur.v, cfg->dur.n, cfg->total);
    kw_perf_work w;
    const char *ir_arch;
    kw_cfg_work(c, r, cfg, &w, &ir_arch);
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
    const kw_gpu *g = kw_peak_gpu(c, ir_arch);
    kw_perf_bw bw = kw_perf_bandwidth(w.bytes, kw_trace_median(cfg->dur.v, cfg->dur.n), g);
    if (bw.tbs >= 0) {
        kw_yaml_emit_key(e, "achieved_tbs");
        kw_yaml_emit_fmt(e, "%.6g", bw.tbs);
        if (bw.of_peak >= 0) {
            kw_yaml_emit_key(e, "percent_of_peak");
            kw_yaml_emit_fmt(e, "%.4g", 100 * bw.of_peak);
        }
    }
    kw_perf_bound bd = kw_perf_classify(w.flops, w.bytes, kw_cfg_blocks(cfg), g);
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

static void kw_yaml_row(kw_tctx *c, kw_yaml_emitter *e, const kw_trow *r) {
    kw_yaml_emit_map_start(e, false);
    if (r->k) {
        kw_ykey_str(e, "symbol", r->k->symbol);
        if (r->k->name)
            kw_ykey_str(e, "name", r->k->name);
        kw_yaml_emit_key(e, "match");
        kw_yaml_emit_plain(e, kw_match_kind_name(r->match.kind));
        kw_yaml_emit_key(e, "trace_names");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < r->names.n; i++)
            kw_yaml_emit_quoted(e, r->names.v[i]);
        kw_yaml_emit_seq_end(e);
        kw_ystats(e, r->dur.v, r->dur.n, r->total);
        kw_yaml_emit_key(e, "launch_configs");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < r->cfgs.n; i++)
            kw_yaml_cfg(c, e, r, &r->cfgs.v[i]);
        kw_yaml_emit_seq_end(e);
        const char *archs[8];
        size_t na = kw_row_archs(c, r, archs, 8);
        kw_yaml_emit_key(e, "peaks");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < na; i++) {
            const kw_gpu *g = kw_peak_gpu(c, archs[i]);
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
    kw_ystats(e, r->dur.v, r->dur.n, r->total);
    if (r->match.n > 1) {
        kw_yaml_emit_key(e, "match");
        kw_yaml_emit_plain(e, kw_match_kind_name(r->match.kind));
        kw_yaml_emit_key(e, "candidates");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < r->match.n; i++) {
            const kw_tkernel *k = &c->join.kernels.v[r->match.cand[i]];
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

static kw_status kw_yaml(kw_tctx *c, kw_buf *o, kw_err *err) {
    kw_yaml_emitter e;
    kw_yaml_emit_begin(&e, o, err);
    kw_yaml_emit_key_int(&e, "kwalk_trace", 1);
    kw_ykey_str(&e, "trace", c->trace.path);
    kw_yaml_emit_key(&e, "format");
    kw_yaml_emit_plain(&e, c->trace.format);
    kw_yaml_emit_key(&e, "dispatches");
    kw_yaml_emit_fmt(&e, "%zu", c->trace.d.n);
    kw_yaml_emit_key(&e, "skipped_rows");
    kw_yaml_emit_fmt(&e, "%ld", c->trace.skipped);
    if (!strcmp(c->trace.format, "rocpd")) {
        kw_yaml_emit_key(&e, "joined_in_sql");
        kw_yaml_emit_fmt(&e, "%ld", c->trace.joined_sql);
    }
    kw_yaml_emit_key(&e, "demangler");
    kw_yaml_emit_bool(&e, c->join.have_demangler);
    kw_ykey_str(&e, "index", c->db);
    static const char *const group[3] = {"kernels", "ambiguous", "unmatched"};
    for (int g = 0; g < 3; g++) {
        kw_yaml_emit_key(&e, group[g]);
        kw_yaml_emit_seq_start(&e, false);
        for (size_t i = 0; i < c->stats.rows.n; i++)
            if ((int)kw_trow_group_of(&c->stats.rows.v[i]) == g)
                kw_yaml_row(c, &e, &c->stats.rows.v[i]);
        kw_yaml_emit_seq_end(&e);
    }
    kw_status st = kw_yaml_emit_end(&e);
    kw_yaml_emit_free(&e);
    return st;
}

/* ---- json ---- */

/* The YAML document's shape (docs/trace.md) as one JSON document, written
 * with jansson (docs/json.md): the same keys, numbers as numbers, null where
 * the YAML has ~. */

static void kw_jstats(json_t *o, const long long *v, size_t n, long long total, bool *oom) {
    double m = kw_trace_median(v, n);
    kw_jansson_set(o, "dispatches", json_integer((json_int_t)n), oom);
    kw_jansson_set(o, "total_ns", json_integer(total), oom);
    kw_jansson_set(o, "median_ns", m == floor(m) ? json_integer((json_int_t)m) : json_real(m), oom);
    if (n) {
        kw_jansson_set(o, "min_ns", json_integer(v[0]), oom);
        kw_jansson_set(o, "max_ns", json_integer(v[n - 1]), oom);
    }
}

static json_t *kw_jtriple(const long long *v) {
    return json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *kw_json_cfg(kw_tctx *c, const kw_trow *r, const kw_tcfg *cfg, bool *oom) {
    json_t *o = json_object();
    if (!o) {
        *oom = true;
        return NULL;
    }
    kw_jansson_set(o, "grid_workgroups", cfg->known ? kw_jtriple(cfg->grid_wg) : json_null(), oom);
    kw_jansson_set(o, "workgroup_size", cfg->known ? kw_jtriple(cfg->block) : json_null(), oom);
    if (cfg->known)
        kw_jansson_set(o, "partial_workgroups", json_boolean(cfg->partial), oom);
    if (cfg->arch && !cfg->mixed_arch)
        kw_jansson_set(o, "arch", kw_jansson_text(cfg->arch), oom);
    kw_jstats(o, cfg->dur.v, cfg->dur.n, cfg->total, oom);
    kw_perf_work w;
    const char *ir_arch;
    kw_cfg_work(c, r, cfg, &w, &ir_arch);
    if (!w.known) {
        kw_jansson_set(o, "bytes_moved", json_null(), oom);
        kw_jansson_set(o, "bytes_moved_note", kw_jansson_text(w.why), oom);
        return o;
    }
    kw_jansson_set(o, "bytes_moved", json_real(w.bytes), oom);
    kw_jansson_set(o, "ir_arch", kw_jansson_text(ir_arch), oom);
    if (w.flops >= 0)
        kw_jansson_set(o, "flops", json_real(w.flops), oom);
    const kw_gpu *g = kw_peak_gpu(c, ir_arch);
    kw_perf_bw bw = kw_perf_bandwidth(w.bytes, kw_trace_median(cfg->dur.v, cfg->dur.n), g);
    if (bw.tbs >= 0) {
        kw_jansson_set(o, "achieved_tbs", json_real(bw.tbs), oom);
        if (bw.of_peak >= 0)
            kw_jansson_set(o, "percent_of_peak", json_real(100 * bw.of_peak), oom);
    }
    kw_perf_bound bd = kw_perf_classify(w.flops, w.bytes, kw_cfg_blocks(cfg), g);
    if (bd.kind != KW_BOUND_UNKNOWN) {
        kw_jansson_set(o, "intensity", json_real(bd.intensity), oom);
        kw_jansson_set(o, "ridge", json_real(bd.ridge), oom);
        kw_jansson_set(o, "bound", json_string(bd.kind == KW_BOUND_MEMORY ? "memory" : "compute"),
                       oom);
    }
    if (g)
        kw_jansson_set(o, "launch_bound", json_boolean(bd.launch), oom);
    return o;
}

static json_t *kw_json_candidate(const kw_tkernel *k) {
    json_t *o = json_pack("{s:o}", "symbol", kw_jansson_text(k->symbol));
    if (o && k->name && json_object_set_new(o, "name", kw_jansson_text(k->name))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *kw_json_row(kw_tctx *c, const kw_trow *r, bool *oom) {
    json_t *o = json_object(), *list = json_array();
    if (!o || !list) {
        json_decref(list);
        *oom = true;
        return o;
    }
    if (!r->k) {
        kw_jansson_set(o, "trace_name", kw_jansson_text(r->trace_name), oom);
        kw_jstats(o, r->dur.v, r->dur.n, r->total, oom);
        if (r->match.n > 1) {
            kw_jansson_set(o, "match", json_string(kw_match_kind_name(r->match.kind)), oom);
            for (size_t i = 0; i < r->match.n; i++)
                kw_jansson_push(list, kw_json_candidate(&c->join.kernels.v[r->match.cand[i]]), oom);
            kw_jansson_set(o, "candidates", list, oom);
        } else {
            json_decref(list);
        }
        return o;
    }
    kw_jansson_set(o, "symbol", kw_jansson_text(r->k->symbol), oom);
    if (r->k->name)
        kw_jansson_set(o, "name", kw_jansson_text(r->k->name), oom);
    kw_jansson_set(o, "match", json_string(kw_match_kind_name(r->match.kind)), oom);
    for (size_t i = 0; i < r->names.n; i++)
        kw_jansson_push(list, kw_jansson_text(r->names.v[i]), oom);
    kw_jansson_set(o, "trace_names", list, oom);
    kw_jstats(o, r->dur.v, r->dur.n, r->total, oom);
    json_t *cfgs = json_array(), *peaks = json_array();
    for (size_t i = 0; cfgs && i < r->cfgs.n; i++)
        kw_jansson_push(cfgs, kw_json_cfg(c, r, &r->cfgs.v[i], oom), oom);
    kw_jansson_set(o, "launch_configs", cfgs, oom);
    const char *archs[8];
    size_t na = kw_row_archs(c, r, archs, 8);
    for (size_t i = 0; peaks && i < na; i++) {
        const kw_gpu *g = kw_peak_gpu(c, archs[i]);
        json_t *p = json_pack("{s:o}", "arch", kw_jansson_text(archs[i]));
        if (p && g && g->hbm_tbs > 0) {
            kw_jansson_set(p, "gpu", kw_jansson_text(g->product), oom);
            kw_jansson_set(p, "hbm_tbs", json_real(g->hbm_tbs), oom);
        }
        kw_jansson_push(peaks, p, oom);
    }
    kw_jansson_set(o, "peaks", peaks, oom);
    return o;
}

static int kw_json(kw_tctx *c) {
    bool oom = false;
    json_t *doc = json_object();
    if (!doc)
        return kw_cli_json_print(NULL, true);
    kw_jansson_set(doc, "kwalk_trace", json_integer(1), &oom);
    kw_jansson_set(doc, "trace", kw_jansson_text(c->trace.path), &oom);
    kw_jansson_set(doc, "format", json_string(c->trace.format), &oom);
    kw_jansson_set(doc, "dispatches", json_integer((json_int_t)c->trace.d.n), &oom);
    kw_jansson_set(doc, "skipped_rows", json_integer(c->trace.skipped), &oom);
    if (!strcmp(c->trace.format, "rocpd"))
        kw_jansson_set(doc, "joined_in_sql", json_integer(c->trace.joined_sql), &oom);
    kw_jansson_set(doc, "demangler", json_boolean(c->join.have_demangler), &oom);
    kw_jansson_set(doc, "index", kw_jansson_text(c->db), &oom);
    static const char *const group[3] = {"kernels", "ambiguous", "unmatched"};
    for (int g = 0; g < 3; g++) {
        json_t *rows = json_array();
        for (size_t i = 0; rows && i < c->stats.rows.n && !oom; i++)
            if ((int)kw_trow_group_of(&c->stats.rows.v[i]) == g)
                kw_jansson_push(rows, kw_json_row(c, &c->stats.rows.v[i], &oom), &oom);
        kw_jansson_set(doc, group[g], rows, &oom);
    }
    return kw_cli_json_print(doc, oom);
}

static void kw_tctx_free(kw_tctx *c) {
    kw_tstats_free(&c->stats);
    kw_tjoin_free(&c->join);
    kw_gpus_free(&c->gpus);
    kw_annot_free(&c->annot);
    kw_index_free(&c->ix);
    kw_trace_free(&c->trace);
    kw_arena_free(&c->arena);
}

int kw_cmd_trace(int argc, char **argv) {
    const char *file = NULL, *db = NULL, *format = "text", *gpu = NULL, *shape = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_trace_usage, stdout);
            return kw_cli_flush_stdout();
        } else if ((m = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--db needs a file");
            db = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (m < 0 || (strcmp(v, "text") && strcmp(v, "yaml") && strcmp(v, "json")))
                return kw_cli_usage_error("trace", "--format takes text, yaml or json");
            format = v;
        } else if (!strcmp(argv[i], "--json")) {
            format = "json";
        } else if ((m = kw_cli_opt(argc, argv, &i, "--gpu", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--gpu needs a product name");
            gpu = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--shape", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--shape needs NAME=VALUE,...");
            shape = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return kw_cli_usage_error("trace", "unknown option '%s'", argv[i]);
        } else if (file) {
            return kw_cli_usage_error("trace", "one trace file at a time ('%s' and '%s')", file,
                                      argv[i]);
        } else {
            file = argv[i];
        }
    }
    if (!file)
        return kw_cli_usage_error("trace", "no trace file given");

    kw_tctx c;
    memset(&c, 0, sizeof c);
    kw_arena_init(&c.arena);
    kw_trace_init(&c.trace);
    kw_index_init(&c.ix);
    kw_tstats_init(&c.stats);
    c.db = db ? db : KW_INDEX_DEFAULT_PATH;
    c.gpu = gpu;
    kw_err err;
    int rc = KW_EXIT_OK;
    if (shape && kw_shape_parse(&c.shape, &c.arena, shape, &err) != KW_OK) {
        rc = kw_cli_usage_error("trace", "--shape: %s", err.msg);
        goto out;
    }
    /* the index first: a rocpd trace is joined to it in SQL as it is read */
    if (kw_index_read_file(&c.ix, c.db, &err) != KW_OK) {
        struct stat st;
        if (!db && stat(KW_INDEX_DEFAULT_PATH, &st) != 0)
            rc = kw_cli_failf("%s (run 'kwalk index DIR' first, or give --db FILE)", err.msg);
        else
            rc = kw_cli_fail(&err);
        goto out;
    }
    if (kw_trace_read_file(&c.trace, file, c.db, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (kw_annot_load(&c.annot, &err) != KW_OK || kw_gpus_load(&c.gpus, &c.annot, &err) != KW_OK ||
        kw_tjoin_init(&c.join, &c.ix, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (gpu && !kw_gpu_named(&c.gpus, gpu)) {
        rc = kw_cli_usage_error("trace", "--gpu: unknown product '%s' (see "
                                         "annotations/hw/amdgpu-peaks.txt)",
                                gpu);
        goto out;
    }
    if (kw_tstats_build(&c.stats, &c.trace, &c.join, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (!strcmp(format, "json")) {
        rc = kw_json(&c);
        goto out;
    }
    kw_buf o;
    kw_buf_init(&o);
    kw_status st = KW_OK;
    if (!strcmp(format, "yaml"))
        st = kw_yaml(&c, &o, &err);
    else
        kw_text(&c, &o);
    if (st != KW_OK) {
        rc = kw_cli_fail(&err);
    } else if (o.oom) {
        rc = kw_oom();
    } else {
        fwrite(o.ptr ? o.ptr : "", 1, o.len, stdout);
        rc = kw_cli_flush_stdout();
    }
    kw_buf_free(&o);
out:
    kw_tctx_free(&c);
    return rc;
}
