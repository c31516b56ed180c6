/* kw_tcompare_write.h: the Markdown page of `kwalk compare A B`: two
 * specializations of one @triton.jit function side by side
 * (model/kw_tcompare.h). */
#ifndef KW_TCOMPARE_WRITE_H
#define KW_TCOMPARE_WRITE_H

#include "common/kw_buf.h"
#include "model/kw_tcompare.h"

void kw_tcompare_write(kw_buf *b, const kw_tcmp *c);

#endif
