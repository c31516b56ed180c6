/* kw_python_entries.c: reading the entry-point rules (annotations/
 * entrypoints/, one .txt per stack) and scanning Python files for the decorated ops they
 * describe (see kw_python_entries.h). The scanner follows Python's lexical
 * structure as far as needed: comments, string literals (single, triple,
 * with prefixes), bracket nesting across lines; it never executes anything. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "model/kw_python_entries.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/kw_fs.h"

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
#define KW_RULE_BAD(what)                                                                          \
    kw_fail(err, "annotations/%s:%d: %s", l->file, l->lineno, what)
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

/* ---- the scanner ---------------------------------------------------------------------------- */

typedef struct kw_pyfile {
    const char *path;
    const char *t;
    size_t n;
} kw_pyfile;

/* The argument list of a call, as parsed: positional and keyword values,
 * each the literal string or NULL for a non-literal. */
typedef struct kw_pyargs {
    int npos;
    const char *pos[8];
    bool pos_lit[8];
    int nkw;
    const char *kw[8];
    const char *kwval[8];
    bool kw_lit[8];
} kw_pyargs;

static bool kw_py_id(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Skip a string literal starting at t[i] (a quote); returns the index after
 * it. */
static size_t kw_py_skip_str(const kw_pyfile *f, size_t i) {
    char q = f->t[i];
    bool triple = i + 2 < f->n && f->t[i + 1] == q && f->t[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < f->n) {
        if (f->t[i] == '\\') {
            i += 2;
            continue;
        }
        if (triple) {
            if (i + 2 < f->n && f->t[i] == q && f->t[i + 1] == q && f->t[i + 2] == q)
                return i + 3;
        } else if (f->t[i] == q) {
            return i + 1;
        } else if (f->t[i] == '\n') {
            return i; /* unterminated */
        }
        i++;
    }
    return i < f->n ? i : f->n; /* a '\\' at the very end steps past it */
}

/* The literal value of one argument text [a, b): a string literal (prefixes
 * r, u, b allowed; not f), or NULL. */
static const char *kw_py_literal(kw_arena *ar, const kw_pyfile *f, size_t a, size_t b) {
    while (a < b && (f->t[a] == ' ' || f->t[a] == '\t' || f->t[a] == '\n' || f->t[a] == '\r'))
        a++;
    while (b > a && (f->t[b - 1] == ' ' || f->t[b - 1] == '\t' || f->t[b - 1] == '\n' ||
                     f->t[b - 1] == '\r'))
        b--;
    size_t i = a;
    while (i < b && strchr("rRuUbB", f->t[i]))
        i++;
    if (i >= b || (f->t[i] != '"' && f->t[i] != '\''))
        return NULL;
    if (kw_py_skip_str(f, i) != b)
        return NULL; /* "a" "b" concatenation, or an expression */
    char q = f->t[i];
    bool triple = b - i >= 6 && f->t[i + 1] == q && f->t[i + 2] == q;
    size_t quotes = triple ? 3 : 1;
    if (b - i < 2 * quotes)
        return NULL; /* unterminated: a lone quote at the end */
    for (size_t k = 1; k <= quotes; k++)
        if (f->t[b - k] != q)
            return NULL; /* unterminated */
    size_t s = i + quotes, e = b - quotes;
    if (memchr(f->t + s, '\\', e - s))
        return NULL; /* escapes: not worth decoding for identifiers */
    return kw_arena_strndup(ar, f->t + s, e - s);
}

/* Parse the call arguments from t[i] just after '(' to the matching ')'.
 * Returns the index after ')' (or n), counting lines into *line. */
static size_t kw_py_call(kw_arena *ar, const kw_pyfile *f, size_t i, int *line, kw_pyargs *args) {
    memset(args, 0, sizeof(*args));
    int depth = 0;
    size_t arg_start = i;
    size_t eq = 0; /* '=' of a keyword argument at depth 0 */
    for (; i < f->n; i++) {
        char c = f->t[i];
        if (c == '\n')
            ++*line;
        if (c == '#') {
            bool blank = true; /* a comment before the argument's text: skip it */
            for (size_t k = arg_start; k < i && blank; k++)
                blank = strchr(" \t\r\n", f->t[k]) != NULL;
            while (i < f->n && f->t[i] != '\n')
                i++;
            if (blank)
                arg_start = i;
            i--;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t j = kw_py_skip_str(f, i);
            for (size_t k = i; k < j; k++)
                *line += f->t[k] == '\n';
            i = j - 1;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
            continue;
        }
        if (depth == 0 && c == '=' && f->t[i + 1] != '=' && i > 0 &&
            !strchr("=!<>", f->t[i - 1]) && !eq)
            eq = i;
        if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
            continue;
        }
        if (depth == 0 && (c == ',' || c == ')')) {
            /* one argument: [arg_start, i) */
            size_t a = arg_start;
            while (a < i && strchr(" \t\r\n", f->t[a]))
                a++;
            if (a < i) {
                if (eq) {
                    size_t ke = eq;
                    while (ke > a && strchr(" \t", f->t[ke - 1]))
                        ke--;
                    size_t kb = ke; /* the keyword: the identifier before '=' */
                    while (kb > a && kw_py_id(f->t[kb - 1]))
                        kb--;
                    if (args->nkw < 8) {
                        args->kw[args->nkw] = kw_arena_strndup(ar, f->t + kb, ke - kb);
                        args->kwval[args->nkw] = kw_py_literal(ar, f, eq + 1, i);
                        args->kw_lit[args->nkw] = args->kwval[args->nkw] != NULL;
                        args->nkw++;
                    }
                } else if (f->t[a] != '*' && args->npos < 8) {
                    args->pos[args->npos] = kw_py_literal(ar, f, a, i);
                    args->pos_lit[args->npos] = args->pos[args->npos] != NULL;
                    args->npos++;
                }
            }
            arg_start = i + 1;
            eq = 0;
            if (c == ')')
                return i + 1;
        }
    }
    return i;
}

/* The value of an argument given by position or by one of the keywords;
 * *given tells whether the call gives it at all. */
static const char *kw_py_arg(const kw_pyargs *a, int pos, const char *const *kws, bool *given) {
    *given = false;
    if (pos >= 0 && pos < a->npos) {
        *given = true;
        return a->pos[pos];
    }
    for (int i = 0; i < a->nkw; i++)
        for (int k = 0; kws[k]; k++)
            if (a->kw[i] && !strcmp(a->kw[i], kws[k])) {
                *given = true;
                return a->kwval[i];
            }
    return NULL;
}

static const kw_py_rule *kw_py_rule_for(const kw_py_ops *p, const char *name, size_t n) {
    for (size_t i = 0; i < p->rules.n; i++) {
        const char *d = p->rules.v[i].decorator;
        if (strlen(d) == n && !memcmp(d, name, n))
            return &p->rules.v[i];
    }
    return NULL;
}

static size_t kw_py_eol(const kw_pyfile *f, size_t i) {
    while (i < f->n && f->t[i] != '\n')
        i++;
    return i;
}

/* After a decorator ending at index i (line *line): skip blank and comment
 * lines and further decorators; the def's name and line, or NULL. */
static const char *kw_py_find_def(kw_arena *ar, const kw_pyfile *f, size_t i, int line,
                                  int *def_line) {
    i = kw_py_eol(f, i);
    while (i < f->n) {
        i++; /* past '\n' */
        line++;
        size_t s = i;
        while (s < f->n && (f->t[s] == ' ' || f->t[s] == '\t'))
            s++;
        if (s >= f->n)
            break;
        if (f->t[s] == '\n' || f->t[s] == '#' || f->t[s] == '\r') {
            i = kw_py_eol(f, s);
            continue;
        }
        if (f->t[s] == '@') { /* another decorator, possibly with a multi-line call */
            size_t k = s + 1;
            while (k < f->n && (kw_py_id(f->t[k]) || f->t[k] == '.' || f->t[k] == ' '))
                k++;
            if (k < f->n && f->t[k] == '(') {
                kw_pyargs ignore;
                k = kw_py_call(ar, f, k + 1, &line, &ignore);
            }
            i = kw_py_eol(f, k);
            continue;
        }
        if (!strncmp(f->t + s, "async ", 6)) {
            s += 6;
            while (s < f->n && f->t[s] == ' ')
                s++;
        }
        if (strncmp(f->t + s, "def ", 4))
            return NULL;
        s += 4;
        while (s < f->n && f->t[s] == ' ')
            s++;
        size_t e = s;
        while (e < f->n && kw_py_id(f->t[e]))
            e++;
        *def_line = line;
        return e > s ? kw_arena_strndup(ar, f->t + s, e - s) : NULL;
    }
    return NULL;
}

static kw_status kw_py_scan_text(kw_py_ops *p, const kw_pyfile *f, kw_err *err) {
    size_t i = 0;
    int line = 1;
    while (i < f->n) {
        size_t s = i;
        while (s < f->n && (f->t[s] == ' ' || f->t[s] == '\t'))
            s++;
        size_t eol = kw_py_eol(f, s);
        if (s < f->n && f->t[s] == '@') {
            /* @a.b.name(...) */
            size_t k = s + 1, last = k;
            while (k < eol && (kw_py_id(f->t[k]) || f->t[k] == '.')) {
                if (f->t[k] == '.')
                    last = k + 1;
                k++;
            }
            const kw_py_rule *r = kw_py_rule_for(p, f->t + last, k - last);
            size_t j = k;
            while (j < eol && f->t[j] == ' ')
                j++;
            if (r) {
                kw_py_op *op = KW_PUSH(&p->arena, p->ops);
                if (!op)
                    return kw_fail(err, "out of memory");
                op->stack = r->stack;
                op->file = f->path;
                op->decorator_line = line;
                kw_pyargs args;
                memset(&args, 0, sizeof(args));
                int end_line = line;
                if (j < f->n && f->t[j] == '(')
                    j = kw_py_call(&p->arena, f, j + 1, &end_line, &args);
                op->def_name = kw_py_find_def(&p->arena, f, j, end_line, &op->def_line);
                bool given;
                op->module = kw_py_arg(&args, r->module_pos, r->module_kw, &given);
                if (!op->module)
                    op->why = given ? "the module argument is not a string literal"
                                    : "no module argument";
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
                if (!op->def_name && !op->why)
                    op->why = "the decorator is not followed by a def";
                /* continue after the decorator's call */
                while (i < j && i < f->n) {
                    if (f->t[i] == '\n')
                        line++;
                    i++;
                }
                continue;
            }
        }
        i = eol + 1;
        line++;
    }
    return KW_OK;
}

kw_status kw_py_scan_buffer(kw_py_ops *p, const char *path, const char *text, size_t len,
                            kw_err *err) {
    kw_pyfile f = {kw_arena_strdup(&p->arena, path), kw_arena_strndup(&p->arena, text, len), len};
    if (!f.path || !f.t)
        return kw_fail(err, "out of memory");
    p->files++;
    kw_py_src *src = KW_PUSH(&p->arena, p->srcs);
    if (!src)
        return kw_fail(err, "out of memory");
    src->path = f.path;
    src->text = f.t;
    src->len = f.n;
    return kw_py_scan_text(p, &f, err);
}

static kw_status kw_py_scan_file(kw_py_ops *p, const char *path, kw_err *err) {
    char *text;
    size_t len;
    if (kw_fs_read_as(path, KW_FS_TEXT, &text, &len, err) != KW_OK)
        return KW_ERR;
    kw_status st = kw_py_scan_buffer(p, path, text, len, err);
    free(text);
    return st;
}

static int kw_py_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static kw_status kw_py_walk(kw_py_ops *p, const char *dir, int depth, kw_err *err) {
    if (depth > 32)
        return KW_OK;
    DIR *d = opendir(dir);
    if (!d)
        return kw_fail(err, "%s: %s", dir, strerror(errno));
    KW_ARRAY(const char *) names = {0};
    kw_arena tmp;
    kw_arena_init(&tmp);
    struct dirent *de;
    kw_status st = KW_OK;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || !strcmp(de->d_name, "__pycache__"))
            continue;
        const char **slot = KW_PUSH(&tmp, names);
        if (!slot || !(*slot = kw_arena_strdup(&tmp, de->d_name))) {
            st = kw_fail(err, "out of memory");
            break;
        }
    }
    closedir(d);
    if (names.n)
        qsort(names.v, names.n, sizeof(names.v[0]), kw_py_cmp);
    for (size_t i = 0; i < names.n && st == KW_OK; i++) {
        char *path = kw_arena_printf(&tmp, "%s/%s", dir, names.v[i]);
        struct stat sb;
        if (!path) {
            st = kw_fail(err, "out of memory");
        } else if (lstat(path, &sb) != 0) {
            continue;
        } else if (S_ISDIR(sb.st_mode)) {
            st = kw_py_walk(p, path, depth + 1, err);
        } else if (S_ISREG(sb.st_mode)) {
            size_t n = strlen(names.v[i]);
            if (n > 3 && !strcmp(names.v[i] + n - 3, ".py"))
                st = kw_py_scan_file(p, path, err);
        }
    }
    kw_arena_free(&tmp);
    return st;
}

kw_status kw_py_scan(kw_py_ops *p, const char *root, kw_err *err) {
    struct stat sb;
    if (stat(root, &sb) != 0)
        return kw_fail(err, "%s: %s", root, strerror(errno));
    char *real = realpath(root, NULL);
    if (!real)
        return kw_fail(err, "%s: %s", root, strerror(errno));
    char *abs = kw_arena_strdup(&p->arena, real);
    free(real);
    if (!abs)
        return kw_fail(err, "out of memory");
    kw_status st;
    if (S_ISDIR(sb.st_mode)) {
        p->root = abs;
        st = kw_py_walk(p, abs, 0, err);
    } else {
        st = kw_py_scan_file(p, abs, err);
    }
    return st == KW_OK ? kw_py_find_callers(p, err) : st;
}
