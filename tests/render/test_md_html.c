/* test_md_html.c: render/kw_md.c's HTML form of a table and a list is what
 * libcmark-gfm makes of the Markdown form of the same calls. Each case
 * writes a table (cells with code spans, text and prose of awkward
 * strings, a right-aligned column, a short and a long row) and a nested
 * list, once as Markdown then converted by libcmark-gfm (kw_html_from_md),
 * once as HTML; the two must be byte-identical. The strings are the ones
 * CommonMark treats specially: spaces at a code span's ends, backticks,
 * blanks only, empty, pipes, entities, HTML, Markdown punctuation, tabs
 * and line breaks.
 * It checks the page's other blocks the same way (render/kw_r.c): pages
 * of headings, paragraphs of the program's own words (kw_r_lit), inputs'
 * text, a note and a fence after a table, written by the HTML printer,
 * against libcmark-gfm's HTML of the same calls written by the Markdown
 * printer.
 * It also checks kw_html_json (which tests eight bytes at a time) on
 * generated strings: the JSON decodes back to the bytes given, and has no
 * control character, '<', '>' or '&' left.
 * And what keeps inputs text (docs/security.md): kw_md_safe and
 * kw_md_safe_prose in the table and the list as above; kw_md_safe of every
 * case (and of hostile HTML) in a paragraph, which libcmark-gfm converts,
 * raw HTML allowed as on a site page, into the case's own text, escaped
 * (line breaks as spaces), and writes a case with no Markdown or HTML
 * character unchanged; kw_md_plain of each makes no tag or link; kw_md_doc
 * of hostile doc comments, whose HTML has no tag, handler or
 * javascript:/data: URL the comment wrote and shows its HTML as text, and
 * which quotes a harmless comment as written. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kw_test.h"
#include "kw_test_html.h"
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
    static const char *const head[] = {"`Code` title", "Text", "#", "Prose", "Safe", "Safe prose"};
    kw_md_table t;
    kw_md_table_open(&t, b, html, 6, head, "--r---");
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
    kw_md_table_cell(&t);
    kw_md_safe(b, s, in);
    kw_md_table_cell(&t);
    kw_md_safe_prose(b, s, in);
    kw_md_table_row(&t); /* a short row: GFM fills it */
    kw_md_table_cell(&t);
    kw_md_strong(b, "bold", in);
    kw_md_table_row(&t); /* a long row: GFM drops the fifth cell */
    for (int i = 0; i < 7; i++) {
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
        kw_buf_puts(b, " or ");
        kw_md_safe(b, s, in);              /* (its backticks are text: no span with the prose's) */
        kw_buf_puts(b, i % 3 ? "." : " "); /* a trailing blank goes */
    }
    kw_md_list_close(&l);
    if (!html)
        kw_buf_putc(b, '\n');
}

static void check(const char *what, void (*write)(kw_buf *, bool, const char *), const char *s) {
    kw_buf md, got;
    kw_buf_init(&md);
    kw_buf_init(&got);
    write(&md, false, s);
    write(&got, true, s);
    kw_test_html_same(what, kw_buf_str(&md), kw_buf_str(&got));
    kw_buf_free(&md);
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

/* Sequences of the program's own blocks (level, text: a heading, or
 * paragraphs whose only markup is `code`), each ended by a NULL text. */
typedef struct lit {
    int level;
    const char *text;
} lit;

static const lit lits[] = {
    {2, "A heading with `code`"},
    {0, "A paragraph, `code` & x \"quoted\" -> done, a > b.\n\n"},
    {3, "Another: 6. Source File Index"},
    {0, "Two\n\nparagraphs, the first\nwith a line break.\n\n"},
    {0, NULL},
    {0, "Numbers 1. and - signs mid-line, 2 × 3 ↔ ∅, `a`.`b` spans.\n\n"},
    {1, "Then a heading (x)"},
    {0, NULL},
};

/* The blocks of lits from i to its NULL as a page: a table, the literal
 * blocks, then a paragraph, a note and a fence of inputs' text, in r's
 * printer; returns the index after the NULL. */
static size_t lit_page(kw_render *r, kw_buf *b, size_t i) {
    kw_buf_reset(b);
    r->out = r->page_out = b;
    for (size_t first = i; lits[i].text; i++) {
        if (i == first) { /* a table before the blocks */
            static const char *const head[] = {"a", "b"};
            kw_r_table(r, 2, head);
            kw_r_row(r);
            kw_r_cell(r);
            kw_md_plain(b, "1", 1, r->in);
            kw_r_cell(r);
            kw_md_plain(b, "2", 1, r->in);
            kw_r_table_end(r);
            kw_r_gap(r);
        }
        kw_r_lit(r, lits[i].level, lits[i].text);
    }
    kw_r_p(r);
    kw_r_t(r, "Inputs: ");
    kw_r_s(r, "a_b *c* [d](e) <i>&amp;");
    kw_r_t(r, ", ");
    kw_r_c(r, "x | y `z`");
    kw_r_t(r, ", ");
    kw_r_sp(r, "prose with `code` and _under_");
    kw_r_p_end(r);
    kw_r_note(r);
    kw_r_tf(r, "Note: %d lines, ", 12);
    kw_r_c(r, "tok");
    kw_r_note_end(r);
    kw_r_fence(r, "cpp", "int x = a < b && c > d;\n// \"q\"");
    kw_r_h(r, 2);
    kw_r_t(r, "6. Source File Index");
    kw_r_h_end(r);
    return i + 1;
}

/* The HTML printer writes what libcmark-gfm makes of the Markdown
 * printer's page. */
static void lit_blocks(void) {
    kw_render_opts md_opts, html_opts;
    memset(&md_opts, 0, sizeof md_opts);
    html_opts = md_opts;
    html_opts.printer = KW_R_HTML;
    kw_render rm, rh;
    kw_render_init(&rm, NULL, NULL, NULL, NULL, NULL, &md_opts);
    kw_render_init(&rh, NULL, NULL, NULL, NULL, NULL, &html_opts);
    size_t pages = 0;
    for (size_t i = 0, next; i < sizeof lits / sizeof lits[0]; i = next) {
        kw_buf md, got;
        kw_buf_init(&md);
        kw_buf_init(&got);
        next = lit_page(&rm, &md, i);
        lit_page(&rh, &got, i);
        CHECK(strstr(kw_buf_str(&got), "<p>") != NULL); /* the HTML printer wrote HTML */
        pages++;
        kw_test_html_same("the page's literal blocks", kw_buf_str(&md), kw_buf_str(&got));
        kw_buf_free(&md);
        kw_buf_free(&got);
        kw_arena_free(&rh.scratch);
        kw_arena_free(&rm.scratch);
    }
    CHECK(pages == 2);
    kw_render_free(&rm);
    kw_render_free(&rh);
}

/* Hostile strings beside the cases: tags, handlers, URLs, entities. */
static const char *const hostile[] = {
    "x<img src=y onerror=alert(8)>.hip",
    "</script><script>alert(1)</script>",
    "<a href=\"javascript:alert(2)\">x</a>",
    "[click](javascript:alert(3)) <javascript:alert(4)>",
    "&lt;script&gt; &#60;img&#62; &#x3C;",
    "a_b _c_ d__e__ __init__ x_",
    "\\<b>\\",
};

/* libcmark-gfm's HTML of "x " kw_md_safe(s) " y" as a paragraph is s as text. */
static void safe_text(const char *s) {
    kw_buf md, got, want;
    kw_buf_init(&md);
    kw_buf_init(&got);
    kw_buf_init(&want);
    kw_buf_puts(&md, "x ");
    kw_md_safe(&md, s, KW_MD_TEXT);
    kw_buf_puts(&md, " y\n");
    kw_err err;
    CHECK(kw_html_from_md(kw_buf_str(&md), md.len, &got, &err) == KW_OK);
    kw_buf_puts(&want, "<p>x ");
    for (const char *p = s; *p; p++) {
        char c = *p == '\n' || *p == '\r' ? ' ' : *p;
        const char *e = c == '&'   ? "&amp;"
                        : c == '<' ? "&lt;"
                        : c == '>' ? "&gt;"
                        : c == '"' ? "&quot;"
                                   : NULL;
        if (e)
            kw_buf_puts(&want, e);
        else
            kw_buf_putc(&want, c);
    }
    kw_buf_puts(&want, " y</p>\n");
    if (strcmp(kw_buf_str(&got), kw_buf_str(&want))) {
        CHECK(!"kw_md_safe keeps the text as text");
        fprintf(stderr,
                "kw_md_safe of \"%s\":\n--- Markdown:\n%s--- libcmark-gfm:\n%s--- want:\n%s", s,
                kw_buf_str(&md), kw_buf_str(&got), kw_buf_str(&want));
    }
    /* nothing that could make Markdown or HTML: written as it is */
    if (!strpbrk(s, "\\`*_[]<>|~&\n\r"))
        CHECK(md.len == strlen(s) + 5 && !memcmp(md.ptr + 2, s, strlen(s)));
    /* kw_md_plain (words from the inputs) makes no tag, entity or link either */
    kw_buf_reset(&md);
    kw_buf_reset(&got);
    kw_buf_puts(&md, "x ");
    kw_md_plain(&md, s, strlen(s), KW_MD_TEXT);
    kw_buf_puts(&md, " y\n");
    CHECK(kw_html_from_md(kw_buf_str(&md), md.len, &got, &err) == KW_OK);
    const char *h = kw_buf_str(&got);
    bool tag = strstr(h, "<img") || strstr(h, "<script") || strstr(h, "<a ") || strstr(h, "<b>");
    CHECK(!tag && (!strchr(s, '<') || strstr(h, "&lt;")));
    if (tag)
        fprintf(stderr, "kw_md_plain of \"%s\": %s", s, h);
    kw_buf_free(&md);
    kw_buf_free(&got);
    kw_buf_free(&want);
}

/* Whether the HTML h holds the text t, case ignored. */
static bool has_ci(const char *h, const char *t) {
    for (; *h; h++) {
        size_t i = 0;
        while (t[i] && h[i] && (h[i] | 0x20) == (t[i] | 0x20))
            i++;
        if (!t[i])
            return true;
    }
    return false;
}

static void doc_quote(void) {
    static const struct {
        const char *doc, *shown; /* shown: text the HTML must hold */
    } docs[] = {
        {"Scales <script>alert('doc')</script> and [click](javascript:alert(2)) <img src=x "
         "onerror=alert(3)>",
         "&lt;script&gt;alert('doc')&lt;/script&gt;"},
        {"<img src=x onerror=alert(3)>\n\nA block of HTML, then text.",
         "&lt;img src=x onerror=alert(3)&gt;"},
        {"[a](JaVaScRiPt:alert(1)) [b](java&#9;script:alert(1)) [c](javascript&#58;alert(1))\n"
         "![d](data:text/html,<script>alert(1)</script>) <vbscript:alert(1)>",
         ">a</a>"},
        {"Uses [the ref][r] once.\n\n[r]: javascript:alert(5)", ">the ref</a>"},
        {"<div onclick=\"alert(6)\">\n*md*\n</div>", "&lt;div onclick=&quot;alert(6)&quot;&gt;"},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        kw_buf md, html;
        kw_buf_init(&md);
        kw_buf_init(&html);
        kw_md_doc(&md, docs[i].doc);
        kw_err err;
        CHECK(kw_html_from_md(kw_buf_str(&md), md.len, &html, &err) == KW_OK);
        const char *h = kw_buf_str(&html);
        /* (the words may stay as text: an autolink's text is its URL) */
        bool bad = has_ci(h, "<script") || has_ci(h, "<img src=x") || has_ci(h, "<div") ||
                   has_ci(h, "href=\"java") || has_ci(h, "href=\"vbs") ||
                   has_ci(h, "href=\"data") || has_ci(h, "src=\"data") || has_ci(h, "src=\"java");
        CHECK(!bad && strstr(h, docs[i].shown) && !strncmp(h, "<blockquote>", 12));
        if (bad || !strstr(h, docs[i].shown))
            fprintf(stderr, "kw_md_doc of \"%s\":\n--- Markdown:\n%s--- HTML:\n%s", docs[i].doc,
                    kw_buf_str(&md), h);
        kw_buf_free(&md);
        kw_buf_free(&html);
    }
    /* a harmless comment (code, a link, a colon, an entity) is quoted as written */
    static const char *const ok[] = {
        "Adds `a<b>` to [the docs](https://example.com/x): &amp; more.",
        "Plain text\nover two lines"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        kw_buf a, b;
        kw_buf_init(&a);
        kw_buf_init(&b);
        kw_md_doc(&a, ok[i]);
        kw_md_quote(&b, ok[i]);
        CHECK_STR(kw_buf_str(&a), kw_buf_str(&b));
        kw_buf_free(&a);
        kw_buf_free(&b);
    }
}

int main(void) {
    json_strings();
    kw_html_global_init();
    lit_blocks();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check("table", table, cases[i]);
        check("list", list, cases[i]);
        safe_text(cases[i]);
    }
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        check("table", table, hostile[i]);
        check("list", list, hostile[i]);
        safe_text(hostile[i]);
    }
    doc_quote();
    return kw_test_result("test_md_html");
}
