/* kw_test_html.h: the HTML printer tests' one comparison (render.md_html,
 * render.ol): the HTML a printer wrote against libcmark-gfm's HTML of the
 * Markdown the Markdown printer wrote from the same calls
 * (kw_html_from_md). A difference fails a check and prints the three. */
#ifndef KW_TEST_HTML_H
#define KW_TEST_HTML_H

#include <string.h>

#include "common/kw_buf.h"
#include "kw_test.h"
#include "render/kw_html.h"

static inline void kw_test_html_same(const char *what, const char *md, const char *got) {
    kw_buf want;
    kw_buf_init(&want);
    kw_err err;
    CHECK(kw_html_from_md(md, strlen(md), &want, &err) == KW_OK);
    if (strcmp(kw_buf_str(&want), got)) {
        CHECK(!"the HTML printer's HTML is libcmark-gfm's HTML of the Markdown printer's");
        fprintf(stderr, "%s:\n--- Markdown:\n%s--- libcmark-gfm:\n%s--- HTML printer:\n%s", what,
                md, kw_buf_str(&want), got);
    }
    kw_buf_free(&want);
}

#endif
