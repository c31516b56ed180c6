/* kw_html.c: the HTML side of a site page: escaping, the page shell, the
 * walkthrough written by the HTML printer (render/kw_r.c) with the parts
 * only a browser shows placed by the page, and libcmark-gfm for the
 * Markdown an author wrote and map.html's. */
#include "render/kw_html.h"

#include <stdint.h>
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

void kw_html_escn(kw_buf *b, const char *s, size_t n) {
    kw_esc_html(b, s, n, true);
}

void kw_html_esc(kw_buf *b, const char *s) {
    kw_html_escn(b, s ? s : "", s ? strlen(s) : 0);
}

/* The characters kw_html_json escapes: control characters, '"', '\\', and
 * '<', '>', '&' (no "</script>" or "<!--" inside the element). */
static const unsigned char kw_json_esc[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
    [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
    [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
    ['"'] = 1,  ['\\'] = 1, ['<'] = 1,  ['>'] = 1,  ['&'] = 1,
};

/* Whether any of the 8 bytes of x is one kw_html_json escapes (exact as a
 * yes or no: the borrows of the tests only mark lanes above a true one). */
static inline uint64_t kw_json_any8(uint64_t x) {
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
#define KW_EQ8(c) ((((x ^ (ones * (c))) - ones) & ~(x ^ (ones * (c)))) & high)
    uint64_t ctl = (x - ones * 0x20) & ~x & high; /* a byte below 0x20 */
    return ctl | KW_EQ8('"') | KW_EQ8('\\') | KW_EQ8('<') | KW_EQ8('>') | KW_EQ8('&');
#undef KW_EQ8
}

/* Written in place (a bound of 6 bytes per byte is reserved first), eight
 * bytes at a time where none needs escaping: a page's listings are most of
 * its JSON. */
void kw_html_json(kw_buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    char *q0 = n < SIZE_MAX / 8 ? kw_buf_room(b, 6 * n + 2) : NULL;
    if (!q0) {
        kw_buf_room(b, SIZE_MAX); /* marks the buffer out of memory */
        return;
    }
    char *q = q0;
    *q++ = '"';
    size_t i = 0;
    while (i < n) {
        uint64_t x;
        while (i + 8 <= n && (memcpy(&x, s + i, 8), !kw_json_any8(x))) {
            memcpy(q, &x, 8);
            q += 8;
            i += 8;
        }
        for (size_t stop = i + 8 < n ? i + 8 : n; i < stop; i++) {
            unsigned char c = (unsigned char)s[i];
            if (!kw_json_esc[c]) {
                *q++ = (char)c;
                continue;
            }
            *q++ = '\\';
            if (c == '\n')
                *q++ = 'n'; /* a listing's lines */
            else if (c == '\t')
                *q++ = 't';
            else if (c == '"' || c == '\\')
                *q++ = (char)c;
            else {
                memcpy(q, "u00", 3);
                q[3] = hex[c >> 4];
                q[4] = hex[c & 15];
                q += 5;
            }
        }
    }
    *q++ = '"';
    kw_buf_commit(b, (size_t)(q - q0));
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

void kw_html_thread_free(void) {
    kw_html_charts_thread_free();
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

kw_status kw_html_page(kw_render *r, size_t ki, kw_buf *md, kw_buf *out, kw_err *err) {
    (void)md;
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
