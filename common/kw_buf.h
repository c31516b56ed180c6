/* kw_buf.h: a growable byte/string buffer (a string builder), used wherever
 * text is assembled. Always NUL-terminated once anything was appended. */
#ifndef KW_BUF_H
#define KW_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct kw_buf {
    char *ptr;
    size_t len;
    size_t cap;
    bool oom; /* set once an allocation failed; later appends are no-ops */
} kw_buf;

void kw_buf_init(kw_buf *b);
void kw_buf_free(kw_buf *b);
void kw_buf_reset(kw_buf *b); /* keep the memory, drop the contents */
void kw_buf_append(kw_buf *b, const void *data, size_t n);
void kw_buf_puts(kw_buf *b, const char *s);
void kw_buf_putc(kw_buf *b, char c);
void kw_buf_printf(kw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kw_buf_int(kw_buf *b, long long v); /* v in decimal, as printf's "%lld" */
/* v in decimal (as "%lld") written at q, 20 bytes at most; returns the end.
 * For a writer that puts several numbers in one buffer before appending. */
char *kw_dec(char *q, long long v);
const char *kw_buf_str(const kw_buf *b); /* "" when empty */
/* Writing in place: kw_buf_room returns where n bytes may be written at the
 * end (NULL when out of memory); kw_buf_commit then adds the first k <= n of
 * them to the buffer. For a writer that knows a bound and not the length. */
char *kw_buf_room(kw_buf *b, size_t n);
void kw_buf_commit(kw_buf *b, size_t k);

#endif
