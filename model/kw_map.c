/* kw_map.c: the rows of `kwalk map` (kw_map.h): every kernel group's
 * launches joined with the entry points reaching them (kw_model_paths), a
 * row per (group, launch site, entry, unit, recorded Python frames), with
 * the instantiations on it counted and a trampoline's functor templates
 * listed, sorted; then its lines (kw_map_lines.c). The site's lookups are
 * kw_map_sites.c's. */
#define _POSIX_C_SOURCE 200809L
#include "model/kw_map.h"

#include <stdlib.h>
#include <string.h>

#include "kw_map_int.h"

/* The template of a printed functor type: "ns::F<int, 4>" -> "ns::F". */
static char *kw_map_functor_template(kw_arena *a, const char *functor) {
    const char *lt = strchr(functor, '<');
    return kw_arena_strndup(a, functor, lt ? (size_t)(lt - functor) : strlen(functor));
}

/* Add the functor of kernel mk (a trampoline) to the row's list, once. */
static bool kw_map_add_functor(kw_map *m, kw_map_row *r, const kw_mkernel *mk) {
    if (!mk || !mk->k || !mk->k->functor)
        return true;
    char *f = kw_map_functor_template(&m->arena, mk->k->functor);
    if (!f)
        return false;
    size_t n = strlen(f);
    for (const char *p = r->functors; p && (p = strstr(p, f)); p += n)
        if ((p == r->functors || p[-1] == ' ') && (p[n] == ',' || !p[n]))
            return true;
    r->functors = r->functors ? kw_arena_printf(&m->arena, "%s, %s", r->functors, f) : f;
    return r->functors != NULL;
}

static bool kw_map_add(kw_map *m, size_t group, const kw_mlaunch *ml, size_t entry,
                       const kw_mkernel *mk, kw_kverdict v) {
    if (v == KW_KV_FAILS) /* --shape rules it out on this row */
        return true;
    /* a kernel with internal linkage is its unit's own: a row of its own */
    const char *unit = mk && mk->tu && mk->tu->sidecar ? mk->tu->sidecar : "";
    char *key = ml ? kw_arena_printf(&m->arena, "%zu|%s:%d|%zu|%s", group,
                                     ml->l->location.file ? ml->l->location.file : "?",
                                     ml->l->location.line, entry, unit)
                   : kw_arena_printf(&m->arena, "%zu|-|%s", group, unit);
    /* a Triton launch reached through other Python callers: a row of its own */
    for (size_t i = 0; key && ml && i < ml->l->call_chain.n; i++)
        key = kw_arena_printf(
            &m->arena, "%s|%s:%d", key,
            ml->l->call_chain.v[i].location.file ? ml->l->call_chain.v[i].location.file : "?",
            ml->l->call_chain.v[i].location.line);
    if (!key)
        return false;
    size_t *at = kw_symmap_get(&m->row_of, key);
    if (at) {
        m->rows.v[*at].count++;
        if (v == KW_KV_HOLDS)
            m->rows.v[*at].v = v;
        return kw_map_add_functor(m, &m->rows.v[*at], mk);
    }
    kw_map_row *r = KW_PUSH(&m->arena, m->rows);
    if (!r || kw_symmap_put(&m->row_of, key, m->rows.n - 1) != KW_OK)
        return false;
    r->group = group;
    r->launch = ml;
    r->entry = entry;
    r->count = 1;
    r->kernel = mk;
    r->v = v;
    return kw_map_add_functor(m, r, mk);
}

static bool kw_map_collect(kw_map *m) {
    kw_model *md = m->model;
    kw_arena tmp;
    kw_arena_init(&tmp);
    bool ok = true;
    for (size_t g = 0; g < md->groups.n && ok; g++) {
        const kw_mgroup *grp = &md->groups.v[g];
        for (size_t k = 0; k < grp->kernels.n && ok; k++) {
            size_t ki = grp->kernels.v[k];
            const kw_mkernel *mk = &md->kernels.v[ki];
            /* with --shape, what never runs is ruled out */
            kw_kverdict never = m->shape ? KW_KV_FAILS : KW_KV_NONE;
            if (!mk->launches.n)
                ok = kw_map_add(m, g, NULL, KW_NONE, mk, never);
            bool all_dead = true; /* every launch of the kernel never runs */
            for (size_t l = 0; l < mk->launches.n && ok && all_dead; l++) {
                kw_mpaths p;
                kw_err err;
                ok = kw_model_paths(md, mk->launches.v[l], &tmp, &p, &err) == KW_OK;
                all_dead = p.dead;
            }
            for (size_t l = 0; l < mk->launches.n && ok; l++) {
                kw_mpaths p;
                kw_err err;
                const kw_mlaunch *ml = &md->launches.v[mk->launches.v[l]];
                if (kw_model_paths(md, mk->launches.v[l], &tmp, &p, &err) != KW_OK) {
                    ok = false;
                    break;
                }
                if (p.dead && all_dead)
                    ok = kw_map_add(m, g, ml, KW_MAP_DEAD, mk, never);
                else if (!p.v.n && !p.dead)
                    ok = kw_map_add(m, g, ml, KW_NONE, mk,
                                    kw_kpage_launch_verdict(md, m->shape, ki, mk->launches.v[l],
                                                            &p, KW_NONE, &tmp));
                for (size_t e = 0; e < p.v.n && ok; e++) /* one row per entry point */
                    if (e == 0 || p.v.v[e].entry != p.v.v[e - 1].entry)
                        ok = kw_map_add(m, g, ml, p.v.v[e].entry, mk,
                                        kw_kpage_launch_verdict(md, m->shape, ki,
                                                                mk->launches.v[l], &p,
                                                                p.v.v[e].entry, &tmp));
            }
            if (k % 64 == 63) { /* keep the path scratch small */
                kw_arena_free(&tmp);
                kw_arena_init(&tmp);
            }
        }
    }
    kw_arena_free(&tmp);
    return ok;
}

static int kw_map_row_cmp(const void *a, const void *b) {
    const kw_map_row *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (!x->launch || !y->launch)
        return x->launch ? 1 : y->launch ? -1 : 0;
    const char *fx = x->launch->l->location.file ? x->launch->l->location.file : "";
    const char *fy = y->launch->l->location.file ? y->launch->l->location.file : "";
    int c = strcmp(fx, fy);
    if (c)
        return c;
    if (x->launch->l->location.line != y->launch->l->location.line)
        return x->launch->l->location.line - y->launch->l->location.line;
    if (x->entry != y->entry)
        return x->entry < y->entry ? -1 : 1;
    /* Triton launches of one site: by their recorded Python frames */
    const kw_launch *lx = x->launch->l, *ly = y->launch->l;
    for (size_t i = 0; i < lx->call_chain.n && i < ly->call_chain.n; i++) {
        const kw_loc *a = &lx->call_chain.v[i].location, *b = &ly->call_chain.v[i].location;
        c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
        if (c)
            return c;
        if (a->line != b->line)
            return a->line < b->line ? -1 : 1;
    }
    return lx->call_chain.n < ly->call_chain.n ? -1 : lx->call_chain.n > ly->call_chain.n;
}

kw_status kw_map_build(kw_map *m, kw_model *md, kw_err *err) {
    return kw_map_build_shape(m, md, NULL, err);
}

kw_status kw_map_build_shape(kw_map *m, kw_model *md, const kw_shape *shape, kw_err *err) {
    memset(m, 0, sizeof(*m));
    m->model = md;
    m->shape = shape;
    m->py = md->py;
    m->chains = md->py ? md->py->chains : NULL;
    kw_arena_init(&m->arena);
    kw_symmap_init(&m->row_of);
    kw_symmap_init(&m->site_of);
    kw_symmap_init(&m->group_of);
    if (!kw_map_collect(m))
        return kw_fail(err, "out of memory");
    if (m->rows.n)
        qsort(m->rows.v, m->rows.n, sizeof(kw_map_row), kw_map_row_cmp);
    return kw_map_lines_build(m) ? KW_OK : kw_fail(err, "out of memory");
}

void kw_map_free(kw_map *m) {
    kw_symmap_free(&m->row_of);
    kw_symmap_free(&m->site_of);
    kw_symmap_free(&m->group_of);
    kw_arena_free(&m->arena);
    memset(m, 0, sizeof(*m));
}
