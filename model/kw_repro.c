/* kw_repro.c: the reproducer model of a Triton specialization (kw_repro.h):
 * the values as Python literals (NAME.json writes options as JSON scalars,
 * kwalk's constexprs hold Python's repr), and the import of the function:
 * the package chain of __init__.py files above its file, else its path. */
#include "model/kw_repro.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool kw_repro_is_file(const char *path) {
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Is s[0, n) a whole integer / float as Python would read it? */
static bool kw_repro_int(const char *s) {
    if (*s == '-')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static bool kw_repro_float(const char *s) {
    if (!*s)
        return false;
    char *end;
    errno = 0;
    (void)strtod(s, &end);
    return !*end && strpbrk(s, ".eEn") && strcmp(s, "nan") && strcmp(s, "inf");
}

/* A value of NAME.json (a JSON scalar as the cache reader kept it): a
 * number, true / false, or a string. */
static void kw_repro_json_value(const char *v, kw_repro_value *out) {
    out->text = v;
    if (kw_repro_int(v))
        out->kind = KW_PYVAL_INT;
    else if (kw_repro_float(v))
        out->kind = KW_PYVAL_FLOAT;
    else if (!strcmp(v, "true") || !strcmp(v, "false"))
        out->kind = KW_PYVAL_BOOL, out->text = v[0] == 't' ? "True" : "False";
    else
        out->kind = KW_PYVAL_STR;
}

/* A constexpr's value, Python's repr of it: an int, a float, True / False,
 * None, or a quoted string (kept as the literal it is). */
static void kw_repro_py_value(const char *v, kw_repro_value *out) {
    out->text = v;
    if (kw_repro_int(v))
        out->kind = KW_PYVAL_INT;
    else if (!strcmp(v, "True") || !strcmp(v, "False"))
        out->kind = KW_PYVAL_BOOL;
    else if (kw_repro_float(v) || !strcmp(v, "inf") || !strcmp(v, "-inf") || !strcmp(v, "nan"))
        out->kind = KW_PYVAL_FLOAT;
    else
        out->kind = KW_PYVAL_STR; /* written as the literal it is: see the writer */
}

/* The last '/' in s[0, n), or NULL. */
static const char *kw_repro_last_slash(const char *s, size_t n) {
    while (n--)
        if (s[n] == '/')
            return s + n;
    return NULL;
}

/* The package import of file: the folders above it that hold an
 * __init__.py make the module's dotted name, package_root is the folder
 * above the outermost; none (the file's own folder has no __init__.py):
 * module stays NULL, the file is loaded by path. */
static kw_status kw_repro_import(kw_arena *a, const char *file, kw_repro *r) {
    size_t n = strlen(file);
    const char *slash = kw_repro_last_slash(file, n);
    if (!slash || n < 4 || strcmp(file + n - 3, ".py"))
        return KW_OK;
    size_t dir = (size_t)(slash - file); /* file[0, dir) is a folder */
    bool package = false;
    for (;;) {
        char *init = kw_arena_printf(a, "%.*s/__init__.py", (int)dir, file);
        if (!init)
            return KW_ERR;
        if (!kw_repro_is_file(init))
            break;
        package = true;
        const char *up = kw_repro_last_slash(file, dir);
        if (!up)
            break;
        dir = (size_t)(up - file);
    }
    if (!package)
        return KW_OK;
    char *mod = kw_arena_strndup(a, file + dir + 1, n - 3 - (dir + 1));
    char *root = dir ? kw_arena_strndup(a, file, dir) : kw_arena_strdup(a, "/");
    if (!mod || !root)
        return KW_ERR;
    for (char *c = mod; *c; c++)
        if (*c == '/')
            *c = '.';
    r->module = mod;
    r->package_root = root;
    return KW_OK;
}

kw_status kw_repro_build(const kw_kernel *k, kw_arena *a, kw_repro *r, kw_err *err) {
    memset(r, 0, sizeof(*r));
    if (!k || !k->triton)
        return kw_fail(err, "%s: not a Triton specialization (a reproducer recompiles one)",
                          k && k->name ? k->name : "?");
    const kw_triton *t = k->triton;
    r->kernel = k->name;
    r->file = k->location.file;
    r->line = k->location.line;
    r->arch = k->archs.n ? k->archs.v[0].arch : NULL;
    r->warp_size = t->warp_size;
    r->hash = t->hash;
    r->cache_key = t->cache_key;
    r->triton_version = t->triton_version;
    if (!r->file || !r->arch || r->warp_size <= 0 || !r->hash)
        return kw_fail(err, "%s: the index has no %s for this specialization", k->name,
                       !r->file   ? "source file"
                       : !r->arch ? "arch"
                       : !r->hash ? "hash"
                                  : "warp size");
    if (kw_repro_import(a, r->file, r) != KW_OK)
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < k->params.n; i++) {
        kw_repro_arg *x = KW_PUSH(a, r->signature);
        if (!x)
            return kw_fail(err, "out of memory");
        x->name = k->params.v[i].name;
        x->type = k->params.v[i].type;
    }
    for (size_t i = 0; i < t->constexprs.n; i++) {
        const kw_triton_constexpr *c = &t->constexprs.v[i];
        kw_repro_arg *x = KW_PUSH(a, r->signature);
        kw_repro_value *v = KW_PUSH(a, r->constexprs);
        if (!x || !v)
            return kw_fail(err, "out of memory");
        x->name = c->name;
        x->type = "constexpr";
        v->name = c->name;
        if (c->value) {
            kw_repro_py_value(c->value, v);
        } else {
            v->kind = KW_PYVAL_NONE;
            v->why = c->why ? c->why : "not recorded";
            r->unknown++;
        }
    }
    for (size_t i = 0; i < t->options.n; i++) {
        kw_repro_value *v = KW_PUSH(a, r->options);
        if (!v)
            return kw_fail(err, "out of memory");
        v->name = t->options.v[i].name;
        kw_repro_json_value(t->options.v[i].value ? t->options.v[i].value : "", v);
    }
    return KW_OK;
}
