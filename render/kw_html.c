/* kw_html.c: the HTML side of a site page: the page shell, the
 * walkthrough written by the HTML printer (render/kw_r.c) with the parts
 * only a browser shows placed by the page, and libcmark-gfm for the
 * Markdown an author wrote (doc comments), never for generated text. */
#include "render/kw_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "common/kw_esc.h"
#include "model/kw_page_isa.h"

void kw_html_global_init(void) {
    cmark_gfm_core_extensions_ensure_registered();
    kw_page_isa_global_init(); /* the tables it reads, read once before the threads */
}

/* The page's Content-Security-Policy (docs/security.md): scripts only from
 * the site's files and the one inline script by its digest, so no inline
 * handler, javascript: URL or injected inline script runs; styles only from
 * the site's style sheet; nothing fetched from elsewhere. */
static void kw_html_csp(kw_buf *b) {
    char digest[52];
    kw_sha256_csp(kw_html_errors_js, strlen(kw_html_errors_js), digest);
    kw_buf_puts(b, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "script-src 'self' '");
    kw_buf_puts(b, digest);
    kw_buf_puts(b, "'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
                   "form-action 'none'\">\n");
}

void kw_html_open(kw_buf *b, const char *title) {
    kw_buf_puts(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    kw_html_csp(b);
    kw_buf_puts(b, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>");
    kw_html_esc(b, title);
    kw_buf_puts(b, "</title>\n<link rel=\"stylesheet\" href=\"" KW_HTML_CSS "\">\n<script>");
    kw_buf_puts(b, kw_html_errors_js);
    kw_buf_puts(b, "</script>\n</head>\n<body>\n");
}

void kw_html_close(kw_buf *b) {
    kw_buf_puts(b, "<pre id=\"kw-errors\" hidden></pre>\n</body></html>\n");
}

kw_status kw_html_from_md(const char *md, size_t len, kw_buf *out, kw_err *err) {
    int opts = CMARK_OPT_UNSAFE; /* the writer's own <details> and anchors */
    cmark_parser *p = cmark_parser_new(opts);
    cmark_syntax_extension *table = cmark_find_syntax_extension("table");
    if (!p || !table) {
        if (p)
            cmark_parser_free(p);
        return kw_fail(err, "libcmark-gfm: %s", p ? "no table extension" : "out of memory");
    }
    cmark_parser_attach_syntax_extension(p, table);
    cmark_parser_feed(p, md, len);
    cmark_node *doc = cmark_parser_finish(p);
    char *html = doc ? cmark_render_html(doc, opts, cmark_parser_get_syntax_extensions(p)) : NULL;
    if (html)
        kw_buf_puts(out, html);
    free(html);
    if (doc)
        cmark_node_free(doc);
    cmark_parser_free(p);
    return html ? KW_OK : kw_fail(err, "libcmark-gfm: cannot convert the page");
}

/* A Triton specialization's link to its IR view, NAME.ir.html beside NAME.html
 * (the name kw_html_ir_name gives, render/kw_html_ir.c, written by the site). */
static void kw_html_ir_link(kw_buf *out, const kw_mkernel *mk) {
    size_t n = mk->page ? strlen(mk->page) : 0;
    if (!mk->k || !mk->k->triton || n < 5 || strcmp(mk->page + n - 5, ".html"))
        return;
    kw_buf_puts(out, " · <a href=\"");
    kw_html_escn(out, mk->page, n - 5);
    kw_buf_puts(out, ".ir.html\">IR stages</a>");
}

/* The charts and the source <-> ISA view, before section 6 of a page. */
static void kw_html_views(kw_render *r, kw_buf *out) {
    kw_html_charts(r, out);
    kw_html_isa(r, out);
}

kw_status kw_html_page(kw_render *r, size_t ki, kw_buf *out, kw_err *err) {
    const kw_mkernel *mk = &r->m->kernels.v[ki];
    kw_html_open(out, kw_r_title(r, mk));
    kw_buf_puts(out, "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a> · "
                     "<a href=\"map.html\">Map</a> · <a href=\"#kw-charts\">Charts</a> · <a "
                     "href=\"#kw-si\">Source ↔ ISA</a>");
    kw_html_ir_link(out, mk); /* a Triton specialization's IR view */
    kw_buf_puts(out, "</nav>\n<main>\n");
    /* the walkthrough, by the HTML printer; the diagram and the views
     * written by the page where they go */
    r->md_html = kw_html_from_md;
    r->site_flow = kw_html_flow;
    r->site_views = kw_html_views;
    kw_status st = kw_render_kernel(r, ki, out, err);
    r->site_flow = r->site_views = NULL;
    if (st != KW_OK)
        return KW_ERR;
    kw_buf_puts(out, "</main>\n<script src=\"" KW_HTML_PAGE_JS "\"></script>\n");
    kw_html_close(out);
    return out->oom ? kw_fail(err, "out of memory") : KW_OK;
}
