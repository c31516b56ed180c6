/* kw_yaml_share.c: repeated subtrees written once (kw_yaml_share.h).
 *
 * Nodes are numbered in the order their first event comes: every collection
 * (but the document's top-level mapping), and every scalar that is not a
 * mapping key and is long enough to be shared; both passes number them the
 * same way, since the body writes the same events twice. Pass 1 gives each
 * node a 128-bit hash of its events (two independent 64-bit hashes over the
 * event types, styles and scalar bytes, a collection's from its children's)
 * and an estimate of its written size; nodes of KW_YAML_SHARE_MIN bytes or
 * more are counted per hash. The plan then walks the nodes in order as the
 * writer will: the first occurrence of a hash seen more than once is the
 * anchor, each later occurrence an alias whose subtree is not visited (so an
 * anchor that only repeats inside aliased copies of its parent gets none). */
#include "sidecar/kw_yaml_share.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_htab.h"

#define KW_NONE UINT32_MAX

typedef struct kw_share_ent {
    uint64_t a, b;
    uint32_t count;  /* occurrences (pass 1) */
    uint32_t uses;   /* aliases the plan writes */
    uint32_t anchor; /* 1 + the anchor's number once written, else 0 */
    uint32_t seen;   /* the plan met its first occurrence */
} kw_share_ent;

typedef struct kw_share_frame {
    uint64_t a, b, size;
    uint32_t node; /* KW_NONE for the top-level mapping */
    bool map, key_next, nosh;
} kw_share_frame;

struct kw_yaml_share {
    int pass; /* 1: hashing, 2: writing */
    bool oom;
    kw_share_frame *fr;
    size_t nfr, cfr;
    uint32_t *uid; /* per node: its hash's entry, KW_NONE when not shareable */
    uint32_t *end; /* per node: the node after its subtree */
    size_t nn, cn;
    kw_share_ent *ent; /* by their hash a in tab */
    size_t nent, ecap;
    kw_htab tab;
    size_t node; /* pass 2: the next node's number */
    size_t skip; /* pass 2: depth inside an aliased collection */
    uint32_t nanchors;
    char name[16];
    bool alias; /* pass 2: the node just refused is written as an alias of name */
};

/* ---- Hashing -------------------------------------------------------------------------------- */

#define KW_K1 0x9E3779B97F4A7C15ull
#define KW_K2 0xC2B2AE3D27D4EB4Full
#define KW_K3 0x165667B19E3779F9ull

static uint64_t kw_rotl(uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

static uint64_t kw_fmix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ull;
    k ^= k >> 33;
    return k;
}

/* One 64-bit word into both hashes (two different mixing functions). */
static void kw_mix(uint64_t *a, uint64_t *b, uint64_t wa, uint64_t wb) {
    *a = kw_rotl(*a ^ (wa * KW_K1), 31) * KW_K2;
    *b = (kw_rotl(*b + wb, 27) ^ (wb * KW_K3)) * KW_K1 + 0x52DCE729u;
}

static void kw_hash_scalar(const char *s, size_t n, int style, uint64_t *ha, uint64_t *hb) {
    uint64_t a = 0x243F6A8885A308D3ull ^ (uint64_t)style, b = 0x13198A2E03707344ull + (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        kw_mix(&a, &b, w, w);
    }
    /* the tail's bytes, little-endian: what memcpy into a zeroed word gives
     * on x86, without its store-to-load stall */
    uint64_t t = 0;
    for (size_t k = 0; k < n - i; k++)
        t |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    kw_mix(&a, &b, t ^ ((uint64_t)n << 56), t + n);
    *ha = kw_fmix(a);
    *hb = kw_fmix(b ^ 0xA4093822299F31D0ull);
}

/* ---- Tables --------------------------------------------------------------------------------- */

kw_yaml_share *kw_yaml_share_new(void) {
    kw_yaml_share *sh = calloc(1, sizeof(*sh));
    if (sh)
        sh->pass = 1;
    return sh;
}

void kw_yaml_share_free(kw_yaml_share *sh) {
    if (!sh)
        return;
    free(sh->fr);
    free(sh->uid);
    free(sh->end);
    free(sh->ent);
    kw_htab_free(&sh->tab);
    free(sh);
}

static bool kw_share_grow(void **p, size_t *cap, size_t need, size_t el) {
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * el);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

typedef struct kw_share_key {
    const kw_yaml_share *sh;
    uint64_t a, b;
} kw_share_key;

static bool kw_share_eq(const void *ctx, size_t i) {
    const kw_share_key *k = ctx;
    return k->sh->ent[i].a == k->a && k->sh->ent[i].b == k->b;
}

/* The entry of hash (a, b), counted once more; KW_NONE when out of memory. */
static uint32_t kw_share_insert(kw_yaml_share *sh, uint64_t a, uint64_t b) {
    if (kw_htab_reserve(&sh->tab) != KW_OK) {
        sh->oom = true;
        return KW_NONE;
    }
    kw_share_key k = {sh, a, b};
    kw_htab_slot *s = kw_htab_find(&sh->tab, a, kw_share_eq, &k);
    if (s->idx) {
        sh->ent[s->idx - 1].count++;
        return s->idx - 1;
    }
    if (sh->nent >= KW_NONE - 1 ||
        !kw_share_grow((void **)&sh->ent, &sh->ecap, sh->nent + 1, sizeof(*sh->ent))) {
        sh->oom = true;
        return KW_NONE;
    }
    kw_share_ent *x = &sh->ent[sh->nent];
    memset(x, 0, sizeof(*x));
    x->a = a;
    x->b = b;
    x->count = 1;
    kw_htab_fill(&sh->tab, s, a, sh->nent++);
    return (uint32_t)(sh->nent - 1);
}

/* A new node's number (pass 1: with room in uid and end). */
static size_t kw_share_node(kw_yaml_share *sh) {
    if (sh->pass == 2)
        return sh->node++;
    size_t cap = sh->cn;
    if (sh->nn >= KW_NONE - 1 ||
        !kw_share_grow((void **)&sh->uid, &sh->cn, sh->nn + 1, sizeof(*sh->uid))) {
        sh->oom = true;
        return KW_NONE;
    }
    if (sh->cn != cap) { /* end has uid's capacity */
        uint32_t *end = realloc(sh->end, sh->cn * sizeof(*end));
        if (!end) {
            sh->oom = true;
            return KW_NONE;
        }
        sh->end = end;
    }
    sh->uid[sh->nn] = KW_NONE;
    sh->end[sh->nn] = (uint32_t)sh->nn + 1;
    return sh->nn++;
}

static kw_share_frame *kw_share_top(kw_yaml_share *sh) {
    return sh->nfr ? &sh->fr[sh->nfr - 1] : NULL;
}

bool kw_yaml_share_plan(kw_yaml_share *sh) {
    if (sh->oom)
        return false;
    for (size_t i = 0; i < sh->nn;) {
        uint32_t u = sh->uid[i];
        if (u != KW_NONE && sh->ent[u].count > 1) {
            if (sh->ent[u].seen) {
                sh->ent[u].uses++;
                i = sh->end[i];
                continue;
            }
            sh->ent[u].seen = 1;
        }
        i++;
    }
    kw_htab_free(&sh->tab); /* pass 2 looks entries up by node */
    sh->nfr = 0;
    sh->pass = 2;
    sh->node = 0;
    sh->skip = 0;
    return true;
}

/* ---- Hooks ---------------------------------------------------------------------------------- */

/* Is the node that comes now a mapping key? Where do its hash and size go? */
static kw_share_frame *kw_share_parent(kw_yaml_share *sh, bool *key) {
    kw_share_frame *f = kw_share_top(sh);
    *key = f && f->map && f->key_next;
    return f;
}

/* A child of f is complete: fold its hash and size into f. */
static void kw_share_child(kw_share_frame *f, uint64_t a, uint64_t b, uint64_t size) {
    if (!f)
        return;
    kw_mix(&f->a, &f->b, a, b);
    f->size += size;
    if (f->map)
        f->key_next = !f->key_next;
}

/* The anchor to write for entry u now, or the alias (written here): true
 * when the node is written (with *anchor), false when an alias replaced it. */
static bool kw_share_write(kw_yaml_emitter *e, uint32_t u, const char **anchor) {
    kw_yaml_share *sh = e->sh;
    *anchor = NULL;
    if (u == KW_NONE || !sh->ent[u].uses)
        return true;
    kw_share_ent *x = &sh->ent[u];
    bool first = !x->anchor;
    if (first)
        x->anchor = ++sh->nanchors;
    /* base 36, in order of first use */
    char tmp[16];
    size_t n = 0;
    uint32_t v = x->anchor - 1;
    do {
        tmp[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
        v /= 36;
    } while (v);
    for (size_t i = 0; i < n; i++)
        sh->name[i] = tmp[n - 1 - i];
    sh->name[n] = '\0';
    if (first) {
        *anchor = sh->name;
        return true;
    }
    (void)e;
    sh->alias = true; /* the writer emits the alias (kw_yaml_share_alias) */
    return false;
}

const char *kw_yaml_share_alias(kw_yaml_share *sh) {
    if (!sh || !sh->alias)
        return NULL;
    sh->alias = false;
    return sh->name;
}

static bool kw_share_fail(kw_yaml_emitter *e) {
    if (!e->failed)
        kw_fail(e->err, "cannot write YAML: out of memory");
    e->failed = true;
    return false;
}

bool kw_yaml_share_start(kw_yaml_emitter *e, bool map, int style, const char **anchor) {
    kw_yaml_share *sh = e->sh;
    *anchor = NULL;
    bool key;
    kw_share_frame *p = kw_share_parent(sh, &key);
    kw_share_frame f;
    memset(&f, 0, sizeof(f));
    f.map = map;
    f.key_next = true;
    f.nosh = key || (p && p->nosh);
    f.node = p ? (uint32_t)kw_share_node(sh) : KW_NONE;
    f.a = 0x452821E638D01377ull ^ ((uint64_t)map << 8 | (uint64_t)style);
    f.b = 0xBE5466CF34E90C6Cull + ((uint64_t)map << 8 | (uint64_t)style);
    f.size = 2;
    if (sh->oom || !kw_share_grow((void **)&sh->fr, &sh->cfr, sh->nfr + 1, sizeof(*sh->fr)))
        return kw_share_fail(e);
    sh->fr[sh->nfr++] = f;
    if (sh->pass == 1)
        return false;
    if (sh->skip) {
        sh->skip++;
        return false;
    }
    if (f.node == KW_NONE)
        return true;
    if (!kw_share_write(e, sh->uid[f.node], anchor)) {
        sh->skip = 1;
        return false;
    }
    return true;
}

bool kw_yaml_share_end(kw_yaml_emitter *e) {
    kw_yaml_share *sh = e->sh;
    if (!sh->nfr)
        return kw_share_fail(e);
    kw_share_frame f = sh->fr[--sh->nfr];
    kw_share_frame *p = kw_share_top(sh);
    if (sh->pass == 1) {
        uint64_t a = kw_fmix(f.a ^ 0x3C6EF372FE94F82Bull), b = kw_fmix(f.b + 0xA54FF53A5F1D36F1ull);
        if (f.node != KW_NONE) {
            if (f.size >= KW_YAML_SHARE_MIN && !f.nosh)
                sh->uid[f.node] = kw_share_insert(sh, a, b);
            sh->end[f.node] = (uint32_t)sh->nn;
        }
        kw_share_child(p, a, b, f.size);
        return sh->oom ? kw_share_fail(e) : false;
    }
    if (p && p->map)
        p->key_next = !p->key_next;
    if (sh->skip) {
        sh->skip--;
        return false;
    }
    return true;
}

bool kw_yaml_share_scalar(kw_yaml_emitter *e, const char *s, size_t n, int style,
                          const char **anchor) {
    kw_yaml_share *sh = e->sh;
    *anchor = NULL;
    bool key;
    kw_share_frame *p = kw_share_parent(sh, &key);
    uint64_t size = (uint64_t)n + 2;
    bool node = !key && p && !p->nosh && size >= KW_YAML_SHARE_MIN;
    if (sh->pass == 1) {
        uint64_t a, b;
        kw_hash_scalar(s, n, style, &a, &b);
        if (node) {
            size_t i = kw_share_node(sh);
            if (i == KW_NONE)
                return kw_share_fail(e);
            sh->uid[i] = kw_share_insert(sh, a, b);
            if (sh->oom)
                return kw_share_fail(e);
        }
        kw_share_child(p, a, b, size);
        return false;
    }
    if (p && p->map)
        p->key_next = !p->key_next;
    size_t i = node ? kw_share_node(sh) : KW_NONE;
    if (sh->skip)
        return false;
    return i == KW_NONE || kw_share_write(e, sh->uid[i], anchor);
}
