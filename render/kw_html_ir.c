/* kw_html_ir.c: writes the IR view page of a Triton specialization
 * (kw_html_ir.h). Its data is inline JSON (#kw-ir-data), read by kwalk-ir.js:
 *   page: the walkthrough's page name;
 *   files: [{p: the path read, ir: the path as the IR writes it,
 *            why: why it cannot be read or null,
 *            s: [[first line, [text, ...]], ...] -- the lines shown}];
 *   stages: [{n: "TTIR" | "TTGIR" | "LLIR" | "AMDGCN", p: the cache file,
 *             why: why it is not shown or null, t: its text,
 *             r: [count, file, line, ...] -- its lines in order, in runs of
 *                the same position (file -1: none)}]
 * Every input goes through kw_html_esc or kw_html_json (docs/security.md). */
#include <string.h>

#include "model/kw_irview.h"
#include "render/kw_html.h"
#include "render/kw_html_ir.h"

const char *kw_html_ir_name(kw_arena *a, const kw_mkernel *mk) {
    if (!mk->k || !mk->k->triton || !mk->page)
        return NULL;
    size_t n = strlen(mk->page);
    if (n < 5 || strcmp(mk->page + n - 5, ".html"))
        return NULL;
    return kw_arena_printf(a, "%.*s.ir.html", (int)(n - 5), mk->page);
}

static void kw_hir_str(kw_buf *o, const char *s) {
    if (s)
        kw_html_json(o, s, strlen(s));
    else
        kw_buf_puts(o, "null");
}

/* An object opened with three members, keys[i]: vals[i] (a string or null). */
static void kw_hir_open(kw_buf *o, const char *const keys[3], const char *const vals[3]) {
    for (int i = 0; i < 3; i++) {
        kw_buf_puts(o, i ? ",\"" : "{\"");
        kw_buf_puts(o, keys[i]);
        kw_buf_puts(o, "\":");
        kw_hir_str(o, vals[i]);
    }
}

static void kw_hir_file(kw_buf *o, const kw_irview_file *f) {
    kw_hir_open(o, (const char *const[3]){"p", "ir", "why"},
                (const char *const[3]){f->path, f->ir, f->src && !f->src->ok ? f->src->why : NULL});
    kw_buf_puts(o, ",\"s\":[");
    for (size_t i = 0; f->src && f->src->ok && i + 1 < f->runs.n; i += 2) {
        kw_buf_puts(o, i ? ",[" : "[");
        kw_buf_int(o, f->runs.v[i]);
        kw_buf_puts(o, ",[");
        for (int l = f->runs.v[i]; l <= f->runs.v[i + 1]; l++) {
            const char *t;
            size_t n;
            if (!kw_src_line(f->src, l, &t, &n))
                t = "", n = 0;
            if (l > f->runs.v[i])
                kw_buf_putc(o, ',');
            kw_html_json(o, t, n);
        }
        kw_buf_puts(o, "]]");
    }
    kw_buf_puts(o, "]}");
}

static void kw_hir_stage(kw_buf *o, const kw_irview_stage *st) {
    kw_hir_open(o, (const char *const[3]){"n", "p", "why"},
                (const char *const[3]){st->name, st->path, st->why});
    kw_buf_puts(o, ",\"t\":");
    if (st->text)
        kw_html_json(o, st->text, st->len);
    else
        kw_buf_puts(o, "null");
    kw_buf_puts(o, ",\"r\":[");
    for (size_t i = 0; i < st->nlines;) {
        size_t j = i + 1;
        while (j < st->nlines && st->file[j] == st->file[i] && st->line[j] == st->line[i])
            j++;
        if (i)
            kw_buf_putc(o, ',');
        kw_buf_printf(o, "%zu,%d,%d", j - i, st->file[i], st->file[i] < 0 ? 0 : st->line[i]);
        i = j;
    }
    kw_buf_puts(o, "]}");
}

kw_status kw_html_ir_page(const kw_mkernel *mk, const char *title, kw_srcs *srcs, kw_buf *out,
                          kw_err *err) {
    kw_irview v;
    if (kw_irview_build(&v, mk->k, srcs, err) != KW_OK) {
        kw_irview_free(&v);
        return KW_ERR;
    }
    kw_buf t;
    kw_buf_init(&t);
    kw_buf_printf(&t, "IR: %s", title ? title : mk->name);
    kw_html_open(out, kw_buf_str(&t));
    kw_buf_free(&t);
    kw_buf_puts(out, "<link rel=\"stylesheet\" href=\"" KW_HTML_IR_CSS "\">\n"
                     "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a> · <a href=\"");
    kw_html_esc(out, mk->page);
    kw_buf_puts(out, "\">Walkthrough</a></nav>\n<main class=\"kw-irmain\">\n<h1>IR of <code>");
    kw_html_esc(out, mk->k->symbol ? mk->k->symbol : mk->name);
    kw_buf_puts(out, "</code></h1>\n<p class=\"kw-help\">Each stage of Triton's cache beside the "
                     "source. A line's Python line is the stage's own location information: "
                     "<code>loc(...)</code> in the TTIR and TTGIR, <code>!dbg</code> in the LLIR, "
                     "<code>.loc</code> in the AMDGCN (innermost position; lines without one are "
                     "grey). Click a line to highlight the lines of the same Python line in every "
                     "pane.</p>\n<div id=\"kw-ir\"><div class=\"kw-irpanes\"></div></div>\n"
                     "<script type=\"application/json\" id=\"kw-ir-data\">{\"page\":");
    kw_hir_str(out, mk->page);
    kw_buf_puts(out, ",\"files\":[");
    for (size_t i = 0; i < v.files.n; i++) {
        if (i)
            kw_buf_putc(out, ',');
        kw_hir_file(out, &v.files.v[i]);
    }
    kw_buf_puts(out, "],\"stages\":[");
    for (int s = 0; s < KW_IRVIEW_NSTAGES; s++) {
        if (s)
            kw_buf_putc(out, ',');
        kw_hir_stage(out, &v.stages[s]);
    }
    kw_buf_puts(out, "]}</script>\n</main>\n<script src=\"" KW_HTML_IR_JS "\"></script>\n");
    kw_html_close(out);
    kw_irview_free(&v);
    return out->oom ? kw_fail(err, "out of memory") : KW_OK;
}
