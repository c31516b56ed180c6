/* kw_expr_int.h: C's bitwise operators (~ << >> & ^ |) for the expression
 * evaluator (kw_expr.c), whose values are doubles. An operand must be an
 * integer: a double with an integral value within int64_t; the operation is
 * done on int64_t and its result given back as a double (exact up to 2^53,
 * rounded to the nearest double beyond, as C's conversion rounds). What C
 * leaves undefined is refused, never guessed: a shift by a negative count or
 * by 64 or more, a left shift of a negative value or one whose result
 * overflows int64_t. '>>' of a negative value is arithmetic (C++20's rule,
 * and what every C compiler kwalk meets does). */
#ifndef KW_EXPR_INT_H
#define KW_EXPR_INT_H

#include "common/kw_err.h"

/* a OP b for OP one of "&" "^" "|" "<<" ">>", or OP "~" on a (b unused):
 * *out, or KW_ERR with the one-line reason in err ("'&' of a value that is
 * not an integer within int64"). */
kw_status kw_expr_int_op(const char *op, double a, double b, double *out, kw_err *err);

#endif
