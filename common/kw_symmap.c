/* kw_symmap.c: the string-keyed map (kw_symmap.h): kw_htab_hash_words and
 * the one hash table (kw_htab.c) over an array of keys and values. */
#include "common/kw_symmap.h"

#include <stdlib.h>
#include <string.h>

struct kw_symmap_ent {
    const char *key;
    size_t value;
};

typedef struct kw_symmap_key {
    const kw_symmap *m;
    const char *key;
} kw_symmap_key;

static bool kw_symmap_eq(const void *ctx, size_t i) {
    const kw_symmap_key *k = ctx;
    const char *o = k->m->ent[i].key;
    return o == k->key || strcmp(o, k->key) == 0;
}

void kw_symmap_init(kw_symmap *m) {
    kw_htab_init(&m->tab);
    m->ent = NULL;
    m->n = m->cap = 0;
}

void kw_symmap_free(kw_symmap *m) {
    kw_htab_free(&m->tab);
    free(m->ent);
    kw_symmap_init(m);
}

size_t *kw_symmap_get(const kw_symmap *m, const char *key) {
    kw_symmap_key k = {m, key};
    uint64_t h = kw_htab_hash_words(key, strlen(key));
    kw_htab_slot *s = kw_htab_find(&m->tab, h, kw_symmap_eq, &k);
    return s && s->idx ? &m->ent[s->idx - 1].value : NULL;
}

kw_status kw_symmap_put(kw_symmap *m, const char *key, size_t value) {
    if (m->n == m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 32;
        if (ncap > SIZE_MAX / sizeof(kw_symmap_ent))
            return KW_ERR;
        kw_symmap_ent *e = realloc(m->ent, ncap * sizeof(*e));
        if (!e)
            return KW_ERR;
        m->ent = e;
        m->cap = ncap;
    }
    if (kw_htab_reserve(&m->tab) != KW_OK)
        return KW_ERR;
    uint64_t h = kw_htab_hash_words(key, strlen(key));
    kw_symmap_key k = {m, key};
    kw_htab_slot *s = kw_htab_find(&m->tab, h, kw_symmap_eq, &k);
    if (s->idx) {
        m->ent[s->idx - 1].value = value;
        return KW_OK;
    }
    m->ent[m->n] = (kw_symmap_ent){key, value};
    kw_htab_fill(&m->tab, s, h, m->n++);
    return KW_OK;
}
