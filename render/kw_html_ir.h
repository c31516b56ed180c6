/* kw_html_ir.h: the IR view of a Triton specialization, a page of its own in
 * the site (NAME.ir.html beside NAME.html, docs/site.md): the source and the
 * TTIR, TTGIR, LLIR and AMDGCN texts side by side, each line with the Python
 * line its stage's own location information gives (model/kw_irview.h); a
 * line picked in one pane highlights the lines of the same Python line in
 * every other. kw_html_ir.c writes the page, kw_html_ir_assets.c its style
 * sheet and script (written into DIR once). */
#ifndef KW_HTML_IR_H
#define KW_HTML_IR_H

#include <stdbool.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "model/kw_model.h"
#include "model/kw_src.h"

#define KW_HTML_IR_CSS "kwalk-ir.css"
#define KW_HTML_IR_JS "kwalk-ir.js"
extern const char kw_html_ir_css[];
extern const char kw_html_ir_js[];

/* Whether kernel mk gets an IR view (a Triton specialization), and its
 * page's name (NAME.ir.html for NAME.html) in arena a; NULL when none (or
 * out of memory). The walkthrough links to it (render/kw_html.c). */
const char *kw_html_ir_name(kw_arena *a, const kw_mkernel *mk);

/* The IR view page of kernel mk (title: its page's title), its sources read
 * through srcs, appended to out. */
kw_status kw_html_ir_page(const kw_mkernel *mk, const char *title, kw_srcs *srcs, kw_buf *out,
                          kw_err *err);

#endif
