/* kw_arena.h: a bump allocator that owns every string and array of one
 * document (a sidecar, an index). Everything allocated from an arena is freed
 * at once by kw_arena_free; nothing inside is freed piecemeal. */
#ifndef KW_ARENA_H
#define KW_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct kw_arena_block kw_arena_block;

typedef struct kw_arena {
    kw_arena_block *head; /* newest block first */
    size_t used;          /* bytes used in head */
    size_t total;         /* bytes handed out, for statistics */
} kw_arena;

void kw_arena_init(kw_arena *a);
void kw_arena_free(kw_arena *a);

/* Zeroed, 16-byte aligned memory; NULL only when malloc fails. */
void *kw_arena_alloc(kw_arena *a, size_t size);
/* As kw_arena_alloc, not zeroed: for a caller that writes every byte. */
void *kw_arena_alloc_raw(kw_arena *a, size_t size);
char *kw_arena_strdup(kw_arena *a, const char *s);        /* NULL in, NULL out */
char *kw_arena_strndup(kw_arena *a, const char *s, size_t n);
char *kw_arena_printf(kw_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *kw_arena_vprintf(kw_arena *a, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Move every block of src into dst and leave src empty: what was allocated
 * from src now lives until dst is freed (no copy). */
void kw_arena_adopt(kw_arena *dst, kw_arena *src);

/* Grow an array allocated from the arena: *items holds *count elements of
 * elem_size in a block of *cap; makes room for one more and returns a pointer
 * to the new zeroed slot (count incremented), or NULL when out of memory. */
void *kw_arena_grow(kw_arena *a, void **items, size_t *count, size_t *cap, size_t elem_size);

/* Typed arrays whose storage lives in an arena. */
#define KW_ARRAY(T)                                                                                \
    struct {                                                                                       \
        T *v;                                                                                      \
        size_t n, cap;                                                                             \
    }
#define KW_PUSH(arena, arr)                                                                        \
    ((__typeof__((arr).v))kw_arena_grow((arena), (void **)&(arr).v, &(arr).n, &(arr).cap,          \
                                        sizeof(*(arr).v)))

/* A set of strings in a KW_ARRAY(const char *) (*items, *count, *cap): add a
 * copy of s (n bytes) unless an equal string is there already. Returns the
 * string in the set, or NULL when out of memory (nothing added). */
const char *kw_arena_strset_add(kw_arena *a, const char ***items, size_t *count, size_t *cap,
                                const char *s, size_t n);
#define KW_STRSET_ADD(arena, arr, str, len)                                                        \
    kw_arena_strset_add((arena), &(arr).v, &(arr).n, &(arr).cap, (str), (len))

#endif
