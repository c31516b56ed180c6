/* kw_map_sites.c: the lookups of `kwalk site`'s map page (kw_map.h):
 * which kernel a launch site, as the map prints it, launches, and which
 * template a name is. */
#include <stdio.h>
#include <string.h>

#include "common/kw_fs.h"
#include "model/kw_map.h"

kw_status kw_map_sites_build(kw_map *m, const char *root, kw_err *err) {
    const kw_model *md = m->model;
    kw_status st = KW_OK;
    for (size_t ki = 0; ki < md->kernels.n && st == KW_OK; ki++) {
        const kw_mkernel *mk = &md->kernels.v[ki];
        for (size_t l = 0; l < mk->launches.n && st == KW_OK; l++) {
            const kw_launch *la = md->launches.v[mk->launches.v[l]].l;
            const char *k = kw_arena_printf(&m->arena, "%s:%d", kw_fs_rel(root, la->location.file),
                                            la->location.line);
            const size_t *have = k ? kw_symmap_get(&m->site_of, k) : NULL;
            if (!k)
                st = kw_fail(err, "out of memory");
            else if (!have)
                st = kw_symmap_put(&m->site_of, k, ki);
            else if (*have != ki)
                st = kw_symmap_put(&m->site_of, k, KW_MAP_MANY);
        }
    }
    for (size_t g = 0; g < md->groups.n && st == KW_OK; g++)
        st = kw_symmap_put(&m->group_of, md->groups.v[g].key, g);
    return st == KW_OK ? KW_OK : kw_fail(err, "out of memory");
}

size_t kw_map_sites_kernel(const kw_map *m, const char *at) {
    const size_t *ki = kw_symmap_get(&m->site_of, at);
    return ki ? *ki : KW_NONE;
}

size_t kw_map_sites_group(const kw_map *m, const char *name) {
    const size_t *g = kw_symmap_get(&m->group_of, name);
    return g ? *g : KW_NONE;
}
