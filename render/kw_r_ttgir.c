/* kw_r_ttgir.c: a Triton page's reading of the TTGIR's layouts and tt.dot
 * ops (docs/triton.md): each layout explained from its parameters (a blocked
 * layout's tile, an MFMA layout's instruction shape and wave arrangement, a
 * shared layout's swizzle), the tt.dot ops with their M x N x K, the MFMA
 * instructions one execution needs and its FLOP (2 x M x N x K), and for
 * section 4 the FLOP and operand bytes of one execution against the matrix
 * peak of annotations/hw/amdgpu-peaks.txt. Only what the parameters say;
 * nothing is derived where a shape does not divide. */
#include <stdlib.h>
#include <string.h>

#include "model/kw_perf.h"
#include "render/kw_md.h"
#include "render/kw_render.h"

size_t kw_r_ttgir_ints(const char *params, const char *key, long long *out) {
    size_t kn = strlen(key);
    for (const char *p = params; p && (p = strstr(p, key)); p += kn) {
        if ((p != params && p[-1] != ' ') || strncmp(p + kn, " = [", 4))
            continue;
        const char *q = p + kn + 4;
        size_t n = 0;
        while (n < KW_R_TTGIR_MAXDIM) {
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

const kw_triton_layout *kw_r_ttgir_layout(const kw_triton *t, const char *name) {
    for (size_t i = 0; name && i < t->layouts.n; i++)
        if (t->layouts.v[i].name && !strcmp(t->layouts.v[i].name, name))
            return &t->layouts.v[i];
    return NULL;
}

size_t kw_r_ttgir_blocked(const kw_triton_layout *l, long long *tile, long long *spt,
                          long long *order) {
    if (!l || !l->kind || strcmp(l->kind, "blocked"))
        return 0;
    long long tpw[KW_R_TTGIR_MAXDIM], wpc[KW_R_TTGIR_MAXDIM];
    size_t n = kw_r_ttgir_ints(l->params, "sizePerThread", spt);
    if (!n || kw_r_ttgir_ints(l->params, "threadsPerWarp", tpw) != n ||
        kw_r_ttgir_ints(l->params, "warpsPerCTA", wpc) != n ||
        kw_r_ttgir_ints(l->params, "order", order) != n)
        return 0;
    for (size_t d = 0; d < n; d++) {
        if (spt[d] < 1 || tpw[d] < 1 || wpc[d] < 1 || order[d] < 0 || order[d] >= (long long)n)
            return 0;
        tile[d] = spt[d] * tpw[d] * wpc[d];
    }
    return n;
}

bool kw_r_ttgir_mfma(const kw_triton_layout *l, kw_r_mfma *m) {
    memset(m, 0, sizeof *m);
    if (!l || !l->kind || strcmp(l->kind, "amd_mfma"))
        return false;
    long long w[KW_R_TTGIR_MAXDIM];
    size_t nw = kw_r_ttgir_ints(l->params, "warpsPerCTA", w);
    if (kw_r_ttgir_ints(l->params, "instrShape", m->shape) != 3 || nw != 2)
        return false;
    m->warps[0] = w[0], m->warps[1] = w[1];
    for (int d = 0; d < 3; d++)
        if (m->shape[d] < 1)
            return false;
    return w[0] > 0 && w[1] > 0;
}

static void kw_ttgir_dims(kw_buf *o, const long long *v, size_t n) {
    for (size_t d = 0; d < n; d++)
        kw_buf_printf(o, "%s%lld", d ? " × " : "", v[d]);
}

static void kw_ttgir_bullet(kw_buf *o, const kw_triton_layout *l) {
    kw_buf_puts(o, "- ");
    kw_md_code(o, l->name, false);
}

static bool kw_ttgir_note_blocked(kw_buf *o, const kw_triton_layout *l) {
    long long tile[KW_R_TTGIR_MAXDIM], spt[KW_R_TTGIR_MAXDIM], order[KW_R_TTGIR_MAXDIM];
    size_t n = kw_r_ttgir_blocked(l, tile, spt, order);
    if (!n)
        return false;
    kw_ttgir_bullet(o, l);
    kw_buf_puts(o, ": one tile of the program (sizePerThread × threadsPerWarp × warpsPerCTA) is ");
    kw_ttgir_dims(o, tile, n);
    kw_buf_printf(o,
                  " elements; each thread holds %lld consecutive element%s along dim %lld "
                  "(`order[0]`) of a tile.\n",
                  spt[order[0]], spt[order[0]] == 1 ? "" : "s", order[0]);
    return true;
}

static bool kw_ttgir_note_mfma(kw_buf *o, const kw_triton_layout *l) {
    kw_r_mfma m;
    if (!kw_r_ttgir_mfma(l, &m))
        return false;
    kw_ttgir_bullet(o, l);
    kw_buf_printf(o,
                  ": an MFMA result layout; each matrix instruction computes a %lld × %lld block "
                  "of the result from %lld × %lld and %lld × %lld operand blocks (`instrShape` "
                  "M × N × K = %lld × %lld × %lld); the program's waves are arranged %lld × %lld "
                  "(`warpsPerCTA`): one instruction block each, together a %lld × %lld tile of "
                  "the result, repeated over a larger tensor.\n",
                  m.shape[0], m.shape[1], m.shape[0], m.shape[2], m.shape[2], m.shape[1],
                  m.shape[0], m.shape[1], m.shape[2], m.warps[0], m.warps[1],
                  m.shape[0] * m.warps[0], m.shape[1] * m.warps[1]);
    return true;
}

static bool kw_ttgir_note_shared(kw_buf *o, const kw_triton_layout *l) {
    long long vec, per, max, order[KW_R_TTGIR_MAXDIM];
    if (!l->kind || strcmp(l->kind, "swizzled_shared") || !kw_ttgir_int(l->params, "vec", &vec) ||
        !kw_ttgir_int(l->params, "perPhase", &per) || !kw_ttgir_int(l->params, "maxPhase", &max) ||
        kw_r_ttgir_ints(l->params, "order", order) < 1)
        return false;
    kw_ttgir_bullet(o, l);
    if (max <= 1) {
        kw_buf_printf(o,
                      ": an LDS (shared memory) layout, not swizzled (`maxPhase = %lld`): rows "
                      "are stored as they are, dim %lld fastest.\n",
                      max, order[0]);
        return true;
    }
    kw_buf_printf(o,
                  ": an LDS (shared memory) layout, dim %lld fastest (`order[0]`), swizzled: "
                  "a row is stored in groups of %lld elements (`vec`), and row r's group index "
                  "is XORed with (r / %lld) mod %lld (`perPhase`, `maxPhase`), so the rows of "
                  "one column fall in different LDS banks.\n",
                  order[0], vec, per, max);
    return true;
}

void kw_r_ttgir_layout_notes(kw_render *r, const kw_triton *t) {
    kw_buf *o = r->out;
    bool listed = false;
    for (size_t i = 0; i < t->layouts.n; i++) {
        const kw_triton_layout *l = &t->layouts.v[i];
        /* one line where the parameters say more than the table */
        if (kw_ttgir_note_blocked(o, l) || kw_ttgir_note_mfma(o, l) || kw_ttgir_note_shared(o, l))
            listed = true;
    }
    if (listed)
        kw_buf_puts(o, "\n");
}

bool kw_r_ttgir_dot(const kw_triton *t, const kw_triton_memop *m, kw_r_dot *d) {
    memset(d, 0, sizeof *d);
    if (!m->op || strcmp(m->op, "tt.dot") || m->shape.n != 2 || m->dot_k < 1 || m->shape.v[0] < 1 ||
        m->shape.v[1] < 1)
        return false;
    d->m = m->shape.v[0], d->n = m->shape.v[1], d->k = m->dot_k;
    d->flop = 2 * d->m * d->n * d->k;
    d->has_mfma = kw_r_ttgir_mfma(kw_r_ttgir_layout(t, m->layout), &d->mfma);
    if (d->has_mfma && d->m % d->mfma.shape[0] == 0 && d->n % d->mfma.shape[1] == 0 &&
        d->k % d->mfma.shape[2] == 0) {
        d->per_program =
            d->m / d->mfma.shape[0] * (d->n / d->mfma.shape[1]) * (d->k / d->mfma.shape[2]);
        long long waves = d->mfma.warps[0] * d->mfma.warps[1];
        if (d->per_program % waves == 0)
            d->per_wave = d->per_program / waves;
    }
    return true;
}

/* The ISA's MFMA count of arch a (section 5's classes), -1 when not known. */
static long long kw_ttgir_isa_mfma(const kw_rarch *a) {
    return a && a->facts ? a->facts->classes.mfma : -1;
}

void kw_r_ttgir_dots(kw_render *r, const kw_triton *t) {
    kw_buf *o = r->out;
    size_t n = 0;
    for (size_t i = 0; i < t->memory_ops.n; i++) {
        kw_r_dot d;
        if (!kw_r_ttgir_dot(t, &t->memory_ops.v[i], &d))
            continue;
        if (!n++) {
            KW_R_HEADING(r, 3, "`tl.dot` (TTGIR `tt.dot`)");
            static const char *const head[] = {"Python line",
                                               "M × N × K",
                                               "Operands → result",
                                               "Matrix instruction",
                                               "Instructions per execution",
                                               "FLOP per execution"};
            kw_r_table(r, 6, head);
        }
        const kw_triton_memop *m = &t->memory_ops.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        if (m->location.file)
            kw_r_loc(r, m->location.file, m->location.line);
        else
            kw_buf_puts(o, "-");
        kw_r_cell(r);
        kw_buf_printf(o, "%lld × %lld × %lld", d.m, d.n, d.k);
        kw_r_cell(r);
        kw_md_code(o, m->dot_element ? m->dot_element : "?", r->in);
        kw_buf_puts(o, " → ");
        kw_md_code(o, m->element ? m->element : "?", r->in);
        kw_r_cell(r);
        if (d.has_mfma)
            kw_buf_printf(o, "MFMA %lld × %lld × %lld (", d.mfma.shape[0], d.mfma.shape[1],
                          d.mfma.shape[2]);
        else
            kw_buf_puts(o, "no MFMA layout (");
        kw_md_code(o, m->layout ? m->layout : "?", r->in);
        kw_buf_puts(o, ")");
        kw_r_cell(r);
        if (d.per_program)
            kw_buf_printf(o, "%lld per program", d.per_program);
        else
            kw_buf_puts(o, "-");
        if (d.per_wave)
            kw_buf_printf(o, ", %lld per wave", d.per_wave);
        kw_r_cell(r);
        kw_buf_printf(o, "%lld", d.flop);
    }
    if (!n)
        return;
    kw_r_table_end(r);
    kw_buf_putc(o, '\n');
    KW_R_LIT(r, "M × N from the result's type, K from the first operand's; FLOP = 2 × M × "
                "N × K per execution of the op (a `tl.dot` inside a `for` runs once per "
                "iteration; Triton's pipelining may write one `tl.dot` as two ops, the loop's "
                "and the last iteration's). Instructions per execution: (M / m) × (N / n) × "
                "(K / k) for the instruction shape m × n × k, shared by the waves of "
                "`warpsPerCTA`.\n\n");
    for (size_t a = 0; a < r->archs.n; a++) {
        long long isa = kw_ttgir_isa_mfma(&r->archs.v[a]);
        if (isa >= 0)
            kw_buf_printf(o,
                          "The %s listing (section 5) holds %lld MFMA instruction%s in all "
                          "(every copy the compiler made of each op).\n",
                          r->archs.v[a].arch, isa, isa == 1 ? "" : "s");
    }
    kw_buf_putc(o, '\n');
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
static double kw_ttgir_peak(const kw_gpu *g, const char *e, const char **name) {
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

void kw_r_ttgir_dot_work(kw_render *r, const kw_triton *t) {
    kw_buf *o = r->out;
    for (size_t i = 0; i < t->memory_ops.n; i++) {
        kw_r_dot d;
        const kw_triton_memop *m = &t->memory_ops.v[i];
        if (!kw_r_ttgir_dot(t, m, &d))
            continue;
        kw_buf_puts(o, "- `tl.dot` at ");
        if (m->location.file)
            kw_r_loc(r, m->location.file, m->location.line);
        else
            kw_buf_puts(o, "(no line)");
        kw_buf_printf(o, ": 2 × %lld × %lld × %lld = %lld FLOP per execution per program", d.m, d.n,
                      d.k, d.flop);
        int eb = kw_ttgir_elem_bytes(m->dot_element);
        double bytes = eb ? (double)eb * (double)(d.m * d.k + d.k * d.n) : 0;
        if (bytes > 0) {
            kw_buf_printf(
                o, "; its operands are %lld × %lld + %lld × %lld elements of %d byte%s = ", d.m,
                d.k, d.k, d.n, eb, eb == 1 ? "" : "s");
            kw_num_bytes(o, bytes);
            kw_buf_printf(o, ", %.3g FLOP per operand byte", (double)d.flop / bytes);
        }
        kw_buf_puts(o, ".\n");
        for (size_t a = 0; a < r->archs.n && bytes > 0; a++) {
            const kw_gpu *g = kw_perf_gpu(r->gpus, r->o->gpu, r->archs.v[a].arch);
            const char *pn;
            double peak = kw_ttgir_peak(g, m->dot_element, &pn);
            if (peak <= 0 || g->hbm_tbs <= 0)
                continue;
            double ridge = peak / g->hbm_tbs, ai = (double)d.flop / bytes;
            kw_buf_printf(o,
                          "  - %s %s: %.1f TFLOP/s %s peak over %.1f TB/s HBM = a ridge of %.1f "
                          "FLOP/byte; %.3g FLOP per operand byte is %s it (the operands as one "
                          "program loads them, before any cache reuse).\n",
                          r->archs.v[a].arch, g->product, peak, pn, g->hbm_tbs, ridge, ai,
                          ai < ridge ? "below" : "at or above");
        }
    }
}
