/* kw_kseed_write.h: the seed's known-kernel table (model/kw_kseed.h) as
 * Markdown, its three columns: Kernel | Host Entry | Device Code. */
#ifndef KW_KSEED_WRITE_H
#define KW_KSEED_WRITE_H

#include "common/kw_buf.h"
#include "model/kw_kseed.h"

/* root: --root (paths printed relative to it), or NULL. */
void kw_kseed_write(const kw_kseed *s, const char *root, kw_buf *out);

#endif
