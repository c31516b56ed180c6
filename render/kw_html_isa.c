/* kw_html_isa.c: the source <-> ISA view of a site page. Its data is inline
 * JSON (#kw-data) read by the page's script (kw_html_assets.c):
 *   files: [{p: path as printed, s: [[first line, [text, ...]], ...]}] -- the
 *          files the line tables name: the kernel's whole definition and the
 *          whole definition of each function of its device call tree (not a
 *          system header's) in those files, every other line named with a
 *          few lines of context;
 *          or {p, why} when the file cannot be read;
 *   notes: [text, ...] -- the ISA notes (annotations/isa) the listing uses;
 *   classes: [name, ...] -- the instruction classes it uses;
 *   mn: [[mnemonic, class, note], ...] -- per mnemonic of the listings (an
 *       instruction's text up to its first space): its class (codeobj/'s
 *       classifier, in the page model; an index into classes) and note (-1: none);
 *   archs: [{a: arch, why: why there are no lines or null,
 *            x: N -- the listing (kernels[].archs.<arch>.isa) is the text of
 *               <script type="text/plain" id="kw-isa-N"> after #kw-data, as
 *               it is: lines "OFFSET: text" (OFFSET in hex) an instruction,
 *               any other line a label;
 *            or t: the listing as a JSON string, when its text could not
 *               be read back from an element (kw_si_raw_ok); or t: null
 *               when there is none;
 *            r: [count, file, line, ...] -- the instructions in order, in runs
 *               of the same source line from `lines` (file -1: none)}]
 * The listing's text is written once, as it is, not a JSON array per
 * instruction: that was a fifth of a page's time and half its bytes. What
 * the view shows (files, spans, classes, notes, runs) is the page model's
 * (model/kw_page_isa.h, r->page.isa, built with view): written here only. */
#include <string.h>

#include "render/kw_html.h"

/* A listing written as it is, in an element of its own (kw_si_raw_ok). */
typedef struct kw_si_text {
    const char *p;
    size_t n;
} kw_si_text;

/* Whether the text t[0, n) reads back as it is from the textContent of a
 * <script type="text/plain">: no NUL or CR (the HTML parser replaces them)
 * and no "<!" or "</" (which could end the element). A listing has none;
 * one that has is written as a JSON string instead. */
static bool kw_si_raw_ok(const char *t, size_t n) {
    if (memchr(t, '\0', n) || memchr(t, '\r', n))
        return false;
    for (const char *p = t, *e = t + n; (p = memchr(p, '<', (size_t)(e - p))) != NULL; p++)
        if (p + 1 < e && (p[1] == '!' || p[1] == '/'))
            return false;
    return true;
}

/* One arch's instructions as JSON; a listing written as it is goes to raw. */
static void kw_si_arch(const kw_page_isa_arch *x, kw_buf *o, kw_si_text *raw, size_t *nraw) {
    const char *arch = x->a->arch;
    kw_buf_puts(o, "{\"a\":");
    kw_html_json(o, arch, strlen(arch));
    kw_buf_puts(o, ",\"why\":");
    if (x->why)
        kw_html_json(o, x->why, strlen(x->why));
    else
        kw_buf_puts(o, "null");
    const kw_page_isa_line *lns = x->lines;
    size_t nl = lns ? x->n : 0;
    if (!nl) {
        kw_buf_puts(o, ",\"t\":null,\"r\":[]}");
        return;
    }
    /* the lines are contiguous in the listing, one '\n' apart */
    const char *t = lns[0].p;
    size_t tn = (size_t)(lns[nl - 1].p + lns[nl - 1].len - t);
    if (raw && kw_si_raw_ok(t, tn)) {
        raw[*nraw] = (kw_si_text){t, tn};
        kw_buf_puts(o, ",\"x\":");
        kw_buf_int(o, (long long)(*nraw)++);
    } else {
        kw_buf_puts(o, ",\"t\":");
        kw_html_json(o, t, tn);
    }
    kw_buf_puts(o, ",\"r\":[");
    for (size_t i = 0; i < x->runs.n; i++) {
        /* the run's numbers formatted here and appended at once */
        const kw_page_isa_run *run = &x->runs.v[i];
        char num[3 * 24], *q = num;
        if (i)
            *q++ = ',';
        q = kw_dec(q, (long long)run->count);
        *q++ = ',';
        q = kw_dec(q, run->file);
        *q++ = ',';
        q = kw_dec(q, run->line);
        kw_buf_append(o, num, (size_t)(q - num));
    }
    kw_buf_puts(o, "]}");
}

/* A file's lines: the spans the page model shows, or why not. */
static void kw_si_file_json(kw_render *r, const kw_page_isa_file *f, kw_buf *o) {
    kw_buf_puts(o, "{\"p\":");
    const char *shown = kw_r_path(r, f->path);
    kw_html_json(o, shown, strlen(shown));
    if (f->why) {
        kw_buf_puts(o, ",\"why\":");
        kw_html_json(o, f->why, strlen(f->why));
        kw_buf_putc(o, '}');
        return;
    }
    kw_buf_puts(o, ",\"s\":[");
    for (size_t i = 0; i < f->spans.n; i++) {
        int lo = f->spans.v[i].lo, hi = f->spans.v[i].hi;
        kw_buf_printf(o, "%s[%d,[", i ? "," : "", lo);
        for (int l = lo; l <= hi; l++) {
            const char *text;
            size_t tl;
            if (!kw_src_line(f->src, l, &text, &tl))
                text = "", tl = 0;
            if (l > lo)
                kw_buf_putc(o, ',');
            kw_html_json(o, text, tl);
        }
        kw_buf_puts(o, "]]");
    }
    kw_buf_puts(o, "]}");
}

void kw_html_isa(kw_render *r, kw_buf *out) {
    const kw_page_isa *pi = r->page.isa;
    kw_si_text *raw = pi->shown ? kw_arena_alloc(&r->scratch, pi->shown * sizeof *raw) : NULL;
    size_t nraw = 0;
    kw_buf archs;
    kw_buf_init(&archs);
    size_t shown = 0;
    for (size_t a = 0; a < pi->archs.n; a++) {
        if (!pi->archs.v[a].a->facts)
            continue;
        kw_buf_puts(&archs, shown++ ? "," : "");
        kw_si_arch(&pi->archs.v[a], &archs, raw, &nraw);
    }
    kw_buf_puts(out, "<section id=\"kw-si\"><h2>Source ↔ ISA</h2>\n");
    if (!shown) {
        kw_buf_puts(out, "<p>No ISA was captured for this kernel, so there is nothing to show "
                         "side by side.</p>\n");
    } else {
        kw_buf_puts(out,
                    "<p class=\"kw-help\">From the code object's line table: click a source "
                    "line to highlight its instructions, an instruction to highlight its "
                    "line. Instructions without a line are marked ∅; hover one for its class "
                    "and note.</p>\n<div class=\"kw-tabs\"></div><div class=\"kw-why\"></div>\n"
                    "<div class=\"kw-panes\"><div class=\"kw-src\"></div>"
                    "<div class=\"kw-isa\"></div></div>\n");
    }
    kw_buf_puts(out, "</section>\n<script type=\"application/json\" id=\"kw-data\">{\"files\":[");
    for (size_t f = 0; f < pi->files.n; f++) {
        kw_buf_puts(out, f ? "," : "");
        kw_si_file_json(r, &pi->files.v[f], out);
    }
    kw_buf_puts(out, "],\"notes\":[");
    for (size_t n = 0; n < pi->notes.n; n++) {
        kw_buf_puts(out, n ? "," : "");
        kw_html_json(out, pi->notes.v[n], strlen(pi->notes.v[n]));
    }
    kw_buf_puts(out, "],\"classes\":[");
    for (size_t n = 0; n < pi->class_names.n; n++) {
        kw_buf_puts(out, n ? "," : "");
        kw_html_json(out, pi->class_names.v[n], strlen(pi->class_names.v[n]));
    }
    kw_buf_puts(out, "],\"mn\":[");
    for (size_t n = 0; n < pi->mns.n; n++) {
        const kw_page_isa_mnem *m = &pi->mns.v[n];
        kw_buf_puts(out, n ? ",[" : "[");
        kw_html_json(out, m->mnem.text, m->mnem.len);
        kw_buf_putc(out, ',');
        kw_buf_int(out, m->klass);
        kw_buf_putc(out, ',');
        kw_buf_int(out, m->note);
        kw_buf_putc(out, ']');
    }
    kw_buf_puts(out, "],\"archs\":[");
    kw_buf_append(out, archs.ptr ? archs.ptr : "", archs.len);
    out->oom |= archs.oom;
    kw_buf_puts(out, "]}</script>\n");
    for (size_t i = 0; i < nraw; i++) {
        kw_buf_puts(out, "<script type=\"text/plain\" id=\"kw-isa-");
        kw_buf_int(out, (long long)i);
        kw_buf_puts(out, "\">");
        kw_buf_append(out, raw[i].p, raw[i].n);
        kw_buf_puts(out, "</script>\n");
    }
    kw_buf_free(&archs);
}
