/* kw_kpage_shared.h: a kernel page's section of what its instantiations
 * share (model/kw_kpage_walk.h, the page's sites and entries), written in
 * the page's printer by kw_kpage_write; and the pieces both write lists
 * with (a location, a list under a paragraph, an item at a location). */
#ifndef KW_KPAGE_SHARED_H
#define KW_KPAGE_SHARED_H

#include "model/kw_kpage.h"
#include "render/kw_render.h"

/* "## What the instantiations share": nothing when p has no launch site
 * and no call tree. */
void kw_kpage_shared_write(kw_render *r, const kw_kpage *p);

/* The kernel page's location, both parts' one writer: `path:line` as code
 * (the path relative to r->o->root), or "(no location recorded)". */
void kw_kpage_shared_loc(kw_render *r, const kw_loc *l, kw_md_in in);
/* A list under a paragraph, both parts' one opener: lead's paragraph, then
 * the list (closed by kw_r_list_end). */
void kw_kpage_shared_list(kw_render *r, const char *lead);
/* A list item: `code` at the location l. */
void kw_kpage_shared_at(kw_render *r, const char *code, const kw_loc *l);

#endif
