/* test_md_html.c: render/kw_md.c's HTML form of a table and a list is what
 * libcmark-gfm makes of the Markdown form of the same calls. Each case
 * writes a table (cells with code spans, text and prose of awkward
 * strings, a right-aligned column, a short and a long row) and a nested
 * list, once as Markdown then converted by libcmark-gfm (kw_html_from_md),
 * once as HTML; the two must be byte-identical. The strings are the ones
 * CommonMark treats specially: spaces at a code span's ends, backticks,
 * blanks only, empty, pipes, entities, HTML, Markdown punctuation, tabs
 * and line breaks. */
#include <stdio.h>
#include <string.h>

#include "kw_test.h"
#include "render/kw_html.h"
#include "render/kw_md.h"

static const char *const cases[] = {
    "plain",
    " lead",
    "trail ",
    " both ",
    "  two  ",
    " ",
    "   ",
    "",
    "`tick`",
    "a``b",
    "``",
    "` x `",
    "a|b",
    "a\\|b",
    "\\",
    "&amp; &#38;",
    "&copy x&",
    "a < b > c",
    "\"q\" 'q'",
    "*em* _u_ **b**",
    "[link](x) ![i]",
    "# not h",
    "1. not list",
    "~~s~~",
    "tab\there",
    "line\nbreak",
    "cr\rx",
    "<b>raw</b>",
    "x <!-- c -->",
    "#",
    "`",
    "a` b",
    "é ü → ∅",
    "T *__restrict",
    "v[0:1], 0x10",
    "-",
};

static void table(kw_buf *b, bool html, const char *s) {
    static const char *const head[] = {"`Code` title", "Text", "#", "Prose"};
    kw_md_table t;
    kw_md_table_open(&t, b, html, 4, head, "--r-");
    kw_md_in in = kw_md_table_in(&t);
    kw_md_table_row(&t);
    kw_md_table_cell(&t);
    kw_md_code(b, s, in);
    kw_md_table_cell(&t);
    kw_md_text(b, s, in);
    kw_md_table_cell(&t);
    kw_md_plain(b, "42", 2, in);
    kw_md_table_cell(&t);
    kw_md_prose(b, s, in);
    kw_md_table_row(&t); /* a short row: GFM fills it */
    kw_md_table_cell(&t);
    kw_md_strong(b, "bold", in);
    kw_md_table_row(&t); /* a long row: GFM drops the fifth cell */
    for (int i = 0; i < 5; i++) {
        kw_md_table_cell(&t);
        kw_md_code(b, s, in);
    }
    kw_md_table_close(&t);
    if (!html) /* the blank line after the Markdown table; the HTML block ends at its tag */
        kw_buf_putc(b, '\n');
}

static void list(kw_buf *b, bool html, const char *s) {
    kw_md_in in = html ? KW_MD_HTML : KW_MD_TEXT;
    kw_md_list l;
    kw_md_list_open(&l, b, html);
    int levels[] = {0, 1, 2, 2, 1, 0, 1, 0};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        kw_md_list_item(&l, levels[i]);
        kw_buf_puts(b, "item ");
        kw_md_code(b, s, in);
        kw_buf_puts(b, " and ");
        kw_md_prose(b, s, in);
        kw_buf_puts(b, i % 3 ? "." : " "); /* a trailing blank goes */
    }
    kw_md_list_close(&l);
    if (!html)
        kw_buf_putc(b, '\n');
}

static void check(const char *what, void (*write)(kw_buf *, bool, const char *), const char *s) {
    kw_buf md, want, got;
    kw_buf_init(&md);
    kw_buf_init(&want);
    kw_buf_init(&got);
    write(&md, false, s);
    write(&got, true, s);
    kw_err err;
    CHECK(kw_html_from_md(kw_buf_str(&md), md.len, &want, &err) == KW_OK);
    if (strcmp(kw_buf_str(&want), kw_buf_str(&got))) {
        CHECK(!"the HTML form is libcmark-gfm's");
        fprintf(stderr, "%s of \"%s\":\n--- Markdown:\n%s--- libcmark-gfm:\n%s--- kw_md:\n%s", what,
                s, kw_buf_str(&md), kw_buf_str(&want), kw_buf_str(&got));
    }
    kw_buf_free(&md);
    kw_buf_free(&want);
    kw_buf_free(&got);
}

int main(void) {
    kw_html_global_init();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check("table", table, cases[i]);
        check("list", list, cases[i]);
    }
    kw_html_thread_free();
    return kw_test_result("test_md_html");
}
