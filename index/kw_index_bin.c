/* kw_index_bin.c: the packed (binary) form of the kwalk index, the default
 * form written by `kwalk index`. libyaml reads about 30 MB/s here, and the
 * YAML index of 10,000 realistic kernels is about 55 MB, so loading it takes
 * about 2 s; this form loads the same index in a few tens of milliseconds.
 *
 * It is written and read from the same schema tables as the YAML (kw_type,
 * kw_sidecar.c), so it holds exactly what the YAML holds. All integers are
 * little-endian; "varint" is LEB128, signed values zigzag-encoded first.
 *
 *   0   8  magic "KWALKIDX"
 *   8   4  u32 kwalk_index version (KW_INDEX_VERSION)
 *   12  4  u32 kwalk_schema version (KW_SCHEMA_VERSION)
 *   16  8  u64 layout fingerprint: a hash of the tables (keys, kinds, nesting)
 *   24  8  u64 payload length P
 *   32  P  payload: varint string count, each string as varint length + bytes
 *          (every distinct string once), then the index record
 *   32+P 8 u64 checksum of bytes [0, 32+P)
 *
 * A record is its fields in table order: a string as a varint (0 = NULL,
 * i + 1 = string i), an int or byte count as a signed varint, a bool as one
 * byte, a location as string + line + column, a list or keyed map as a varint
 * count and the elements, an embedded map as its fields, a launch dimension
 * as expr + has_value byte + 3 (or 1) signed varints, a kw_val as a signed
 * kind + signed num + expr + why, a list of integers as a count and signed
 * varints, a pointer to a record as a byte (0 = NULL) and the record.
 *
 * A table change changes the fingerprint, so an index written by another
 * build is refused ("rebuild it") instead of misread. The reader checks every
 * bound: a truncated or corrupt file is an error, never a crash. */
#include "index/kw_index.h"

#include <stdlib.h>
#include <string.h>

#include "index/kw_index_int.h"

static const char kw_bin_magic[8] = {'K', 'W', 'A', 'L', 'K', 'I', 'D', 'X'};
enum { KW_BIN_HEADER = 32, KW_BIN_TRAILER = 8 };

/* ---- Hashes --------------------------------------------------------------------------------- */

static uint64_t kw_bin_mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

uint64_t kw_index_checksum(const void *data, size_t n) {
    const unsigned char *p = data;
    uint64_t h = 0x6B77616C6B696478ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = kw_bin_mix(h, w);
    }
    uint64_t tail = 0;
    for (size_t k = 0; i < n; i++, k++)
        tail |= (uint64_t)p[i] << (8 * k);
    return kw_bin_mix(h, tail);
}

static uint64_t kw_bin_str_hash(uint64_t h, const char *s) {
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t kw_bin_fingerprint(const kw_type *t) {
    uint64_t h = kw_bin_str_hash(14695981039346656037ull, t->what);
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        h = kw_bin_str_hash(h, f->key);
        h = kw_bin_mix(h, ((uint64_t)f->kind << 8) | f->flags);
        if (f->sub)
            h = kw_bin_mix(h, kw_bin_fingerprint(f->sub));
    }
    return h;
}

/* ---- Writer --------------------------------------------------------------------------------- */

typedef struct kw_enc {
    kw_buf body;
    kw_buf strs;
    kw_symmap ids; /* string -> id */
    size_t nstr;
    bool oom;
} kw_enc;

static void kw_enc_varint(kw_buf *b, uint64_t v) {
    unsigned char tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (unsigned char)(v & 0x7F);
        v >>= 7;
        if (v)
            tmp[n] |= 0x80;
        n++;
    } while (v);
    kw_buf_append(b, tmp, n);
}

static void kw_enc_signed(kw_buf *b, long long v) {
    uint64_t u = (uint64_t)v;
    kw_enc_varint(b, (u << 1) ^ (v < 0 ? ~(uint64_t)0 : 0));
}

static void kw_enc_str(kw_enc *e, const char *s) {
    if (!s) {
        kw_enc_varint(&e->body, 0);
        return;
    }
    size_t *id = kw_symmap_get(&e->ids, s);
    if (!id) {
        if (kw_symmap_put(&e->ids, s, e->nstr) != KW_OK) {
            e->oom = true;
            return;
        }
        size_t n = strlen(s);
        kw_enc_varint(&e->strs, n);
        kw_buf_append(&e->strs, s, n);
        kw_enc_varint(&e->body, ++e->nstr);
        return;
    }
    kw_enc_varint(&e->body, *id + 1);
}

static void kw_enc_record(kw_enc *e, const kw_type *t, const void *obj);

static void kw_enc_array(kw_enc *e, const kw_field *f, const kw_anyarr *a) {
    kw_enc_varint(&e->body, a->n);
    for (size_t i = 0; i < a->n; i++) {
        if (f->kind == KW_F_STRS) {
            kw_enc_str(e, ((const char *const *)a->v)[i]);
        } else if (f->kind == KW_F_INTS) {
            kw_enc_signed(&e->body, ((const long long *)a->v)[i]);
        } else if (f->kind == KW_F_COUNTS) {
            kw_enc_str(e, ((const kw_count *)a->v)[i].key);
            kw_enc_signed(&e->body, ((const kw_count *)a->v)[i].n);
        } else
            kw_enc_record(e, f->sub, (const unsigned char *)a->v + i * f->sub->size);
    }
}

static void kw_enc_record(kw_enc *e, const kw_type *t, const void *obj) {
    const unsigned char *base = obj;
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        const void *p = base + f->off;
        switch (f->kind) {
        case KW_F_STR:
        case KW_F_SCALAR:
            kw_enc_str(e, *(const char *const *)p);
            break;
        case KW_F_INT:
        case KW_F_TRI:
            kw_enc_signed(&e->body, *(const int *)p);
            break;
        case KW_F_BYTES:
        case KW_F_LL:
            kw_enc_signed(&e->body, *(const long long *)p);
            break;
        case KW_F_VAL: {
            const kw_val *v = p;
            kw_enc_signed(&e->body, v->kind);
            kw_enc_signed(&e->body, v->num);
            kw_enc_str(e, v->expr);
            kw_enc_str(e, v->why);
            break;
        }
        case KW_F_PTR: {
            const void *r = *(const void *const *)p;
            kw_buf_putc(&e->body, r ? 1 : 0);
            if (r)
                kw_enc_record(e, f->sub, r);
            break;
        }
        case KW_F_BOOL:
            kw_buf_putc(&e->body, *(const bool *)p ? 1 : 0);
            break;
        case KW_F_LOC: {
            const kw_loc *l = p;
            kw_enc_str(e, l->file);
            kw_enc_signed(&e->body, l->line);
            kw_enc_signed(&e->body, l->column);
            break;
        }
        case KW_F_DIM3:
        case KW_F_DIM1: {
            const kw_config_item *c = p;
            kw_enc_str(e, c->expr);
            kw_buf_putc(&e->body, c->has_value ? 1 : 0);
            if (c->has_value)
                for (int k = 0; k < (f->kind == KW_F_DIM3 ? 3 : 1); k++)
                    kw_enc_signed(&e->body, c->value[k]);
            break;
        }
        case KW_F_STRS:
        case KW_F_LIST:
        case KW_F_KEYED:
        case KW_F_COUNTS:
        case KW_F_INTS:
            kw_enc_array(e, f, p);
            break;
        case KW_F_MAP:
            kw_enc_record(e, f->sub, p);
            break;
        }
    }
}

static void kw_put_u32(kw_buf *b, uint32_t v) {
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    kw_buf_append(b, x, 4);
}

static void kw_put_u64(kw_buf *b, uint64_t v) {
    kw_put_u32(b, (uint32_t)v);
    kw_put_u32(b, (uint32_t)(v >> 32));
}

kw_status kw_index_encode(const kw_index *ix, kw_buf *out, kw_err *err) {
    kw_enc e;
    memset(&e, 0, sizeof(e));
    kw_buf_init(&e.body);
    kw_buf_init(&e.strs);
    kw_symmap_init(&e.ids);
    kw_enc_record(&e, &kw_t_index, ix);
    kw_buf head;
    kw_buf_init(&head);
    kw_enc_varint(&head, e.nstr);
    size_t start = out->len;
    uint64_t payload = head.len + e.strs.len + e.body.len;
    kw_buf_append(out, kw_bin_magic, sizeof(kw_bin_magic));
    kw_put_u32(out, KW_INDEX_VERSION);
    kw_put_u32(out, KW_SCHEMA_VERSION);
    kw_put_u64(out, kw_bin_fingerprint(&kw_t_index));
    kw_put_u64(out, payload);
    kw_buf_append(out, head.ptr, head.len);
    kw_buf_append(out, e.strs.ptr, e.strs.len);
    kw_buf_append(out, e.body.ptr, e.body.len);
    bool oom = e.oom || e.body.oom || e.strs.oom || head.oom || out->oom;
    if (!oom)
        kw_put_u64(out, kw_index_checksum((const unsigned char *)out->ptr + start, out->len - start));
    oom |= out->oom;
    kw_buf_free(&head);
    kw_buf_free(&e.body);
    kw_buf_free(&e.strs);
    kw_symmap_free(&e.ids);
    if (oom) {
        out->len = start;
        return kw_fail(err, "cannot encode the index: out of memory");
    }
    return KW_OK;
}

/* ---- Reader --------------------------------------------------------------------------------- */

typedef struct kw_dec {
    const unsigned char *start, *p, *end;
    bool bad;
    const char *why; /* first problem */
    size_t at;       /* its offset */
    kw_arena *arena;
    const char **strs;
    size_t nstr;
} kw_dec;

static void kw_dec_bad(kw_dec *d, const char *why) {
    if (!d->bad) {
        d->bad = true;
        d->why = why;
        d->at = (size_t)(d->p - d->start);
    }
    d->p = d->end; /* stop reading */
}

static uint64_t kw_dec_varint(kw_dec *d) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (d->p >= d->end) {
            kw_dec_bad(d, "unexpected end of data");
            return 0;
        }
        unsigned char c = *d->p++;
        v |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80))
            return v;
    }
    kw_dec_bad(d, "bad number");
    return 0;
}

static long long kw_dec_signed(kw_dec *d) {
    uint64_t u = kw_dec_varint(d);
    return (long long)((u >> 1) ^ (~(u & 1) + 1));
}

static int kw_dec_int(kw_dec *d) {
    long long v = kw_dec_signed(d);
    if (v < -0x7FFFFFFFLL - 1 || v > 0x7FFFFFFFLL)
        kw_dec_bad(d, "integer out of range");
    return (int)v;
}

static bool kw_dec_byte(kw_dec *d) {
    if (d->p >= d->end) {
        kw_dec_bad(d, "unexpected end of data");
        return false;
    }
    unsigned char c = *d->p++;
    if (c > 1)
        kw_dec_bad(d, "bad boolean");
    return c == 1;
}

static const char *kw_dec_str(kw_dec *d) {
    uint64_t v = kw_dec_varint(d);
    if (v > d->nstr) {
        kw_dec_bad(d, "bad string reference");
        return NULL;
    }
    return v ? d->strs[v - 1] : NULL;
}

static void kw_dec_record(kw_dec *d, const kw_type *t, void *obj);
static void kw_dec_fields(kw_dec *d, const kw_type *t, unsigned char *base);

static void kw_dec_array(kw_dec *d, const kw_field *f, kw_anyarr *a) {
    uint64_t n = kw_dec_varint(d);
    size_t esize = kw_schema_elem_size(f);
    if (n > (uint64_t)(d->end - d->p)) { /* every element takes a byte at least */
        kw_dec_bad(d, "bad element count");
        return;
    }
    if (!n)
        return;
    unsigned char *v = kw_arena_alloc(d->arena, (size_t)n * esize);
    if (!v) {
        kw_dec_bad(d, "out of memory");
        return;
    }
    a->v = v;
    a->n = a->cap = (size_t)n;
    for (size_t i = 0; i < n && !d->bad; i++) {
        if (f->kind == KW_F_STRS) {
            if (!(((const char **)v)[i] = kw_dec_str(d)))
                kw_dec_bad(d, "missing string");
        } else if (f->kind == KW_F_INTS) {
            ((long long *)v)[i] = kw_dec_signed(d);
        } else if (f->kind == KW_F_COUNTS) {
            kw_count *c = (kw_count *)(v + i * esize);
            if (!(c->key = kw_dec_str(d)))
                kw_dec_bad(d, "missing string");
            c->n = kw_dec_signed(d);
        } else {
            kw_dec_record(d, f->sub, v + i * esize);
        }
    }
    if (f->kind == KW_F_KEYED || f->kind == KW_F_COUNTS) { /* keys are unique, as in YAML */
        size_t koff = f->kind == KW_F_KEYED ? f->sub->fields[0].off : offsetof(kw_count, key);
        for (size_t i = 0; i < a->n && !d->bad; i++)
            for (size_t j = 0; j < i; j++)
                if (!strcmp(*(const char **)(v + i * esize + koff),
                            *(const char **)(v + j * esize + koff)))
                    kw_dec_bad(d, "duplicate key");
    }
}

static void kw_dec_record(kw_dec *d, const kw_type *t, void *obj) {
    unsigned char *base = obj;
    kw_dec_fields(d, t, base);
    if (!d->bad)
        kw_schema_normalize(t, obj); /* as the YAML reader keeps it */
}

static void kw_dec_fields(kw_dec *d, const kw_type *t, unsigned char *base) {
    for (size_t i = 0; i < t->nfields && !d->bad; i++) {
        const kw_field *f = &t->fields[i];
        void *p = base + f->off;
        switch (f->kind) {
        case KW_F_SCALAR:
            *(const char **)p = kw_dec_str(d);
            break;
        case KW_F_TRI: {
            int v = kw_dec_int(d);
            *(int *)p = v < 0 ? -1 : v > 0;
            break;
        }
        case KW_F_LL:
            *(long long *)p = kw_dec_signed(d);
            break;
        case KW_F_VAL: {
            kw_val *v = p;
            long long k = kw_dec_signed(d);
            if (k < 0 || k > KW_VAL_ABSENT)
                kw_dec_bad(d, "bad value kind");
            v->kind = (kw_val_kind)k;
            v->num = kw_dec_signed(d);
            v->expr = kw_dec_str(d);
            v->why = kw_dec_str(d);
            break;
        }
        case KW_F_PTR: {
            void *r = NULL;
            if (kw_dec_byte(d)) {
                r = kw_arena_alloc(d->arena, f->sub->size);
                if (!r) {
                    kw_dec_bad(d, "out of memory");
                    break;
                }
                memset(r, 0, f->sub->size);
                kw_dec_record(d, f->sub, r);
            }
            *(void **)p = r;
            break;
        }
        case KW_F_STR:
            *(const char **)p = kw_dec_str(d);
            if ((f->flags & KW_F_REQUIRED) && !*(const char **)p)
                kw_dec_bad(d, "missing required string");
            break;
        case KW_F_INT:
            *(int *)p = kw_dec_int(d);
            break;
        case KW_F_BYTES: { /* negative: "not known" (-1), as the YAML reader reads it */
            long long n = kw_dec_signed(d);
            *(long long *)p = n < 0 ? -1 : n;
            break;
        }
        case KW_F_BOOL:
            *(bool *)p = kw_dec_byte(d);
            break;
        case KW_F_LOC: {
            kw_loc *l = p;
            l->file = kw_dec_str(d);
            l->line = kw_dec_int(d);
            l->column = kw_dec_int(d);
            break;
        }
        case KW_F_DIM3:
        case KW_F_DIM1: {
            kw_config_item *c = p;
            c->dims = f->kind == KW_F_DIM3 ? 3 : 1;
            c->expr = kw_dec_str(d);
            c->has_value = kw_dec_byte(d);
            if (c->has_value)
                for (int k = 0; k < c->dims; k++)
                    c->value[k] = kw_dec_signed(d);
            break;
        }
        case KW_F_STRS:
        case KW_F_LIST:
        case KW_F_KEYED:
        case KW_F_COUNTS:
        case KW_F_INTS:
            kw_dec_array(d, f, p);
            break;
        case KW_F_MAP:
            kw_dec_record(d, f->sub, p);
            break;
        }
    }
}

static uint32_t kw_get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t kw_get_u64(const unsigned char *p) {
    return (uint64_t)kw_get_u32(p) | (uint64_t)kw_get_u32(p + 4) << 32;
}

bool kw_index_is_packed(const void *data, size_t len) {
    return len >= sizeof(kw_bin_magic) && !memcmp(data, kw_bin_magic, sizeof(kw_bin_magic));
}

static kw_status kw_dec_strings(kw_dec *d) {
    uint64_t n = kw_dec_varint(d);
    if (n > (uint64_t)(d->end - d->p)) {
        kw_dec_bad(d, "bad string count");
        return KW_ERR;
    }
    d->nstr = (size_t)n;
    d->strs = n ? malloc((size_t)n * sizeof(*d->strs)) : NULL;
    if (n && !d->strs) {
        kw_dec_bad(d, "out of memory");
        return KW_ERR;
    }
    for (size_t i = 0; i < d->nstr && !d->bad; i++) {
        uint64_t len = kw_dec_varint(d);
        if (len > (uint64_t)(d->end - d->p) || memchr(d->p, '\0', (size_t)len)) {
            kw_dec_bad(d, "bad string");
            break;
        }
        d->strs[i] = kw_arena_strndup(d->arena, (const char *)d->p, (size_t)len);
        if (!d->strs[i])
            kw_dec_bad(d, "out of memory");
        d->p += len;
    }
    return d->bad ? KW_ERR : KW_OK;
}

kw_status kw_index_decode(kw_index *ix, const char *name, const void *data, size_t len,
                          kw_err *err) {
    const unsigned char *b = data;
    kw_index_init(ix);
    if (!kw_index_is_packed(data, len))
        return kw_fail(err, "%s: not a kwalk index", name);
    if (len < KW_BIN_HEADER + KW_BIN_TRAILER)
        return kw_fail(err, "%s: truncated kwalk index (%zu bytes); rebuild it with 'kwalk index'",
                       name, len);
    uint32_t version = kw_get_u32(b + 8), schema = kw_get_u32(b + 12);
    if (version != KW_INDEX_VERSION)
        return kw_fail(err, "%s: unsupported kwalk_index %u (this kwalk reads %d)", name, version,
                       KW_INDEX_VERSION);
    if (schema != KW_SCHEMA_VERSION)
        return kw_fail(err, "%s: unsupported kwalk_schema %u (this kwalk reads %d)", name, schema,
                       KW_SCHEMA_VERSION);
    if (kw_get_u64(b + 16) != kw_bin_fingerprint(&kw_t_index))
        return kw_fail(err,
                       "%s: written by a kwalk build with another record layout; rebuild it with "
                       "'kwalk index'",
                       name);
    uint64_t payload = kw_get_u64(b + 24);
    if (payload != len - KW_BIN_HEADER - KW_BIN_TRAILER)
        return kw_fail(err,
                       "%s: truncated kwalk index (%zu bytes, %llu expected); rebuild it with "
                       "'kwalk index'",
                       name, len, (unsigned long long)(payload + KW_BIN_HEADER + KW_BIN_TRAILER));
    if (kw_get_u64(b + len - KW_BIN_TRAILER) != kw_index_checksum(b, len - KW_BIN_TRAILER))
        return kw_fail(err, "%s: corrupt kwalk index (checksum mismatch); rebuild it with 'kwalk "
                            "index'", name);
    kw_dec d;
    memset(&d, 0, sizeof(d));
    d.start = b;
    d.p = b + KW_BIN_HEADER;
    d.end = b + len - KW_BIN_TRAILER;
    d.arena = &ix->arena;
    if (kw_dec_strings(&d) == KW_OK)
        kw_dec_record(&d, &kw_t_index, ix);
    if (!d.bad && d.p != d.end)
        kw_dec_bad(&d, "trailing data");
    free(d.strs);
    kw_status st = KW_OK;
    if (d.bad)
        st = kw_fail(err, "%s: corrupt kwalk index (%s at byte %zu); rebuild it with 'kwalk index'",
                     name, d.why, d.at);
    else
        st = kw_index_build_map(ix, name, err);
    if (st != KW_OK)
        kw_index_free(ix);
    return st;
}
