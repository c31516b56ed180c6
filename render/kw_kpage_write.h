/* kw_kpage_write.h: a kernel's page (model/kw_kpage.h) in the page's
 * printer (render/kw_r.c): Markdown for `kwalk render NAME`, HTML for a
 * kernel page of `kwalk site` (r->o->html_blocks, r->out == r->page_out):
 * what the kernel is, where it is defined, what --shape selects, and its
 * dispatch table, one table per group of instantiations that share their
 * dispatch conditions. Computes nothing; the model decided every row.
 *
 * In HTML the --shape part is the site's shape box (its script evaluates
 * the conditions of render/kw_html_kpage.c's data), each instantiation
 * links to its page (mk->page, data-r its row), and every table has the
 * shape column. */
#ifndef KW_KPAGE_WRITE_H
#define KW_KPAGE_WRITE_H

#include "model/kw_kpage.h"
#include "render/kw_render.h"

/* query: the name the user gave (said when it picked some of the kernel's
 * instantiations; NULL: none); paths printed relative to r->o->root. */
void kw_kpage_write(kw_render *r, const kw_kpage *p, const char *query);

#endif
