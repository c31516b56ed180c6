/* kw_schema.c: the generic walkers of the schema tables (kw_schema.h) that
 * are neither the writer nor the reader: a fresh record's defaults, an array
 * field's element size, whether a field is present (written) and the
 * normalization to what reads back, and the table-driven deep copy that the
 * merge and the index use to move records between arenas. */
#include "sidecar/kw_schema.h"

#include <string.h>

/* ---- Defaults and deep copy ----------------------------------------------------------------- */

void kw_schema_defaults(const kw_type *t, void *obj) {
    unsigned char *base = obj;
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        if (f->kind == KW_F_BYTES || f->kind == KW_F_LL)
            *(long long *)(base + f->off) = -1;
        else if (f->kind == KW_F_TRI)
            *(int *)(base + f->off) = -1;
        else if (f->kind == KW_F_VAL)
            ((kw_val *)(base + f->off))->kind = KW_VAL_ABSENT;
        else if (f->kind == KW_F_MAP)
            kw_schema_defaults(f->sub, base + f->off);
    }
}

static kw_status kw_schema_copy_str(kw_arena *a, const char **dst, const char *src) {
    *dst = src ? kw_arena_strdup(a, src) : NULL;
    return (src && !*dst) ? KW_ERR : KW_OK;
}

void kw_schema_each_loc(const kw_type *t, void *obj, void (*fn)(void *ctx, kw_loc *l), void *ctx) {
    unsigned char *b = obj;
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        switch (f->kind) {
        case KW_F_LOC:
            fn(ctx, (kw_loc *)(b + f->off));
            break;
        case KW_F_MAP:
            kw_schema_each_loc(f->sub, b + f->off, fn, ctx);
            break;
        case KW_F_PTR: {
            void *p = *(void **)(b + f->off);
            if (p)
                kw_schema_each_loc(f->sub, p, fn, ctx);
            break;
        }
        case KW_F_LIST:
        case KW_F_KEYED: {
            kw_anyarr *arr = (kw_anyarr *)(b + f->off);
            for (size_t j = 0; j < arr->n; j++)
                kw_schema_each_loc(f->sub, (unsigned char *)arr->v + j * f->sub->size, fn, ctx);
            break;
        }
        default:
            break;
        }
    }
}

/* Element size of a STRS, LIST, KEYED or COUNTS field. */
size_t kw_schema_elem_size(const kw_field *f) {
    if (f->kind == KW_F_STRS)
        return sizeof(const char *);
    if (f->kind == KW_F_COUNTS)
        return sizeof(kw_count);
    if (f->kind == KW_F_INTS)
        return sizeof(long long);
    return f->sub->size;
}

static kw_status kw_schema_copy_array(kw_arena *a, const kw_field *f, kw_anyarr *dst,
                                      const kw_anyarr *src) {
    size_t esize = kw_schema_elem_size(f);
    dst->v = NULL;
    dst->n = dst->cap = 0;
    if (!src->n)
        return KW_OK;
    unsigned char *v = kw_arena_alloc(a, src->n * esize);
    if (!v)
        return KW_ERR;
    dst->v = v;
    dst->n = dst->cap = src->n;
    const unsigned char *s = src->v;
    if (f->kind == KW_F_INTS)
        memcpy(v, s, src->n * esize);
    for (size_t i = 0; i < src->n; i++) {
        kw_status st;
        if (f->kind == KW_F_STRS) {
            st = kw_schema_copy_str(a, (const char **)(v + i * esize),
                                    *(const char *const *)(s + i * esize));
        } else if (f->kind == KW_F_INTS) {
            st = KW_OK; /* copied with the array */
        } else if (f->kind == KW_F_COUNTS) {
            kw_count *dc = (kw_count *)(v + i * esize);
            const kw_count *sc = (const kw_count *)(s + i * esize);
            dc->n = sc->n;
            st = kw_schema_copy_str(a, &dc->key, sc->key);
        } else {
            st = kw_schema_copy(a, f->sub, v + i * esize, s + i * esize);
        }
        if (st != KW_OK)
            return st;
    }
    return KW_OK;
}

kw_status kw_schema_copy(kw_arena *a, const kw_type *t, void *dst, const void *src) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (dst != src && t->size)
        memmove(d, s, t->size); /* scalars; pointers are replaced below */
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        kw_status st = KW_OK;
        switch (f->kind) {
        case KW_F_STR:
        case KW_F_SCALAR:
            st = kw_schema_copy_str(a, (const char **)(d + f->off),
                                    *(const char *const *)(s + f->off));
            break;
        case KW_F_VAL: {
            kw_val *dv = (kw_val *)(d + f->off);
            const kw_val *sv = (const kw_val *)(s + f->off);
            st = kw_schema_copy_str(a, &dv->expr, sv->expr);
            if (st == KW_OK)
                st = kw_schema_copy_str(a, &dv->why, sv->why);
            break;
        }
        case KW_F_PTR: {
            const void *sp = *(const void *const *)(s + f->off);
            void *dp = NULL;
            if (sp) {
                dp = kw_arena_alloc(a, f->sub->size);
                st = dp ? kw_schema_copy(a, f->sub, dp, sp) : KW_ERR;
            }
            *(void **)(d + f->off) = dp;
            break;
        }
        case KW_F_LOC:
            st = kw_schema_copy_str(a, &((kw_loc *)(d + f->off))->file,
                                    ((const kw_loc *)(s + f->off))->file);
            break;
        case KW_F_DIM3:
        case KW_F_DIM1:
            st = kw_schema_copy_str(a, &((kw_config_item *)(d + f->off))->expr,
                                    ((const kw_config_item *)(s + f->off))->expr);
            break;
        case KW_F_STRS:
        case KW_F_LIST:
        case KW_F_KEYED:
        case KW_F_COUNTS:
        case KW_F_INTS:
            st = kw_schema_copy_array(a, f, (kw_anyarr *)(d + f->off),
                                      (const kw_anyarr *)(s + f->off));
            break;
        case KW_F_MAP: {
            /* the embedded struct's bytes were copied with the parent's */
            kw_type inner = *f->sub;
            inner.size = 0;
            st = kw_schema_copy(a, &inner, d + f->off, s + f->off);
            break;
        }
        case KW_F_INT:
        case KW_F_BYTES:
        case KW_F_BOOL:
        case KW_F_LL:
        case KW_F_TRI:
            break;
        }
        if (st != KW_OK)
            return st;
    }
    return KW_OK;
}

/* ---- Presence and normalization -------------------------------------------------------------- */

/* Does the field's `when` (kw_field) hold for the record at obj of type t? */
static bool kw_schema_when(const kw_type *t, const char *when, const void *obj) {
    const char *op = strchr(when, '=');
    size_t klen = op ? (size_t)(op - when) : strlen(when);
    bool negate = op && op > when && op[-1] == '!';
    if (negate)
        klen--;
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *g = &t->fields[i];
        if (strncmp(g->key, when, klen) || g->key[klen])
            continue;
        if (!op)
            return kw_schema_present(t, g, obj);
        const char *v = *(const char *const *)((const unsigned char *)obj + g->off);
        bool in = false;
        size_t vlen = v ? strlen(v) : 0;
        for (const char *w = op + 1; v && *w;) {
            const char *bar = strchr(w, '|');
            size_t wlen = bar ? (size_t)(bar - w) : strlen(w);
            if (wlen == vlen && !strncmp(w, v, wlen))
                in = true;
            w += wlen + (bar != NULL);
        }
        return in != negate;
    }
    return false;
}

bool kw_schema_present(const kw_type *t, const kw_field *f, const void *obj) {
    const unsigned char *base = obj;
    const void *p = base + f->off;
    if (f->flags & KW_F_POS)
        return false;
    if (f->when && !kw_schema_when(t, f->when, obj))
        return false;
    if (f->flags & KW_F_ALWAYS)
        return true;
    switch (f->kind) {
    case KW_F_STR:
    case KW_F_SCALAR:
        return *(const char *const *)p != NULL;
    case KW_F_PTR:
        return *(const void *const *)p != NULL;
    case KW_F_INT:
    case KW_F_LL:
    case KW_F_TRI:
        return true;
    case KW_F_VAL:
        return ((const kw_val *)p)->kind != KW_VAL_ABSENT;
    case KW_F_BOOL:
        return !(f->flags & KW_F_IF_TRUE) || *(const bool *)p;
    case KW_F_BYTES:
        return *(const long long *)p >= 0;
    case KW_F_LOC:
        return ((const kw_loc *)p)->file != NULL;
    case KW_F_STRS:
    case KW_F_LIST:
    case KW_F_KEYED:
    case KW_F_COUNTS:
    case KW_F_INTS:
        return ((const kw_anyarr *)p)->n > 0;
    case KW_F_DIM3:
    case KW_F_DIM1:
        return ((const kw_config_item *)p)->expr || ((const kw_config_item *)p)->has_value;
    case KW_F_MAP:
        for (size_t i = 0; i < f->sub->nfields; i++)
            if (kw_schema_present(f->sub, &f->sub->fields[i], p))
                return true;
        return false;
    }
    return false;
}

/* The value of field f when it is absent (a reader's default). */
static void kw_schema_reset(const kw_field *f, unsigned char *base) {
    void *p = base + f->off;
    switch (f->kind) {
    case KW_F_STR:
    case KW_F_SCALAR:
        *(const char **)p = NULL;
        break;
    case KW_F_PTR:
        *(void **)p = NULL;
        break;
    case KW_F_INT:
        *(int *)p = 0;
        break;
    case KW_F_TRI:
        *(int *)p = -1;
        break;
    case KW_F_BYTES:
    case KW_F_LL:
        *(long long *)p = -1;
        break;
    case KW_F_BOOL:
        *(bool *)p = false;
        break;
    case KW_F_VAL: {
        kw_val *v = p;
        v->kind = KW_VAL_ABSENT, v->num = 0, v->expr = v->why = NULL;
        break;
    }
    case KW_F_LOC:
        memset(p, 0, sizeof(kw_loc));
        break;
    case KW_F_DIM3:
    case KW_F_DIM1:
        ((kw_config_item *)p)->expr = NULL;
        ((kw_config_item *)p)->has_value = false;
        break;
    case KW_F_STRS:
    case KW_F_LIST:
    case KW_F_KEYED:
    case KW_F_COUNTS:
    case KW_F_INTS:
        memset(p, 0, sizeof(kw_anyarr));
        break;
    case KW_F_MAP:
        memset(p, 0, f->sub->size);
        kw_schema_defaults(f->sub, p);
        break;
    }
}

void kw_schema_normalize(const kw_type *t, void *obj) {
    unsigned char *base = obj;
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        if (f->when && !kw_schema_when(t, f->when, obj)) {
            kw_schema_reset(f, base);
            continue;
        }
        if (f->kind == KW_F_LL && (f->flags & (KW_F_UNKNOWN | KW_F_NULL)) &&
            *(long long *)(base + f->off) < 0)
            *(long long *)(base + f->off) = -1;
        if (f->kind == KW_F_VAL) {
            kw_val *v = (kw_val *)(base + f->off);
            if (v->kind == KW_VAL_EXPR && !v->expr)
                v->kind = KW_VAL_UNKNOWN; /* as it reads back */
            if (v->kind != KW_VAL_UNKNOWN)
                v->why = NULL;
            if (v->kind != KW_VAL_EXPR)
                v->expr = NULL;
            if (v->kind == KW_VAL_ABSENT || v->kind == KW_VAL_UNKNOWN)
                v->num = 0;
        }
    }
}
