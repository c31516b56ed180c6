/* kw_co_sidecar.c: the code-object facts of a compile, into its sidecar. */
#include "codeobj/kw_co_sidecar.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_co_cache.h"
#include "codeobj/kw_codeobj.h"

/* Where each instruction class is counted in kw_isa_classes. */
static const size_t kw_co_sidecar_class_field[KW_CO_NCLASSES] = {
    [KW_CO_SALU] = offsetof(kw_isa_classes, salu),
    [KW_CO_VALU] = offsetof(kw_isa_classes, valu),
    [KW_CO_VALU_PACKED] = offsetof(kw_isa_classes, valu_packed),
    [KW_CO_VALU_TRANS] = offsetof(kw_isa_classes, valu_trans),
    [KW_CO_CVT_LOWP] = offsetof(kw_isa_classes, cvt_fp8_fp4),
    [KW_CO_MFMA] = offsetof(kw_isa_classes, mfma),
    [KW_CO_SMFMAC] = offsetof(kw_isa_classes, smfmac),
    [KW_CO_WMMA] = offsetof(kw_isa_classes, wmma),
    [KW_CO_READLANE] = offsetof(kw_isa_classes, readlane),
    [KW_CO_WRITELANE] = offsetof(kw_isa_classes, writelane),
    [KW_CO_READFIRSTLANE] = offsetof(kw_isa_classes, readfirstlane),
    [KW_CO_PERMLANE] = offsetof(kw_isa_classes, permlane),
    [KW_CO_VMEM_LOAD] = offsetof(kw_isa_classes, vmem_load),
    [KW_CO_VMEM_STORE] = offsetof(kw_isa_classes, vmem_store),
    [KW_CO_VMEM_ATOMIC] = offsetof(kw_isa_classes, vmem_atomic),
    [KW_CO_SMEM] = offsetof(kw_isa_classes, smem),
    [KW_CO_LDS] = offsetof(kw_isa_classes, lds),
    [KW_CO_LDS_SWIZZLE] = offsetof(kw_isa_classes, ds_swizzle),
    [KW_CO_LDS_BPERMUTE] = offsetof(kw_isa_classes, ds_bpermute),
    [KW_CO_LDS_PERMUTE] = offsetof(kw_isa_classes, ds_permute),
    [KW_CO_BRANCH] = offsetof(kw_isa_classes, branch),
    [KW_CO_WAITCNT] = offsetof(kw_isa_classes, waitcnt),
    [KW_CO_BARRIER] = offsetof(kw_isa_classes, barrier),
    [KW_CO_NOP] = offsetof(kw_isa_classes, nop),
    [KW_CO_OTHER] = offsetof(kw_isa_classes, other),
};

static kw_kernel *kw_co_sidecar_kernel(kw_sidecar *sc, const char *symbol) {
    for (size_t i = 0; i < sc->kernels.n; i++)
        if (sc->kernels.v[i].symbol && strcmp(sc->kernels.v[i].symbol, symbol) == 0)
            return &sc->kernels.v[i];
    kw_kernel *k = KW_PUSH(&sc->arena, sc->kernels);
    if (k)
        k->symbol = kw_arena_strdup(&sc->arena, symbol);
    return k;
}

static kw_kernel_arch *kw_co_sidecar_find_arch(kw_kernel *k, const char *key) {
    for (size_t i = 0; i < k->archs.n; i++)
        if (k->archs.v[i].arch && strcmp(k->archs.v[i].arch, key) == 0)
            return &k->archs.v[i];
    return NULL;
}

/* The entry of k for obj's arch: the one the device job made ("gfx942"), or a
 * new one. An entry with a target id was filled from another code object
 * already: when a compile has two code objects of one processor
 * (--offload-arch=gfx942:xnack+ --offload-arch=gfx942:xnack-) the second one
 * is keyed by its full target id, and a kernel found twice for one target
 * (two bundles of a linked .so) by "target#object", so nothing is overwritten. */
static kw_kernel_arch *kw_co_sidecar_arch(kw_sidecar *sc, kw_kernel *k, const kw_co_object *obj,
                                          size_t obj_index) {
    char key[160];
    snprintf(key, sizeof key, "%s", obj->arch);
    kw_kernel_arch *a = kw_co_sidecar_find_arch(k, key);
    if (a && a->target_id) {
        const char *tid = obj->target_id ? obj->target_id : obj->arch;
        if (strcmp(a->target_id, tid) != 0)
            snprintf(key, sizeof key, "%s", tid);
        else
            snprintf(key, sizeof key, "%s#%zu", tid, obj_index);
        a = kw_co_sidecar_find_arch(k, key);
    }
    if (a)
        return a;
    a = KW_PUSH(&sc->arena, k->archs);
    if (a) {
        kw_kernel_arch_init(a);
        a->arch = kw_arena_strdup(&sc->arena, key);
    }
    return a;
}

static void kw_co_sidecar_offload_arch(kw_sidecar *sc, const char *arch) {
    KW_STRSET_ADD(&sc->arena, sc->tu.offload_archs, arch, strlen(arch));
}

/* "A" or "A,B" (as the plugin records attribute values): the integers. */
static int kw_co_sidecar_ints(const char *v, long *out, int max) {
    int n = 0;
    while (v && *v && n < max) {
        char *end;
        long x = strtol(v, &end, 10);
        if (end == v)
            return 0;
        out[n++] = x;
        while (*end == ' ')
            end++;
        if (*end == ',')
            end++;
        else if (*end)
            return 0;
        v = end;
    }
    return v && *v ? 0 : n;
}

/* The flat workgroup size range the source gives the kernel, when it tells
 * more than the code object: the code object records only the maximum
 * (.max_flat_workgroup_size), and the library assumes a minimum of 1. The
 * attributes, as the plugin records them from the AST:
 *   amdgpu_flat_work_group_size "MIN,MAX"  (also what HIP's __launch_bounds__(N)
 *                                           macro expands to: "1,N")
 *   launch_bounds "N" or "N,M"              (flat range 1..N)
 * amdgpu_flat_work_group_size wins when both are there, as in clang. The range
 * is used only when its maximum is the code object's: clang 22 ignores a bare
 * launch_bounds attribute on AMDGPU (the code object then says 1024), and the
 * code object is what runs. */
static bool kw_co_sidecar_source_range(const kw_kernel *K, const kw_co_kernel *k, unsigned *lo,
                                       unsigned *hi) {
    if (!K || !k->occ.known || !k->occ.min_wg_assumed)
        return false; /* .reqd_workgroup_size fixed it already, or nothing to refine */
    long v[2];
    bool found = false;
    for (int pass = 0; pass < 2 && !found; pass++) {
        const char *want = pass == 0 ? "amdgpu_flat_work_group_size" : "launch_bounds";
        for (size_t i = 0; i < K->attrs.n && !found; i++) {
            const kw_attr *at = &K->attrs.v[i];
            if (!at->name || strcmp(at->name, want) != 0)
                continue;
            int n = kw_co_sidecar_ints(at->value, v, 2);
            if (pass == 0 && n == 2)
                found = true;
            else if (pass == 1 && n >= 1) {
                v[1] = v[0];
                v[0] = 1;
                found = true;
            }
        }
    }
    if (!found || v[0] < 1 || v[0] > v[1] || v[1] > 1024 ||
        v[1] != k->res.max_flat_workgroup_size)
        return false;
    *lo = (unsigned)v[0];
    *hi = (unsigned)v[1];
    return true;
}

static void kw_co_sidecar_resources(kw_kernel_arch *a, const kw_kernel *K, const kw_co_object *obj,
                                    const kw_co_kernel *k) {
    const kw_co_resources *r = &k->res;
    kw_isa_resources *o = &a->resources;
    o->vgpr = r->vgpr;
    o->agpr = r->agpr;
    o->sgpr = r->sgpr;
    o->vgpr_spill = r->vgpr_spill;
    o->sgpr_spill = r->sgpr_spill;
    o->lds_bytes = r->lds_bytes;
    o->scratch_bytes = r->scratch_bytes;
    o->kernarg_bytes = r->kernarg_bytes;
    o->wavefront_size = r->wavefront_size;
    o->max_flat_workgroup_size = r->max_flat_workgroup_size;
    kw_co_occupancy occ = k->occ;
    unsigned lo, hi;
    if (kw_co_sidecar_source_range(K, k, &lo, &hi))
        kw_co_occupancy_compute(obj, k, lo, hi, &occ);
    if (occ.known) {
        o->occupancy = occ.waves;
        o->occupancy_limiter = kw_co_limiter_name(occ.limiters);
    }
}

static kw_status kw_co_sidecar_counts(kw_arena *a, void *arr_v, const kw_co_count *src, size_t n,
                                      bool with_bytes) {
    KW_ARRAY(kw_isa_count) *arr = arr_v;
    for (size_t i = 0; i < n; i++) {
        kw_isa_count *c = KW_PUSH(a, *arr);
        if (!c)
            return KW_ERR;
        c->key = kw_arena_strdup(a, src[i].key);
        c->bytes = with_bytes && src[i].width ? (long long)src[i].width : -1;
        c->n = src[i].n;
    }
    return KW_OK;
}

static void kw_co_sidecar_loc(kw_arena *a, kw_loc *out, const kw_co_frame *f) {
    out->file = kw_arena_strdup(a, f->file);
    out->line = (int)f->line;
    out->column = (int)f->column;
}

static kw_status kw_co_sidecar_listing(kw_arena *a, kw_kernel_arch *arch, const kw_co_listing *l) {
    memset(&arch->classes, 0, sizeof(arch->classes));
    arch->dpp_patterns.n = 0;
    arch->memory.n = 0;
    arch->lines.n = 0;
    for (int c = 0; c < KW_CO_NCLASSES; c++)
        *(long long *)((char *)&arch->classes + kw_co_sidecar_class_field[c]) = l->classes[c];
    arch->classes.dpp = l->dpp;
    arch->classes.sdwa = l->sdwa;
    arch->classes.insns = (long long)l->insns.n;
    if (kw_co_sidecar_counts(a, &arch->dpp_patterns, l->dpp_patterns.v, l->dpp_patterns.n, false) ||
        kw_co_sidecar_counts(a, &arch->memory, l->memory.v, l->memory.n, true))
        return KW_ERR;

    kw_buf text;
    kw_buf_init(&text);
    /* One row where the location changes, including to "none": code without
     * a row in the line table, or with line 0 (DWARF's "no source line", e.g.
     * compiler-made code) gets a row without location, so that a reader does
     * not give it the previous row's line. */
    int32_t prev = -2;
    for (size_t i = 0; i < l->insns.n; i++) {
        const kw_co_insn *in = &l->insns.v[i];
        if (in->label >= 0)
            kw_buf_printf(&text, "L%d:\n", (int)in->label);
        kw_buf_printf(&text, "%04x: %s", in->offset, in->text);
        if ((in->flags & KW_CO_INSN_TARGET) && in->target_label >= 0)
            kw_buf_printf(&text, "  ; -> L%d", (int)in->target_label);
        kw_buf_putc(&text, '\n');
        int32_t cur = in->loc;
        const kw_co_loc *loc = cur >= 0 ? &l->locs.v[cur] : NULL;
        if (loc && (!loc->frames.n || loc->frames.v[0].line == 0)) {
            loc = NULL;
            cur = -1;
        }
        if (l->has_lines && cur != prev && (cur >= 0 || prev != -2)) {
            kw_isa_line *row = KW_PUSH(a, arch->lines);
            if (!row) {
                kw_buf_free(&text);
                return KW_ERR;
            }
            row->offset = in->offset;
            if (loc && loc->frames.n)
                kw_co_sidecar_loc(a, &row->location, &loc->frames.v[0]);
            for (size_t f = 1; loc && f < loc->frames.n; f++) {
                kw_loc *at = KW_PUSH(a, row->inlined_at);
                if (!at) {
                    kw_buf_free(&text);
                    return KW_ERR;
                }
                kw_co_sidecar_loc(a, at, &loc->frames.v[f]);
            }
            prev = cur;
        }
    }
    if (!l->has_lines)
        arch->lines_note = kw_arena_strdup(
            a, l->lines_note ? l->lines_note
                             : "no line tables: compile with -Xarch_device -gline-tables-only");
    bool oom = text.oom;
    arch->isa = kw_arena_strdup(a, kw_buf_str(&text));
    kw_buf_free(&text);
    return oom || !arch->isa ? KW_ERR : KW_OK;
}

kw_status kw_co_sidecar_fill(kw_sidecar *sc, const char *path, unsigned flags, kw_err *err) {
    return kw_co_sidecar_fill_kernels(sc, path, flags, NULL, err);
}

kw_status kw_co_sidecar_fill_kernels(kw_sidecar *sc, const char *path, unsigned flags,
                                     const char *match, kw_err *err) {
    kw_co_set set;
    kw_co_set_init(&set);
    kw_status st = kw_co_open(&set, path, err);
    if (st == KW_OK)
        st = kw_co_sidecar_fill_set(sc, &set, flags, match, NULL, err);
    kw_co_set_free(&set);
    return st;
}

/* translation_unit.code_objects: each code object's arch, target id, size and MD5. */
static kw_status kw_co_sidecar_table(kw_sidecar *sc, const kw_co_object *obj, kw_err *err) {
    kw_code_object *c = KW_PUSH(&sc->arena, sc->tu.code_objects);
    char md5[33];
    kw_co_md5_hex(obj->image, obj->image_size, md5);
    if (!c || !(c->arch = kw_arena_strdup(&sc->arena, obj->arch)) ||
        !(c->md5 = kw_arena_strdup(&sc->arena, md5)))
        return kw_fail(err, "out of memory");
    c->target_id = obj->target_id ? kw_arena_strdup(&sc->arena, obj->target_id) : NULL;
    c->bytes = (long long)obj->image_size;
    return KW_OK;
}

/* The decode cache's record of obj (KW_CO_SC_CACHE): the store's, else every
 * kernel with code disassembled once and the record stored. *r is closed
 * (nothing to fill from) when out of memory; *data is the record's memory,
 * for free. */
static kw_status kw_co_sidecar_record(kw_co_set *set, const kw_co_object *obj, const char *md5,
                                      unsigned want, kw_co_listing *l, kw_co_record *r,
                                      unsigned char **data, kw_err *err) {
    const kw_co_cache_store *s = kw_co_cache_store_now();
    char hex[33], key[96];
    if (!md5) {
        kw_co_md5_hex(obj->image, obj->image_size, hex);
        md5 = hex;
    }
    kw_co_cache_key(md5, want & KW_CO_WANT_LINES, key);
    size_t n = 0;
    *data = NULL;
    memset(r, 0, sizeof *r);
    if (s && s->get(s->ctx, key, data, &n)) {
        if (kw_co_record_open(r, *data, n, obj->kernels.n)) {
            kw_co_cache_count(true);
            return KW_OK;
        }
        free(*data); /* damaged or of another form: decoded and stored again */
        *data = NULL;
    }
    kw_co_cache_count(false);
    kw_co_record_w *w = kw_co_record_begin(obj->kernels.n);
    kw_arena scratch;
    kw_arena_init(&scratch);
    kw_status st = w ? KW_OK : kw_fail(err, "out of memory");
    for (size_t i = 0; i < obj->kernels.n && st == KW_OK; i++) {
        const kw_co_kernel *k = &obj->kernels.v[i];
        if (!k->has_code)
            continue;
        kw_kernel_arch a;
        kw_kernel_arch_init(&a);
        a.lines_note = NULL;
        st = kw_co_disassemble(set, obj, k, want, l, err);
        if (st == KW_OK && (kw_co_sidecar_listing(&scratch, &a, l) != KW_OK ||
                            !kw_co_record_put(w, i, k->name, &a, a.lines_note != NULL)))
            st = kw_fail(err, "out of memory");
        kw_arena_free(&scratch);
        kw_arena_init(&scratch);
    }
    size_t nb = 0;
    const unsigned char *b = st == KW_OK ? kw_co_record_bytes(w, &nb) : NULL;
    if (st == KW_OK && !b)
        st = kw_fail(err, "out of memory");
    if (st == KW_OK && !(*data = malloc(nb ? nb : 1)))
        st = kw_fail(err, "out of memory");
    if (st == KW_OK) {
        memcpy(*data, b, nb);
        if (s)
            s->put(s->ctx, key, b, nb);
        if (!kw_co_record_open(r, *data, nb, obj->kernels.n))
            st = kw_fail(err, "out of memory");
    }
    kw_co_record_free(w);
    kw_arena_free(&scratch);
    return st;
}

kw_status kw_co_sidecar_record_of(kw_co_set *set, size_t o, const char *md5, unsigned char **data,
                                  size_t *n, kw_err *err) {
    *data = NULL;
    *n = 0;
    if (o >= set->objects.n)
        return kw_fail(err, "no code object %zu", o);
    const kw_co_object *obj = &set->objects.v[o];
    kw_co_listing l;
    kw_co_listing_init(&l);
    kw_co_record rec;
    kw_status st = kw_co_sidecar_record(set, obj, md5, obj->has_debug_line ? KW_CO_WANT_LINES : 0,
                                        &l, &rec, data, err);
    if (st == KW_OK)
        *n = rec.n;
    kw_co_record_close(&rec);
    kw_co_listing_free(&l);
    return st;
}

kw_status kw_co_sidecar_fill_set(kw_sidecar *sc, kw_co_set *set, unsigned flags, const char *match,
                                 const bool *skip, kw_err *err) {
    const char *path = set->name ? set->name : "code objects";
    kw_status st = KW_OK;
    kw_co_listing l;
    kw_co_listing_init(&l);
    kw_arena names;
    kw_arena_init(&names);
    kw_name_rank best = match ? kw_co_match_rank(set, match, &names) : KW_NAME_NONE;
    for (size_t o = 0; o < set->objects.n && st == KW_OK; o++) {
        const kw_co_object *obj = &set->objects.v[o];
        if (!obj->arch || (skip && skip[o]))
            continue;
        kw_co_sidecar_offload_arch(sc, obj->arch);
        if (flags & KW_CO_SC_CODE_OBJECTS)
            st = kw_co_sidecar_table(sc, obj, err);
        unsigned want = obj->has_debug_line && !(flags & KW_CO_SC_NO_LINES) ? KW_CO_WANT_LINES : 0;
        kw_co_record rec;
        unsigned char *rec_data = NULL;
        bool cached = (flags & KW_CO_SC_LISTING) && (flags & KW_CO_SC_CACHE);
        memset(&rec, 0, sizeof rec);
        if (st == KW_OK && cached)
            st = kw_co_sidecar_record(set, obj, NULL, want, &l, &rec, &rec_data, err);
        for (size_t i = 0; i < obj->kernels.n && st == KW_OK; i++) {
            const kw_co_kernel *k = &obj->kernels.v[i];
            if (match && !kw_co_match(k, match, best, &names))
                continue;
            kw_kernel *K = kw_co_sidecar_kernel(sc, k->name);
            kw_kernel_arch *A = K ? kw_co_sidecar_arch(sc, K, obj, o) : NULL;
            if (!A) {
                st = kw_fail(err, "%s: out of memory", path);
                break;
            }
            A->target_id = kw_arena_strdup(&sc->arena, obj->target_id);
            kw_co_sidecar_resources(A, K, obj, k);
            if (!(flags & KW_CO_SC_LISTING) || !k->has_code)
                continue;
            if (cached) {
                if (!kw_co_record_has(&rec, i, k->name) ||
                    !kw_co_record_fill(&rec, i, &sc->arena, A))
                    st = kw_fail(err, "%s: out of memory", path);
            } else {
                st = kw_co_disassemble(set, obj, k, want, &l, err);
                if (st == KW_OK && kw_co_sidecar_listing(&sc->arena, A, &l) != KW_OK)
                    st = kw_fail(err, "%s: out of memory", path);
            }
            if (st == KW_OK && obj->has_debug_line && !want)
                A->lines_note = "the code object has line tables; lines not requested";
        }
        kw_co_record_close(&rec);
        free(rec_data);
    }
    kw_co_listing_free(&l);
    kw_arena_free(&names);
    return st;
}
