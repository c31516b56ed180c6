/* kw_r_ttgir.c: a Triton page's TTGIR lines (docs/triton.md), written from
 * the page model's reading of it (model/kw_ttgir.h, r->page.ttgir): each
 * layout explained from its parameters (a blocked layout's tile, an MFMA
 * layout's instruction shape and wave arrangement, a shared layout's
 * swizzle), the tt.dot ops with their M x N x K, the MFMA instructions one
 * execution needs and its FLOP, and for section 4 the FLOP and operand bytes
 * of one execution against the matrix peak of the archs' GPUs. Nothing is
 * parsed or computed here. */
#include <string.h>

#include "model/kw_ttgir.h"
#include "render/kw_md.h"
#include "render/kw_render.h"

static void kw_ttgir_dims(kw_render *r, const long long *v, size_t n) {
    for (size_t d = 0; d < n; d++)
        kw_r_tf(r, "%s%lld", d ? " × " : "", v[d]);
}

/* An item of the open list (kw_r_list) naming the layout. */
static void kw_ttgir_bullet(kw_render *r, const kw_triton_layout *l) {
    kw_r_item(r, 0);
    kw_r_c(r, l->name);
}

static void kw_ttgir_note_blocked(kw_render *r, const kw_ttgir_layout *x) {
    kw_ttgir_bullet(r, x->l);
    kw_r_t(r, ": one tile of the program (sizePerThread × threadsPerWarp × warpsPerCTA) is ");
    kw_ttgir_dims(r, x->tile, x->rank);
    long long o0 = x->order[0];
    kw_r_tf(r,
            " elements; each thread holds %lld consecutive element%s along dim %lld "
            "(`order[0]`) of a tile.",
            x->spt[o0], x->spt[o0] == 1 ? "" : "s", o0);
}

static void kw_ttgir_note_mfma(kw_render *r, const kw_ttgir_layout *x) {
    const kw_ttgir_mfma m = x->mfma;
    kw_ttgir_bullet(r, x->l);
    kw_r_tf(r,
            ": an MFMA result layout; each matrix instruction computes a %lld × %lld block "
            "of the result from %lld × %lld and %lld × %lld operand blocks (`instrShape` "
            "M × N × K = %lld × %lld × %lld); the program's waves are arranged %lld × %lld "
            "(`warpsPerCTA`): one instruction block each, together a %lld × %lld tile of "
            "the result, repeated over a larger tensor.",
            m.shape[0], m.shape[1], m.shape[0], m.shape[2], m.shape[2], m.shape[1], m.shape[0],
            m.shape[1], m.shape[2], m.warps[0], m.warps[1], m.shape[0] * m.warps[0],
            m.shape[1] * m.warps[1]);
}

static void kw_ttgir_note_shared(kw_render *r, const kw_ttgir_layout *x) {
    kw_ttgir_bullet(r, x->l);
    if (x->max_phase <= 1) {
        kw_r_tf(r,
                ": an LDS (shared memory) layout, not swizzled (`maxPhase = %lld`): rows "
                "are stored as they are, dim %lld fastest.",
                x->max_phase, x->order[0]);
        return;
    }
    kw_r_tf(r,
            ": an LDS (shared memory) layout, dim %lld fastest (`order[0]`), swizzled: "
            "a row is stored in groups of %lld elements (`vec`), and row r's group index "
            "is XORed with (r / %lld) mod %lld (`perPhase`, `maxPhase`), so the rows of "
            "one column fall in different LDS banks.",
            x->order[0], x->vec, x->per_phase, x->max_phase);
}

void kw_r_ttgir_layout_notes(kw_render *r) {
    const kw_ttgir *g = r->page.ttgir;
    bool listed = false;
    kw_r_list(r);
    for (size_t i = 0; g && i < g->layouts.n; i++) {
        /* one line where the parameters say more than the table */
        const kw_ttgir_layout *x = &g->layouts.v[i];
        if (x->kind == KW_TTGIR_BLOCKED)
            kw_ttgir_note_blocked(r, x);
        else if (x->kind == KW_TTGIR_MFMA)
            kw_ttgir_note_mfma(r, x);
        else if (x->kind == KW_TTGIR_SHARED)
            kw_ttgir_note_shared(r, x);
        listed |= x->kind != KW_TTGIR_OTHER;
    }
    kw_r_list_end(r);
    if (listed)
        kw_r_gap(r);
}

/* The ISA's MFMA count of arch a (section 5's classes), -1 when not known. */
static long long kw_ttgir_isa_mfma(const kw_rarch *a) {
    return a && a->facts ? a->facts->classes.mfma : -1;
}

void kw_r_ttgir_dots(kw_render *r) {
    kw_buf *o = r->out;
    const kw_ttgir *g = r->page.ttgir;
    size_t n = g ? g->dots.n : 0;
    if (!n)
        return;
    KW_R_HEADING(r, 3, "`tl.dot` (TTGIR `tt.dot`)");
    static const char *const head[] = {"Python line",
                                       "M × N × K",
                                       "Operands → result",
                                       "Matrix instruction",
                                       "Instructions per execution",
                                       "FLOP per execution"};
    kw_r_table(r, 6, head);
    for (size_t i = 0; i < n; i++) {
        const kw_ttgir_dot d = g->dots.v[i];
        const kw_triton_memop *m = d.op;
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
    kw_r_table_end(r);
    kw_r_gap(r);
    KW_R_LIT(r, "M × N from the result's type, K from the first operand's; FLOP = 2 × M × "
                "N × K per execution of the op (a `tl.dot` inside a `for` runs once per "
                "iteration: section 4 multiplies by the trip count; the ops Triton's pipelining "
                "writes for one `tl.dot`, the loop's and the last iterations', are one row). "
                "Instructions per execution: (M / m) × (N / n) × "
                "(K / k) for the instruction shape m × n × k, shared by the waves of "
                "`warpsPerCTA`.\n\n");
    /* a line per arch, one paragraph */
    size_t lines = 0;
    for (size_t a = 0; a < r->archs.n; a++) {
        long long isa = kw_ttgir_isa_mfma(&r->archs.v[a]);
        if (isa < 0)
            continue;
        if (lines++)
            kw_r_t(r, "\n");
        else
            kw_r_p(r);
        kw_r_tf(r,
                "The %s listing (section 5) holds %lld MFMA instruction%s in all (every copy the "
                "compiler made of each op).",
                r->archs.v[a].arch, isa, isa == 1 ? "" : "s");
    }
    if (lines)
        kw_r_p_end(r);
    else
        kw_r_gap(r);
}

/* An item of the open list, "Executions per program: ..." (the model's
 * kw_ttgir_dot.execs). */
static void kw_r_ttgir_dot_execs(kw_render *r, const kw_ttgir_dot *d) {
    kw_r_item(r, 1);
    if (!d->in_loop) {
        kw_r_tf(r, "Executions per program: %s (no `scf.for` around it in the TTGIR).",
                d->execs ? d->execs : "1");
        return;
    }
    if (!d->execs) {
        kw_r_t(r, "Executions per program: not known (the TTGIR's `scf.for` bounds do not "
                  "reduce to the kernel's arguments); the FLOP above are per iteration.");
        return;
    }
    kw_r_t(r, "Executions per program: ");
    kw_r_c(r, d->execs);
    kw_r_tf(r, " (the trip count of its `scf.for` in the TTGIR%s), ",
            d->copies > 1 ? ", with the iterations Triton's pipelining wrote after the loop" : "");
    if (d->execs_shape >= 0) { /* evaluated with --shape */
        kw_r_tf(r, "%lld with ", d->execs_shape);
        kw_r_c(r, "--shape");
        kw_r_tf(r, ", so %lld FLOP per program over the loop (", d->flop * d->execs_shape);
        kw_r_c(r, d->flop_all_expr);
        kw_r_t(r, ").");
        return;
    }
    kw_r_t(r, "so ");
    if (d->flop_all >= 0)
        kw_r_tf(r, "%lld", d->flop_all);
    else
        kw_r_c(r, d->flop_all_expr);
    kw_r_t(r, " FLOP per program over the loop.");
}

void kw_r_ttgir_dot_work(kw_render *r) {
    kw_buf *o = r->out;
    const kw_ttgir *g = r->page.ttgir;
    for (size_t i = 0; g && i < g->dots.n; i++) {
        const kw_ttgir_dot *d = &g->dots.v[i];
        const kw_triton_memop *m = d->op;
        kw_r_item(r, 0);
        kw_r_t(r, "`tl.dot` at ");
        if (m->location.file)
            kw_r_loc(r, m->location.file, m->location.line);
        else
            kw_r_t(r, "(no line)");
        kw_r_tf(r, ": 2 × %lld × %lld × %lld = %lld FLOP per execution per program", d->m, d->n,
                d->k, d->flop);
        int eb = d->elem_bytes;
        if (d->bytes > 0) {
            kw_r_tf(r,
                    "; its operands are %lld × %lld + %lld × %lld elements of %d byte%s = ", d->m,
                    d->k, d->k, d->n, eb, eb == 1 ? "" : "s");
            kw_num_bytes(o, d->bytes);
            kw_r_tf(r, ", %.3g FLOP per operand byte", (double)d->flop / d->bytes);
        }
        kw_r_t(r, ".");
        kw_r_ttgir_dot_execs(r, d);
        for (size_t a = 0; a < d->peaks.n; a++) {
            const kw_ttgir_peak *p = &d->peaks.v[a];
            kw_r_item(r, 1);
            kw_r_tf(r,
                    "%s %s: %.1f TFLOP/s %s peak over %.1f TB/s HBM = a ridge of %.1f FLOP/byte; "
                    "%.3g FLOP per operand byte is %s it (the operands as one program loads "
                    "them, before any cache reuse).",
                    p->arch, p->gpu->product, p->peak, p->peak_name, p->gpu->hbm_tbs, p->ridge,
                    p->ai, p->below ? "below" : "at or above");
        }
    }
}
