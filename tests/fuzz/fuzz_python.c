/* fuzz_python.c: the fuzz target of the Python-source scanner
 * (model/kw_python_entries.c: decorated ops; kw_python_callers.c: their
 * public callers across modules), with the embedded annotations' decorator
 * rules. An input is a small package: files separated by '\0', each a first
 * line naming it (relative, "ops/norm.py") and its text. Checked on the
 * result: every line number (decorator, def, callers' def and call lines)
 * lies within its file, and a def is not above its decorator. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_annot.h"
#include "kw_fuzz.h"
#include "model/kw_python_entries.h"

#define ROOT "/kwalk-fuzz/pkg"

static kw_annot annot;
static bool have_annot;

static bool scanned(const kw_py_ops *p, const char *path) {
    for (size_t i = 0; i < p->srcs.n; i++)
        if (!strcmp(p->srcs.v[i].path, path))
            return true;
    return false;
}

/* Lines of each scanned file (counted here, from the text), by path. */
typedef struct lines {
    const kw_py_ops *p;
    int *n;
} lines;

static int lines_of(const lines *l, const char *path) {
    for (size_t i = 0; i < l->p->srcs.n; i++)
        if (l->p->srcs.v[i].path == path || !strcmp(l->p->srcs.v[i].path, path))
            return l->n[i];
    return 0;
}

static void check(const kw_py_ops *p) {
    lines l = {p, calloc(p->srcs.n + 1, sizeof(int))};
    KW_FUZZ_CHECK(l.n != NULL, "out of memory");
    for (size_t i = 0; i < p->srcs.n; i++) {
        l.n[i] = 1;
        for (size_t j = 0; j < p->srcs.v[i].len; j++)
            l.n[i] += p->srcs.v[i].text[j] == '\n';
    }
    for (size_t i = 0; i < p->ops.n; i++) {
        const kw_py_op *op = &p->ops.v[i];
        int n = lines_of(&l, op->file);
        KW_FUZZ_CHECK(n > 0, "op %zu in a file not scanned", i);
        KW_FUZZ_CHECK(op->decorator_line >= 1 && op->decorator_line <= n, "decorator line %d of %d",
                      op->decorator_line, n);
        if (op->def_name)
            KW_FUZZ_CHECK(op->def_line >= op->decorator_line && op->def_line <= n,
                          "def line %d after decorator line %d, of %d", op->def_line,
                          op->decorator_line, n);
        for (size_t j = 0; j < op->callers.n; j++) {
            const kw_py_caller *c = &op->callers.v[j];
            int m = lines_of(&l, c->file);
            KW_FUZZ_CHECK(m > 0 && c->def_line >= 1 && c->def_line <= m && c->call_line >= 1 &&
                              c->call_line <= m,
                          "caller %s: def line %d, call line %d, of %d", c->name, c->def_line,
                          c->call_line, m);
        }
    }
    free(l.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kw_err err;
    if (!have_annot) {
        KW_FUZZ_CHECK(kw_annot_load(&annot, &err) == KW_OK, "annotations: %s", err.msg);
        have_annot = true;
    }
    kw_py_ops p;
    kw_py_ops_init(&p);
    KW_FUZZ_CHECK(kw_py_load_rules(&p, &annot, &err) == KW_OK, "rules: %s", err.msg);
    p.root = ROOT;
    const char *t = (const char *)data, *end = t + size;
    for (int k = 0; t <= end && k < 64; k++) {
        const char *nul = memchr(t, '\0', (size_t)(end - t));
        const char *stop = nul ? nul : end;
        const char *nl = memchr(t, '\n', (size_t)(stop - t));
        const char *body = nl ? nl + 1 : stop;
        char path[256];
        int namelen = (int)((nl ? nl : stop) - t);
        if (namelen > 0 && namelen < 200)
            snprintf(path, sizeof path, ROOT "/%.*s", namelen, t);
        if (namelen <= 0 || namelen >= 200 || scanned(&p, path)) /* unnamed or seen */
            snprintf(path, sizeof path, ROOT "/m%d.py", k);
        /* a path already taken ("m3.py" named by an earlier file): the part is left out */
        if (!scanned(&p, path) &&
            kw_py_scan_buffer(&p, path, body, (size_t)(stop - body), &err) != KW_OK)
            break;
        if (!nul)
            break;
        t = nul + 1;
    }
    if (kw_py_find_callers(&p, &err) == KW_OK)
        check(&p);
    kw_py_ops_free(&p);
    return 0;
}
