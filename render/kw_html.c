/* kw_html.c: the HTML side of a site page: escaping, the page shell, the
 * Markdown walkthrough converted by libcmark-gfm (GFM tables; the raw HTML
 * the renderer writes, <details> and anchors, kept; the tables and lists
 * the renderer wrote as HTML spliced in around it), and the page itself. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "render/kw_html.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "common/kw_esc.h"
#include "model/kw_page_isa.h"

/* A line that stands for an HTML block of the page in the converter's input
 * ("<!--kwalk-block NONCE-->"): an HTML comment block, which the converter
 * writes out as it is, and which no page's text can make (the nonce is drawn
 * for the process; the page's own text reaches the output escaped, a doc
 * comment's raw HTML included: kw_md_doc makes it text). */
static char kw_html_mark[48];
static size_t kw_html_markn;

static void kw_html_mark_init(void) {
    unsigned long long x = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32) ^
                           (unsigned long long)(uintptr_t)&kw_html_markn;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    kw_html_markn =
        (size_t)snprintf(kw_html_mark, sizeof kw_html_mark, "<!--kwalk-block %016llx-->", x);
}

void kw_html_global_init(void) {
    cmark_gfm_core_extensions_ensure_registered();
    kw_html_mark_init();
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

/* The converted walkthrough of the page being written, and the Markdown the
 * converter reads (one each per thread). */
static _Thread_local kw_buf kw_html_body, kw_html_md, kw_html_conv;

void kw_html_thread_free(void) {
    kw_html_charts_thread_free();
    kw_buf_free(&kw_html_body);
    kw_buf_init(&kw_html_body);
    kw_buf_free(&kw_html_md);
    kw_buf_init(&kw_html_md);
    kw_buf_free(&kw_html_conv);
    kw_buf_init(&kw_html_conv);
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

/* KWALK_DEBUG_MD=1 (while the sections move to the page's printer): each
 * run of Markdown a page still leaves to the converter, on stderr. */
static void kw_html_debug_md(const kw_render *r, const char *m, size_t n) {
    static int on = -1;
    if (on < 0)
        on = getenv("KWALK_DEBUG_MD") != NULL;
    if (!on)
        return;
    size_t at = 0;
    for (size_t i = 0; i <= r->html.n; i++) {
        size_t end = i < r->html.n ? r->html.v[i].at : n;
        size_t a = at;
        while (a < end && (m[a] == '\n' || m[a] == ' '))
            a++;
        if (a < end)
            fprintf(stderr, "kwalk: debug: %s: Markdown left: %.*s\n", r->mk ? r->mk->symbol : "?",
                    (int)(end - a > 160 ? 160 : end - a), m + a);
        at = i < r->html.n ? r->html.v[i].end : n;
    }
}

/* Whether the page is HTML blocks only, with nothing but blank lines
 * between them: then it is its HTML. */
static bool kw_html_blocks_only(const kw_render *r, const char *m, size_t n) {
    size_t at = 0;
    for (size_t i = 0; i <= r->html.n; i++) {
        size_t end = i < r->html.n ? r->html.v[i].at : n;
        for (; at < end; at++)
            if (m[at] != '\n')
                return false;
        at = i < r->html.n ? r->html.v[i].end : n;
    }
    return true;
}

kw_status kw_html_from_page_md(const kw_render *r, const kw_buf *md, kw_buf *out, kw_err *err) {
    const char *m = md->ptr ? md->ptr : "";
    kw_html_debug_md(r, m, md->len);
    if (r->html.n && kw_html_blocks_only(r, m, md->len)) {
        for (size_t i = 0; i < r->html.n; i++)
            kw_buf_append(out, m + r->html.v[i].at, r->html.v[i].end - r->html.v[i].at);
        return KW_OK;
    }
    if (!r->html.n || !kw_html_markn) /* (no marker without kw_html_global_init) */
        return kw_html_from_md(m, md->len, out, err);
    kw_buf *in = &kw_html_md;
    kw_buf_reset(in);
    size_t at = 0;
    for (size_t i = 0; i < r->html.n; i++) {
        kw_buf_append(in, m + at, r->html.v[i].at - at);
        kw_buf_append(in, kw_html_mark, kw_html_markn);
        kw_buf_putc(in, '\n');
        at = r->html.v[i].end;
    }
    kw_buf_append(in, m + at, md->len - at);
    kw_buf *conv = &kw_html_conv;
    kw_buf_reset(conv);
    kw_status st =
        in->oom ? kw_fail(err, "out of memory") : kw_html_from_md(in->ptr, in->len, conv, err);
    /* each marker line of the output, in order, is its block */
    const char *c = conv->ptr ? conv->ptr : "", *p = c;
    for (size_t i = 0; st == KW_OK && i < r->html.n; i++) {
        const char *q = strstr(p, kw_html_mark);
        if (!q || (q > c && q[-1] != '\n') || q[kw_html_markn] != '\n') {
            st = kw_fail(err, "libcmark-gfm did not keep an HTML block of the page");
            break;
        }
        kw_buf_append(out, p, (size_t)(q - p));
        kw_buf_append(out, m + r->html.v[i].at, r->html.v[i].end - r->html.v[i].at);
        p = q + kw_html_markn + 1;
    }
    if (st == KW_OK)
        kw_buf_puts(out, p);
    return st;
}

/* The charts and the source <-> ISA view, before section 6 of a page. */
static void kw_html_views(kw_render *r, kw_buf *out) {
    kw_html_charts(r, out);
    kw_html_isa(r, out);
}

kw_status kw_html_page(kw_render *r, size_t ki, kw_buf *md, kw_buf *out, kw_err *err) {
    kw_buf_reset(md);
    r->md_html = kw_html_from_md;
    /* the diagram and the views, written by the page where they go */
    r->site_flow = kw_html_flow;
    r->site_views = kw_html_views;
    kw_status st = kw_render_kernel(r, ki, md, err);
    r->site_flow = r->site_views = NULL;
    if (st != KW_OK)
        return KW_ERR;
    const kw_mkernel *mk = &r->m->kernels.v[ki];
    kw_html_open(out, kw_r_title(r, mk));
    kw_buf_puts(out, "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a> · "
                     "<a href=\"map.html\">Map</a> · <a href=\"#kw-charts\">Charts</a> · <a "
                     "href=\"#kw-si\">Source ↔ ISA</a></nav>\n"
                     "<main>\n");
    kw_buf *body = &kw_html_body;
    kw_buf_reset(body);
    if (kw_html_from_page_md(r, md, body, err) != KW_OK)
        return KW_ERR;
    kw_buf_append(out, body->ptr ? body->ptr : "", body->len);
    kw_buf_puts(out, "</main>\n<script src=\"" KW_HTML_PAGE_JS "\"></script>\n");
    kw_html_close(out);
    return out->oom || md->oom || body->oom ? kw_fail(err, "out of memory") : KW_OK;
}
