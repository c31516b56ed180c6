/* kw_html.c: the HTML side of a site page: escaping, the page shell, the
 * Markdown walkthrough converted by libcmark-gfm (GFM tables; the raw HTML
 * the renderer writes, <details> and anchors, kept), and the page itself. */
#include "render/kw_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "codeobj/kw_codeobj.h"

void kw_html_global_init(void) {
    cmark_gfm_core_extensions_ensure_registered();
    (void)kw_co_hw_lookup("gfx942"); /* the occupancy table, read once before the threads */
}

void kw_html_escn(kw_buf *b, const char *s, size_t n) {
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            continue;
        }
        kw_buf_append(b, s + run, i - run);
        kw_buf_puts(b, rep);
        run = i + 1;
    }
    kw_buf_append(b, s + run, n - run);
}

void kw_html_esc(kw_buf *b, const char *s) {
    kw_html_escn(b, s ? s : "", s ? strlen(s) : 0);
}

void kw_html_json(kw_buf *b, const char *s, size_t n) {
    kw_buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        /* '<' and '>' as escapes: no "</script>" or "<!--" inside the element */
        if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&')
            continue;
        kw_buf_append(b, s + run, i - run);
        if (c == '"' || c == '\\')
            kw_buf_printf(b, "\\%c", c);
        else if (c == '\t')
            kw_buf_puts(b, "\\t");
        else
            kw_buf_printf(b, "\\u%04x", c);
        run = i + 1;
    }
    kw_buf_append(b, s + run, n - run);
    kw_buf_putc(b, '"');
}

void kw_html_open(kw_buf *b, const char *title) {
    kw_buf_puts(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>");
    kw_html_esc(b, title);
    kw_buf_puts(b, "</title>\n<style>");
    kw_buf_puts(b, kw_html_css);
    kw_buf_puts(b, "</style>\n<script>");
    kw_buf_puts(b, kw_html_errors_js);
    kw_buf_puts(b, "</script>\n</head>\n<body>\n");
}

void kw_html_close(kw_buf *b) {
    kw_buf_puts(b, "<pre id=\"kw-errors\" hidden></pre>\n</body></html>\n");
}

kw_status kw_html_from_md(const char *md, size_t len, kw_buf *out, kw_err *err) {
    int opts = CMARK_OPT_UNSAFE; /* the renderer's own <details> and anchors */
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

kw_status kw_html_page(kw_render *r, size_t ki, kw_buf *md, kw_buf *out, kw_err *err) {
    kw_buf_reset(md);
    if (kw_render_kernel(r, ki, md, err) != KW_OK)
        return KW_ERR;
    const kw_mkernel *mk = &r->m->kernels.v[ki];
    kw_html_open(out, mk->name);
    kw_buf_puts(out,
                "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a> · "
                "<a href=\"#kw-charts\">Charts</a> · <a href=\"#kw-si\">Source ↔ ISA</a></nav>\n"
                "<main>\n");
    size_t at = out->len;
    if (kw_html_from_md(md->ptr ? md->ptr : "", md->len, out, err) != KW_OK)
        return KW_ERR;
    /* the source <-> ISA view goes before section 6 (or at the end) */
    const char *body = out->ptr ? out->ptr + at : "";
    const char *six = strstr(body, "<h2>6. ");
    if (six) {
        size_t cut = (size_t)(six - out->ptr);
        kw_buf tail;
        kw_buf_init(&tail);
        kw_buf_append(&tail, out->ptr + cut, out->len - cut);
        out->len = cut;
        kw_html_charts(r, out);
        kw_html_isa(r, out);
        kw_buf_append(out, tail.ptr ? tail.ptr : "", tail.len);
        kw_buf_free(&tail);
    } else {
        kw_html_charts(r, out);
        kw_html_isa(r, out);
    }
    kw_buf_puts(out, "</main>\n<script>");
    kw_buf_puts(out, kw_html_page_js);
    kw_buf_puts(out, "</script>\n");
    kw_html_close(out);
    return out->oom || md->oom ? kw_fail(err, "out of memory") : KW_OK;
}
