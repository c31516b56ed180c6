/* kw_sidecar_pack.c: the packed exchange form of kw_sidecar_pack.h.
 *
 * The document is one msgpack array: ["kwalk-fragment", fingerprint,
 * kwalk_schema, body]. A record is an array of its table's fields in order;
 * per kind a field is: STR/SCALAR a string reference; INT, TRI, BYTES, LL an
 * integer; BOOL a boolean; LOC nil or [file, line, column]; STRS an array of
 * string references; LIST/KEYED an array of records; MAP a record; PTR nil or
 * a record; DIM3/DIM1 [expr, has_value, dims, v0, v1, v2]; COUNTS a flat
 * array [key, n, key, n, ...]; VAL [kind, num, expr, why]; INTS an array of
 * integers. A string reference is nil (NULL), a string (its first use: it
 * gets the next number, from 0), or a non-negative integer (the string of
 * that number). The reader checks the bytes with kw_msgpack_skip before
 * msgpack-c builds its objects, and every object's type against the table. */
#include "sidecar/kw_sidecar_pack.h"

#include <limits.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_fs.h"
#include "common/kw_msgpack_check.h"
#include "sidecar/kw_schema.h"

#define KW_PACK_MAGIC "kwalk-fragment"
enum { KW_PACK_MAXDEPTH = 64 };

/* ---- The schema's fingerprint ---------------------------------------------------------------- */

static uint64_t fp_mix(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull; /* FNV-1a */
    return h;
}

static uint64_t fp_num(uint64_t h, uint64_t v) {
    return fp_mix(h, &v, sizeof v);
}

/* Every table reachable from t: names, kinds, offsets, sizes and flags. */
static uint64_t fp_type(uint64_t h, const kw_type *t, int depth) {
    if (depth > KW_PACK_MAXDEPTH)
        return h;
    h = fp_num(h, t->size);
    h = fp_num(h, t->nfields);
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        h = fp_mix(h, f->key, strlen(f->key) + 1);
        h = fp_num(h, (uint64_t)f->kind);
        h = fp_num(h, f->off);
        h = fp_num(h, f->flags);
        if (f->sub)
            h = fp_type(h, f->sub, depth + 1);
    }
    return h;
}

static uint64_t kw_pack_fingerprint(void) {
    return fp_type(fp_num(14695981039346656037ull, sizeof(kw_loc)), &kw_t_sidecar, 0);
}

/* ---- Writer ---------------------------------------------------------------------------------- */

typedef struct wr {
    msgpack_packer pk;
    kw_buf *out;
    kw_symmap ids; /* string -> its number */
    size_t next;
    bool oom;
} wr;

static int wr_append(void *data, const char *buf, size_t len) {
    kw_buf *b = data;
    kw_buf_append(b, buf, len);
    return b->oom ? -1 : 0;
}

static void wr_str(wr *w, const char *s) {
    if (!s) {
        msgpack_pack_nil(&w->pk);
        return;
    }
    size_t *id = kw_symmap_get(&w->ids, s);
    if (id) {
        msgpack_pack_uint64(&w->pk, *id);
        return;
    }
    if (kw_symmap_put(&w->ids, s, w->next++) != KW_OK)
        w->oom = true;
    size_t n = strlen(s);
    msgpack_pack_str(&w->pk, n);
    msgpack_pack_str_body(&w->pk, s, n);
}

static void wr_int(wr *w, long long v) {
    msgpack_pack_int64(&w->pk, v);
}

static void wr_record(wr *w, const kw_type *t, const void *obj);

static void wr_array(wr *w, const kw_field *f, const kw_anyarr *arr) {
    size_t esize = kw_schema_elem_size(f);
    const unsigned char *v = arr->v;
    msgpack_pack_array(&w->pk, f->kind == KW_F_COUNTS ? 2 * arr->n : arr->n);
    for (size_t i = 0; i < arr->n; i++) {
        const unsigned char *el = v + i * esize;
        if (f->kind == KW_F_STRS) {
            wr_str(w, *(const char *const *)el);
        } else if (f->kind == KW_F_INTS) {
            wr_int(w, *(const long long *)el);
        } else if (f->kind == KW_F_COUNTS) {
            wr_str(w, ((const kw_count *)el)->key);
            wr_int(w, ((const kw_count *)el)->n);
        } else {
            wr_record(w, f->sub, el);
        }
    }
}

static void wr_field(wr *w, const kw_field *f, const unsigned char *p) {
    switch (f->kind) {
    case KW_F_STR:
    case KW_F_SCALAR:
        wr_str(w, *(const char *const *)p);
        break;
    case KW_F_INT:
    case KW_F_TRI:
        wr_int(w, *(const int *)p);
        break;
    case KW_F_BYTES:
    case KW_F_LL:
        wr_int(w, *(const long long *)p);
        break;
    case KW_F_BOOL:
        if (*(const bool *)p)
            msgpack_pack_true(&w->pk);
        else
            msgpack_pack_false(&w->pk);
        break;
    case KW_F_LOC: {
        const kw_loc *l = (const kw_loc *)p;
        if (!l->file) {
            msgpack_pack_nil(&w->pk);
            break;
        }
        msgpack_pack_array(&w->pk, 3);
        wr_str(w, l->file);
        wr_int(w, l->line);
        wr_int(w, l->column);
        break;
    }
    case KW_F_STRS:
    case KW_F_LIST:
    case KW_F_KEYED:
    case KW_F_COUNTS:
    case KW_F_INTS:
        wr_array(w, f, (const kw_anyarr *)p);
        break;
    case KW_F_MAP:
        wr_record(w, f->sub, p);
        break;
    case KW_F_PTR: {
        const void *sp = *(const void *const *)p;
        if (sp)
            wr_record(w, f->sub, sp);
        else
            msgpack_pack_nil(&w->pk);
        break;
    }
    case KW_F_DIM3:
    case KW_F_DIM1: {
        const kw_config_item *c = (const kw_config_item *)p;
        msgpack_pack_array(&w->pk, 6);
        wr_str(w, c->expr);
        if (c->has_value)
            msgpack_pack_true(&w->pk);
        else
            msgpack_pack_false(&w->pk);
        wr_int(w, c->dims);
        for (int i = 0; i < 3; i++)
            wr_int(w, c->value[i]);
        break;
    }
    case KW_F_VAL: {
        const kw_val *v = (const kw_val *)p;
        msgpack_pack_array(&w->pk, 4);
        wr_int(w, (long long)v->kind);
        wr_int(w, v->num);
        wr_str(w, v->expr);
        wr_str(w, v->why);
        break;
    }
    }
}

static void wr_record(wr *w, const kw_type *t, const void *obj) {
    const unsigned char *b = obj;
    msgpack_pack_array(&w->pk, t->nfields);
    for (size_t i = 0; i < t->nfields; i++)
        wr_field(w, &t->fields[i], b + t->fields[i].off);
}

kw_status kw_sidecar_pack(const kw_sidecar *sc, kw_buf *out, kw_err *err) {
    wr w;
    memset(&w, 0, sizeof w);
    w.out = out;
    kw_symmap_init(&w.ids);
    msgpack_packer_init(&w.pk, out, wr_append);
    msgpack_pack_array(&w.pk, 4);
    msgpack_pack_str(&w.pk, sizeof KW_PACK_MAGIC - 1);
    msgpack_pack_str_body(&w.pk, KW_PACK_MAGIC, sizeof KW_PACK_MAGIC - 1);
    msgpack_pack_uint64(&w.pk, kw_pack_fingerprint());
    wr_int(&w, sc->schema);
    wr_record(&w, &kw_t_sidecar, sc);
    kw_symmap_free(&w.ids);
    if (w.oom || out->oom)
        return kw_fail(err, "cannot pack the sidecar: out of memory");
    return KW_OK;
}

kw_status kw_sidecar_pack_write_file(const kw_sidecar *sc, const char *path, kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_status st = kw_sidecar_pack(sc, &b, err);
    if (st == KW_OK)
        st = kw_fs_write_atomic(path, b.ptr, b.len, err);
    kw_buf_free(&b);
    return st;
}

/* ---- Reader ---------------------------------------------------------------------------------- */

typedef struct rd {
    kw_arena *a;
    const char **strs; /* by number */
    size_t nstrs, cstrs;
    const char *name;
    const char *what; /* the record being read, for messages */
    kw_err *err;
} rd;

static kw_status rd_bad(rd *r, const char *expected) {
    return kw_fail(r->err, "%s: not a packed sidecar of this kwalk (%s %s expected)", r->name,
                   r->what, expected);
}

static kw_status rd_str(rd *r, const msgpack_object *o, const char **out) {
    if (o->type == MSGPACK_OBJECT_NIL) {
        *out = NULL;
        return KW_OK;
    }
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 >= r->nstrs)
            return rd_bad(r, "a known string number");
        *out = r->strs[o->via.u64];
        return KW_OK;
    }
    if (o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, '\0', o->via.str.size))
        return rd_bad(r, "a string");
    if (r->nstrs == r->cstrs) {
        size_t c = r->cstrs ? 2 * r->cstrs : 256;
        const char **s = realloc(r->strs, c * sizeof *s);
        if (!s)
            return kw_fail(r->err, "%s: out of memory", r->name);
        r->strs = s, r->cstrs = c;
    }
    char *s = kw_arena_strndup(r->a, o->via.str.ptr, o->via.str.size);
    if (!s)
        return kw_fail(r->err, "%s: out of memory", r->name);
    r->strs[r->nstrs++] = s;
    *out = s;
    return KW_OK;
}

static kw_status rd_ll(rd *r, const msgpack_object *o, long long lo, long long hi, long long *out) {
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= (uint64_t)hi)
        *out = (long long)o->via.u64;
    else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 >= lo)
        *out = o->via.i64;
    else
        return rd_bad(r, "an integer in range");
    return KW_OK;
}

static kw_status rd_int(rd *r, const msgpack_object *o, int *out) {
    long long v = 0;
    if (rd_ll(r, o, INT_MIN, INT_MAX, &v) != KW_OK)
        return KW_ERR;
    *out = (int)v;
    return KW_OK;
}

static kw_status rd_bool(rd *r, const msgpack_object *o, bool *out) {
    if (o->type != MSGPACK_OBJECT_BOOLEAN)
        return rd_bad(r, "a boolean");
    *out = o->via.boolean;
    return KW_OK;
}

/* o is an array of n elements (any n when n is SIZE_MAX). */
static bool rd_is_array(const msgpack_object *o, size_t n) {
    return o->type == MSGPACK_OBJECT_ARRAY && (n == SIZE_MAX || o->via.array.size == n);
}

static kw_status rd_record(rd *r, const kw_type *t, void *obj, const msgpack_object *o);

static kw_status rd_array(rd *r, const kw_field *f, kw_anyarr *arr, const msgpack_object *o) {
    if (!rd_is_array(o, SIZE_MAX) || (f->kind == KW_F_COUNTS && o->via.array.size % 2))
        return rd_bad(r, "an array");
    size_t n = f->kind == KW_F_COUNTS ? o->via.array.size / 2 : o->via.array.size;
    memset(arr, 0, sizeof *arr);
    if (!n)
        return KW_OK;
    size_t esize = kw_schema_elem_size(f);
    unsigned char *v = kw_arena_alloc(r->a, n * esize);
    if (!v)
        return kw_fail(r->err, "%s: out of memory", r->name);
    arr->v = v;
    arr->n = arr->cap = n;
    const msgpack_object *e = o->via.array.ptr;
    for (size_t i = 0; i < n; i++) {
        unsigned char *el = v + i * esize;
        kw_status st;
        if (f->kind == KW_F_STRS) {
            st = rd_str(r, &e[i], (const char **)el);
        } else if (f->kind == KW_F_INTS) {
            st = rd_ll(r, &e[i], LLONG_MIN, LLONG_MAX, (long long *)el);
        } else if (f->kind == KW_F_COUNTS) {
            kw_count *c = (kw_count *)el;
            st = rd_str(r, &e[2 * i], &c->key);
            if (st == KW_OK)
                st = rd_ll(r, &e[2 * i + 1], LLONG_MIN, LLONG_MAX, &c->n);
        } else {
            st = rd_record(r, f->sub, el, &e[i]);
        }
        if (st != KW_OK)
            return st;
    }
    return KW_OK;
}

static kw_status rd_field(rd *r, const kw_field *f, unsigned char *p, const msgpack_object *o) {
    switch (f->kind) {
    case KW_F_STR:
    case KW_F_SCALAR:
        return rd_str(r, o, (const char **)p);
    case KW_F_INT:
        return rd_int(r, o, (int *)p);
    case KW_F_TRI: {
        kw_status st = rd_int(r, o, (int *)p);
        if (st == KW_OK && (*(int *)p < -1 || *(int *)p > 1))
            return rd_bad(r, "-1, 0 or 1");
        return st;
    }
    case KW_F_BYTES:
    case KW_F_LL:
        return rd_ll(r, o, LLONG_MIN, LLONG_MAX, (long long *)p);
    case KW_F_BOOL:
        return rd_bool(r, o, (bool *)p);
    case KW_F_LOC: {
        kw_loc *l = (kw_loc *)p;
        memset(l, 0, sizeof *l);
        if (o->type == MSGPACK_OBJECT_NIL)
            return KW_OK;
        if (!rd_is_array(o, 3))
            return rd_bad(r, "a location");
        const msgpack_object *e = o->via.array.ptr;
        if (rd_str(r, &e[0], &l->file) != KW_OK || rd_int(r, &e[1], &l->line) != KW_OK ||
            rd_int(r, &e[2], &l->column) != KW_OK)
            return KW_ERR;
        return l->file ? KW_OK : rd_bad(r, "a location's file");
    }
    case KW_F_STRS:
    case KW_F_LIST:
    case KW_F_KEYED:
    case KW_F_COUNTS:
    case KW_F_INTS:
        return rd_array(r, f, (kw_anyarr *)p, o);
    case KW_F_MAP:
        return rd_record(r, f->sub, p, o);
    case KW_F_PTR: {
        *(void **)p = NULL;
        if (o->type == MSGPACK_OBJECT_NIL)
            return KW_OK;
        void *sub = kw_arena_alloc(r->a, f->sub->size);
        if (!sub)
            return kw_fail(r->err, "%s: out of memory", r->name);
        *(void **)p = sub;
        return rd_record(r, f->sub, sub, o);
    }
    case KW_F_DIM3:
    case KW_F_DIM1: {
        kw_config_item *c = (kw_config_item *)p;
        if (!rd_is_array(o, 6))
            return rd_bad(r, "a launch configuration");
        const msgpack_object *e = o->via.array.ptr;
        if (rd_str(r, &e[0], &c->expr) != KW_OK || rd_bool(r, &e[1], &c->has_value) != KW_OK ||
            rd_int(r, &e[2], &c->dims) != KW_OK)
            return KW_ERR;
        for (int i = 0; i < 3; i++)
            if (rd_ll(r, &e[3 + i], LLONG_MIN, LLONG_MAX, &c->value[i]) != KW_OK)
                return KW_ERR;
        return KW_OK;
    }
    case KW_F_VAL: {
        kw_val *v = (kw_val *)p;
        int kind;
        if (!rd_is_array(o, 4))
            return rd_bad(r, "a value");
        const msgpack_object *e = o->via.array.ptr;
        if (rd_int(r, &e[0], &kind) != KW_OK ||
            rd_ll(r, &e[1], LLONG_MIN, LLONG_MAX, &v->num) != KW_OK ||
            rd_str(r, &e[2], &v->expr) != KW_OK || rd_str(r, &e[3], &v->why) != KW_OK)
            return KW_ERR;
        if (kind != KW_VAL_ABSENT && kind != KW_VAL_NUM && kind != KW_VAL_EXPR &&
            kind != KW_VAL_UNKNOWN)
            return rd_bad(r, "a value's kind");
        v->kind = (kw_val_kind)kind;
        return KW_OK;
    }
    }
    return rd_bad(r, "a known field");
}

static kw_status rd_record(rd *r, const kw_type *t, void *obj, const msgpack_object *o) {
    const char *outer = r->what;
    r->what = t->what;
    if (!rd_is_array(o, t->nfields))
        return rd_bad(r, "a record");
    unsigned char *b = obj;
    for (size_t i = 0; i < t->nfields; i++)
        if (rd_field(r, &t->fields[i], b + t->fields[i].off, &o->via.array.ptr[i]) != KW_OK)
            return KW_ERR;
    /* what the YAML form would read back (kw_schema.h) */
    kw_schema_normalize(t, obj);
    r->what = outer;
    return KW_OK;
}

kw_status kw_sidecar_unpack(kw_sidecar *sc, const char *name, const void *data, size_t len,
                            kw_err *err) {
    kw_sidecar_init(sc);
    size_t end = 0;
    if (!kw_msgpack_skip(data, len, &end, KW_PACK_MAXDEPTH) || end != len)
        return kw_fail(err, "%s: not a packed sidecar (damaged or cut short)", name);
    rd r = {.a = &sc->arena, .name = name, .what = "header", .err = err};
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    size_t off = 0;
    kw_status st = KW_ERR;
    if (msgpack_unpack_next(&up, data, len, &off) != MSGPACK_UNPACK_SUCCESS ||
        !rd_is_array(&up.data, 4)) {
        kw_fail(err, "%s: not a packed sidecar", name);
        goto done;
    }
    const msgpack_object *h = up.data.via.array.ptr;
    if (h[0].type != MSGPACK_OBJECT_STR || h[0].via.str.size != sizeof KW_PACK_MAGIC - 1 ||
        memcmp(h[0].via.str.ptr, KW_PACK_MAGIC, sizeof KW_PACK_MAGIC - 1)) {
        kw_fail(err, "%s: not a packed sidecar", name);
        goto done;
    }
    if (h[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER || h[1].via.u64 != kw_pack_fingerprint()) {
        kw_fail(err, "%s: packed by another build of kwalk (its schema tables differ)", name);
        goto done;
    }
    if (rd_int(&r, &h[2], &sc->schema) != KW_OK)
        goto done;
    st = rd_record(&r, &kw_t_sidecar, sc, &h[3]);
done:
    msgpack_unpacked_destroy(&up);
    free(r.strs);
    if (st != KW_OK)
        kw_sidecar_free(sc);
    return st;
}

kw_status kw_sidecar_unpack_file(kw_sidecar *sc, const char *path, kw_err *err) {
    char *data;
    size_t len;
    if (kw_fs_read_as(path, KW_FS_DATA, &data, &len, err) != KW_OK) {
        kw_sidecar_init(sc);
        return KW_ERR;
    }
    kw_status st = kw_sidecar_unpack(sc, path, data, len, err);
    free(data);
    return st;
}
