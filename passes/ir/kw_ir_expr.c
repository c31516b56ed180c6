/* kw_ir_expr.c: the expression grammar of the IR facts (docs/ir-facts.md):
 * parse + evaluate for a shape, syntax check, and `$N` parameter renaming.
 * Plain C with no LLVM so that the renderer can evaluate trip counts and work
 * per thread for the shape a user asks about.
 *
 *   expr  := term (('+' | '-') term)*
 *   term  := unary (('*' | '/') unary)*
 *   unary := '-' unary | atom
 *   atom  := NUMBER | NAME | '$' DIGITS | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
 *   FUNC  := ceil | floor | log2 (one argument) | min | max (two or more)
 *   NAME  := [A-Za-z_][A-Za-z0-9_.]*
 */
#include "kw_ir_facts.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kw_ir_parser {
    const char *s;   /* whole text */
    const char *p;   /* cursor */
    kw_ir_lookup_fn lookup; /* NULL: syntax check only */
    void *ctx;
    kw_err *err;
    int failed;
    int depth;
} kw_ir_parser;

static double parse_expr(kw_ir_parser *ps);

static void parse_fail(kw_ir_parser *ps, const char *what) {
    if (!ps->failed)
        kw_fail(ps->err, "expression \"%s\": %s at offset %d", ps->s, what, (int)(ps->p - ps->s));
    ps->failed = 1;
}

static void skip_space(kw_ir_parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static int accept(kw_ir_parser *ps, char c) {
    skip_space(ps);
    if (*ps->p != c)
        return 0;
    ps->p++;
    return 1;
}

static int is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.'; }

static double lookup_name(kw_ir_parser *ps, const char *name, size_t len) {
    double v = 0;
    if (!ps->lookup)
        return 1;
    if (!ps->lookup(ps->ctx, name, len, &v)) {
        if (!ps->failed)
            kw_fail(ps->err, "expression \"%s\": no value for \"%.*s\"", ps->s, (int)len, name);
        ps->failed = 1;
    }
    return v;
}

static double parse_call(kw_ir_parser *ps, const char *name, size_t len) {
    double args[16];
    int n = 0;
    do {
        if (n == 16) {
            parse_fail(ps, "too many arguments");
            return 0;
        }
        args[n++] = parse_expr(ps);
        if (ps->failed)
            return 0;
    } while (accept(ps, ','));
    if (!accept(ps, ')')) {
        parse_fail(ps, "expected ')'");
        return 0;
    }
    if ((len == 4 && !memcmp(name, "ceil", 4)) || (len == 5 && !memcmp(name, "floor", 5))) {
        if (n != 1) {
            parse_fail(ps, "ceil/floor take one argument");
            return 0;
        }
        /* results of integer division are exact; absorb rounding noise */
        double r = len == 4 ? ceil(args[0] - 1e-9) : floor(args[0] + 1e-9);
        return r;
    }
    if (len == 4 && !memcmp(name, "log2", 4)) {
        if (n != 1 || !(args[0] > 0)) {
            parse_fail(ps, n != 1 ? "log2 takes one argument" : "log2 of a non-positive value");
            return 0;
        }
        /* exact for powers of two (floor(log2(64)) must be 6, not 5.999...) */
        int e;
        double m = frexp(args[0], &e);
        return m == 0.5 ? (double)(e - 1) : log2(args[0]);
    }
    if (len == 3 && (!memcmp(name, "min", 3) || !memcmp(name, "max", 3))) {
        if (n < 2) {
            parse_fail(ps, "min/max take two or more arguments");
            return 0;
        }
        double r = args[0];
        for (int i = 1; i < n; i++)
            r = name[1] == 'i' ? (args[i] < r ? args[i] : r) : (args[i] > r ? args[i] : r);
        return r;
    }
    parse_fail(ps, "unknown function");
    return 0;
}

static double parse_atom(kw_ir_parser *ps) {
    skip_space(ps);
    const char *p = ps->p;
    if (*p == '(') {
        ps->p++;
        double v = parse_expr(ps);
        if (!ps->failed && !accept(ps, ')'))
            parse_fail(ps, "expected ')'");
        return v;
    }
    if (isdigit((unsigned char)*p)) {
        char *end = NULL;
        double v = strtod(p, &end);
        ps->p = end;
        return v;
    }
    if (*p == '$') {
        const char *q = p + 1;
        while (isdigit((unsigned char)*q))
            q++;
        if (q == p + 1) {
            parse_fail(ps, "expected a parameter number after '$'");
            return 0;
        }
        ps->p = q;
        return lookup_name(ps, p, (size_t)(q - p));
    }
    if (is_name_start(*p)) {
        const char *q = p;
        while (is_name_char(*q))
            q++;
        ps->p = q;
        if (accept(ps, '('))
            return parse_call(ps, p, (size_t)(q - p));
        return lookup_name(ps, p, (size_t)(q - p));
    }
    parse_fail(ps, *p ? "unexpected character" : "unexpected end");
    return 0;
}

static double parse_unary(kw_ir_parser *ps) {
    if (++ps->depth > 200) {
        parse_fail(ps, "nested too deeply");
        return 0;
    }
    double v = accept(ps, '-') ? -parse_unary(ps) : parse_atom(ps);
    ps->depth--;
    return v;
}

static double parse_term(kw_ir_parser *ps) {
    double v = parse_unary(ps);
    for (;;) {
        if (ps->failed)
            return 0;
        if (accept(ps, '*')) {
            v *= parse_unary(ps);
        } else if (accept(ps, '/')) {
            double d = parse_unary(ps);
            if (ps->lookup && d == 0 && !ps->failed) {
                parse_fail(ps, "division by zero");
                return 0;
            }
            v = ps->lookup ? v / d : v;
        } else {
            return v;
        }
    }
}

static double parse_expr(kw_ir_parser *ps) {
    double v = parse_term(ps);
    for (;;) {
        if (ps->failed)
            return 0;
        if (accept(ps, '+'))
            v += parse_term(ps);
        else if (accept(ps, '-'))
            v -= parse_term(ps);
        else
            return v;
    }
}

static kw_status run(const char *expr, kw_ir_lookup_fn lookup, void *ctx, double *value,
                     kw_err *err) {
    if (!expr)
        return kw_fail(err, "no expression");
    kw_ir_parser ps = {expr, expr, lookup, ctx, err, 0, 0};
    double v = parse_expr(&ps);
    skip_space(&ps);
    if (!ps.failed && *ps.p)
        parse_fail(&ps, "trailing text");
    if (ps.failed)
        return KW_ERR;
    if (value)
        *value = v;
    return KW_OK;
}

kw_status kw_ir_expr_eval(const char *expr, kw_ir_lookup_fn lookup, void *ctx, double *value,
                          kw_err *err) {
    if (!lookup)
        return kw_fail(err, "kw_ir_expr_eval: no lookup function");
    return run(expr, lookup, ctx, value, err);
}

kw_status kw_ir_expr_check(const char *expr, kw_err *err) {
    return run(expr, NULL, NULL, NULL, err);
}

char *kw_ir_expr_rename(kw_arena *arena, const char *expr, const char *const *names, size_t n) {
    if (!expr)
        return NULL;
    size_t cap = strlen(expr) * 4 + 64, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = expr; *p;) {
        const char *rep = NULL;
        char argbuf[32];
        size_t skip = 1;
        if (*p == '$' && isdigit((unsigned char)p[1])) {
            char *end = NULL;
            unsigned long idx = strtoul(p + 1, &end, 10);
            skip = (size_t)(end - p);
            if (idx < n && names && names[idx]) {
                rep = names[idx];
            } else {
                snprintf(argbuf, sizeof argbuf, "arg%lu", idx);
                rep = argbuf;
            }
        }
        size_t add = rep ? strlen(rep) : 1;
        if (len + add + 1 > cap) {
            cap = (len + add + 1) * 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        if (rep) {
            memcpy(out + len, rep, add);
        } else {
            out[len] = *p;
        }
        len += add;
        p += skip;
    }
    out[len] = 0;
    char *r = kw_arena_strndup(arena, out, len);
    free(out);
    return r;
}
