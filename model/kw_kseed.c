/* kw_kseed.c: the rows of the seed's known-kernel table (kw_kseed.h). */
#include "model/kw_kseed.h"

#include <string.h>

#include "model/kw_map.h"
#include "model/kw_python_entries.h"

/* Add (what, loc) to x, each once. */
static kw_status kw_kseed_at_add(kw_arena *a, kw_kseed_ats *x, const char *what, kw_loc loc) {
    for (size_t i = 0; i < x->n; i++)
        if (!strcmp(x->v[i].what, what) && x->v[i].loc.line == loc.line &&
            ((!x->v[i].loc.file && !loc.file) ||
             (x->v[i].loc.file && loc.file && !strcmp(x->v[i].loc.file, loc.file))))
            return KW_OK;
    kw_kseed_at *at = KW_PUSH(a, *x);
    if (!at)
        return KW_ERR;
    at->what = what;
    at->loc = loc;
    at->op = NULL;
    return KW_OK;
}

/* The code objects of ASM kernel mk: one path, or DIR/ *.co when the
 * family has several in DIR. */
static kw_status kw_kseed_co(kw_kseed_row *r, const kw_mkernel *mk, bool several, kw_arena *a) {
    for (size_t i = 0; i < mk->asm_code_objects.n; i++) {
        const char *co = mk->asm_code_objects.v[i];
        const char *slash = strrchr(co, '/');
        const char *shown =
            several && slash ? kw_arena_printf(a, "%.*s/*.co", (int)(slash - co), co) : co;
        kw_loc loc = {0};
        loc.file = shown;
        if (!shown || kw_kseed_at_add(a, &r->device, shown, loc) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

static kw_status kw_kseed_kernel(kw_kseed_row *r, kw_model *m, size_t ki, bool several, kw_arena *a,
                                 kw_err *err) {
    const kw_mkernel *mk = &m->kernels.v[ki];
    if (mk->is_asm) {
        r->is_asm = true;
        if (kw_kseed_co(r, mk, several, a) != KW_OK)
            return kw_fail(err, "out of memory");
    } else if (mk->k) {
        const kw_loc *def = kw_map_device(mk); /* a trampoline's: its functor's */
        if (def && kw_kseed_at_add(a, &r->device, "", *def) != KW_OK)
            return kw_fail(err, "out of memory");
    }
    for (size_t j = 0; j < mk->launches.n; j++) {
        kw_mpaths paths;
        if (kw_model_paths(m, mk->launches.v[j], a, &paths, err) != KW_OK)
            return KW_ERR;
        for (size_t p = 0; p < paths.v.n; p++) {
            const kw_mentry *me = &m->entries.v[paths.v.v[p].entry];
            for (size_t o = 0; m->py && o < me->ops.n; o++) {
                const kw_py_op *op = &m->py->ops.v[me->ops.v[o]];
                kw_loc loc = {0};
                loc.file = op->file;
                loc.line = op->def_line;
                if (kw_kseed_at_add(a, &r->host, op->def_name, loc) != KW_OK)
                    return kw_fail(err, "out of memory");
                kw_kseed_at *last = &r->host.v[r->host.n - 1];
                if (!strcmp(last->what, op->def_name) && last->loc.line == loc.line &&
                    op->def_name[0] == '_')
                    last->op = op;
                r->host_is_python = true;
            }
        }
    }
    return KW_OK;
}

/* Without a Python op: the C++ entry points reaching the kernels. */
static kw_status kw_kseed_entries(kw_kseed_row *r, kw_model *m, const size_t *ks, size_t n,
                                  kw_arena *a, kw_err *err) {
    for (size_t i = 0; i < n; i++) {
        const kw_mkernel *mk = &m->kernels.v[ks[i]];
        for (size_t j = 0; j < mk->launches.n; j++) {
            kw_mpaths paths;
            if (kw_model_paths(m, mk->launches.v[j], a, &paths, err) != KW_OK)
                return KW_ERR;
            for (size_t p = 0; p < paths.v.n; p++) {
                const kw_entry *e = m->entries.v[paths.v.v[p].entry].e;
                if (kw_kseed_at_add(a, &r->host, e->name ? e->name : "?", e->location) != KW_OK)
                    return kw_fail(err, "out of memory");
            }
        }
    }
    return KW_OK;
}

static kw_status kw_kseed_row_build(kw_kseed_row *r, kw_model *m, const kw_kfams *f, const char *q,
                                    kw_arena *a, kw_err *err) {
    kw_kfam_hits h;
    kw_kfam_match(f, m, q, NULL, NULL, a, &h);
    r->ninst = h.kernels.n;
    if (!h.kernels.n) {
        r->why = "no kernel matches";
        return KW_OK;
    }
    if (h.fams.n > 1) {
        r->why = kw_arena_printf(a, "names %zu kernels, e.g. %s and %s", h.fams.n,
                                 f->v.v[h.fams.v[0]].name, f->v.v[h.fams.v[1]].name);
        return r->why ? KW_OK : kw_fail(err, "out of memory");
    }
    for (size_t i = 0; i < h.kernels.n; i++)
        if (kw_kseed_kernel(r, m, h.kernels.v[i], h.kernels.n > 1, a, err) != KW_OK)
            return KW_ERR;
    if (!r->host.n)
        return kw_kseed_entries(r, m, h.kernels.v, h.kernels.n, a, err);
    return KW_OK;
}

/* The next comma-separated name of *p (its blanks around it not part of
 * it: "a, b"), in a; NULL past the last (*p then NULL) or for an empty one
 * (*oom when out of memory). */
static char *kw_kseed_next(const char **p, kw_arena *a, bool *oom) {
    const char *e = strchr(*p, ',');
    size_t n = e ? (size_t)(e - *p) : strlen(*p);
    const char *q = *p;
    while (n && *q == ' ')
        q++, n--;
    while (n && q[n - 1] == ' ')
        n--;
    *p = e ? e + 1 : NULL;
    char *name = n ? kw_arena_strndup(a, q, n) : NULL;
    *oom = n && !name;
    return name;
}

kw_status kw_kseed_build(kw_kseed *s, kw_model *m, const kw_kfams *f, const char *names,
                         kw_arena *a, kw_err *err) {
    memset(s, 0, sizeof(*s));
    for (const char *p = names; p && *p;) {
        bool oom;
        char *q = kw_kseed_next(&p, a, &oom);
        if (!q && !oom)
            continue;
        kw_kseed_row *r = q ? KW_PUSH(a, s->rows) : NULL;
        if (!r)
            return kw_fail(err, "out of memory");
        memset(r, 0, sizeof(*r));
        r->query = q;
        if (kw_kseed_row_build(r, m, f, q, a, err) != KW_OK)
            return KW_ERR;
    }
    return s->rows.n ? KW_OK : kw_fail(err, "map: --kernels names no kernel ('%s')", names);
}

kw_status kw_kseed_symbols(const kw_model *m, const kw_kfams *f, const char *names, kw_arena *a,
                           kw_kseed_syms *out, kw_err *err) {
    memset(out, 0, sizeof(*out));
    for (const char *p = names; p && *p;) {
        bool oom;
        char *q = kw_kseed_next(&p, a, &oom);
        if (oom)
            return kw_fail(err, "out of memory");
        kw_kfam_hits h;
        if (q)
            kw_kfam_match(f, m, q, NULL, NULL, a, &h);
        for (size_t i = 0; q && i < h.kernels.n; i++) {
            const char **slot = KW_PUSH(a, *out);
            if (!slot || !(*slot = kw_arena_strdup(a, m->kernels.v[h.kernels.v[i]].symbol)))
                return kw_fail(err, "out of memory");
        }
    }
    return KW_OK;
}
