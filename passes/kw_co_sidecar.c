/* kw_co_sidecar.c: the code-object facts of a compile, into its sidecar. */
#include "kw_co_sidecar.h"

#include <stddef.h>
#include <string.h>

#include "kw_codeobj.h"

/* Where each instruction class is counted in kw_isa_classes. */
static const size_t kw_cosc_class_field[KW_CO_NCLASSES] = {
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

static kw_kernel *kw_cosc_kernel(kw_sidecar *sc, const char *symbol) {
    for (size_t i = 0; i < sc->kernels.n; i++)
        if (sc->kernels.v[i].symbol && strcmp(sc->kernels.v[i].symbol, symbol) == 0)
            return &sc->kernels.v[i];
    kw_kernel *k = KW_PUSH(&sc->arena, sc->kernels);
    if (k)
        k->symbol = kw_arena_strdup(&sc->arena, symbol);
    return k;
}

static kw_kernel_arch *kw_cosc_arch(kw_sidecar *sc, kw_kernel *k, const char *arch) {
    for (size_t i = 0; i < k->archs.n; i++)
        if (k->archs.v[i].arch && strcmp(k->archs.v[i].arch, arch) == 0)
            return &k->archs.v[i];
    kw_kernel_arch *a = KW_PUSH(&sc->arena, k->archs);
    if (a) {
        kw_kernel_arch_init(a);
        a->arch = kw_arena_strdup(&sc->arena, arch);
    }
    return a;
}

static void kw_cosc_offload_arch(kw_sidecar *sc, const char *arch) {
    for (size_t i = 0; i < sc->tu.offload_archs.n; i++)
        if (strcmp(sc->tu.offload_archs.v[i], arch) == 0)
            return;
    const char **slot = KW_PUSH(&sc->arena, sc->tu.offload_archs);
    if (slot)
        *slot = kw_arena_strdup(&sc->arena, arch);
}

static void kw_cosc_resources(kw_kernel_arch *a, const kw_co_kernel *k) {
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
    if (k->occ.known) {
        o->occupancy = k->occ.waves;
        o->occupancy_limiter = kw_co_limiter_name(k->occ.limiters);
    }
}

static kw_status kw_cosc_counts(kw_arena *a, void *arr_v, const kw_co_count *src, size_t n,
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

static void kw_cosc_loc(kw_arena *a, kw_loc *out, const kw_co_frame *f) {
    out->file = kw_arena_strdup(a, f->file);
    out->line = (int)f->line;
    out->column = (int)f->column;
}

static kw_status kw_cosc_listing(kw_arena *a, kw_kernel_arch *arch, const kw_co_listing *l) {
    memset(&arch->classes, 0, sizeof(arch->classes));
    for (int c = 0; c < KW_CO_NCLASSES; c++)
        *(long long *)((char *)&arch->classes + kw_cosc_class_field[c]) = l->classes[c];
    arch->classes.dpp = l->dpp;
    arch->classes.sdwa = l->sdwa;
    arch->classes.insns = (long long)l->insns.n;
    if (kw_cosc_counts(a, &arch->dpp_patterns, l->dpp_patterns.v, l->dpp_patterns.n, false) ||
        kw_cosc_counts(a, &arch->memory, l->memory.v, l->memory.n, true))
        return KW_ERR;

    kw_buf text;
    kw_buf_init(&text);
    int32_t prev = -1;
    for (size_t i = 0; i < l->insns.n; i++) {
        const kw_co_insn *in = &l->insns.v[i];
        if (in->label >= 0)
            kw_buf_printf(&text, "L%d:\n", (int)in->label);
        kw_buf_printf(&text, "%04x: %s", in->offset, in->text);
        if ((in->flags & KW_CO_INSN_TARGET) && in->target_label >= 0)
            kw_buf_printf(&text, "  ; -> L%d", (int)in->target_label);
        kw_buf_putc(&text, '\n');
        if (l->has_lines && in->loc >= 0 && in->loc != prev) {
            const kw_co_loc *loc = &l->locs.v[in->loc];
            kw_isa_line *row = KW_PUSH(a, arch->lines);
            if (!row) {
                kw_buf_free(&text);
                return KW_ERR;
            }
            row->offset = in->offset;
            if (loc->frames.n)
                kw_cosc_loc(a, &row->location, &loc->frames.v[0]);
            for (size_t f = 1; f < loc->frames.n; f++) {
                kw_loc *at = KW_PUSH(a, row->inlined_at);
                if (!at) {
                    kw_buf_free(&text);
                    return KW_ERR;
                }
                kw_cosc_loc(a, at, &loc->frames.v[f]);
            }
            prev = in->loc;
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
    kw_co_set set;
    kw_co_set_init(&set);
    if (kw_co_open(&set, path, err) != KW_OK) {
        kw_co_set_free(&set);
        return KW_ERR;
    }
    kw_status st = KW_OK;
    kw_co_listing l;
    kw_co_listing_init(&l);
    for (size_t o = 0; o < set.objects.n && st == KW_OK; o++) {
        const kw_co_object *obj = &set.objects.v[o];
        if (!obj->arch)
            continue;
        kw_cosc_offload_arch(sc, obj->arch);
        for (size_t i = 0; i < obj->kernels.n && st == KW_OK; i++) {
            const kw_co_kernel *k = &obj->kernels.v[i];
            kw_kernel *K = kw_cosc_kernel(sc, k->name);
            kw_kernel_arch *A = K ? kw_cosc_arch(sc, K, obj->arch) : NULL;
            if (!A) {
                st = kw_fail(err, "%s: out of memory", path);
                break;
            }
            A->target_id = kw_arena_strdup(&sc->arena, obj->target_id);
            kw_cosc_resources(A, k);
            if (!(flags & KW_CO_SC_LISTING) || !k->has_code)
                continue;
            unsigned want = obj->has_debug_line ? KW_CO_WANT_LINES : 0;
            st = kw_co_disassemble(&set, obj, k, want, &l, err);
            if (st == KW_OK && kw_cosc_listing(&sc->arena, A, &l) != KW_OK)
                st = kw_fail(err, "%s: out of memory", path);
        }
    }
    kw_co_listing_free(&l);
    kw_co_set_free(&set);
    return st;
}
