/* kw_md_doc.c: an author's Markdown (a kernel's doc comment, from any header
 * the build includes) quoted in a page so that it stays text: parsed by
 * libcmark-gfm, its raw HTML (inline or a block) made text (a block as a
 * code block), and the links and images whose URL has a scheme other than
 * http, https or mailto (javascript:, data:, file:, ...) left without their
 * URL. A doc comment that needed none of this, and defines no link
 * reference the page around it could use, is quoted as written; one that
 * did is quoted as libcmark-gfm writes the changed document back as
 * CommonMark, in which that HTML is escaped text (docs/security.md). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>

#include "render/kw_md.h"

/* Whether a link's or image's URL is one a page may link to: no scheme (a
 * relative URL or a fragment), or http, https, mailto. The scheme is read as
 * a browser reads it: leading blanks and control characters dropped, tabs
 * and line breaks inside ignored, case ignored. */
static bool kw_md_doc_url_ok(const char *url) {
    char scheme[16];
    size_t n = 0;
    const char *p = url ? url : "";
    while (*p && (unsigned char)*p <= 0x20)
        p++;
    for (; *p && *p != ':'; p++) {
        if (*p == '\t' || *p == '\n' || *p == '\r')
            continue;
        if (*p == '/' || *p == '?' || *p == '#')
            return true; /* a path before any ':': relative */
        if (!isalnum((unsigned char)*p) && *p != '+' && *p != '-' && *p != '.')
            return true; /* not a scheme: the converter percent-encodes it */
        if (n + 1 >= sizeof scheme)
            return false; /* a long scheme-like word before ':' */
        scheme[n++] = (char)tolower((unsigned char)*p);
    }
    if (!*p)
        return true;
    scheme[n] = 0;
    return !strcmp(scheme, "http") || !strcmp(scheme, "https") || !strcmp(scheme, "mailto");
}

/* Makes doc's raw HTML text and drops its unsafe URLs; true when it
 * changed anything (false also when out of memory: nothing changed). */
static bool kw_md_doc_clean(cmark_node *doc, bool *oom) {
    cmark_node **html = NULL;
    size_t n = 0, cap = 0;
    bool changed = false;
    cmark_iter *it = cmark_iter_new(doc);
    cmark_event_type ev;
    while (it && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *x = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(x);
        if (ev == CMARK_EVENT_ENTER && (t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE) &&
            !kw_md_doc_url_ok(cmark_node_get_url(x))) {
            cmark_node_set_url(x, "");
            changed = true;
        }
        if (t != CMARK_NODE_HTML_INLINE && t != CMARK_NODE_HTML_BLOCK)
            continue;
        if (n == cap) { /* replaced after the walk: the iterator stands on it */
            cap = cap ? 2 * cap : 8;
            cmark_node **v = realloc(html, cap * sizeof *v);
            if (!v) {
                *oom = true;
                break;
            }
            html = v;
        }
        html[n++] = x;
    }
    cmark_iter_free(it);
    *oom |= !it;
    for (size_t i = 0; i < n && !*oom; i++) {
        bool block = cmark_node_get_type(html[i]) == CMARK_NODE_HTML_BLOCK;
        cmark_node *y = cmark_node_new(block ? CMARK_NODE_CODE_BLOCK : CMARK_NODE_TEXT);
        const char *lit = cmark_node_get_literal(html[i]);
        if (!y || !cmark_node_set_literal(y, lit ? lit : "") ||
            (block && !cmark_node_set_fence_info(y, "html")) || !cmark_node_replace(html[i], y)) {
            if (y)
                cmark_node_free(y);
            *oom = true;
            break;
        }
        cmark_node_free(html[i]);
        changed = true;
    }
    free(html);
    return changed && !*oom;
}

void kw_md_doc(kw_buf *b, const char *text) {
    if (!text)
        return;
    /* raw HTML needs '<'; a URL with a scheme ':' (or "&#58;"); a reference
     * definition "]:" */
    if (!strpbrk(text, "<:&")) {
        kw_md_quote(b, text);
        return;
    }
    cmark_node *doc = cmark_parse_document(text, strlen(text), CMARK_OPT_DEFAULT);
    bool oom = !doc;
    bool changed = doc && kw_md_doc_clean(doc, &oom);
    bool refs = strstr(text, "]:") != NULL; /* definitions: resolved here, not in the page */
    char *md = doc && !oom && (changed || refs) ? cmark_render_commonmark(doc, CMARK_OPT_DEFAULT, 0)
                                                : NULL;
    if (md) {
        size_t n = strlen(md);
        while (n && md[n - 1] == '\n')
            md[--n] = 0;
        kw_md_quote(b, md);
        free(md);
    } else if (oom || changed || refs) {
        kw_md_quote(b, "(The doc comment could not be quoted safely: out of memory.)");
    } else {
        kw_md_quote(b, text);
    }
    if (doc)
        cmark_node_free(doc);
}
