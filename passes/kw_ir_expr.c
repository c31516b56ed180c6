/* kw_ir_expr.c: `$N` parameter renaming in the expressions of the IR facts
 * (docs/ir-facts.md): the analysis writes a kernel parameter as `$N`, and
 * kw_ir_facts.c names it before the facts leave the pass. Evaluating these
 * expressions for a shape is the kwalk command's one evaluator
 * (model/kw_expr.c, exact mode). */
#include "passes/kw_ir_facts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
