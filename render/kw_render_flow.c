/* kw_render_flow.c: section 3, the data flow diagram: ASCII boxes (English
 * only, so columns line up) from the ordered facts: global loads ->
 * registers -> cross-lane / LDS steps -> compute -> stores, each box naming
 * the buffer, the width and the instruction family. With no IR facts the
 * diagram is drawn from what the AST says (const and non-const pointer
 * parameters, __shared__ variables, inline asm) and says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

enum { KW_FLOW_MAXLINES = 24 };

typedef struct kw_flow_box {
    const char *lines[KW_FLOW_MAXLINES];
    size_t n;
} kw_flow_box;

/* A line of a box; the same line again is counted ("x4"), not repeated. */
static void kw_box_add(kw_render *r, kw_flow_box *b, const char *line) {
    if (!line)
        return;
    for (size_t i = 1; i < b->n; i++) {
        const char *l = b->lines[i];
        size_t n = strlen(line);
        if (!strncmp(l, line, n) && (l[n] == '\0' || !strncmp(l + n, " (x", 3))) {
            unsigned c = l[n] ? (unsigned)atoi(l + n + 3) : 1;
            b->lines[i] = kw_arena_printf(&r->scratch, "%s (x%u)", line, c + 1);
            return;
        }
    }
    if (b->n < KW_FLOW_MAXLINES)
        b->lines[b->n++] = kw_arena_strdup(&r->scratch, line);
}

enum { KW_FLOW_ASM_WIDTH = 72 };

/* An inline asm statement as one line of a box: its instructions joined with
 * "; ", blanks folded, cut at KW_FLOW_ASM_WIDTH characters ("..."). A
 * multi-line asm template would otherwise break the box's frame. */
static const char *kw_flow_asm_line(kw_render *r, const char *text) {
    char line[KW_FLOW_ASM_WIDTH + 8];
    size_t n = 0;
    bool gap = false, cut = false;
    for (const char *p = text ? text : ""; *p && !cut; p++) {
        char c = *p;
        if (c == '\n' || c == '\r' || c == ';') {
            gap = false;
            if (n && line[n - 1] != ';')
                line[n++] = ';';
            continue;
        }
        if (c == ' ' || c == '\t') {
            gap = n > 0;
            continue;
        }
        if (n && (gap || line[n - 1] == ';'))
            line[n++] = ' ';
        gap = false;
        line[n++] = c;
        cut = n >= KW_FLOW_ASM_WIDTH;
    }
    while (n && (line[n - 1] == ';' || line[n - 1] == ' '))
        n--;
    if (cut)
        memcpy(line + n, " ...", 4), n += 4;
    line[n] = '\0';
    return kw_arena_printf(&r->scratch, "asm: %s", line);
}

static void kw_flow_arrow(kw_buf *t) {
    kw_buf_puts(t, "        |\n        v\n");
}

/* The instruction family of an access: "global_load", "ds_write", ... */
static const char *kw_flow_family(const char *space, const char *op) {
    bool store = op && !strcmp(op, "store");
    bool atomic = op && !strcmp(op, "atomic");
    if (!space)
        return "?";
    if (!strcmp(space, "lds"))
        return atomic ? "ds_atomic" : store ? "ds_write" : "ds_read";
    if (!strcmp(space, "buffer"))
        return atomic ? "buffer_atomic" : store ? "buffer_store" : "buffer_load";
    if (!strcmp(space, "flat"))
        return atomic ? "flat_atomic" : store ? "flat_store" : "flat_load";
    if (!strcmp(space, "scratch"))
        return store ? "scratch_store" : "scratch_load";
    return atomic ? "global_atomic" : store ? "global_store" : "global_load";
}

static void kw_flow_accesses(kw_render *r, const kw_irf *ir, const char *want_op, bool lds,
                             kw_flow_box *b) {
    for (size_t i = 0; i < ir->accesses.n; i++) {
        const kw_irf_access *x = &ir->accesses.v[i];
        const char *op = x->op;
        const char *space = x->space;
        if (!op || strcmp(op, want_op) || !space || (!strcmp(space, "lds")) != lds)
            continue;
        const char *param = x->param;
        const char *object = x->object;
        char *line = kw_arena_printf(&r->scratch, "%s: %s, %lld B per lane",
                                     param ? param : object ? object : "?",
                                     kw_flow_family(space, op), x->bytes_per_lane);
        kw_box_add(r, b, line);
    }
}

static void kw_flow_ir(kw_render *r, const kw_rarch *a, const kw_irf *ir, kw_buf *t) {
    kw_flow_box b;
    memset(&b, 0, sizeof b);
    kw_box_add(r, &b, "GLOBAL MEMORY, READ");
    kw_flow_accesses(r, ir, "load", false, &b);
    if (b.n == 1)
        kw_box_add(r, &b, "(no global loads)");
    kw_md_box(t, 0, b.n, b.lines);
    kw_flow_arrow(t);
    memset(&b, 0, sizeof b);
    kw_box_add(r, &b, "REGISTERS (VGPRs), per thread");
    kw_md_box(t, 0, b.n, b.lines);
    if (ir->idioms.n || ir->cross_lane.n) {
        kw_flow_arrow(t);
        memset(&b, 0, sizeof b);
        kw_box_add(r, &b, "CROSS-LANE STEPS");
        for (size_t i = 0; i < ir->idioms.n; i++) {
            const kw_irf_idiom *d = &ir->idioms.v[i];
            const char *kind = d->kind;
            const char *op = d->op;
            const char *via = d->via;
            kw_box_add(r, &b, kw_arena_printf(&r->scratch, "%s%s%s%s via %s", kind ? kind : "?",
                                              op ? " (" : "", op ? op : "", op ? ")" : "",
                                              via ? via : "?"));
        }
        /* the distinct controls, in order */
        kw_buf ctl;
        kw_buf_init(&ctl);
        for (size_t i = 0; i < ir->cross_lane.n; i++) {
            const char *c = ir->cross_lane.v[i].control;
            if (!c || strstr(kw_buf_str(&ctl), c))
                continue;
            if (ctl.len > 40) {
                kw_box_add(r, &b, kw_buf_str(&ctl));
                kw_buf_reset(&ctl);
            }
            kw_buf_printf(&ctl, "%s%s", ctl.len ? " " : "", c);
        }
        if (ctl.len)
            kw_box_add(r, &b, kw_buf_str(&ctl));
        kw_buf_free(&ctl);
        kw_md_box(t, 0, b.n, b.lines);
    }
    const kw_kernel *k = r->mk->k;
    if (k->shared.n) {
        kw_flow_arrow(t);
        memset(&b, 0, sizeof b);
        kw_box_add(r, &b, "LDS (__shared__)");
        for (size_t i = 0; i < k->shared.n; i++)
            kw_box_add(r, &b, kw_arena_printf(&r->scratch, "%s: %s, %lld B",
                                              k->shared.v[i].name ? k->shared.v[i].name : "?",
                                              k->shared.v[i].type ? k->shared.v[i].type : "?",
                                              k->shared.v[i].bytes));
        kw_flow_accesses(r, ir, "store", true, &b);
        kw_flow_accesses(r, ir, "load", true, &b);
        kw_box_add(r, &b, kw_arena_printf(&r->scratch, "barriers (s_barrier): %lld", ir->barriers));
        kw_md_box(t, 0, b.n, b.lines);
    }
    kw_flow_arrow(t);
    memset(&b, 0, sizeof b);
    kw_box_add(r, &b, "COMPUTE, per thread");
    char f1[96], f2[96];
    const char *flops = kw_val_text(&ir->work_per_thread.flops, f1, sizeof f1);
    const char *trans = kw_val_text(&ir->work_per_thread.transcendental, f2, sizeof f2);
    kw_box_add(r, &b, kw_arena_printf(&r->scratch, "flops: %s", flops ? flops : "unknown"));
    if (trans)
        kw_box_add(r, &b, kw_arena_printf(&r->scratch, "transcendental: %s", trans));
    for (size_t i = 0; i < k->inline_asm.n; i++)
        kw_box_add(r, &b, kw_flow_asm_line(r, k->inline_asm.v[i].text));
    kw_md_box(t, 0, b.n, b.lines);
    kw_flow_arrow(t);
    memset(&b, 0, sizeof b);
    kw_box_add(r, &b, "GLOBAL MEMORY, WRITTEN");
    kw_flow_accesses(r, ir, "store", false, &b);
    kw_flow_accesses(r, ir, "atomic", false, &b);
    if (b.n == 1)
        kw_box_add(r, &b, "(no global stores)");
    kw_md_box(t, 0, b.n, b.lines);
    (void)a;
}

/* Pointer parameters by constness, for the AST-only diagram. */
static void kw_flow_params(kw_render *r, kw_flow_box *b, bool want_const) {
    const kw_kernel *k = r->mk->k;
    for (size_t i = 0; i < k->params.n; i++) {
        const char *type = k->params.v[i].type;
        const char *star = type ? strrchr(type, '*') : NULL;
        if (!star)
            continue;
        bool is_const = false;
        for (const char *p = type; p + 5 <= star; p++)
            if (!strncmp(p, "const", 5) && (p == type || p[-1] == ' ') &&
                (p[5] == ' ' || p + 5 == star))
                is_const = true;
        if (is_const != want_const)
            continue;
        kw_box_add(r, b, kw_arena_printf(&r->scratch, "%s (%s)",
                                         k->params.v[i].name ? k->params.v[i].name : "?", type));
    }
}

static void kw_flow_ast(kw_render *r, kw_buf *t) {
    const kw_kernel *k = r->mk->k;
    kw_flow_box b;
    memset(&b, 0, sizeof b);
    kw_box_add(r, &b, "GLOBAL MEMORY, READ ONLY (pointers to const)");
    kw_flow_params(r, &b, true);
    if (b.n == 1)
        kw_box_add(r, &b, "(none)");
    kw_md_box(t, 0, b.n, b.lines);
    kw_flow_arrow(t);
    memset(&b, 0, sizeof b);
    kw_box_add(r, &b, "REGISTERS, per thread");
    for (size_t i = 0; i < k->inline_asm.n; i++)
        kw_box_add(r, &b, kw_flow_asm_line(r, k->inline_asm.v[i].text));
    kw_md_box(t, 0, b.n, b.lines);
    if (k->shared.n) {
        kw_buf_puts(t, "        ^\n        | (through LDS, between waves of the block)\n        v\n");
        memset(&b, 0, sizeof b);
        kw_box_add(r, &b, "LDS (__shared__)");
        for (size_t i = 0; i < k->shared.n; i++)
            kw_box_add(r, &b, kw_arena_printf(&r->scratch, "%s: %s, %lld B",
                                              k->shared.v[i].name ? k->shared.v[i].name : "?",
                                              k->shared.v[i].type ? k->shared.v[i].type : "?",
                                              k->shared.v[i].bytes));
        kw_md_box(t, 0, b.n, b.lines);
    }
    kw_flow_arrow(t);
    memset(&b, 0, sizeof b);
    kw_box_add(r, &b, "GLOBAL MEMORY, MAY BE WRITTEN (pointers to non-const)");
    kw_flow_params(r, &b, false);
    if (b.n == 1)
        kw_box_add(r, &b, "(none)");
    kw_md_box(t, 0, b.n, b.lines);
}

void kw_render_flow(kw_render *r) {
    kw_buf *o = r->out;
    kw_md_heading(o, 2, "3. Data Flow Diagram");
    if (!r->mk->k) {
        kw_buf_puts(o, r->mk->asm_code_object
                           ? "A precompiled ASM kernel: no source or IR facts to draw from.\n\n"
                           : "No device record: nothing to draw.\n\n");
        return;
    }
    const kw_rarch *a = NULL;
    const kw_irf *ir = NULL;
    for (size_t i = 0; i < r->archs.n && !a; i++) {
        ir = r->archs.v[i].ir;
        if (ir)
            a = &r->archs.v[i];
    }
    kw_buf t;
    kw_buf_init(&t);
    if (a) {
        kw_buf_printf(o, "From the IR facts of %s, in program order:\n\n", a->arch);
        kw_flow_ir(r, a, ir, &t);
    } else {
        kw_buf_puts(o, "No IR facts in this sidecar, so the widths, instruction families and "
                       "cross-lane steps are missing; this is what the parameter types and "
                       "declarations alone say:\n\n");
        kw_flow_ast(r, &t);
    }
    kw_md_fence(o, "text", kw_buf_str(&t));
    kw_buf_free(&t);
}
