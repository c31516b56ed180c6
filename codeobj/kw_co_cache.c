/* kw_co_cache.c: a code object's decoded kernels as one record (see
 * kw_co_cache.h), and the store the program plugged in.
 *
 * The record (form 2): "KWCO", then varints (unsigned LEB128; signed values
 * zigzag-coded): the form, the number of kernels, the CRC-32 of every byte
 * after it, then the directory, per kernel 0 (no entry) or 1 and the
 * kernel's symbol, its entry's length and the length of the entry
 * compressed (zlib); then each entry compressed, in kernel order. A page
 * inflates only the entries of the kernels it shows. An entry: the
 * instruction classes in kw_isa_classes' order, the DPP patterns (n, then
 * key and count each), the memory widths (n, then key, bytes, count), the
 * listing, the lines note (0: not set, else 1 and the string), the line
 * table (n, then offset, file, line, column and the inlined-at frames: n,
 * then file, line, column). A string is 0 for NULL, else 1 + its length,
 * then its bytes. */
#include "codeobj/kw_co_cache.h"
#include "codeobj/kw_co_ids.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/kw_buf.h"
#include "common/kw_varint.h"

#define KW_CO_NCOUNTS (sizeof(kw_isa_classes) / sizeof(long long))
_Static_assert(sizeof(kw_isa_classes) % sizeof(long long) == 0, "classes are long longs");

static const kw_co_cache_store *_Atomic kw_co_store;
static atomic_ulong kw_co_hits, kw_co_decoded, kw_co_entries;

void kw_co_cache_use(const kw_co_cache_store *s) {
    atomic_store(&kw_co_store, s);
}

const kw_co_cache_store *kw_co_cache_store_now(void) {
    return atomic_load(&kw_co_store);
}

void kw_co_cache_counts(unsigned long *from_cache, unsigned long *decoded) {
    *from_cache = atomic_load(&kw_co_hits);
    *decoded = atomic_load(&kw_co_decoded);
}

void kw_co_cache_count(bool from_cache) {
    atomic_fetch_add(from_cache ? &kw_co_hits : &kw_co_decoded, 1);
}

unsigned long kw_co_cache_entries(void) {
    return atomic_load(&kw_co_entries);
}

void kw_co_cache_key(const char *md5, bool lines, char key[96]) {
    snprintf(key, 96, "%.40s:%s:%d", md5 ? md5 : "", lines ? "lines" : "nolines", KW_CO_CACHE_FORM);
}

/* ---- writing ----------------------------------------------------------------------------------
 */

struct kw_co_record_w {
    kw_buf dir, parts, entry; /* the directory, the compressed entries, one entry */
    size_t nkernels, next;    /* entries are appended in kernel order */
    bool oom, zinit;
    z_stream z; /* one deflate state for every entry (reset between them) */
};

static void kw_rec_str(kw_buf *b, const char *s) {
    if (!s) {
        kw_varint_put_u(b, 0);
        return;
    }
    size_t n = strlen(s);
    kw_varint_put_u(b, (uint64_t)n + 1);
    kw_buf_append(b, s, n);
}

static void kw_rec_loc(kw_buf *b, const kw_loc *l) {
    kw_rec_str(b, l->file);
    kw_varint_put_s(b, l->line);
    kw_varint_put_s(b, l->column);
}

kw_co_record_w *kw_co_record_begin(size_t nkernels) {
    kw_co_record_w *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    kw_buf_init(&w->dir);
    kw_buf_init(&w->parts);
    kw_buf_init(&w->entry);
    w->nkernels = nkernels;
    w->zinit = deflateInit(&w->z, 1) == Z_OK;
    if (!w->zinit) {
        free(w);
        return NULL;
    }
    return w;
}

/* Mark kernels [next, i) as without entry. */
static void kw_rec_skip_to(kw_co_record_w *w, size_t i) {
    for (; w->next < i && w->next < w->nkernels; w->next++)
        kw_varint_put_u(&w->dir, 0);
}

/* Kernel a's entry into w->entry. */
static void kw_rec_put_entry(kw_buf *b, const kw_kernel_arch *a, bool note) {
    const long long *c = (const long long *)&a->classes;
    for (size_t k = 0; k < KW_CO_NCOUNTS; k++)
        kw_varint_put_s(b, c[k]);
    kw_varint_put_u(b, a->dpp_patterns.n);
    for (size_t k = 0; k < a->dpp_patterns.n; k++) {
        kw_rec_str(b, a->dpp_patterns.v[k].key);
        kw_varint_put_s(b, a->dpp_patterns.v[k].n);
    }
    kw_varint_put_u(b, a->memory.n);
    for (size_t k = 0; k < a->memory.n; k++) {
        kw_rec_str(b, a->memory.v[k].key);
        kw_varint_put_s(b, a->memory.v[k].bytes);
        kw_varint_put_s(b, a->memory.v[k].n);
    }
    kw_rec_str(b, a->isa);
    kw_varint_put_u(b, note ? 1 : 0);
    if (note)
        kw_rec_str(b, a->lines_note);
    kw_varint_put_u(b, a->lines.n);
    for (size_t k = 0; k < a->lines.n; k++) {
        const kw_isa_line *l = &a->lines.v[k];
        kw_varint_put_s(b, l->offset);
        kw_rec_loc(b, &l->location);
        kw_varint_put_u(b, l->inlined_at.n);
        for (size_t f = 0; f < l->inlined_at.n; f++)
            kw_rec_loc(b, &l->inlined_at.v[f]);
    }
}

bool kw_co_record_put(kw_co_record_w *w, size_t i, const char *symbol, const kw_kernel_arch *a,
                      bool note) {
    if (i < w->next || i >= w->nkernels)
        return false;
    kw_rec_skip_to(w, i);
    kw_buf_reset(&w->entry);
    kw_rec_put_entry(&w->entry, a, note);
    uLong bound = deflateBound(&w->z, (uLong)w->entry.len);
    char *room = w->entry.oom ? NULL : kw_buf_room(&w->parts, bound);
    if (!room || deflateReset(&w->z) != Z_OK) {
        w->oom = true;
        return false;
    }
    w->z.next_in = (Bytef *)w->entry.ptr;
    w->z.avail_in = (uInt)w->entry.len;
    w->z.next_out = (Bytef *)room;
    w->z.avail_out = (uInt)bound;
    if (deflate(&w->z, Z_FINISH) != Z_STREAM_END) {
        w->oom = true;
        return false;
    }
    uLongf zn = (uLongf)(bound - w->z.avail_out);
    kw_buf_commit(&w->parts, zn);
    kw_varint_put_u(&w->dir, 1);
    kw_rec_str(&w->dir, symbol);
    kw_varint_put_u(&w->dir, w->entry.len);
    kw_varint_put_u(&w->dir, zn);
    w->next = i + 1;
    return !w->dir.oom;
}

const unsigned char *kw_co_record_bytes(kw_co_record_w *w, size_t *n) {
    kw_rec_skip_to(w, w->nkernels);
    kw_buf head;
    kw_buf_init(&head);
    kw_buf_append(&head, "KWCO", 4);
    kw_varint_put_u(&head, KW_CO_CACHE_FORM);
    kw_varint_put_u(&head, w->nkernels);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32_z(crc, (const Bytef *)w->dir.ptr, w->dir.len);
    crc = crc32_z(crc, (const Bytef *)w->parts.ptr, w->parts.len);
    kw_varint_put_u(&head, crc);
    kw_buf_append(&head, w->dir.ptr, w->dir.len);
    kw_buf_append(&head, w->parts.ptr, w->parts.len);
    kw_buf_free(&w->entry);
    kw_buf_free(&w->dir);
    kw_buf_free(&w->parts);
    w->dir = head; /* kept for kw_co_record_free */
    kw_buf_init(&w->parts);
    kw_buf_init(&w->entry);
    *n = head.len;
    return head.oom || w->oom ? NULL : (const unsigned char *)head.ptr;
}

void kw_co_record_free(kw_co_record_w *w) {
    if (!w)
        return;
    kw_buf_free(&w->dir);
    kw_buf_free(&w->parts);
    kw_buf_free(&w->entry);
    if (w->zinit)
        deflateEnd(&w->z);
    free(w);
}

/* ---- reading ----------------------------------------------------------------------------------
 */

static int kw_rec_gi(kw_varint_in *in) {
    long long v = kw_varint_get_s(in);
    if (v < INT32_MIN || v > INT32_MAX)
        in->bad = true;
    return (int)v;
}

/* A string; with arena NULL only skipped. *len its length. */
static const char *kw_rec_gstr(kw_varint_in *in, kw_arena *arena, size_t *len) {
    uint64_t n = kw_varint_get_u(in);
    *len = 0;
    if (in->bad || !n)
        return NULL;
    if (n - 1 > (uint64_t)(in->end - in->p)) {
        in->bad = true;
        return NULL;
    }
    const char *s = (const char *)in->p;
    in->p += n - 1;
    *len = (size_t)(n - 1);
    if (!arena)
        return s;
    char *c = kw_arena_alloc_raw(arena, *len + 1);
    if (!c) {
        in->bad = true;
        return NULL;
    }
    memcpy(c, s, *len);
    c[*len] = '\0';
    return c;
}

static const char *kw_rec_gs_arena(kw_varint_in *in, kw_arena *arena) {
    size_t n;
    return kw_rec_gstr(in, arena, &n);
}

static void kw_rec_gloc(kw_varint_in *in, kw_arena *arena, kw_loc *l) {
    l->file = kw_rec_gs_arena(in, arena);
    l->line = kw_rec_gi(in);
    l->column = kw_rec_gi(in);
}

/* An array of n elements of size sz in arena (NULL for none); n checked
 * against the bytes left (every element takes one byte at least). */
static void *kw_rec_array(kw_varint_in *in, kw_arena *arena, uint64_t n, size_t sz) {
    if (in->bad || !n)
        return NULL;
    if (n > (uint64_t)(in->end - in->p)) {
        in->bad = true;
        return NULL;
    }
    void *v = arena ? kw_arena_alloc(arena, (size_t)n * sz) : NULL;
    if (arena && !v)
        in->bad = true;
    return v;
}

/* Read (arena, a) or skip (NULL, NULL) one entry after its symbol. */
static void kw_rec_entry(kw_varint_in *in, kw_arena *arena, kw_kernel_arch *a) {
    kw_kernel_arch scratch;
    kw_kernel_arch *o = a ? a : &scratch;
    long long *c = (long long *)&o->classes;
    for (size_t k = 0; k < KW_CO_NCOUNTS; k++)
        c[k] = kw_varint_get_s(in);
    uint64_t n = kw_varint_get_u(in);
    kw_isa_count *d = kw_rec_array(in, arena, n, sizeof *d);
    for (uint64_t k = 0; k < n && !in->bad; k++) {
        const char *key = kw_rec_gs_arena(in, arena);
        long long v = kw_varint_get_s(in);
        if (d)
            d[k] = (kw_isa_count){key, -1, v};
    }
    o->dpp_patterns.v = d;
    o->dpp_patterns.n = o->dpp_patterns.cap = d ? (size_t)n : 0;
    n = kw_varint_get_u(in);
    kw_isa_count *m = kw_rec_array(in, arena, n, sizeof *m);
    for (uint64_t k = 0; k < n && !in->bad; k++) {
        const char *key = kw_rec_gs_arena(in, arena);
        long long bytes = kw_varint_get_s(in);
        long long v = kw_varint_get_s(in);
        if (m)
            m[k] = (kw_isa_count){key, bytes, v};
    }
    o->memory.v = m;
    o->memory.n = o->memory.cap = m ? (size_t)n : 0;
    const char *isa = kw_rec_gs_arena(in, arena);
    if (kw_varint_get_u(in))
        o->lines_note = kw_rec_gs_arena(in, arena);
    o->isa = isa ? isa : (arena ? kw_arena_strdup(arena, "") : NULL);
    n = kw_varint_get_u(in);
    kw_isa_line *l = kw_rec_array(in, arena, n, sizeof *l);
    for (uint64_t k = 0; k < n && !in->bad; k++) {
        kw_isa_line row;
        memset(&row, 0, sizeof row);
        row.offset = kw_varint_get_s(in);
        kw_rec_gloc(in, arena, &row.location);
        uint64_t f = kw_varint_get_u(in);
        kw_loc *at = kw_rec_array(in, arena, f, sizeof *at);
        for (uint64_t j = 0; j < f && !in->bad; j++) {
            kw_loc x;
            kw_rec_gloc(in, arena, &x);
            if (at)
                at[j] = x;
        }
        row.inlined_at.v = at;
        row.inlined_at.n = row.inlined_at.cap = at ? (size_t)f : 0;
        if (l)
            l[k] = row;
    }
    o->lines.v = l;
    o->lines.n = o->lines.cap = l ? (size_t)n : 0;
}

/* kw_co_record_open; with any, nkernels is the record's own count. */
static bool kw_rec_open(kw_co_record *r, const unsigned char *data, size_t n, size_t nkernels,
                        bool any) {
    memset(r, 0, sizeof *r);
    kw_varint_in in = {data, data + n, false};
    if (n < 4 || memcmp(data, "KWCO", 4))
        return false;
    in.p += 4;
    if (kw_varint_get_u(&in) != KW_CO_CACHE_FORM)
        return false;
    uint64_t count = kw_varint_get_u(&in);
    if (in.bad || (!any && count != nkernels) || count > (uint64_t)(in.end - in.p))
        return false;
    nkernels = (size_t)count;
    uint64_t crc = kw_varint_get_u(&in);
    if (in.bad || crc != crc32_z(crc32(0L, Z_NULL, 0), in.p, (size_t)(in.end - in.p)))
        return false; /* damaged */
    r->part = calloc(nkernels + 1, sizeof *r->part);
    if (!r->part)
        return false;
    uint64_t total = 0;
    for (size_t i = 0; i < nkernels && !in.bad; i++) {
        uint64_t has = kw_varint_get_u(&in);
        if (!has)
            continue;
        if (has != 1) {
            in.bad = true;
            break;
        }
        kw_co_record_part *p = &r->part[i];
        p->symbol = (size_t)(in.p - data);
        size_t len;
        kw_rec_gstr(&in, NULL, &len);
        uint64_t raw = kw_varint_get_u(&in), packed = kw_varint_get_u(&in);
        if (packed > (uint64_t)(in.end - in.p) || raw > ((uint64_t)1 << 40))
            in.bad = true;
        p->raw = (size_t)raw;
        p->packed = (size_t)packed;
        p->at = (size_t)total; /* from the entries' start, made absolute below */
        total += packed;
    }
    if (in.bad || total != (uint64_t)(in.end - in.p)) {
        kw_co_record_close(r);
        return false;
    }
    size_t start = (size_t)(in.p - data);
    for (size_t i = 0; i < nkernels; i++)
        r->part[i].at += start;
    r->data = data;
    r->n = n;
    r->nkernels = nkernels;
    return true;
}

bool kw_co_record_open(kw_co_record *r, const unsigned char *data, size_t n, size_t nkernels) {
    return kw_rec_open(r, data, n, nkernels, false);
}

bool kw_co_record_cached(const kw_co_object *obj, const char *md5, unsigned char **data,
                         kw_co_record *r) {
    const kw_co_cache_store *s = kw_co_cache_store_now();
    char key[96];
    size_t n = 0;
    *data = NULL;
    memset(r, 0, sizeof *r);
    kw_co_cache_key(md5, obj->has_debug_line, key);
    if (!s || !md5 || !s->get(s->ctx, key, data, &n))
        return false;
    if (!kw_rec_open(r, *data, n, 0, true)) {
        free(*data);
        *data = NULL;
        return false;
    }
    kw_co_cache_count(true);
    return true;
}

void kw_co_record_close(kw_co_record *r) {
    free(r->part);
    memset(r, 0, sizeof *r);
}

bool kw_co_record_has(const kw_co_record *r, size_t i, const char *symbol) {
    if (i >= r->nkernels || !r->part[i].symbol)
        return false;
    kw_varint_in in = {r->data + r->part[i].symbol, r->data + r->n, false};
    size_t len;
    const char *s = kw_rec_gstr(&in, NULL, &len);
    return s && symbol && strlen(symbol) == len && !memcmp(s, symbol, len);
}

bool kw_co_record_fill(const kw_co_record *r, size_t i, kw_arena *arena, kw_kernel_arch *a) {
    if (i >= r->nkernels || !r->part[i].symbol)
        return false;
    const kw_co_record_part *p = &r->part[i];
    unsigned char *entry = malloc(p->raw ? p->raw : 1);
    uLongf got = (uLongf)p->raw;
    bool ok = entry && uncompress(entry, &got, r->data + p->at, (uLong)p->packed) == Z_OK &&
              got == (uLongf)p->raw;
    if (ok) {
        kw_varint_in in = {entry, entry + p->raw, false};
        kw_rec_entry(&in, arena, a);
        ok = !in.bad && in.p == in.end;
        atomic_fetch_add(&kw_co_entries, 1);
    }
    free(entry);
    return ok;
}
