/* kw_repro_write.h: a Triton specialization's reproducer (model/kw_repro.h)
 * as the Python script `kwalk repro` prints: triton.compile(ASTSource(...))
 * with the recorded signature, constexprs and options, comparing the hash
 * Triton computes with the recorded one. */
#ifndef KW_REPRO_WRITE_H
#define KW_REPRO_WRITE_H

#include "common/kw_buf.h"
#include "model/kw_repro.h"

/* The script into b; db: the index it came from, version: kwalk's. */
void kw_repro_write(kw_buf *b, const kw_repro *r, const char *db, const char *version);

#endif
