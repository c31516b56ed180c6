/* kw_expr.h: evaluating the expressions a sidecar holds (launch grid/block
 * operands and guard conditions as written in C++; IR quantities in the IR
 * facts' grammar) for the names a user binds with --shape, e.g.
 *   kwalk render K --shape num_rows=4096,hidden=2048
 *
 * Grammar (a subset of C expressions, plus the IR grammar's functions):
 *   numbers (123, 1.5, 0x1f; suffixes u l f ignored), names (a.hidden,
 *   p->n, ns::k, threadIdx.x, loop0.trips), ( ), unary - + ! ~,
 *   * / %, + -, << >>, < <= > >=, == !=, &, ^, |, &&, ||, ?: (C's
 *   precedence, loosest last),
 *   ceil(x) floor(x) log2(x) min(a, b, ...) max(a, b, ...), dim3(x[, y[, z]]), static_cast<T>(x),
 *   true, false, nullptr.
 * In C mode (launch expressions, guards) '/' and '%' of two integers are
 * integer operations, as in the source; in exact mode (IR expressions) '/' is
 * exact division. The bitwise operators ~ << >> & ^ | take integers within
 * int64 and follow C on int64_t (kw_expr_int.h: a value that is no such
 * integer, a shift C leaves undefined, is not evaluated). Anything else is
 * "not evaluated" with the reason (an unknown name, a construct outside the
 * grammar), never a guess.
 *
 * Name lookup (kw_shape): a bound name matches a name of the expression that
 * is equal to it or ends with ".name", "->name" or "::name", so
 * --shape hidden=2048 binds `a.hidden` and `args->hidden`.
 *
 * Text: a name may be bound to a word (--shape dtype=bf16,kv_cache_dtype=auto).
 * Only == and != compare text: with a string literal ("auto") the texts must
 * be equal; with an element type (AITER_DTYPE_bf16, at::ScalarType::Half,
 * torch.bfloat16: kw_dtype.h's table) both must be spellings of types and the
 * types are compared. `X.dtype()` and `X.scalar_type()` are the name
 * `X.dtype`, so --shape dtype=bf16 binds both. Text anywhere else, an unknown
 * spelling, or text against a number is "not evaluated". */
#ifndef KW_EXPR_H
#define KW_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"

typedef struct kw_binding {
    const char *name;
    double value;
    const char *text; /* a word (bf16, auto) instead of value; NULL for a number */
    const char *from; /* where the value comes from: "--shape", "template argument", ... */
} kw_binding;

/* The names bound for one evaluation. */
typedef struct kw_shape {
    KW_ARRAY(kw_binding) v;
} kw_shape;

/* Parse "name=value,name=value" (names [A-Za-z_][A-Za-z0-9_.]*, values
 * numbers or words [A-Za-z_][A-Za-z0-9_.:]*) into shape (strings in arena).
 * err: "expected NAME=VALUE at ...". */
kw_status kw_shape_parse(kw_shape *shape, kw_arena *arena, const char *text, kw_err *err);
/* Add or replace a binding. */
kw_status kw_shape_set(kw_shape *shape, kw_arena *arena, const char *name, double value,
                       const char *from);
/* Add or replace b (a number or a word), copied whole. */
kw_status kw_shape_add(kw_shape *shape, kw_arena *arena, const kw_binding *b);
/* The binding matching an expression's name (rules above), or NULL. */
const kw_binding *kw_shape_lookup(const kw_shape *shape, const char *name, size_t len);

typedef enum kw_expr_mode { KW_EXPR_C, KW_EXPR_EXACT } kw_expr_mode;

typedef struct kw_value {
    int dims;         /* 1, or 2-3 for a dim3(...) at the top */
    double v[3];
    bool is_int;      /* every value is an integer */
} kw_value;

/* Evaluate text. On failure err says why ("unknown name 'x'"), one line. */
kw_status kw_expr_eval(const char *text, const kw_shape *shape, kw_expr_mode mode, kw_value *out,
                       kw_err *err);

#endif
