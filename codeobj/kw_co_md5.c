/* kw_co_md5.c: MD5 (RFC 1321), to check the hash a CCOB header stores:
 * clang's OffloadBundler writes the low 64 bits (the first 8 digest bytes,
 * little-endian) of the MD5 of the uncompressed bundle. A corrupt payload can
 * still decompress without error; the hash catches it. Also the whole digest
 * in hex, which a schema 2 sidecar records per code object (kw_co_md5_hex in
 * kw_codeobj.h). Not for security. */
#include <string.h>

#include "kw_co_internal.h"

typedef struct md5 {
    uint32_t h[4];
    uint64_t len;
} md5;

static uint32_t rol(uint32_t x, unsigned c) {
    return (x << c) | (x >> (32 - c));
}

static void md5_block(md5 *m, const unsigned char *p) {
    static const uint32_t k[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391};
    static const unsigned char r[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                        5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
    uint32_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = kw_co_le32(p + 4 * i);
    uint32_t a = m->h[0], b = m->h[1], c = m->h[2], d = m->h[3];
    for (unsigned i = 0; i < 64; i++) {
        uint32_t f;
        unsigned g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) % 16;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) % 16;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) % 16;
        }
        uint32_t t = d;
        d = c;
        c = b;
        b = b + rol(a + f + k[i] + w[g], r[i]);
        a = t;
    }
    m->h[0] += a;
    m->h[1] += b;
    m->h[2] += c;
    m->h[3] += d;
}

static void kw_co_md5_digest(const unsigned char *data, size_t n, uint32_t h[4]) {
    md5 m = {{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}, 0};
    m.len = (uint64_t)n * 8;
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        md5_block(&m, data + i);
    unsigned char tail[128] = {0};
    size_t rest = n - i;
    memcpy(tail, data + i, rest);
    tail[rest] = 0x80;
    size_t tlen = rest + 1 + 8 <= 64 ? 64 : 128;
    for (int b = 0; b < 8; b++)
        tail[tlen - 8 + b] = (unsigned char)(m.len >> (8 * b));
    md5_block(&m, tail);
    if (tlen == 128)
        md5_block(&m, tail + 64);
    memcpy(h, m.h, sizeof m.h);
}

uint64_t kw_co_md5_low64(const unsigned char *data, size_t n) {
    uint32_t h[4];
    kw_co_md5_digest(data, n, h);
    return (uint64_t)h[0] | (uint64_t)h[1] << 32;
}

void kw_co_md5_hex(const void *data, size_t n, char out[33]) {
    static const char hex[] = "0123456789abcdef";
    uint32_t h[4];
    kw_co_md5_digest(data, n, h);
    for (int w = 0; w < 4; w++)
        for (int b = 0; b < 4; b++) {
            unsigned byte = (h[w] >> (8 * b)) & 0xffu;
            out[8 * w + 2 * b] = hex[byte >> 4];
            out[8 * w + 2 * b + 1] = hex[byte & 15];
        }
    out[32] = '\0';
}
