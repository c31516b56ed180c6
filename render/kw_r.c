/* kw_r.c: the helpers every walkthrough section shares (declared in
 * kw_render.h): paths and locations as printed, quoting the source with a
 * staleness check, names shortened for prose, launch operands' values, byte
 * counts. They write into the kw_render context and call no section. */
#include "render/kw_render.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_fs.h"
#include "render/kw_md.h"

const char *kw_r_path(const kw_render *r, const char *path) {
    return kw_fs_rel(r->o->root, path);
}

void kw_r_loc(kw_render *r, const char *file, int line) {
    char *s = kw_arena_printf(&r->scratch, "%s:%d", kw_r_path(r, file), line);
    kw_md_code(r->out, s ? s : "?", r->in);
}

void kw_r_kloc(kw_render *r, const kw_loc *l) {
    static const char none[] = "(no location recorded)";
    if (!l || !l->file)
        kw_md_plain(r->out, none, sizeof none - 1, r->in);
    else
        kw_r_loc(r, l->file, l->line);
}

void kw_r_table(kw_render *r, int n, const char *const *titles) {
    kw_r_table_aligned(r, n, titles, NULL);
}

void kw_r_table_aligned(kw_render *r, int n, const char *const *titles, const char *align) {
    kw_md_table_open(&r->tab, r->out, r->o->printer == KW_R_HTML, n, titles, align);
    r->in = kw_md_table_in(&r->tab);
}

void kw_r_row(kw_render *r) {
    kw_md_table_row(&r->tab);
}

void kw_r_cell(kw_render *r) {
    kw_md_table_cell(&r->tab);
}

void kw_r_table_end(kw_render *r) {
    kw_md_table_close(&r->tab);
    r->in = KW_MD_CELL;
}

void kw_r_list(kw_render *r) {
    kw_md_list_open(&r->list, r->out, r->o->printer == KW_R_HTML);
    r->in = r->o->printer == KW_R_HTML ? KW_MD_HTML : KW_MD_CELL;
}

void kw_r_item(kw_render *r, int level) {
    kw_md_list_item(&r->list, level);
}

void kw_r_list_end(kw_render *r) {
    kw_md_list_close(&r->list); /* (an empty list writes nothing) */
    r->in = KW_MD_CELL;
}

void kw_r_plainf(kw_render *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const char *s = kw_arena_vprintf(&r->scratch, fmt, ap);
    va_end(ap);
    if (s)
        kw_md_plain(r->out, s, strlen(s), r->in);
}

void kw_r_ref(kw_render *r, const char *file, int line, const char *role, const char *label) {
    if (!file || line < 1)
        return;
    for (size_t i = 0; i < r->refs.n; i++) {
        kw_ref *x = &r->refs.v[i];
        if (x->line == line && !strcmp(x->file, file) && !strcmp(x->role, role))
            return;
    }
    kw_ref *x = KW_PUSH(&r->scratch, r->refs);
    if (!x)
        return;
    x->file = file;
    x->line = line;
    x->role = role;
    x->label = label;
}

void kw_r_quote(kw_render *r, const char *file, int first, int last, const char *lang) {
    const kw_src_file *f = file ? kw_page_src(&r->page, file) : NULL;
    if (!f || !f->ok) {
        kw_r_p(r);
        kw_r_t(r, "(Source not quoted: ");
        kw_r_s(r, kw_r_path(r, file));
        kw_r_t(r, ": ");
        kw_r_sp(r, f ? f->why : "unknown file");
        kw_r_t(r, ".)");
        kw_r_p_end(r);
        return;
    }
    if (last < first)
        last = first;
    if (first < 1 || first > f->nlines) {
        kw_r_p(r);
        kw_r_t(r, "(Source not quoted: ");
        kw_r_s(r, kw_r_path(r, file));
        kw_r_tf(r, " has %d lines, the sidecar says line %d.)", f->nlines, first);
        kw_r_p_end(r);
        return;
    }
    if (last > f->nlines)
        last = f->nlines;
    kw_buf text;
    kw_buf_init(&text);
    const char *cmt = lang && !strcmp(lang, "python") ? "#" : "//";
    if (first == last)
        kw_buf_printf(&text, "%s %s:%d\n", cmt, kw_r_path(r, file), first);
    else
        kw_buf_printf(&text, "%s %s:%d-%d\n", cmt, kw_r_path(r, file), first, last);
    int w = snprintf(NULL, 0, "%d", last);
    for (int n = first; n <= last; n++) {
        const char *t;
        size_t len;
        kw_src_line(f, n, &t, &len);
        kw_buf_printf(&text, "%*d | ", w, n);
        kw_buf_append(&text, t, len);
        kw_buf_putc(&text, '\n');
    }
    kw_r_fence(r, lang, kw_buf_str(&text));
    kw_buf_free(&text);
}

bool kw_r_check(kw_render *r, const char *file, int line, const char *token, bool any_text,
                const char *what) {
    const kw_src_file *f = file ? kw_page_src(&r->page, file) : NULL;
    if (!f || !f->ok) {
        kw_r_note(r);
        kw_r_t(r, "Note: ");
        kw_r_s(r, kw_r_path(r, file));
        kw_r_t(r, " cannot be read now (");
        kw_r_sp(r, f ? f->why : "unknown file");
        kw_r_t(r, "); ");
        kw_r_t(r, what);
        kw_r_t(r, " is not quoted.");
        kw_r_note_end(r);
        return false;
    }
    if (line < 1 || line > f->nlines) {
        kw_r_note(r);
        kw_r_t(r, "Note: the source changed since the build: ");
        kw_r_s(r, kw_r_path(r, file));
        kw_r_tf(r, " has %d lines, the sidecar puts %s at line %d. Rebuild to refresh the sidecar.",
                f->nlines, what, line);
        kw_r_note_end(r);
        return false;
    }
    if (token && !kw_src_line_has(f, line, token, any_text)) {
        kw_r_note(r);
        kw_r_tf(r, "Note: the source changed since the build: line %d of ", line);
        kw_r_s(r, kw_r_path(r, file));
        kw_r_t(r, " does not hold ");
        kw_r_c(r, token);
        kw_r_tf(r, " (%s). Rebuild to refresh the sidecar.", what);
        kw_r_note_end(r);
        return false;
    }
    return true;
}

const char *kw_r_base_name(kw_render *r, const char *printed) {
    if (!printed || strstr(printed, "(lambda") || strstr(printed, "operator"))
        return NULL;
    /* drop every template argument list, then the qualification */
    kw_buf b;
    kw_buf_init(&b);
    int depth = 0;
    for (const char *p = printed; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (!depth)
            kw_buf_putc(&b, *p);
    }
    const char *s = kw_buf_str(&b), *start = s;
    for (const char *p = s; p[0] && p[1]; p++)
        if (p[0] == ':' && p[1] == ':')
            start = p + 2;
    const char *out = *start ? kw_arena_strdup(&r->scratch, start) : NULL;
    kw_buf_free(&b);
    return out;
}

const char *kw_r_name(kw_render *r, const char *printed) {
    const char *root = r->o->root;
    if (!printed || !root || !root[0] || !strstr(printed, root))
        return printed;
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    kw_buf b;
    kw_buf_init(&b);
    for (const char *p = printed; *p;) {
        if (!strncmp(p, root, n) && p[n] == '/') {
            p += n + 1;
            continue;
        }
        kw_buf_putc(&b, *p++);
    }
    const char *out = kw_arena_strdup(&r->scratch, kw_buf_str(&b));
    kw_buf_free(&b);
    return out ? out : printed;
}

const char *kw_r_targ_value(kw_render *r, const kw_template_arg *t) {
    const char *v = t->value ? t->value : "?";
    if (!t->written)
        return v;
    const char *s = kw_arena_printf(&r->scratch, "%s (%s)", t->written, v);
    return s ? s : v;
}

const char *kw_r_short(kw_render *r, const char *printed) {
    return kw_title_short(&r->scratch, printed);
}

static const char *kw_r_safe_as(kw_render *r, const char *s, bool prose) {
    kw_buf b;
    kw_buf_init(&b);
    if (prose)
        kw_md_safe_prose(&b, s ? s : "", KW_MD_TEXT);
    else
        kw_md_safe(&b, s ? s : "", KW_MD_TEXT);
    const char *out = b.oom ? NULL : kw_arena_strdup(&r->scratch, kw_buf_str(&b));
    kw_buf_free(&b);
    return out ? out : "?";
}

const char *kw_r_safe(kw_render *r, const char *s) {
    return kw_r_safe_as(r, s, false);
}

const char *kw_r_safe_prose(kw_render *r, const char *s) {
    return kw_r_safe_as(r, s, true);
}

const char *kw_r_arch_list(kw_render *r) {
    kw_buf b;
    kw_buf_init(&b);
    for (size_t i = 0; i < r->archs.n; i++) {
        if (i)
            kw_buf_puts(&b, i + 1 == r->archs.n ? " and " : ", ");
        kw_buf_puts(&b, r->archs.v[i].arch);
    }
    const char *s = kw_arena_strdup(&r->scratch, b.len ? kw_buf_str(&b) : "no arch");
    kw_buf_free(&b);
    return s ? s : "";
}

/* ---- section 6 ------------------------------------------------------------------------------ */

/* ---- blocks ------------------------------------------------------------------------------- */

enum { KW_R_BLOCK_H = 1, KW_R_BLOCK_P, KW_R_BLOCK_NOTE };

static void kw_r_block(kw_render *r, int block, const char *md, const char *html) {
    r->block = block;
    if (kw_r_html(r)) {
        kw_buf_puts(r->out, html);
        r->in = KW_MD_HTML;
    } else {
        kw_buf_puts(r->out, md);
    }
}

static void kw_r_block_end(kw_render *r, const char *html) {
    if (r->in == KW_MD_HTML && kw_r_html(r)) {
        kw_buf_puts(r->out, html);
        r->in = KW_MD_CELL;
    } else {
        kw_buf_puts(r->out, "\n\n");
    }
    r->block = 0;
}

static const char *const kw_r_hopen[] = {"<h1>", "<h1>", "<h2>", "<h3>", "<h4>", "<h5>", "<h6>"};
static const char *const kw_r_hclose[] = {"</h1>\n", "</h1>\n", "</h2>\n", "</h3>\n",
                                          "</h4>\n", "</h5>\n", "</h6>\n"};
static const char *const kw_r_hmd[] = {"# ", "# ", "## ", "### ", "#### ", "##### ", "###### "};

void kw_r_h(kw_render *r, int level) {
    if (level < 1 || level > 6)
        level = level < 1 ? 1 : 6;
    r->block_level = level;
    kw_r_block(r, KW_R_BLOCK_H, kw_r_hmd[level], kw_r_hopen[level]);
}

void kw_r_h_end(kw_render *r) {
    int level = r->block == KW_R_BLOCK_H ? r->block_level : 1;
    kw_r_block_end(r, kw_r_hclose[level >= 1 && level <= 6 ? level : 1]);
}

void kw_r_p(kw_render *r) {
    kw_r_block(r, KW_R_BLOCK_P, "", "<p>");
}

void kw_r_p_end(kw_render *r) {
    kw_r_block_end(r, "</p>\n");
}

void kw_r_p_end_list(kw_render *r, bool list_follows) {
    if (list_follows && !kw_r_html(r)) { /* Markdown: the list's first item on the next line */
        kw_buf_putc(r->out, '\n');
        r->block = 0;
        return;
    }
    kw_r_p_end(r);
}

void kw_r_gap(kw_render *r) {
    if (!kw_r_html(r))
        kw_buf_putc(r->out, '\n');
}

void kw_r_note(kw_render *r) {
    kw_r_block(r, KW_R_BLOCK_NOTE, "> ", "<blockquote>\n<p>");
}

void kw_r_note_end(kw_render *r) {
    kw_r_block_end(r, "</p>\n</blockquote>\n");
}

void kw_r_t(kw_render *r, const char *words) {
    kw_md_lit(r->out, words, kw_r_prose_in(r));
}

void kw_r_tf(kw_render *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const char *s = kw_arena_vprintf(&r->scratch, fmt, ap);
    va_end(ap);
    if (s)
        kw_md_lit(r->out, s, kw_r_prose_in(r));
    else
        r->out->oom = true;
}

void kw_r_s(kw_render *r, const char *s) {
    kw_md_safe(r->out, s, kw_r_prose_in(r));
}

void kw_r_sp(kw_render *r, const char *s) {
    kw_md_safe_prose(r->out, s, kw_r_prose_in(r));
}

void kw_r_c(kw_render *r, const char *s) {
    kw_md_code(r->out, s, kw_r_prose_in(r));
}

void kw_r_para(kw_render *r, const char *words) {
    kw_r_p(r);
    kw_r_t(r, words);
    kw_r_p_end(r);
}

void kw_r_ptf(kw_render *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const char *s = kw_arena_vprintf(&r->scratch, fmt, ap);
    va_end(ap);
    if (s)
        kw_r_para(r, s);
    else
        r->out->oom = true;
}

void kw_r_fence(kw_render *r, const char *lang, const char *text) {
    kw_md_fence_in(r->out, lang, text, kw_r_html(r) ? KW_MD_HTML : KW_MD_TEXT);
}

void kw_r_raw_html(kw_render *r, const char *html, size_t n) {
    if (kw_r_html(r))
        kw_buf_append(r->out, html, n);
}

void kw_r_lit(kw_render *r, int level, const char *text) {
    kw_buf *o = r->out;
    if (!kw_r_html(r)) {
        if (level)
            kw_md_heading(o, level, text);
        else
            kw_buf_puts(o, text);
        return;
    }
    if (level) {
        kw_r_h(r, level);
        kw_r_t(r, text);
        kw_r_h_end(r);
        return;
    }
    /* each paragraph: up to a blank line */
    kw_buf para;
    kw_buf_init(&para);
    for (const char *p = text; *p;) {
        const char *end = strstr(p, "\n\n");
        if (!end)
            end = p + strlen(p);
        kw_buf_reset(&para);
        kw_buf_append(&para, p, (size_t)(end - p));
        kw_r_para(r, kw_buf_str(&para));
        p = end;
        while (*p == '\n')
            p++;
    }
    if (para.oom)
        o->oom = true;
    kw_buf_free(&para);
}

bool kw_r_def_range(kw_render *r, const kw_src_file *f, int line, int col, kw_src_def *out) {
    return kw_page_isa_def_range(&r->defs, f, line, col, out);
}

/* ---- c1: numbered lists --------------------------------------------------------------------- */

void kw_r_ol_open(kw_render *r, kw_r_ol *l) {
    *l = (kw_r_ol){.n = 0, .at = r->out->len, .html = kw_r_html(r)};
    r->in = l->html ? KW_MD_HTML : KW_MD_CELL;
}

/* html: the open item's text loses its trailing blanks, as a paragraph's. */
static void kw_r_ol_trim(kw_render *r, const kw_r_ol *l) {
    kw_buf *b = r->out;
    while (!b->oom && b->len > l->text_at &&
           (b->ptr[b->len - 1] == ' ' || b->ptr[b->len - 1] == '\t'))
        b->ptr[--b->len] = 0;
}

void kw_r_ol_item(kw_render *r, kw_r_ol *l) {
    if (!l->html) {
        if (l->n)
            kw_buf_putc(r->out, '\n');
        kw_buf_printf(r->out, "%d. ", l->n + 1);
    } else if (!l->n) {
        kw_buf_puts(r->out, "<ol>\n<li>");
    } else {
        kw_r_ol_trim(r, l);
        kw_buf_puts(r->out, "</li>\n<li>");
    }
    l->n++;
    l->text_at = r->out->len;
}

void kw_r_ol_end(kw_render *r, kw_r_ol *l) {
    r->in = KW_MD_CELL;
    if (!l->n)
        return;
    if (!l->html) {
        kw_buf_puts(r->out, "\n\n");
        return;
    }
    kw_r_ol_trim(r, l);
    kw_buf_puts(r->out, "</li>\n</ol>\n");
}
