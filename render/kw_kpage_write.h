/* kw_kpage_write.h: a kernel's page (model/kw_kpage.h) as Markdown: what
 * the kernel is, where it is defined, what --shape selects, and its
 * dispatch table, one table per group of instantiations that share their
 * dispatch conditions. Computes nothing; the model decided every row. */
#ifndef KW_KPAGE_WRITE_H
#define KW_KPAGE_WRITE_H

#include "common/kw_buf.h"
#include "model/kw_kpage.h"
#include "model/kw_model.h"

/* query: the name the user gave (said when it picked some of the kernel's
 * instantiations); root: --root (paths printed relative to it), or NULL. */
void kw_kpage_write(const kw_model *m, const kw_kpage *p, const char *query, const char *root,
                    kw_buf *out);

#endif
