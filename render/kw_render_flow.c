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
        kw_r_para(r, r->mk->asm_code_object
                         ? "A precompiled ASM kernel: no source or IR facts to draw from."
                         : "No device record: nothing to draw.");
        return;
    }
    if (f->ir_arch) {
        kw_r_p(r);
        kw_r_t(r, "From the IR facts of ");
        kw_r_s(r, f->ir_arch);
        kw_r_t(r, ", in program order:");
        kw_r_p_end(r);
    } else
        kw_r_para(r, "No IR facts in this sidecar, so the widths, instruction families and "
                     "cross-lane steps are missing; this is what the parameter types and "
                     "declarations alone say:");
    kw_buf t;
    kw_buf_init(&t);
    for (size_t i = 0; i < f->boxes.n; i++) {
        const kw_flow_box *b = &f->boxes.v[i];
        kw_flow_link_text(&t, b->link);
        kw_md_box(&t, 0, b->n, b->lines);
    }
    if (r->site_flow && kw_r_html(r)) {
        /* the diagram as SVG, the ASCII one folded under it */
        r->site_flow(r, o);
        kw_buf_puts(o, "<details class=\"kw-flow-text\"><summary>As text</summary>");
        kw_md_fence_in(o, "text", kw_buf_str(&t), KW_MD_HTML);
        o->len--; /* the fence's line break after </details> */
        kw_buf_puts(o, "</details>\n");
    } else {
        kw_r_fence(r, "text", kw_buf_str(&t));
    }
    kw_buf_free(&t);
}
