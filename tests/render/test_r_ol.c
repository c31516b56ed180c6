/* test_r_ol.c: render/kw_r.c's numbered lists (kw_r_ol_open, kw_r_ol_item,
 * kw_r_ol_end, which section 1 writes its chains with) in both printers.
 * For each awkward string (spaces at the ends, backticks, pipes, entities,
 * HTML, Markdown punctuation, line breaks), a page of a paragraph, a
 * numbered list of twelve items (past "10.") whose text is the program's
 * words, a code span, inputs' text and prose of the string (some items
 * ending with a blank, which a paragraph drops), an empty list, a bullet
 * list and a paragraph is written twice: as Markdown, converted whole by
 * libcmark-gfm (kw_html_from_md), and by the HTML printer (the HTML printer),
 * as a site page writes it. The two HTML pages must be byte-identical. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kw_test.h"
#include "kw_test_html.h"
#include "render/kw_html.h"
#include "render/kw_md.h"
#include "render/kw_render.h"

static const char *const cases[] = {
    "plain",    " lead",     "trail ",  " both ",      "``",          "a``b",
    "` x `",    "a|b",       "\\",      "&amp; &#38;", "a < b > c",   "\"q\" 'q'",
    "*em* _u_", "[link](x)", "# not h", "1. not list", "line\nbreak", "<b>raw</b>",
    "`",        "é → ∅",     "",        "-",
};

/* The page for s into r's buffer b (html: as a site page writes it). */
static void page(kw_render *r, kw_buf *b, bool html, const char *s) {
    kw_buf_reset(b);
    r->out = r->page_out = b;
    r->md_html = html ? kw_html_from_md : NULL;
    kw_r_para(r, "Python chain from the model:");
    kw_r_ol l;
    kw_r_ol_open(r, &l);
    for (int i = 0; i < 12; i++) {
        kw_r_ol_item(r, &l);
        if (i % 4 == 3) {                  /* an item of the program's words alone */
            kw_r_tf(r, "step %d ", i + 1); /* a trailing blank goes */
            continue;
        }
        kw_r_c(r, s);
        kw_r_t(r, " calls ");
        kw_r_s(r, s);
        kw_r_t(r, " at ");
        kw_r_loc(r, "dir/f.py", i + 1);
        kw_r_t(r, ", when ");
        kw_r_sp(r, s);
        if (i % 4 == 1)
            kw_r_t(r, " ");
    }
    kw_r_ol_end(r, &l);
    kw_r_ol none;
    kw_r_ol_open(r, &none);
    kw_r_ol_end(r, &none); /* writes nothing */
    kw_r_list(r);
    kw_r_item(r, 0);
    kw_r_c(r, s);
    kw_r_list_end(r);
    kw_r_gap(r);
    kw_r_p(r);
    kw_r_t(r, "After ");
    kw_r_c(r, s);
    kw_r_t(r, ".");
    kw_r_p_end(r);
}

static void check_case(kw_render *rm, kw_render *rh, const char *s) {
    kw_buf md, site;
    kw_buf_init(&md);
    kw_buf_init(&site);
    page(rm, &md, false, s);
    page(rh, &site, true, s);
    /* non-vacuous: the list is there, numbered past 9 */
    CHECK(strstr(kw_buf_str(&md), "\n12. ") != NULL);
    CHECK(strstr(kw_buf_str(&site), "<ol>\n<li>") != NULL);
    kw_test_html_same(s, kw_buf_str(&md), kw_buf_str(&site));
    kw_buf_free(&md);
    kw_buf_free(&site);
    kw_arena_free(&rh->scratch);
    kw_arena_free(&rm->scratch);
}

int main(void) {
    kw_html_global_init();
    kw_render_opts md_opts, html_opts;
    memset(&md_opts, 0, sizeof md_opts);
    html_opts = md_opts;
    html_opts.printer = KW_R_HTML;
    kw_render rm, rh;
    kw_render_init(&rm, NULL, NULL, NULL, NULL, NULL, &md_opts);
    kw_render_init(&rh, NULL, NULL, NULL, NULL, NULL, &html_opts);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&rm, &rh, cases[i]);
    kw_render_free(&rm);
    kw_render_free(&rh);
    return kw_test_result("test_r_ol");
}
