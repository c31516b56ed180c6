/* kw_html_roofline.c: the roofline chart of a site page, inline SVG per arch
 * shown: log-log, FLOP per byte of HBM traffic against TFLOP/s, the roof of
 * the arch's GPU (annotations/hw/amdgpu-peaks.txt: HBM bandwidth up to the
 * FP32 vector peak) and the kernel's point for each launch or trace
 * configuration whose bytes, FLOP and time are all known:
 *   - bytes and FLOP from the IR facts per thread times the threads of the
 *     launch, with the time --time-us gives;
 *   - or, with --trace, per launch configuration the trace recorded: the IR
 *     facts evaluated at its grid (as section 4) over its median duration.
 * The points and what is missing for each are the page model's
 * (model/kw_page_perf.h, evaluated before the page is written): this file
 * computes nothing but the chart's layout (it calls no evaluator or kw_perf_*
 * function and uses neither codeobj/ nor trace/). What is missing for a
 * point is said under the chart; no point is guessed. The svg carries its
 * axes (data-plot, data-xlog, data-ylog) and each point its bytes, FLOP and
 * nanoseconds, for tests/site to check. */
#include <math.h>
#include <string.h>

#include "render/kw_html.h"

enum { KW_RF_W = 440, KW_RF_H = 250, KW_RF_L = 52, KW_RF_B = 34, KW_RF_T = 26, KW_RF_R = 16 };
enum { KW_RF_MAXPTS = 16 };

typedef struct kw_rf_point {
    double bytes, flops, ns;
    const char *from; /* "launch at a.hip:12, --time-us 5" (HTML-escaped when drawn) */
} kw_rf_point;

typedef struct kw_rf {
    kw_render *r;
    kw_rf_point pts[KW_RF_MAXPTS];
    size_t npts;
    kw_buf why; /* what is missing, one <li> each, already HTML */
} kw_rf;

static void kw_rf_why(kw_rf *f, const char *text) {
    kw_buf_puts(&f->why, "<li>");
    kw_html_esc(&f->why, text);
    kw_buf_puts(&f->why, "</li>");
}

static void kw_rf_add(kw_rf *f, double bytes, double flops, double ns, const char *from) {
    if (f->npts < KW_RF_MAXPTS)
        f->pts[f->npts++] = (kw_rf_point){bytes, flops, ns, from};
}

/* The points of the page's launches on arch a (the page model's). */
static void kw_rf_launches(kw_rf *f, size_t a) {
    kw_render *r = f->r;
    const kw_page_arch *pa = &r->page.archs.v[a];
    const kw_page_perf *pf = r->page.perf;
    size_t nl = r->mk->launches.n;
    if (!nl) {
        kw_rf_why(f, "no launch of this kernel is recorded: its grid, so its bytes, are unknown");
        return;
    }
    if (!pa->ir) {
        kw_rf_why(f, "no IR facts for this arch: the bytes and FLOP per thread are unknown");
        return;
    }
    for (size_t i = 0; i < nl; i++) {
        const kw_mlaunch *ml = &r->m->launches.v[r->mk->launches.v[i]];
        const char *at = kw_arena_printf(&r->scratch, "launch at %s:%d",
                                         kw_r_path(r, ml->l->location.file), ml->l->location.line);
        const kw_page_perf_launch *pl = &pf->launches[a * pf->nlaunches + i];
        if (pl->miss) {
            kw_rf_why(f, kw_arena_printf(&r->scratch, "%s: %s", at ? at : "a launch", pl->miss));
            continue;
        }
        kw_rf_add(
            f, pl->pt_bytes, pl->pt_flops, pl->pt_ns,
            kw_arena_printf(&r->scratch, "%s, --time-us %g", at ? at : "a launch", pf->time_us));
    }
}

/* The points of the trace's configurations that ran on arch. */
static void kw_rf_trace(kw_rf *f, const char *arch) {
    kw_render *r = f->r;
    const kw_page_perf *pf = r->page.perf;
    if (!pf->measured->found) {
        kw_rf_why(f, "the trace has no dispatch of this kernel");
        return;
    }
    for (size_t i = 0; i < pf->measured->ncfgs; i++) {
        const kw_page_perf_tcfg *c = &pf->tcfgs[i];
        const kw_perf_mcfg *cfg = c->m;
        if (c->chart_arch && strcmp(c->chart_arch, arch))
            continue; /* another arch's chart shows it */
        const char *at =
            cfg->known ? kw_arena_printf(&r->scratch,
                                         "trace: grid [%lld, %lld, %lld] x "
                                         "workgroup [%lld, %lld, %lld], median of %zu",
                                         cfg->grid_wg[0], cfg->grid_wg[1], cfg->grid_wg[2],
                                         cfg->block[0], cfg->block[1], cfg->block[2], cfg->t.n)
                       : "trace: dispatches without grid and workgroup sizes";
        at = at ? at : "trace";
        if (c->miss)
            kw_rf_why(f, kw_arena_printf(&r->scratch, "%s: %s", at, c->miss));
        else
            kw_rf_add(f, c->pt_bytes, c->pt_flops, c->pt_ns, at);
    }
}

static double kw_rf_min(double a, double b) {
    return a < b ? a : b;
}

static double kw_rf_max(double a, double b) {
    return a > b ? a : b;
}

/* The svg element, axes, ticks and roof of a roofline of g on the scales
 * xlo..xhi, ylo..yhi (decades). */
static void kw_rf_frame(kw_buf *o, const char *arch, const kw_gpu *g, double xlo, double xhi,
                        double ylo, double yhi) {
    double peak = g->fp32_vector_tflops, bw = g->hbm_tbs, ridge = peak / bw;
    double pw = KW_RF_W - KW_RF_L - KW_RF_R, ph = KW_RF_H - KW_RF_T - KW_RF_B;
#define KW_X(ai) (KW_RF_L + (log10(ai) - xlo) / (xhi - xlo) * pw)
#define KW_Y(tf) (KW_RF_T + ph - (log10(tf) - ylo) / (yhi - ylo) * ph)
    kw_buf_printf(o,
                  "<svg class=\"kw-chart kw-roof\" data-arch=\"%s\" data-gpu=\"%s\" "
                  "data-hbm-tbs=\"%g\" data-fp32-tflops=\"%g\" data-plot=\"%d %d %g %g\" "
                  "data-xlog=\"%g %g\" data-ylog=\"%g %g\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %d %d\" role=\"img\"><title>%s: roofline of %s</title>",
                  arch, g->product, bw, peak, KW_RF_L, KW_RF_T, pw, ph, xlo, xhi, ylo, yhi, KW_RF_W,
                  KW_RF_H, KW_RF_W, KW_RF_H, arch, g->product);
    kw_buf_printf(o,
                  "<text x=\"%d\" y=\"14\" class=\"kw-ct\">%s (%s): TFLOP/s against FLOP per "
                  "byte</text>",
                  KW_RF_L, arch, g->product);
    kw_buf_printf(o, "<path class=\"kw-ax\" d=\"M%d %d V%.1f H%.1f\"/>", KW_RF_L, KW_RF_T,
                  KW_RF_T + ph, KW_RF_L + pw);
    for (double e = xlo; e <= xhi; e++)
        kw_buf_printf(o,
                      "<text x=\"%.1f\" y=\"%d\" class=\"kw-tk\" text-anchor=\"middle\">%g</text>",
                      KW_X(pow(10, e)), KW_RF_H - 18, pow(10, e));
    for (double e = ylo; e <= yhi; e++)
        kw_buf_printf(o, "<text x=\"%d\" y=\"%.1f\" class=\"kw-tk\" text-anchor=\"end\">%g</text>",
                      KW_RF_L - 4, KW_Y(pow(10, e)) + 4, pow(10, e));
    kw_buf_printf(o,
                  "<text x=\"%.1f\" y=\"%d\" class=\"kw-tk\" text-anchor=\"middle\">FLOP per "
                  "byte (HBM)</text>",
                  KW_RF_L + pw / 2, KW_RF_H - 4);
    /* the roof: bandwidth-bound up to the ridge, then the FP32 vector peak */
    kw_buf_printf(o,
                  "<path class=\"kw-curve\" d=\"M%.2f %.2f L%.2f %.2f H%.2f\"><title>%g TB/s "
                  "HBM, %g TFLOP/s FP32 vector; ridge %.1f FLOP/byte</title></path>",
                  KW_X(pow(10, xlo)), KW_Y(bw * pow(10, xlo)), KW_X(ridge), KW_Y(peak),
                  KW_X(pow(10, xhi)), bw, peak, ridge);
#undef KW_X
#undef KW_Y
}

/* The chart of one arch: the roof of g and the points of f. */
static void kw_rf_svg(kw_rf *f, kw_buf *o, const char *arch, const kw_gpu *g) {
    double peak = g->fp32_vector_tflops, bw = g->hbm_tbs, ridge = peak / bw;
    double xmin = ridge, xmax = ridge, ymin = bw * ridge / 100;
    bool drawn[KW_RF_MAXPTS];
    for (size_t i = 0; i < f->npts; i++) {
        const kw_rf_point *p = &f->pts[i];
        drawn[i] = p->flops > 0 && p->bytes > 0 && p->ns > 0;
        if (!drawn[i])
            continue;
        double ai = p->flops / p->bytes, tf = p->flops / p->ns / 1e3;
        xmin = kw_rf_min(xmin, ai);
        xmax = kw_rf_max(xmax, ai);
        ymin = kw_rf_min(ymin, tf);
    }
    double xlo = floor(log10(xmin)) - 1, xhi = ceil(log10(xmax)) + 1;
    ymin = kw_rf_min(ymin, bw * pow(10, xlo));
    double ylo = floor(log10(ymin)), yhi = ceil(log10(peak * 1.5));
    double pw = KW_RF_W - KW_RF_L - KW_RF_R, ph = KW_RF_H - KW_RF_T - KW_RF_B;
#define KW_X(ai) (KW_RF_L + (log10(ai) - xlo) / (xhi - xlo) * pw)
#define KW_Y(tf) (KW_RF_T + ph - (log10(tf) - ylo) / (yhi - ylo) * ph)
    /* the frame: the svg element, axes and roof up to the points */
    kw_rf_frame(o, arch, g, xlo, xhi, ylo, yhi);
    for (size_t i = 0; i < f->npts; i++) {
        const kw_rf_point *p = &f->pts[i];
        if (!drawn[i]) {
            kw_rf_why(f, kw_arena_printf(&f->r->scratch,
                                         "%s: %g FLOP, no point on a log scale (%g bytes in %g "
                                         "ns)",
                                         p->from, p->flops, p->bytes, p->ns));
            continue;
        }
        double ai = p->flops / p->bytes, tf = p->flops / p->ns / 1e3;
        double cx = KW_X(ai), cy = KW_Y(tf);
        kw_buf_printf(o,
                      "<circle class=\"kw-pt\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" "
                      "data-bytes=\"%.17g\" data-flops=\"%.17g\" data-ns=\"%.17g\"><title>",
                      cx, cy, p->bytes, p->flops, p->ns);
        kw_html_esc(o, p->from);
        kw_buf_printf(o,
                      ": %.3g FLOP per byte, %.3g TFLOP/s, %.3g TB/s (%.1f%% of the HBM "
                      "peak)</title></circle>",
                      ai, tf, p->bytes / p->ns / 1e3, 100 * p->bytes / p->ns / 1e3 / bw);
        kw_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"kw-tk\">%.3g TFLOP/s</text>", cx + 8,
                      cy < KW_RF_T + 20 ? cy + 16 : cy - 6, tf);
    }
#undef KW_X
#undef KW_Y
    kw_buf_puts(o, "</svg>\n");
}

void kw_html_roofline(kw_render *r, kw_buf *out) {
    kw_rf f;
    memset(&f, 0, sizeof f);
    f.r = r;
    kw_buf_init(&f.why);
    kw_buf arch;
    kw_buf_init(&arch);
    for (size_t a = 0; a < r->archs.n; a++) {
        const char *an = r->archs.v[a].arch;
        f.npts = 0;
        kw_buf_reset(&f.why);
        kw_buf_reset(&arch);
        kw_html_esc(&arch, an);
        const kw_page_perf_arch *pa = &r->page.perf->archs[a];
        const kw_gpu *g = pa->gpu;
        kw_buf_printf(out, "<figure class=\"kw-roof-fig\" data-arch=\"%s\">", kw_buf_str(&arch));
        if (!pa->roof) {
            kw_buf_printf(out, "<figcaption>%s: no roofline: ", kw_buf_str(&arch));
            kw_html_esc(out, pa->gpu_mismatch ? "--gpu names a product of another arch"
                                              : "annotations/hw/amdgpu-peaks.txt gives no HBM "
                                                "and FP32 peaks for it");
            kw_buf_puts(out, ".</figcaption></figure>\n");
            continue;
        }
        if (r->page.perf->measured)
            kw_rf_trace(&f, an);
        if (!r->page.perf->measured || r->page.perf->time_us >= 0)
            kw_rf_launches(&f, a);
        kw_rf_svg(&f, out, kw_buf_str(&arch), g);
        if (!f.npts)
            kw_buf_printf(out,
                          "<figcaption>%s: no point for this kernel: its bytes, FLOP and "
                          "time are not all known%s</figcaption>",
                          kw_buf_str(&arch),
                          r->page.perf->measured || r->page.perf->time_us >= 0
                              ? ""
                              : " (kwalk site was run without --trace or --time-us: nothing "
                                "gives a time)");
        if (f.why.len)
            kw_buf_printf(out, "<ul class=\"kw-roof-why\">%s</ul>", kw_buf_str(&f.why));
        kw_buf_puts(out, "</figure>\n");
    }
    kw_buf_free(&arch);
    kw_buf_free(&f.why);
}
