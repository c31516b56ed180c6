/* kw_kfamily.c: grouping instantiations into kernels and matching the names
 * people type for them (kw_kfamily.h). */
#include "model/kw_kfamily.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_symmap.h"
#include "model/kw_pick.h"

const char *kw_kfam_kind_name(kw_kfam_kind k) {
    switch (k) {
    case KW_KFAM_TEMPLATE:
        return "template";
    case KW_KFAM_TRAMPOLINE:
        return "kernel run by a trampoline";
    case KW_KFAM_ASM:
        return "ASM kernels";
    case KW_KFAM_TRITON:
        return "Triton function";
    default:
        return "kernel";
    }
}

const char *kw_kfam_last(const char *name) {
    const char *last = name;
    int depth = 0;
    for (const char *c = name; *c; c++) {
        if (*c == '<' || *c == '(')
            depth++;
        else if ((*c == '>' || *c == ')') && depth > 0)
            depth--;
        else if (!depth && c[0] == ':' && c[1] == ':')
            last = c + 2;
    }
    return last;
}

/* ---- ASM families: the kernels one launch can run, joined ------------------------------------ */

static size_t kw_uf_root(size_t *up, size_t i) {
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* The name of an ASM family: the table its launches pick rows from, else
 * the common prefix of its kernels' names (at least 4 characters) with a
 * '*', else the first kernel's name. */
static const char *kw_asm_fam_name(const kw_model *m, const kw_kfam *fam, kw_arena *a) {
    const kw_mkernel *first = &m->kernels.v[fam->kernels.v[0]];
    for (size_t j = 0; j < first->launches.n; j++) {
        const kw_launch *l = m->launches.v[first->launches.v[j]].l;
        if (l->asm_choices.n && l->asm_choices.v[0].table)
            return kw_arena_printf(a, "%s (%s table)", l->asm_choices.v[0].table,
                                   l->loader ? l->loader : "loader");
    }
    if (fam->kernels.n < 2)
        return first->name;
    const char *p = first->name;
    size_t n = strlen(p);
    for (size_t i = 1; i < fam->kernels.n; i++) {
        const char *q = m->kernels.v[fam->kernels.v[i]].name;
        size_t k = 0;
        while (k < n && q[k] == p[k])
            k++;
        n = k;
    }
    return n >= 4 ? kw_arena_printf(a, "%.*s*", (int)n, p) : first->name;
}

/* ---- building -------------------------------------------------------------------------------- */

/* The key and name of kernel i's family (not an ASM one). */
static const char *kw_fam_key(const kw_model *m, const kw_mkernel *mk, kw_kfam_kind *kind,
                              const char **via) {
    const kw_mgroup *g = &m->groups.v[mk->group];
    *via = NULL;
    if (g->runs) {
        *kind = KW_KFAM_TRAMPOLINE;
        *via = g->key;
        return g->runs;
    }
    if (mk->k && mk->k->language && !strcmp(mk->k->language, "triton"))
        *kind = KW_KFAM_TRITON;
    else
        *kind = mk->k && mk->k->template_name ? KW_KFAM_TEMPLATE : KW_KFAM_KERNEL;
    return g->key;
}

static int kw_fam_cmp(const void *x, const void *y) {
    const kw_kfam *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (int)a->kind - (int)b->kind;
}

static kw_status kw_fam_add(kw_kfams *f, kw_arena *a, size_t fam, size_t k) {
    size_t *slot = KW_PUSH(a, f->v.v[fam].kernels);
    if (!slot)
        return KW_ERR;
    *slot = k;
    return KW_OK;
}

kw_status kw_kfams_build(kw_kfams *f, const kw_model *m, kw_arena *a, kw_err *err) {
    memset(f, 0, sizeof(*f));
    size_t nk = m->kernels.n;
    f->of = kw_arena_alloc(a, (nk ? nk : 1) * sizeof(size_t));
    size_t *up = malloc((nk ? nk : 1) * sizeof(size_t));
    size_t *by_launch = malloc((m->launches.n ? m->launches.n : 1) * sizeof(size_t));
    kw_symmap fam_of;
    kw_symmap_init(&fam_of);
    kw_status st = f->of && up && by_launch ? KW_OK : KW_ERR;
    /* ASM kernels one launch runs are one family */
    for (size_t i = 0; st == KW_OK && i < m->launches.n; i++)
        by_launch[i] = KW_NONE;
    for (size_t i = 0; st == KW_OK && i < nk; i++) {
        up[i] = i;
        const kw_mkernel *mk = &m->kernels.v[i];
        if (!mk->is_asm)
            continue;
        for (size_t j = 0; j < mk->launches.n; j++) {
            size_t li = mk->launches.v[j];
            if (by_launch[li] == KW_NONE)
                by_launch[li] = i;
            else
                up[kw_uf_root(up, i)] = kw_uf_root(up, by_launch[li]);
        }
    }
    for (size_t i = 0; st == KW_OK && i < nk; i++) {
        const kw_mkernel *mk = &m->kernels.v[i];
        kw_kfam_kind kind = KW_KFAM_ASM;
        const char *via = NULL, *name;
        char *key;
        if (mk->is_asm) {
            name = NULL;
            key = kw_arena_printf(a, "\x01asm %zu", kw_uf_root(up, i));
        } else {
            name = kw_fam_key(m, mk, &kind, &via);
            key = kw_arena_printf(a, "%d %s", (int)kind, name);
        }
        size_t *at = key ? kw_symmap_get(&fam_of, key) : NULL;
        if (!key) {
            st = KW_ERR;
        } else if (!at) {
            kw_kfam *nf = KW_PUSH(a, f->v);
            if (!nf || kw_symmap_put(&fam_of, key, f->v.n - 1) != KW_OK) {
                st = KW_ERR;
                break;
            }
            nf->name = name;
            nf->kind = kind;
            nf->via = via;
            st = kw_fam_add(f, a, f->v.n - 1, i);
        } else {
            st = kw_fam_add(f, a, *at, i);
        }
    }
    for (size_t i = 0; st == KW_OK && i < f->v.n; i++)
        if (!f->v.v[i].name && !(f->v.v[i].name = kw_asm_fam_name(m, &f->v.v[i], a)))
            st = KW_ERR;
    kw_symmap_free(&fam_of);
    free(up);
    free(by_launch);
    if (st != KW_OK)
        return kw_fail(err, "out of memory");
    if (f->v.n)
        qsort(f->v.v, f->v.n, sizeof(kw_kfam), kw_fam_cmp);
    for (size_t i = 0; i < f->v.n; i++)
        for (size_t j = 0; j < f->v.v[i].kernels.n; j++)
            f->of[f->v.v[i].kernels.v[j]] = i;
    return KW_OK;
}

/* ---- matching -------------------------------------------------------------------------------- */

static bool kw_is_glob(const char *q) {
    return strpbrk(q, "*?[") != NULL;
}

/* Does the base name of a code object path, without ".co", match glob q? */
static bool kw_glob_co(const char *co, const char *q) {
    const char *base = strrchr(co, '/');
    base = base ? base + 1 : co;
    size_t n = strlen(base);
    char buf[512];
    if (n >= 3 && !strcmp(base + n - 3, ".co"))
        n -= 3;
    if (n >= sizeof buf)
        return false;
    memcpy(buf, base, n);
    buf[n] = 0;
    return fnmatch(q, buf, 0) == 0;
}

/* A glob over a kernel's printed name, its last part, its symbol, and for
 * an ASM kernel the base names of its code objects. */
static bool kw_glob_hit(const kw_mkernel *mk, const char *q) {
    if (!fnmatch(q, mk->name, 0) || !fnmatch(q, kw_kfam_last(mk->name), 0) ||
        !fnmatch(q, mk->symbol, 0))
        return true;
    for (size_t i = 0; i < mk->asm_code_objects.n; i++)
        if (kw_glob_co(mk->asm_code_objects.v[i], q))
            return true;
    return false;
}

static void kw_hits_fams(const kw_kfams *f, kw_arena *a, kw_kfam_hits *h) {
    for (size_t i = 0; i < h->kernels.n; i++) {
        size_t fam = f->of[h->kernels.v[i]], j = 0;
        while (j < h->fams.n && h->fams.v[j] != fam)
            j++;
        size_t *slot = j == h->fams.n ? KW_PUSH(a, h->fams) : NULL;
        if (slot)
            *slot = fam;
    }
    /* in family order */
    for (size_t i = 1; i < h->fams.n; i++)
        for (size_t j = i; j > 0 && h->fams.v[j - 1] > h->fams.v[j]; j--) {
            size_t t = h->fams.v[j];
            h->fams.v[j] = h->fams.v[j - 1];
            h->fams.v[j - 1] = t;
        }
}

static void kw_hit(kw_arena *a, kw_kfam_hits *h, size_t i) {
    size_t *slot = KW_PUSH(a, h->kernels);
    if (slot)
        *slot = i;
}

void kw_kfam_match(const kw_kfams *f, const kw_model *m, const char *q, const char *arch,
                   const char *tu, kw_arena *a, kw_kfam_hits *h) {
    memset(h, 0, sizeof(*h));
    /* a symbol or a full printed name names that instantiation */
    for (size_t i = 0; i < m->kernels.n; i++) {
        const kw_mkernel *mk = &m->kernels.v[i];
        if ((!strcmp(mk->symbol, q) || !strcmp(mk->name, q)) && kw_pick_fits(mk, arch, tu))
            kw_hit(a, h, i);
    }
    h->how = "symbol or printed name";
    if (!h->kernels.n && kw_is_glob(q)) {
        h->how = "glob";
        for (size_t i = 0; i < m->kernels.n; i++)
            if (kw_glob_hit(&m->kernels.v[i], q) && kw_pick_fits(&m->kernels.v[i], arch, tu))
                kw_hit(a, h, i);
    }
    if (!h->kernels.n) {
        /* a kernel's name, or its last part */
        h->how = "kernel name";
        for (size_t fi = 0; fi < f->v.n; fi++) {
            const kw_kfam *fam = &f->v.v[fi];
            if (strcmp(fam->name, q) && strcmp(kw_kfam_last(fam->name), q))
                continue;
            for (size_t j = 0; j < fam->kernels.n; j++)
                if (kw_pick_fits(&m->kernels.v[fam->kernels.v[j]], arch, tu))
                    kw_hit(a, h, fam->kernels.v[j]);
        }
        /* a kernel's last name part (an ASM kernel's short name,
         * `pa_bf16_pertokenFp8_gqa8_2tg_4w`) or its code object's name */
        for (size_t i = 0; !h->kernels.n && i < m->kernels.n; i++) {
            const kw_mkernel *mk = &m->kernels.v[i];
            bool hit = !strcmp(kw_kfam_last(mk->name), q);
            for (size_t c = 0; !hit && c < mk->asm_code_objects.n; c++)
                hit = kw_glob_co(mk->asm_code_objects.v[c], q);
            if (hit && kw_pick_fits(mk, arch, tu))
                kw_hit(a, h, i);
        }
        /* in model order */
        for (size_t i = 1; i < h->kernels.n; i++)
            for (size_t j = i; j > 0 && h->kernels.v[j - 1] > h->kernels.v[j]; j--) {
                size_t t = h->kernels.v[j];
                h->kernels.v[j] = h->kernels.v[j - 1];
                h->kernels.v[j - 1] = t;
            }
    }
    if (!h->kernels.n) {
        kw_pick_hits ph;
        kw_pick_match(m, q, arch, tu, a, &ph);
        h->how = "name";
        for (size_t i = 0; i < ph.v.n; i++)
            kw_hit(a, h, ph.v.v[i]);
    }
    kw_hits_fams(f, a, h);
}
