/* kw_irloc.c: the helpers the three IR location parsers share (kw_irloc.h). */
#include <string.h>

#include "model/kw_irloc.h"

long kw_irloc_num(const char *p, const char *e, const char **end) {
    long v = 0;
    int n = 0;
    while (p + n < e && p[n] >= '0' && p[n] <= '9' && n < 9)
        v = v * 10 + (p[n++] - '0');
    *end = p + n;
    return n ? v : -1;
}

const char *kw_irloc_last(const char *p, const char *e, const char *needle) {
    size_t n = strlen(needle);
    if (e - p < (ptrdiff_t)n)
        return NULL;
    for (const char *q = e - n;; q--) {
        if (*q == *needle && !memcmp(q, needle, n))
            return q;
        if (q == p)
            return NULL;
    }
}

kw_irloc *kw_irloc_push(kw_arena *a, kw_irlocs *out, const char *file, int line) {
    kw_irloc *l = KW_PUSH(a, *out);
    if (l) {
        l->file = line > 0 ? file : NULL;
        l->line = line > 0 && file ? line : 0;
    }
    return l;
}
