/* kw_map_link.h: a code span of `kwalk map`'s page, written by the page's
 * printer (render/kw_r.c), and on the site's map.html (the HTML printer)
 * linked where the site says so (kw_html_map.c: a launch site to its
 * instantiation's page, a template's name to the index filtered by it).
 * The table's writer (kw_map_write.c) and the unresolved calls' writer
 * (kw_map_unresolved.c) both write their code spans here. */
#ifndef KW_MAP_LINK_H
#define KW_MAP_LINK_H

#include <stdbool.h>

#include "common/kw_buf.h"
#include "render/kw_render.h"

/* map.html's links: href writes the link of a code span's text into h and
 * says true, or says false (the span is not linked). */
typedef struct kw_map_links {
    bool (*href)(void *ctx, const char *text, kw_buf *h);
    void *ctx;
} kw_map_links;

/* The code span s into r->out where inline text goes as in (a cell's
 * r->in, or kw_r_prose_in(r) in prose and list items); with the HTML
 * printer and links that link it, inside <a href="...">. */
void kw_map_link_code(kw_render *r, const kw_map_links *links, const char *s, kw_md_in in);

#endif
