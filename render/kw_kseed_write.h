/* kw_kseed_write.h: the seed's known-kernel table (model/kw_kseed.h) in the
 * page's printer (render/kw_r.c: Markdown, or HTML with r->o->html_blocks),
 * its three columns: Kernel | Host Entry | Device Code. */
#ifndef KW_KSEED_WRITE_H
#define KW_KSEED_WRITE_H

#include "model/kw_kseed.h"
#include "render/kw_render.h"

/* Into r->out; paths printed relative to r->o->root. */
void kw_kseed_write(kw_render *r, const kw_kseed *s);

#endif
