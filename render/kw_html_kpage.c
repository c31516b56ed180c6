/* kw_html_kpage.c: the site's kernel level (docs/site.md, "Kernel pages"):
 * a page per kernel (model/kw_kfamily.h) with its dispatch table, written
 * by kw_kpage_write.c in the HTML printer, each row linking to its
 * instantiation's page; the data the page's shape box evaluates (per row
 * the template arguments it binds, per condition its expression, what it
 * must be and the constants of its call or launch: model/kw_kpage.h, and
 * model/kw_dtype.c's element-type spellings) as inline JSON; and index.html, a row per kernel. Evaluates nothing: the
 * page script (kw_html_kpage_js.c) does, as model/kw_expr.c would. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/kw_symmap.h"
#include "model/kw_dtype.h"
#include "model/kw_operand.h"
#include "render/kw_html.h"
#include "render/kw_kpage_write.h"

/* The page's strings, each once: an expression, a text, a name is its
 * index into "s". */
typedef struct kw_hk_strs {
    kw_symmap at;
    KW_ARRAY(const char *) v;
    kw_arena *a;
    bool oom;
} kw_hk_strs;

static size_t kw_hk_str(kw_hk_strs *s, const char *t) {
    t = t ? t : "";
    size_t *i = kw_symmap_get(&s->at, t);
    if (i)
        return *i;
    const char **slot = KW_PUSH(s->a, s->v);
    if (!slot || kw_symmap_put(&s->at, t, s->v.n - 1) != KW_OK) {
        s->oom = true;
        return 0;
    }
    *slot = t;
    return s->v.n - 1;
}

/* A number as JSON, or a string for what JSON has no number for. */
static void kw_hk_num(kw_buf *o, double v) {
    if (isnan(v))
        kw_buf_puts(o, "\"nan\"");
    else if (isinf(v))
        kw_buf_puts(o, v > 0 ? "\"inf\"" : "\"-inf\"");
    else
        kw_buf_printf(o, "%.17g", v);
}

/* The constants a condition is evaluated with, as kw_operand_shape reads
 * them: [name, value] or [name, null, initializer]; the rest binds
 * nothing. */
static void kw_hk_consts(kw_buf *o, kw_hk_strs *s, const kw_kcond *c) {
    kw_buf_puts(o, "[");
    bool any = false;
    for (size_t i = 0; i < c->nconsts; i++) {
        const kw_constant *k = &c->consts[i];
        double v;
        bool has = k->value && kw_operand_const_value(k, &v);
        if (!k->name || (k->value && !has) || (!k->value && !k->init))
            continue;
        kw_buf_printf(o, "%s[%zu,", any ? "," : "", kw_hk_str(s, k->name));
        if (has)
            kw_hk_num(o, v);
        else
            kw_buf_printf(o, "null,%zu", kw_hk_str(s, k->init));
        kw_buf_puts(o, "]");
        any = true;
    }
    kw_buf_puts(o, "]");
}

/* A row: {"y": symbol, "n": name, "a": [[name, value]...], "w": [way...]},
 * a way a list of conditions [expr, need, constants, text, location]. */
static void kw_hk_row(kw_render *r, kw_buf *o, kw_hk_strs *s, const kw_krow *row) {
    const kw_mkernel *mk = &r->m->kernels.v[row->kernel];
    kw_buf_printf(o, "{\"y\":%zu,\"n\":%zu,\"a\":[", kw_hk_str(s, mk->symbol),
                  kw_hk_str(s, mk->name));
    bool any = false;
    for (size_t i = 0; mk->k && i < mk->k->template_args.n; i++) {
        double v;
        if (!kw_kpage_targ_value(&mk->k->template_args.v[i], &v))
            continue;
        kw_buf_printf(o, "%s[%zu,", any ? "," : "", kw_hk_str(s, mk->k->template_args.v[i].name));
        kw_hk_num(o, v);
        kw_buf_puts(o, "]");
        any = true;
    }
    kw_buf_puts(o, "],\"w\":[");
    for (size_t w = 0; w < row->ways.n; w++) {
        kw_buf_puts(o, w ? ",[" : "[");
        for (size_t c = 0; c < row->ways.v[w].conds.n; c++) {
            const kw_kcond *k = &row->ways.v[w].conds.v[c];
            const kw_loc *l = &k->loc;
            const char *loc =
                l->file ? kw_arena_printf(&r->scratch, "%s:%d", kw_r_path(r, l->file), l->line)
                        : "(no location recorded)";
            kw_buf_printf(o, "%s[%zu,%d,", c ? "," : "", kw_hk_str(s, k->expr), k->need ? 1 : 0);
            kw_hk_consts(o, s, k);
            kw_buf_printf(o, ",%zu,%zu]", kw_hk_str(s, k->text), kw_hk_str(s, loc));
        }
        kw_buf_puts(o, "]");
    }
    kw_buf_puts(o, "]}");
}

/* model/kw_dtype.c's table, for words compared with element types:
 * "t": {spelling: type}, "u": the pairs of types kw_dtype_same leaves
 * undecided (aiter's fp8 against one e4m3 format). */
static void kw_hk_dtypes(kw_buf *out) {
    kw_buf_puts(out, ",\"t\":{");
    size_t n = kw_dtype_count();
    bool any = false;
    for (size_t r = 0; r < n; r++)
        for (const char *const *p = kw_dtype_spellings(r); *p; p++) {
            if (any)
                kw_buf_putc(out, ',');
            kw_html_json(out, *p, strlen(*p));
            kw_buf_putc(out, ':');
            kw_html_json(out, kw_dtype_name(r), strlen(kw_dtype_name(r)));
            any = true;
        }
    kw_buf_puts(out, "},\"u\":[");
    any = false;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            if (kw_dtype_same(kw_dtype_name(i), kw_dtype_name(j)) != KW_DTYPE_UNDECIDED)
                continue;
            kw_buf_printf(out, "%s[", any ? "," : "");
            kw_html_json(out, kw_dtype_name(i), strlen(kw_dtype_name(i)));
            kw_buf_putc(out, ',');
            kw_html_json(out, kw_dtype_name(j), strlen(kw_dtype_name(j)));
            kw_buf_putc(out, ']');
            any = true;
        }
    kw_buf_putc(out, ']');
}

/* <script type="application/json" id="kw-kdata">: the rows, then the
 * strings they index (kw_html_json: safe inside the element), then the
 * element types' spellings (kw_hk_dtypes). */
static void kw_hk_data(kw_render *r, const kw_kpage *p, kw_buf *out) {
    kw_hk_strs s = {.a = &r->scratch};
    kw_symmap_init(&s.at);
    kw_buf rows;
    kw_buf_init(&rows);
    for (size_t i = 0; i < p->rows.n; i++) {
        if (i)
            kw_buf_putc(&rows, ',');
        kw_hk_row(r, &rows, &s, &p->rows.v[i]);
    }
    kw_buf_puts(out, "<script type=\"application/json\" id=\"kw-kdata\">{\"r\":[");
    kw_buf_append(out, rows.ptr ? rows.ptr : "", rows.len);
    kw_buf_puts(out, "],\"s\":[");
    for (size_t i = 0; i < s.v.n; i++) {
        if (i)
            kw_buf_putc(out, ',');
        kw_html_json(out, s.v.v[i], strlen(s.v.v[i]));
    }
    kw_buf_putc(out, ']');
    kw_hk_dtypes(out);
    kw_buf_puts(out, "}</script>\n");
    if (s.oom || rows.oom)
        out->oom = true;
    kw_buf_free(&rows);
    kw_symmap_free(&s.at);
}

kw_status kw_html_kpage(kw_render *r, const kw_kpage *p, kw_buf *out, kw_err *err) {
    const char *title = kw_arena_printf(&r->scratch, "Kernel %s", p->fam->name);
    kw_html_open(out, title ? title : "Kernel");
    kw_buf_puts(out, "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a> · <a "
                     "href=\"" KW_HTML_INSTANTIATIONS "\">All instantiations</a> · <a "
                     "href=\"map.html\">Map</a></nav>\n<main>\n");
    r->out = r->page_out = out;
    kw_kpage_write(r, p, NULL);
    r->out = r->page_out = NULL; /* out is the caller's */
    kw_hk_data(r, p, out);
    kw_buf_puts(out, "</main>\n<script src=\"" KW_HTML_KERNEL_JS "\"></script>\n");
    kw_html_close(out);
    return out->oom ? kw_fail(err, "out of memory") : KW_OK;
}
