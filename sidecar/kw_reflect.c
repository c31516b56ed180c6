/* kw_reflect.c: reading sidecar records by YAML key path through the schema
 * tables (see kw_reflect.h). Lookups are linear scans of a table's rows: a
 * table has at most 64 rows and a path a handful of steps. */
#include "sidecar/kw_reflect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sidecar/kw_schema.h"

static kw_rv kw_rv_record(const kw_type *t, const void *obj) {
    kw_rv v = {KW_R_RECORD, t, obj, false, false};
    return v;
}

kw_rv kw_rv_kernel(const kw_kernel *k) {
    return kw_rv_record(&kw_t_kernel, k);
}

kw_rv kw_rv_kernel_arch(const kw_kernel_arch *a) {
    return kw_rv_record(&kw_t_kernel_arch, a);
}

kw_rv kw_rv_launch(const kw_launch *l) {
    return kw_rv_record(&kw_t_launch, l);
}

static kw_rv kw_rv_kind(kw_rkind kind) {
    kw_rv v = {kind, NULL, NULL, false, false};
    return v;
}

/* The value of field f of the record at base of type t. */
static kw_rv kw_rv_field(const kw_type *t, const kw_field *f, const unsigned char *base) {
    if (!kw_sc_present(t, f, base))
        return kw_rv_kind(KW_R_ABSENT);
    kw_rv v = {KW_R_ABSENT, f->sub, base + f->off, false, false};
    switch (f->kind) {
    case KW_F_STR:
        v.kind = KW_R_STR;
        break;
    case KW_F_SCALAR:
        v.kind = KW_R_STR;
        v.scalar = true;
        break;
    case KW_F_LL:
    case KW_F_TRI:
    case KW_F_VAL:
    case KW_F_INTS:
    case KW_F_PTR:
        /* the IR facts' kinds: the kwalk command reads them as C structs */
        return kw_rv_kind(KW_R_UNKNOWN_KEY);
    case KW_F_INT:
    case KW_F_BYTES:
        v.kind = KW_R_INT;
        v.narrow = f->kind == KW_F_INT;
        break;
    case KW_F_BOOL:
        v.kind = KW_R_BOOL;
        break;
    case KW_F_LOC:
        v.kind = KW_R_LOC;
        break;
    case KW_F_STRS:
        v.kind = KW_R_STRS;
        break;
    case KW_F_LIST:
    case KW_F_KEYED:
        v.kind = KW_R_LIST;
        break;
    case KW_F_MAP:
        v.kind = KW_R_RECORD;
        break;
    case KW_F_COUNTS:
        v.kind = KW_R_COUNTS;
        break;
    case KW_F_DIM3:
    case KW_F_DIM1:
        v.kind = KW_R_DIM;
        break;
    }
    return v;
}

kw_rv kw_rv_get(kw_rv rec, const char *path) {
    const char *p = path;
    while (rec.kind == KW_R_RECORD) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        const kw_type *t = rec.type;
        const kw_field *f = NULL;
        for (size_t i = 0; i < t->nfields && !f; i++)
            if (strlen(t->fields[i].key) == n && !memcmp(t->fields[i].key, p, n))
                f = &t->fields[i];
        if (!f)
            return kw_rv_kind(KW_R_UNKNOWN_KEY);
        kw_rv v = kw_rv_field(t, f, rec.ptr);
        if (!dot)
            return v;
        if (v.kind == KW_R_ABSENT)
            return v;
        rec = v;
        p = dot + 1;
    }
    return kw_rv_kind(KW_R_UNKNOWN_KEY); /* a step below a non-record */
}

bool kw_rv_present(kw_rv v) {
    return v.kind != KW_R_UNKNOWN_KEY && v.kind != KW_R_ABSENT;
}

const char *kw_rv_str(kw_rv v) {
    if (v.kind != KW_R_STR)
        return NULL;
    return *(const char *const *)v.ptr;
}

bool kw_rv_int(kw_rv v, long long *out) {
    if (v.kind == KW_R_INT) {
        *out = v.narrow ? *(const int *)v.ptr : *(const long long *)v.ptr;
        return true;
    }
    const char *s = kw_rv_str(v);
    if (!s || !s[0])
        return false;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (*end)
        return false;
    *out = x;
    return true;
}

bool kw_rv_bool(kw_rv v, bool *out) {
    if (v.kind != KW_R_BOOL)
        return false;
    *out = *(const bool *)v.ptr;
    return true;
}

const kw_loc *kw_rv_loc(kw_rv v) {
    return v.kind == KW_R_LOC ? v.ptr : NULL;
}

const char *kw_rv_text(kw_rv v, char *buf, size_t n) {
    long long x;
    bool b;
    if (v.kind == KW_R_STR)
        return kw_rv_str(v);
    if (v.kind == KW_R_INT && kw_rv_int(v, &x)) {
        snprintf(buf, n, "%lld", x);
        return buf;
    }
    if (kw_rv_bool(v, &b))
        return b ? "true" : "false";
    return NULL;
}

size_t kw_rv_len(kw_rv v) {
    if (v.kind == KW_R_LIST || v.kind == KW_R_STRS || v.kind == KW_R_COUNTS)
        return ((const kw_anyarr *)v.ptr)->n;
    return 0;
}

kw_rv kw_rv_at(kw_rv v, size_t i) {
    if (v.kind != KW_R_LIST || i >= kw_rv_len(v))
        return kw_rv_kind(KW_R_UNKNOWN_KEY);
    const kw_type *t = v.type;
    const kw_anyarr *a = v.ptr;
    return kw_rv_record(t, (const unsigned char *)a->v + i * t->size);
}

const char *kw_rv_str_at(kw_rv v, size_t i) {
    if (v.kind != KW_R_STRS || i >= kw_rv_len(v))
        return NULL;
    return ((const char *const *)((const kw_anyarr *)v.ptr)->v)[i];
}

const kw_count *kw_rv_counts(kw_rv v, size_t *n) {
    *n = 0;
    if (v.kind != KW_R_COUNTS)
        return NULL;
    const kw_anyarr *a = v.ptr;
    *n = a->n;
    return a->v;
}

bool kw_rv_count_of(kw_rv v, const char *key, long long *out) {
    size_t n;
    const kw_count *c = kw_rv_counts(v, &n);
    for (size_t i = 0; i < n; i++)
        if (c[i].key && !strcmp(c[i].key, key)) {
            *out = c[i].n;
            return true;
        }
    return false;
}

const char *kw_rv_key_at(kw_rv rec, size_t i) {
    if (rec.kind != KW_R_RECORD)
        return NULL;
    const kw_type *t = rec.type;
    return i < t->nfields ? t->fields[i].key : NULL;
}

kw_rv kw_rv_field_at(kw_rv rec, size_t i) {
    if (rec.kind != KW_R_RECORD)
        return kw_rv_kind(KW_R_UNKNOWN_KEY);
    const kw_type *t = rec.type;
    if (i >= t->nfields)
        return kw_rv_kind(KW_R_UNKNOWN_KEY);
    return kw_rv_field(t, &t->fields[i], rec.ptr);
}
