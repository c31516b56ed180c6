/* kw_symmap.h: a hash map from a string (a mangled symbol) to a size_t (an
 * index into some array). It is how kernels, launches and host functions are
 * joined by symbol in the merge, the index and the kwalk commands. Keys are
 * not copied: they must outlive the map (they normally live in an arena). */
#ifndef KW_SYMMAP_H
#define KW_SYMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kw_err.h"

typedef struct kw_symmap_slot kw_symmap_slot;

typedef struct kw_symmap {
    kw_symmap_slot *slots; /* open addressing, linear probing */
    size_t cap;            /* a power of two, or 0 */
    size_t n;
} kw_symmap;

void kw_symmap_init(kw_symmap *m);
void kw_symmap_free(kw_symmap *m);
/* The value stored for key, or NULL when key is absent. */
size_t *kw_symmap_get(const kw_symmap *m, const char *key);
/* Store value for key, replacing any previous value. KW_ERR when out of memory
 * (the map is unchanged then). */
kw_status kw_symmap_put(kw_symmap *m, const char *key, size_t value);

#endif
