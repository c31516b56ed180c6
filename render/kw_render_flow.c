/* kw_render_flow.c: section 3, the data flow diagram, drawn as ASCII boxes
 * joined by arrows from the page model's boxes (model/kw_flow.h: global
 * loads -> registers -> cross-lane / LDS steps -> compute -> stores from the
 * IR facts, or what the AST says when there are none, which it says). */
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

static void kw_flow_link_text(kw_buf *t, kw_flow_link link) {
    if (link == KW_FLOW_DOWN)
        kw_buf_puts(t, "        |\n        v\n");
    else if (link == KW_FLOW_LDS)
        kw_buf_puts(t,
                    "        ^\n        | (through LDS, between waves of the block)\n        v\n");
}

void kw_render_flow(kw_render *r) {
    kw_buf *o = r->out;
    const kw_flow *f = &r->page.flow;
    KW_R_HEADING(r, 2, "3. Data Flow Diagram");
    if (!f->drawn) {
        kw_buf_puts(o, r->mk->asm_code_object
                           ? "A precompiled ASM kernel: no source or IR facts to draw from.\n\n"
                           : "No device record: nothing to draw.\n\n");
        return;
    }
    if (f->ir_arch)
        kw_buf_printf(o, "From the IR facts of %s, in program order:\n\n", kw_r_safe(r, f->ir_arch));
    else
        KW_R_LIT(r, "No IR facts in this sidecar, so the widths, instruction families and "
                    "cross-lane steps are missing; this is what the parameter types and "
                    "declarations alone say:\n\n");
    kw_buf t;
    kw_buf_init(&t);
    for (size_t i = 0; i < f->boxes.n; i++) {
        const kw_flow_box *b = &f->boxes.v[i];
        kw_flow_link_text(&t, b->link);
        kw_md_box(&t, 0, b->n, b->lines);
    }
    kw_md_fence(o, "text", kw_buf_str(&t));
    kw_buf_free(&t);
}
