/* kw_operand.h: the value of a launch's grid/block operand, and the shape a
 * launch or host call is evaluated with. What a page says about launch
 * geometry is computed here, in the model, so that render/ only writes it. */
#ifndef KW_OPERAND_H
#define KW_OPERAND_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "model/kw_expr.h"
#include "sidecar/kw_sidecar.h"

/* The declaration the plugin recorded for a launch operand that is a
 * variable (c is one of l's grid, block, shared_mem, stream), or NULL. */
const kw_operand_decl *kw_operand_decl_of(const kw_launch *l, const kw_config_item *c);
/* A constant's value when it has a decimal one (its whole text a number),
 * else false (a constant without a value binds its initializer's). */
bool kw_operand_const_value(const kw_constant *c, double *v);
/* base plus the constants a launch or host call is written with (the
 * sidecar's constants: clang's values, and locals set once, whose
 * initializers are evaluated with the names before them); a binding of the
 * same name in base (--shape, the kernel's) wins. Lives in arena a; base
 * itself when there are none. */
const kw_shape *kw_operand_shape(const kw_shape *base, kw_arena *a, const kw_constant *k, size_t n);
/* The value of operand c of launch l: its constant, else its expression
 * evaluated for base plus l's constants (only when user_shape: the user gave
 * --shape); when the expression is a local variable that nothing changes
 * after its declaration (the sidecar's operand_decls), its initializer
 * instead (unless base binds the name). false with *why (in arena a) when not
 * known. */
bool kw_operand_value(const kw_shape *base, bool user_shape, kw_arena *a, const kw_launch *l,
                      const kw_config_item *c, kw_value *v, const char **why);

#endif
