/* kw_trace_stats.c: a kernel trace's dispatches gathered per kernel
 * instantiation (kw_trace.h): the dispatches joined to each instantiation,
 * their durations, the launch configurations seen with their own durations,
 * and the names that are ambiguous or not in the index; plus the bytes and
 * FLOP of a configuration's dispatch from the instantiation's IR facts.
 * `kwalk trace` prints all rows; `kwalk render --trace` looks one up. */
#include <stdlib.h>
#include <string.h>

#include "trace/kw_trace.h"

void kw_tstats_init(kw_tstats *s) {
    memset(s, 0, sizeof(*s));
    kw_arena_init(&s->arena);
    kw_symmap_init(&s->row_of_kernel);
}

void kw_tstats_free(kw_tstats *s) {
    kw_symmap_free(&s->row_of_kernel);
    kw_arena_free(&s->arena);
    memset(s, 0, sizeof(*s));
}

double kw_trace_median(const long long *v, size_t n) {
    if (!n)
        return 0;
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

kw_trow_group kw_trow_group_of(const kw_trow *r) {
    return r->k ? KW_TROW_JOINED : r->match.n > 1 ? KW_TROW_AMBIGUOUS : KW_TROW_UNKNOWN;
}

static int kw_cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* While gathering: rows by kernel symbol and by trace name, matches by name. */
typedef struct kw_tgather {
    kw_tstats *s;
    kw_tjoin *join;
    kw_symmap row_of_name;
    kw_symmap match_of_name;
    KW_ARRAY(kw_tmatch) matches;
} kw_tgather;

static kw_trow *kw_row_for(kw_tgather *g, const char *name, const kw_tmatch *m) {
    kw_tstats *s = g->s;
    size_t *at;
    kw_symmap *map = &g->row_of_name;
    const char *key = name;
    if (m->n == 1) {
        map = &s->row_of_kernel;
        key = g->join->kernels.v[m->cand[0]].symbol;
    }
    if ((at = kw_symmap_get(map, key)))
        return &s->rows.v[*at];
    kw_trow *r = KW_PUSH(&s->arena, s->rows);
    if (!r || kw_symmap_put(map, key, s->rows.n - 1))
        return NULL;
    if (m->n == 1)
        r->k = &g->join->kernels.v[m->cand[0]];
    else
        r->trace_name = name;
    r->match = *m;
    return r;
}

static bool kw_add_name(kw_arena *a, kw_trow *r, const char *name) {
    for (size_t i = 0; i < r->names.n; i++)
        if (!strcmp(r->names.v[i], name))
            return true;
    const char **p = KW_PUSH(a, r->names);
    if (!p)
        return false;
    *p = name;
    return true;
}

static bool kw_add_dispatch(kw_arena *a, kw_trow *r, const kw_dispatch *d) {
    long long dur = d->end_ns - d->start_ns;
    long long *p = KW_PUSH(a, r->dur);
    if (!p)
        return false;
    *p = dur;
    r->total += dur;
    kw_tcfg key;
    memset(&key, 0, sizeof key);
    key.known = d->has_config;
    if (d->has_config)
        for (int i = 0; i < 3; i++) {
            key.block[i] = d->block[i];
            key.grid_wg[i] = d->block[i] ? (d->grid[i] + d->block[i] - 1) / d->block[i] : 0;
            key.partial |= d->block[i] && d->grid[i] % d->block[i];
        }
    kw_tcfg *cfg = NULL;
    for (size_t i = 0; i < r->cfgs.n && !cfg; i++) {
        kw_tcfg *x = &r->cfgs.v[i];
        if (x->known == key.known && !memcmp(x->grid_wg, key.grid_wg, sizeof key.grid_wg) &&
            !memcmp(x->block, key.block, sizeof key.block))
            cfg = x;
    }
    if (!cfg) {
        cfg = KW_PUSH(a, r->cfgs);
        if (!cfg)
            return false;
        *cfg = key;
        cfg->arch = d->arch;
    }
    cfg->partial |= key.partial;
    if (cfg->arch != d->arch && (!cfg->arch || !d->arch || strcmp(cfg->arch, d->arch)))
        cfg->mixed_arch = true;
    p = KW_PUSH(a, cfg->dur);
    if (!p)
        return false;
    *p = dur;
    cfg->total += dur;
    return true;
}

static const char *kw_row_label(const kw_trow *r) {
    if (!r->k)
        return r->trace_name;
    return r->k->name ? r->k->name : r->k->symbol;
}

static int kw_row_cmp(const void *a, const void *b) {
    const kw_trow *x = a, *y = b;
    int gx = (int)kw_trow_group_of(x), gy = (int)kw_trow_group_of(y);
    if (gx != gy)
        return gx - gy;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    int s = strcmp(kw_row_label(x), kw_row_label(y));
    if (s || !x->k || !y->k)
        return s;
    return strcmp(x->k->symbol, y->k->symbol);
}

static kw_status kw_gather(kw_tgather *g, const kw_trace *t, kw_err *err) {
    kw_tstats *s = g->s;
    for (size_t i = 0; i < t->d.n; i++) {
        const kw_dispatch *d = &t->d.v[i];
        size_t *mi = kw_symmap_get(&g->match_of_name, d->name);
        const kw_tmatch *m;
        if (mi) {
            m = &g->matches.v[*mi];
        } else {
            kw_tmatch *nm = KW_PUSH(&s->arena, g->matches);
            if (!nm)
                return kw_fail(err, "out of memory");
            if (kw_tjoin_match(g->join, d->name, nm, err) != KW_OK)
                return KW_ERR;
            if (kw_symmap_put(&g->match_of_name, d->name, g->matches.n - 1))
                return kw_fail(err, "out of memory");
            m = nm;
        }
        kw_trow *r = kw_row_for(g, d->name, m);
        if (!r || !kw_add_name(&s->arena, r, d->name) || !kw_add_dispatch(&s->arena, r, d))
            return kw_fail(err, "out of memory");
    }
    return KW_OK;
}

kw_status kw_tstats_build(kw_tstats *s, const kw_trace *t, kw_tjoin *j, kw_err *err) {
    s->trace = t;
    s->join = j;
    kw_tgather g;
    memset(&g, 0, sizeof g);
    g.s = s;
    g.join = j;
    kw_symmap_init(&g.row_of_name);
    kw_symmap_init(&g.match_of_name);
    kw_status st = kw_gather(&g, t, err);
    kw_symmap_free(&g.row_of_name);
    kw_symmap_free(&g.match_of_name);
    if (st != KW_OK)
        return st;
    for (size_t i = 0; i < s->rows.n; i++) {
        kw_trow *r = &s->rows.v[i];
        qsort(r->dur.v, r->dur.n, sizeof(long long), kw_cmp_ll);
        for (size_t k = 0; k < r->cfgs.n; k++)
            qsort(r->cfgs.v[k].dur.v, r->cfgs.v[k].dur.n, sizeof(long long), kw_cmp_ll);
    }
    if (s->rows.n)
        qsort(s->rows.v, s->rows.n, sizeof(kw_trow), kw_row_cmp);
    /* the order changed: index the instantiations' rows again */
    kw_symmap_free(&s->row_of_kernel);
    kw_symmap_init(&s->row_of_kernel);
    for (size_t i = 0; i < s->rows.n; i++)
        if (s->rows.v[i].k && kw_symmap_put(&s->row_of_kernel, s->rows.v[i].k->symbol, i))
            return kw_fail(err, "out of memory");
    return KW_OK;
}

const kw_trow *kw_tstats_kernel(const kw_tstats *s, const char *symbol) {
    size_t *at = symbol ? kw_symmap_get(&s->row_of_kernel, symbol) : NULL;
    return at ? &s->rows.v[*at] : NULL;
}

bool kw_trow_has_candidate(const kw_tstats *s, const kw_trow *r, const char *symbol) {
    if (kw_trow_group_of(r) != KW_TROW_AMBIGUOUS || !symbol)
        return false;
    for (size_t i = 0; i < r->match.n; i++)
        if (!strcmp(s->join->kernels.v[r->match.cand[i]].symbol, symbol))
            return true;
    return false;
}

const char *kw_tcfg_arch(const kw_tcfg *cfg, const char *fallback) {
    return cfg->arch && !cfg->mixed_arch ? cfg->arch : fallback;
}

static void kw_times(const long long *v, size_t n, long long total, kw_perf_times *out) {
    out->n = n;
    out->total = total;
    out->median = kw_trace_median(v, n);
    out->min = n ? v[0] : 0;
    out->max = n ? v[n - 1] : 0;
}

void kw_tcfg_measured(const kw_tcfg *cfg, kw_perf_mcfg *out) {
    memset(out, 0, sizeof(*out));
    out->known = cfg->known;
    memcpy(out->grid_wg, cfg->grid_wg, sizeof out->grid_wg);
    memcpy(out->block, cfg->block, sizeof out->block);
    out->partial = cfg->partial;
    out->arch = cfg->arch;
    out->mixed_arch = cfg->mixed_arch;
    kw_times(cfg->dur.v, cfg->dur.n, cfg->total, &out->t);
}

bool kw_tstats_measured(const kw_tstats *s, const char *symbol, kw_arena *a,
                        kw_perf_measured *out) {
    memset(out, 0, sizeof(*out));
    out->path = s->trace->path;
    out->format = s->trace->format;
    out->dispatches = s->trace->d.n;
    size_t namb = 0;
    for (size_t i = 0; i < s->rows.n; i++)
        namb += kw_trow_has_candidate(s, &s->rows.v[i], symbol);
    kw_perf_mambiguous *amb = namb ? kw_arena_alloc(a, namb * sizeof(*amb)) : NULL;
    if (namb && !amb)
        return false;
    for (size_t i = 0, n = 0; i < s->rows.n; i++) {
        const kw_trow *r = &s->rows.v[i];
        if (kw_trow_has_candidate(s, r, symbol))
            amb[n++] = (kw_perf_mambiguous){r->trace_name, r->dur.n, r->match.n,
                                            kw_match_kind_name(r->match.kind)};
    }
    out->ambiguous = amb;
    out->nambiguous = namb;
    const kw_trow *r = kw_tstats_kernel(s, symbol);
    if (!r)
        return true;
    out->found = true;
    out->k = r->k ? r->k->k : NULL;
    out->names = r->names.v;
    out->nnames = r->names.n;
    out->match = kw_match_kind_name(r->match.kind);
    kw_times(r->dur.v, r->dur.n, r->total, &out->t);
    kw_perf_mcfg *cfgs = r->cfgs.n ? kw_arena_alloc(a, r->cfgs.n * sizeof(*cfgs)) : NULL;
    if (r->cfgs.n && !cfgs)
        return false;
    for (size_t i = 0; i < r->cfgs.n; i++)
        kw_tcfg_measured(&r->cfgs.v[i], &cfgs[i]);
    out->cfgs = cfgs;
    out->ncfgs = r->cfgs.n;
    return true;
}

kw_status kw_trace_load(kw_trace_loaded *t, const char *path, const kw_index *ix,
                        const char *index_db, kw_err *err) {
    memset(t, 0, sizeof(*t));
    kw_trace_init(&t->trace);
    kw_tstats_init(&t->stats);
    if (kw_trace_read_file(&t->trace, path, index_db, err) != KW_OK ||
        kw_tjoin_init(&t->join, ix, err) != KW_OK)
        return KW_ERR;
    return kw_tstats_build(&t->stats, &t->trace, &t->join, err);
}

void kw_trace_loaded_free(kw_trace_loaded *t) {
    kw_tstats_free(&t->stats);
    kw_tjoin_free(&t->join);
    kw_trace_free(&t->trace);
}

static bool kw_tstats_measured_of(const void *ctx, const char *symbol, kw_arena *a,
                                  kw_perf_measured *out) {
    return kw_tstats_measured(ctx, symbol, a, out);
}

kw_perf_source kw_tstats_source(const kw_tstats *s) {
    return (kw_perf_source){kw_tstats_measured_of, s};
}
