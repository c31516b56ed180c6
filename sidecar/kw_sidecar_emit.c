/* kw_sidecar_emit.c: the sidecar's YAML writer. Walks the schema tables of
 * kw_sidecar.c and writes through kw_yaml_emit.h (libyaml), so the output is
 * deterministic: keys in table order, absent values omitted, block style with
 * small records as flow mappings. Strings are quoted as kw_yaml_emit_str says; the
 * document ends with "...", which the reader requires. */
#include "sidecar/kw_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_fs.h"
#include "sidecar/kw_call_graph.h"
#include "sidecar/kw_sidecar_zstd.h"

/* ---- Records -------------------------------------------------------------------------------- */

static void kw_sidecar_emit_loc(kw_yaml_emitter *e, const kw_loc *l) {
    kw_yaml_emit_map_start(e, true);
    kw_yaml_emit_key(e, "file");
    kw_yaml_emit_str(e, l->file);
    kw_yaml_emit_key_int(e, "line", l->line);
    kw_yaml_emit_key_int(e, "column", l->column);
    kw_yaml_emit_map_end(e);
}

static void kw_sidecar_emit_record(kw_yaml_emitter *e, const kw_type *t, const void *obj);

static void kw_sidecar_emit_config(kw_yaml_emitter *e, const kw_config_item *c, int dims) {
    kw_yaml_emit_map_start(e, true);
    if (c->expr) {
        kw_yaml_emit_key(e, "expr");
        kw_yaml_emit_str(e, c->expr);
    }
    if (c->has_value) {
        kw_yaml_emit_key(e, "value");
        if (dims == 3) {
            kw_yaml_emit_seq_start(e, true);
            for (int i = 0; i < 3; i++)
                kw_yaml_emit_ll(e, c->value[i]);
            kw_yaml_emit_seq_end(e);
        } else {
            kw_yaml_emit_ll(e, c->value[0]);
        }
    }
    kw_yaml_emit_map_end(e);
}

static void kw_sidecar_emit_keyed(kw_yaml_emitter *e, const kw_field *f, const kw_anyarr *arr) {
    const kw_type *t = f->sub;
    const kw_field *kf = &t->fields[0];
    kw_type body = *t; /* the element without its key field */
    body.fields++;
    body.nfields--;
    kw_symmap seen; /* the keys written so far */
    kw_symmap_init(&seen);
    kw_yaml_emit_map_start(e, false);
    for (size_t i = 0; i < arr->n && !e->failed; i++) {
        const unsigned char *el = (const unsigned char *)arr->v + i * t->size;
        const char *k = *(const char *const *)(el + kf->off);
        if (!k) {
            e->failed = true;
            kw_fail(e->err, "cannot write YAML: %s %zu of '%s' has no %s", t->what, i, f->key,
                    kf->key);
            break;
        }
        if (kw_symmap_get(&seen, k)) {
            e->failed = true;
            kw_fail(e->err, "cannot write YAML: duplicate %s '%s' in '%s'", t->what, k, f->key);
            break;
        }
        if (kw_symmap_put(&seen, k, i) != KW_OK) {
            e->failed = true;
            kw_fail(e->err, "cannot write YAML: out of memory");
            break;
        }
        kw_yaml_emit_str(e, k);
        kw_sidecar_emit_record(e, &body, el);
    }
    kw_symmap_free(&seen);
    if (!e->failed)
        kw_yaml_emit_map_end(e);
}

/* Is s a decimal integer that reads back as the same number ("-12", "0";
 * not "012", "+1", "1e3")? */
static bool kw_sidecar_emit_is_decimal(const char *s) {
    const char *d = s[0] == '-' ? s + 1 : s;
    if (!d[0] || (d[0] == '0' && d[1]) || strlen(d) > 18)
        return false;
    for (; *d; d++)
        if (*d < '0' || *d > '9')
            return false;
    return true;
}

static void kw_sidecar_emit_counts(kw_yaml_emitter *e, const kw_field *f, const kw_anyarr *a) {
    const kw_count *c = a->v;
    kw_yaml_emit_map_start(e, true);
    for (size_t i = 0; i < a->n && !e->failed; i++) {
        if (!c[i].key) {
            e->failed = true;
            kw_fail(e->err, "cannot write YAML: count %zu of '%s' has no key", i, f->key);
            return;
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(c[j].key, c[i].key)) {
                e->failed = true;
                kw_fail(e->err, "cannot write YAML: duplicate key '%s' in '%s'", c[i].key, f->key);
                return;
            }
        kw_yaml_emit_str(e, c[i].key);
        kw_yaml_emit_ll(e, c[i].n);
    }
    kw_yaml_emit_map_end(e);
}

static void kw_sidecar_emit_value(kw_yaml_emitter *e, const kw_field *f,
                                  const unsigned char *base) {
    const void *p = base + f->off;
    switch (f->kind) {
    case KW_F_STR:
        if (f->flags & KW_F_QUOTED)
            kw_yaml_emit_qstr(e, *(const char *const *)p);
        else
            kw_yaml_emit_str(e, *(const char *const *)p);
        break;
    case KW_F_SCALAR: {
        const char *s = *(const char *const *)p;
        if (kw_sidecar_emit_is_decimal(s))
            kw_yaml_emit_scalar(e, s, strlen(s), YAML_PLAIN_SCALAR_STYLE);
        else
            kw_yaml_emit_str(e, s);
        break;
    }
    case KW_F_COUNTS:
        kw_sidecar_emit_counts(e, f, p);
        break;
    case KW_F_LL: {
        long long v = *(const long long *)p;
        if (v < 0 && (f->flags & KW_F_UNKNOWN))
            kw_yaml_emit_word(e, "unknown");
        else if (v < 0 && (f->flags & KW_F_NULL))
            kw_yaml_emit_word(e, "null");
        else
            kw_yaml_emit_ll(e, v);
        break;
    }
    case KW_F_TRI: {
        int v = *(const int *)p;
        kw_yaml_emit_word(e, v < 0 ? "unknown" : v ? "true" : "false");
        break;
    }
    case KW_F_VAL: {
        const kw_val *v = p;
        if (v->kind == KW_VAL_NUM)
            kw_yaml_emit_ll(e, v->num);
        else if (v->kind == KW_VAL_EXPR && v->expr && !strcmp(v->expr, "unknown"))
            kw_yaml_emit_scalar(e, v->expr, 7, YAML_DOUBLE_QUOTED_SCALAR_STYLE); /* not the word */
        else if (v->kind == KW_VAL_EXPR)
            kw_yaml_emit_qstr(e, v->expr);
        else
            kw_yaml_emit_word(e, "unknown");
        break;
    }
    case KW_F_INTS: {
        const kw_anyarr *a = p;
        kw_yaml_emit_seq_start(e, true);
        for (size_t i = 0; i < a->n; i++)
            kw_yaml_emit_ll(e, ((const long long *)a->v)[i]);
        kw_yaml_emit_seq_end(e);
        break;
    }
    case KW_F_PTR:
        kw_sidecar_emit_record(e, f->sub, *(const void *const *)p);
        break;
    case KW_F_INT:
        kw_yaml_emit_ll(e, *(const int *)p);
        break;
    case KW_F_BYTES:
        if (f->flags & KW_F_HEX) {
            char num[32];
            int n = snprintf(num, sizeof(num), "0x%llx", *(const long long *)p);
            kw_yaml_emit_scalar(e, num, (size_t)n, YAML_PLAIN_SCALAR_STYLE);
        } else {
            kw_yaml_emit_ll(e, *(const long long *)p);
        }
        break;
    case KW_F_BOOL:
        kw_yaml_emit_bool(e, *(const bool *)p);
        break;
    case KW_F_LOC:
        kw_sidecar_emit_loc(e, p);
        break;
    case KW_F_DIM3:
    case KW_F_DIM1:
        kw_sidecar_emit_config(e, p, f->kind == KW_F_DIM3 ? 3 : 1);
        break;
    case KW_F_STRS: {
        const kw_anyarr *a = p;
        kw_yaml_emit_seq_start(e, !(f->flags & KW_F_BLOCK));
        for (size_t i = 0; i < a->n; i++) {
            const char *s = ((const char *const *)a->v)[i];
            if (f->flags & KW_F_QUOTED)
                kw_yaml_emit_qstr(e, s ? s : "");
            else
                kw_yaml_emit_str(e, s ? s : "");
        }
        kw_yaml_emit_seq_end(e);
        break;
    }
    case KW_F_LIST: {
        const kw_anyarr *a = p;
        kw_yaml_emit_seq_start(e, (f->flags & KW_F_FLOW) != 0);
        for (size_t i = 0; i < a->n; i++)
            kw_sidecar_emit_record(e, f->sub, (const unsigned char *)a->v + i * f->sub->size);
        kw_yaml_emit_seq_end(e);
        break;
    }
    case KW_F_KEYED:
        kw_sidecar_emit_keyed(e, f, p);
        break;
    case KW_F_MAP:
        kw_sidecar_emit_record(e, f->sub, p);
        break;
    }
}

void kw_sidecar_emit_fields(kw_yaml_emitter *e, const kw_type *t, const void *obj) {
    const unsigned char *base = obj;
    for (size_t i = 0; i < t->nfields && !e->failed; i++) {
        const kw_field *f = &t->fields[i];
        if ((f->flags & KW_F_REQUIRED) && f->kind == KW_F_STR &&
            !*(const char *const *)(base + f->off)) {
            e->failed = true;
            kw_fail(e->err, "cannot write YAML: a %s has no '%s'", t->what, f->key);
            return;
        }
        if (!kw_schema_present(t, f, base))
            continue;
        kw_yaml_emit_key(e, f->key);
        kw_sidecar_emit_value(e, f, base);
        const kw_val *v = (const kw_val *)(base + f->off);
        if (f->kind == KW_F_VAL && v->kind == KW_VAL_UNKNOWN && v->why) {
            char key[128];
            snprintf(key, sizeof(key), "%s_why", f->key);
            kw_yaml_emit_key(e, key);
            kw_yaml_emit_qstr(e, v->why);
        }
    }
}

static void kw_sidecar_emit_record(kw_yaml_emitter *e, const kw_type *t, const void *obj) {
    kw_yaml_emit_map_start(e, t->flow);
    kw_sidecar_emit_fields(e, t, obj);
    kw_yaml_emit_map_end(e);
}

/* The document as written: the kernels without the calls the device call
 * graph gives back (kw_call_graph.h), and that graph. */
typedef struct kw_sidecar_written {
    kw_sidecar sc; /* a shallow copy of the sidecar with its own kernels array */
    kw_call_graph graph;
} kw_sidecar_written;

static void kw_sidecar_emit_body(kw_yaml_emitter *e, const void *arg) {
    const kw_sidecar_written *w = arg;
    kw_yaml_emit_key_int(e, "kwalk_schema", KW_SCHEMA_VERSION);
    kw_sidecar_emit_fields(e, &kw_t_sidecar, &w->sc);
    kw_sidecar_emit_fields(e, &kw_t_call_graph, &w->graph);
}

kw_status kw_sidecar_emit(const kw_sidecar *sc, kw_buf *out, kw_err *err) {
    size_t start = out->len;
    kw_arena a;
    kw_arena_init(&a);
    kw_sidecar_written w;
    w.sc = *sc;
    kw_kernel *kernels;
    kw_status st = kw_call_graph_factor(sc, &a, &w.graph, &kernels, err);
    if (st == KW_OK) {
        if (kernels)
            w.sc.kernels.v = kernels;
        st = kw_yaml_emit_shared(out, err, kw_sidecar_emit_body, &w);
    }
    kw_arena_free(&a);
    if (st != KW_OK) {
        out->len = start; /* leave no partial document behind */
        if (out->ptr)
            out->ptr[start] = '\0';
    }
    return st;
}

kw_status kw_sidecar_write_file(const kw_sidecar *sc, const char *path, kw_err *err) {
    return kw_sidecar_write_file_as(sc, path, false, err);
}

kw_status kw_sidecar_write_file_as(const kw_sidecar *sc, const char *path, bool zstd, kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_status st = kw_sidecar_emit(sc, &b, err);
    if (st == KW_OK && zstd) {
        char *packed;
        size_t packed_len;
        st = kw_sidecar_zstd_compress(b.ptr, b.len, &packed, &packed_len, err);
        if (st == KW_OK) {
            st = kw_fs_write_atomic(path, packed, packed_len, err);
            free(packed);
        }
    } else if (st == KW_OK) {
        st = kw_fs_write_atomic(path, b.ptr, b.len, err);
    }
    kw_buf_free(&b);
    return st;
}

static void kw_irf_emit_list_body(kw_yaml_emitter *e, const void *l) {
    kw_sidecar_emit_fields(e, &kw_t_irf_list, l);
}

kw_status kw_irf_emit_list(kw_irf *const *facts, size_t n, kw_buf *out, kw_err *err) {
    kw_arena a;
    kw_arena_init(&a);
    kw_irf_list l;
    memset(&l, 0, sizeof(l));
    for (size_t i = 0; i < n; i++) {
        kw_irf *f = KW_PUSH(&a, l.kernels);
        if (!f) {
            kw_arena_free(&a);
            return kw_fail(err, "cannot write YAML: out of memory");
        }
        *f = *facts[i]; /* shallow: the emitter only reads */
    }
    kw_status st = kw_yaml_emit_shared(out, err, kw_irf_emit_list_body, &l);
    kw_arena_free(&a);
    return st;
}
