/* kw_triton_ttir.c: the few facts the cache reader takes from a TTIR or
 * TTGIR text (MLIR): the #loc table, the public tt.func's signature and
 * location, its tt.make_range and scf.for ops (with the loop bounds that are
 * integer constants), and in a TTGIR the layouts and the load,
 * store, LDS and dot ops with their tensor types. A line-oriented scan of the
 * text Triton writes, not an MLIR parser: what it does not recognize it
 * leaves out. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kw_triton_int.h"

/* One #loc alias: a file position, a name around another alias, or a
 * call site (the callee's position, `at` the call). */
typedef struct kw_locdef {
    const char *id; /* "loc12" ("loc" for #loc) */
    const char *file;
    int line, column;
    const char *ref; /* the alias it names or is a call site of; NULL for a position */
} kw_locdef;

typedef KW_ARRAY(kw_locdef) kw_locdefs;

/* needle in [p, eol), NULL when not there (strstr would scan the rest of
 * the file for every line). */
static const char *kw_ttir_in(const char *p, const char *eol, const char *needle) {
    size_t n = strlen(needle);
    for (; p + n <= eol; p++)
        if (*p == *needle && !memcmp(p, needle, n))
            return p;
    return NULL;
}

static const char *kw_ttir_word_end(const char *p) {
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$' || *p == '-')
        p++;
    return p;
}

/* A quoted MLIR string at p (the opening quote): its contents (escapes kept
 * as written; Triton writes plain paths and names); *end after the quote. */
static const char *kw_ttir_string(kw_arena *a, const char *p, const char **end) {
    const char *q = ++p;
    while (*q && *q != '"' && *q != '\n')
        q += q[0] == '\\' && q[1] ? 2 : 1;
    if (*q != '"')
        return NULL;
    *end = q + 1;
    return kw_arena_strndup(a, p, (size_t)(q - p));
}

/* The body of loc(...) at p (just after "loc("): fills d. */
static void kw_ttir_locbody(kw_arena *a, const char *p, kw_locdef *d) {
    const char *e;
    if (!strncmp(p, "callsite(#", 10)) {
        p += 10; /* the callee: its position is where the code is */
        e = kw_ttir_word_end(p);
        d->ref = kw_arena_strndup(a, p, (size_t)(e - p));
        return;
    }
    if (*p == '#') {
        e = kw_ttir_word_end(p + 1);
        d->ref = kw_arena_strndup(a, p + 1, (size_t)(e - p - 1));
        return;
    }
    if (*p != '"')
        return;
    const char *s = kw_ttir_string(a, p, &e);
    if (!s)
        return;
    if (*e == ':') { /* "file":line:col */
        char *end;
        long l = strtol(e + 1, &end, 10);
        if (*end == ':' && l > 0) {
            d->file = s;
            d->line = (int)l;
            d->column = (int)strtol(end + 1, NULL, 10);
        }
    } else if (*e == '(' && e[1] == '#') { /* "name"(#locN) */
        const char *r = e + 2, *re = kw_ttir_word_end(r);
        d->ref = kw_arena_strndup(a, r, (size_t)(re - r));
    }
}

static const kw_locdef *kw_ttir_find(const kw_locdefs *defs, const char *id) {
    for (size_t i = 0; i < defs->n; i++)
        if (!strcmp(defs->v[i].id, id))
            return &defs->v[i];
    return NULL;
}

/* The file position an alias leads to (following names and call sites). */
static kw_loc kw_ttir_resolve(const kw_locdefs *defs, const char *id) {
    kw_loc l = {0};
    for (int hops = 0; id && hops < 64; hops++) {
        const kw_locdef *d = kw_ttir_find(defs, id);
        if (!d)
            break;
        if (d->file) {
            l.file = d->file;
            l.line = d->line;
            l.column = d->column;
            break;
        }
        id = d->ref;
    }
    return l;
}

/* The location of an op: its trailing ` loc(#locN)` on the line [p, eol). */
static kw_loc kw_ttir_op_loc(const kw_locdefs *defs, const char *p, const char *eol) {
    kw_loc none = {0};
    const char *last = NULL;
    for (const char *q = p; (q = kw_ttir_in(q, eol, " loc(#")); q++)
        last = q;
    if (!last)
        return none;
    const char *id = last + 6, *e = kw_ttir_word_end(id);
    char buf[64];
    size_t n = (size_t)(e - id);
    if (n >= sizeof buf)
        return none;
    memcpy(buf, id, n);
    buf[n] = '\0';
    return kw_ttir_resolve(defs, buf);
}

static long long kw_ttir_attr(const char *p, const char *eol, const char *key, bool *ok) {
    const char *q = kw_ttir_in(p, eol, key);
    if (!q) {
        *ok = false;
        return 0;
    }
    return strtoll(q + strlen(key), NULL, 10);
}

/* The arguments of `tt.func public @name(ARGS)` at p (after the '('). */
static kw_status kw_ttir_args(kw_arena *a, const char *p, const char *eol, kw_ttir *out) {
    while (p < eol && *p == '%') {
        const char *ne = kw_ttir_word_end(p + 1);
        if (ne[0] != ':' || ne[1] != ' ')
            return KW_ERR;
        const char *t = ne + 2, *te = t;
        int depth = 0; /* the type ends at " loc(" or at ',' / ')' outside <> */
        while (te < eol) {
            if (*te == '<')
                depth++;
            else if (*te == '>')
                depth--;
            else if (depth == 0 &&
                     (*te == ',' || *te == ')' || !strncmp(te, " loc(", 5) || *te == ' '))
                break;
            te++;
        }
        kw_ttir_arg *g = KW_PUSH(a, out->args);
        if (!g || !(g->name = kw_arena_strndup(a, p + 1, (size_t)(ne - p - 1))) ||
            !(g->mlir_type = kw_arena_strndup(a, t, (size_t)(te - t))))
            return KW_ERR;
        p = te;
        /* then a loc(...) and an attribute dictionary ({tt.divisibility = 16 :
         * i32}, not read), in either order: Triton writes both orders */
        for (;;) {
            while (p < eol && *p == ' ')
                p++;
            char open = !strncmp(p, "loc(", 4) ? '(' : *p == '{' ? '{' : 0;
            if (!open)
                break;
            char close = open == '(' ? ')' : '}';
            int d = 0;
            for (p += open == '(' ? 3 : 0; p < eol; p++) {
                if (*p == open)
                    d++;
                else if (*p == close && --d == 0) {
                    p++;
                    break;
                }
            }
        }
        if (*p == ')')
            return KW_OK;
        if (p[0] != ',' || p[1] != ' ')
            return KW_ERR;
        p += 2;
    }
    return *p == ')' ? KW_OK : KW_ERR;
}

/* `#NAME = #ttg.KIND<{PARAMS}>` or `#NAME = #ttg.KIND` on the line [p, eol)
 * (p at the '#'): a layout; false when the line is something else. */
static bool kw_ttir_layout_line(kw_arena *a, const char *p, const char *eol,
                                kw_triton_layout *out) {
    const char *ne = kw_ttir_word_end(p + 1);
    if (ne == p + 1 || strncmp(ne, " = #ttg.", 8))
        return false;
    const char *k = ne + 8, *ke = k;
    while (ke < eol && (isalnum((unsigned char)*ke) || *ke == '_'))
        ke++;
    if (ke == k)
        return false;
    out->name = kw_arena_strndup(a, p, (size_t)(ne - p));
    out->kind = kw_arena_strndup(a, k, (size_t)(ke - k));
    out->params = NULL;
    if (ke + 2 <= eol && ke[0] == '<' && ke[1] == '{') {
        const char *q = eol;
        while (q > ke && q[-1] != '}')
            q--;
        if (q > ke + 2 && q[0] == '>')
            out->params = kw_arena_strndup(a, ke + 2, (size_t)(q - 1 - (ke + 2)));
    }
    return out->name && out->kind;
}

/* The ops whose tensor types say how data moves (docs/triton.md). */
static const char *const kw_ttir_memop_ops[] = {
    "tt.load",
    "tt.store",
    "tt.atomic_rmw",
    "tt.atomic_cas",
    "amdg.buffer_load",
    "amdg.buffer_store",
    "amdg.buffer_atomic_rmw",
    "amdg.buffer_load_to_local",
    "ttg.async_copy_global_to_local",
    "ttg.local_alloc",
    "ttg.local_load",
    "ttg.local_store",
    "ttg.convert_layout",
    "tt.dot",
};

/* The last occurrence of needle at angle-bracket depth 0 in [p, eol). */
static const char *kw_ttir_last_top(const char *p, const char *eol, const char *needle) {
    size_t n = strlen(needle);
    const char *last = NULL;
    int depth = 0;
    for (const char *q = p; q + n <= eol; q++) {
        if (*q == '<')
            depth++;
        else if (*q == '>' && depth > 0 && q[-1] != '-')
            depth--;
        else if (depth == 0 && !memcmp(q, needle, n))
            last = q;
    }
    return last;
}

/* A type as written on [t, te): `tensor<DxDxELEM[, ENC]>`,
 * `!ttg.memdesc<DxDxELEM, ENC, ...>` or `!tt.ptr<ELEM>` into m. */
static bool kw_ttir_type(kw_arena *a, const char *t, const char *te, kw_triton_memop *m) {
    const char *b;
    if (te - t > 7 && !strncmp(t, "tensor<", 7))
        b = t + 7;
    else if (te - t > 14 && !strncmp(t, "!ttg.memdesc<", 13))
        b = t + 13;
    else if (te - t > 8 && !strncmp(t, "!tt.ptr<", 8)) {
        const char *e = b = t + 8;
        while (e < te && *e != '>' && *e != ',')
            e++;
        m->element = kw_arena_strndup(a, b, (size_t)(e - b));
        return m->element != NULL;
    } else
        return false;
    if (te[-1] != '>')
        return false;
    te--; /* the closing '>' */
    const char *p = b;
    while (p < te && isdigit((unsigned char)*p)) { /* DxDx... */
        char *end;
        long long d = strtoll(p, &end, 10);
        if (*end != 'x')
            break;
        long long *slot = KW_PUSH(a, m->shape);
        if (!slot)
            return false;
        *slot = d;
        p = end + 1;
    }
    const char *e = p;
    int pd = 0;
    while (e < te && !(pd == 0 && *e == ','))
        pd += (*e == '<') - (*e == '>'), e++;
    /* a tensor of pointers (tt.load / tt.store): the element is the pointee */
    if (e - p > 9 && !strncmp(p, "!tt.ptr<", 8) && e[-1] == '>') {
        const char *pe = p + 8;
        while (pe < e - 1 && *pe != ',')
            pe++;
        m->element = kw_arena_strndup(a, p + 8, (size_t)(pe - (p + 8)));
    } else {
        m->element = kw_arena_strndup(a, p, (size_t)(e - p));
    }
    if (e < te && e[0] == ',' && e + 1 < te && e[1] == ' ') {
        const char *enc = e + 2, *ee = enc;
        int depth = 0;
        while (ee < te && !(depth == 0 && *ee == ',')) {
            depth += (*ee == '<') - (*ee == '>');
            ee++;
        }
        m->layout = kw_arena_strndup(a, enc, (size_t)(ee - enc));
    }
    return m->element != NULL;
}

/* A tt.dot's first operand, the type on [t, te) before the top-level " * "
 * (`tensor<64x32xf16, #ttg.dot_op<...>>`): K, its last dimension, and its
 * element type into m; false when it does not read. */
static bool kw_ttir_dot_operand(kw_arena *a, const char *t, const char *te, kw_triton_memop *m) {
    const char *star = kw_ttir_last_top(t, te, " * ");
    kw_triton_memop op;
    memset(&op, 0, sizeof op);
    if (!star || !kw_ttir_type(a, t, star, &op) || op.shape.n < 2)
        return false;
    m->dot_k = op.shape.v[op.shape.n - 1];
    m->dot_element = op.element;
    return true;
}

/* A memory op on the trimmed function line [s, eol) into m; false when the
 * line is no such op or its type cannot be read. */
static bool kw_ttir_memop_line(kw_arena *a, const kw_locdefs *defs, const char *s, const char *eol,
                               kw_triton_memop *m) {
    memset(m, 0, sizeof *m);
    m->dot_k = -1;
    const char *op = s;
    if (*s == '%') {
        const char *eq = kw_ttir_in(s, eol, " = ");
        if (!eq)
            return false;
        const char *ve = s + 1;
        while (ve < eq && *ve != ':' && *ve != ' ' && *ve != '#')
            ve++;
        m->value = kw_arena_strndup(a, s + 1, (size_t)(ve - s - 1));
        op = eq + 3;
    }
    const char *oe = kw_ttir_word_end(op);
    size_t on = (size_t)(oe - op);
    bool known = false;
    for (size_t i = 0; i < sizeof kw_ttir_memop_ops / sizeof kw_ttir_memop_ops[0] && !known; i++)
        known = strlen(kw_ttir_memop_ops[i]) == on && !strncmp(kw_ttir_memop_ops[i], op, on);
    if (!known || (*oe != ' ' && oe != eol))
        return false;
    m->op = kw_arena_strndup(a, op, on);
    /* the type: after the last " : ", before " loc(", after "->" when there is one */
    const char *end = kw_ttir_last_top(oe, eol, " loc(");
    if (!end)
        end = eol;
    const char *colon = kw_ttir_last_top(oe, end, " : ");
    if (!colon)
        return false;
    const char *t = colon + 3, *arrow = kw_ttir_last_top(t, end, " -> ");
    if (arrow)
        t = arrow + 4;
    if (!kw_ttir_type(a, t, end, m))
        return false;
    if (!strcmp(m->op, "tt.dot") && arrow && !kw_ttir_dot_operand(a, colon + 3, arrow, m))
        return false;
    m->location = kw_ttir_op_loc(defs, s, eol);
    return m->op != NULL;
}

/* An integer constant of the function: `%NAME = arith.constant V : iN`. */
typedef struct kw_ttir_iconst {
    const char *name; /* "%c304_i32", not NUL-terminated */
    size_t len;
    long long value;
} kw_ttir_iconst;
typedef KW_ARRAY(kw_ttir_iconst) kw_ttir_iconsts;

/* Record the line [s, eol) when it defines a scalar integer constant. */
static bool kw_ttir_iconst_line(kw_arena *a, const char *s, const char *eol, kw_ttir_iconsts *c) {
    if (*s != '%')
        return true;
    const char *ne = kw_ttir_word_end(s + 1);
    if (strncmp(ne, " = arith.constant ", 18))
        return true;
    const char *v = ne + 18, *ve;
    if (!isdigit((unsigned char)*v) && !(*v == '-' && isdigit((unsigned char)v[1])))
        return true;
    errno = 0;
    char *end;
    long long value = strtoll(v, &end, 10);
    ve = end;
    if (errno || ve > eol || strncmp(ve, " : i", 4) || !isdigit((unsigned char)ve[4]))
        return true; /* a float, a dense tensor, or out of range */
    kw_ttir_iconst *k = KW_PUSH(a, *c);
    if (!k)
        return false;
    k->name = s;
    k->len = (size_t)(ne - s);
    k->value = value;
    return true;
}

/* The operand after `key` on [p, eol) ("%c304_i32"), looked up among the
 * integer constants: true and *v when it is one. */
static bool kw_ttir_const_operand(const kw_ttir_iconsts *c, const char *p, const char *eol,
                                  const char *key, long long *v) {
    const char *q = kw_ttir_in(p, eol, key);
    if (!q)
        return false;
    q += strlen(key);
    if (*q != '%')
        return false;
    size_t n = (size_t)(kw_ttir_word_end(q + 1) - q);
    for (size_t i = c->n; i-- > 0;) /* the latest definition of the name */
        if (c->v[i].len == n && !memcmp(c->v[i].name, q, n)) {
            *v = c->v[i].value;
            return true;
        }
    return false;
}

/* Braces opened minus closed on [p, eol): regions open and close on lines
 * of their own, attribute dictionaries close on the line they open. */
static int kw_ttir_net(const char *p, const char *eol) {
    int n = 0;
    for (; p < eol; p++)
        n += (*p == '{') - (*p == '}');
    return n;
}

kw_status kw_ttir_parse(kw_arena *a, const char *name, const char *text, kw_ttir *out,
                        kw_err *err) {
    memset(out, 0, sizeof *out);
    kw_locdefs defs = {0};
    /* pass 1: the #loc aliases (written before and after the module) */
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        kw_triton_layout lay;
        if (*p == '#' && strncmp(p, "#loc", 4) && kw_ttir_layout_line(a, p, eol, &lay)) {
            kw_triton_layout *slot = KW_PUSH(a, out->layouts);
            if (!slot)
                return kw_fail(err, "%s: out of memory", name);
            *slot = lay;
        }
        if (!strncmp(p, "#loc", 4)) {
            const char *ie = kw_ttir_word_end(p + 1);
            if (!strncmp(ie, " = loc(", 7)) {
                kw_locdef *d = KW_PUSH(a, defs);
                if (!d || !(d->id = kw_arena_strndup(a, p + 1, (size_t)(ie - p - 1))))
                    return kw_fail(err, "%s: out of memory", name);
                d->file = d->ref = NULL;
                d->line = d->column = 0;
                kw_ttir_locbody(a, ie + 7, d);
            }
        }
        p = *eol ? eol + 1 : eol;
    }
    /* pass 2: the public function and its make_range ops */
    const char *func_line = NULL;
    int depth = 0; /* braces inside the public function */
    kw_ttir_iconsts iconsts = {0};
    kw_ttrip_defs tdefs = {0};
    struct {
        size_t loop; /* index in out->loops */
        int depth;   /* the depth before its line */
    } open[32];
    int nopen = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        const char *s = p;
        while (*s == ' ')
            s++;
        if (!func_line && !strncmp(s, "tt.func public @", 16)) {
            func_line = s;
            const char *n = s + 16, *ne;
            if (*n == '"') {
                out->func = kw_ttir_string(a, n, &ne);
            } else {
                ne = kw_ttir_word_end(n);
                out->func = kw_arena_strndup(a, n, (size_t)(ne - n));
            }
            if (!out->func || *ne != '(' || kw_ttir_args(a, ne + 1, eol, out))
                return kw_fail(err, "%s: cannot read the signature of tt.func public @%s", name,
                               out->func ? out->func : "?");
            depth = kw_ttir_net(s, eol);
        } else if (func_line && depth > 0) {
            int before = depth;
            depth += kw_ttir_net(s, eol);
            const char *for_op = kw_ttir_in(s, eol, "scf.for %");
            if (!kw_ttir_iconst_line(a, s, eol, &iconsts) ||
                kw_ttrip_def_line(a, s, eol, &tdefs) != KW_OK)
                return kw_fail(err, "%s: out of memory", name);
            kw_loc here = kw_ttir_op_loc(&defs, s, eol);
            if (here.file) {
                kw_loc *slot = KW_PUSH(a, out->op_locs);
                if (!slot)
                    return kw_fail(err, "%s: out of memory", name);
                *slot = here;
            }
            if (depth <= 0 && *s == '}') { /* the function's closing brace */
                out->def = here;
            } else if (*s == '}' && nopen > 0 && depth == open[nopen - 1].depth) {
                out->loops.v[open[--nopen].loop].loc = here;
            } else if (for_op && depth > before && nopen < (int)(sizeof open / sizeof open[0])) {
                kw_ttir_loop *l = KW_PUSH(a, out->loops);
                if (!l)
                    return kw_fail(err, "%s: out of memory", name);
                memset(l, 0, sizeof *l);
                static const char *const keys[3] = {" = ", " to ", " step "};
                for (int b = 0; b < 3; b++)
                    l->known[b] =
                        kw_ttir_const_operand(&iconsts, for_op + 8, eol, keys[b], &l->bound[b]);
                l->trips = kw_ttrip_count(a, &tdefs, out, for_op, eol);
                open[nopen].loop = out->loops.n - 1;
                open[nopen++].depth = before;
            } else if (kw_ttir_in(s, eol, "tt.make_range {")) {
                bool ok = true;
                kw_ttir_range *r = KW_PUSH(a, out->ranges);
                if (!r)
                    return kw_fail(err, "%s: out of memory", name);
                r->start = kw_ttir_attr(s, eol, "start = ", &ok);
                r->end = kw_ttir_attr(s, eol, "end = ", &ok);
                r->loc = here;
                if (!ok)
                    out->ranges.n--;
            } else if (out->layouts.n) { /* a TTGIR: its memory ops */
                kw_triton_memop m;
                if (kw_ttir_memop_line(a, &defs, s, eol, &m)) {
                    /* the scf.for loops around it: how many, and the
                     * product of their trip counts where all are known */
                    m.loops = nopen ? nopen : -1;
                    for (int l = 0; l < nopen; l++) {
                        const char *t = out->loops.v[open[l].loop].trips;
                        bool atom = t && strspn(t, "0123456789") == strlen(t);
                        if (!t || (l && !m.trips)) {
                            m.trips = NULL;
                            break;
                        }
                        t = atom || nopen == 1 ? t : kw_arena_printf(a, "(%s)", t);
                        m.trips = l ? kw_arena_printf(a, "%s * %s", m.trips, t) : t;
                        if (!m.trips)
                            return kw_fail(err, "%s: out of memory", name);
                    }
                    kw_triton_memop *slot = KW_PUSH(a, out->memops);
                    if (!slot)
                        return kw_fail(err, "%s: out of memory", name);
                    *slot = m;
                }
            }
        }
        p = *eol ? eol + 1 : eol;
    }
    if (!func_line)
        return kw_fail(err, "%s: no 'tt.func public' (not a Triton TTIR file?)", name);
    if (!out->def.file) { /* the function's own loc is the arguments' (#loc) */
        kw_loc l = kw_ttir_resolve(&defs, "loc");
        out->def = l;
    }
    return KW_OK;
}

/* MLIR element types and Triton's names for them (triton/language/core.py's
 * dtype names as ASTSource.signature writes them). */
static const char *const kw_ttir_types[][2] = {
    {"i1", "i1"},
    {"i8", "i8"},
    {"i16", "i16"},
    {"i32", "i32"},
    {"i64", "i64"},
    {"ui8", "u8"},
    {"ui16", "u16"},
    {"ui32", "u32"},
    {"ui64", "u64"},
    {"f16", "fp16"},
    {"bf16", "bf16"},
    {"f32", "fp32"},
    {"f64", "fp64"},
    {"f8E4M3FNUZ", "fp8e4b8"},
    {"f8E5M2FNUZ", "fp8e5b16"},
    {"f8E4M3FN", "fp8e4nv"},
    {"f8E5M2", "fp8e5"},
};

static const char *kw_ttir_scalar(const char *t, size_t n) {
    for (size_t i = 0; i < sizeof kw_ttir_types / sizeof kw_ttir_types[0]; i++)
        if (strlen(kw_ttir_types[i][0]) == n && !strncmp(kw_ttir_types[i][0], t, n))
            return kw_ttir_types[i][1];
    return NULL;
}

const char *kw_ttir_triton_type(kw_arena *a, const char *t) {
    size_t n = strlen(t);
    if (!strncmp(t, "!tt.ptr<", 8) && n > 9 && t[n - 1] == '>') {
        const char *e = t + 8;
        size_t en = n - 9;
        const char *comma = memchr(e, ',', en); /* !tt.ptr<f32, 1>: address space */
        if (comma)
            return NULL;
        const char *s = kw_ttir_scalar(e, en);
        return s ? kw_arena_printf(a, "*%s", s) : NULL;
    }
    return kw_ttir_scalar(t, n);
}
