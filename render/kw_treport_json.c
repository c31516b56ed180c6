/* kw_treport_json.c: the report of `kwalk trace` (model/kw_treport.h) as one
 * JSON document (docs/json.md), written from the evaluated report: this file
 * computes nothing (no evaluator, no kw_perf_* function). */
#include "render/kw_treport_json.h"

#include <math.h>
#include <string.h>

/* The YAML document's shape (docs/trace.md) as one JSON document, written
 * with jansson (docs/json.md): the same keys, numbers as numbers, null where
 * the YAML has ~. */

static void kw_jstats(json_t *o, const kw_perf_times *t, bool *oom) {
    double m = t->median;
    kw_jansson_set(o, "dispatches", json_integer((json_int_t)t->n), oom);
    kw_jansson_set(o, "total_ns", json_integer(t->total), oom);
    kw_jansson_set(o, "median_ns", m == floor(m) ? json_integer((json_int_t)m) : json_real(m), oom);
    if (t->n) {
        kw_jansson_set(o, "min_ns", json_integer(t->min), oom);
        kw_jansson_set(o, "max_ns", json_integer(t->max), oom);
    }
}

static json_t *kw_jtriple(const long long *v) {
    return json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *kw_json_cfg(const kw_treport_cfg *rc, bool *oom) {
    json_t *o = json_object();
    if (!o) {
        *oom = true;
        return NULL;
    }
    kw_jansson_set(o, "grid_workgroups", rc->known ? kw_jtriple(rc->grid_wg) : json_null(), oom);
    kw_jansson_set(o, "workgroup_size", rc->known ? kw_jtriple(rc->block) : json_null(), oom);
    if (rc->known)
        kw_jansson_set(o, "partial_workgroups", json_boolean(rc->partial), oom);
    if (rc->arch && !rc->mixed_arch)
        kw_jansson_set(o, "arch", kw_jansson_text(rc->arch), oom);
    kw_jstats(o, &rc->t, oom);
    const kw_perf_work w = rc->work;
    const char *ir_arch = rc->ir_arch;
    if (!w.known) {
        kw_jansson_set(o, "bytes_moved", json_null(), oom);
        kw_jansson_set(o, "bytes_moved_note", kw_jansson_text(w.why), oom);
        return o;
    }
    kw_jansson_set(o, "bytes_moved", json_real(w.bytes), oom);
    kw_jansson_set(o, "ir_arch", kw_jansson_text(ir_arch), oom);
    if (w.flops >= 0)
        kw_jansson_set(o, "flops", json_real(w.flops), oom);
    const kw_gpu *g = rc->gpu;
    kw_perf_bw bw = rc->bw;
    if (bw.tbs >= 0) {
        kw_jansson_set(o, "achieved_tbs", json_real(bw.tbs), oom);
        if (bw.of_peak >= 0)
            kw_jansson_set(o, "percent_of_peak", json_real(100 * bw.of_peak), oom);
    }
    kw_perf_bound bd = rc->bound;
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

static json_t *kw_json_candidate(const kw_treport_kernel *k) {
    json_t *o = json_pack("{s:o}", "symbol", kw_jansson_text(k->symbol));
    if (o && k->name && json_object_set_new(o, "name", kw_jansson_text(k->name))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *kw_json_row(const kw_treport_row *rr, bool *oom) {
    json_t *o = json_object(), *list = json_array();
    if (!o || !list) {
        json_decref(list);
        *oom = true;
        return o;
    }
    if (rr->group != KW_TREPORT_JOINED) {
        kw_jansson_set(o, "trace_name", kw_jansson_text(rr->trace_name), oom);
        kw_jstats(o, &rr->t, oom);
        if (rr->ncand > 1) {
            kw_jansson_set(o, "match", json_string(rr->match), oom);
            for (size_t i = 0; i < rr->ncand; i++)
                kw_jansson_push(list, kw_json_candidate(&rr->cand[i]), oom);
            kw_jansson_set(o, "candidates", list, oom);
        } else {
            json_decref(list);
        }
        return o;
    }
    kw_jansson_set(o, "symbol", kw_jansson_text(rr->symbol), oom);
    if (rr->name)
        kw_jansson_set(o, "name", kw_jansson_text(rr->name), oom);
    kw_jansson_set(o, "match", json_string(rr->match), oom);
    for (size_t i = 0; i < rr->nnames; i++)
        kw_jansson_push(list, kw_jansson_text(rr->names[i]), oom);
    kw_jansson_set(o, "trace_names", list, oom);
    kw_jstats(o, &rr->t, oom);
    json_t *cfgs = json_array(), *peaks = json_array();
    for (size_t i = 0; cfgs && i < rr->ncfgs; i++)
        kw_jansson_push(cfgs, kw_json_cfg(&rr->cfgs[i], oom), oom);
    kw_jansson_set(o, "launch_configs", cfgs, oom);
    const char *const *archs = rr->archs;
    size_t na = rr->narchs;
    for (size_t i = 0; peaks && i < na; i++) {
        const kw_gpu *g = rr->peaks[i];
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

json_t *kw_treport_json(const kw_treport *c, bool *oom_out) {
    bool oom = false;
    json_t *doc = json_object();
    if (!doc) {
        *oom_out = true;
        return NULL;
    }
    kw_jansson_set(doc, "kwalk_trace", json_integer(1), &oom);
    kw_jansson_set(doc, "trace", kw_jansson_text(c->path), &oom);
    kw_jansson_set(doc, "format", json_string(c->format), &oom);
    kw_jansson_set(doc, "dispatches", json_integer((json_int_t)c->dispatches), &oom);
    kw_jansson_set(doc, "skipped_rows", json_integer(c->skipped), &oom);
    if (!strcmp(c->format, "rocpd"))
        kw_jansson_set(doc, "joined_in_sql", json_integer(c->joined_sql), &oom);
    kw_jansson_set(doc, "demangler", json_boolean(c->have_demangler), &oom);
    kw_jansson_set(doc, "index", kw_jansson_text(c->db), &oom);
    static const char *const group[3] = {"kernels", "ambiguous", "unmatched"};
    for (int g = 0; g < 3; g++) {
        json_t *rows = json_array();
        for (size_t i = 0; rows && i < c->rows.n && !oom; i++)
            if ((int)c->rows.v[i].group == g)
                kw_jansson_push(rows, kw_json_row(&c->rows.v[i], &oom), &oom);
        kw_jansson_set(doc, group[g], rows, &oom);
    }
    *oom_out = oom;
    return doc;
}
