/* kw_treport_build.c: the report of `kwalk trace` (model/kw_treport.h)
 * filled from the trace's statistics: per row its names, match and
 * durations; per launch configuration the work of a dispatch from the IR
 * facts, its bandwidth and bound; per instantiation the archs whose peaks are
 * shown. */
#include "trace/kw_treport_build.h"

#include <string.h>

/* The archs whose peaks are shown for a row: the trace's, else --gpu's,
 * else the kernel's. */
static size_t kw_treport_archs(const kw_trow *r, const kw_gpu *named, const char **out,
                               size_t max) {
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
    if (named) {
        out[0] = named->arch;
        return 1;
    }
    if (r->k && r->k->k)
        for (size_t i = 0; i < r->k->k->archs.n && n < max; i++)
            out[n++] = r->k->k->archs.v[i].arch;
    return n;
}

/* One configuration: the bytes and FLOP of one dispatch from the IR facts
 * of the arch the trace names, else --gpu's, else the kernel's only one;
 * then bandwidth and bound against that arch's GPU (kw_page_perf_tcfg_eval,
 * as a page's section 4). */
static void kw_treport_cfg_eval(kw_treport_cfg *c, const kw_trow *r, const kw_tcfg *cfg,
                                const kw_gpus *gpus, const char *gpu, const kw_gpu *named,
                                const kw_shape *shape) {
    memset(c, 0, sizeof(*c));
    c->known = cfg->known;
    memcpy(c->grid_wg, cfg->grid_wg, sizeof(c->grid_wg));
    memcpy(c->block, cfg->block, sizeof(c->block));
    c->partial = cfg->partial;
    c->arch = cfg->arch;
    c->mixed_arch = cfg->mixed_arch;
    kw_perf_mcfg m;
    kw_tcfg_measured(cfg, &m);
    c->t = m.t;
    kw_page_perf_tcfg pc;
    kw_page_perf_tcfg_eval(&pc, r->k ? r->k->k : NULL,
                           kw_tcfg_arch(cfg, named ? named->arch : NULL), &m, gpus, gpu, shape);
    c->blocks = pc.blocks;
    c->work = pc.work;
    c->ir_arch = pc.ir_arch;
    c->gpu = pc.gpu;
    c->bw = pc.bw;
    c->bound = pc.bound;
}

static kw_treport_group kw_treport_group_of(const kw_trow *r) {
    switch (kw_trow_group_of(r)) {
    case KW_TROW_JOINED:
        return KW_TREPORT_JOINED;
    case KW_TROW_AMBIGUOUS:
        return KW_TREPORT_AMBIGUOUS;
    default:
        return KW_TREPORT_UNKNOWN;
    }
}

/* An ambiguous row's candidates, in the match's order. */
static kw_status kw_treport_cands(kw_treport *rep, kw_treport_row *row, const kw_tjoin *j,
                                  const kw_tmatch *m) {
    kw_treport_kernel *v = kw_arena_alloc(&rep->arena, m->n * sizeof(*v));
    if (!v)
        return KW_ERR;
    for (size_t i = 0; i < m->n; i++) {
        const kw_tkernel *k = &j->kernels.v[m->cand[i]];
        v[i] = (kw_treport_kernel){k->symbol, k->name};
    }
    row->cand = v;
    row->ncand = m->n;
    return KW_OK;
}

kw_status kw_treport_build(kw_treport *rep, const kw_tstats *stats, const kw_gpus *gpus,
                           const char *gpu, const kw_shape *shape, const char *db, kw_err *err) {
    memset(rep, 0, sizeof(*rep));
    kw_arena_init(&rep->arena);
    rep->path = stats->trace->path;
    rep->format = stats->trace->format;
    rep->dispatches = stats->trace->d.n;
    rep->skipped = stats->trace->skipped;
    rep->joined_sql = stats->trace->joined_sql;
    rep->have_demangler = stats->join->have_demangler;
    rep->db = db;
    const kw_gpu *named = gpu ? kw_gpu_named(gpus, gpu) : NULL;
    for (size_t i = 0; i < stats->rows.n; i++) {
        const kw_trow *r = &stats->rows.v[i];
        kw_treport_row *row = KW_PUSH(&rep->arena, rep->rows);
        if (!row)
            return kw_fail(err, "out of memory");
        memset(row, 0, sizeof(*row));
        row->group = kw_treport_group_of(r);
        row->match = kw_match_kind_name(r->match.kind);
        row->t = (kw_perf_times){r->dur.n, r->total, r->dur.n ? r->dur.v[0] : 0,
                                 r->dur.n ? r->dur.v[r->dur.n - 1] : 0,
                                 kw_trace_median(r->dur.v, r->dur.n)};
        if (!r->k) {
            row->trace_name = r->trace_name;
            if (r->match.n > 1 && kw_treport_cands(rep, row, stats->join, &r->match) != KW_OK)
                return kw_fail(err, "out of memory");
            continue;
        }
        row->symbol = r->k->symbol;
        row->name = r->k->name;
        row->names = r->names.v;
        row->nnames = r->names.n;
        row->ncfgs = r->cfgs.n;
        row->cfgs = r->cfgs.n ? kw_arena_alloc(&rep->arena, r->cfgs.n * sizeof(*row->cfgs)) : NULL;
        if (r->cfgs.n && !row->cfgs)
            return kw_fail(err, "out of memory");
        for (size_t c = 0; c < r->cfgs.n; c++)
            kw_treport_cfg_eval(&row->cfgs[c], r, &r->cfgs.v[c], gpus, gpu, named, shape);
        row->narchs = kw_treport_archs(r, named, row->archs, KW_TREPORT_ARCHS);
        for (size_t a = 0; a < row->narchs; a++)
            row->peaks[a] = kw_perf_gpu(gpus, gpu, row->archs[a]);
    }
    return KW_OK;
}
