/* kw_html.h: the static site of `kwalk site -o DIR` (docs/site.md): one HTML
 * page per kernel instantiation, DIR/index.html and DIR/map.html. A page is
 * the walkthrough kw_render_kernel writes by the HTML printer (render/kw_r.c:
 * every input escaped; a doc comment, an author's Markdown, through
 * libcmark-gfm with its HTML made text: docs/security.md), plus a source <-> ISA view per arch drawn from
 * the page model's line table (kw_html_isa.c), whose data the page script also writes section 5's
 * listings from (kw_render_opts.listing_in_view: the Markdown leaves them empty); the index is one
 * sortable, filterable table of every instantiation (kw_html_index.c). Everything a page needs is
 * inline or in DIR: it opens from file:// with no server and no network. */
#ifndef KW_HTML_H
#define KW_HTML_H

#include <stddef.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "model/kw_kpage.h"
#include "model/kw_map.h"
#include "render/kw_render.h"

/* The assets (kw_html_assets.c): the style sheet and the scripts of the pages
 * and of the index, written once into DIR under these names (pages link to
 * them: 10,000 pages do not carry 10,000 copies); and the error collector,
 * inline in every page so that it runs first and sees a missing asset. */
#define KW_HTML_CSS "kwalk-site.css"
#define KW_HTML_PAGE_JS "kwalk-page.js"
#define KW_HTML_INDEX_JS "kwalk-index.js"
#define KW_HTML_KERNEL_JS "kwalk-kernel.js"
extern const char kw_html_css[];
extern const char kw_html_page_js[];
extern const char kw_html_index_js[];
/* The kernel pages' script (kw_html_kpage_js.c): the shape box. */
extern const char kw_html_kernel_js[];
/* Every instantiation in one table (kw_html_index); DIR/index.html lists
 * the kernels (kw_html_kernels). */
#define KW_HTML_INSTANTIATIONS "instantiations.html"
/* Collects script errors and console.error calls into #kw-errors at load. */
extern const char kw_html_errors_js[];

/* Call once before pages are converted on several threads. */
void kw_html_global_init(void);


/* s as HTML text (or attribute value): & < > " ' escaped (kw_html_esc.c). */
void kw_html_esc(kw_buf *b, const char *s);
void kw_html_escn(kw_buf *b, const char *s, size_t n);
/* s as a JSON string literal that is safe inside a <script> element. */
void kw_html_json(kw_buf *b, const char *s, size_t n);

/* "<!doctype html>...<body>" with the Content-Security-Policy (scripts only
 * from the site's files and the error collector by its SHA-256), title, the
 * CSS and the error collector; and the matching end. */
void kw_html_open(kw_buf *b, const char *title);
void kw_html_close(kw_buf *b);

/* libcmark-gfm's HTML of the GFM document md[0, len) (an author's text: a
 * doc comment kw_md_doc quoted) appended to out. */
kw_status kw_html_from_md(const char *md, size_t len, kw_buf *out, kw_err *err);

/* The whole page of kernel ki: kw_render_kernel's walkthrough written by the
 * HTML printer, with the diagram as SVG and the charts and the source <->
 * ISA view before section 6. */
kw_status kw_html_page(kw_render *r, size_t ki, kw_buf *out, kw_err *err);

/* The source <-> ISA view of the page r last rendered (r->page, r->archs):
 * its container and its data as inline JSON. */
void kw_html_isa(kw_render *r, kw_buf *out);

/* The charts of that page: occupancy against VGPRs and the instruction-class
 * mix per arch, as inline SVG (kw_html_charts.c). */
void kw_html_charts(kw_render *r, kw_buf *out);

/* The roofline of that page per arch shown: the GPU's HBM and FP32 roof
 * and the kernel's point where bytes, FLOP and a time are known (--shape
 * and --time-us, or --trace), else what is missing (kw_html_roofline.c). */
void kw_html_roofline(kw_render *r, kw_buf *out);

/* Section 3's data-flow diagram of that page (r->page.flow) as SVG boxes and
 * arrows (kw_html_flow.c); nothing when the page has none. */
void kw_html_flow(kw_render *r, kw_buf *out);

/* DIR/map.html: the page of `kwalk map` (render/kw_map_write.h) written
 * from map (whose sites kw_map_sites_build indexed) by the HTML printer,
 * its launch sites linked to the page of the instantiation they launch (or,
 * like template names, to index.html filtered by them: ?q=TEXT). */
kw_status kw_html_map(kw_render *r, kw_map *map, kw_buf *out, kw_err *err);

/* DIR/instantiations.html: every instantiation in one table (mk->page
 * links); p: the index page's model, built from r's model. */
void kw_html_index(kw_render *r, const kw_ipage *p, kw_buf *out);

/* A kernel's page (kw_html_kpage.c): its dispatch table p, written by
 * kw_kpage_write in the HTML printer, each instantiation linking to its
 * page, and the data of its shape box; into out. */
kw_status kw_html_kpage(kw_render *r, const kw_kpage *p, kw_buf *out, kw_err *err);

/* The kernel level of the site in DIR (kw_html_kindex.c): a page per
 * kernel (model/kw_kfamily.h), evaluated for r->m->shape, and
 * DIR/index.html, a row per kernel (ip: the index page's model, for its
 * counts). *pages (*npages, in a): the kernel pages' names, for the
 * manifest. */
kw_status kw_html_kernels(kw_render *r, const kw_ipage *ip, const char *dir, kw_arena *a,
                          const char ***pages, size_t *npages, kw_err *err);

#endif
