/* kw_irview.c: builds the IR view of a Triton specialization (kw_irview.h):
 * reads the four stage files of its cache record, parses each line's
 * position with the stage's parser (kw_irloc_*.c), lists the files, maps
 * them to where they are now and picks the source lines to show. */
#include <stdlib.h>
#include <string.h>

#include "common/kw_fs.h"
#include "model/kw_irloc.h"
#include "model/kw_irview.h"
#include "model/kw_pysrc.h"

typedef kw_status (*kw_irv_parser)(kw_arena *, const char *, size_t, kw_irlocs *, kw_err *);

static const struct {
    const char *name, *ext;
    kw_irv_parser parse;
} kw_irv_kinds[KW_IRVIEW_NSTAGES] = {{"TTIR", ".ttir", kw_irloc_mlir},
                                     {"TTGIR", ".ttgir", kw_irloc_mlir},
                                     {"LLIR", ".llir", kw_irloc_llir},
                                     {"AMDGCN", ".amdgcn", kw_irloc_amdgcn}};

static bool kw_irv_ends(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

/* The file of the record that ends with ext (the last, sorted: one per folder). */
static const char *kw_irv_stage_path(const kw_triton *t, const char *ext) {
    const char *p = NULL;
    for (size_t i = 0; i < t->files.n; i++)
        if (t->files.v[i] && kw_irv_ends(t->files.v[i], ext))
            p = t->files.v[i];
    return p;
}

static int kw_irv_file(kw_irview *v, const char *ir, kw_err *err) {
    for (size_t i = 0; i < v->files.n; i++)
        if (!strcmp(v->files.v[i].ir, ir))
            return (int)i;
    kw_irview_file *f = KW_PUSH(&v->arena, v->files);
    if (!f)
        return kw_fail(err, "out of memory"), -2;
    memset(f, 0, sizeof *f);
    f->ir = ir;
    f->path = ir;
    return (int)(v->files.n - 1);
}

/* The prefix the kernel's file moved by: the IR's path of it (the one whose
 * last component is the index's file's) against the index's; the longest
 * common tail of whole components is kept. */
static void kw_irv_map(kw_irview *v, const kw_kernel *k) {
    const char *now = k->location.file;
    if (!now)
        return;
    const char *base = strrchr(now, '/');
    base = base ? base + 1 : now;
    const char *from = NULL, *to = NULL;
    size_t nfrom = 0, nto = 0;
    for (size_t i = 0; i < v->files.n && !from; i++) {
        const char *ir = v->files.v[i].ir;
        if (!kw_irv_ends(ir, base) || !strcmp(ir, now))
            continue;
        size_t a = strlen(ir), b = strlen(now), t = 0;
        while (t < a && t < b && ir[a - 1 - t] == now[b - 1 - t])
            t++;
        while (t > 0 && t < a && t < b && ir[a - t] != '/') /* back to a component */
            t--;
        if (t == 0 || t == a || t == b)
            continue;
        from = ir, nfrom = a - t;
        to = now, nto = b - t;
    }
    for (size_t i = 0; i < v->files.n && from; i++) {
        kw_irview_file *f = &v->files.v[i];
        if (!strncmp(f->ir, from, nfrom) && f->ir[nfrom] == '/') {
            char *p = kw_arena_printf(&v->arena, "%.*s%s", (int)nto, to, f->ir + nfrom);
            if (p)
                f->path = p;
        }
    }
}

static int kw_irv_cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The runs of lines shown in file fi: around every line a stage names, and
 * the function's own lines [def_first, def_last] (0: none). */
static kw_status kw_irv_runs(kw_irview *v, int fi, int nlines, int def_first, int def_last,
                             kw_err *err) {
    KW_ARRAY(int) want = {0};
    for (int s = 0; s < KW_IRVIEW_NSTAGES; s++) {
        const kw_irview_stage *st = &v->stages[s];
        for (size_t i = 0; i < st->nlines; i++)
            if (st->file[i] == fi) {
                int *x = KW_PUSH(&v->arena, want);
                if (!x)
                    return kw_fail(err, "out of memory");
                *x = st->line[i];
            }
    }
    if (!want.n && !def_first)
        return KW_OK;
    if (want.n)
        qsort(want.v, want.n, sizeof *want.v, kw_irv_cmp_int);
    kw_irview_file *f = &v->files.v[fi];
    int first = 0, last = -1;
    size_t i = 0;
    for (;;) {
        /* the next interval in line order: a named line's, or the def's */
        int a, b;
        if (def_first && (i == want.n || def_first <= want.v[i] - 2)) {
            a = def_first, b = def_last;
            def_first = 0;
        } else if (i < want.n) {
            a = want.v[i] - 2, b = want.v[i] + 2;
            i++;
        } else {
            break;
        }
        if (a < 1)
            a = 1;
        if (b > nlines)
            b = nlines;
        if (a > b)
            continue;
        if (last >= 0 && a <= last + 6) {
            if (b > last)
                last = b;
            continue;
        }
        if (last >= 0) {
            int *r = KW_PUSH(&v->arena, f->runs), *r2 = r ? KW_PUSH(&v->arena, f->runs) : NULL;
            if (!r2)
                return kw_fail(err, "out of memory");
            f->runs.v[f->runs.n - 2] = first, f->runs.v[f->runs.n - 1] = last;
        }
        first = a, last = b;
    }
    if (last >= 0) {
        int *r = KW_PUSH(&v->arena, f->runs), *r2 = r ? KW_PUSH(&v->arena, f->runs) : NULL;
        if (!r2)
            return kw_fail(err, "out of memory");
        f->runs.v[f->runs.n - 2] = first, f->runs.v[f->runs.n - 1] = last;
    }
    return KW_OK;
}

kw_status kw_irview_build(kw_irview *v, const kw_kernel *k, kw_srcs *srcs, kw_err *err) {
    memset(v, 0, sizeof *v);
    kw_arena_init(&v->arena);
    const kw_triton *t = k->triton;
    for (int s = 0; s < KW_IRVIEW_NSTAGES; s++) {
        kw_irview_stage *st = &v->stages[s];
        st->name = kw_irv_kinds[s].name;
        st->ext = kw_irv_kinds[s].ext;
        st->path = t ? kw_irv_stage_path(t, st->ext) : NULL;
        if (!st->path) {
            st->why = "the index names no such file of the cache folder";
            continue;
        }
        char *text = NULL;
        size_t len = 0;
        kw_err e2;
        if (kw_fs_read_as(st->path, KW_FS_TEXT, &text, &len, &e2) != KW_OK) {
            st->why = kw_arena_strdup(&v->arena, e2.msg);
            continue;
        }
        char *kept = kw_arena_strndup(&v->arena, text, len);
        free(text);
        kw_irlocs locs = {0};
        if (!kept || kw_irv_kinds[s].parse(&v->arena, kept, len, &locs, err) != KW_OK)
            return kept ? KW_ERR : kw_fail(err, "out of memory");
        st->text = kept;
        st->len = len;
        st->nlines = locs.n;
        st->file = kw_arena_alloc(&v->arena, (locs.n + 1) * sizeof(int));
        st->line = kw_arena_alloc(&v->arena, (locs.n + 1) * sizeof(int));
        if (!st->file || !st->line)
            return kw_fail(err, "out of memory");
        for (size_t i = 0; i < locs.n; i++) {
            st->file[i] = -1;
            st->line[i] = 0;
            if (!locs.v[i].file)
                continue;
            int fi = kw_irv_file(v, locs.v[i].file, err);
            if (fi < -1)
                return KW_ERR;
            st->file[i] = fi;
            st->line[i] = locs.v[i].line;
        }
    }
    kw_irv_map(v, k);
    for (size_t i = 0; i < v->files.n; i++) {
        kw_irview_file *f = &v->files.v[i];
        f->src = kw_src_get(srcs, f->path);
        if (!f->src)
            return kw_fail(err, "out of memory");
        if (!f->src->ok)
            continue;
        int df = 0, dl = 0;
        if (k->location.file && !strcmp(f->path, k->location.file) && k->location.line > 0) {
            const char *why;
            dl = kw_py_def_end(f->src, k->location.line, &why);
            df = dl ? k->location.line : 0;
        }
        if (kw_irv_runs(v, (int)i, f->src->nlines, df, dl ? dl : 0, err) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

void kw_irview_free(kw_irview *v) {
    kw_arena_free(&v->arena);
}
