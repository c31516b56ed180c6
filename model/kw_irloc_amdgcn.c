/* kw_irloc_amdgcn.c: the Python line of each line of NAME.amdgcn (the
 * assembly LLVM wrote, kw_irloc.h): `.file N "dir" "name"` (or `.file N
 * "path"`) names file N; `.loc N LINE COL ...` sets the position of the
 * instructions after it (LINE 0: none), until the next `.loc`, a `.section`
 * directive or the `.Lfunc_end` label. An instruction is an indented line
 * whose first word starts with a letter or '_' (directives start with '.',
 * comments with ';', labels are not indented). The directive lines have no
 * position. */
#include <string.h>

#include "model/kw_irloc.h"

typedef KW_ARRAY(const char *) kw_as_files; /* by .file number */

#define KW_AS_MAX_FILE 100000L

static const char *kw_as_skip(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* A quoted string at p: its contents [*s, *s + *n), the end after it; NULL when none. */
static const char *kw_as_quoted(const char *p, const char *e, const char **s, size_t *n) {
    p = kw_as_skip(p, e);
    if (p >= e || *p != '"')
        return NULL;
    const char *q = p + 1;
    while (q < e && *q != '"')
        q += *q == '\\' && q + 1 < e ? 2 : 1;
    if (q >= e)
        return NULL;
    *s = p + 1;
    *n = (size_t)(q - p - 1);
    return q + 1;
}

static kw_status kw_as_file(kw_arena *a, const char *p, const char *e, kw_as_files *files,
                            kw_err *err) {
    const char *q, *s1, *s2;
    size_t n1, n2;
    long id = kw_irloc_num(kw_as_skip(p, e), e, &q);
    if (id < 0 || id >= KW_AS_MAX_FILE || !(q = kw_as_quoted(q, e, &s1, &n1)))
        return KW_OK;
    const char *path;
    if (kw_as_quoted(q, e, &s2, &n2)) /* "dir" "name" */
        path = s2[0] == '/' || !n1 ? kw_arena_strndup(a, s2, n2)
                                   : kw_arena_printf(a, "%.*s/%.*s", (int)n1, s1, (int)n2, s2);
    else
        path = kw_arena_strndup(a, s1, n1);
    if (!path)
        return kw_fail(err, "out of memory");
    while (files->n <= (size_t)id) {
        const char **x = KW_PUSH(a, *files);
        if (!x)
            return kw_fail(err, "out of memory");
        *x = NULL;
    }
    files->v[id] = path;
    return KW_OK;
}

kw_status kw_irloc_amdgcn(kw_arena *a, const char *text, size_t len, kw_irlocs *out, kw_err *err) {
    kw_as_files files = {0};
    const char *end = text + len, *cur = NULL;
    int cur_line = 0;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        const char *w = kw_as_skip(p, e), *q;
        const char *file = NULL;
        int line = 0;
        if (e - w > 6 && !memcmp(w, ".file", 5) && (w[5] == ' ' || w[5] == '\t')) {
            if (kw_as_file(a, w + 5, e, &files, err) != KW_OK)
                return KW_ERR;
        } else if (e - w > 5 && !memcmp(w, ".loc", 4) && (w[4] == ' ' || w[4] == '\t')) {
            long id = kw_irloc_num(kw_as_skip(w + 4, e), e, &q);
            long l = kw_irloc_num(kw_as_skip(q, e), e, &q);
            cur = id >= 0 && (size_t)id < files.n && l > 0 ? files.v[id] : NULL;
            cur_line = cur ? (int)l : 0;
        } else if ((e - w > 8 && !memcmp(w, ".section", 8)) ||
                   (e - p >= 11 && !memcmp(p, ".Lfunc_end", 10))) {
            cur = NULL;
            cur_line = 0;
        } else if (w > p && w < e &&
                   ((*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z') || *w == '_')) {
            file = cur;
            line = cur_line;
        }
        if (!kw_irloc_push(a, out, file, line))
            return kw_fail(err, "out of memory");
        p = nl ? nl + 1 : end;
    }
    return KW_OK;
}
