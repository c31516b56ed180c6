/* kwco_yaml.c: see kwco_yaml.h. */
#include "kwco_yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sidecar/kw_yaml_emit.h"

/* A metadata value of the code-object library: KW_CO_ABSENT is written as null. */
static void key_int(kw_yaml_emitter *e, const char *key, int64_t v) {
    if (v == KW_CO_ABSENT)
        kw_yaml_emit_key_str(e, key, NULL);
    else
        kw_yaml_emit_key_int(e, key, (long long)v);
}

static void key_bool(kw_yaml_emitter *e, const char *key, int64_t v) {
    if (v == KW_CO_ABSENT)
        kw_yaml_emit_key_str(e, key, NULL);
    else
        kw_yaml_emit_key_bool(e, key, v != 0);
}

static void resources(kw_yaml_emitter *e, const kw_co_kernel *k) {
    const kw_co_resources *r = &k->res;
    const kw_co_occupancy *oc = &k->occ;
    kw_yaml_emit_key(e, "resources");
    kw_yaml_emit_map_start(e, true);
    key_int(e, "vgpr", r->vgpr);
    key_int(e, "agpr", r->agpr);
    key_int(e, "sgpr", r->sgpr);
    key_int(e, "vgpr_spill", r->vgpr_spill);
    key_int(e, "sgpr_spill", r->sgpr_spill);
    key_int(e, "lds_bytes", r->lds_bytes);
    key_int(e, "scratch_bytes", r->scratch_bytes);
    key_int(e, "kernarg_bytes", r->kernarg_bytes);
    key_int(e, "wavefront_size", r->wavefront_size);
    key_int(e, "max_flat_workgroup_size", r->max_flat_workgroup_size);
    key_bool(e, "uses_dynamic_stack", r->uses_dynamic_stack);
    kw_yaml_emit_key(e, "occupancy");
    if (oc->known)
        kw_yaml_emit_ll(e, oc->waves);
    else
        kw_yaml_emit_null(e);
    kw_yaml_emit_key(e, "occupancy_limiter");
    if (oc->known)
        kw_yaml_emit_plain(e, kw_co_limiter_name(oc->limiters));
    else
        kw_yaml_emit_null(e);
    kw_yaml_emit_map_end(e);
    if (!oc->known) {
        kw_yaml_emit_key_str(e, "occupancy_unknown", oc->unknown_reason);
        return;
    }
    kw_yaml_emit_key(e, "occupancy_terms");
    kw_yaml_emit_map_start(e, true);
    kw_yaml_emit_key_int(e, "max_waves", oc->max_waves);
    kw_yaml_emit_key_int(e, "vgpr", oc->by_vgpr);
    kw_yaml_emit_key_int(e, "sgpr", oc->by_sgpr);
    kw_yaml_emit_key_int(e, "lds", oc->by_lds);
    kw_yaml_emit_key_int(e, "workgroup", oc->by_workgroup);
    kw_yaml_emit_key(e, "workgroup_sizes");
    kw_yaml_emit_seq_start(e, true);
    kw_yaml_emit_ll(e, oc->min_wg);
    kw_yaml_emit_ll(e, oc->max_wg);
    kw_yaml_emit_seq_end(e);
    kw_yaml_emit_key_bool(e, "min_workgroup_size_assumed", oc->min_wg_assumed);
    kw_yaml_emit_map_end(e);
}

static void kernargs(kw_yaml_emitter *e, const kw_co_kernel *k) {
    kw_yaml_emit_key(e, "kernargs");
    kw_yaml_emit_seq_start(e, false);
    for (size_t i = 0; i < k->args.n; i++) {
        const kw_co_arg *g = &k->args.v[i];
        kw_yaml_emit_map_start(e, true);
        kw_yaml_emit_key_str(e, "name", g->name);
        key_int(e, "offset", g->offset);
        key_int(e, "size", g->size);
        kw_yaml_emit_key_str(e, "value_kind", g->value_kind);
        if (g->address_space)
            kw_yaml_emit_key_str(e, "address_space", g->address_space);
        if (g->type_name)
            kw_yaml_emit_key_str(e, "type_name", g->type_name);
        kw_yaml_emit_map_end(e);
    }
    kw_yaml_emit_seq_end(e);
}

static void label_key(kw_yaml_emitter *e, int32_t label) {
    char lab[32];
    snprintf(lab, sizeof lab, "L%d", (int)label);
    kw_yaml_emit_plain(e, lab);
}

static void frame(kw_yaml_emitter *e, const kw_co_frame *f) {
    kw_yaml_emit_key_str(e, "file", f->file);
    kw_yaml_emit_key_int(e, "line", f->line);
    kw_yaml_emit_key_int(e, "column", f->column);
    if (f->function)
        kw_yaml_emit_key_str(e, "function", f->function);
}

static void lines(kw_yaml_emitter *e, const kw_co_listing *l) {
    if (!l->has_lines) {
        kw_yaml_emit_key(e, "lines");
        kw_yaml_emit_null(e);
        kw_yaml_emit_key_str(e, "lines_note",
                             l->lines_note ? l->lines_note : "line tables not requested");
        return;
    }
    kw_yaml_emit_key(e, "lines");
    kw_yaml_emit_seq_start(e, false);
    int32_t prev = -2;
    for (size_t i = 0; i < l->insns.n; i++) {
        const kw_co_insn *in = &l->insns.v[i];
        if (in->loc == prev)
            continue;
        prev = in->loc;
        kw_yaml_emit_map_start(e, true);
        kw_yaml_emit_key_int(e, "at", in->offset);
        if (in->loc < 0) {
            kw_yaml_emit_key_str(e, "file", NULL);
            kw_yaml_emit_map_end(e);
            continue;
        }
        const kw_co_loc *loc = &l->locs.v[in->loc];
        frame(e, &loc->frames.v[0]);
        if (loc->frames.n > 1) {
            kw_yaml_emit_key(e, "inlined_at");
            kw_yaml_emit_seq_start(e, true);
            for (size_t f = 1; f < loc->frames.n; f++) {
                kw_yaml_emit_map_start(e, true);
                frame(e, &loc->frames.v[f]);
                kw_yaml_emit_map_end(e);
            }
            kw_yaml_emit_seq_end(e);
        }
        kw_yaml_emit_map_end(e);
    }
    kw_yaml_emit_seq_end(e);
}

static void listing(kw_yaml_emitter *e, const kw_co_listing *l) {
    kw_buf isa;
    kw_buf_init(&isa);
    for (size_t i = 0; i < l->insns.n; i++)
        kw_buf_printf(&isa, "%04x: %s\n", l->insns.v[i].offset, l->insns.v[i].text);
    kw_yaml_emit_key_str(e, "isa", kw_buf_str(&isa));
    if (isa.oom && !e->failed) {
        e->failed = true;
        kw_fail(e->err, "out of memory writing YAML");
    }
    kw_buf_free(&isa);
    kw_yaml_emit_key(e, "branches");
    kw_yaml_emit_seq_start(e, false);
    for (size_t i = 0; i < l->insns.n; i++) {
        const kw_co_insn *in = &l->insns.v[i];
        if (!(in->flags & KW_CO_INSN_TARGET))
            continue;
        kw_yaml_emit_map_start(e, true);
        kw_yaml_emit_key_int(e, "at", in->offset);
        kw_yaml_emit_key_int(e, "target", in->target);
        kw_yaml_emit_key(e, "label");
        if (in->target_label >= 0)
            label_key(e, in->target_label);
        else
            kw_yaml_emit_null(e);
        kw_yaml_emit_map_end(e);
    }
    kw_yaml_emit_seq_end(e);
    kw_yaml_emit_key(e, "labels");
    kw_yaml_emit_map_start(e, true);
    for (size_t i = 0; i < l->insns.n; i++)
        if (l->insns.v[i].label >= 0) {
            label_key(e, l->insns.v[i].label);
            kw_yaml_emit_ll(e, l->insns.v[i].offset);
        }
    kw_yaml_emit_map_end(e);
    kw_yaml_emit_key(e, "classes");
    kw_yaml_emit_map_start(e, true);
    for (int c = 0; c < KW_CO_NCLASSES; c++)
        kw_yaml_emit_key_int(e, kw_co_class_name((kw_co_class)c), l->classes[c]);
    kw_yaml_emit_key_int(e, "dpp", l->dpp);
    kw_yaml_emit_key_int(e, "sdwa", l->sdwa);
    kw_yaml_emit_map_end(e);
    kw_yaml_emit_key(e, "dpp_patterns");
    kw_yaml_emit_map_start(e, true);
    for (size_t i = 0; i < l->dpp_patterns.n; i++) {
        kw_yaml_emit_str(e, l->dpp_patterns.v[i].key);
        kw_yaml_emit_ll(e, l->dpp_patterns.v[i].n);
    }
    kw_yaml_emit_map_end(e);
    kw_yaml_emit_key(e, "memory");
    kw_yaml_emit_seq_start(e, false);
    for (size_t i = 0; i < l->memory.n; i++) {
        kw_yaml_emit_map_start(e, true);
        kw_yaml_emit_key_str(e, "op", l->memory.v[i].key);
        kw_yaml_emit_key_int(e, "width", l->memory.v[i].width);
        kw_yaml_emit_key_int(e, "count", l->memory.v[i].n);
        kw_yaml_emit_map_end(e);
    }
    kw_yaml_emit_seq_end(e);
    lines(e, l);
}

/* One kernel and arch: everything the library knows. */
static void arch_entry(kw_yaml_emitter *e, const kw_co_object *o, const kw_co_kernel *k,
                       const kw_co_listing *l) {
    kw_yaml_emit_map_start(e, false);
    kw_yaml_emit_key_str(e, "target_id", o->target_id);
    kw_yaml_emit_key_str(e, "code_object", o->origin);
    kw_yaml_emit_key_bool(e, "in_metadata", k->in_metadata);
    kw_yaml_emit_key(e, "code");
    if (k->has_code) {
        kw_yaml_emit_map_start(e, true);
        kw_yaml_emit_key_int(e, "address", (int64_t)k->code_addr);
        kw_yaml_emit_key_int(e, "bytes", (int64_t)k->code_size);
        kw_yaml_emit_map_end(e);
    } else {
        kw_yaml_emit_null(e);
    }
    resources(e, k);
    if (k->res.reqd_workgroup_size[0] != KW_CO_ABSENT) {
        kw_yaml_emit_key(e, "reqd_workgroup_size");
        kw_yaml_emit_seq_start(e, true);
        for (int i = 0; i < 3; i++)
            kw_yaml_emit_ll(e, (long long)k->res.reqd_workgroup_size[i]);
        kw_yaml_emit_seq_end(e);
    }
    kernargs(e, k);
    if (l)
        listing(e, l);
    kw_yaml_emit_map_end(e);
}

/* A kernel of the set, for grouping by symbol. */
typedef struct kref {
    const char *name;
    size_t oi, kj; /* object and kernel index: the order of appearance */
} kref;

static int cmp_kref(const void *a, const void *b) {
    const kref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->oi != y->oi)
        return x->oi < y->oi ? -1 : 1;
    return x->kj < y->kj ? -1 : x->kj > y->kj;
}

static int cmp_first(const void *a, const void *b) {
    const kref *x = *(const kref *const *)a, *y = *(const kref *const *)b;
    if (x->oi != y->oi)
        return x->oi < y->oi ? -1 : 1;
    return x->kj < y->kj ? -1 : x->kj > y->kj;
}

static void header(kw_yaml_emitter *e, const kw_co_set *set) {
    kw_yaml_emit_key_str(e, "input", set->name);
    kw_yaml_emit_key(e, "code_objects");
    kw_yaml_emit_seq_start(e, false);
    for (size_t i = 0; i < set->objects.n; i++) {
        const kw_co_object *o = &set->objects.v[i];
        kw_yaml_emit_map_start(e, true);
        kw_yaml_emit_key_str(e, "origin", o->origin);
        kw_yaml_emit_key_str(e, "container", o->container);
        kw_yaml_emit_key_str(e, "bundle_id", o->bundle_id);
        kw_yaml_emit_key_str(e, "target_id", o->target_id);
        kw_yaml_emit_key_str(e, "elf_target_id", o->elf_target_id);
        kw_yaml_emit_key_int(e, "bytes", (int64_t)o->image_size);
        kw_yaml_emit_key_int(e, "kernels", (int64_t)o->kernels.n);
        kw_yaml_emit_map_end(e);
    }
    kw_yaml_emit_seq_end(e);
    if (set->notes.n) {
        kw_yaml_emit_key(e, "notes");
        kw_yaml_emit_seq_start(e, false);
        for (size_t i = 0; i < set->notes.n; i++)
            if (set->notes.v[i])
                kw_yaml_emit_str(e, set->notes.v[i]);
            else
                kw_yaml_emit_null(e);
        kw_yaml_emit_seq_end(e);
    }
}

kw_status kwco_write_yaml(kw_buf *out, kw_co_set *set, bool with_isa, unsigned flags,
                          kw_err *err) {
    size_t nk = 0;
    for (size_t i = 0; i < set->objects.n; i++)
        nk += set->objects.v[i].kernels.n;
    kref *refs = malloc((nk ? nk : 1) * sizeof *refs);
    kref **groups = malloc((nk ? nk : 1) * sizeof *groups);
    if (!refs || !groups) {
        free(refs);
        free(groups);
        return kw_fail(err, "out of memory");
    }
    nk = 0;
    for (size_t i = 0; i < set->objects.n; i++)
        for (size_t j = 0; j < set->objects.v[i].kernels.n; j++)
            refs[nk++] = (kref){set->objects.v[i].kernels.v[j].name, i, j};
    qsort(refs, nk, sizeof *refs, cmp_kref);
    size_t ng = 0;
    for (size_t i = 0; i < nk; i++)
        if (i == 0 || strcmp(refs[i].name, refs[i - 1].name) != 0)
            groups[ng++] = &refs[i];
    qsort(groups, ng, sizeof *groups, cmp_first);

    kw_yaml_emitter e;
    kw_yaml_emit_begin(&e, out, err);
    header(&e, set);
    /* a code object may have no kernel at all (a TU with device functions only) */
    kw_yaml_emit_key(&e, "kernels");
    kw_yaml_emit_seq_start(&e, false);
    kw_co_listing l;
    kw_co_listing_init(&l);
    kw_status st = KW_OK;
    for (size_t g = 0; g < ng && st == KW_OK && !e.failed; g++) {
        const kref *first = groups[g], *end = refs + nk;
        kw_yaml_emit_map_start(&e, false);
        kw_yaml_emit_key_str(&e, "symbol", first->name);
        kw_yaml_emit_key(&e, "archs");
        kw_yaml_emit_map_start(&e, false);
        for (const kref *r = first; r < end && st == KW_OK && strcmp(r->name, first->name) == 0;
             r++) {
            const kw_co_object *oo = &set->objects.v[r->oi];
            const kw_co_kernel *kk = &oo->kernels.v[r->kj];
            bool again = false;
            for (const kref *q = first; q < r && !again; q++)
                again = strcmp(set->objects.v[q->oi].arch, oo->arch) == 0;
            char key[96];
            if (again)
                snprintf(key, sizeof key, "%s#%zu", oo->arch, r->oi);
            else
                snprintf(key, sizeof key, "%s", oo->arch);
            const kw_co_listing *lp = NULL;
            if (with_isa && kk->has_code) {
                st = kw_co_disassemble(set, oo, kk, flags, &l, err);
                lp = &l;
            }
            if (st == KW_OK) {
                kw_yaml_emit_str(&e, key);
                arch_entry(&e, oo, kk, lp);
            }
        }
        kw_yaml_emit_map_end(&e);
        kw_yaml_emit_map_end(&e);
    }
    kw_yaml_emit_seq_end(&e);
    free(refs);
    free(groups);
    kw_co_listing_free(&l);
    if (st == KW_OK)
        st = kw_yaml_emit_end(&e);
    kw_yaml_emit_free(&e);
    return st;
}
