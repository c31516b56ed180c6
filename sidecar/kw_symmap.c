/* kw_symmap.c: the string-keyed hash map (FNV-1a, open addressing, linear
 * probing, grown at 50% load). */
#include "sidecar/kw_symmap.h"

#include <stdlib.h>
#include <string.h>

struct kw_symmap_slot {
    const char *key; /* NULL: empty */
    uint64_t hash;
    size_t value;
};

static uint64_t kw_symmap_hash(const char *s) {
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

void kw_symmap_init(kw_symmap *m) {
    m->slots = NULL;
    m->cap = m->n = 0;
}

void kw_symmap_free(kw_symmap *m) {
    free(m->slots);
    kw_symmap_init(m);
}

static kw_symmap_slot *kw_symmap_find(const kw_symmap *m, const char *key, uint64_t h) {
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        kw_symmap_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && strcmp(s->key, key) == 0))
            return s;
    }
}

size_t *kw_symmap_get(const kw_symmap *m, const char *key) {
    if (!m->cap)
        return NULL;
    kw_symmap_slot *s = kw_symmap_find(m, key, kw_symmap_hash(key));
    return s->key ? &s->value : NULL;
}

static kw_status kw_symmap_grow(kw_symmap *m) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    if (ncap > SIZE_MAX / sizeof(kw_symmap_slot))
        return KW_ERR;
    kw_symmap_slot *slots = calloc(ncap, sizeof(*slots));
    if (!slots)
        return KW_ERR;
    kw_symmap old = *m;
    m->slots = slots;
    m->cap = ncap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            *kw_symmap_find(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
    free(old.slots);
    return KW_OK;
}

kw_status kw_symmap_put(kw_symmap *m, const char *key, size_t value) {
    if ((m->n + 1) * 2 > m->cap && kw_symmap_grow(m) != KW_OK)
        return KW_ERR;
    uint64_t h = kw_symmap_hash(key);
    kw_symmap_slot *s = kw_symmap_find(m, key, h);
    if (!s->key) {
        s->key = key;
        s->hash = h;
        m->n++;
    }
    s->value = value;
    return KW_OK;
}
