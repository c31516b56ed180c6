/* kw_expr_int.c: C's bitwise operators on the evaluator's doubles
 * (kw_expr_int.h): the operands checked to be int64_t integers, the
 * operation done on int64_t, C's undefined cases refused. */
#include "model/kw_expr_int.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* v as an int64_t when it is an integer within int64_t's range. */
static int kw_expr_int_get(double v, int64_t *out) {
    /* -2^63 is an int64_t, 2^63 is not; NaN fails both comparisons */
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || v != (double)(int64_t)v)
        return 0;
    *out = (int64_t)v;
    return 1;
}

/* a << s, a >> s for 0 <= s < 64; KW_ERR where C leaves it undefined. */
static kw_status kw_expr_int_shift(const char *op, int64_t a, int64_t s, int64_t *r, kw_err *err) {
    if (s < 0 || s >= 64)
        return kw_fail(err, "'%s' by a count outside 0..63 (undefined in C)", op);
    if (op[0] == '>') { /* arithmetic, written so that C defines it */
        *r = a >= 0 ? a >> s : ~(~a >> s);
        return KW_OK;
    }
    if (a < 0 || a > (INT64_MAX >> s))
        return kw_fail(err, "'<<' of a negative value or past int64 (undefined in C)");
    *r = a << s;
    return KW_OK;
}

kw_status kw_expr_int_op(const char *op, double a, double b, double *out, kw_err *err) {
    int64_t x = 0, y = 0, r = 0;
    bool unary = !strcmp(op, "~");
    if (!kw_expr_int_get(a, &x) || (!unary && !kw_expr_int_get(b, &y)))
        return kw_fail(err, "'%s' of a value that is not an integer within int64", op);
    if (unary)
        r = ~x;
    else if (!strcmp(op, "&"))
        r = x & y;
    else if (!strcmp(op, "^"))
        r = x ^ y;
    else if (!strcmp(op, "|"))
        r = x | y;
    else if (!strcmp(op, "<<") || !strcmp(op, ">>")) {
        if (kw_expr_int_shift(op, x, y, &r, err) != KW_OK)
            return KW_ERR;
    } else
        return kw_fail(err, "'%s' is no bitwise operator", op);
    *out = (double)r;
    return KW_OK;
}
