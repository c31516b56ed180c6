/* kw_flow.c: the data-flow diagram's boxes (kw_flow.h), from the ordered IR
 * facts of one arch, or from the AST alone when there are none. Lines are
 * English only (the Markdown draws them as ASCII boxes, so columns line up). */
#include "model/kw_flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"

typedef struct kw_fb {
    kw_flow *f;
    kw_arena *a;
    kw_flow_box *b;    /* the box being filled */
    kw_flow_box spare; /* filled instead when out of memory */
} kw_fb;

/* A new box reached by link, titled title. */
static void kw_fb_box(kw_fb *x, kw_flow_link link, const char *title) {
    kw_flow_box *b = KW_PUSH(x->a, x->f->boxes);
    x->b = b ? b : &x->spare;
    memset(x->b, 0, sizeof *x->b);
    x->b->link = x->f->boxes.n > 1 ? link : KW_FLOW_FIRST;
    x->b->lines[x->b->n++] = title;
}

/* A line of the box; the same line again is counted ("x4"), not repeated. */
static void kw_fb_add(kw_fb *x, const char *line) {
    kw_flow_box *b = x->b;
    if (!line)
        return;
    for (size_t i = 1; i < b->n; i++) {
        const char *l = b->lines[i];
        size_t n = strlen(line);
        if (!strncmp(l, line, n) && (l[n] == '\0' || !strncmp(l + n, " (x", 3))) {
            unsigned c = l[n] ? (unsigned)atoi(l + n + 3) : 1;
            b->lines[i] = kw_arena_printf(x->a, "%s (x%u)", line, c + 1);
            return;
        }
    }
    if (b->n < KW_FLOW_MAXLINES)
        b->lines[b->n++] = kw_arena_strdup(x->a, line);
}

enum { KW_FLOW_ASM_WIDTH = 72 };

/* An inline asm statement as one line of a box: its instructions joined with
 * "; ", blanks folded, cut at KW_FLOW_ASM_WIDTH characters ("..."). A
 * multi-line asm template would otherwise break the box's frame. */
static const char *kw_flow_asm_line(kw_arena *a, const char *text) {
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
    return kw_arena_printf(a, "asm: %s", line);
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

static void kw_flow_accesses(kw_fb *x, const kw_irf *ir, const char *want_op, bool lds) {
    for (size_t i = 0; i < ir->accesses.n; i++) {
        const kw_irf_access *acc = &ir->accesses.v[i];
        const char *op = acc->op, *space = acc->space;
        if (!op || strcmp(op, want_op) || !space || (!strcmp(space, "lds")) != lds)
            continue;
        const char *what = acc->param ? acc->param : acc->object ? acc->object : "?";
        kw_fb_add(x, kw_arena_printf(x->a, "%s: %s, %lld B per lane", what,
                                     kw_flow_family(space, op), acc->bytes_per_lane));
    }
}

static void kw_flow_shared(kw_fb *x, const kw_kernel *k) {
    for (size_t i = 0; i < k->shared.n; i++)
        kw_fb_add(x, kw_arena_printf(
                         x->a, "%s: %s, %lld B", k->shared.v[i].name ? k->shared.v[i].name : "?",
                         k->shared.v[i].type ? k->shared.v[i].type : "?", k->shared.v[i].bytes));
}

static void kw_flow_cross_lane(kw_fb *x, const kw_irf *ir) {
    kw_fb_box(x, KW_FLOW_DOWN, "CROSS-LANE STEPS");
    for (size_t i = 0; i < ir->idioms.n; i++) {
        const kw_irf_idiom *d = &ir->idioms.v[i];
        kw_fb_add(x, kw_arena_printf(x->a, "%s%s%s%s via %s", d->kind ? d->kind : "?",
                                     d->op ? " (" : "", d->op ? d->op : "", d->op ? ")" : "",
                                     d->via ? d->via : "?"));
    }
    /* the distinct controls, in order */
    kw_buf ctl;
    kw_buf_init(&ctl);
    for (size_t i = 0; i < ir->cross_lane.n; i++) {
        const char *c = ir->cross_lane.v[i].control;
        if (!c || strstr(kw_buf_str(&ctl), c))
            continue;
        if (ctl.len > 40) {
            kw_fb_add(x, kw_buf_str(&ctl));
            kw_buf_reset(&ctl);
        }
        kw_buf_printf(&ctl, "%s%s", ctl.len ? " " : "", c);
    }
    if (ctl.len)
        kw_fb_add(x, kw_buf_str(&ctl));
    kw_buf_free(&ctl);
}

static void kw_flow_ir(kw_fb *x, const kw_kernel *k, const kw_irf *ir) {
    kw_fb_box(x, KW_FLOW_FIRST, "GLOBAL MEMORY, READ");
    kw_flow_accesses(x, ir, "load", false);
    if (x->b->n == 1)
        kw_fb_add(x, "(no global loads)");
    kw_fb_box(x, KW_FLOW_DOWN, "REGISTERS (VGPRs), per thread");
    if (ir->idioms.n || ir->cross_lane.n)
        kw_flow_cross_lane(x, ir);
    if (k->shared.n) {
        kw_fb_box(x, KW_FLOW_DOWN, "LDS (__shared__)");
        kw_flow_shared(x, k);
        kw_flow_accesses(x, ir, "store", true);
        kw_flow_accesses(x, ir, "load", true);
        kw_fb_add(x, kw_arena_printf(x->a, "barriers (s_barrier): %lld", ir->barriers));
    }
    kw_fb_box(x, KW_FLOW_DOWN, "COMPUTE, per thread");
    char f1[96], f2[96];
    const char *flops = kw_val_text(&ir->work_per_thread.flops, f1, sizeof f1);
    const char *trans = kw_val_text(&ir->work_per_thread.transcendental, f2, sizeof f2);
    kw_fb_add(x, kw_arena_printf(x->a, "flops: %s", flops ? flops : "unknown"));
    if (trans)
        kw_fb_add(x, kw_arena_printf(x->a, "transcendental: %s", trans));
    for (size_t i = 0; i < k->inline_asm.n; i++)
        kw_fb_add(x, kw_flow_asm_line(x->a, k->inline_asm.v[i].text));
    kw_fb_box(x, KW_FLOW_DOWN, "GLOBAL MEMORY, WRITTEN");
    kw_flow_accesses(x, ir, "store", false);
    kw_flow_accesses(x, ir, "atomic", false);
    if (x->b->n == 1)
        kw_fb_add(x, "(no global stores)");
}

/* Pointer parameters by constness, for the AST-only diagram. */
static void kw_flow_params(kw_fb *x, const kw_kernel *k, bool want_const) {
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
        kw_fb_add(x, kw_arena_printf(x->a, "%s (%s)",
                                     k->params.v[i].name ? k->params.v[i].name : "?", type));
    }
}

static void kw_flow_ast(kw_fb *x, const kw_kernel *k) {
    kw_fb_box(x, KW_FLOW_FIRST, "GLOBAL MEMORY, READ ONLY (pointers to const)");
    kw_flow_params(x, k, true);
    if (x->b->n == 1)
        kw_fb_add(x, "(none)");
    kw_fb_box(x, KW_FLOW_DOWN, "REGISTERS, per thread");
    for (size_t i = 0; i < k->inline_asm.n; i++)
        kw_fb_add(x, kw_flow_asm_line(x->a, k->inline_asm.v[i].text));
    if (k->shared.n) {
        kw_fb_box(x, KW_FLOW_LDS, "LDS (__shared__)");
        kw_flow_shared(x, k);
    }
    kw_fb_box(x, KW_FLOW_DOWN, "GLOBAL MEMORY, MAY BE WRITTEN (pointers to non-const)");
    kw_flow_params(x, k, false);
    if (x->b->n == 1)
        kw_fb_add(x, "(none)");
}

void kw_flow_build(kw_flow *f, const kw_kernel *k, const char *ir_arch, const kw_irf *ir,
                   kw_arena *a) {
    memset(f, 0, sizeof *f);
    if (!k)
        return;
    f->drawn = true;
    f->ir_arch = ir ? ir_arch : NULL;
    kw_fb x;
    memset(&x, 0, sizeof x);
    x.f = f;
    x.a = a;
    if (ir)
        kw_flow_ir(&x, k, ir);
    else
        kw_flow_ast(&x, k);
}
