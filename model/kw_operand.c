/* kw_operand.c: what a page says a launch operand is worth (see
 * kw_operand.h): its recorded constant, else its expression evaluated for the
 * shape, with the reason when it cannot be. */
#include "model/kw_operand.h"

#include <stdlib.h>
#include <string.h>

const kw_operand_decl *kw_operand_decl_of(const kw_launch *l, const kw_config_item *c) {
    const char *op = c == &l->grid         ? "grid"
                     : c == &l->block      ? "block"
                     : c == &l->shared_mem ? "shared_mem"
                     : c == &l->stream     ? "stream"
                                           : NULL;
    for (size_t i = 0; op && i < l->operand_decls.n; i++)
        if (l->operand_decls.v[i].operand && !strcmp(l->operand_decls.v[i].operand, op))
            return &l->operand_decls.v[i];
    return NULL;
}

bool kw_operand_const_value(const kw_constant *c, double *v) {
    char *end = NULL;
    if (!c->value)
        return false;
    *v = strtod(c->value, &end);
    return end != c->value && !*end;
}

const kw_shape *kw_operand_shape(const kw_shape *base, kw_arena *a, const kw_constant *k,
                                 size_t n) {
    if (!n)
        return base;
    kw_shape *s = kw_arena_alloc(a, sizeof *s);
    if (!s)
        return base;
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < base->v.n; i++)
        if (kw_shape_add(s, a, &base->v.v[i]) != KW_OK)
            return base;
    for (size_t i = 0; i < n; i++) {
        const kw_constant *c = &k[i];
        if (!c->name)
            continue;
        bool bound = false;
        for (size_t j = 0; j < base->v.n && !bound; j++)
            bound = !strcmp(base->v.v[j].name, c->name);
        if (bound)
            continue;
        kw_value v;
        kw_err err;
        if (c->value) {
            double x;
            if (kw_operand_const_value(c, &x))
                kw_shape_set(s, a, c->name, x, "a constant");
        } else if (c->init && kw_expr_eval(c->init, s, KW_EXPR_C, &v, &err) == KW_OK &&
                   v.dims == 1) {
            kw_shape_set(s, a, c->name, v.v[0], "its initializer");
        }
    }
    return s;
}

bool kw_operand_value(const kw_shape *base, bool user_shape, kw_arena *a, const kw_launch *l,
                      const kw_config_item *c, kw_value *v, const char **why) {
    memset(v, 0, sizeof(*v));
    if (c->has_value) {
        v->dims = c->dims;
        v->is_int = true;
        for (int i = 0; i < c->dims && i < 3; i++)
            v->v[i] = (double)c->value[i];
        return true;
    }
    if (!c->expr) {
        *why = "not recorded";
        return false;
    }
    const char *expr = c->expr;
    const kw_operand_decl *d = kw_operand_decl_of(l, c);
    bool bound = d && d->name && kw_shape_lookup(base, d->name, strlen(d->name));
    if (d && !bound) {
        /* a variable: its initializer is its value only for a local nothing changes */
        const char *name = d->name ? d->name : expr;
        char *s = NULL;
        if (d->kind && !strcmp(d->kind, "parameter"))
            s = kw_arena_printf(a,
                                "a parameter: its value comes from the caller; give "
                                "--shape %s=...",
                                name);
        else if (d->modified)
            s = kw_arena_printf(a,
                                "`%s` is changed after its declaration; give --shape "
                                "%s=... (its value at the launch)",
                                name, name);
        else if (!d->init)
            s = kw_arena_printf(a, "`%s` has no initializer; give --shape %s=...", name, name);
        else if (d->kind && !strcmp(d->kind, "local"))
            expr = d->inlined ? d->inlined : d->init; /* its calls expanded, if any */
        else
            s = kw_arena_printf(a, "a %s variable; give --shape %s=...",
                                d->kind ? d->kind : "non-local", name);
        if (s) {
            *why = s;
            return false;
        }
    }
    if (!user_shape) {
        *why = "not a constant; give --shape to evaluate it";
        return false;
    }
    kw_err err;
    const kw_shape *shape = kw_operand_shape(base, a, l->constants.v, l->constants.n);
    if (kw_expr_eval(expr, shape, KW_EXPR_C, v, &err) != KW_OK) {
        char *s = kw_arena_printf(a, "not evaluated (%s)", err.msg);
        *why = s ? s : "not evaluated";
        return false;
    }
    if (c->dims == 3 && v->dims == 1) {
        v->dims = 3;
        v->v[1] = v->v[2] = 1;
    }
    return true;
}
