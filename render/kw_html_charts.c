/* kw_html_charts.c: the charts of a site page, inline SVG drawn from the
 * facts of each arch shown: occupancy (waves per SIMD) against VGPRs, the
 * VGPR bound of the processor's occupancy table (annotations/hw/amdgpu-
 * occupancy.txt) as the page model computed it (model/kw_page_perf.h) with
 * the kernel's point (its VGPRs plus AGPRs, its recorded occupancy and
 * limiter); and the instruction-class mix of its listing
 * (kernels[].archs.<arch>.classes); then the roofline (kw_html_roofline.c).
 * This file computes no occupancy (it uses no codeobj/ nor trace/ function
 * and no kw_perf_* one): it lays out what the page model holds. Each chart
 * carries its numbers as data- attributes (tests/site checks them against
 * the code object). Every part is written for its page: nothing is kept
 * from page to page. */
#include <math.h>
#include <string.h>

#include "common/kw_num.h"
#include "model/kw_page_facts.h"
#include "render/kw_html.h"

enum { KW_CH_W = 420, KW_CH_H = 220, KW_CH_L = 40, KW_CH_B = 30, KW_CH_T = 24, KW_CH_R = 12 };

/* The axes, ticks and the VGPR bound (a step curve) of the occupancy chart
 * of a processor (the page model's curve). */
static void kw_ch_occupancy_axes(kw_buf *o, const kw_page_occ *oc) {
    double pw = KW_CH_W - KW_CH_L - KW_CH_R, ph = KW_CH_H - KW_CH_T - KW_CH_B;
    double xmax = oc->vgprs_per_lane, ymax = oc->max_waves;
#define KW_X(v) (KW_CH_L + (v) / xmax * pw)
#define KW_Y(w) (KW_CH_T + ph - (w) / ymax * ph)
    kw_buf_printf(o, "<path class=\"kw-ax\" d=\"M%d %d V%.1f H%.1f\"/>", KW_CH_L, KW_CH_T,
                  KW_CH_T + ph, KW_CH_L + pw);
    for (unsigned w = 0; w <= oc->max_waves; w += oc->max_waves > 8 ? 2 : 1)
        kw_buf_printf(o, "<text x=\"%d\" y=\"%.1f\" class=\"kw-tk\" text-anchor=\"end\">%u</text>",
                      KW_CH_L - 4, KW_Y(w) + 4, w);
    for (unsigned x = 0; x <= oc->vgprs_per_lane; x += oc->vgprs_per_lane / 4)
        kw_buf_printf(o,
                      "<text x=\"%.1f\" y=\"%d\" class=\"kw-tk\" text-anchor=\"middle\">%u</text>",
                      KW_X(x), KW_CH_H - 12, x);
    /* the VGPR bound: a step curve */
    kw_buf_puts(o, "<path class=\"kw-curve\" d=\"");
    kw_buf_printf(o, "M%.1f %.1f", KW_X(0), KW_Y(oc->waves0));
    for (size_t i = 0; i < oc->nsteps; i++)
        kw_buf_printf(o, " H%.1f V%.1f", KW_X(oc->vgprs[i] - 1), KW_Y(oc->waves[i]));
    kw_buf_printf(o, " H%.1f\"/>", KW_X(xmax));
#undef KW_X
#undef KW_Y
}

static void kw_ch_occupancy(kw_buf *o, const kw_rarch *a, const kw_page_occ *oc, const char *arch) {
    const kw_isa_resources *res = &a->facts->resources;
    if (!oc->known)
        return;
    double pw = KW_CH_W - KW_CH_L - KW_CH_R, ph = KW_CH_H - KW_CH_T - KW_CH_B;
    double xmax = oc->vgprs_per_lane, ymax = oc->max_waves;
#define KW_X(v) (KW_CH_L + (v) / xmax * pw)
#define KW_Y(w) (KW_CH_T + ph - (w) / ymax * ph)
    long long v = oc->kernel_vgprs;
    kw_buf_printf(o,
                  "<svg class=\"kw-chart kw-occ\" data-arch=\"%s\" data-vgprs=\"%lld\" "
                  "data-waves=\"%lld\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "role=\"img\"><title>%s: occupancy against VGPRs</title>",
                  arch, v, res->occupancy, KW_CH_W, KW_CH_H, KW_CH_W, KW_CH_H, arch);
    kw_buf_printf(o, "<text x=\"%d\" y=\"14\" class=\"kw-ct\">%s: waves per SIMD against VGPRs",
                  KW_CH_L, arch);
    kw_buf_puts(o, res->agpr > 0 ? " + AGPRs</text>" : "</text>");
    kw_ch_occupancy_axes(o, oc);
    if (v >= 0 && res->occupancy >= 0) {
        double px = KW_X(v > (long long)xmax ? xmax : (double)v), py = KW_Y((double)res->occupancy);
        kw_buf_printf(o,
                      "<circle class=\"kw-pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"><title>%lld "
                      "VGPRs, %lld waves per SIMD, limited by ",
                      px, py, v, res->occupancy);
        kw_html_esc(o, res->occupancy_limiter ? res->occupancy_limiter : "?");
        kw_buf_printf(o,
                      "</title></circle><text x=\"%.1f\" y=\"%.1f\" class=\"kw-tk\">%lld "
                      "waves (",
                      px + 8, py < KW_CH_T + 20 ? py + 16 : py - 6, res->occupancy);
        kw_html_esc(o, res->occupancy_limiter ? res->occupancy_limiter : "?");
        kw_buf_puts(o, ")</text>");
    }
#undef KW_X
#undef KW_Y
    kw_buf_puts(o, "</svg>\n");
}

static void kw_ch_classes(kw_buf *o, const kw_rarch *a, const char *arch) {
    kw_page_facts_bars bars;
    if (!kw_page_facts_classes(&a->facts->classes, &bars))
        return;
    long long maxn = bars.max, total = bars.total;
    int bh = 14, h = KW_CH_T + (int)bars.n * bh + 8, lw = 110;
    kw_buf_printf(o,
                  "<svg class=\"kw-chart kw-mix\" data-arch=\"%s\" data-total=\"%lld\" "
                  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>%s: "
                  "instruction classes</title><text x=\"0\" y=\"14\" class=\"kw-ct\">%s: "
                  "instruction classes (%lld instructions)</text>",
                  arch, total, KW_CH_W, h, KW_CH_W, h, arch, arch, total);
    for (size_t row = 0; row < bars.n; row++) {
        const char *k = bars.v[row].key;
        long long n = bars.v[row].n;
        double y = KW_CH_T + (double)row * bh;
        double w = (KW_CH_W - lw - 60) * (double)n / (double)maxn;
        /* as one printf of the pieces would write them (a printf per bar
         * was most of the charts' time) */
        kw_buf_puts(o, "<g data-class=\"");
        kw_buf_puts(o, k);
        kw_buf_puts(o, "\" data-n=\"");
        kw_buf_int(o, n);
        kw_buf_puts(o, "\"><text x=\"");
        kw_buf_int(o, lw - 4);
        kw_buf_puts(o, "\" y=\"");
        kw_num_f1(o, y + 10);
        kw_buf_puts(o, "\" class=\"kw-tk\" text-anchor=\"end\">");
        kw_buf_puts(o, k);
        kw_buf_puts(o, "</text><rect class=\"kw-bar\" x=\"");
        kw_buf_int(o, lw);
        kw_buf_puts(o, "\" y=\"");
        kw_num_f1(o, y + 2);
        kw_buf_puts(o, "\" width=\"");
        kw_num_f1(o, w > 1 ? w : 1);
        kw_buf_puts(o, "\" height=\"");
        kw_buf_int(o, bh - 4);
        kw_buf_puts(o, "\"/><text x=\"");
        kw_num_f1(o, lw + w + 4);
        kw_buf_puts(o, "\" y=\"");
        kw_num_f1(o, y + 10);
        kw_buf_puts(o, "\" class=\"kw-tk\">");
        kw_buf_int(o, n);
        kw_buf_puts(o, "</text></g>");
    }
    kw_buf_puts(o, "</svg>\n");
}

void kw_html_charts(kw_render *r, kw_buf *out) {
    kw_buf_puts(out, "<section id=\"kw-charts\"><h2>Charts</h2>\n<div class=\"kw-charts\">");
    size_t drawn = out->len;
    kw_buf arch; /* the arch name as HTML (it comes from the sidecar) */
    kw_buf_init(&arch);
    for (size_t a = 0; a < r->archs.n; a++) {
        if (!r->archs.v[a].facts)
            continue;
        kw_buf_reset(&arch);
        kw_html_esc(&arch, r->archs.v[a].arch);
        kw_ch_occupancy(out, &r->archs.v[a], &r->page.perf->archs[a].occ, kw_buf_str(&arch));
        kw_ch_classes(out, &r->archs.v[a], kw_buf_str(&arch));
    }
    kw_buf_free(&arch);
    if (out->len == drawn)
        kw_buf_puts(out, "<p>No resources or instruction classes were captured for this "
                         "kernel: nothing to draw.</p>");
    kw_html_roofline(r, out);
    kw_buf_puts(out, "</div></section>\n");
}
