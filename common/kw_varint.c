/* kw_varint.c: LEB128 varints, signed ones zigzag-coded (kw_varint.h). */
#include "common/kw_varint.h"

void kw_varint_put_u(kw_buf *b, uint64_t v) {
    unsigned char t[10];
    size_t n = 0;
    do {
        t[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        t[n] |= v ? 0x80 : 0;
        n++;
    } while (v);
    kw_buf_append(b, t, n);
}

void kw_varint_put_s(kw_buf *b, long long v) {
    kw_varint_put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v < 0 ? -1 : 0));
}

uint64_t kw_varint_get_u(kw_varint_in *in) {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (in->p >= in->end)
            break;
        unsigned char c = *in->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    in->bad = true;
    return 0;
}

long long kw_varint_get_s(kw_varint_in *in) {
    uint64_t z = kw_varint_get_u(in);
    return (long long)((z >> 1) ^ (uint64_t) - (int64_t)(z & 1));
}
