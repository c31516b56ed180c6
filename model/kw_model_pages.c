/* kw_model_pages.c: page names and a page's listings (kw_model_pages.h). */
#include "model/kw_model_pages.h"

#include <string.h>

#include "common/kw_symmap.h"

/* name with [A-Za-z0-9_.-] kept and runs of anything else as one '_', at
 * most 80 characters, no '_' or '.' at the end: into buf, its length. */
static size_t kw_model_pages_clean(const char *name, char buf[128]) {
    size_t n = 0;
    bool gap = false;
    for (const char *p = name; *p && n < 80; p++) {
        char ch = *p;
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
        if (keep) {
            buf[n++] = ch;
            gap = false;
        } else if (!gap && n) {
            buf[n++] = '_';
            gap = true;
        }
    }
    while (n && (buf[n - 1] == '_' || buf[n - 1] == '.'))
        n--;
    return n;
}

static const char *kw_model_pages_base(kw_arena *a, const kw_mkernel *mk, const char *ext) {
    char buf[128];
    size_t n = kw_model_pages_clean(mk->name, buf);
    unsigned h = 2166136261u;
    for (const char *p = mk->symbol; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    /* internal linkage: the symbol and the file name of the unit's source (one
     * page per unit's kernel, the same in every build directory) */
    const char *unit = mk->tu ? mk->tu->tu.source ? mk->tu->tu.source : mk->tu->sidecar : NULL;
    const char *slash = unit ? strrchr(unit, '/') : NULL;
    for (const char *p = slash ? slash + 1 : unit ? unit : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return kw_arena_printf(a, "%.*s-%08x%s", (int)n, buf, h, ext);
}

kw_status kw_model_pages_name(kw_model *m, const char *ext, kw_err *err) {
    size_t elen = strlen(ext);
    kw_symmap pages;
    kw_symmap_init(&pages);
    kw_status st = KW_OK;
    for (size_t i = 0; i < m->kernels.n && st == KW_OK; i++) {
        const char *base = kw_model_pages_base(&m->arena, &m->kernels.v[i], ext), *p = base;
        for (unsigned n = 2; p && kw_symmap_get(&pages, p); n++)
            p = kw_arena_printf(&m->arena, "%.*s-%u%s", (int)(strlen(base) - elen), base, n, ext);
        if (!p || kw_symmap_put(&pages, p, i) != KW_OK)
            st = kw_fail(err, "out of memory");
        else
            m->kernels.v[i].page = p;
    }
    kw_symmap_free(&pages);
    return st;
}

kw_status kw_model_pages_kernels(const kw_kfams *f, kw_arena *a, const char ***out, kw_err *err) {
    static const char ext[] = ".kernel.html";
    const char **names = kw_arena_alloc(a, (f->v.n ? f->v.n : 1) * sizeof(*names));
    kw_symmap pages;
    kw_symmap_init(&pages);
    kw_status st = names ? KW_OK : kw_fail(err, "out of memory");
    for (size_t i = 0; i < f->v.n && st == KW_OK; i++) {
        char buf[128];
        size_t n = kw_model_pages_clean(f->v.v[i].name, buf);
        unsigned h = 2166136261u;
        for (const char *p = f->v.v[i].name; *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
        const char *p = kw_arena_printf(a, "%.*s-%08x%s", (int)n, buf, h, ext);
        for (unsigned k = 2; p && kw_symmap_get(&pages, p); k++)
            p = kw_arena_printf(a, "%.*s-%08x-%u%s", (int)n, buf, h, k, ext);
        if (!p || kw_symmap_put(&pages, p, i) != KW_OK)
            st = kw_fail(err, "out of memory");
        else
            names[i] = p;
    }
    kw_symmap_free(&pages);
    *out = names;
    return st;
}

/* The model's kernel is the index's: its page's alone while it is written. */
static kw_kernel *kw_model_pages_kernel(const kw_model *m, size_t ki) {
    return (kw_kernel *)m->kernels.v[ki].k;
}

kw_status kw_model_pages_listings(const kw_model *m, unsigned reader, size_t ki, kw_arena *arena,
                                  kw_model_pages_saved **saved, kw_err *err) {
    return kw_index_kernel_listings(m->ix, reader, kw_model_pages_kernel(m, ki), arena, saved, err);
}

void kw_model_pages_listings_done(const kw_model *m, size_t ki, const kw_model_pages_saved *saved,
                                  kw_arena *arena) {
    kw_index_kernel_listings_done(kw_model_pages_kernel(m, ki), saved, arena);
}
