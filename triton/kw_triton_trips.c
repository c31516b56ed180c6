/* kw_triton_trips.c: an scf.for's trip count as an expression over the
 * kernel function's arguments (kw_triton_int.h, kw_ttrip_*), read from the
 * TTIR / TTGIR text: the loop's bounds followed back through the scalar
 * integer ops that define them (arith.constant, addi, subi, muli, divsi,
 * ceildivsi, remsi, minsi, maxsi, the casts) to the function's arguments
 * and tt.get_program_id (written blockIdx.x, as the IR facts write it). The
 * text is C integer arithmetic, as kw_expr's C mode evaluates it under
 * --shape; NULL where a bound comes from anything else (a loop's
 * iter_args, a load, a select). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kw_triton_int.h"

enum { KW_TTRIP_DEPTH = 24, KW_TTRIP_MAXLEN = 400 };

/* An expression's text and the precedence of its top operator: 3 an atom
 * or a call, 2 '*' '/' '%', 1 '+' '-'. */
typedef struct kw_ttrip_x {
    const char *t;
    int prec;
} kw_ttrip_x;

static const char *kw_ttrip_word_end(const char *p, const char *eol) {
    while (p < eol && (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$'))
        p++;
    return p;
}

/* The scalar integer ops a bound is followed through, and how each prints:
 * an operator between two operands, a call, or its one operand as is. */
static const struct {
    const char *op, *sym;
    int kind; /* 0 binary (sym), 1 call (sym), 2 cast, 3 ceildiv */
} kw_ttrip_ops[] = {
    {"arith.addi", "+", 0},       {"arith.subi", "-", 0},    {"arith.muli", "*", 0},
    {"arith.divsi", "/", 0},      {"arith.divui", "/", 0},   {"arith.remsi", "%", 0},
    {"arith.remui", "%", 0},      {"arith.minsi", "min", 1}, {"arith.maxsi", "max", 1},
    {"arith.minui", "min", 1},    {"arith.maxui", "max", 1}, {"arith.extsi", NULL, 2},
    {"arith.extui", NULL, 2},     {"arith.trunci", NULL, 2}, {"arith.index_cast", NULL, 2},
    {"arith.ceildivsi", NULL, 3},
};

kw_status kw_ttrip_def_line(kw_arena *a, const char *s, const char *eol, kw_ttrip_defs *d) {
    if (*s != '%')
        return KW_OK;
    const char *ne = kw_ttrip_word_end(s + 1, eol);
    if (eol - ne < 4 || strncmp(ne, " = ", 3))
        return KW_OK;
    const char *op = ne + 3;
    if (strncmp(op, "arith.", 6) && strncmp(op, "tt.get_program_id ", 18))
        return KW_OK;
    kw_ttrip_def *x = KW_PUSH(a, *d);
    if (!x)
        return KW_ERR;
    *x = (kw_ttrip_def){s, (size_t)(ne - s), op, eol};
    return KW_OK;
}

/* The latest definition of the %name at [p, p + n). */
static const kw_ttrip_def *kw_ttrip_find(const kw_ttrip_defs *d, const char *p, size_t n) {
    for (size_t i = d->n; i-- > 0;)
        if (d->v[i].len == n && !memcmp(d->v[i].name, p, n))
            return &d->v[i];
    return NULL;
}

typedef struct kw_ttrip_ctx {
    kw_arena *a;
    const kw_ttrip_defs *defs;
    const kw_ttir *ir;
} kw_ttrip_ctx;

static kw_ttrip_x kw_ttrip_operand(const kw_ttrip_ctx *c, const char *p, const char *eol,
                                   int depth);

static const char *kw_ttrip_paren(const kw_ttrip_ctx *c, kw_ttrip_x x, int min_prec) {
    return x.prec >= min_prec ? x.t : kw_arena_printf(c->a, "(%s)", x.t);
}

static kw_ttrip_x kw_ttrip_bin(const kw_ttrip_ctx *c, const char *sym, kw_ttrip_x l, kw_ttrip_x r) {
    int prec = (*sym == '+' || *sym == '-') ? 1 : 2;
    /* the right operand of - / % needs its parentheses at the same level */
    int rmin = *sym == '+' || *sym == '*' ? prec : prec + 1;
    const char *t = kw_arena_printf(c->a, "%s %s %s", kw_ttrip_paren(c, l, prec), sym,
                                    kw_ttrip_paren(c, r, rmin));
    return (kw_ttrip_x){t && strlen(t) <= KW_TTRIP_MAXLEN ? t : NULL, prec};
}

/* The expression a def line computes. */
static kw_ttrip_x kw_ttrip_def_expr(const kw_ttrip_ctx *c, const kw_ttrip_def *d, int depth) {
    kw_ttrip_x none = {NULL, 0};
    const char *op = d->op, *eol = d->eol;
    if (!strncmp(op, "tt.get_program_id ", 18)) {
        char axis = op[18];
        if (axis != 'x' && axis != 'y' && axis != 'z')
            return none;
        return (kw_ttrip_x){kw_arena_printf(c->a, "blockIdx.%c", axis), 3};
    }
    if (!strncmp(op, "arith.constant ", 15)) {
        char *end;
        long long v = strtoll(op + 15, &end, 10);
        if (end == op + 15 || end >= eol || strncmp(end, " : i", 4))
            return none; /* a float, a dense tensor */
        return (kw_ttrip_x){kw_arena_printf(c->a, "%lld", v), v < 0 ? 0 : 3};
    }
    const char *oe = kw_ttrip_word_end(op, eol);
    for (size_t i = 0; i < sizeof kw_ttrip_ops / sizeof kw_ttrip_ops[0]; i++) {
        if (strlen(kw_ttrip_ops[i].op) != (size_t)(oe - op) ||
            strncmp(kw_ttrip_ops[i].op, op, (size_t)(oe - op)) || *oe != ' ')
            continue;
        /* scalar only: the type after the last " : " is an integer type */
        const char *ty = NULL;
        for (const char *q = oe; q + 4 < eol; q++)
            if (!memcmp(q, " : ", 3))
                ty = q + 3;
        if (!ty || (*ty != 'i' && strncmp(ty, "index", 5)))
            return none;
        kw_ttrip_x l = kw_ttrip_operand(c, oe + 1, eol, depth + 1);
        if (!l.t || kw_ttrip_ops[i].kind == 2)
            return l;
        const char *comma = strchr(oe + 1, ',');
        if (!comma || comma > eol)
            return none;
        kw_ttrip_x r = kw_ttrip_operand(c, comma + 2, eol, depth + 1);
        if (!r.t)
            return none;
        if (kw_ttrip_ops[i].kind == 1)
            return (kw_ttrip_x){kw_arena_printf(c->a, "%s(%s, %s)", kw_ttrip_ops[i].sym, l.t, r.t),
                                3};
        if (kw_ttrip_ops[i].kind == 3) /* ceil(l / r) for a positive r */
            return kw_ttrip_bin(
                c, "/", kw_ttrip_bin(c, "-", kw_ttrip_bin(c, "+", l, r), (kw_ttrip_x){"1", 3}), r);
        return kw_ttrip_bin(c, kw_ttrip_ops[i].sym, l, r);
    }
    return none;
}

/* The operand written at p ("%K", "%c32_i32"): an argument's name, or what
 * its definition computes. */
static kw_ttrip_x kw_ttrip_operand(const kw_ttrip_ctx *c, const char *p, const char *eol,
                                   int depth) {
    kw_ttrip_x none = {NULL, 0};
    if (depth > KW_TTRIP_DEPTH || p >= eol || *p != '%')
        return none;
    const char *ne = kw_ttrip_word_end(p + 1, eol);
    size_t n = (size_t)(ne - p);
    if (n < 2)
        return none;
    for (size_t i = 0; i < c->ir->args.n; i++)
        if (strlen(c->ir->args.v[i].name) == n - 1 && !memcmp(c->ir->args.v[i].name, p + 1, n - 1))
            return (kw_ttrip_x){c->ir->args.v[i].name, 3};
    const kw_ttrip_def *d = kw_ttrip_find(c->defs, p, n);
    return d ? kw_ttrip_def_expr(c, d, depth) : none;
}

/* The operand after key (" = ", " to ", " step ") of the scf.for at p. */
static kw_ttrip_x kw_ttrip_bound(const kw_ttrip_ctx *c, const char *p, const char *eol,
                                 const char *key) {
    size_t kn = strlen(key);
    for (; p + kn < eol; p++)
        if (!memcmp(p, key, kn))
            return kw_ttrip_operand(c, p + kn, eol, 0);
    return (kw_ttrip_x){NULL, 0};
}

const char *kw_ttrip_count(kw_arena *a, const kw_ttrip_defs *defs, const kw_ttir *ir,
                           const char *for_op, const char *eol) {
    kw_ttrip_ctx c = {a, defs, ir};
    const char *iv = for_op + 8; /* after "scf.for " */
    kw_ttrip_x lb = kw_ttrip_bound(&c, iv, eol, " = "), ub = kw_ttrip_bound(&c, iv, eol, " to "),
               st = kw_ttrip_bound(&c, iv, eol, " step ");
    if (!lb.t || !ub.t || !st.t)
        return NULL;
    char *end;
    long long l = strtoll(lb.t, &end, 10);
    bool lnum = *end == '\0' && end != lb.t;
    long long u = strtoll(ub.t, &end, 10);
    bool unum = *end == '\0' && end != ub.t;
    long long s = strtoll(st.t, &end, 10);
    bool snum = *end == '\0' && end != st.t;
    if (snum && s <= 0)
        return NULL;
    if (lnum && unum && snum)
        return kw_arena_printf(a, "%lld", u > l ? (u - l + s - 1) / s : 0);
    kw_ttrip_x span = lnum && l == 0 ? ub : kw_ttrip_bin(&c, "-", ub, lb);
    if (!span.t)
        return NULL;
    if (snum && s == 1)
        return span.t;
    kw_ttrip_x up = kw_ttrip_bin(&c, "-", kw_ttrip_bin(&c, "+", span, st), (kw_ttrip_x){"1", 3});
    return up.t ? kw_ttrip_bin(&c, "/", up, st).t : NULL;
}
