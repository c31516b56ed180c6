/* kw_natcmp.c: natural string order (see kw_natcmp.h). */
#include "common/kw_natcmp.h"

#include <string.h>

static int kw_isdigit(char c) {
    return c >= '0' && c <= '9';
}

/* Compare the digit runs at *pa and *pb by value, advancing both. */
static int kw_natcmp_digits(const char **pa, const char **pb) {
    const char *a = *pa, *b = *pb;
    const char *a0 = a, *b0 = b;
    while (*a == '0' && kw_isdigit(a[1]))
        a++;
    while (*b == '0' && kw_isdigit(b[1]))
        b++;
    size_t na = 0, nb = 0;
    while (kw_isdigit(a[na]))
        na++;
    while (kw_isdigit(b[nb]))
        nb++;
    int c = na != nb ? (na < nb ? -1 : 1) : memcmp(a, b, na);
    if (!c) { /* same value: fewer leading zeros first */
        size_t la = (size_t)(a - a0) + na, lb = (size_t)(b - b0) + nb;
        c = la < lb ? -1 : la > lb;
    }
    *pa = a + na;
    *pb = b + nb;
    return c;
}

int kw_natcmp(const char *a, const char *b) {
    while (*a && *b) {
        if (kw_isdigit(*a) && kw_isdigit(*b)) {
            int c = kw_natcmp_digits(&a, &b);
            if (c)
                return c;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a < (unsigned char)*b ? -1 : (unsigned char)*a > (unsigned char)*b;
}
