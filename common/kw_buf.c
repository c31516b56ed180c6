/* kw_buf.c: the string builder. */
#include "common/kw_buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kw_buf_init(kw_buf *b) {
    b->ptr = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void kw_buf_free(kw_buf *b) {
    free(b->ptr);
    kw_buf_init(b);
}

void kw_buf_reset(kw_buf *b) {
    b->len = 0;
    if (b->ptr)
        b->ptr[0] = '\0';
}

static bool kw_buf_reserve(kw_buf *b, size_t extra) {
    if (b->oom)
        return false;
    if (extra > SIZE_MAX / 4 - b->len) { /* (the doubling below would overflow) */
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    size_t ncap = b->cap ? b->cap : 64;
    while (ncap < need)
        ncap *= 2;
    char *p = realloc(b->ptr, ncap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->ptr = p;
    b->cap = ncap;
    return true;
}

void kw_buf_append(kw_buf *b, const void *data, size_t n) {
    if (!kw_buf_reserve(b, n))
        return;
    if (n)
        memcpy(b->ptr + b->len, data, n);
    b->len += n;
    b->ptr[b->len] = '\0';
}

char *kw_buf_room(kw_buf *b, size_t n) {
    return kw_buf_reserve(b, n) ? b->ptr + b->len : NULL;
}

void kw_buf_commit(kw_buf *b, size_t k) {
    if (b->oom || !b->ptr || b->len + k >= b->cap)
        return;
    b->len += k;
    b->ptr[b->len] = '\0';
}

char *kw_dec(char *q, long long v) {
    char d[24], *e = d + sizeof d, *p = e;
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    memcpy(q, p, (size_t)(e - p));
    return q + (e - p);
}

void kw_buf_int(kw_buf *b, long long v) {
    char d[24];
    kw_buf_append(b, d, (size_t)(kw_dec(d, v) - d));
}

void kw_buf_puts(kw_buf *b, const char *s) {
    kw_buf_append(b, s, strlen(s));
}

void kw_buf_putc(kw_buf *b, char c) {
    if (b->len + 2 <= b->cap) { /* the common case: room for c and the NUL */
        b->ptr[b->len++] = c;
        b->ptr[b->len] = '\0';
        return;
    }
    kw_buf_append(b, &c, 1);
}

/* Formats into the free space first (most texts are short) and only when the
 * text did not fit grows the buffer and formats again. */
void kw_buf_printf(kw_buf *b, const char *fmt, ...) {
    if (!kw_buf_reserve(b, 128))
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->ptr + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->ptr[b->len] = '\0';
        return;
    }
    if ((size_t)n >= room) {
        if (!kw_buf_reserve(b, (size_t)n)) {
            b->ptr[b->len] = '\0';
            return;
        }
    va_start(ap, fmt);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    }
    b->len += (size_t)n;
}

const char *kw_buf_str(const kw_buf *b) {
    return b->ptr ? b->ptr : "";
}
