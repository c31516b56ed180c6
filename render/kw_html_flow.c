/* kw_html_flow.c: section 3 of a site page, the data-flow diagram as inline
 * SVG: the page model's boxes (model/kw_flow.h) in a column, each a rect with
 * its title in bold and its lines below, joined by arrows (down; both ways
 * through LDS). The same boxes the Markdown draws as ASCII. Each box carries
 * its title and line count as data- attributes (tests/site). */
#include <string.h>

#include "render/kw_html.h"

/* KW_FL_CHAR10: a character's width in tenths of a pixel (12px monospace) */
enum { KW_FL_CHAR10 = 75, KW_FL_LINE = 15, KW_FL_PAD = 8, KW_FL_GAP = 34, KW_FL_X = 10 };

/* The text width of a line in the monospace font the CSS gives (bytes past
 * ASCII are counted once per character). */
static size_t kw_fl_chars(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

void kw_html_flow(kw_render *r, kw_buf *out) {
    const kw_flow *f = &r->page.flow;
    if (!f->drawn || !f->boxes.n)
        return;
    size_t wmax = 0, h = KW_FL_X;
    for (size_t i = 0; i < f->boxes.n; i++) {
        const kw_flow_box *b = &f->boxes.v[i];
        for (size_t j = 0; j < b->n; j++) {
            size_t w = kw_fl_chars(b->lines[j]);
            wmax = w > wmax ? w : wmax;
        }
        h += (i ? KW_FL_GAP : 0) + b->n * KW_FL_LINE + 2 * KW_FL_PAD;
    }
    size_t bw = wmax * KW_FL_CHAR10 / 10 + 2 * KW_FL_PAD, w = bw + 2 * KW_FL_X + 260;
    h += KW_FL_X;
    kw_buf_printf(out,
                  "<svg class=\"kw-flow\" data-boxes=\"%zu\" width=\"%zu\" height=\"%zu\" "
                  "viewBox=\"0 0 %zu %zu\" role=\"img\"><title>Data flow</title><defs><marker "
                  "id=\"kw-ah\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
                  "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 "
                  "10z\"/></marker></defs>",
                  f->boxes.n, w, h, w, h);
    size_t y = KW_FL_X, cx = KW_FL_X + bw / 2;
    for (size_t i = 0; i < f->boxes.n; i++) {
        const kw_flow_box *b = &f->boxes.v[i];
        if (i) {
            bool both = b->link == KW_FLOW_LDS;
            kw_buf_printf(out,
                          "<path class=\"kw-fl-arrow\" data-link=\"%s\" d=\"M%zu %zu V%zu\" "
                          "marker-end=\"url(#kw-ah)\"%s/>",
                          both ? "lds" : "down", cx, y + 2, y + KW_FL_GAP - 2,
                          both ? " marker-start=\"url(#kw-ah)\"" : "");
            if (both)
                kw_buf_printf(out,
                              "<text class=\"kw-tk\" x=\"%zu\" y=\"%zu\">through LDS, between "
                              "waves of the block</text>",
                              cx + 10, y + KW_FL_GAP / 2 + 4);
            y += KW_FL_GAP;
        }
        size_t bh = b->n * KW_FL_LINE + 2 * KW_FL_PAD;
        kw_buf_puts(out, "<g class=\"kw-fl-box\" data-title=\"");
        kw_html_esc(out, b->lines[0]);
        kw_buf_printf(out,
                      "\" data-lines=\"%zu\"><rect x=\"%d\" y=\"%zu\" width=\"%zu\" "
                      "height=\"%zu\" rx=\"4\"/>",
                      b->n - 1, KW_FL_X, y, bw, bh);
        for (size_t j = 0; j < b->n; j++) {
            kw_buf_printf(out, "<text x=\"%d\" y=\"%zu\"%s>", KW_FL_X + KW_FL_PAD,
                          y + KW_FL_PAD + (j + 1) * KW_FL_LINE - 4,
                          j ? "" : " class=\"kw-fl-title\"");
            kw_html_esc(out, b->lines[j]);
            kw_buf_puts(out, "</text>");
        }
        kw_buf_puts(out, "</g>");
        y += bh;
    }
    kw_buf_puts(out, "</svg>\n");
}
