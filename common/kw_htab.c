/* kw_htab.c: the hash table's growth, the FNV-1a hash and the word-wise
 * hash of kw_symmap (kw_htab.h). */
#include "common/kw_htab.h"

#include <stdlib.h>
#include <string.h>

uint64_t kw_htab_hash(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

uint64_t kw_htab_hash_str(const char *s) {
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

uint64_t kw_htab_hash_words(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, s, n);
    h ^= w;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

void kw_htab_init(kw_htab *t) {
    t->slot = NULL;
    t->cap = t->n = 0;
}

void kw_htab_free(kw_htab *t) {
    free(t->slot);
    kw_htab_init(t);
}

void kw_htab_clear(kw_htab *t) {
    if (t->slot)
        memset(t->slot, 0, t->cap * sizeof(*t->slot));
    t->n = 0;
}

kw_status kw_htab_reserve(kw_htab *t) {
    return kw_htab_presize(t, t->n + 1);
}

kw_status kw_htab_presize(kw_htab *t, size_t n) {
    if (n * 2 <= t->cap)
        return KW_OK;
    size_t ncap = t->cap ? t->cap * 2 : 64;
    while (ncap < n * 2 && ncap <= SIZE_MAX / 4)
        ncap *= 2;
    /* slots are placed by their 32 stored bits: under 2^31 entries keep the
     * table at 2^32 slots at most */
    if (n > 0x7FFFFFFFu || ncap > SIZE_MAX / sizeof(kw_htab_slot))
        return KW_ERR;
    kw_htab_slot *slot = calloc(ncap, sizeof(*slot));
    if (!slot)
        return KW_ERR;
    size_t mask = ncap - 1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slot[i].idx)
            continue;
        size_t j = t->slot[i].tag & mask;
        while (slot[j].idx)
            j = (j + 1) & mask;
        slot[j] = t->slot[i];
    }
    free(t->slot);
    t->slot = slot;
    t->cap = ncap;
    return KW_OK;
}
