/* kw_html_esc.c: text written into a site page: as HTML text or attribute
 * value (the one HTML escaper, common/kw_esc.c), and as a JSON string
 * inside a <script> element. A leaf: the page, the charts, the diagram and
 * the source <-> ISA view call it, it calls none of them. */
#include <stdint.h>
#include <string.h>

#include "common/kw_esc.h"
#include "render/kw_html.h"

void kw_html_escn(kw_buf *b, const char *s, size_t n) {
    kw_esc_html(b, s, n, true);
}

void kw_html_esc(kw_buf *b, const char *s) {
    kw_html_escn(b, s ? s : "", s ? strlen(s) : 0);
}

/* The characters kw_html_json escapes: control characters, '"', '\\', and
 * '<', '>', '&' (no "</script>" or "<!--" inside the element). */
static const unsigned char kw_json_esc[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
    [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
    [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
    ['"'] = 1,  ['\\'] = 1, ['<'] = 1,  ['>'] = 1,  ['&'] = 1,
};

/* Whether any of the 8 bytes of x is one kw_html_json escapes (exact as a
 * yes or no: the borrows of the tests only mark lanes above a true one). */
static inline uint64_t kw_json_any8(uint64_t x) {
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
#define KW_EQ8(c) ((((x ^ (ones * (c))) - ones) & ~(x ^ (ones * (c)))) & high)
    uint64_t ctl = (x - ones * 0x20) & ~x & high; /* a byte below 0x20 */
    return ctl | KW_EQ8('"') | KW_EQ8('\\') | KW_EQ8('<') | KW_EQ8('>') | KW_EQ8('&');
#undef KW_EQ8
}

/* Written in place (a bound of 6 bytes per byte is reserved first), eight
 * bytes at a time where none needs escaping: a page's listings are most of
 * its JSON. */
void kw_html_json(kw_buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    char *q0 = n < SIZE_MAX / 8 ? kw_buf_room(b, 6 * n + 2) : NULL;
    if (!q0) {
        kw_buf_room(b, SIZE_MAX); /* marks the buffer out of memory */
        return;
    }
    char *q = q0;
    *q++ = '"';
    size_t i = 0;
    while (i < n) {
        uint64_t x;
        while (i + 8 <= n && (memcpy(&x, s + i, 8), !kw_json_any8(x))) {
            memcpy(q, &x, 8);
            q += 8;
            i += 8;
        }
        for (size_t stop = i + 8 < n ? i + 8 : n; i < stop; i++) {
            unsigned char c = (unsigned char)s[i];
            if (!kw_json_esc[c]) {
                *q++ = (char)c;
                continue;
            }
            *q++ = '\\';
            if (c == '\n')
                *q++ = 'n'; /* a listing's lines */
            else if (c == '\t')
                *q++ = 't';
            else if (c == '"' || c == '\\')
                *q++ = (char)c;
            else {
                memcpy(q, "u00", 3);
                q[3] = hex[c >> 4];
                q[4] = hex[c & 15];
                q += 5;
            }
        }
    }
    *q++ = '"';
    kw_buf_commit(b, (size_t)(q - q0));
}
