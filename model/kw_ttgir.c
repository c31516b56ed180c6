/* kw_ttgir.c: a Triton page's TTGIR reading (kw_ttgir.h): the layouts'
 * parameters parsed from their attribute text, each memory op's elements per
 * thread, each tl.dot's tt.dot ops merged (pipelining's copies), its M x N x K,
 * FLOP per execution and executions per program, MFMA instruction counts and
 * its work against the matrix peaks of the archs shown. */
#include "model/kw_ttgir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_expr.h"
#include "model/kw_perf.h"

size_t kw_ttgir_ints(const char *params, const char *key, long long *out) {
    size_t kn = strlen(key);
    for (const char *p = params; p && (p = strstr(p, key)); p += kn) {
        if ((p != params && p[-1] != ' ') || strncmp(p + kn, " = [", 4))
            continue;
        const char *q = p + kn + 4;
        size_t n = 0;
        while (n < KW_TTGIR_MAXDIM) {
            char *end;
            long long v = strtoll(q, &end, 10);
            if (end == q)
                return 0;
            out[n++] = v;
            if (*end == ']')
                return n;
            if (end[0] != ',' || end[1] != ' ')
                return 0;
            q = end + 2;
        }
        return 0;
    }
    return 0;
}

/* The integer of `key = V` in params; false when absent or not an integer. */
static bool kw_ttgir_int(const char *params, const char *key, long long *out) {
    size_t kn = strlen(key);
    for (const char *p = params; p && (p = strstr(p, key)); p += kn) {
        if ((p != params && p[-1] != ' ') || strncmp(p + kn, " = ", 3))
            continue;
        char *end;
        *out = strtoll(p + kn + 3, &end, 10);
        return end != p + kn + 3 && (*end == ',' || *end == '\0');
    }
    return false;
}

/* The layout named name ("#blocked") of t, or NULL. */
static const kw_triton_layout *kw_ttgir_layout_named(const kw_triton *t, const char *name) {
    for (size_t i = 0; name && i < t->layouts.n; i++)
        if (t->layouts.v[i].name && !strcmp(t->layouts.v[i].name, name))
            return &t->layouts.v[i];
    return NULL;
}

/* A blocked layout's tile per dim, its sizePerThread and order; the rank, 0
 * when l is not a blocked layout with all three lists of one rank. */
static size_t kw_ttgir_blocked(const kw_triton_layout *l, long long *tile, long long *spt,
                               long long *order) {
    if (!l || !l->kind || strcmp(l->kind, "blocked"))
        return 0;
    long long tpw[KW_TTGIR_MAXDIM], wpc[KW_TTGIR_MAXDIM];
    size_t n = kw_ttgir_ints(l->params, "sizePerThread", spt);
    if (!n || kw_ttgir_ints(l->params, "threadsPerWarp", tpw) != n ||
        kw_ttgir_ints(l->params, "warpsPerCTA", wpc) != n ||
        kw_ttgir_ints(l->params, "order", order) != n)
        return 0;
    for (size_t d = 0; d < n; d++) {
        if (spt[d] < 1 || tpw[d] < 1 || wpc[d] < 1 || order[d] < 0 || order[d] >= (long long)n)
            return 0;
        tile[d] = spt[d] * tpw[d] * wpc[d];
    }
    return n;
}

static bool kw_ttgir_mfma_of(const kw_triton_layout *l, kw_ttgir_mfma *m) {
    memset(m, 0, sizeof *m);
    if (!l || !l->kind || strcmp(l->kind, "amd_mfma"))
        return false;
    long long w[KW_TTGIR_MAXDIM];
    size_t nw = kw_ttgir_ints(l->params, "warpsPerCTA", w);
    if (kw_ttgir_ints(l->params, "instrShape", m->shape) != 3 || nw != 2)
        return false;
    m->warps[0] = w[0], m->warps[1] = w[1];
    for (int d = 0; d < 3; d++)
        if (m->shape[d] < 1)
            return false;
    return w[0] > 0 && w[1] > 0;
}

static bool kw_ttgir_shared(const kw_triton_layout *l, kw_ttgir_layout *x) {
    long long order[KW_TTGIR_MAXDIM];
    if (!l->kind || strcmp(l->kind, "swizzled_shared") ||
        !kw_ttgir_int(l->params, "vec", &x->vec) ||
        !kw_ttgir_int(l->params, "perPhase", &x->per_phase) ||
        !kw_ttgir_int(l->params, "maxPhase", &x->max_phase) ||
        kw_ttgir_ints(l->params, "order", order) < 1)
        return false;
    x->order[0] = order[0];
    return true;
}

static void kw_ttgir_layout_read(const kw_triton_layout *l, kw_ttgir_layout *x) {
    memset(x, 0, sizeof *x);
    x->l = l;
    if ((x->rank = kw_ttgir_blocked(l, x->tile, x->spt, x->order)) != 0)
        x->kind = KW_TTGIR_BLOCKED;
    else if (kw_ttgir_mfma_of(l, &x->mfma))
        x->kind = KW_TTGIR_MFMA;
    else if (kw_ttgir_shared(l, x))
        x->kind = KW_TTGIR_SHARED;
}

static int kw_ttgir_elem_bytes(const char *e);

/* Where the lanes of a wave fall in memory op m's tensor under a blocked
 * layout l, when the wave's tile (sizePerThread x threadsPerWarp) fits in
 * every dimension: sizePerThread[order[0]] elements between neighbouring
 * lanes along order[0], threadsPerWarp[order[0]] lanes that way. */
static void kw_ttgir_lanes(kw_ttgir_per_thread *pt, const kw_triton_layout *l,
                           const kw_triton_memop *m, const long long *spt, const long long *order,
                           size_t n) {
    long long tpw[KW_TTGIR_MAXDIM];
    if (kw_ttgir_ints(l->params, "threadsPerWarp", tpw) != n)
        return;
    for (size_t d = 0; d < n; d++) {
        pt->wave[d] = spt[d] * tpw[d];
        if (m->shape.v[d] < pt->wave[d])
            return; /* lanes would wrap around the tensor: no one distance */
    }
    long long o0 = order[0];
    pt->lanes = true;
    pt->rank = n;
    pt->lane_dim = o0;
    pt->lane_elems = spt[o0];
    pt->lanes_along = tpw[o0];
    pt->lane_bytes = spt[o0] * kw_ttgir_elem_bytes(m->element);
}

/* The elements a thread holds of memory op m under a blocked layout, when
 * every dimension is a whole number of tiles, and where its wave's lanes
 * fall. */
static kw_ttgir_per_thread kw_ttgir_per_thread_of(const kw_triton *t, const kw_triton_memop *m) {
    kw_ttgir_per_thread pt;
    memset(&pt, 0, sizeof pt);
    long long tile[KW_TTGIR_MAXDIM], spt[KW_TTGIR_MAXDIM], order[KW_TTGIR_MAXDIM];
    const kw_triton_layout *l = kw_ttgir_layout_named(t, m->layout);
    size_t n = kw_ttgir_blocked(l, tile, spt, order);
    if (!n || n != m->shape.n)
        return pt;
    kw_ttgir_lanes(&pt, l, m, spt, order, n);
    long long e = 1;
    for (size_t d = 0; d < n; d++) {
        if (m->shape.v[d] < tile[d] || m->shape.v[d] % tile[d])
            return pt;
        e *= spt[d] * (m->shape.v[d] / tile[d]);
    }
    pt.known = true;
    pt.elems = e;
    pt.vec = spt[order[0]];
    pt.vec_dim = order[0];
    return pt;
}

/* Bytes of one element of an MLIR element type; 0 when not known. */
static int kw_ttgir_elem_bytes(const char *e) {
    if (!e)
        return 0;
    if (!strcmp(e, "f16") || !strcmp(e, "bf16") || !strcmp(e, "i16"))
        return 2;
    if (!strcmp(e, "f32") || !strcmp(e, "i32"))
        return 4;
    if (!strncmp(e, "f8", 2) || !strcmp(e, "i8"))
        return 1;
    if (!strcmp(e, "f64") || !strcmp(e, "i64"))
        return 8;
    return 0;
}

/* The matrix peak of g for operands of element e (TFLOP/s, 0 when not in
 * the table) and its name. */
static double kw_ttgir_peak_of(const kw_gpu *g, const char *e, const char **name) {
    *name = NULL;
    if (!g || !e)
        return 0;
    if (!strcmp(e, "f16"))
        return *name = "FP16 matrix", g->fp16_tflops;
    if (!strcmp(e, "bf16"))
        return *name = "BF16 matrix", g->bf16_tflops;
    if (!strncmp(e, "f8", 2))
        return *name = "FP8 matrix", g->fp8_tflops;
    if (!strcmp(e, "f32"))
        return *name = "FP32 matrix", g->fp32_matrix_tflops;
    return 0;
}

/* tt.dot op m into d; false when m is not one with a 2-D result and K. */
static bool kw_ttgir_dot_of(const kw_triton *t, const kw_triton_memop *m, kw_ttgir_dot *d) {
    memset(d, 0, sizeof *d);
    if (!m->op || strcmp(m->op, "tt.dot") || m->shape.n != 2 || m->dot_k < 1 || m->shape.v[0] < 1 ||
        m->shape.v[1] < 1)
        return false;
    d->op = m;
    d->m = m->shape.v[0], d->n = m->shape.v[1], d->k = m->dot_k;
    d->flop = 2 * d->m * d->n * d->k;
    d->has_mfma = kw_ttgir_mfma_of(kw_ttgir_layout_named(t, m->layout), &d->mfma);
    if (d->has_mfma && d->m % d->mfma.shape[0] == 0 && d->n % d->mfma.shape[1] == 0 &&
        d->k % d->mfma.shape[2] == 0) {
        d->per_program =
            d->m / d->mfma.shape[0] * (d->n / d->mfma.shape[1]) * (d->k / d->mfma.shape[2]);
        long long waves = d->mfma.warps[0] * d->mfma.warps[1];
        if (d->per_program % waves == 0)
            d->per_wave = d->per_program / waves;
    }
    d->elem_bytes = kw_ttgir_elem_bytes(m->dot_element);
    d->bytes = d->elem_bytes ? (double)d->elem_bytes * (double)(d->m * d->k + d->k * d->n) : 0;
    return true;
}

/* Are a and b copies of one tl.dot: tt.dot ops of one Python position
 * (file, line, column), shape and layout? */
static bool kw_ttgir_same_dot(const kw_triton_memop *a, const kw_triton_memop *b) {
    if (!a->location.file || !b->location.file || strcmp(a->location.file, b->location.file) ||
        a->location.line != b->location.line || a->location.column != b->location.column ||
        a->dot_k != b->dot_k || a->shape.n != b->shape.n || !a->layout != !b->layout ||
        (a->layout && strcmp(a->layout, b->layout)))
        return false;
    for (size_t d = 0; d < a->shape.n; d++)
        if (a->shape.v[d] != b->shape.v[d])
            return false;
    return true;
}

/* d's executions per program: the sum over its copies of each one's loop
 * trip count, 1 outside a loop. Pipelining with S stages leaves the loop
 * S - 1 iterations short and writes them after it: a loop count ending in
 * " - S-1" plus S - 1 copies outside is written as the source loop's count. */
static kw_status kw_ttgir_execs(kw_ttgir_dot *d, const kw_triton *t, kw_arena *a, kw_err *err) {
    const char *sum = NULL;
    long long outside = 0;
    size_t inside = 0;
    d->execs_n = d->flop_all = d->execs_shape = -1;
    for (size_t i = 0; i < t->memory_ops.n; i++) {
        const kw_triton_memop *m = &t->memory_ops.v[i];
        if (m != d->op && !kw_ttgir_same_dot(d->op, m))
            continue;
        if (m->loops <= 0) {
            outside++;
            continue;
        }
        d->in_loop = true;
        if (!m->trips)
            return KW_OK; /* a trip count the TTGIR does not give */
        inside++;
        sum = sum ? kw_arena_printf(a, "%s + %s", sum, m->trips) : m->trips;
        if (!sum)
            return kw_fail(err, "out of memory");
    }
    char tail[32];
    snprintf(tail, sizeof tail, " - %lld", outside);
    size_t sl = sum ? strlen(sum) : 0, tl = strlen(tail);
    if (inside == 1 && outside > 0 && sl > tl && !strcmp(sum + sl - tl, tail))
        d->execs = kw_arena_strndup(a, sum, sl - tl);
    else if (!sum)
        d->execs = kw_arena_printf(a, "%lld", outside);
    else if (outside)
        d->execs = kw_arena_printf(a, "%s + %lld", sum, outside);
    else
        d->execs = sum;
    if (!d->execs)
        return kw_fail(err, "out of memory");
    kw_shape none;
    memset(&none, 0, sizeof none);
    kw_value v;
    kw_err ignore;
    if (kw_expr_eval(d->execs, &none, KW_EXPR_C, &v, &ignore) == KW_OK && v.dims == 1 && v.is_int)
        d->execs_n = v.v[0] > 0 ? (long long)v.v[0] : 0;
    d->flop_all = d->execs_n >= 0 ? d->flop * d->execs_n : -1;
    d->flop_all_expr = kw_arena_printf(a, "%lld * (%s)", d->flop, d->execs);
    if (!d->flop_all_expr)
        return kw_fail(err, "out of memory");
    return KW_OK;
}

/* The dot's work against the peak of each arch's GPU that has one. */
static kw_status kw_ttgir_peaks(kw_ttgir_dot *d, const kw_page_arch *archs, size_t narchs,
                                const kw_gpus *gpus, const char *gpu, kw_arena *a, kw_err *err) {
    for (size_t i = 0; i < narchs && d->bytes > 0; i++) {
        const kw_gpu *g = gpus ? kw_perf_gpu(gpus, gpu, archs[i].arch) : NULL;
        const char *pn;
        double peak = kw_ttgir_peak_of(g, d->op->dot_element, &pn);
        if (peak <= 0 || g->hbm_tbs <= 0)
            continue;
        kw_ttgir_peak *p = KW_PUSH(a, d->peaks);
        if (!p)
            return kw_fail(err, "out of memory");
        double ridge = peak / g->hbm_tbs, ai = (double)d->flop / d->bytes;
        *p = (kw_ttgir_peak){archs[i].arch, g, peak, pn, ridge, ai, ai < ridge};
    }
    return KW_OK;
}

void kw_ttgir_shape(kw_ttgir *g, const kw_shape *shape) {
    for (size_t i = 0; shape && i < g->dots.n; i++) {
        kw_ttgir_dot *d = &g->dots.v[i];
        kw_value v;
        kw_err ignore;
        if (d->execs && d->execs_n < 0 &&
            kw_expr_eval(d->execs, shape, KW_EXPR_C, &v, &ignore) == KW_OK && v.dims == 1 &&
            v.is_int)
            d->execs_shape = v.v[0] > 0 ? (long long)v.v[0] : 0;
    }
}

kw_status kw_ttgir_build(kw_ttgir *g, const kw_triton *t, const kw_page_arch *archs, size_t narchs,
                         const kw_gpus *gpus, const char *gpu, kw_arena *a, kw_err *err) {
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < t->layouts.n; i++) {
        kw_ttgir_layout *x = KW_PUSH(a, g->layouts);
        if (!x)
            return kw_fail(err, "out of memory");
        kw_ttgir_layout_read(&t->layouts.v[i], x);
    }
    for (size_t i = 0; i < t->memory_ops.n; i++) {
        kw_ttgir_per_thread *pt = KW_PUSH(a, g->per_thread);
        if (!pt)
            return kw_fail(err, "out of memory");
        *pt = kw_ttgir_per_thread_of(t, &t->memory_ops.v[i]);
        kw_ttgir_dot d;
        if (!kw_ttgir_dot_of(t, &t->memory_ops.v[i], &d))
            continue;
        bool copy = false; /* of a tl.dot listed already */
        for (size_t j = 0; j < g->dots.n && !copy; j++)
            if (kw_ttgir_same_dot(g->dots.v[j].op, d.op))
                copy = true, g->dots.v[j].copies++;
        if (copy)
            continue;
        kw_ttgir_dot *x = KW_PUSH(a, g->dots);
        if (!x)
            return kw_fail(err, "out of memory");
        *x = d;
        x->copies = 1;
        if (kw_ttgir_execs(x, t, a, err) != KW_OK ||
            kw_ttgir_peaks(x, archs, narchs, gpus, gpu, a, err) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}
