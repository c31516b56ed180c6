/* kw_esc.c: the HTML escaper and SHA-256 (kw_esc.h). The digest follows
 * FIPS 180-4, section 6.2: 64-byte blocks, the message padded with a 1 bit,
 * zeros and its length in bits (big-endian). */
#include "common/kw_esc.h"

#include <stdint.h>
#include <string.h>

void kw_esc_html(kw_buf *b, const char *s, size_t n, bool apos) {
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep;
        switch (s[i]) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            if (!apos)
                continue;
            rep = "&#39;";
            break;
        default:
            continue;
        }
        kw_buf_append(b, s + run, i - run);
        kw_buf_puts(b, rep);
        run = i + 1;
    }
    kw_buf_append(b, s + run, n - run);
}

/* The round constants: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t kw_sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t kw_sha_rotr(uint32_t x, int n) {
    return x >> n | x << (32 - n);
}

static void kw_sha_block(uint32_t h[8], const unsigned char *p) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = kw_sha_rotr(w[t - 15], 7) ^ kw_sha_rotr(w[t - 15], 18) ^ w[t - 15] >> 3;
        uint32_t s1 = kw_sha_rotr(w[t - 2], 17) ^ kw_sha_rotr(w[t - 2], 19) ^ w[t - 2] >> 10;
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = k + (kw_sha_rotr(e, 6) ^ kw_sha_rotr(e, 11) ^ kw_sha_rotr(e, 25)) +
                      ((e & f) ^ (~e & g)) + kw_sha_k[t] + w[t];
        uint32_t t2 = (kw_sha_rotr(a, 2) ^ kw_sha_rotr(a, 13) ^ kw_sha_rotr(a, 22)) +
                      ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void kw_sha256(const void *data, size_t n, unsigned char out[32]) {
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t left = n;
    for (; left >= 64; p += 64, left -= 64)
        kw_sha_block(h, p);
    unsigned char last[128] = {0};
    memcpy(last, p, left);
    last[left] = 0x80;
    size_t end = left + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++)
        last[end - 1 - i] = (unsigned char)(bits >> (8 * i));
    kw_sha_block(h, last);
    if (end == 128)
        kw_sha_block(h, last + 64);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(h[i] >> 8);
        out[4 * i + 3] = (unsigned char)h[i];
    }
}

void kw_sha256_csp(const void *data, size_t n, char out[52]) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char d[33] = {0}; /* one byte past the digest: the last group's zero */
    kw_sha256(data, n, d);
    memcpy(out, "sha256-", 7);
    char *q = out + 7;
    for (int i = 0; i < 33; i += 3) { /* 10 whole groups, then 32 % 3 = 2 bytes */
        unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | (i + 2 < 33 ? d[i + 2] : 0);
        *q++ = b64[v >> 18 & 63];
        *q++ = b64[v >> 12 & 63];
        *q++ = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
        *q++ = i + 2 < 32 ? b64[v & 63] : '=';
        if (i + 3 >= 32)
            break;
    }
    *q = 0;
}
