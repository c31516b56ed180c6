/* kw_varint.h: LEB128 varints (signed ones zigzag-coded), the number form of
 * the index's packed line tables (index/kw_index_db_lines.c) and of the decode
 * cache's records (codeobj/kw_co_cache.c). */
#ifndef KW_VARINT_H
#define KW_VARINT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/kw_buf.h"

/* Appends v to b. */
void kw_varint_put_u(kw_buf *b, uint64_t v);
void kw_varint_put_s(kw_buf *b, long long v);

/* A reader over [p, end); bad is set (and 0 read) past the end or on a
 * varint longer than 64 bits. */
typedef struct kw_varint_in {
    const unsigned char *p, *end;
    bool bad;
} kw_varint_in;

uint64_t kw_varint_get_u(kw_varint_in *in);
long long kw_varint_get_s(kw_varint_in *in);

#endif
