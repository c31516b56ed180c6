/* kw_python_entries.c: reading the entry-point rules (annotations/
 * entrypoints/, one .txt per stack) and applying them to the decorated ops
 * the Python reader (python/kwalk_pyscan.py) found: each op's bound module,
 * function and entry kind, or why it binds to none (see
 * kw_python_entries.h). */
#include "model/kw_python_entries.h"

#include <stdlib.h>
#include <string.h>

void kw_py_ops_init(kw_py_ops *p) {
    memset(p, 0, sizeof(*p));
    kw_arena_init(&p->arena);
}

void kw_py_ops_free(kw_py_ops *p) {
    kw_arena_free(&p->arena);
    memset(p, 0, sizeof(*p));
}

/* ---- rules ---------------------------------------------------------------------------------- */

typedef struct kw_rule_ctx {
    kw_py_ops *p;
    kw_py_rule *cur;
} kw_rule_ctx;

static kw_status kw_rule_kws(kw_py_ops *p, const char *list, const char **out) {
    size_t k = 0;
    const char *s = list;
    while (*s && k < 3) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        if (n && !(out[k++] = kw_arena_strndup(&p->arena, s, n)))
            return KW_ERR;
        s += n + (c ? 1 : 0);
    }
    out[k] = NULL;
    return KW_OK;
}

static int kw_rule_pos(const char *w) {
    if (!strcmp(w, "-"))
        return -1;
    char *end;
    long v = strtol(w, &end, 10);
    return (*end || v < 0 || v > 64) ? -2 : (int)v;
}

static kw_status kw_rule_line(void *ctx, const kw_annot_line *l, kw_err *err) {
    kw_rule_ctx *c = ctx;
    kw_py_ops *p = c->p;
    const char *k = l->word[0];
    int n = l->nwords;
#define KW_RULE_BAD(what) kw_fail(err, "annotations/%s:%d: %s", l->file, l->lineno, what)
    if (!strcmp(k, "stack")) {
        if (n != 2)
            return KW_RULE_BAD("expected 'stack NAME'");
        c->cur = KW_PUSH(&p->arena, p->rules);
        if (!c->cur || !(c->cur->stack = kw_arena_strdup(&p->arena, l->word[1])))
            return kw_fail(err, "out of memory");
        c->cur->module_pos = c->cur->function_pos = c->cur->ffi_pos = -1;
        return KW_OK;
    }
    if (!c->cur)
        return KW_RULE_BAD("expected 'stack NAME' first");
    kw_py_rule *r = c->cur;
    if (!strcmp(k, "decorator") && n == 2) {
        r->decorator = kw_arena_strdup(&p->arena, l->word[1]);
    } else if ((!strcmp(k, "module") || !strcmp(k, "function")) && n == 3) {
        int pos = kw_rule_pos(l->word[1]);
        if (pos < -1)
            return KW_RULE_BAD("expected a position (0, 1, ...) or '-'");
        bool mod = k[0] == 'm';
        *(mod ? &r->module_pos : &r->function_pos) = pos;
        if (kw_rule_kws(p, l->word[2], mod ? r->module_kw : r->function_kw) != KW_OK)
            return kw_fail(err, "out of memory");
    } else if (!strcmp(k, "ffi") && n == 4) {
        int pos = kw_rule_pos(l->word[1]);
        if (pos < -1)
            return KW_RULE_BAD("expected a position (0, 1, ...) or '-'");
        r->ffi_pos = pos;
        if (kw_rule_kws(p, l->word[2], r->ffi_kw) != KW_OK ||
            !(r->ffi_default = kw_arena_strdup(&p->arena, l->word[3])))
            return kw_fail(err, "out of memory");
    } else if (!strcmp(k, "bind") && n == 3) {
        if (strcmp(l->word[2], "pybind") && strcmp(l->word[2], "extern_c"))
            return KW_RULE_BAD("bind: the entry kind is 'pybind' or 'extern_c'");
        if (r->nbind == 8)
            return KW_RULE_BAD("too many bind lines");
        r->bind_value[r->nbind] = kw_arena_strdup(&p->arena, l->word[1]);
        r->bind_kind[r->nbind++] = kw_arena_strdup(&p->arena, l->word[2]);
    } else {
        return KW_RULE_BAD("unknown directive or wrong number of words");
    }
    return KW_OK;
#undef KW_RULE_BAD
}

kw_status kw_py_load_rules(kw_py_ops *p, const kw_annot *a, kw_err *err) {
    for (size_t i = 0; i < a->files.n; i++) {
        const kw_annot_file *f = &a->files.v[i];
        /* entrypoints/functions.txt is the plugin's (annotated C++ entry points) */
        if (strncmp(f->name, "entrypoints/", 12) || !strcmp(f->name, "entrypoints/functions.txt"))
            continue;
        kw_rule_ctx c = {p, NULL};
        if (kw_annot_lines(f, kw_rule_line, &c, err) != KW_OK)
            return KW_ERR;
    }
    for (size_t i = 0; i < p->rules.n; i++)
        if (!p->rules.v[i].decorator)
            return kw_fail(err, "annotations/entrypoints: stack %s has no 'decorator' line",
                           p->rules.v[i].stack);
    return KW_OK;
}

/* ---- the ops of the helper's table ---------------------------------------------------------- */

/* A decorator's arguments as the table gives them: per positional and
 * keyword argument its string value, or NULL for anything but a string
 * literal. */
typedef struct kw_pyargs {
    const kw_py_strs *pos, *kw;
} kw_pyargs;

/* The string after the quote of item s ("'VALUE" or "NAME'VALUE"), or NULL
 * ("?", "NAME?"). */
static const char *kw_py_value(const char *s) {
    const char *q = strchr(s, '\'');
    return q ? q + 1 : NULL;
}

/* The value of an argument given by position or by one of the keywords;
 * *given tells whether the call gives it at all. */
static const char *kw_py_arg(const kw_pyargs *a, int pos, const char *const *kws, bool *given) {
    *given = false;
    if (pos >= 0 && (size_t)pos < a->pos->n) {
        *given = true;
        return kw_py_value(a->pos->v[pos]);
    }
    for (size_t i = 0; i < a->kw->n; i++) {
        const char *item = a->kw->v[i];
        size_t n = strcspn(item, "'?");
        for (int k = 0; kws[k]; k++)
            if (strlen(kws[k]) == n && !strncmp(item, kws[k], n)) {
                *given = true;
                return kw_py_value(item);
            }
    }
    return NULL;
}

static const kw_py_rule *kw_py_rule_for(const kw_py_ops *p, const char *name) {
    const char *dot = strrchr(name, '.');
    const char *last = dot ? dot + 1 : name;
    for (size_t i = 0; i < p->rules.n; i++)
        if (!strcmp(p->rules.v[i].decorator, last))
            return &p->rules.v[i];
    return NULL;
}

/* The rule applied to the decorator's arguments. */
static void kw_py_bind(kw_py_op *op, const kw_py_rule *r, const kw_py_decorator *d) {
    kw_pyargs args = {&d->args, &d->kwargs};
    bool given;
    op->module = kw_py_arg(&args, r->module_pos, r->module_kw, &given);
    if (!op->module)
        op->why = given ? "the module argument is not a string literal" : "no module argument";
    const char *fn = kw_py_arg(&args, r->function_pos, r->function_kw, &given);
    op->function = given ? fn : op->def_name;
    if (given && !fn && !op->why)
        op->why = "the function-name argument is not a string literal";
    const char *ffi = kw_py_arg(&args, r->ffi_pos, r->ffi_kw, &given);
    op->ffi = given ? ffi : r->ffi_default;
    if (given && !ffi && !op->why)
        op->why = "the binding-kind argument is not a string literal";
    for (int b = 0; b < r->nbind && op->ffi; b++)
        if (!strcmp(r->bind_value[b], op->ffi))
            op->entry_kind = r->bind_kind[b];
    if (!op->entry_kind && !op->why)
        op->why = "no bind rule for this binding kind";
}

/* Is path under folder root, or root itself (a root of one file)? */
static bool kw_py_under(const char *path, const char *root) {
    size_t n = strlen(root);
    return !strncmp(path, root, n) && (!path[n] || path[n] == '/' || (n && root[n - 1] == '/'));
}

/* Paths in the order of a walk that sorts each folder's names: '/' sorts
 * before every other byte. */
static int kw_py_path_cmp(const char *a, const char *b) {
    for (;; a++, b++) {
        unsigned char x = *a == '/' ? 1 : (unsigned char)*a, y = *b == '/' ? 1 : (unsigned char)*b;
        if (x != y || !x)
            return x - y;
    }
}

static int kw_py_op_cmp(const void *x, const void *y) {
    const kw_py_op *a = x, *b = y;
    int c = kw_py_path_cmp(a->file, b->file);
    return c ? c : a->decorator_line - b->decorator_line;
}

static kw_status kw_py_add_op(kw_py_ops *p, const kw_py_chains *c, size_t di, kw_err *err) {
    const kw_py_decorator *d = &c->decorators.v[di];
    const kw_py_rule *r = kw_py_rule_for(p, d->name);
    if (!r)
        return KW_OK;
    kw_py_op *op = KW_PUSH(&p->arena, p->ops);
    if (!op)
        return kw_fail(err, "out of memory");
    memset(op, 0, sizeof(*op));
    const kw_py_opdef *od = &c->ops.v[d->op];
    op->stack = r->stack;
    op->file = od->file;
    op->decorator_line = d->line;
    op->def_name = d->def_name;
    op->def_line = od->line;
    kw_py_bind(op, r, d);
    for (size_t i = 0; i < c->callers.n; i++) {
        if (c->callers.v[i].op != d->op)
            continue;
        kw_py_caller *k = KW_PUSH(&p->arena, op->callers);
        if (!k)
            return kw_fail(err, "out of memory");
        *k = c->callers.v[i];
    }
    return KW_OK;
}

kw_status kw_py_ops_from_chains(kw_py_ops *p, const kw_py_chains *c, const char *const *roots,
                                size_t n, kw_err *err) {
    const char *root = NULL; /* the first root holding an op of the rules */
    for (size_t k = 0; k < n && !root; k++)
        for (size_t i = 0; i < c->decorators.n && !root; i++)
            if (kw_py_rule_for(p, c->decorators.v[i].name) &&
                kw_py_under(c->ops.v[c->decorators.v[i].op].file, roots[k]))
                root = roots[k];
    for (size_t i = 0; i < c->decorators.n && root; i++)
        if (kw_py_under(c->ops.v[c->decorators.v[i].op].file, root) &&
            kw_py_add_op(p, c, i, err) != KW_OK)
            return KW_ERR;
    if (p->ops.n > 1)
        qsort(p->ops.v, p->ops.n, sizeof(p->ops.v[0]), kw_py_op_cmp);
    return KW_OK;
}
