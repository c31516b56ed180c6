/* kw_co_refill.c: schema 2's read-back. A sidecar names the code objects its
 * compile embedded (translation_unit.code_objects: arch, target id, size,
 * MD5); the object is opened and each one checked (`kwalk index`:
 * kw_co_sidecar_check, which decodes nothing), and the kernels' listings
 * filled from those that are unchanged (kw_co_sidecar_refill), with the code
 * the plugin itself runs (kw_co_sidecar_fill_set). A code object that is gone or changed
 * gives its kernel archs a note instead: never another object's ISA. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codeobj/kw_co_sidecar.h"
#include "codeobj/kw_codeobj.h"

/* Does kernel arch a belong to the code object c (its arch key is c's arch
 * or target id, or it was filled from a code object of c's target id)? */
static bool kw_refill_owns(const kw_kernel_arch *a, const kw_code_object *c) {
    if (!a->arch)
        return false;
    if ((c->arch && !strcmp(a->arch, c->arch)) || (c->target_id && !strcmp(a->arch, c->target_id)))
        return true;
    return a->target_id && c->target_id && !strcmp(a->target_id, c->target_id);
}

/* Give every kernel arch of c (all archs when c is NULL) the note. */
static void kw_refill_note(kw_sidecar *sc, const kw_code_object *c, const char *note) {
    for (size_t k = 0; k < sc->kernels.n; k++)
        for (size_t i = 0; i < sc->kernels.v[k].archs.n; i++) {
            kw_kernel_arch *a = &sc->kernels.v[k].archs.v[i];
            if (!a->isa && (!c || kw_refill_owns(a, c)))
                a->isa_note = note;
        }
}

/* A file linked from several units (`ld -r`, a shared library: embedded
 * sidecars, kw_co_embedded.h) holds several code objects of one target:
 * kw_co_sidecar_find takes the first not yet taken. */
long kw_co_sidecar_find(const kw_co_set *set, const kw_code_object *c, const bool *taken,
                        bool *same) {
    long first = -1;
    *same = false;
    for (size_t o = 0; o < set->objects.n; o++) {
        const kw_co_object *obj = &set->objects.v[o];
        if ((taken && taken[o]) || !obj->arch)
            continue;
        const char *want = c->target_id ? c->target_id : c->arch;
        const char *have = c->target_id ? obj->target_id : obj->arch;
        if (!want || !have || strcmp(want, have))
            continue;
        if (first < 0)
            first = (long)o;
        if (c->md5 && (long long)obj->image_size == c->bytes) {
            char md5[33];
            kw_co_md5_hex(obj->image, obj->image_size, md5);
            if (!strcmp(md5, c->md5)) {
                *same = true;
                return (long)o;
            }
        }
    }
    return first;
}

/* The fill keys a second code object of one target apart by its target id
 * (kw_co_sidecar.c): an arch entry with a target id counts as filled. The
 * plugin's pass left target ids in the sidecar, so they are set aside for
 * the fill and put back where it did not set them (archs of code objects
 * that did not match). */
static kw_status kw_refill_fill(kw_sidecar *sc, kw_co_set *set, const bool *skip, kw_err *err) {
    size_t n = 0;
    for (size_t k = 0; k < sc->kernels.n; k++)
        n += sc->kernels.v[k].archs.n;
    const char **saved = calloc(n + 1, sizeof *saved);
    if (!saved)
        return kw_fail(err, "out of memory");
    size_t j = 0;
    for (size_t k = 0; k < sc->kernels.n; k++)
        for (size_t i = 0; i < sc->kernels.v[k].archs.n; i++, j++) {
            saved[j] = sc->kernels.v[k].archs.v[i].target_id;
            sc->kernels.v[k].archs.v[i].target_id = NULL;
        }
    kw_status st =
        kw_co_sidecar_fill_set(sc, set, KW_CO_SC_LISTING | KW_CO_SC_CACHE, NULL, skip, err);
    j = 0;
    for (size_t k = 0; k < sc->kernels.n; k++)
        for (size_t i = 0; i < sc->kernels.v[k].archs.n && j < n; i++, j++)
            if (!sc->kernels.v[k].archs.v[i].target_id)
                sc->kernels.v[k].archs.v[i].target_id = saved[j];
    free(saved);
    return st;
}

static kw_status kw_refill_run(kw_sidecar *sc, const char *object, bool fill, const char **note,
                               kw_err *err) {
    *note = NULL;
    if (!sc->tu.code_objects.n)
        return KW_OK;
    kw_arena *A = &sc->arena;
    const char *obj_name = object ? object : "the object";
    struct stat sb;
    if (!object || stat(object, &sb) != 0) {
        *note = kw_arena_printf(A, "%s not found (%s)", obj_name,
                                object ? strerror(errno) : "the sidecar names none");
        kw_refill_note(sc, NULL, *note);
        return *note ? KW_OK : kw_fail(err, "out of memory");
    }
    kw_co_set set;
    kw_co_set_init(&set);
    kw_err oerr;
    if (kw_co_open(&set, object, &oerr) != KW_OK) {
        kw_co_set_free(&set);
        *note =
            kw_arena_printf(A, "%s holds no code object the sidecar names: %s", obj_name, oerr.msg);
        kw_refill_note(sc, NULL, *note);
        return *note ? KW_OK : kw_fail(err, "out of memory");
    }
    bool *taken = calloc(set.objects.n + 1, sizeof *taken);
    bool *skip = calloc(set.objects.n + 1, sizeof *skip);
    kw_status st = taken && skip ? KW_OK : kw_fail(err, "out of memory");
    for (size_t i = 0; i < sc->tu.code_objects.n && st == KW_OK; i++) {
        const kw_code_object *c = &sc->tu.code_objects.v[i];
        bool same;
        long o = kw_co_sidecar_find(&set, c, taken, &same);
        const char *why = NULL;
        bool bad = !same;
        if (o < 0) {
            why = kw_arena_printf(A, "%s changed since the compile: it has no %s code object now",
                                  obj_name, c->target_id ? c->target_id : c->arch);
        } else {
            const kw_co_object *obj = &set.objects.v[o];
            taken[o] = true;
            if (bad) { /* kw_co_sidecar_find compared them; the MD5 again for the message */
                char md5[33];
                kw_co_md5_hex(obj->image, obj->image_size, md5);
                why = kw_arena_printf(A,
                                      "%s changed since the compile (%s code object: %zu bytes, "
                                      "md5 %s; was %lld bytes, md5 %s)",
                                      obj_name, obj->arch, obj->image_size, md5, c->bytes,
                                      c->md5 ? c->md5 : "not recorded");
            }
        }
        if (bad && !why) {
            st = kw_fail(err, "out of memory");
        } else if (bad) {
            if (o >= 0)
                skip[o] = true;
            kw_refill_note(sc, c, why);
            if (!*note)
                *note = why;
        }
    }
    /* code objects the sidecar does not name (the object changed) are not read */
    for (size_t o = 0; o < set.objects.n && st == KW_OK; o++)
        if (!taken[o])
            skip[o] = true;
    if (st == KW_OK && fill)
        st = kw_refill_fill(sc, &set, skip, err);
    free(taken);
    free(skip);
    kw_co_set_free(&set);
    return st;
}

kw_status kw_co_sidecar_refill(kw_sidecar *sc, const char *object, const char **note, kw_err *err) {
    return kw_refill_run(sc, object, true, note, err);
}

kw_status kw_co_sidecar_check(kw_sidecar *sc, const char *object, const char **note, kw_err *err) {
    return kw_refill_run(sc, object, false, note, err);
}
