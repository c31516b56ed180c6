/* kw_symmap.h: a hash map from a string (a mangled symbol) to a size_t (an
 * index into some array), on the one hash table (kw_htab.h). It is how
 * kernels, launches and host functions are joined by symbol in the merge,
 * the index and the kwalk commands. Keys are not copied: they must outlive
 * the map (they normally live in an arena). */
#ifndef KW_SYMMAP_H
#define KW_SYMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kw_err.h"
#include "common/kw_htab.h"

typedef struct kw_symmap_ent kw_symmap_ent;

typedef struct kw_symmap {
    kw_htab tab;        /* entry numbers by the key's hash */
    kw_symmap_ent *ent; /* the keys and values, in insertion order */
    size_t n, cap;
} kw_symmap;

void kw_symmap_init(kw_symmap *m);
void kw_symmap_free(kw_symmap *m);
/* The value stored for key, or NULL when key is absent. */
size_t *kw_symmap_get(const kw_symmap *m, const char *key);
/* Store value for key, replacing any previous value. KW_ERR when out of memory
 * (the map is unchanged then). */
kw_status kw_symmap_put(kw_symmap *m, const char *key, size_t value);

#endif
