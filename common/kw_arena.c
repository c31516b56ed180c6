/* kw_arena.c: the bump allocator behind every parsed or captured document. */
#include "common/kw_arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kw_arena_block {
    kw_arena_block *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};

enum { KW_ARENA_BLOCK = 64 * 1024 };

void kw_arena_init(kw_arena *a) {
    a->head = NULL;
    a->used = 0;
    a->total = 0;
}

void kw_arena_free(kw_arena *a) {
    kw_arena_block *b = a->head;
    while (b) {
        kw_arena_block *next = b->next;
        free(b);
        b = next;
    }
    kw_arena_init(a);
}

/* size bytes, not zeroed (callers that write every byte skip the memset:
 * the index's listings are big). */
static void *kw_arena_take(kw_arena *a, size_t size) {
    size_t need = (size + 15) & ~(size_t)15;
    if (need < size)
        return NULL;
    if (!a->head || a->head->size - a->used < need) {
        size_t bsize = need > KW_ARENA_BLOCK / 4 ? need : KW_ARENA_BLOCK;
        kw_arena_block *b = malloc(sizeof(*b) + bsize);
        if (!b)
            return NULL;
        b->size = bsize;
        if (a->head && bsize != KW_ARENA_BLOCK) {
            /* a large block goes behind the current one so that its free tail stays usable */
            b->next = a->head->next;
            a->head->next = b;
            a->total += need;
            return b->data;
        }
        b->next = a->head;
        a->head = b;
        a->used = 0;
    }
    void *p = a->head->data + a->used;
    a->used += need;
    a->total += need;
    return p;
}

void *kw_arena_alloc_raw(kw_arena *a, size_t size) {
    return kw_arena_take(a, size);
}

void *kw_arena_alloc(kw_arena *a, size_t size) {
    void *p = kw_arena_take(a, size);
    if (p)
        memset(p, 0, (size + 15) & ~(size_t)15); /* the padding too, as always */
    return p;
}

void kw_arena_adopt(kw_arena *dst, kw_arena *src) {
    if (!src->head)
        return;
    if (!dst->head) {
        *dst = *src;
    } else {
        /* src's blocks go behind dst's head, whose free tail stays in use */
        kw_arena_block *last = src->head;
        while (last->next)
            last = last->next;
        last->next = dst->head->next;
        dst->head->next = src->head;
        dst->total += src->total;
    }
    kw_arena_init(src);
}

char *kw_arena_strndup(kw_arena *a, const char *s, size_t n) {
    if (!s)
        return NULL;
    /* not zeroed first: every byte is written (the index's listings are big) */
    char *p = n + 1 > n ? kw_arena_take(a, n + 1) : NULL;
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *kw_arena_strdup(kw_arena *a, const char *s) {
    return s ? kw_arena_strndup(a, s, strlen(s)) : NULL;
}

/* Formats into the current block's free tail when the text fits there (one
 * pass), else measures, allocates and formats again. */
char *kw_arena_vprintf(kw_arena *a, const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n;
    char *p = NULL;
    if (a->head && a->head->size > a->used) {
        char *tail = (char *)a->head->data + a->used;
        size_t room = a->head->size - a->used;
        n = vsnprintf(tail, room, fmt, ap);
        if (n >= 0 && (size_t)n < room) {
            size_t need = ((size_t)n + 1 + 15) & ~(size_t)15;
            a->used += need <= room ? need : room;
            a->total += need;
            va_end(again);
            return tail;
        }
    } else {
        n = vsnprintf(NULL, 0, fmt, ap);
    }
    if (n >= 0 && (p = kw_arena_alloc(a, (size_t)n + 1)) != NULL)
        vsnprintf(p, (size_t)n + 1, fmt, again);
    va_end(again);
    return p;
}

char *kw_arena_printf(kw_arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *p = kw_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void *kw_arena_grow(kw_arena *a, void **items, size_t *count, size_t *cap, size_t elem_size) {
    if (*count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        if (ncap > SIZE_MAX / elem_size)
            return NULL;
        /* not zeroed: a slot is zeroed when it is pushed */
        void *n = kw_arena_take(a, ncap * elem_size);
        if (!n)
            return NULL;
        if (*count)
            memcpy(n, *items, *count * elem_size);
        *items = n;
        *cap = ncap;
    }
    unsigned char *slot = (unsigned char *)*items + (*count)++ * elem_size;
    memset(slot, 0, elem_size);
    return slot;
}

const char *kw_arena_strset_add(kw_arena *a, const char ***items, size_t *count, size_t *cap,
                                const char *s, size_t n) {
    for (size_t i = 0; i < *count; i++)
        if ((*items)[i] && strlen((*items)[i]) == n && !memcmp((*items)[i], s, n))
            return (*items)[i];
    char *copy = kw_arena_strndup(a, s, n);
    if (!copy)
        return NULL;
    const char **slot = kw_arena_grow(a, (void **)items, count, cap, sizeof(**items));
    if (!slot)
        return NULL;
    *slot = copy;
    return copy;
}
