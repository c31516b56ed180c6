/* test_md_html.c: render/kw_md.c's HTML form of a table and a list is what
 * libcmark-gfm makes of the Markdown form of the same calls. Each case
 * writes a table (cells with code spans, text and prose of awkward
 * strings, a right-aligned column, a short and a long row) and a nested
 * list, once as Markdown then converted by libcmark-gfm (kw_html_from_md),
 * once as HTML; the two must be byte-identical. The strings are the ones
 * CommonMark treats specially: spaces at a code span's ends, backticks,
 * blanks only, empty, pipes, entities, HTML, Markdown punctuation, tabs
 * and line breaks.
 * It also checks kw_html_json (which tests eight bytes at a time) on
 * generated strings: the JSON decodes back to the bytes given, and has no
 * control character, '<', '>' or '&' left. */
#include <stdbool.h>
#include <stdint.h>
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

/* The JSON string at j (from its opening quote) decoded into out; its
 * length, or -1 when it is not one string of the escapes kw_html_json
 * writes (\n \t \" \\ \u00XX) and bytes it may leave as they are. */
static long json_decode(const char *j, size_t n, char *out) {
    if (n < 2 || j[0] != '"' || j[n - 1] != '"')
        return -1;
    long k = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)j[i];
        if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '"')
            return -1;
        if (c != '\\') {
            out[k++] = (char)c;
            continue;
        }
        char e = j[++i];
        if (e == 'n' || e == 't' || e == '"' || e == '\\')
            out[k++] = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        else if (e == 'u' && i + 4 < n - 1 && j[i + 1] == '0' && j[i + 2] == '0') {
            unsigned v = 0;
            if (sscanf(j + i + 3, "%2x", &v) != 1)
                return -1;
            out[k++] = (char)v;
            i += 4;
        } else
            return -1;
    }
    return k;
}

/* Strings of every length to 40 at every alignment, from an alphabet of
 * the bytes JSON or HTML treat specially and of plain ones. */
static void json_strings(void) {
    static const char alpha[] = "ab_ 09:\n\t\r\"\\<>&/\x01\x1f\x7f\x80\xff";
    uint32_t x = 12345;
    char in[48], dec[48];
    for (int round = 0; round < 4000; round++) {
        size_t n = (size_t)(round % 41);
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            in[i] =
                round % 3 ? alpha[(x >> 16) % (sizeof alpha - 1)] : (char)('a' + (x >> 16) % 26);
        }
        kw_buf b;
        kw_buf_init(&b);
        kw_buf_puts(&b, "x"); /* not at the start of the buffer */
        kw_html_json(&b, in, n);
        long k = b.oom ? -1 : json_decode(b.ptr + 1, b.len - 1, dec);
        bool same = k == (long)n && !memcmp(dec, in, n);
        CHECK(same);
        if (!same)
            fprintf(stderr, "  kw_html_json of %zu bytes wrote %s\n", n, b.ptr ? b.ptr : "");
        kw_buf_free(&b);
    }
}

int main(void) {
    json_strings();
    kw_html_global_init();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check("table", table, cases[i]);
        check("list", list, cases[i]);
    }
    kw_html_thread_free();
    return kw_test_result("test_md_html");
}
