/* kw_python_callers.c: the public callers of each Python op inside the scanned
 * package: a bounded, textual call graph of the *.py files kw_py_scan read.
 *
 * Each file is cut into logical lines as Python's tokenizer cuts them
 * (brackets, strings, comments, backslash continuations). def/class lines
 * open scopes by indentation, import lines bind names, and NAME(.NAME)*( in
 * a def's body is a call. A call is the op's when its name resolves to the
 * op's def through the calling module's own top-level defs, its imports and
 * its star imports, followed across modules (8 deep). A caller whose name or
 * module has a '_'-prefixed part is private: its own callers are looked up
 * instead, 3 levels up. Nothing is executed; what a textual reading cannot
 * resolve (getattr, calls through variables or self) is not claimed. */
#define _POSIX_C_SOURCE 200809L /* access */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/kw_python_entries.h"
#include "common/kw_symmap.h"

enum { KW_PC_DEPTH = 8, KW_PC_ROUNDS = 3 };

typedef struct kw_pc_tok {
    const char *s;
    size_t n;
    char kind; /* 'n' name, 'o' operator character, 'x' string or number */
    int line;
} kw_pc_tok;

typedef struct kw_pc_bind {
    const char *name;   /* the name bound in the module */
    const char *module; /* absolute dotted module it comes from */
    const char *attr;   /* NULL: the name is the module itself */
} kw_pc_bind;

typedef struct kw_pc_call {
    size_t mod;         /* calling module */
    const char *caller; /* "fn" or "Class.method" (the outermost def) */
    bool top;           /* the caller is a top-level def */
    int def_line, line;
    const char *chain[6]; /* a.b.c */
    int nchain;
} kw_pc_call;

typedef struct kw_pc_mod {
    const char *name; /* dotted */
    const char *file;
    bool package;   /* an __init__.py */
    kw_symmap defs; /* top-level def name -> 1 */
    KW_ARRAY(kw_pc_bind) binds;
    KW_ARRAY(const char *) stars; /* modules star-imported */
} kw_pc_mod;

/* A resolved name: a module, a top-level def of a module, or nothing. */
typedef struct kw_pc_val {
    char kind; /* 0 none, 'm' module, 'd' def */
    const char *module;
    const char *def;
} kw_pc_val;

typedef struct kw_pc {
    kw_arena a;
    KW_ARRAY(kw_pc_mod) mods;
    kw_symmap mod_of; /* dotted name -> index */
    KW_ARRAY(kw_pc_call) calls;
    kw_symmap by_last; /* a call chain's last name -> 1 + first call with it */
    size_t *next;      /* 1 + the next call with the same last name, 0 at the end */
    kw_symmap memo;    /* "module\1name" -> index into vals */
    KW_ARRAY(kw_pc_val) vals;
} kw_pc;

/* ---- tokens --------------------------------------------------------------------------------- */

static bool kw_pc_idc(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

static size_t kw_pc_skip_str(const char *t, size_t n, size_t i, int *line) {
    char q = t[i];
    bool triple = i + 2 < n && t[i + 1] == q && t[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < n) {
        if (t[i] == '\\' && i + 1 < n) {
            *line += t[i + 1] == '\n';
            i += 2;
            continue;
        }
        if (t[i] == '\n') {
            if (!triple)
                return i; /* unterminated */
            ++*line;
        }
        if (t[i] == q && (!triple || (i + 2 < n && t[i + 1] == q && t[i + 2] == q)))
            return i + (triple ? 3 : 1);
        i++;
    }
    return i;
}

static bool kw_pc_str_prefix(const char *s, size_t n) {
    if (n > 2)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("rRuUbBfF", s[i]))
            return false;
    return true;
}

/* One logical line from t[*at]: its tokens (into toks, reset), its
 * indentation and first line. false at the end of the text. */
typedef KW_ARRAY(kw_pc_tok) kw_pc_toks;

static bool kw_pc_line(kw_arena *a, const char *t, size_t n, size_t *at, int *line,
                       kw_pc_toks *toks, int *indent, bool *oom) {
    toks->n = 0;
    size_t i = *at;
    int depth = 0;
    bool start = true;
    *indent = 0;
    while (i < n) {
        char c = t[i];
        if (start) { /* the indentation of a physical line that starts a logical one */
            int col = 0;
            while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\f')) {
                col = t[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
                i++;
            }
            *indent = col;
            start = false;
            continue;
        }
        if (c == '\n') {
            ++*line;
            i++;
            if (depth == 0 && toks->n)
                break;
            start = depth == 0; /* blank or comment-only line: measure the next one */
            continue;
        }
        /* a backslash continuation: '\' then LF or CRLF. A lone CR ends no
         * line: lines are counted by LF, as kw_python_entries.c counts them */
        size_t lf = i + 1 + (i + 2 < n && t[i + 1] == '\r');
        if (c == '\\' && lf < n && t[lf] == '\n') {
            i = lf + 1;
            ++*line;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
            i++;
            continue;
        }
        if (c == '#') {
            while (i < n && t[i] != '\n')
                i++;
            continue;
        }
        kw_pc_tok *tk = KW_PUSH(a, *toks);
        if (!tk) {
            *oom = true;
            return false;
        }
        tk->line = *line;
        tk->s = t + i;
        if (c == '"' || c == '\'') {
            i = kw_pc_skip_str(t, n, i, line);
            tk->kind = 'x';
        } else if (kw_pc_idc(c) && !(c >= '0' && c <= '9')) {
            size_t e = i;
            while (e < n && kw_pc_idc(t[e]))
                e++;
            if (e < n && (t[e] == '"' || t[e] == '\'') && kw_pc_str_prefix(t + i, e - i)) {
                i = kw_pc_skip_str(t, n, e, line);
                tk->kind = 'x';
            } else {
                i = e;
                tk->kind = 'n';
            }
        } else if (c >= '0' && c <= '9') {
            while (i < n && (kw_pc_idc(t[i]) || t[i] == '.'))
                i++;
            tk->kind = 'x';
        } else {
            depth += (c == '(' || c == '[' || c == '{') -
                     ((c == ')' || c == ']' || c == '}') && depth > 0);
            i++;
            tk->kind = 'o';
        }
        tk->n = (size_t)(t + i - tk->s);
    }
    *at = i;
    return toks->n > 0;
}

static bool kw_pc_is(const kw_pc_tok *t, const char *word) {
    return t->kind != 'x' && t->n == strlen(word) && !memcmp(t->s, word, t->n);
}

/* ---- modules -------------------------------------------------------------------------------- */

/* The dotted module name of path under root, prefixed with the packages root
 * sits in (root/__init__.py, its parent's, ...). */
static const char *kw_pc_modname(kw_arena *a, const kw_py_ops *p, const char *path,
                                 const char *prefix, bool *package) {
    const char *rel = path;
    size_t rn = p->root ? strlen(p->root) : 0;
    if (p->root && !strncmp(path, p->root, rn) && path[rn] == '/')
        rel = path + rn + 1;
    else if (strrchr(path, '/'))
        rel = strrchr(path, '/') + 1;
    size_t n = strlen(rel);
    if (n >= 3 && !strcmp(rel + n - 3, ".py"))
        n -= 3;
    *package = n >= 8 && !strncmp(rel + n - 8, "__init__", 8) && (n == 8 || rel[n - 9] == '/');
    if (*package)
        n = n > 8 ? n - 9 : 0;
    char *m = kw_arena_printf(a, "%s%s%.*s", prefix, prefix[0] && n ? "." : "", (int)n, rel);
    for (char *c = m ? m + strlen(prefix) : NULL; c && *c; c++)
        if (*c == '/')
            *c = '.';
    return m;
}

/* The packages the scanned directory sits in: "aiter" for root .../aiter with
 * an __init__.py (and "a.b" when its parent is a package too); "" when root
 * is no package. */
static const char *kw_pc_prefix(kw_arena *a, const kw_py_ops *p) {
    if (!p->root)
        return "";
    const char *pre = "";
    char *dir = kw_arena_strdup(a, p->root);
    for (int up = 0; dir && pre && up < 16; up++) {
        char *init = kw_arena_printf(a, "%s/__init__.py", dir);
        char *slash = strrchr(dir, '/');
        if (!init || access(init, F_OK) != 0 || !slash || slash == dir)
            break;
        pre = kw_arena_printf(a, "%s%s%s", slash + 1, pre[0] ? "." : "", pre);
        *slash = '\0';
    }
    return pre ? pre : "";
}

static kw_pc_mod *kw_pc_mod_get(kw_pc *c, const char *name) {
    size_t *at = name ? kw_symmap_get(&c->mod_of, name) : NULL;
    return at ? &c->mods.v[*at] : NULL;
}

/* The package a relative import of module m counts from, `level` dots up. */
static const char *kw_pc_relbase(kw_arena *a, const kw_pc_mod *m, int level) {
    char *base = kw_arena_strdup(a, m->name);
    for (int l = m->package ? 1 : 0; base && l < level; l++) {
        char *dot = strrchr(base, '.');
        if (dot)
            *dot = '\0';
        else if (base[0])
            base[0] = '\0';
        else
            return NULL; /* above the top package */
    }
    return base;
}

static bool kw_pc_add_bind(kw_pc *c, kw_pc_mod *m, const kw_pc_tok *name, const char *module,
                           const kw_pc_tok *attr) {
    kw_pc_bind *b = KW_PUSH(&c->a, m->binds);
    if (!b)
        return false;
    b->name = kw_arena_strndup(&c->a, name->s, name->n);
    b->module = module;
    b->attr = attr ? kw_arena_strndup(&c->a, attr->s, attr->n) : NULL;
    return b->name && (!attr || b->attr);
}

/* A dotted name t[*i]... as one string; *i moves past it. */
static const char *kw_pc_dotted(kw_arena *a, const kw_pc_tok *t, size_t n, size_t *i) {
    if (*i >= n || t[*i].kind != 'n')
        return NULL;
    const char *s = t[*i].s;
    size_t e = *i + 1;
    while (e + 1 < n && kw_pc_is(&t[e], ".") && t[e + 1].kind == 'n')
        e += 2;
    const char *end = t[e - 1].s + t[e - 1].n;
    *i = e;
    /* tokens of one dotted name may have blanks between them: drop them */
    char *out = kw_arena_strndup(a, s, (size_t)(end - s));
    size_t k = 0;
    for (size_t j = 0; out && out[j]; j++)
        if (out[j] != ' ' && out[j] != '\t')
            out[k++] = out[j];
    if (out)
        out[k] = '\0';
    return out;
}

static bool kw_pc_import(kw_pc *c, kw_pc_mod *m, const kw_pc_tok *t, size_t n) {
    size_t i = 1;
    if (kw_pc_is(&t[0], "import")) {
        while (i < n) {
            size_t s = i;
            const char *mod = kw_pc_dotted(&c->a, t, n, &i);
            if (!mod)
                return true;
            if (i + 1 < n && kw_pc_is(&t[i], "as") && t[i + 1].kind == 'n') {
                if (!kw_pc_add_bind(c, m, &t[i + 1], mod, NULL))
                    return false;
                i += 2;
            } else {
                kw_pc_tok first = t[s];
                const char *top = kw_arena_strndup(&c->a, first.s, first.n);
                if (!top || !kw_pc_add_bind(c, m, &first, top, NULL))
                    return false;
            }
            if (i < n && kw_pc_is(&t[i], ","))
                i++;
            else
                break;
        }
        return true;
    }
    /* from [.]*[dotted] import names */
    int level = 0;
    while (i < n && kw_pc_is(&t[i], "."))
        level++, i++;
    const char *mod = (i < n && !kw_pc_is(&t[i], "import")) ? kw_pc_dotted(&c->a, t, n, &i) : "";
    if (!mod || i >= n || !kw_pc_is(&t[i], "import"))
        return true;
    i++;
    if (level) {
        const char *base = kw_pc_relbase(&c->a, m, level);
        if (!base)
            return true;
        mod = kw_arena_printf(&c->a, "%s%s%s", base, base[0] && mod[0] ? "." : "", mod);
        if (!mod)
            return false;
    }
    for (; i < n; i++) {
        if (kw_pc_is(&t[i], "*")) {
            const char **s = KW_PUSH(&c->a, m->stars);
            if (!s)
                return false;
            *s = mod;
        } else if (t[i].kind == 'n') {
            const kw_pc_tok *as = i + 2 < n && kw_pc_is(&t[i + 1], "as") ? &t[i + 2] : &t[i];
            if (!kw_pc_add_bind(c, m, as, mod, &t[i]))
                return false;
            if (as != &t[i])
                i += 2;
        }
    }
    return true;
}

/* ---- scopes and calls ----------------------------------------------------------------------- */

typedef struct kw_pc_scope {
    int indent;
    bool cls;
    const char *name;
    int line;
} kw_pc_scope;

static bool kw_pc_calls(kw_pc *c, size_t mod, const kw_pc_scope *sc, int nsc, const kw_pc_tok *t,
                        size_t n) {
    int d = 0; /* the outermost def */
    while (d < nsc && sc[d].cls)
        d++;
    if (d == nsc)
        return true; /* module or class level: no caller */
    const char *caller = sc[d].name;
    for (int k = d - 1; k >= 0 && caller; k--)
        caller = kw_arena_printf(&c->a, "%s.%s", sc[k].name, caller);
    if (!caller)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (t[i].kind != 'n' || (i > 0 && kw_pc_is(&t[i - 1], ".")))
            continue;
        kw_pc_call call = {mod, caller, d == 0, sc[d].line, t[i].line, {0}, 0};
        size_t j = i;
        while (call.nchain < 6) {
            call.chain[call.nchain] = kw_arena_strndup(&c->a, t[j].s, t[j].n);
            if (!call.chain[call.nchain++])
                return false;
            if (j + 2 < n && kw_pc_is(&t[j + 1], ".") && t[j + 2].kind == 'n')
                j += 2;
            else
                break;
        }
        if (j + 1 < n && kw_pc_is(&t[j + 1], "(")) {
            kw_pc_call *slot = KW_PUSH(&c->a, c->calls);
            if (!slot)
                return false;
            *slot = call;
        }
        i = j;
    }
    return true;
}

static bool kw_pc_file(kw_pc *c, size_t mod, const kw_py_src *src) {
    kw_pc_toks toks = {0};
    kw_arena tmp;
    kw_arena_init(&tmp);
    kw_pc_scope sc[64];
    int nsc = 0, line = 1, indent;
    size_t at = 0;
    bool oom = false, ok = true;
    while (ok && kw_pc_line(&tmp, src->text, src->len, &at, &line, &toks, &indent, &oom)) {
        const kw_pc_tok *t = toks.v;
        size_t n = toks.n;
        while (nsc > 0 && sc[nsc - 1].indent >= indent)
            nsc--;
        size_t k = kw_pc_is(&t[0], "async") && n > 1 ? 1 : 0;
        bool def = kw_pc_is(&t[k], "def"), cls = kw_pc_is(&t[0], "class");
        if ((def || cls) && k + 1 < n && t[k + 1].kind == 'n') {
            const kw_pc_tok *name = &t[k + 1];
            char *s = kw_arena_strndup(&c->a, name->s, name->n);
            if (!s)
                ok = false;
            else if (def && nsc == 0 && kw_symmap_put(&c->mods.v[mod].defs, s, 1) != KW_OK)
                ok = false;
            if (nsc < 64)
                sc[nsc++] = (kw_pc_scope){indent, cls, s, name->line};
        } else if (kw_pc_is(&t[0], "import") || kw_pc_is(&t[0], "from")) {
            ok = kw_pc_import(c, &c->mods.v[mod], t, n);
        } else if (!kw_pc_is(&t[0], "@")) {
            ok = kw_pc_calls(c, mod, sc, nsc, t, n);
        }
    }
    kw_arena_free(&tmp);
    return ok && !oom;
}

/* ---- resolution ----------------------------------------------------------------------------- */

static kw_pc_val kw_pc_name(kw_pc *c, const char *module, const char *name, int depth);

static kw_pc_val kw_pc_attr(kw_pc *c, kw_pc_val v, const char *name, int depth) {
    kw_pc_val none = {0, NULL, NULL};
    if (v.kind != 'm')
        return none;
    char *sub = kw_arena_printf(&c->a, "%s%s%s", v.module, v.module[0] ? "." : "", name);
    if (sub && kw_pc_mod_get(c, sub))
        return (kw_pc_val){'m', sub, NULL};
    return kw_pc_name(c, v.module, name, depth + 1);
}

static kw_pc_val kw_pc_lookup(kw_pc *c, const kw_pc_mod *m, const char *name, int depth) {
    kw_pc_val none = {0, NULL, NULL};
    if (kw_symmap_get(&m->defs, name))
        return (kw_pc_val){'d', m->name, name};
    for (size_t i = m->binds.n; i-- > 0;) { /* the last binding of a name wins */
        const kw_pc_bind *b = &m->binds.v[i];
        if (strcmp(b->name, name))
            continue;
        if (!b->attr)
            return (kw_pc_val){'m', b->module, NULL};
        return kw_pc_attr(c, (kw_pc_val){'m', b->module, NULL}, b->attr, depth);
    }
    if (name[0] == '_')
        return none; /* star imports skip private names */
    for (size_t i = 0; i < m->stars.n; i++) {
        kw_pc_val v = kw_pc_name(c, m->stars.v[i], name, depth + 1);
        if (v.kind)
            return v;
    }
    return none;
}

/* What name means in module (memoized; a cycle resolves to nothing). */
static kw_pc_val kw_pc_name(kw_pc *c, const char *module, const char *name, int depth) {
    kw_pc_val none = {0, NULL, NULL};
    const kw_pc_mod *m = kw_pc_mod_get(c, module);
    if (!m || depth > KW_PC_DEPTH)
        return none;
    char *key = kw_arena_printf(&c->a, "%s\1%s", module, name);
    size_t *at = key ? kw_symmap_get(&c->memo, key) : NULL;
    if (at)
        return c->vals.v[*at];
    kw_pc_val *slot = KW_PUSH(&c->a, c->vals);
    if (!key || !slot || kw_symmap_put(&c->memo, key, c->vals.n - 1) != KW_OK)
        return none;
    size_t idx = c->vals.n - 1; /* "nothing" while it is being resolved */
    kw_pc_val v = kw_pc_lookup(c, m, name, depth);
    c->vals.v[idx] = v;
    return v;
}

static kw_pc_val kw_pc_call_target(kw_pc *c, const kw_pc_call *call) {
    kw_pc_val v = kw_pc_name(c, c->mods.v[call->mod].name, call->chain[0], 0);
    for (int k = 1; k < call->nchain && v.kind; k++)
        v = kw_pc_attr(c, v, call->chain[k], 0);
    return v;
}

/* ---- callers of one op ---------------------------------------------------------------------- */

static bool kw_pc_private(const char *module, const char *name) {
    for (const char *s = name; s; s = strchr(s, '.'), s = s ? s + 1 : NULL)
        if (s[0] == '_')
            return true;
    for (const char *s = module; s && *s; s = strchr(s, '.'), s = s ? s + 1 : NULL)
        if (s[0] == '_')
            return true;
    return false;
}

typedef struct kw_pc_target {
    const char *module, *name;
    const char *via; /* the private function the public callers of this target call */
} kw_pc_target;

static bool kw_pc_add_caller(kw_arena *a, kw_py_op *op, const kw_pc_mod *m, const kw_pc_call *call,
                             const char *via) {
    for (size_t i = 0; i < op->callers.n; i++)
        if (!strcmp(op->callers.v[i].name, call->caller) &&
            !strcmp(op->callers.v[i].module, m->name))
            return true;
    kw_py_caller *r = KW_PUSH(a, op->callers); /* strings into the ops' arena */
    if (!r)
        return false;
    *r = (kw_py_caller){kw_arena_strdup(a, call->caller),
                        kw_arena_strdup(a, m->name),
                        m->file,
                        call->def_line,
                        call->line,
                        kw_arena_strdup(a, via)};
    return r->name && r->module && (!via || r->via);
}

static int kw_pc_caller_cmp(const void *x, const void *y) {
    const kw_py_caller *a = x, *b = y;
    int c = strcmp(a->file, b->file);
    return c ? c : a->def_line - b->def_line;
}

static bool kw_pc_op(kw_pc *c, kw_py_ops *p, kw_py_op *op, const char *module) {
    KW_ARRAY(kw_pc_target) targets = {0};
    kw_pc_target *t0 = KW_PUSH(&c->a, targets);
    if (!t0)
        return false;
    *t0 = (kw_pc_target){module, op->def_name, NULL};
    size_t from = 0;
    for (int round = 0; round <= KW_PC_ROUNDS && from < targets.n; round++) {
        size_t to = targets.n;
        for (size_t ti = from; ti < to; ti++) {
            kw_pc_target tg = targets.v[ti];
            size_t *head = kw_symmap_get(&c->by_last, tg.name);
            for (size_t ci = head ? *head : 0; ci; ci = c->next[ci - 1]) {
                const kw_pc_call *call = &c->calls.v[ci - 1];
                kw_pc_val v = kw_pc_call_target(c, call);
                if (v.kind != 'd' || strcmp(v.module, tg.module) || strcmp(v.def, tg.name))
                    continue;
                const kw_pc_mod *m = &c->mods.v[call->mod];
                if (!strcmp(m->name, tg.module) && !strcmp(call->caller, tg.name))
                    continue; /* recursion */
                if (!kw_pc_private(m->name, call->caller)) {
                    if (!kw_pc_add_caller(&p->arena, op, m, call, ti ? tg.name : NULL))
                        return false;
                    continue;
                }
                if (!call->top || round == KW_PC_ROUNDS)
                    continue;
                bool seen = false;
                for (size_t k = 0; k < targets.n && !seen; k++)
                    seen = !strcmp(targets.v[k].module, m->name) &&
                           !strcmp(targets.v[k].name, call->caller);
                kw_pc_target *nt = seen ? NULL : KW_PUSH(&c->a, targets);
                if (!seen && !nt)
                    return false;
                if (nt)
                    *nt = (kw_pc_target){m->name, call->caller, NULL};
            }
        }
        from = to;
    }
    if (op->callers.n > 1)
        qsort(op->callers.v, op->callers.n, sizeof(kw_py_caller), kw_pc_caller_cmp);
    return true;
}

kw_status kw_py_find_callers(kw_py_ops *p, kw_err *err) {
    kw_pc c;
    memset(&c, 0, sizeof(c));
    kw_arena_init(&c.a);
    kw_symmap_init(&c.mod_of);
    kw_symmap_init(&c.memo);
    kw_symmap_init(&c.by_last);
    bool ok = true;
    const char *prefix = kw_pc_prefix(&c.a, p);
    for (size_t i = 0; i < p->srcs.n && ok; i++) {
        kw_pc_mod *m = KW_PUSH(&c.a, c.mods);
        if (!m)
            ok = false;
        else {
            kw_symmap_init(&m->defs);
            m->file = p->srcs.v[i].path;
            m->name = kw_pc_modname(&c.a, p, m->file, prefix, &m->package);
            ok = m->name && kw_symmap_put(&c.mod_of, m->name, i) == KW_OK;
        }
    }
    for (size_t i = 0; i < p->srcs.n && ok; i++)
        ok = kw_pc_file(&c, i, &p->srcs.v[i]);
    c.next = ok && c.calls.n ? kw_arena_alloc(&c.a, c.calls.n * sizeof(size_t)) : NULL;
    ok = ok && (c.next || !c.calls.n);
    for (size_t i = c.calls.n; i-- > 0 && ok;) { /* lists in call order */
        const kw_pc_call *call = &c.calls.v[i];
        size_t *head = kw_symmap_get(&c.by_last, call->chain[call->nchain - 1]);
        c.next[i] = head ? *head : 0;
        ok = kw_symmap_put(&c.by_last, call->chain[call->nchain - 1], i + 1) == KW_OK;
    }
    for (size_t o = 0; o < p->ops.n && ok; o++) {
        kw_py_op *op = &p->ops.v[o];
        for (size_t i = 0; i < c.mods.n && op->def_name; i++)
            if (!strcmp(c.mods.v[i].file, op->file)) {
                ok = kw_pc_op(&c, p, op, c.mods.v[i].name);
                break;
            }
    }
    for (size_t i = 0; i < c.mods.n; i++)
        kw_symmap_free(&c.mods.v[i].defs);
    kw_symmap_free(&c.mod_of);
    kw_symmap_free(&c.memo);
    kw_symmap_free(&c.by_last);
    kw_arena_free(&c.a);
    return ok ? KW_OK : kw_fail(err, "out of memory scanning Python callers");
}
