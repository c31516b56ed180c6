/* kw_irloc_mlir.c: the Python line of each line of a TTIR or TTGIR text
 * (MLIR as Triton writes it, kw_irloc.h). Two passes: the `#locN = loc(...)`
 * aliases (before and after the module), then each line's last ` loc(...)`,
 * an alias or written inline, resolved to a position:
 *   "file":line:col     that position (line 0: none);
 *   unknown             none;
 *   "name"(LOC)         LOC's (Triton names values and arguments so);
 *   callsite(A at B)    A's, the callee, where the code is; B's when A has none;
 *   fused[A, ...]       the first that has one;
 *   #locN               the alias's.
 * The alias lines themselves have no position (they are not code). */
#include <string.h>

#include "model/kw_irloc.h"

/* An alias: its body as written (resolved on demand, at most 64 hops). */
typedef struct kw_ml_alias {
    const char *body, *end; /* just after "loc(" to the end of its line */
} kw_ml_alias;

typedef struct kw_ml {
    KW_ARRAY(kw_ml_alias) by_num; /* "#loc": 0, "#locN": N + 1; body NULL when not defined */
} kw_ml;

#define KW_ML_MAX_ALIAS 4000000L

/* The alias number of "#loc..." at p (p at '#'); -1 when not one; *end after it. */
static long kw_ml_alias_num(const char *p, const char *e, const char **end) {
    if (e - p < 4 || memcmp(p, "#loc", 4)) {
        *end = p;
        return -1;
    }
    const char *q;
    long n = kw_irloc_num(p + 4, e, &q);
    if (q < e && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_')) {
        *end = p;
        return -1; /* another name ("#location"): not Triton's numbering */
    }
    *end = q;
    return n < 0 ? 0 : n + 1;
}

static void kw_ml_pos(const char *p, const char *e, const char **file, size_t *flen, int *line,
                      int depth, const kw_ml *m);

/* The position of the location reference at p (an alias or an inline body). */
static void kw_ml_ref(const char *p, const char *e, const char **file, size_t *flen, int *line,
                      int depth, const kw_ml *m) {
    while (p < e && *p == ' ')
        p++;
    if (p < e && *p == '#') {
        const char *q;
        long n = kw_ml_alias_num(p, e, &q);
        if (n >= 0 && (size_t)n < m->by_num.n && m->by_num.v[n].body)
            kw_ml_pos(m->by_num.v[n].body, m->by_num.v[n].end, file, flen, line, depth + 1, m);
        return;
    }
    if (e - p > 4 && !memcmp(p, "loc(", 4))
        kw_ml_pos(p + 4, e, file, flen, line, depth + 1, m);
}

/* The position of the body of a loc(...) at p (after "loc("). */
static void kw_ml_pos(const char *p, const char *e, const char **file, size_t *flen, int *line,
                      int depth, const kw_ml *m) {
    if (depth > 64 || p >= e)
        return;
    if (*p == '"') {
        const char *q = p + 1;
        while (q < e && *q != '"')
            q += *q == '\\' && q + 1 < e ? 2 : 1;
        if (q >= e)
            return;
        const char *s = p + 1;
        size_t n = (size_t)(q - s);
        q++;
        if (q < e && *q == ':') { /* "file":line:col */
            const char *ne;
            long l = kw_irloc_num(q + 1, e, &ne);
            if (l > 0 && ne < e && *ne == ':') {
                *file = s;
                *flen = n;
                *line = (int)l;
            }
        } else if (q < e && *q == '(') { /* "name"(LOC) */
            kw_ml_ref(q + 1, e, file, flen, line, depth, m);
        }
        return;
    }
    if (e - p > 9 && !memcmp(p, "callsite(", 9)) {
        const char *a = p + 9, *at = NULL;
        /* "A at B": A is an alias or a nested loc(...); find " at " at depth 0 */
        int d = 0;
        for (const char *q = a; q + 4 <= e; q++) {
            if (*q == '(' || *q == '[')
                d++;
            else if (*q == ')' || *q == ']') {
                if (--d < 0)
                    break;
            } else if (!d && !memcmp(q, " at ", 4)) {
                at = q;
                break;
            }
        }
        kw_ml_ref(a, at ? at : e, file, flen, line, depth, m);
        if (!*file && at)
            kw_ml_ref(at + 4, e, file, flen, line, depth, m);
        return;
    }
    if (e - p > 6 && !memcmp(p, "fused", 5)) {
        const char *q = memchr(p, '[', (size_t)(e - p));
        while (q && q < e && !*file) {
            kw_ml_ref(q + 1, e, file, flen, line, depth, m);
            q = memchr(q + 1, ',', (size_t)(e - q - 1));
        }
        return;
    }
    if (*p == '#')
        kw_ml_ref(p, e, file, flen, line, depth, m);
}

kw_status kw_irloc_mlir(kw_arena *a, const char *text, size_t len, kw_irlocs *out, kw_err *err) {
    kw_ml m = {0};
    const char *end = text + len;
    /* pass 1: the aliases */
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *q;
        long n = kw_ml_alias_num(p, e, &q);
        if (n >= 0 && n < KW_ML_MAX_ALIAS && e - q > 7 && !memcmp(q, " = loc(", 7)) {
            while (m.by_num.n <= (size_t)n) {
                kw_ml_alias *al = KW_PUSH(a, m.by_num);
                if (!al)
                    return kw_fail(err, "out of memory");
                al->body = NULL;
            }
            m.by_num.v[n] = (kw_ml_alias){q + 7, e};
        }
        p = nl ? nl + 1 : end;
    }
    /* pass 2: each line's position */
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *q;
        const char *file = NULL;
        size_t flen = 0;
        int line = 0;
        const char *lc = kw_irloc_last(p, e, " loc(");
        if (kw_ml_alias_num(p, e, &q) < 0 && lc)
            kw_ml_pos(lc + 5, e, &file, &flen, &line, 0, &m);
        const char *f = file ? kw_arena_strndup(a, file, flen) : NULL;
        if ((file && !f) || !kw_irloc_push(a, out, f, line))
            return kw_fail(err, "out of memory");
        p = nl ? nl + 1 : end;
    }
    return KW_OK;
}
