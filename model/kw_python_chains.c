/* kw_python_chains.c: reading the helper's model-entry table (see
 * kw_python_chains.h) and joining it to ops and Triton kernels. Fields are
 * split on tabs, the frames and conditions fields on US (0x1f) into counted
 * groups; nothing is unescaped. */
#include "model/kw_python_chains.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { KW_PC_FIELDS = 10, KW_PC_NONE = -1 };

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

/* The op named name (an `@op` row before), or (size_t)-1. */
static size_t kw_pc_op(const kw_py_chains *c, const char *name) {
    for (size_t i = c->ops.n; i-- > 0;)
        if (!strcmp(c->ops.v[i].name, name))
            return i;
    return (size_t)KW_PC_NONE;
}

/* A count: digits only, at most max; -1 when malformed. */
static long kw_pc_count(const char *s, long max) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!s[0] || *end || errno || v < 0 || v > max || s[0] == '+' || s[0] == ' ' || s[0] == '-')
        return -1;
    return v;
}

/* Copies of f[0..n) into out[] (from the arena); false when out of memory. */
static bool kw_pc_dup(kw_py_chains *c, char **f, size_t n, const char **out, bool *oom) {
    for (size_t i = 0; i < n; i++)
        if (!(out[i] = kw_arena_strdup(&c->arena, f[i]))) {
            *oom = true;
            return false;
        }
    return true;
}

/* `@op OP OP_AT BOUND_MODULE BOUND_FUNCTION KIND` */
static bool kw_pc_opdef(kw_py_chains *c, char **f, size_t n, bool *oom) {
    if (n != 6 || kw_pc_op(c, f[1]) != (size_t)KW_PC_NONE)
        return false; /* damaged, or an op twice */
    kw_py_opdef *d = KW_PUSH(&c->arena, c->ops);
    const char *s[4];
    if (!d || !kw_pc_dup(c, (char *[]){f[1], f[3], f[4], f[5]}, 4, s, oom))
        return *oom = true, false;
    if (!kw_pc_at(&c->arena, f[2], &d->file, &d->line))
        return false;
    d->name = s[0];
    d->bound_module = strcmp(s[1], "-") ? s[1] : NULL;
    d->bound_function = s[2];
    d->kind = s[3];
    return true;
}

/* A US-separated list ("-": none) of items starting with NAME' or NAME?
 * (named) or with ' or ? (positional) into out. */
static bool kw_pc_args(kw_py_chains *c, char *s, bool named, kw_py_strs *out, bool *oom) {
    if (!strcmp(s, "-"))
        return true;
    for (char *t; (t = kw_pc_token(&s, '\x1f'));) {
        size_t k = strcspn(t, "'?");
        if (!t[k] || (named ? k == 0 : k != 0) || (t[k] == '?' && t[k + 1]))
            return false;
        const char **slot = KW_PUSH(&c->arena, *out);
        if (!slot || !kw_pc_dup(c, &t, 1, slot, oom))
            return *oom = true, false;
    }
    return true;
}

/* `@decorator OP DEF LINE NAME POSITIONAL KEYWORDS` */
static bool kw_pc_decorator(kw_py_chains *c, char **f, size_t n, bool *oom) {
    size_t op = n == 7 ? kw_pc_op(c, f[1]) : (size_t)KW_PC_NONE;
    long line = n == 7 ? kw_pc_count(f[3], INT_MAX) : -1;
    if (op == (size_t)KW_PC_NONE || line < 1)
        return false;
    kw_py_decorator *d = KW_PUSH(&c->arena, c->decorators);
    const char *s[2];
    if (!d || !kw_pc_dup(c, (char *[]){f[2], f[4]}, 2, s, oom))
        return *oom = true, false;
    *d = (kw_py_decorator){.op = op, .def_name = s[0], .line = (int)line, .name = s[1]};
    return kw_pc_args(c, f[5], false, &d->args, oom) && kw_pc_args(c, f[6], true, &d->kwargs, oom);
}

/* `@caller OP MODULE FUNCTION DEF_AT CALL_LINE VIA` */
static bool kw_pc_caller(kw_py_chains *c, char **f, size_t n, bool *oom) {
    size_t op = n == 7 ? kw_pc_op(c, f[1]) : (size_t)KW_PC_NONE;
    long line = n == 7 ? kw_pc_count(f[5], INT_MAX) : -1;
    if (op == (size_t)KW_PC_NONE || line < 1)
        return false;
    kw_py_caller *r = KW_PUSH(&c->arena, c->callers);
    const char *s[3];
    if (!r || !kw_pc_dup(c, (char *[]){f[2], f[3], f[6]}, 3, s, oom))
        return *oom = true, false;
    *r = (kw_py_caller){.op = op,
                        .module = s[0],
                        .name = s[1],
                        .call_line = (int)line,
                        .via = strcmp(s[2], "-") ? s[2] : NULL};
    return kw_pc_at(&c->arena, f[4], &r->file, &r->def_line);
}

/* `@launch OP KERNEL KERNEL_AT LAUNCH_AT CONDS` (CONDS: N, then N tests,
 * US-separated). */
static bool kw_pc_launch(kw_py_chains *c, char **f, size_t n, bool *oom) {
    size_t op = n == 6 ? kw_pc_op(c, f[1]) : (size_t)KW_PC_NONE;
    if (op == (size_t)KW_PC_NONE)
        return false;
    kw_py_launch *l = KW_PUSH(&c->arena, c->launches);
    if (!l)
        return *oom = true, false;
    l->op = op;
    if (!kw_pc_at(&c->arena, f[3], &l->kernel_file, &l->kernel_line) ||
        !kw_pc_at(&c->arena, f[4], &l->file, &l->line))
        return false;
    if (!kw_pc_dup(c, &f[2], 1, &l->kernel, oom))
        return false;
    char *rest = f[5];
    long k = kw_pc_count(kw_pc_token(&rest, '\x1f'), 4096);
    if (k < 0)
        return false;
    for (long i = 0; i < k; i++) {
        char *t = kw_pc_token(&rest, '\x1f');
        const char **cond = t ? KW_PUSH(&c->arena, l->conds) : NULL;
        if (!t)
            return false;
        if (!cond || !kw_pc_dup(c, &t, 1, cond, oom))
            return *oom = true, false;
    }
    return rest == NULL; /* no test left over */
}

/* `@unresolved OP FUNCTION AT CALLEE WHY NAMES` */
static bool kw_pc_unresolved(kw_py_chains *c, char **f, size_t n, bool *oom) {
    size_t op = n == 7 ? kw_pc_op(c, f[1]) : (size_t)KW_PC_NONE;
    if (op == (size_t)KW_PC_NONE)
        return false;
    kw_py_unresolved *u = KW_PUSH(&c->arena, c->unresolved);
    const char *s[4];
    if (!u || !kw_pc_dup(c, (char *[]){f[2], f[4], f[5], f[6]}, 4, s, oom))
        return *oom = true, false;
    u->op = op;
    u->function = s[0];
    u->callee = s[1];
    u->why = s[2];
    u->names = s[3];
    return kw_pc_at(&c->arena, f[3], &u->file, &u->line);
}

/* `@dropped OP COUNT REASON` */
static bool kw_pc_dropped(kw_py_chains *c, char **f, size_t n, bool *oom) {
    size_t op = n == 4 ? kw_pc_op(c, f[1]) : (size_t)KW_PC_NONE;
    long k = n == 4 ? kw_pc_count(f[2], 1L << 30) : -1;
    if (op == (size_t)KW_PC_NONE || k < 1)
        return false;
    kw_py_dropped *d = KW_PUSH(&c->arena, c->dropped);
    if (!d || !kw_pc_dup(c, &f[3], 1, &d->reason, oom))
        return *oom = true, false;
    d->op = op;
    d->count = (size_t)k;
    return true;
}

/* `@unreached COUNT REASON` */
static bool kw_pc_unreached(kw_py_chains *c, char **f, size_t n, bool *oom) {
    long k = n == 3 ? kw_pc_count(f[1], 1L << 30) : -1;
    if (k < 1)
        return false;
    kw_py_unreached *u = KW_PUSH(&c->arena, c->unreached);
    if (!u || !kw_pc_dup(c, &f[2], 1, &u->reason, oom))
        return *oom = true, false;
    u->count = (size_t)k;
    return true;
}

/* `@too-deep ROOT PACKAGE PARENT AT` */
static bool kw_pc_too_deep(kw_py_chains *c, char **f, size_t n, bool *oom) {
    if (n != 5)
        return false;
    kw_py_too_deep *t = KW_PUSH(&c->arena, c->too_deep);
    const char *s[3];
    if (!t || !kw_pc_dup(c, (char *[]){f[1], f[2], f[3]}, 3, s, oom))
        return *oom = true, false;
    t->root = s[0];
    t->package = s[1];
    t->parent = s[2];
    return kw_pc_at(&c->arena, f[4], &t->file, &t->line);
}

/* A row naming its kind (`@op`, `@launch`, ...); false: damaged or unknown. */
static bool kw_pc_tagged(kw_py_chains *c, char *row, bool *oom) {
    char *f[8];
    size_t n = kw_pc_split(row, '\t', f, 7);
    for (size_t i = 0; i < n && i < 7; i++)
        if (!f[i][0])
            return false;
    if (!strcmp(f[0], "@op"))
        return kw_pc_opdef(c, f, n, oom);
    if (!strcmp(f[0], "@decorator"))
        return kw_pc_decorator(c, f, n, oom);
    if (!strcmp(f[0], "@caller"))
        return kw_pc_caller(c, f, n, oom);
    if (!strcmp(f[0], "@launch"))
        return kw_pc_launch(c, f, n, oom);
    if (!strcmp(f[0], "@unresolved"))
        return kw_pc_unresolved(c, f, n, oom);
    if (!strcmp(f[0], "@dropped"))
        return kw_pc_dropped(c, f, n, oom);
    if (!strcmp(f[0], "@unreached"))
        return kw_pc_unreached(c, f, n, oom);
    if (!strcmp(f[0], "@too-deep"))
        return kw_pc_too_deep(c, f, n, oom);
    return false;
}

/* One row (NUL-terminated, no line break); false with *oom clear: damaged. */
static bool kw_pc_row(kw_py_chains *c, char *row, bool *oom) {
    if (row[0] == '@')
        return kw_pc_tagged(c, row, oom);
    char *f[KW_PC_FIELDS] = {0};
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
                                     "ENTRY_AT OUTERMOST LENGTH CONDITIONS [FRAMES]; or "
                                     "@op, @launch, @unresolved, @dropped after their @op, "
                                     "@unreached, @too-deep)",
                                     name, lineno);
        }
        at += n + 1;
    }
    return KW_OK;
}

/* What a selection keeps: the op's bound module and function, an op, or a
 * kernel (name, file, line). */
typedef struct kw_pc_key {
    const char *module, *function;
    bool outermost;
    size_t op;
    int line;
} kw_pc_key;

typedef bool (*kw_pc_keep)(const kw_py_chains *c, size_t i, const kw_pc_key *k);

/* The indexes i < count that keep(i) holds for, into out (from a); their
 * number, or (size_t)-1 when out of memory. */
static size_t kw_pc_select(const kw_py_chains *c, size_t count, kw_pc_keep keep, const kw_pc_key *k,
                           kw_arena *a, size_t **out) {
    *out = NULL;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        n += keep(c, i, k);
    if (!n)
        return 0;
    *out = kw_arena_alloc(a, n * sizeof(size_t));
    if (!*out)
        return (size_t)-1;
    for (size_t i = 0, j = 0; i < count; i++)
        if (keep(c, i, k))
            (*out)[j++] = i;
    return n;
}

/* Sort chain indexes shortest first, stably (pages render in threads). */
static void kw_pc_shortest_first(const kw_py_chains *c, size_t *ix, size_t n) {
    for (size_t i = 1; i < n; i++) {
        size_t x = ix[i], j = i;
        for (; j > 0 && c->v.v[ix[j - 1]].length > c->v.v[x].length; j--)
            ix[j] = ix[j - 1];
        ix[j] = x;
    }
}

static bool kw_pc_bound(const char *bmod, const char *bfn, const kw_pc_key *k) {
    return k->function && !strcmp(bfn, k->function) &&
           (!k->module || (bmod && !strcmp(bmod, k->module)));
}

static bool kw_pc_keep_bound(const kw_py_chains *c, size_t i, const kw_pc_key *k) {
    const kw_py_chain *ch = &c->v.v[i];
    return kw_pc_bound(ch->bound_module, ch->bound_function, k) && (!k->outermost || ch->outermost);
}

size_t kw_py_chains_for(const kw_py_chains *c, const char *module, const char *function,
                        bool outermost, kw_arena *a, size_t **out) {
    kw_pc_key k = {.module = module, .function = function, .outermost = outermost};
    size_t n = kw_pc_select(c, c->v.n, kw_pc_keep_bound, &k, a, out);
    if (n != (size_t)-1)
        kw_pc_shortest_first(c, *out, n);
    return n;
}

static bool kw_pc_keep_opdef(const kw_py_chains *c, size_t i, const kw_pc_key *k) {
    return kw_pc_bound(c->ops.v[i].bound_module, c->ops.v[i].bound_function, k);
}

size_t kw_py_chains_ops(const kw_py_chains *c, const char *module, const char *function,
                        kw_arena *a, size_t **out) {
    kw_pc_key k = {.module = module, .function = function};
    return kw_pc_select(c, c->ops.n, kw_pc_keep_opdef, &k, a, out);
}

static bool kw_pc_keep_of_op(const kw_py_chains *c, size_t i, const kw_pc_key *k) {
    const kw_py_chain *ch = &c->v.v[i];
    return k->op < c->ops.n && !strcmp(ch->op, c->ops.v[k->op].name) &&
           (!k->outermost || ch->outermost);
}

size_t kw_py_chains_of_op(const kw_py_chains *c, size_t op, bool outermost, kw_arena *a,
                          size_t **out) {
    kw_pc_key k = {.op = op, .outermost = outermost};
    size_t n = kw_pc_select(c, c->v.n, kw_pc_keep_of_op, &k, a, out);
    if (n != (size_t)-1)
        kw_pc_shortest_first(c, *out, n);
    return n;
}

bool kw_py_chains_module_file(const char *module, const char *path) {
    if (!module || !path || !module[0])
        return false;
    size_t m = strlen(module), p = strlen(path);
    for (int pkg = 0; pkg < 2; pkg++) { /* a/b.py, then a/b/__init__.py */
        const char *tail = pkg ? "/__init__.py" : ".py";
        size_t t = strlen(tail);
        if (p < m + t || strcmp(path + p - t, tail))
            continue;
        const char *at = path + p - t - m; /* where the module's path starts */
        bool same = at == path || at[-1] == '/';
        for (size_t i = 0; i < m && same; i++)
            same = module[i] == '.' ? at[i] == '/' : at[i] == module[i] && at[i] != '/';
        if (same)
            return true;
    }
    return false;
}

static bool kw_pc_keep_kernel(const kw_py_chains *c, size_t i, const kw_pc_key *k) {
    const kw_py_launch *l = &c->launches.v[i];
    const char *dot = strrchr(l->kernel, '.');
    if (!dot || l->kernel_line != k->line || strcmp(dot + 1, k->function))
        return false;
    char module[1024];
    if ((size_t)(dot - l->kernel) >= sizeof module)
        return false;
    memcpy(module, l->kernel, (size_t)(dot - l->kernel));
    module[dot - l->kernel] = '\0';
    return kw_py_chains_module_file(module, k->module);
}

size_t kw_py_chains_kernel_launches(const kw_py_chains *c, const char *name, const char *file,
                                    int line, kw_arena *a, size_t **out) {
    *out = NULL;
    if (!name || !file)
        return 0;
    kw_pc_key k = {.module = file, .function = name, .line = line};
    return kw_pc_select(c, c->launches.n, kw_pc_keep_kernel, &k, a, out);
}
