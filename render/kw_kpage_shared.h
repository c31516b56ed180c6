/* kw_kpage_shared.h: a kernel page's section of what its instantiations
 * share (model/kw_kpage_walk.h, the page's sites and entries), written in
 * the page's printer by kw_kpage_write. */
#ifndef KW_KPAGE_SHARED_H
#define KW_KPAGE_SHARED_H

#include "model/kw_kpage.h"
#include "render/kw_render.h"

/* "## What the instantiations share": nothing when p has no launch site
 * and no call tree. */
void kw_kpage_shared_write(kw_render *r, const kw_kpage *p);

#endif
