/* kw_co_match.c: the kernels of a code-object set that a name given by a
 * user picks (`kwalk isa --kernel NAME`, text and YAML alike): the rule of
 * common/kw_names.h, the one `kwalk render KERNEL` uses, over the set's
 * kernel symbols (a code object has no printed names). */
#include "codeobj/kw_codeobj.h"

kw_name_rank kw_co_match_rank(const kw_co_set *set, const char *q, kw_arena *a) {
    kw_name_rank best = KW_NAME_NONE;
    for (size_t o = 0; o < set->objects.n; o++)
        for (size_t k = 0; k < set->objects.v[o].kernels.n; k++) {
            const char *name = set->objects.v[o].kernels.v[k].name;
            kw_name_rank r = name ? kw_name_rank_of(a, name, NULL, q) : KW_NAME_NONE;
            if (r < best)
                best = r;
        }
    return best;
}

bool kw_co_match(const kw_co_kernel *k, const char *q, kw_name_rank best, kw_arena *a) {
    return best != KW_NAME_NONE && k->name && kw_name_rank_of(a, k->name, NULL, q) == best;
}
