/* kw_md.c: the Markdown writer (see kw_md.h). */
#include "render/kw_md.h"

#include <string.h>

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

static void kw_md_code_n(kw_buf *b, const char *s, size_t n, bool cell) {
    size_t fence = kw_md_longest_ticks_n(s, n) + 1;
    bool pad = n && (s[0] == '`' || s[n - 1] == '`' || s[0] == ' ' || s[n - 1] == ' ');
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

void kw_md_code(kw_buf *b, const char *s, bool cell) {
    if (!s)
        s = "";
    kw_md_code_n(b, s, strlen(s), cell);
}

static void kw_md_text_n(kw_buf *b, const char *s, size_t n) {
    const char *run = s, *end = s + n;
    for (; s < end; s++) {
        char c = *s;
        if (c != '\n' && c != '\r' && !strchr("\\`*_[]<>|#~", c))
            continue;
        kw_buf_append(b, run, (size_t)(s - run));
        if (c == '\n' || c == '\r') {
            kw_buf_putc(b, ' ');
        } else {
            kw_buf_putc(b, '\\');
            kw_buf_putc(b, c);
        }
        run = s + 1;
    }
    kw_buf_append(b, run, (size_t)(s - run));
}

void kw_md_text(kw_buf *b, const char *s, bool cell) {
    (void)cell; /* '|' is escaped everywhere */
    if (s)
        kw_md_text_n(b, s, strlen(s));
}

void kw_md_prose(kw_buf *b, const char *s, bool cell) {
    while (s && *s) {
        const char *open = strchr(s, '`');
        const char *close = open ? strchr(open + 1, '`') : NULL;
        if (!close) {
            kw_md_text_n(b, s, strlen(s));
            return;
        }
        kw_md_text_n(b, s, (size_t)(open - s));
        kw_md_code_n(b, open + 1, (size_t)(close - open - 1), cell);
        s = close + 1;
    }
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

void kw_md_table_head(kw_buf *b, int n, const char *const *titles) {
    kw_buf_putc(b, '|');
    for (int i = 0; i < n; i++) {
        kw_buf_putc(b, ' ');
        kw_buf_puts(b, titles[i]);
        kw_buf_puts(b, " |");
    }
    kw_buf_puts(b, "\n|");
    for (int i = 0; i < n; i++)
        kw_buf_puts(b, "---|");
    kw_buf_putc(b, '\n');
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
