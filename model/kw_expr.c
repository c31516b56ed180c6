/* kw_expr.c: a recursive-descent evaluator for the expression grammar of
 * kw_expr.h, and the --shape bindings it reads names from. */
#include "model/kw_expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_dtype.h"
#include "model/kw_expr_int.h"

/* ---- shapes --------------------------------------------------------------------------------- */

static bool kw_is_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool kw_is_alnum(char c) {
    return kw_is_alpha(c) || (c >= '0' && c <= '9');
}

kw_status kw_shape_set(kw_shape *shape, kw_arena *arena, const char *name, double value,
                       const char *from) {
    for (size_t i = 0; i < shape->v.n; i++)
        if (!strcmp(shape->v.v[i].name, name)) {
            shape->v.v[i].value = value;
            shape->v.v[i].text = NULL;
            shape->v.v[i].from = from;
            return KW_OK;
        }
    kw_binding *b = KW_PUSH(arena, shape->v);
    if (!b || !(b->name = kw_arena_strdup(arena, name)))
        return KW_ERR;
    b->value = value;
    b->text = NULL;
    b->from = from;
    return KW_OK;
}

kw_status kw_shape_add(kw_shape *shape, kw_arena *arena, const kw_binding *b) {
    if (kw_shape_set(shape, arena, b->name, b->value, b->from) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; b->text && i < shape->v.n; i++)
        if (!strcmp(shape->v.v[i].name, b->name))
            shape->v.v[i].text = b->text;
    return KW_OK;
}

/* A word value of --shape: [A-Za-z_][A-Za-z0-9_.:]*, its end or NULL. */
static const char *kw_shape_word(const char *p) {
    if (!kw_is_alpha(*p))
        return NULL;
    while (kw_is_alnum(*p) || *p == '.' || *p == ':')
        p++;
    return (*p && *p != ',') ? NULL : p;
}

kw_status kw_shape_parse(kw_shape *shape, kw_arena *arena, const char *text, kw_err *err) {
    const char *p = text;
    if (!*p)
        return kw_fail(err, "--shape: expected NAME=VALUE[,NAME=VALUE...], got nothing");
    while (*p) {
        const char *name = p;
        if (!kw_is_alpha(*p))
            return kw_fail(err, "--shape: expected NAME=VALUE at \"%.40s\"", p);
        while (kw_is_alnum(*p) || *p == '.' || (*p == '#' && p[1] >= '0' && p[1] <= '9'))
            p++;
        size_t nlen = (size_t)(p - name);
        if (*p != '=')
            return kw_fail(err, "--shape: expected NAME=VALUE at \"%.40s\"", name);
        p++;
        char *end;
        double v = strtod(p, &end);
        const char *word = kw_shape_word(p);
        if (!word && (end == p || (*end && *end != ',') || !isfinite(v)))
            return kw_fail(err, "--shape: %.*s: expected a number or a word at \"%.40s\"",
                           (int)nlen, name, p);
        kw_binding b = {kw_arena_strndup(arena, name, nlen), word ? 0 : v,
                        word ? kw_arena_strndup(arena, p, (size_t)(word - p)) : NULL, "--shape"};
        if (!b.name || (word && !b.text) || kw_shape_add(shape, arena, &b) != KW_OK)
            return kw_fail(err, "out of memory");
        p = word ? word : end;
        if (*p == ',') {
            p++;
            if (!*p)
                return kw_fail(err, "--shape: expected NAME=NUMBER after the last ','");
        }
    }
    return KW_OK;
}

const kw_binding *kw_shape_lookup(const kw_shape *shape, const char *name, size_t len) {
    if (!shape)
        return NULL;
    for (size_t i = 0; i < shape->v.n; i++) { /* exact first */
        const kw_binding *b = &shape->v.v[i];
        if (strlen(b->name) == len && !memcmp(b->name, name, len))
            return b;
    }
    for (size_t i = 0; i < shape->v.n; i++) {
        const kw_binding *b = &shape->v.v[i];
        size_t bl = strlen(b->name);
        if (bl >= len || memcmp(name + len - bl, b->name, bl))
            continue;
        char before = name[len - bl - 1];
        if (before == '.' || (before == '>' && len - bl >= 2 && name[len - bl - 2] == '-') ||
            (before == ':' && len - bl >= 2 && name[len - bl - 2] == ':'))
            return b;
    }
    return NULL;
}

/* ---- the evaluator -------------------------------------------------------------------------- */

typedef struct kw_ev {
    const char *p;
    const kw_shape *shape;
    kw_expr_mode mode;
    kw_err *err;
    bool failed;
    int depth;
} kw_ev;

/* A value: a number; or text (s, n): a word bound by --shape or a string
 * literal (KW_TEXT), an unbound name that spells an element type (KW_TYPE). */
typedef enum kw_num_kind { KW_NUMBER = 0, KW_TEXT, KW_TYPE } kw_num_kind;

typedef struct kw_num {
    double v;
    bool is_int;
    kw_num_kind kind;
    const char *s;
    size_t n;
} kw_num;

static kw_num kw_expr_fail(kw_ev *e, const char *what, const char *at) {
    if (!e->failed) {
        e->failed = true;
        if (at && *at)
            kw_fail(e->err, "%s at \"%.30s\"", what, at);
        else
            kw_fail(e->err, "%s", what);
    }
    kw_num z = {0, true, KW_NUMBER, NULL, 0};
    return z;
}

static void kw_expr_ws(kw_ev *e) {
    while (*e->p == ' ' || *e->p == '\t' || *e->p == '\n' || *e->p == '\r')
        e->p++;
}

static bool kw_expr_eat(kw_ev *e, const char *tok) {
    kw_expr_ws(e);
    size_t n = strlen(tok);
    if (strncmp(e->p, tok, n))
        return false;
    /* do not split "<=" into "<" "=", "&&" into "&", "<<" into "<", "->"
     * into "-" */
    if (n == 1 && strchr("<>=!&|^-", tok[0]) && e->p[1] &&
        ((tok[0] != '-' && e->p[1] == '=') || (tok[0] == '&' && e->p[1] == '&') ||
         (tok[0] == '|' && e->p[1] == '|') || (tok[0] == '<' && e->p[1] == '<') ||
         (tok[0] == '>' && e->p[1] == '>') || (tok[0] == '-' && e->p[1] == '>')))
        return false;
    e->p += n;
    return true;
}

static kw_num kw_expr_expr(kw_ev *e);

static kw_num kw_mk(double v, bool is_int) {
    kw_num r = {v, is_int, KW_NUMBER, NULL, 0};
    return r;
}

static kw_num kw_mk_text(kw_num_kind kind, const char *s, size_t n) {
    kw_num r = {0, false, kind, s, n};
    return r;
}

/* x where a number is needed: text is "not evaluated" there. */
/* Integers are held in doubles: exact below 2^53. One as large (a literal,
 * a binding, a product) may already be rounded, so it is not evaluated
 * rather than given a value C would not give. */
#define KW_EXPR_EXACT 9007199254740992.0

static bool kw_expr_num(kw_ev *e, kw_num x) {
    if (x.kind == KW_NUMBER && !e->failed && x.is_int && fabs(x.v) >= KW_EXPR_EXACT) {
        kw_expr_fail(e, "an integer past 2^53, which this evaluator does not hold exactly", NULL);
        return false;
    }
    if (x.kind == KW_NUMBER || e->failed)
        return !e->failed;
    char msg[128];
    if (x.kind == KW_TYPE) /* an unbound name, as a number */
        snprintf(msg, sizeof msg, "unknown name '%.*s'", (int)(x.n > 60 ? 60 : x.n), x.s);
    else
        snprintf(msg, sizeof msg, "'%.*s' is text, compared only with == or !=",
                 (int)(x.n > 60 ? 60 : x.n), x.s);
    kw_expr_fail(e, msg, NULL);
    return false;
}

/* The type a text value spells, or NULL (err set). */
static const char *kw_expr_type(kw_ev *e, kw_num x) {
    const char *c = kw_dtype_canon(x.s, x.n);
    if (!c) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%.*s' is no element type kwalk knows (docs/render.md)",
                 (int)(x.n > 60 ? 60 : x.n), x.s);
        kw_expr_fail(e, msg, NULL);
    }
    return c;
}

/* a == b where one is text: equal texts, or the same element type. */
static kw_num kw_expr_text_eq(kw_ev *e, kw_num a, kw_num b, bool eq) {
    if (a.kind == KW_NUMBER && a.s)
        a.kind = KW_TYPE;
    if (b.kind == KW_NUMBER && b.s)
        b.kind = KW_TYPE;
    if (a.kind == KW_NUMBER || b.kind == KW_NUMBER) {
        kw_num t = a.kind == KW_NUMBER ? b : a;
        char msg[128];
        snprintf(msg, sizeof msg, "'%.*s' is text, compared with a number",
                 (int)(t.n > 60 ? 60 : t.n), t.s);
        return kw_expr_fail(e, msg, NULL);
    }
    if (a.kind == KW_TEXT && b.kind == KW_TEXT)
        return kw_mk((a.n == b.n && !memcmp(a.s, b.s, a.n)) == eq, true);
    const char *ta = kw_expr_type(e, a), *tb = ta ? kw_expr_type(e, b) : NULL;
    if (!ta || !tb)
        return kw_mk(0, true);
    kw_dtype_eq same = kw_dtype_same(ta, tb);
    if (same == KW_DTYPE_UNDECIDED) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s against %s: aiter's fp8 is e4m3fnuz or e4m3fn by the GPU",
                 ta, tb);
        return kw_expr_fail(e, msg, NULL);
    }
    return kw_mk((same == KW_DTYPE_SAME) == eq, true);
}

/* X.dtype() and X.scalar_type(): the name X.dtype (kw_expr.h), when bound. */
static bool kw_expr_dtype_call(kw_ev *e, const char *start, size_t n, kw_num *out) {
    static const char *const sfx[] = {".dtype", "->dtype", ".scalar_type", "->scalar_type"};
    for (size_t i = 0; i < 4; i++) {
        size_t k = strlen(sfx[i]);
        if (n <= k || memcmp(start + n - k, sfx[i], k))
            continue;
        char name[192];
        int len = snprintf(name, sizeof name, "%.*s.dtype", (int)(n - k), start);
        if (len < 0 || (size_t)len >= sizeof name)
            return false;
        const kw_binding *b = kw_shape_lookup(e->shape, name, (size_t)len);
        if (!b)
            return false;
        *out = b->text ? kw_mk_text(KW_TEXT, b->text, strlen(b->text))
                       : kw_mk(b->value, b->value == trunc(b->value));
        return true;
    }
    return false;
}

static bool kw_expr_word(const char *s, size_t n, const char *w) {
    return strlen(w) == n && !memcmp(s, w, n);
}

/* Arguments of f( ... ): up to max. */
static int kw_expr_args(kw_ev *e, kw_num *args, int max) {
    int n = 0;
    kw_expr_ws(e);
    if (kw_expr_eat(e, ")"))
        return 0;
    for (;;) {
        kw_num v = kw_expr_expr(e);
        if (e->failed)
            return -1;
        if (n == max) {
            kw_expr_fail(e, "too many arguments", e->p);
            return -1;
        }
        args[n++] = v;
        if (kw_expr_eat(e, ","))
            continue;
        if (kw_expr_eat(e, ")"))
            return n;
        kw_expr_fail(e, "expected ',' or ')'", e->p);
        return -1;
    }
}

static kw_num kw_expr_primary(kw_ev *e) {
    kw_expr_ws(e);
    const char *start = e->p;
    if (++e->depth > 64)
        return kw_expr_fail(e, "expression nested too deeply", NULL);
    if (kw_expr_eat(e, "(")) {
        kw_num v = kw_expr_expr(e);
        if (!kw_expr_eat(e, ")"))
            return kw_expr_fail(e, "expected ')'", e->p);
        e->depth--;
        return v;
    }
    if ((*e->p >= '0' && *e->p <= '9') || (*e->p == '.' && e->p[1] >= '0' && e->p[1] <= '9')) {
        char *end;
        double v;
        bool is_int = true;
        if (e->p[0] == '0' && (e->p[1] == 'x' || e->p[1] == 'X')) {
            v = (double)strtoull(e->p, &end, 16);
        } else {
            v = strtod(e->p, &end);
            for (const char *q = e->p; q < end; q++)
                if (*q == '.' || *q == 'e' || *q == 'E')
                    is_int = false;
        }
        e->p = end;
        while (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L' || *e->p == 'f' ||
               *e->p == 'F') {
            if (*e->p == 'f' || *e->p == 'F')
                is_int = false;
            e->p++;
        }
        e->depth--;
        return kw_mk(v, is_int);
    }
    if (*e->p == '"') {
        const char *s = ++e->p;
        while (*e->p && *e->p != '"' && *e->p != '\\')
            e->p++;
        if (*e->p != '"')
            return kw_expr_fail(e, "a string literal kwalk does not read", start);
        e->p++;
        e->depth--;
        return kw_mk_text(KW_TEXT, s, (size_t)(e->p - 1 - s));
    }
    if (!kw_is_alpha(*e->p))
        return kw_expr_fail(e, "unexpected input", e->p);
    /* a name: identifiers joined by '.', '->', '::'; an element of a parameter
     * pack is its name, '#' and its position (args#0) */
    for (;;) {
        while (kw_is_alnum(*e->p) || (*e->p == '#' && e->p[1] >= '0' && e->p[1] <= '9'))
            e->p++;
        if (*e->p == '.' && kw_is_alpha(e->p[1]))
            e->p++;
        else if (e->p[0] == '-' && e->p[1] == '>' && kw_is_alpha(e->p[2]))
            e->p += 2;
        else if (e->p[0] == ':' && e->p[1] == ':' && kw_is_alpha(e->p[2]))
            e->p += 2;
        else
            break;
    }
    size_t n = (size_t)(e->p - start);
    kw_num r;
    if (kw_expr_word(start, n, "static_cast") && kw_expr_eat(e, "<")) {
        /* static_cast<T>(x): the type is skipped, the value kept (integral
         * targets truncate) */
        const char *ty = e->p;
        int angle = 1;
        while (*e->p && angle) {
            angle += *e->p == '<' ? 1 : *e->p == '>' ? -1 : 0;
            e->p++;
        }
        bool to_int = strstr(ty, "int") && strstr(ty, "int") < e->p;
        if (!kw_expr_eat(e, "("))
            return kw_expr_fail(e, "expected '(' after static_cast<...>", e->p);
        r = kw_expr_expr(e);
        if (!kw_expr_eat(e, ")"))
            return kw_expr_fail(e, "expected ')'", e->p);
        if (to_int) {
            r.v = trunc(r.v);
            r.is_int = true;
        }
        e->depth--;
        return r;
    }
    kw_expr_ws(e);
    if (*e->p == '(') {
        e->p++;
        kw_num a[8];
        int k = kw_expr_args(e, a, 8);
        if (k < 0)
            return kw_mk(0, true);
        e->depth--;
        if (!k && kw_expr_dtype_call(e, start, n, &r))
            return r;
        for (int i = 0; i < k; i++)
            if (!kw_expr_num(e, a[i]))
                return kw_mk(0, true);
        if (kw_expr_word(start, n, "ceil") && k == 1)
            return kw_mk(ceil(a[0].v), true);
        if (kw_expr_word(start, n, "floor") && k == 1)
            return kw_mk(floor(a[0].v), true);
        /* the IR facts' grammar (docs/ir-facts.md): log2 of a halving loop's start */
        if (kw_expr_word(start, n, "log2") && k == 1) {
            if (!(a[0].v > 0))
                return kw_expr_fail(e, "log2 of a non-positive value", NULL);
            int ex;
            double m = frexp(a[0].v, &ex);
            return kw_mk(m == 0.5 ? (double)(ex - 1) : log2(a[0].v), m == 0.5);
        }
        /* the IR facts print n-ary min/max */
        bool is_min = kw_expr_word(start, n, "min") || kw_expr_word(start, n, "std::min");
        if ((is_min || kw_expr_word(start, n, "max") || kw_expr_word(start, n, "std::max")) &&
            k >= 2) {
            kw_num r = a[0];
            for (int i = 1; i < k; i++)
                if (is_min ? a[i].v < r.v : a[i].v > r.v)
                    r = a[i];
            return r;
        }
        if (kw_expr_word(start, n, "dim3") && k >= 1)
            return a[0]; /* in a scalar context: x */
        char msg[96];
        snprintf(msg, sizeof msg, "cannot evaluate the call %.*s(...)", (int)(n > 40 ? 40 : n),
                 start);
        return kw_expr_fail(e, msg, NULL);
    }
    e->depth--;
    if (kw_expr_word(start, n, "true"))
        return kw_mk(1, true);
    if (kw_expr_word(start, n, "false") || kw_expr_word(start, n, "nullptr"))
        return kw_mk(0, true);
    const kw_binding *b = kw_shape_lookup(e->shape, start, n);
    if (b && b->text)
        return kw_mk_text(KW_TEXT, b->text, strlen(b->text));
    if (!b && kw_dtype_canon(start, n))
        return kw_mk_text(KW_TYPE, start, n);
    if (!b) {
        char msg[128];
        snprintf(msg, sizeof msg, "unknown name '%.*s'", (int)(n > 60 ? 60 : n), start);
        return kw_expr_fail(e, msg, NULL);
    }
    r = kw_mk(b->value, b->value == trunc(b->value));
    if (kw_dtype_canon(start, n)) { /* an enumerator with a value: still a type to text */
        r.s = start;
        r.n = n;
    }
    return r;
}

/* a OP b (or OP a) for C's bitwise operators (kw_expr_int.h). */
static kw_num kw_expr_bits(kw_ev *e, const char *op, kw_num a, kw_num b) {
    if (!kw_expr_num(e, a) || !kw_expr_num(e, b))
        return kw_mk(0, true);
    kw_err err;
    double r;
    if (kw_expr_int_op(op, a.v, b.v, &r, &err) != KW_OK)
        return kw_expr_fail(e, err.msg, NULL);
    return kw_mk(r, true);
}

static kw_num kw_expr_unary(kw_ev *e) {
    if (kw_expr_eat(e, "-")) {
        kw_num v = kw_expr_unary(e);
        kw_expr_num(e, v);
        return kw_mk(-v.v, v.is_int);
    }
    if (kw_expr_eat(e, "+")) {
        kw_num v = kw_expr_unary(e);
        kw_expr_num(e, v);
        return kw_mk(v.v, v.is_int);
    }
    if (kw_expr_eat(e, "!")) {
        kw_num v = kw_expr_unary(e);
        kw_expr_num(e, v);
        return kw_mk(v.v == 0, true);
    }
    if (kw_expr_eat(e, "~")) {
        kw_num v = kw_expr_unary(e);
        return kw_expr_bits(e, "~", v, v);
    }
    return kw_expr_primary(e);
}

static kw_num kw_expr_mul(kw_ev *e) {
    kw_num a = kw_expr_unary(e);
    while (!e->failed) {
        char op;
        if (kw_expr_eat(e, "*"))
            op = '*';
        else if (kw_expr_eat(e, "/"))
            op = '/';
        else if (kw_expr_eat(e, "%"))
            op = '%';
        else
            break;
        kw_num b = kw_expr_unary(e);
        if (!kw_expr_num(e, a) || !kw_expr_num(e, b))
            break;
        if (op == '*') {
            a = kw_mk(a.v * b.v, a.is_int && b.is_int);
            continue;
        }
        if (b.v == 0)
            return kw_expr_fail(e, "division by zero", NULL);
        bool ints = a.is_int && b.is_int && e->mode == KW_EXPR_C;
        if (op == '%')
            a = ints ? kw_mk(fmod(a.v, b.v), true) : kw_mk(fmod(a.v, b.v), false);
        else if (ints)
            a = kw_mk(trunc(a.v / b.v), true);
        else {
            double q = a.v / b.v;
            a = kw_mk(q, q == trunc(q) && a.is_int && b.is_int);
        }
    }
    return a;
}

static kw_num kw_expr_add(kw_ev *e) {
    kw_num a = kw_expr_mul(e);
    while (!e->failed) {
        if (kw_expr_eat(e, "+")) {
            kw_num b = kw_expr_mul(e);
            if (kw_expr_num(e, a) && kw_expr_num(e, b))
                a = kw_mk(a.v + b.v, a.is_int && b.is_int);
        } else if (kw_expr_eat(e, "-")) {
            kw_num b = kw_expr_mul(e);
            if (kw_expr_num(e, a) && kw_expr_num(e, b))
                a = kw_mk(a.v - b.v, a.is_int && b.is_int);
        } else {
            break;
        }
    }
    return a;
}

static kw_num kw_expr_shift(kw_ev *e) {
    kw_num a = kw_expr_add(e);
    while (!e->failed) {
        const char *op = kw_expr_eat(e, "<<") ? "<<" : kw_expr_eat(e, ">>") ? ">>" : NULL;
        if (!op)
            break;
        kw_num b = kw_expr_add(e);
        a = kw_expr_bits(e, op, a, b);
    }
    return a;
}

static kw_num kw_expr_rel(kw_ev *e) {
    kw_num a = kw_expr_shift(e);
    while (!e->failed) {
        double r;
        kw_num b;
        if (kw_expr_eat(e, "<=")) {
            b = kw_expr_shift(e);
            r = a.v <= b.v;
        } else if (kw_expr_eat(e, ">=")) {
            b = kw_expr_shift(e);
            r = a.v >= b.v;
        } else if (kw_expr_eat(e, "<")) {
            b = kw_expr_shift(e);
            r = a.v < b.v;
        } else if (kw_expr_eat(e, ">")) {
            b = kw_expr_shift(e);
            r = a.v > b.v;
        } else {
            break;
        }
        if (!kw_expr_num(e, a) || !kw_expr_num(e, b))
            break;
        a = kw_mk(r, true);
    }
    return a;
}

static kw_num kw_expr_eq(kw_ev *e) {
    kw_num a = kw_expr_rel(e);
    while (!e->failed && (kw_expr_eat(e, "==") || kw_expr_eat(e, "!="))) {
        bool eq = e->p[-2] == '=';
        kw_num b = kw_expr_rel(e);
        if (!e->failed && (a.kind != KW_NUMBER || b.kind != KW_NUMBER)) {
            a = kw_expr_text_eq(e, a, b, eq);
            continue;
        }
        if (!kw_expr_num(e, a) || !kw_expr_num(e, b))
            break;
        a = kw_mk(eq ? a.v == b.v : a.v != b.v, true);
    }
    return a;
}

/* & ^ |, each its own level as in C (the tokenizer keeps && and || whole) */
static kw_num kw_expr_bitand(kw_ev *e) {
    kw_num a = kw_expr_eq(e);
    while (!e->failed && kw_expr_eat(e, "&")) {
        kw_num b = kw_expr_eq(e);
        a = kw_expr_bits(e, "&", a, b);
    }
    return a;
}

static kw_num kw_expr_bitxor(kw_ev *e) {
    kw_num a = kw_expr_bitand(e);
    while (!e->failed && kw_expr_eat(e, "^")) {
        kw_num b = kw_expr_bitand(e);
        a = kw_expr_bits(e, "^", a, b);
    }
    return a;
}

static kw_num kw_expr_bitor(kw_ev *e) {
    kw_num a = kw_expr_bitxor(e);
    while (!e->failed && kw_expr_eat(e, "|")) {
        kw_num b = kw_expr_bitxor(e);
        a = kw_expr_bits(e, "|", a, b);
    }
    return a;
}

static kw_num kw_expr_and(kw_ev *e) {
    kw_num a = kw_expr_bitor(e);
    while (!e->failed && kw_expr_eat(e, "&&")) {
        kw_num b = kw_expr_bitor(e);
        if (kw_expr_num(e, a) && kw_expr_num(e, b))
            a = kw_mk(a.v != 0 && b.v != 0, true);
    }
    return a;
}

static kw_num kw_expr_or(kw_ev *e) {
    kw_num a = kw_expr_and(e);
    while (!e->failed && kw_expr_eat(e, "||")) {
        kw_num b = kw_expr_and(e);
        if (kw_expr_num(e, a) && kw_expr_num(e, b))
            a = kw_mk(a.v != 0 || b.v != 0, true);
    }
    return a;
}

static kw_num kw_expr_expr(kw_ev *e) {
    kw_num c = kw_expr_or(e);
    if (!e->failed && kw_expr_eat(e, "?") && kw_expr_num(e, c)) {
        kw_num a = kw_expr_expr(e);
        if (!kw_expr_eat(e, ":"))
            return kw_expr_fail(e, "expected ':'", e->p);
        kw_num b = kw_expr_expr(e);
        return c.v != 0 ? a : b;
    }
    return c;
}

kw_status kw_expr_eval(const char *text, const kw_shape *shape, kw_expr_mode mode, kw_value *out,
                       kw_err *err) {
    kw_ev e = {text, shape, mode, err, false, 0};
    memset(out, 0, sizeof(*out));
    out->dims = 1;
    kw_expr_ws(&e);
    /* dim3(x, y, z) at the top keeps its components */
    if (!strncmp(e.p, "dim3", 4)) {
        const char *save = e.p;
        e.p += 4;
        if (kw_expr_eat(&e, "(")) {
            kw_num a[3];
            int k = kw_expr_args(&e, a, 3);
            kw_expr_ws(&e);
            for (int i = 0; i < k && !e.failed; i++)
                kw_expr_num(&e, a[i]);
            if (!e.failed && k >= 1 && !*e.p) {
                out->dims = 3;
                out->is_int = true;
                for (int i = 0; i < 3; i++) {
                    out->v[i] = i < k ? a[i].v : 1;
                    out->is_int = out->is_int && (i >= k || a[i].is_int);
                }
                return KW_OK;
            }
            if (e.failed)
                return KW_ERR;
        }
        e.p = save;
    }
    kw_num v = kw_expr_expr(&e);
    kw_expr_ws(&e);
    if (!e.failed && *e.p)
        kw_expr_fail(&e, "unexpected input", e.p);
    kw_expr_num(&e, v);
    if (e.failed)
        return KW_ERR;
    out->v[0] = v.v;
    out->is_int = v.is_int;
    return KW_OK;
}
