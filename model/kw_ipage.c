/* kw_ipage.c: the index page's model (kw_ipage.h): per template its
 * provider and listed definitions, per instantiation the entry points
 * reaching its launches and its resources per arch, and the page's
 * counts. */
#include "model/kw_ipage.h"

#include <string.h>

#include "model/kw_entry.h"

/* The entry points reaching any launch of mk, each once, into row (labels
 * in p's arena); paths scratch in tmp. False when out of memory. */
static bool kw_ipage_entries(kw_ipage *p, kw_model *m, const kw_mkernel *mk, kw_ipage_row *row,
                             kw_arena *tmp) {
    bool dead = mk->launches.n > 0;
    for (size_t i = 0; i < mk->launches.n; i++) {
        kw_mpaths paths;
        kw_err err;
        if (kw_model_paths(m, mk->launches.v[i], tmp, &paths, &err) != KW_OK)
            return false;
        dead = dead && paths.dead;
        for (size_t j = 0; j < paths.v.n; j++) {
            size_t e = paths.v.v[j].entry;
            bool dup = false;
            for (size_t s = 0; s < row->entries.n && !dup; s++)
                dup = row->entries.v[s].entry == e;
            if (dup)
                continue;
            kw_ipage_entry *slot = KW_PUSH(&p->arena, row->entries);
            if (!slot)
                return false;
            const char *label = kw_entry_label(&p->arena, m->entries.v[e].e);
            slot->entry = e;
            slot->label = label ? label : "?";
        }
    }
    row->unreachable = !row->entries.n && dead;
    return true;
}

/* The resources of mk's archs into row, and the best of each. */
static bool kw_ipage_res(kw_ipage *p, const kw_mkernel *mk, kw_ipage_row *row) {
    for (int i = 0; i < KW_IPAGE_NRES; i++)
        row->best[i] = -1;
    row->narchs = mk->k ? mk->k->archs.n : 0;
    row->res = row->narchs ? kw_arena_alloc(&p->arena, row->narchs * sizeof *row->res) : NULL;
    if (row->narchs && !row->res)
        return false;
    for (size_t a = 0; a < row->narchs; a++) {
        const kw_isa_resources *r = &mk->k->archs.v[a].resources;
        long long *v = row->res[a];
        v[KW_IPAGE_VGPR] = r->vgpr, v[KW_IPAGE_AGPR] = r->agpr, v[KW_IPAGE_SGPR] = r->sgpr;
        v[KW_IPAGE_LDS] = r->lds_bytes, v[KW_IPAGE_SCRATCH] = r->scratch_bytes;
        v[KW_IPAGE_SPILLS] = r->vgpr_spill >= 0 && r->sgpr_spill >= 0
                                 ? r->vgpr_spill + r->sgpr_spill
                                 : r->vgpr_spill;
        v[KW_IPAGE_OCC] = r->occupancy;
        for (int i = 0; i < KW_IPAGE_NRES; i++) {
            long long *b = &row->best[i];
            if (v[i] >= 0 && (*b < 0 || (i == KW_IPAGE_OCC ? v[i] < *b : v[i] > *b)))
                *b = v[i];
        }
    }
    return true;
}

/* Does an instantiation before the i-th of grp have the i-th's definition? */
static bool kw_ipage_def_seen(const kw_model *m, const kw_mgroup *grp, size_t i) {
    const kw_loc *l = &m->kernels.v[grp->kernels.v[i]].k->location;
    for (size_t j = 0; j < i; j++) {
        const kw_mkernel *pk = &m->kernels.v[grp->kernels.v[j]];
        if (pk->k && pk->k->location.file && pk->k->location.line == l->line &&
            !strcmp(pk->k->location.file, l->file))
            return true;
    }
    return false;
}

/* The definitions grp lists (kw_ipage_group.defs). False when out of memory. */
static bool kw_ipage_defs(kw_ipage *p, const kw_mgroup *grp, kw_ipage_group *g) {
    const kw_model *m = p->m;
    const kw_mkernel *first = &m->kernels.v[grp->kernels.v[0]];
    if (!first->k || !first->k->location.file)
        return true;
    for (size_t i = 0; i < grp->kernels.n; i++) {
        const kw_mkernel *mk = &m->kernels.v[grp->kernels.v[i]];
        /* kernels with internal linkage of several units: each definition */
        if (i && (!mk->tu || !mk->k || !mk->k->location.file))
            continue;
        if (kw_ipage_def_seen(m, grp, i))
            continue;
        size_t *slot = KW_PUSH(&p->arena, g->defs);
        if (!slot)
            return false;
        *slot = grp->kernels.v[i];
    }
    return true;
}

static bool kw_ipage_one(kw_ipage *p, kw_model *m, const kw_providers *providers, size_t gi,
                         kw_arena *tmp) {
    const kw_mgroup *grp = &m->groups.v[gi];
    kw_ipage_group *g = &p->groups.v[gi];
    const kw_mkernel *first = &m->kernels.v[grp->kernels.v[0]];
    g->group = gi;
    g->provider = kw_provider_of(
        providers, first->k && first->k->location.file ? first->k->location.file : NULL);
    if (!kw_ipage_defs(p, grp, g))
        return false;
    g->rows.v = kw_arena_alloc(&p->arena, grp->kernels.n * sizeof *g->rows.v);
    if (!g->rows.v)
        return false;
    g->rows.n = g->rows.cap = grp->kernels.n;
    for (size_t i = 0; i < grp->kernels.n; i++) {
        kw_ipage_row *row = &g->rows.v[i];
        row->kernel = grp->kernels.v[i];
        if (!kw_ipage_entries(p, m, &m->kernels.v[row->kernel], row, tmp) ||
            !kw_ipage_res(p, &m->kernels.v[row->kernel], row))
            return false;
    }
    return true;
}

kw_status kw_ipage_build(kw_ipage *p, kw_model *m, const kw_providers *providers, kw_err *err) {
    memset(p, 0, sizeof(*p));
    kw_arena_init(&p->arena);
    p->m = m;
    p->nkernels = m->kernels.n;
    p->ngroups = m->groups.n;
    p->nlaunches = m->launches.n;
    p->nentries = m->entries.n;
    for (size_t i = 0; i < m->kernels.n; i++) {
        const kw_kernel *k = m->kernels.v[i].k;
        p->ntriton += k && k->language && !strcmp(k->language, "triton");
    }
    p->groups.v = m->groups.n ? kw_arena_alloc(&p->arena, m->groups.n * sizeof *p->groups.v) : NULL;
    if (m->groups.n && !p->groups.v)
        return kw_fail(err, "out of memory");
    p->groups.n = p->groups.cap = m->groups.n;
    kw_arena tmp; /* the paths of launches not cached, per template */
    kw_arena_init(&tmp);
    bool ok = true;
    for (size_t g = 0; g < m->groups.n && ok; g++) {
        ok = kw_ipage_one(p, m, providers, g, &tmp);
        kw_arena_free(&tmp);
        kw_arena_init(&tmp);
    }
    kw_arena_free(&tmp);
    return ok ? KW_OK : kw_fail(err, "out of memory");
}

void kw_ipage_free(kw_ipage *p) {
    kw_arena_free(&p->arena);
    memset(p, 0, sizeof(*p));
}
