/* kw_md.c: the Markdown writer (see kw_md.h). */
#include "render/kw_md.h"

#include <string.h>

#include "common/kw_esc.h"

/* Length of the longest run of backticks in s[0..n). */
static size_t kw_md_longest_ticks_n(const char *s, size_t n) {
    size_t best = 0, run = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

static size_t kw_md_longest_ticks(const char *s) {
    return kw_md_longest_ticks_n(s, strlen(s));
}

static void kw_md_ticks(kw_buf *b, size_t n) {
    static const char ticks[] = "````````````````";
    while (n > 16) {
        kw_buf_append(b, ticks, 16);
        n -= 16;
    }
    kw_buf_append(b, ticks, n);
}

/* s[0, n) escaped as libcmark-gfm escapes text: & < > " (not ' or /). */
static void kw_md_esc(kw_buf *b, const char *s, size_t n) {
    kw_esc_html(b, s, n, false);
}

void kw_md_strong(kw_buf *b, const char *s, kw_md_in in) {
    kw_buf_puts(b, in == KW_MD_HTML ? "<strong>" : "**");
    kw_md_plain(b, s, strlen(s), in);
    kw_buf_puts(b, in == KW_MD_HTML ? "</strong>" : "**");
}

static bool kw_md_entity_like(const char *s, const char *end);

void kw_md_plain(kw_buf *b, const char *s, size_t n, kw_md_in in) {
    if (in == KW_MD_HTML) {
        kw_md_esc(b, s, n);
        return;
    }
    /* what could make HTML or a link of a word from the inputs: '<' (a tag,
     * an autolink), '&' (an entity), '[' (a link), and '\\' (which would
     * take the escape of the next) */
    const char *run = s, *end = s + n;
    for (const char *p = s; p < end; p++) {
        if (*p != '<' && *p != '[' && *p != '\\' && (*p != '&' || !kw_md_entity_like(p, end)))
            continue;
        kw_buf_append(b, run, (size_t)(p - run));
        kw_buf_putc(b, '\\');
        kw_buf_putc(b, *p);
        run = p + 1;
    }
    kw_buf_append(b, run, (size_t)(end - run));
}

static bool kw_md_space(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The HTML of the code span kw_md_code_n writes for s[0, n): its text with
 * line breaks and tabs as spaces, and (CommonMark) one space stripped from
 * each end when both ends have one and not every character is a space,
 * which takes back the padding kw_md_code_n adds. */
static void kw_md_code_html(kw_buf *b, const char *s, size_t n, bool pad) {
    if (!n) { /* "``" is not a code span: two backticks of text */
        kw_buf_puts(b, "``");
        return;
    }
    bool blank = true;
    for (size_t i = 0; i < n && blank; i++)
        blank = kw_md_space(s[i]);
    bool strip = (pad || (kw_md_space(s[0]) && kw_md_space(s[n - 1]))) && !blank;
    size_t lo = strip && !pad ? 1 : 0, hi = strip && !pad ? n - 1 : n;
    kw_buf_puts(b, pad && !strip ? "<code> " : "<code>");
    const char *run = s + lo, *end = s + hi, *p = run;
    for (; p < end; p++) {
        char c = *p;
        if (c != '\n' && c != '\r' && c != '\t' && c != '&' && c != '<' && c != '>' && c != '"')
            continue;
        kw_buf_append(b, run, (size_t)(p - run));
        if (kw_md_space(c))
            kw_buf_putc(b, ' ');
        else
            kw_md_esc(b, p, 1);
        run = p + 1;
    }
    kw_buf_append(b, run, (size_t)(p - run));
    kw_buf_puts(b, pad && !strip ? " </code>" : "</code>");
}

static void kw_md_code_n(kw_buf *b, const char *s, size_t n, kw_md_in in) {
    bool pad = n && (s[0] == '`' || s[n - 1] == '`' || s[0] == ' ' || s[n - 1] == ' ');
    if (in == KW_MD_HTML) {
        kw_md_code_html(b, s, n, pad);
        return;
    }
    bool cell = in == KW_MD_CELL;
    size_t fence = kw_md_longest_ticks_n(s, n) + 1;
    kw_md_ticks(b, fence);
    if (pad)
        kw_buf_putc(b, ' ');
    /* runs of ordinary characters are appended whole */
    const char *run = s, *end = s + n;
    for (; s < end; s++) {
        char c = *s;
        if (c != '\n' && c != '\r' && c != '\t' && !(c == '|' && cell))
            continue;
        kw_buf_append(b, run, (size_t)(s - run));
        kw_buf_puts(b, c == '|' ? "\\|" : " ");
        run = s + 1;
    }
    kw_buf_append(b, run, (size_t)(s - run));
    if (pad)
        kw_buf_putc(b, ' ');
    kw_md_ticks(b, fence);
}

void kw_md_code(kw_buf *b, const char *s, kw_md_in in) {
    if (!s)
        s = "";
    kw_md_code_n(b, s, strlen(s), in);
}

/* Could an '&' at s (before end) begin an entity or a character reference? */
static bool kw_md_entity_like(const char *s, const char *end) {
    char c = s + 1 < end ? s[1] : 0;
    return c == '#' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void kw_md_text_n(kw_buf *b, const char *s, size_t n, kw_md_in in) {
    const char *run = s, *end = s + n;
    bool html = in == KW_MD_HTML;
    for (; s < end; s++) {
        char c = *s;
        if (html ? c != '\n' && c != '\r' && c != '&' && c != '<' && c != '>' && c != '"'
                 : c != '\n' && c != '\r' && !strchr("\\`*_[]<>|#~&", c))
            continue;
        if (!html && c == '&' && !kw_md_entity_like(s, end))
            continue;
        kw_buf_append(b, run, (size_t)(s - run));
        if (c == '\n' || c == '\r') {
            kw_buf_putc(b, ' ');
        } else if (html) {
            kw_md_esc(b, s, 1);
        } else {
            kw_buf_putc(b, '\\');
            kw_buf_putc(b, c);
        }
        run = s + 1;
    }
    kw_buf_append(b, run, (size_t)(s - run));
}

void kw_md_text(kw_buf *b, const char *s, kw_md_in in) {
    if (s) /* '|' is escaped everywhere */
        kw_md_text_n(b, s, strlen(s), in);
}

static bool kw_md_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void kw_md_safe_n(kw_buf *b, const char *s, size_t n, kw_md_in in) {
    if (in == KW_MD_HTML) {
        kw_md_text_n(b, s, n, in);
        return;
    }
    const char *run = s, *end = s + n;
    for (const char *p = s; p < end; p++) {
        char c = *p;
        bool esc;
        if (c == '_') /* emphasis needs a '_' not between two letters or digits */
            esc = p == s || p + 1 == end || !kw_md_alnum(p[-1]) || !kw_md_alnum(p[1]);
        else if (c == '&')
            esc = kw_md_entity_like(p, end);
        else
            esc = c == '\n' || c == '\r' || (c && strchr("\\`*[]<>|~", c));
        if (!esc)
            continue;
        kw_buf_append(b, run, (size_t)(p - run));
        if (c == '\n' || c == '\r') {
            kw_buf_putc(b, ' ');
        } else {
            kw_buf_putc(b, '\\');
            kw_buf_putc(b, c);
        }
        run = p + 1;
    }
    kw_buf_append(b, run, (size_t)(end - run));
}

void kw_md_safe(kw_buf *b, const char *s, kw_md_in in) {
    if (s)
        kw_md_safe_n(b, s, strlen(s), in);
}

/* Text with code marked by backticks: the code as code spans, the rest as
 * kw_md_safe (safe) or kw_md_text writes it. */
static void kw_md_prose_as(kw_buf *b, const char *s, kw_md_in in, bool safe) {
    while (s && *s) {
        const char *open = strchr(s, '`');
        const char *close = open ? strchr(open + 1, '`') : NULL;
        size_t n = close ? (size_t)(open - s) : strlen(s);
        if (safe)
            kw_md_safe_n(b, s, n, in);
        else
            kw_md_text_n(b, s, n, in);
        if (!close)
            return;
        kw_md_code_n(b, open + 1, (size_t)(close - open - 1), in);
        s = close + 1;
    }
}

void kw_md_prose(kw_buf *b, const char *s, kw_md_in in) {
    kw_md_prose_as(b, s, in, false);
}

void kw_md_safe_prose(kw_buf *b, const char *s, kw_md_in in) {
    kw_md_prose_as(b, s, in, true);
}

void kw_md_lit(kw_buf *b, const char *s, kw_md_in in) {
    if (in != KW_MD_HTML) {
        kw_buf_puts(b, s);
        return;
    }
    while (*s) {
        const char *open = strchr(s, '`');
        const char *close = open ? strchr(open + 1, '`') : NULL;
        size_t n = close ? (size_t)(open - s) : strlen(s);
        kw_md_esc(b, s, n);
        if (!close)
            return;
        kw_md_code_html(b, open + 1, (size_t)(close - open - 1), false);
        s = close + 1;
    }
}

void kw_md_fence_in(kw_buf *b, const char *lang, const char *text, kw_md_in in) {
    if (in != KW_MD_HTML) {
        kw_md_fence(b, lang, text);
        return;
    }
    kw_buf_puts(b, "<pre><code");
    if (lang && *lang) {
        size_t n = strcspn(lang, " \t");
        kw_buf_puts(b, " class=\"language-");
        kw_md_esc(b, lang, n);
        kw_buf_putc(b, '"');
    }
    kw_buf_putc(b, '>');
    size_t n = strlen(text);
    kw_md_esc(b, text, n);
    if (n && text[n - 1] != '\n')
        kw_buf_putc(b, '\n');
    kw_buf_puts(b, "</code></pre>\n");
}

void kw_md_fence(kw_buf *b, const char *lang, const char *text) {
    size_t fence = kw_md_longest_ticks(text) + 1;
    if (fence < 3)
        fence = 3;
    kw_md_ticks(b, fence);
    kw_buf_puts(b, lang ? lang : "");
    kw_buf_putc(b, '\n');
    kw_buf_puts(b, text);
    size_t n = strlen(text);
    if (n && text[n - 1] != '\n')
        kw_buf_putc(b, '\n');
    kw_md_ticks(b, fence);
    kw_buf_puts(b, "\n\n");
}

void kw_md_heading(kw_buf *b, int level, const char *text) {
    for (int i = 0; i < level; i++)
        kw_buf_putc(b, '#');
    kw_buf_putc(b, ' ');
    kw_buf_puts(b, text);
    kw_buf_puts(b, "\n\n");
}

void kw_md_quote(kw_buf *b, const char *text) {
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        kw_buf_puts(b, n ? "> " : ">");
        /* quoted prose is the author's Markdown (doc comments are written for
         * Doxygen or Markdown): kept as is, but a line cannot end the quote */
        kw_buf_append(b, p, n);
        kw_buf_putc(b, '\n');
        p += n + (nl ? 1 : 0);
    }
    kw_buf_putc(b, '\n');
}

/* A GFM table's header and delimiter rows; align as kw_md_table_open's. */
static void kw_md_head(kw_buf *b, int n, const char *const *titles, const char *align) {
    kw_buf_putc(b, '|');
    for (int i = 0; i < n; i++) {
        kw_buf_putc(b, ' ');
        kw_buf_puts(b, titles[i]);
        kw_buf_puts(b, " |");
    }
    kw_buf_puts(b, "\n|");
    for (int i = 0; i < n; i++)
        kw_buf_puts(b, align && align[i] == 'r' ? "---:|" : "---|");
    kw_buf_putc(b, '\n');
}

static bool kw_md_right(const kw_md_table *t, int col) {
    return t->align && col < t->n && t->align[col] == 'r';
}

void kw_md_table_open(kw_md_table *t, kw_buf *b, bool html, int n, const char *const *titles,
                      const char *align) {
    *t = (kw_md_table){.b = b, .html = html, .n = n, .align = align};
    if (!html) {
        kw_md_head(b, n, titles, align);
        return;
    }
    kw_buf_puts(b, "<table>\n<thead>\n<tr>\n");
    for (int i = 0; i < n; i++) {
        kw_buf_puts(b, kw_md_right(t, i) ? "<th align=\"right\">" : "<th>");
        kw_md_prose(b, titles[i], KW_MD_HTML);
        kw_buf_puts(b, "</th>\n");
    }
    kw_buf_puts(b, "</tr>\n</thead>\n");
}

/* html: the open cell ends: its text trimmed as GFM trims a cell's, or the
 * whole cell dropped when the row has more cells than the table columns. */
static void kw_md_cell_end(kw_md_table *t) {
    kw_buf *b = t->b;
    if (!t->html || !t->col || b->oom)
        return;
    if (t->col > t->n) {
        b->len = t->cell_at;
        b->ptr[b->len] = 0;
        return;
    }
    size_t at = t->text_at, lo = at;
    while (b->len > at && (b->ptr[b->len - 1] == ' ' || b->ptr[b->len - 1] == '\t'))
        b->len--;
    while (lo < b->len && (b->ptr[lo] == ' ' || b->ptr[lo] == '\t'))
        lo++;
    memmove(b->ptr + at, b->ptr + lo, b->len - lo);
    b->len -= lo - at;
    b->ptr[b->len] = 0;
    kw_buf_puts(b, "</td>\n");
}

static void kw_md_row_end(kw_md_table *t) {
    if (!t->row)
        return;
    if (!t->html) {
        kw_buf_puts(t->b, " |\n");
    } else {
        kw_md_cell_end(t);
        for (; t->col < t->n; t->col++) /* GFM fills a short row */
            kw_buf_puts(t->b,
                        kw_md_right(t, t->col) ? "<td align=\"right\"></td>\n" : "<td></td>\n");
        kw_buf_puts(t->b, "</tr>\n");
    }
    t->row = false;
}

void kw_md_table_row(kw_md_table *t) {
    kw_md_row_end(t);
    if (t->html) {
        kw_buf_puts(t->b, t->body ? "<tr>\n" : "<tbody>\n<tr>\n");
        t->body = true;
    }
    t->row = true;
    t->col = 0;
}

void kw_md_table_cell(kw_md_table *t) {
    if (!t->html) {
        kw_buf_puts(t->b, t->col++ ? " | " : "| ");
        return;
    }
    kw_md_cell_end(t);
    t->cell_at = t->b->len;
    kw_buf_puts(t->b, kw_md_right(t, t->col) ? "<td align=\"right\">" : "<td>");
    t->text_at = t->b->len;
    t->col++;
}

void kw_md_table_close(kw_md_table *t) {
    kw_md_row_end(t);
    if (t->html)
        kw_buf_puts(t->b, t->body ? "</tbody>\n</table>\n" : "</table>\n");
}

void kw_md_list_open(kw_md_list *l, kw_buf *b, bool html) {
    *l = (kw_md_list){.b = b, .html = html, .level = -1};
}

/* html: the open item's text loses its trailing blanks, as a paragraph's. */
static void kw_md_item_trim(kw_md_list *l) {
    kw_buf *b = l->b;
    while (!b->oom && b->len > l->text_at &&
           (b->ptr[b->len - 1] == ' ' || b->ptr[b->len - 1] == '\t'))
        b->ptr[--b->len] = 0;
}

/* html: close the open item and the lists nested deeper than level. */
static void kw_md_items_end(kw_md_list *l, int level) {
    kw_md_item_trim(l);
    kw_buf_puts(l->b, "</li>\n");
    for (int d = l->level; d > level; d--)
        kw_buf_puts(l->b, "</ul>\n</li>\n");
}

void kw_md_list_item(kw_md_list *l, int level) {
    if (level < 0 || level > l->level + 1)
        level = l->level + 1;
    if (!l->html) {
        if (l->level >= 0)
            kw_buf_putc(l->b, '\n');
        for (int d = 0; d < level; d++)
            kw_buf_puts(l->b, "  ");
        kw_buf_puts(l->b, "- ");
    } else if (l->level < 0) {
        kw_buf_puts(l->b, "<ul>\n<li>");
    } else if (level > l->level) { /* a list in the open item */
        kw_md_item_trim(l);
        kw_buf_puts(l->b, "\n<ul>\n<li>");
    } else {
        kw_md_items_end(l, level);
        kw_buf_puts(l->b, "<li>");
    }
    l->level = level;
    l->text_at = l->b->len;
}

void kw_md_list_close(kw_md_list *l) {
    if (l->level < 0)
        return;
    if (!l->html) {
        kw_buf_putc(l->b, '\n');
    } else {
        kw_md_items_end(l, 0);
        kw_buf_puts(l->b, "</ul>\n");
    }
    l->level = -1;
}

static void kw_md_spaces(kw_buf *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        kw_buf_putc(b, ' ');
}

void kw_md_box(kw_buf *b, int indent, size_t n, const char *const *lines) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(lines[i]) > w)
            w = strlen(lines[i]);
    kw_md_spaces(b, (size_t)indent);
    kw_buf_putc(b, '+');
    for (size_t i = 0; i < w + 2; i++)
        kw_buf_putc(b, '-');
    kw_buf_puts(b, "+\n");
    for (size_t i = 0; i < n; i++) {
        kw_md_spaces(b, (size_t)indent);
        kw_buf_puts(b, "| ");
        kw_buf_puts(b, lines[i]);
        kw_md_spaces(b, w - strlen(lines[i]));
        kw_buf_puts(b, " |\n");
    }
    kw_md_spaces(b, (size_t)indent);
    kw_buf_putc(b, '+');
    for (size_t i = 0; i < w + 2; i++)
        kw_buf_putc(b, '-');
    kw_buf_puts(b, "+\n");
}
