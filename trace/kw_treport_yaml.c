/* kw_treport_yaml.c: the report of `kwalk trace` (model/kw_treport.h) as
 * the YAML document of `kwalk trace --format yaml` (docs/trace.md), written
 * from the evaluated report through the one YAML writer
 * (sidecar/kw_yaml_emit.h): a data document for tools, as the sidecar is,
 * so it sits with the trace reader that fills the report rather than among
 * render/'s page printers. Computes nothing. */
#include "trace/kw_treport_yaml.h"

#include <math.h>
#include <string.h>

#include "sidecar/kw_yaml_emit.h"

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
    kw_yaml_emit_map_start(e, false);
    if (rc->known) {
        kw_ytriple(e, "grid_workgroups", rc->grid_wg);
        kw_ytriple(e, "workgroup_size", rc->block);
        kw_yaml_emit_key(e, "partial_workgroups");
        kw_yaml_emit_bool(e, rc->partial);
    } else {
        kw_yaml_emit_key(e, "grid_workgroups");
        kw_yaml_emit_null(e);
        kw_yaml_emit_key(e, "workgroup_size");
        kw_yaml_emit_null(e);
    }
    if (rc->arch && !rc->mixed_arch)
        kw_ykey_str(e, "arch", rc->arch);
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

static void kw_yaml_row(kw_yaml_emitter *e, const kw_treport_row *rr) {
    kw_yaml_emit_map_start(e, false);
    if (rr->group == KW_TREPORT_JOINED) {
        kw_ykey_str(e, "symbol", rr->symbol);
        if (rr->name)
            kw_ykey_str(e, "name", rr->name);
        kw_yaml_emit_key(e, "match");
        kw_yaml_emit_plain(e, rr->match);
        kw_yaml_emit_key(e, "trace_names");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < rr->nnames; i++)
            kw_yaml_emit_quoted(e, rr->names[i]);
        kw_yaml_emit_seq_end(e);
        kw_ystats(e, &rr->t);
        kw_yaml_emit_key(e, "launch_configs");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < rr->ncfgs; i++)
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
    kw_ykey_str(e, "trace_name", rr->trace_name);
    kw_ystats(e, &rr->t);
    if (rr->ncand > 1) {
        kw_yaml_emit_key(e, "match");
        kw_yaml_emit_plain(e, rr->match);
        kw_yaml_emit_key(e, "candidates");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < rr->ncand; i++) {
            const kw_treport_kernel *k = &rr->cand[i];
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

kw_status kw_treport_yaml(const kw_treport *c, kw_buf *o, kw_err *err) {
    kw_yaml_emitter e;
    kw_yaml_emit_begin(&e, o, err);
    kw_yaml_emit_key_int(&e, "kwalk_trace", 1);
    kw_ykey_str(&e, "trace", c->path);
    kw_yaml_emit_key(&e, "format");
    kw_yaml_emit_plain(&e, c->format);
    kw_yaml_emit_key(&e, "dispatches");
    kw_yaml_emit_fmt(&e, "%zu", c->dispatches);
    kw_yaml_emit_key(&e, "skipped_rows");
    kw_yaml_emit_fmt(&e, "%ld", c->skipped);
    if (!strcmp(c->format, "rocpd")) {
        kw_yaml_emit_key(&e, "joined_in_sql");
        kw_yaml_emit_fmt(&e, "%ld", c->joined_sql);
    }
    kw_yaml_emit_key(&e, "demangler");
    kw_yaml_emit_bool(&e, c->have_demangler);
    kw_ykey_str(&e, "index", c->db);
    static const char *const group[3] = {"kernels", "ambiguous", "unmatched"};
    for (int g = 0; g < 3; g++) {
        kw_yaml_emit_key(&e, group[g]);
        kw_yaml_emit_seq_start(&e, false);
        for (size_t i = 0; i < c->rows.n; i++)
            if ((int)c->rows.v[i].group == g)
                kw_yaml_row(&e, &c->rows.v[i]);
        kw_yaml_emit_seq_end(&e);
    }
    kw_status st = kw_yaml_emit_end(&e);
    kw_yaml_emit_free(&e);
    return st;
}
