/* kw_decode.c: listings decoded on use (see kw_decode.h). One entry per code
 * object a unit names; an entry is resolved once, under its own lock: the
 * unit's object opened, the code object found by target id and checked by
 * size and MD5 (the messages are kw_co_refill.c's), and its decode cache
 * record read or made (kw_co_sidecar_record_of). An arch is filled from the
 * record's entry of its kernel's symbol (a Triton specialization's: its
 * NAME, its line table then under the index's --map-prefix rules). */
#define _POSIX_C_SOURCE 200809L
#include "model/kw_decode.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codeobj/kw_co_cache.h"
#include "codeobj/kw_co_ids.h"
#include "codeobj/kw_co_sidecar.h"
#include "codeobj/kw_codeobj.h"
#include "common/kw_pool.h"

typedef struct kw_dec_co {
    const kw_index_tu *tu;
    const kw_code_object *c;
    pthread_mutex_t mu;
    bool done;
    kw_status st; /* KW_ERR: out of memory or the disassembly failed (err) */
    bool soft;    /* a Triton .hsaco: a failed disassembly is the arch's lines_note */
    bool too_old; /* it failed because this LLVM predates its processor (gfx950, LLVM 19) */
    kw_err err;
    char *note;          /* gone or changed: why (malloc'd) */
    unsigned char *data; /* the record */
    kw_co_record rec;
} kw_dec_co;

struct kw_decode {
    size_t n;
    kw_dec_co *v;
    size_t *first; /* unit u's entries: v[first[u] .. first[u + 1]) */
    size_t nunits;
};

kw_decode *kw_decode_new(const kw_index *ix) {
    kw_decode *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->nunits = ix->tus.n;
    d->first = calloc(d->nunits + 1, sizeof *d->first);
    for (size_t u = 0; u < ix->tus.n; u++)
        d->n += ix->tus.v[u].tu.code_objects.n;
    d->v = calloc(d->n + 1, sizeof *d->v);
    if (!d->first || !d->v) {
        free(d->first);
        free(d->v);
        free(d);
        return NULL;
    }
    size_t j = 0;
    for (size_t u = 0; u < ix->tus.n; u++) {
        d->first[u] = j;
        const kw_index_tu *tu = &ix->tus.v[u];
        for (size_t i = 0; i < tu->tu.code_objects.n; i++, j++) {
            d->v[j].tu = tu;
            d->v[j].c = &tu->tu.code_objects.v[i];
            pthread_mutex_init(&d->v[j].mu, NULL);
        }
    }
    d->first[ix->tus.n] = j;
    for (size_t i = 0; i < ix->kernels.n; i++) /* the units of Triton specializations */
        for (size_t r = 0; ix->kernels.v[i].triton && r < ix->kernels.v[i].archs.n; r++) {
            size_t u = ix->kernels.v[i].archs.v[r].unit;
            if (!u || u > ix->tus.n)
                continue;
            for (size_t c = d->first[u - 1]; c < d->first[u]; c++)
                d->v[c].soft = true;
        }
    return d;
}

void kw_decode_free(kw_decode *d) {
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++) {
        pthread_mutex_destroy(&d->v[i].mu);
        kw_co_record_close(&d->v[i].rec);
        free(d->v[i].data);
        free(d->v[i].note);
    }
    free(d->v);
    free(d->first);
    free(d);
}

static char *kw_dec_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* Open set from object (by identity only with ids), find and check e's code
 * object; the index of the code object when it is e's, else -1 with e->note
 * (or e->st) set. */
static long kw_dec_check(kw_dec_co *e, kw_co_set *set, bool ids) {
    const char *object = e->tu->tu.object;
    const char *name = object ? object : "the object";
    const kw_code_object *c = e->c;
    struct stat sb;
    if (!object || stat(object, &sb) != 0) {
        e->note = kw_dec_printf("%s not found (%s)", name,
                                object ? strerror(errno) : "the sidecar names none");
        return -1;
    }
    kw_err oerr;
    if ((ids ? kw_co_open_ids(set, object, &oerr) : kw_co_open(set, object, &oerr)) != KW_OK) {
        e->note = kw_dec_printf("%s holds no code object the sidecar names: %s", name, oerr.msg);
        return -1;
    }
    bool same;
    long o = kw_co_sidecar_find(set, c, NULL, &same);
    if (o < 0) {
        e->note = kw_dec_printf("%s changed since the compile: it has no %s code object now", name,
                                c->target_id ? c->target_id : c->arch);
    } else if (!same) {
        const kw_co_object *obj = &set->objects.v[o];
        char md5[33];
        kw_co_md5_hex(obj->image, obj->image_size, md5);
        e->note = kw_dec_printf("%s changed since the compile (%s code object: %zu bytes, md5 %s; "
                                "was %lld bytes, md5 %s)",
                                name, obj->arch, obj->image_size, md5, c->bytes,
                                c->md5 ? c->md5 : "not recorded");
        o = -1;
    }
    if (e->note == NULL && o < 0)
        e->st = kw_fail(&e->err, "out of memory");
    return o;
}

/* Open and check e's code object and read its record (e->mu held): the
 * object read by identity only and the record taken from the decode cache;
 * when the cache has none, the object read whole and the code object
 * decoded. */
static void kw_dec_resolve(kw_dec_co *e) {
    const char *name = e->tu->tu.object ? e->tu->tu.object : "the object";
    kw_co_set set;
    kw_co_set_init(&set);
    e->st = KW_OK;
    long o = kw_dec_check(e, &set, true);
    if (o >= 0 && !kw_co_record_cached(&set.objects.v[o], e->c->md5, &e->data, &e->rec)) {
        kw_co_set_free(&set);
        kw_co_set_init(&set);
        o = kw_dec_check(e, &set, false);
        size_t n = 0;
        /* its MD5 is e->c's: kw_co_sidecar_find compared them */
        if (o >= 0)
            e->st = kw_co_sidecar_record_of(&set, (size_t)o, e->c->md5, &e->data, &n, &e->err);
        if (o >= 0 && e->st == KW_OK &&
            !kw_co_record_open(&e->rec, e->data, n, set.objects.v[o].kernels.n))
            e->st = kw_fail(&e->err, "%s: a decoded code object that does not read back", name);
        e->too_old = e->st != KW_OK && set.llvm_too_old;
    }
    kw_co_set_free(&set);
}

static kw_dec_co *kw_dec_ready(kw_dec_co *e) {
    pthread_mutex_lock(&e->mu);
    if (!e->done) {
        kw_dec_resolve(e);
        e->done = true;
    }
    pthread_mutex_unlock(&e->mu);
    return e;
}

/* Is a the record of code object c (its arch key is c's arch or target id,
 * or it has c's target id)? kw_co_refill.c's rule. */
static bool kw_dec_owns(const kw_kernel_arch *a, const kw_code_object *c) {
    if (!a->arch)
        return false;
    if ((c->arch && !strcmp(a->arch, c->arch)) || (c->target_id && !strcmp(a->arch, c->target_id)))
        return true;
    return a->target_id && c->target_id && !strcmp(a->target_id, c->target_id);
}

/* Has arch a its listing in a code object of its unit? */
static bool kw_dec_wants(const kw_decode *d, const kw_kernel_arch *a) {
    if (a->isa || a->isa_note || !a->unit || a->unit > d->nunits)
        return false;
    for (size_t i = d->first[a->unit - 1]; i < d->first[a->unit]; i++)
        if (kw_dec_owns(a, d->v[i].c))
            return true;
    return false;
}

/* The symbol of k in its code object: a Triton specialization's symbol is
 * NAME@HASH (docs/triton.md), its code object's kernel NAME. */
static const char *kw_dec_symbol(const kw_kernel *k, kw_arena *arena) {
    const char *at = k->triton ? strrchr(k->symbol, '@') : NULL;
    return at ? kw_arena_strndup(arena, k->symbol, (size_t)(at - k->symbol)) : k->symbol;
}

/* A Triton specialization's line table under the --map-prefix rules its
 * index was written with (kw_triton.map_prefix), as the cache reader
 * rewrote it before index version 6. */
static void kw_dec_map_lines(const kw_triton *t, kw_kernel_arch *a, kw_arena *arena) {
    const kw_path_prefix *p = t->map_prefix.v;
    size_t n = t->map_prefix.n;
    for (size_t i = 0; n && i < a->lines.n; i++) {
        kw_isa_line *l = &a->lines.v[i];
        l->location.file = kw_path_prefix_map(arena, p, n, l->location.file);
        for (size_t m = 0; m < l->inlined_at.n; m++)
            l->inlined_at.v[m].file = kw_path_prefix_map(arena, p, n, l->inlined_at.v[m].file);
    }
}

/* Fill arch a of kernel k from its unit's code objects. A Triton
 * specialization whose code object this LLVM cannot disassemble (gfx950 on
 * LLVM 19) keeps its metadata's facts and says why in lines_note. */
static kw_status kw_dec_fill(kw_decode *d, const kw_kernel *k, kw_kernel_arch *a, kw_arena *arena,
                             kw_err *err) {
    const char *note = NULL, *symbol = kw_dec_symbol(k, arena);
    if (!symbol)
        return kw_fail(err, "out of memory");
    for (size_t i = d->first[a->unit - 1]; i < d->first[a->unit]; i++) {
        if (!kw_dec_owns(a, d->v[i].c))
            continue;
        kw_dec_co *e = kw_dec_ready(&d->v[i]);
        if (e->st != KW_OK && (k->triton || e->soft || e->too_old)) {
            a->lines_note = kw_arena_printf(arena, "no listing: %s", e->err.msg);
            return a->lines_note ? KW_OK : kw_fail(err, "out of memory");
        }
        if (e->st != KW_OK) {
            *err = e->err;
            return KW_ERR;
        }
        if (e->note) {
            note = note ? note : e->note;
            continue;
        }
        if (!e->note && !e->data)
            return kw_fail(err, "out of memory");
        for (size_t r = 0; r < e->rec.nkernels; r++) {
            if (!kw_co_record_has(&e->rec, r, symbol))
                continue;
            if (!kw_co_record_fill(&e->rec, r, arena, a))
                return kw_fail(err, "%s: a damaged decode cache record", k->symbol);
            if (k->triton)
                kw_dec_map_lines(k->triton, a, arena);
            return KW_OK;
        }
    }
    if (note && !(a->isa_note = kw_arena_strdup(arena, note)))
        return kw_fail(err, "out of memory");
    return KW_OK;
}

kw_status kw_decode_kernel(kw_decode *d, const kw_kernel *k, kw_arena *a, const kw_kernel **out,
                           kw_err *err) {
    *out = k;
    bool any = false;
    for (size_t j = 0; d && k && j < k->archs.n && !any; j++)
        any = kw_dec_wants(d, &k->archs.v[j]);
    if (!any)
        return KW_OK;
    kw_kernel *c = kw_arena_alloc(a, sizeof *c);
    kw_kernel_arch *v = c ? kw_arena_alloc(a, k->archs.n * sizeof *v) : NULL;
    if (!v)
        return kw_fail(err, "out of memory");
    *c = *k;
    memcpy(v, k->archs.v, k->archs.n * sizeof *v);
    c->archs.v = v;
    c->archs.cap = k->archs.n;
    for (size_t j = 0; j < c->archs.n; j++)
        if (kw_dec_wants(d, &v[j]) && kw_dec_fill(d, k, &v[j], a, err) != KW_OK)
            return KW_ERR;
    *out = c;
    return KW_OK;
}

static void kw_dec_work(void *ctx, unsigned worker, size_t i) {
    kw_decode *d = ctx;
    (void)worker;
    kw_dec_ready(&d->v[i]);
}

/* A code object this LLVM cannot disassemble (gfx950 on LLVM 19) is not
 * an error here: the page of a kernel in it says so in lines_note. */
static int kw_dec_done(void *ctx, size_t i) {
    kw_decode *d = ctx;
    const kw_dec_co *e = &d->v[i];
    return e->st == KW_OK || e->soft || e->too_old ? 0 : (int)i + 1;
}

kw_status kw_decode_all(kw_decode *d, unsigned threads, kw_err *err) {
    if (!d || !d->n)
        return KW_OK;
    if (!threads) { /* every core, unless KWALK_JOBS says */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = getenv("KWALK_JOBS") || cpus < 1 ? kw_pool_threads()
                  : cpus > 256                     ? 256
                                                   : (unsigned)cpus;
    }
    int rc = kw_pool_run(d->n, threads, 4 * (size_t)(threads ? threads : 1), kw_dec_work,
                         kw_dec_done, d);
    if (rc) {
        *err = d->v[rc - 1].err;
        return KW_ERR;
    }
    return KW_OK;
}
