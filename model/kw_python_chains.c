/* kw_python_chains.c: reading the helper's model-entry table (see
 * kw_python_chains.h). Fields are split on tabs, the frames field on US
 * (0x1f) into counted groups; nothing is unescaped. */
#include "model/kw_python_chains.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { KW_PC_FIELDS = 10 };

void kw_py_chains_init(kw_py_chains *c) {
    memset(c, 0, sizeof(*c));
    kw_arena_init(&c->arena);
}

void kw_py_chains_free(kw_py_chains *c) {
    kw_arena_free(&c->arena);
    memset(c, 0, sizeof(*c));
}

/* "FILE:LINE" -> file and a positive line; false when malformed. */
static bool kw_pc_at(kw_arena *a, const char *s, const char **file, int *line) {
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1])
        return false;
    char *end;
    errno = 0;
    long v = strtol(colon + 1, &end, 10);
    if (*end || errno || v < 1 || v > INT_MAX || colon[1] == '-' || colon[1] == '+')
        return false;
    *line = (int)v;
    *file = kw_arena_strndup(a, s, (size_t)(colon - s));
    return *file != NULL;
}

/* Split s at sep in place into at most max parts; their number. */
static size_t kw_pc_split(char *s, char sep, char **part, size_t max) {
    size_t n = 0;
    for (;;) {
        if (n == max)
            return max + 1; /* too many */
        part[n++] = s;
        char *p = strchr(s, sep);
        if (!p)
            return n;
        *p = '\0';
        s = p + 1;
    }
}

/* Split s at sep in place: the next token, s moved past it (NULL at the end). */
static char *kw_pc_token(char **s, char sep) {
    char *t = *s;
    if (!t)
        return NULL;
    char *p = strchr(t, sep);
    if (p)
        *p = '\0';
    *s = p ? p + 1 : NULL;
    return t;
}

/* FRAMES: per call FUNCTION, FILE:LINE, CALLEE, N, then N tests, all
 * US-separated. */
static bool kw_pc_frames(kw_py_chains *c, kw_py_chain *ch, char *s, bool *oom) {
    while (s) {
        char *fn = kw_pc_token(&s, '\x1f'), *at = kw_pc_token(&s, '\x1f'),
             *callee = kw_pc_token(&s, '\x1f'), *count = kw_pc_token(&s, '\x1f');
        if (!fn || !at || !callee || !count || !fn[0] || !callee[0])
            return false;
        char *end;
        errno = 0;
        long n = strtol(count, &end, 10);
        if (!count[0] || *end || errno || n < 0 || n > 4096 || count[0] == '+' || count[0] == ' ')
            return false;
        kw_py_frame *f = KW_PUSH(&c->arena, ch->frames);
        if (!f) {
            *oom = true;
            return false;
        }
        if (!kw_pc_at(&c->arena, at, &f->file, &f->line))
            return false;
        f->function = kw_arena_strdup(&c->arena, fn);
        f->callee = kw_arena_strdup(&c->arena, callee);
        if (!f->function || !f->callee || !f->file) {
            *oom = true;
            return false;
        }
        for (long i = 0; i < n; i++) {
            char *t = kw_pc_token(&s, '\x1f');
            if (!t)
                return false;
            const char **cond = KW_PUSH(&c->arena, f->conds);
            if (!cond || !(*cond = kw_arena_strdup(&c->arena, t))) {
                *oom = true;
                return false;
            }
        }
    }
    return true;
}

/* One row (NUL-terminated, no line break); false with *oom clear: damaged. */
static bool kw_pc_row(kw_py_chains *c, char *row, bool *oom) {
    char *f[KW_PC_FIELDS];
    size_t n = kw_pc_split(row, '\t', f, KW_PC_FIELDS);
    if (n != 9 && n != 10)
        return false;
    for (size_t i = 0; i < 9; i++)
        if (!f[i][0])
            return false;
    kw_py_chain *ch = KW_PUSH(&c->arena, c->v);
    if (!ch) {
        *oom = true;
        return false;
    }
    if (!kw_pc_at(&c->arena, f[1], &ch->op_file, &ch->op_line) ||
        !kw_pc_at(&c->arena, f[5], &ch->entry_file, &ch->entry_line))
        return false;
    if (strcmp(f[6], "yes") && strcmp(f[6], "no"))
        return false;
    ch->outermost = !strcmp(f[6], "yes");
    char *end;
    errno = 0;
    long len = strtol(f[7], &end, 10);
    if (*end || errno || len < 1 || len > INT_MAX || f[7][0] == '+' || f[7][0] == ' ')
        return false;
    ch->length = (int)len;
    ch->op = kw_arena_strdup(&c->arena, f[0]);
    ch->bound_module = strcmp(f[2], "-") ? kw_arena_strdup(&c->arena, f[2]) : NULL;
    ch->bound_function = kw_arena_strdup(&c->arena, f[3]);
    ch->entry = kw_arena_strdup(&c->arena, f[4]);
    if (!ch->op || (strcmp(f[2], "-") && !ch->bound_module) || !ch->bound_function || !ch->entry) {
        *oom = true;
        return false;
    }
    if (n == 10) {
        if (!kw_pc_frames(c, ch, f[9], oom))
            return false;
        if (ch->frames.n != (size_t)ch->length)
            return false; /* one frame per call */
    }
    return true;
}

kw_status kw_py_chains_parse(kw_py_chains *c, const char *name, const char *text, size_t len,
                             kw_err *err) {
    if (len && memchr(text, '\0', len))
        return kw_fail(err, "%s: a NUL byte in the model-entry table", name);
    size_t lineno = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        lineno++;
        if (n) {
            char *row = kw_arena_strndup(&c->arena, text + at, n);
            bool oom = false;
            if (!row)
                return kw_fail(err, "out of memory");
            if (!kw_pc_row(c, row, &oom))
                return oom ? kw_fail(err, "out of memory")
                           : kw_fail(err,
                                     "%s:%zu: not a model-entry row (9 or 10 tab-separated "
                                     "fields: OP OP_AT BOUND_MODULE BOUND_FUNCTION ENTRY "
                                     "ENTRY_AT OUTERMOST LENGTH CONDITIONS [FRAMES])",
                                     name, lineno);
        }
        at += n + 1;
    }
    return KW_OK;
}

size_t kw_py_chains_for(const kw_py_chains *c, const char *module, const char *function,
                        bool outermost, kw_arena *a, size_t **out) {
    *out = NULL;
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        for (size_t i = 0; i < c->v.n; i++) {
            const kw_py_chain *ch = &c->v.v[i];
            if (!function || strcmp(ch->bound_function, function) ||
                (module && (!ch->bound_module || strcmp(ch->bound_module, module))) ||
                (outermost && !ch->outermost))
                continue;
            if (pass)
                (*out)[k] = i;
            k++;
        }
        n = k;
        if (!pass) {
            if (!n)
                return 0;
            *out = kw_arena_alloc(a, n * sizeof(size_t));
            if (!*out)
                return (size_t)-1;
        }
    }
    for (size_t i = 1; i < n; i++) { /* shortest first, stable (pages render in threads) */
        size_t x = (*out)[i], j = i;
        for (; j > 0 && c->v.v[(*out)[j - 1]].length > c->v.v[x].length; j--)
            (*out)[j] = (*out)[j - 1];
        (*out)[j] = x;
    }
    return n;
}
