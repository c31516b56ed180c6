/* kw_irloc_llir.c: the Python line of each line of NAME.llir (LLVM IR text,
 * kw_irloc.h). Two passes: the metadata nodes `!N = [distinct] !DIKind(...)`
 * a position needs (DILocation's line and scope, the file of a
 * DISubprogram, DILexicalBlock or DILexicalBlockFile, DIFile's directory and
 * filename), then each line's last `!dbg !N`: an instruction's DILocation
 * (line 0: none) in its scope's file, a `define`'s DISubprogram at its line.
 * The metadata lines themselves have no position. An inlined DILocation is
 * the innermost position (its `inlinedAt` is not followed), as the line table
 * LLVM makes of it has. */
#include <string.h>

#include "model/kw_irloc.h"

typedef struct kw_ll_node {
    char kind;        /* 'L' DILocation, 'S' a scope with a file, 'F' DIFile, 0 other */
    long line;        /* L, S */
    long ref;         /* L: scope; S: file; -1 none */
    const char *file; /* F: directory/filename (filename alone when absolute) */
} kw_ll_node;

typedef KW_ARRAY(kw_ll_node) kw_ll_nodes;

#define KW_LL_MAX_NODE 4000000L

/* The value of "key: " in the node's fields [p, e): a number, or !N as N. */
static long kw_ll_field(const char *p, const char *e, const char *key) {
    size_t n = strlen(key);
    for (const char *q = p; q + n < e; q++)
        if ((q == p || q[-1] == '(' || q[-1] == ' ') && !memcmp(q, key, n)) {
            const char *v = q + n, *ve;
            if (v < e && *v == '!')
                v++;
            return kw_irloc_num(v, e, &ve);
        }
    return -1;
}

/* The string value of "key: \"...\"" in [p, e); NULL when absent. */
static const char *kw_ll_str(const char *p, const char *e, const char *key, size_t *len) {
    size_t n = strlen(key);
    for (const char *q = p; q + n < e; q++)
        if ((q[-1] == '(' || q[-1] == ' ') && !memcmp(q, key, n) && q[n] == '"') {
            const char *s = q + n + 1, *t = memchr(s, '"', (size_t)(e - s));
            if (!t)
                return NULL;
            *len = (size_t)(t - s);
            return s;
        }
    return NULL;
}

static kw_status kw_ll_node_line(kw_arena *a, const char *p, const char *e, kw_ll_nodes *nodes,
                                 kw_err *err) {
    const char *q;
    long id = kw_irloc_num(p + 1, e, &q);
    if (id < 0 || id >= KW_LL_MAX_NODE || e - q < 4 || memcmp(q, " = ", 3))
        return KW_OK;
    q += 3;
    if (e - q > 9 && !memcmp(q, "distinct ", 9))
        q += 9;
    kw_ll_node nd = {0, -1, -1, NULL};
    if (e - q > 12 && !memcmp(q, "!DILocation(", 12)) {
        nd.kind = 'L';
        nd.line = kw_ll_field(q + 12, e, "line: ");
        nd.ref = kw_ll_field(q + 12, e, "scope: ");
    } else if ((e - q > 14 && !memcmp(q, "!DISubprogram(", 14)) ||
               (e - q > 16 && !memcmp(q, "!DILexicalBlock(", 16)) ||
               (e - q > 20 && !memcmp(q, "!DILexicalBlockFile(", 20))) {
        const char *f = memchr(q, '(', (size_t)(e - q)) + 1;
        nd.kind = 'S';
        nd.line = kw_ll_field(f, e, "line: ");
        nd.ref = kw_ll_field(f, e, "file: ");
    } else if (e - q > 8 && !memcmp(q, "!DIFile(", 8)) {
        size_t fl = 0, dl = 0;
        const char *fn = kw_ll_str(q + 8, e, "filename: ", &fl);
        const char *dir = kw_ll_str(q + 8, e, "directory: ", &dl);
        if (fn) {
            nd.kind = 'F';
            nd.file = fn[0] == '/' || !dir || !dl
                          ? kw_arena_strndup(a, fn, fl)
                          : kw_arena_printf(a, "%.*s/%.*s", (int)dl, dir, (int)fl, fn);
            if (!nd.file)
                return kw_fail(err, "out of memory");
        }
    }
    if (!nd.kind)
        return KW_OK;
    while (nodes->n <= (size_t)id) {
        kw_ll_node *x = KW_PUSH(a, *nodes);
        if (!x)
            return kw_fail(err, "out of memory");
        x->kind = 0;
    }
    nodes->v[id] = nd;
    return KW_OK;
}

kw_status kw_irloc_llir(kw_arena *a, const char *text, size_t len, kw_irlocs *out, kw_err *err) {
    kw_ll_nodes nodes = {0};
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        if (*p == '!' && kw_ll_node_line(a, p, e, &nodes, err) != KW_OK)
            return KW_ERR;
        p = nl ? nl + 1 : end;
    }
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *q;
        const char *file = NULL;
        long line = 0;
        const char *d = *p == '!' ? NULL : kw_irloc_last(p, e, "!dbg !");
        long id = d ? kw_irloc_num(d + 6, e, &q) : -1;
        if (id >= 0 && (size_t)id < nodes.n) {
            const kw_ll_node *nd = &nodes.v[id];
            if (nd->kind == 'L' && nd->ref >= 0 && (size_t)nd->ref < nodes.n) {
                line = nd->line;
                nd = &nodes.v[nd->ref]; /* the scope */
            } else if (nd->kind == 'S') {
                line = nd->line;
            } else {
                nd = NULL;
            }
            if (nd && nd->kind == 'S' && nd->ref >= 0 && (size_t)nd->ref < nodes.n &&
                nodes.v[nd->ref].kind == 'F')
                file = nodes.v[nd->ref].file;
        }
        if (!kw_irloc_push(a, out, file, file ? (int)line : 0))
            return kw_fail(err, "out of memory");
        p = nl ? nl + 1 : end;
    }
    return KW_OK;
}
