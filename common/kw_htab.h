/* kw_htab.h: the project's one hash table (SQLite keeps one hash.c; so does
 * kwalk). Open addressing with linear probing over slots that each hold an
 * entry's number and 32 bits of its hash, grown at 50% load. The entries
 * themselves (keys, values) are the caller's array: a caller walks the probe
 * sequence of a hash with kw_htab_find and compares its own keys, so one
 * table serves string keys (kw_symmap.h, the YAML reader's anchor names) and
 * keys that are already hashes (the YAML writer's shared subtrees). The hash
 * function of strings and bytes is FNV-1a (64 bits); kw_symmap's, and the
 * index writer's inlining frames', is kw_htab_hash_words. */
#ifndef KW_HTAB_H
#define KW_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kw_err.h"

typedef struct kw_htab_slot {
    uint32_t idx; /* 1 + the entry's number, 0 for an empty slot */
    uint32_t tag; /* the low 32 bits of the entry's hash */
} kw_htab_slot;

typedef struct kw_htab {
    kw_htab_slot *slot;
    size_t cap; /* a power of two (at most 2^32), or 0 */
    size_t n;   /* slots filled */
} kw_htab;

/* FNV-1a over p[0, n) and over a NUL-terminated string. */
uint64_t kw_htab_hash(const void *p, size_t n);
uint64_t kw_htab_hash_str(const char *s);
/* A hash of p[0, n) taken 8 bytes a step (multiply and fold, then
 * splitmix64's finalizer), for keys hashed only in memory and never stored:
 * kw_symmap's, whose long mangled names made FNV-1a's byte a step show in
 * `kwalk index`'s profile, and the index writer's frame keys (their numbers
 * as words). Its values depend on the byte order. */
uint64_t kw_htab_hash_words(const void *p, size_t n);

void kw_htab_init(kw_htab *t);
void kw_htab_free(kw_htab *t);
/* Every slot emptied, the capacity kept (a table reused). */
void kw_htab_clear(kw_htab *t);
/* Room for one more entry: the table grown (to 64 slots first, then twice
 * as many) when it would pass 50% load; KW_ERR when out of memory or past
 * 2^31 entries (the table is unchanged then). Call it before the
 * kw_htab_find whose empty slot kw_htab_fill fills: growing moves slots. */
kw_status kw_htab_reserve(kw_htab *t);
/* Room for n entries in all, grown once (a table about to be filled with a
 * known number of entries); KW_ERR as kw_htab_reserve. */
kw_status kw_htab_presize(kw_htab *t, size_t n);

/* Does the caller's entry number i have the key looked for? */
typedef bool (*kw_htab_eq)(const void *ctx, size_t i);

/* The slot of the entry with hash h for which eq(ctx, i) holds, or the empty
 * slot (idx 0) where it would go; NULL when the table has no slots. Inline,
 * so that a constant eq is inlined into the probe loop. */
static inline kw_htab_slot *kw_htab_find(const kw_htab *t, uint64_t h, kw_htab_eq eq,
                                         const void *ctx) {
    if (!t->cap)
        return NULL;
    size_t mask = t->cap - 1;
    uint32_t tag = (uint32_t)h;
    for (size_t j = (size_t)h & mask;; j = (j + 1) & mask) {
        kw_htab_slot *s = &t->slot[j];
        if (!s->idx || (s->tag == tag && eq(ctx, s->idx - 1)))
            return s;
    }
}

/* Fill the empty slot s (from kw_htab_find after kw_htab_reserve) with entry
 * number i of hash h. */
static inline void kw_htab_fill(kw_htab *t, kw_htab_slot *s, uint64_t h, size_t i) {
    s->idx = (uint32_t)(i + 1);
    s->tag = (uint32_t)h;
    t->n++;
}

#endif
