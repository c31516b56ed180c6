/* kw_msgpack_check.c: the bounds check of kw_msgpack_check.h, after the
 * msgpack specification's formats (one type byte, then a big-endian length,
 * count or value). */
#include "common/kw_msgpack_check.h"

#include <stdint.h>

static uint64_t be_read(const unsigned char *d, unsigned k) {
    uint64_t v = 0;
    for (unsigned i = 0; i < k; i++)
        v = v << 8 | d[i];
    return v;
}

/* Skip one msgpack value at d[*pos]; every container count must fit in the
 * bytes left, so msgpack-c never allocates for elements that are not there. */
static bool mp_skip(const unsigned char *d, size_t n, size_t *pos, int depth, int max_depth) {
    if (depth > max_depth || *pos >= n)
        return false;
    unsigned c = d[(*pos)++];
    uint64_t len = 0, elems = 0;
    unsigned hdr = 0;   /* bytes of big-endian length/count after c */
    unsigned extra = 0; /* ext type byte */
    if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
        return true;
    if (c >= 0x80 && c <= 0x8f)
        elems = 2u * (c & 0x0f);
    else if (c >= 0x90 && c <= 0x9f)
        elems = c & 0x0f;
    else if (c >= 0xa0 && c <= 0xbf)
        len = c & 0x1f;
    else {
        /* clang-format off */
        switch (c) {
        case 0xc4: case 0xd9: hdr = 1; break;           /* bin8, str8 */
        case 0xc5: case 0xda: hdr = 2; break;           /* bin16, str16 */
        case 0xc6: case 0xdb: hdr = 4; break;           /* bin32, str32 */
        case 0xc7: hdr = 1; extra = 1; break;           /* ext8 */
        case 0xc8: hdr = 2; extra = 1; break;           /* ext16 */
        case 0xc9: hdr = 4; extra = 1; break;           /* ext32 */
        case 0xca: len = 4; break;                      /* float32 */
        case 0xcb: len = 8; break;                      /* float64 */
        case 0xcc: case 0xd0: len = 1; break;           /* (u)int8 */
        case 0xcd: case 0xd1: len = 2; break;
        case 0xce: case 0xd2: len = 4; break;
        case 0xcf: case 0xd3: len = 8; break;
        case 0xd4: len = 2; break;                      /* fixext1..16, with type */
        case 0xd5: len = 3; break;
        case 0xd6: len = 5; break;
        case 0xd7: len = 9; break;
        case 0xd8: len = 17; break;
        case 0xdc: case 0xdd: case 0xde: case 0xdf: {   /* array16/32, map16/32 */
            unsigned k = (c == 0xdc || c == 0xde) ? 2 : 4;
            if (n - *pos < k)
                return false;
            elems = be_read(d + *pos, k);
            *pos += k;
            if (c >= 0xde)
                elems *= 2;
            break;
        }
        default: /* 0xc1 is never used */
            return false;
        }
        /* clang-format on */
        if (hdr) {
            if (n - *pos < hdr)
                return false;
            len = be_read(d + *pos, hdr) + extra;
            *pos += hdr;
        }
    }
    if (len) {
        if (n - *pos < len)
            return false;
        *pos += (size_t)len;
        return true;
    }
    if (elems > n - *pos)
        return false;
    for (uint64_t i = 0; i < elems; i++)
        if (!mp_skip(d, n, pos, depth + 1, max_depth))
            return false;
    return true;
}

bool kw_msgpack_skip(const unsigned char *d, size_t n, size_t *pos, int max_depth) {
    return mp_skip(d, n, pos, 0, max_depth);
}
