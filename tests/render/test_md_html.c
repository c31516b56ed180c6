/* test_md_html.c: render/kw_md.c's HTML form of a table and a list is what
 * libcmark-gfm makes of the Markdown form of the same calls. Each case
 * writes a table (cells with code spans, text and prose of awkward
 * strings, a right-aligned column, a short and a long row) and a nested
 * list, once as Markdown then converted by libcmark-gfm (kw_html_from_md),
 * once as HTML; the two must be byte-identical. The strings are the ones
 * CommonMark treats specially: spaces at a code span's ends, backticks,
 * blanks only, empty, pipes, entities, HTML, Markdown punctuation, tabs
 * and line breaks.
 * It checks the literal blocks kw_r_lit keeps as HTML the same way: a
 * sequence of blocks written by a renderer for a site page (converted by
 * kw_html_from_page_md) against the same calls written as Markdown and
 * converted whole; the sequences are the ones where a block's HTML depends
 * on the rest of the page (a reference link, a list continued, an indented
 * continuation, a block begun mid-line, a fence or an HTML block before
 * it). Not among them: a fence or HTML block left open across a blank
 * line, which no section writes (each closes what it opens, and an
 * author's text is quoted: the quote closes it) -- the tables and lists
 * written as HTML rely on the same.
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
#include "render/kw_render.h"

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

/* Sequences of literal blocks (level, text), each ended by a NULL text. */
typedef struct lit {
    int level;
    const char *text;
} lit;

static const lit lits[] = {
    {2, "A heading with `code`"},
    {0, "A paragraph, **bold**, `code` & <b>x</b>.\n\n"},
    {3, "Another"},
    {0, "Two\n\nparagraphs.\n\n"},
    {0, NULL},
    {0, "[x]: http://example.com/\n\n"},
    {0, "A link to [x].\n\n"},
    {0, NULL},
    {0, "Before.\n\n"},
    {0, "- one\n\n"},
    {0, "- two\n\n"},
    {0, "After.\n\n"},
    {0, NULL},
    {0, "1. item\n\n"},
    {0, "   the item's second paragraph\n\n"},
    {0, NULL},
    {0, "```\nfenced\n```\n\n"},
    {0, "After the fence.\n\n"},
    {0, NULL},
    {0, "<pre>\nhtml\n</pre>\n\n"},
    {0, "After the HTML.\n\n"},
    {0, NULL},
    {0, "Begun "},
    {0, "mid-line.\n\n"},
    {1, "Then a heading"},
    {0, NULL},
    {0, "> a quote\n\n"},
    {0, "Not quoted.\n\n"},
    {0, NULL},
};

/* The blocks of lits from i to its NULL as the page's Markdown (html:
 * as a site page, kept blocks as HTML); returns the index after the NULL. */
static size_t lit_page(kw_render *r, kw_buf *b, bool html, size_t i) {
    kw_buf_reset(b);
    memset(&r->html, 0, sizeof r->html);
    r->lit_end = 0;
    r->out = r->page_out = b;
    r->md_html = html ? kw_html_from_md : NULL;
    for (size_t first = i; lits[i].text; i++) {
        if (i == first) { /* a table before the blocks (not in an open one) */
            static const char *const head[] = {"a", "b"};
            kw_r_table(r, 2, head);
            kw_r_row(r);
            kw_r_cell(r);
            kw_md_plain(b, "1", 1, r->in);
            kw_r_cell(r);
            kw_md_plain(b, "2", 1, r->in);
            kw_r_table_end(r);
            kw_buf_putc(b, '\n');
        }
        kw_r_lit(r, lits[i].level, lits[i].text);
    }
    return i + 1;
}

static void lit_blocks(void) {
    kw_render_opts md_opts, html_opts;
    memset(&md_opts, 0, sizeof md_opts);
    html_opts = md_opts;
    html_opts.html_blocks = true;
    kw_render rm, rh;
    kw_render_init(&rm, NULL, NULL, NULL, NULL, NULL, &md_opts);
    kw_render_init(&rh, NULL, NULL, NULL, NULL, NULL, &html_opts);
    size_t kept = 0;
    for (size_t i = 0, next; i < sizeof lits / sizeof lits[0]; i = next) {
        kw_buf md, page, want, got;
        kw_buf_init(&md);
        kw_buf_init(&page);
        kw_buf_init(&want);
        kw_buf_init(&got);
        next = lit_page(&rm, &md, false, i);
        lit_page(&rh, &page, true, i);
        kept += rh.html.n;
        kw_err err;
        CHECK(kw_html_from_md(kw_buf_str(&md), md.len, &want, &err) == KW_OK);
        CHECK(kw_html_from_page_md(&rh, &page, &got, &err) == KW_OK);
        if (strcmp(kw_buf_str(&want), kw_buf_str(&got))) {
            CHECK(!"kept literal blocks are libcmark-gfm's HTML of the page");
            fprintf(stderr, "--- Markdown:\n%s--- libcmark-gfm:\n%s--- with kept blocks:\n%s",
                    kw_buf_str(&md), kw_buf_str(&want), kw_buf_str(&got));
        }
        kw_buf_free(&md);
        kw_buf_free(&page);
        kw_buf_free(&want);
        kw_buf_free(&got);
        kw_arena_free(&rh.scratch);
        kw_arena_free(&rm.scratch);
    }
    CHECK(kept > 0); /* some blocks were kept (or this tested nothing) */
    kw_render_free(&rm);
    kw_render_free(&rh);
}

int main(void) {
    json_strings();
    kw_html_global_init();
    lit_blocks();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check("table", table, cases[i]);
        check("list", list, cases[i]);
    }
    kw_html_thread_free();
    return kw_test_result("test_md_html");
}
