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

/* The HTML table or list that begins now in the page: where (kw_r_html_end). */
static void kw_r_html_begin(kw_render *r) {
    r->html_at = r->out->len;
}

void kw_r_html_span(kw_render *r, size_t at, size_t end) {
    if (!r->o->html_blocks || r->out != r->page_out)
        return;
    if (r->html.n && r->html.v[r->html.n - 1].end == at) { /* one block with the last */
        r->html.v[r->html.n - 1].end = end;
        return;
    }
    kw_r_span *s = KW_PUSH(&r->scratch, r->html);
    if (s)
        *s = (kw_r_span){at, end};
    else
        r->out->oom = true; /* a page without it would be wrong: fail the page */
}

static void kw_r_html_end(kw_render *r) {
    kw_r_html_span(r, r->html_at, r->out->len);
}

void kw_r_table_aligned(kw_render *r, int n, const char *const *titles, const char *align) {
    kw_r_html_begin(r);
    kw_md_table_open(&r->tab, r->out, r->o->html_blocks, n, titles, align);
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
    kw_r_html_end(r);
}

void kw_r_list(kw_render *r) {
    kw_r_html_begin(r);
    kw_md_list_open(&r->list, r->out, r->o->html_blocks);
    r->in = r->o->html_blocks ? KW_MD_HTML : KW_MD_CELL;
}

void kw_r_item(kw_render *r, int level) {
    kw_md_list_item(&r->list, level);
}

void kw_r_list_end(kw_render *r) {
    bool any = r->list.level >= 0;
    kw_md_list_close(&r->list);
    r->in = KW_MD_CELL;
    if (any) /* an empty list writes nothing */
        kw_r_html_end(r);
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
        kw_buf_printf(r->out, "(Source not quoted: %s: %s.)\n\n", kw_r_safe(r, kw_r_path(r, file)),
                      kw_r_safe_prose(r, f ? f->why : "unknown file"));
        return;
    }
    if (last < first)
        last = first;
    if (first < 1 || first > f->nlines) {
        kw_buf_printf(r->out, "(Source not quoted: %s has %d lines, the sidecar says line %d.)\n\n",
                      kw_r_safe(r, kw_r_path(r, file)), f->nlines, first);
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
    kw_md_fence(r->out, lang, kw_buf_str(&text));
    kw_buf_free(&text);
}

bool kw_r_check(kw_render *r, const char *file, int line, const char *token, bool any_text,
                const char *what) {
    const kw_src_file *f = file ? kw_page_src(&r->page, file) : NULL;
    if (!f || !f->ok) {
        kw_buf_printf(r->out, "> Note: %s cannot be read now (%s); %s is not quoted.\n\n",
                      kw_r_safe(r, kw_r_path(r, file)), kw_r_safe_prose(r, f ? f->why : "unknown file"),
                      what);
        return false;
    }
    if (line < 1 || line > f->nlines) {
        kw_buf_printf(r->out,
                      "> Note: the source changed since the build: %s has %d lines, the sidecar "
                      "puts %s at line %d. Rebuild to refresh the sidecar.\n\n",
                      kw_r_safe(r, kw_r_path(r, file)), f->nlines, what, line);
        return false;
    }
    if (token && !kw_src_line_has(f, line, token, any_text)) {
        kw_buf_printf(r->out,
                      "> Note: the source changed since the build: line %d of %s does not hold ",
                      line, kw_r_safe(r, kw_r_path(r, file)));
        kw_md_code(r->out, token, false);
        kw_buf_printf(r->out, " (%s). Rebuild to refresh the sidecar.\n\n", what);
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

/* Whether the Markdown text's HTML depends on it alone: it does not begin
 * indented (it could continue a list item before it), has no '[' (a link
 * could use a reference defined elsewhere in the page), no list item (a
 * list after it could continue it) and no line beginning with a fence or
 * '<' (a code block or an HTML block it leaves open would take in what
 * follows). */
static bool kw_r_lit_alone(const char *text) {
    if (*text == ' ' || *text == '\t' || strchr(text, '['))
        return false;
    for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *p = l;
        while (*p == ' ')
            p++;
        if ((*p == '-' || *p == '*' || *p == '+') && (p[1] == ' ' || p[1] == '\t'))
            return false;
        if (*p == '<' || !strncmp(p, "```", 3) || !strncmp(p, "~~~", 3))
            return false;
        const char *digits = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p > digits && (*p == '.' || *p == ')'))
            return false;
    }
    return true;
}

/* The kept HTML of a literal block, made now when new (NULL: not kept). */
static const kw_r_lit_html *kw_r_lit_kept(kw_render *r, int level, const char *text) {
    if (!r->lits && !(r->lits = calloc(KW_R_LITS, sizeof *r->lits)))
        return NULL;
    size_t h = ((size_t)(uintptr_t)text >> 3) * 31u + (size_t)level;
    for (size_t k = 0; k < KW_R_LITS; k++) {
        kw_r_lit_html *x = &r->lits[(h + k) % KW_R_LITS];
        if (x->text == text && x->level == level)
            return x->html ? x : NULL;
        if (x->text)
            continue;
        *x = (kw_r_lit_html){text, level, NULL, 0};
        kw_buf md, html;
        kw_buf_init(&md);
        kw_buf_init(&html);
        for (int i = 0; i < level; i++)
            kw_buf_putc(&md, '#');
        kw_buf_puts(&md, level ? " " : "");
        kw_buf_puts(&md, text);
        kw_buf_puts(&md, level ? "\n\n" : "");
        kw_err err;
        size_t tn = strlen(text);
        bool whole = level ? !strchr(text, '\n') : tn >= 2 && !strcmp(text + tn - 2, "\n\n");
        if (whole && kw_r_lit_alone(text) && !md.oom &&
            r->md_html(md.ptr, md.len, &html, &err) == KW_OK && !html.oom && html.len) {
            x->html = html.ptr; /* the buffer's, now the slot's */
            x->n = html.len;
        } else {
            kw_buf_free(&html);
        }
        kw_buf_free(&md);
        return x->html ? x : NULL;
    }
    return NULL; /* every slot taken */
}

void kw_r_lit(kw_render *r, int level, const char *text) {
    kw_buf *o = r->out;
    size_t n = o->len;
    /* a block of the page begins here: after a blank line, or a block kept */
    bool fresh =
        n == 0 || n == r->lit_end || (n >= 2 && o->ptr[n - 1] == '\n' && o->ptr[n - 2] == '\n');
    const kw_r_lit_html *x = r->md_html && r->o->html_blocks && o == r->page_out && fresh
                                 ? kw_r_lit_kept(r, level, text)
                                 : NULL;
    if (!x) {
        if (level)
            kw_md_heading(o, level, text);
        else
            kw_buf_puts(o, text);
        return;
    }
    kw_buf_append(o, x->html, x->n);
    kw_r_html_span(r, n, o->len);
    r->lit_end = o->len;
}

bool kw_r_def_range(kw_render *r, const kw_src_file *f, int line, int col, kw_src_def *out) {
    return kw_page_isa_def_range(&r->defs, f, line, col, out);
}
