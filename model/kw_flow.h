/* kw_flow.h: the data-flow diagram of a kernel instantiation (section 3 of a
 * walkthrough), as boxes in program order, part of the page model
 * (kw_page.h): global loads -> registers -> cross-lane steps -> LDS ->
 * compute -> stores from an arch's IR facts, each box naming the buffer, the
 * width and the instruction family; with no IR facts, what the AST says
 * (pointer parameters by constness, __shared__ variables, inline asm). The
 * Markdown writer draws the boxes as ASCII (render/kw_render_flow.c), the
 * site as SVG boxes and arrows (render/kw_html_flow.c). */
#ifndef KW_FLOW_H
#define KW_FLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_sidecar_ir.h"

enum { KW_FLOW_MAXLINES = 24 };

/* How a box is reached from the one before it. */
typedef enum kw_flow_link {
    KW_FLOW_FIRST = 0, /* the first box */
    KW_FLOW_DOWN,      /* data flows down into it */
    KW_FLOW_LDS,       /* both ways, through LDS between the waves of a block */
} kw_flow_link;

typedef struct kw_flow_box {
    kw_flow_link link;
    const char *lines[KW_FLOW_MAXLINES]; /* lines[0] is the title */
    size_t n;
} kw_flow_box;

typedef struct kw_flow {
    bool drawn;          /* false: no device record, nothing to draw */
    const char *ir_arch; /* the arch whose IR facts it is drawn from; NULL: the AST only */
    KW_ARRAY(kw_flow_box) boxes;
} kw_flow;

/* The diagram of kernel k (NULL: nothing to draw) from ir, the IR facts of
 * arch ir_arch (NULL: none, the AST-only diagram); into a. */
void kw_flow_build(kw_flow *f, const kw_kernel *k, const char *ir_arch, const kw_irf *ir,
                   kw_arena *a);

#endif
