/* kw_co_write.c: code-object facts as text for people (the `kwalk isa`
 * kernel table and listings) and as YAML in the sidecar's shape
 * (kernels[].archs.<arch>: target_id, resources, isa, classes, lines). The
 * YAML is written by hand with every string double-quoted and escaped; an
 * unknown value is null and says why next to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kw_co_internal.h"

static void put_indent(kw_buf *b, int n) {
    static const char spaces[] = "                                ";
    while (n > 0) {
        int k = n < (int)sizeof spaces - 1 ? n : (int)sizeof spaces - 1;
        kw_buf_append(b, spaces, (size_t)k);
        n -= k;
    }
}

/* Unsigned decimal without printf (listings are written a line per
 * instruction; printf dominated the time). */
static void put_u(kw_buf *b, unsigned long long v) {
    char tmp[24];
    int i = (int)sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    kw_buf_append(b, tmp + i, sizeof tmp - (size_t)i);
}

/* "OFFSET: " with the offset in at least 4 lowercase hex digits. */
static void put_offset(kw_buf *b, uint32_t off) {
    static const char hex[] = "0123456789abcdef";
    char tmp[10];
    int i = 8;
    tmp[8] = ':';
    tmp[9] = ' ';
    do {
        tmp[--i] = hex[off & 15];
        off >>= 4;
    } while (off || i > 4);
    kw_buf_append(b, tmp + i, sizeof tmp - (size_t)i);
}

static void put_qstr(kw_buf *b, const char *s) {
    if (!s) {
        kw_buf_puts(b, "null");
        return;
    }
    kw_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            kw_buf_putc(b, '\\');
            kw_buf_putc(b, (char)*p);
        } else if (*p < 0x20 || *p == 0x7f)
            kw_buf_printf(b, "\\x%02x", *p);
        else
            kw_buf_putc(b, (char)*p);
    }
    kw_buf_putc(b, '"');
}

static void put_int(kw_buf *b, int64_t v) {
    if (v == KW_CO_ABSENT)
        kw_buf_puts(b, "null");
    else if (v < 0)
        kw_buf_printf(b, "%lld", (long long)v);
    else
        put_u(b, (unsigned long long)v);
}

static void put_bool(kw_buf *b, int64_t v) {
    kw_buf_puts(b, v == KW_CO_ABSENT ? "null" : v ? "true" : "false");
}

/* One "key: value" of a flow mapping: an int, or a bool when is_bool. */
typedef struct co_field {
    const char *key;
    int64_t v;
    bool is_bool;
} co_field;

/* "k: v, k: v, ..." for f[0..n) */
static void put_fields(kw_buf *b, const co_field *f, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (i)
            kw_buf_puts(b, ", ");
        kw_buf_puts(b, f[i].key);
        kw_buf_puts(b, ": ");
        if (f[i].is_bool)
            put_bool(b, f[i].v);
        else
            put_int(b, f[i].v);
    }
}

static void label_name(char *buf, size_t n, int32_t label) {
    snprintf(buf, n, "L%d", (int)label);
}

/* ---- text ---------------------------------------------------------------- */

static void dash_if_absent(kw_buf *b, int width, int64_t v) {
    if (v == KW_CO_ABSENT)
        kw_buf_printf(b, " %*s", width, "-");
    else
        kw_buf_printf(b, " %*lld", width, (long long)v);
}

/* before + the demangled name of a kernel's symbol, when the C++ runtime
 * demangles it; true when written. */
static bool put_demangled(kw_buf *out, kw_arena *a, const char *symbol, const char *before) {
    const char *d = kw_demangle_llvm(a, symbol);
    if (!d || !strcmp(d, symbol))
        return false;
    kw_buf_printf(out, "%s%s", before, d);
    return true;
}

void kw_co_write_summary(kw_buf *out, const kw_co_set *set) {
    kw_arena names;
    kw_arena_init(&names);
    for (size_t i = 0; i < set->objects.n; i++) {
        const kw_co_object *o = &set->objects.v[i];
        kw_buf_printf(out, "%s\n  target %s (%s), %zu kernel%s\n", o->origin, o->target_id,
                      o->container, o->kernels.n, o->kernels.n == 1 ? "" : "s");
        if (!o->kernels.n)
            continue;
        kw_buf_printf(out, "  %5s %5s %5s %7s %8s %7s %5s %4s  %-14s %s\n", "vgpr", "agpr", "sgpr",
                      "lds", "scratch", "kernarg", "wg", "occ", "limiter", "kernel  demangled");
        for (size_t j = 0; j < o->kernels.n; j++) {
            const kw_co_kernel *k = &o->kernels.v[j];
            const kw_co_resources *r = &k->res;
            kw_buf_puts(out, " ");
            dash_if_absent(out, 5, r->vgpr);
            dash_if_absent(out, 5, r->agpr);
            dash_if_absent(out, 5, r->sgpr);
            dash_if_absent(out, 7, r->lds_bytes);
            dash_if_absent(out, 8, r->scratch_bytes);
            dash_if_absent(out, 7, r->kernarg_bytes);
            dash_if_absent(out, 5, r->max_flat_workgroup_size);
            if (k->occ.known)
                kw_buf_printf(out, " %4u  %-14s", k->occ.waves, kw_co_limiter_name(k->occ.limiters));
            else
                kw_buf_printf(out, " %4s  %-14s", "?", "unknown");
            kw_buf_printf(out, " %s%s", k->name, k->in_metadata ? "" : "  (no metadata)");
            put_demangled(out, &names, k->name, "  ");
            kw_buf_putc(out, '\n');
        }
    }
    kw_arena_free(&names);
}

static void frame_text(kw_buf *b, const kw_co_frame *f) {
    kw_buf_printf(b, "%s:%u", f->file ? f->file : "?", f->line);
    if (f->column)
        kw_buf_printf(b, ":%u", f->column);
}

void kw_co_write_listing(kw_buf *out, const kw_co_listing *l) {
    const kw_co_kernel *k = l->kernel;
    const kw_co_object *o = l->object;
    kw_buf_printf(out, "kernel %s  (%s, %s)\n", k->name, o->target_id, o->origin);
    kw_arena names;
    kw_arena_init(&names);
    if (put_demangled(out, &names, k->name, "demangled "))
        kw_buf_putc(out, '\n');
    kw_arena_free(&names);
    if (k->occ.known)
        kw_buf_printf(out, "occupancy %u waves/SIMD (limiter: %s)\n", k->occ.waves,
                      kw_co_limiter_name(k->occ.limiters));
    int32_t prev_loc = -1;
    for (size_t i = 0; i < l->insns.n; i++) {
        const kw_co_insn *in = &l->insns.v[i];
        char lab[32];
        if (in->loc >= 0 && in->loc != prev_loc) {
            const kw_co_loc *loc = &l->locs.v[in->loc];
            kw_buf_puts(out, "        ; ");
            for (size_t f = 0; f < loc->frames.n; f++) {
                if (f)
                    kw_buf_puts(out, " <- ");
                frame_text(out, &loc->frames.v[f]);
            }
            kw_buf_putc(out, '\n');
            prev_loc = in->loc;
        }
        if (in->label >= 0) {
            label_name(lab, sizeof lab, in->label);
            kw_buf_printf(out, "%s:\n", lab);
        }
        kw_buf_printf(out, "  %04x: %s", in->offset, in->text);
        if (in->flags & KW_CO_INSN_TARGET) {
            if (in->target_label >= 0) {
                label_name(lab, sizeof lab, in->target_label);
                kw_buf_printf(out, "    ; -> %s", lab);
            } else
                kw_buf_printf(out, "    ; -> %+lld, outside the kernel", (long long)in->target);
        }
        kw_buf_putc(out, '\n');
    }
    kw_buf_puts(out, "classes:");
    for (int c = 0; c < KW_CO_NCLASSES; c++)
        if (l->classes[c])
            kw_buf_printf(out, " %s %u", kw_co_class_name((kw_co_class)c), l->classes[c]);
    kw_buf_printf(out, "\ncross-lane: dpp %u, sdwa %u", l->dpp, l->sdwa);
    for (size_t i = 0; i < l->dpp_patterns.n; i++)
        kw_buf_printf(out, "%s%s x%u", i ? ", " : " (", l->dpp_patterns.v[i].key,
                      l->dpp_patterns.v[i].n);
    kw_buf_puts(out, l->dpp_patterns.n ? ")\n" : "\n");
    if (l->memory.n) {
        kw_buf_puts(out, "memory:");
        for (size_t i = 0; i < l->memory.n; i++)
            kw_buf_printf(out, "%s %s %uB x%u", i ? "," : "", l->memory.v[i].key,
                          l->memory.v[i].width, l->memory.v[i].n);
        kw_buf_putc(out, '\n');
    }
    if (!l->has_lines && l->lines_note)
        kw_buf_printf(out, "lines: none: %s\n", l->lines_note);
}

/* ---- YAML ---------------------------------------------------------------- */

void kw_co_write_arch_yaml(kw_buf *b, int ind, const kw_co_object *o, const kw_co_kernel *k,
                           const kw_co_listing *l) {
    const kw_co_resources *r = &k->res;
    const kw_co_occupancy *oc = &k->occ;
    put_indent(b, ind);
    kw_buf_puts(b, "target_id: ");
    put_qstr(b, o->target_id);
    kw_buf_putc(b, '\n');
    put_indent(b, ind);
    kw_buf_puts(b, "code_object: ");
    put_qstr(b, o->origin);
    kw_buf_putc(b, '\n');
    put_indent(b, ind);
    kw_buf_printf(b, "in_metadata: %s\n", k->in_metadata ? "true" : "false");
    put_indent(b, ind);
    if (k->has_code)
        kw_buf_printf(b, "code: {address: %llu, bytes: %llu}\n", (unsigned long long)k->code_addr,
                      (unsigned long long)k->code_size);
    else
        kw_buf_puts(b, "code: null\n");

    /* resources: a flow mapping over four lines, continued under its '{' */
    const co_field lines[3][5] = {
        {{"vgpr", r->vgpr, false},
         {"agpr", r->agpr, false},
         {"sgpr", r->sgpr, false},
         {"vgpr_spill", r->vgpr_spill, false},
         {"sgpr_spill", r->sgpr_spill, false}},
        {{"lds_bytes", r->lds_bytes, false},
         {"scratch_bytes", r->scratch_bytes, false},
         {"kernarg_bytes", r->kernarg_bytes, false},
         {"wavefront_size", r->wavefront_size, false}},
        {{"max_flat_workgroup_size", r->max_flat_workgroup_size, false},
         {"uses_dynamic_stack", r->uses_dynamic_stack, true}},
    };
    const size_t counts[3] = {5, 4, 2};
    put_indent(b, ind);
    kw_buf_puts(b, "resources: {");
    for (int i = 0; i < 3; i++) {
        put_fields(b, lines[i], counts[i]);
        kw_buf_puts(b, ",\n");
        put_indent(b, ind + 12);
    }
    if (oc->known)
        kw_buf_printf(b, "occupancy: %u, occupancy_limiter: %s}\n", oc->waves,
                      kw_co_limiter_name(oc->limiters));
    else {
        kw_buf_puts(b, "occupancy: null, occupancy_limiter: null}\n");
        put_indent(b, ind);
        kw_buf_puts(b, "occupancy_unknown: ");
        put_qstr(b, oc->unknown_reason);
        kw_buf_putc(b, '\n');
    }
    if (oc->known) {
        put_indent(b, ind);
        kw_buf_printf(b,
                      "occupancy_terms: {max_waves: %u, vgpr: %u, sgpr: %u, lds: %u, "
                      "workgroup: %u, workgroup_sizes: [%u, %u], min_workgroup_size_assumed: %s}\n",
                      oc->max_waves, oc->by_vgpr, oc->by_sgpr, oc->by_lds, oc->by_workgroup,
                      oc->min_wg, oc->max_wg, oc->min_wg_assumed ? "true" : "false");
    }
    if (k->res.reqd_workgroup_size[0] != KW_CO_ABSENT) {
        put_indent(b, ind);
        kw_buf_printf(b, "reqd_workgroup_size: [%lld, %lld, %lld]\n",
                      (long long)r->reqd_workgroup_size[0], (long long)r->reqd_workgroup_size[1],
                      (long long)r->reqd_workgroup_size[2]);
    }
    put_indent(b, ind);
    kw_buf_puts(b, "kernargs:");
    if (!k->args.n)
        kw_buf_puts(b, " []");
    kw_buf_putc(b, '\n');
    for (size_t i = 0; i < k->args.n; i++) {
        const kw_co_arg *g = &k->args.v[i];
        put_indent(b, ind + 2);
        kw_buf_puts(b, "- {name: ");
        put_qstr(b, g->name);
        kw_buf_puts(b, ", offset: ");
        put_int(b, g->offset);
        kw_buf_puts(b, ", size: ");
        put_int(b, g->size);
        kw_buf_puts(b, ", value_kind: ");
        put_qstr(b, g->value_kind);
        if (g->address_space) {
            kw_buf_puts(b, ", address_space: ");
            put_qstr(b, g->address_space);
        }
        if (g->type_name) {
            kw_buf_puts(b, ", type_name: ");
            put_qstr(b, g->type_name);
        }
        kw_buf_puts(b, "}\n");
    }
    if (!l)
        return;
    put_indent(b, ind);
    kw_buf_puts(b, "isa: |\n");
    for (size_t i = 0; i < l->insns.n; i++) {
        put_indent(b, ind + 2);
        put_offset(b, l->insns.v[i].offset);
        kw_buf_puts(b, l->insns.v[i].text);
        kw_buf_putc(b, '\n');
    }
    put_indent(b, ind);
    kw_buf_puts(b, "branches:");
    bool any = false;
    for (size_t i = 0; i < l->insns.n; i++) {
        const kw_co_insn *in = &l->insns.v[i];
        if (!(in->flags & KW_CO_INSN_TARGET))
            continue;
        kw_buf_putc(b, '\n');
        put_indent(b, ind + 2);
        kw_buf_printf(b, "- {at: %u, target: %lld, label: ", in->offset, (long long)in->target);
        if (in->target_label >= 0)
            kw_buf_printf(b, "L%d}", (int)in->target_label);
        else
            kw_buf_puts(b, "null}");
        any = true;
    }
    kw_buf_puts(b, any ? "\n" : " []\n");
    put_indent(b, ind);
    kw_buf_puts(b, "labels: {");
    any = false;
    for (size_t i = 0; i < l->insns.n; i++)
        if (l->insns.v[i].label >= 0) {
            kw_buf_printf(b, "%sL%d: %u", any ? ", " : "", (int)l->insns.v[i].label,
                          l->insns.v[i].offset);
            any = true;
        }
    kw_buf_puts(b, "}\n");
    put_indent(b, ind);
    kw_buf_puts(b, "classes: {");
    for (int c = 0; c < KW_CO_NCLASSES; c++) {
        if (c && c % 8 == 0) {
            kw_buf_puts(b, "\n");
            put_indent(b, ind + 10);
        }
        kw_buf_puts(b, kw_co_class_name((kw_co_class)c));
        kw_buf_puts(b, ": ");
        put_u(b, l->classes[c]);
        kw_buf_puts(b, ", ");
    }
    kw_buf_printf(b, "dpp: %u, sdwa: %u}\n", l->dpp, l->sdwa);
    put_indent(b, ind);
    kw_buf_puts(b, "dpp_patterns: {");
    for (size_t i = 0; i < l->dpp_patterns.n; i++) {
        kw_buf_puts(b, i ? ", " : "");
        put_qstr(b, l->dpp_patterns.v[i].key);
        kw_buf_printf(b, ": %u", l->dpp_patterns.v[i].n);
    }
    kw_buf_puts(b, "}\n");
    put_indent(b, ind);
    kw_buf_puts(b, "memory:");
    for (size_t i = 0; i < l->memory.n; i++) {
        kw_buf_putc(b, '\n');
        put_indent(b, ind + 2);
        kw_buf_printf(b, "- {op: %s, width: %u, count: %u}", l->memory.v[i].key,
                      l->memory.v[i].width, l->memory.v[i].n);
    }
    kw_buf_puts(b, l->memory.n ? "\n" : " []\n");
    put_indent(b, ind);
    if (!l->has_lines) {
        kw_buf_puts(b, "lines: null\n");
        put_indent(b, ind);
        kw_buf_puts(b, "lines_note: ");
        put_qstr(b, l->lines_note ? l->lines_note : "line tables not requested");
        kw_buf_putc(b, '\n');
        return;
    }
    kw_buf_puts(b, "lines:\n");
    int32_t prev = -2;
    for (size_t i = 0; i < l->insns.n; i++) {
        const kw_co_insn *in = &l->insns.v[i];
        if (in->loc == prev)
            continue;
        prev = in->loc;
        put_indent(b, ind + 2);
        kw_buf_printf(b, "- {at: %u", in->offset);
        if (in->loc < 0) {
            kw_buf_puts(b, ", file: null}\n");
            continue;
        }
        const kw_co_loc *loc = &l->locs.v[in->loc];
        const kw_co_frame *f0 = &loc->frames.v[0];
        kw_buf_puts(b, ", file: ");
        put_qstr(b, f0->file);
        kw_buf_printf(b, ", line: %u, column: %u", f0->line, f0->column);
        if (f0->function) {
            kw_buf_puts(b, ", function: ");
            put_qstr(b, f0->function);
        }
        if (loc->frames.n > 1) {
            kw_buf_puts(b, ", inlined_at: [");
            for (size_t f = 1; f < loc->frames.n; f++) {
                const kw_co_frame *fr = &loc->frames.v[f];
                kw_buf_puts(b, f > 1 ? ", {file: " : "{file: ");
                put_qstr(b, fr->file);
                kw_buf_printf(b, ", line: %u, column: %u", fr->line, fr->column);
                if (fr->function) {
                    kw_buf_puts(b, ", function: ");
                    put_qstr(b, fr->function);
                }
                kw_buf_puts(b, "}");
            }
            kw_buf_puts(b, "]");
        }
        kw_buf_puts(b, "}\n");
    }
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

kw_status kw_co_write_yaml(kw_buf *b, kw_co_set *set, bool with_isa, unsigned flags,
                           kw_err *err) {
    kw_buf_puts(b, "input: ");
    put_qstr(b, set->name);
    kw_buf_puts(b, "\ncode_objects:\n");
    for (size_t i = 0; i < set->objects.n; i++) {
        const kw_co_object *o = &set->objects.v[i];
        kw_buf_puts(b, "  - {origin: ");
        put_qstr(b, o->origin);
        kw_buf_puts(b, ", container: ");
        put_qstr(b, o->container);
        kw_buf_puts(b, ", bundle_id: ");
        put_qstr(b, o->bundle_id);
        kw_buf_puts(b, ", target_id: ");
        put_qstr(b, o->target_id);
        kw_buf_puts(b, ", elf_target_id: ");
        put_qstr(b, o->elf_target_id);
        kw_buf_printf(b, ", bytes: %zu, kernels: %zu}\n", o->image_size, o->kernels.n);
    }
    if (set->notes.n) {
        kw_buf_puts(b, "notes:\n");
        for (size_t i = 0; i < set->notes.n; i++) {
            kw_buf_puts(b, "  - ");
            put_qstr(b, set->notes.v[i]);
            kw_buf_putc(b, '\n');
        }
    }
    /* one entry per symbol, in order of first appearance; its archs in
     * object order (the same arch twice gets "arch#object") */
    size_t nk = 0;
    for (size_t i = 0; i < set->objects.n; i++)
        nk += set->objects.v[i].kernels.n;
    /* a code object may have no kernel at all (a TU with device functions only) */
    kw_buf_puts(b, nk ? "kernels:\n" : "kernels: []\n");
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
    kw_co_listing l;
    kw_co_listing_init(&l);
    kw_status st = KW_OK;
    for (size_t g = 0; g < ng && st == KW_OK; g++) {
        const kref *first = groups[g], *end = refs + nk;
        kw_buf_puts(b, "  - symbol: ");
        put_qstr(b, first->name);
        kw_buf_puts(b, "\n    archs:\n");
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
            put_indent(b, 6);
            put_qstr(b, key);
            kw_buf_puts(b, ":\n");
            const kw_co_listing *lp = NULL;
            if (with_isa && kk->has_code) {
                st = kw_co_disassemble(set, oo, kk, flags, &l, err);
                lp = &l;
            }
            if (st == KW_OK)
                kw_co_write_arch_yaml(b, 8, oo, kk, lp);
        }
    }
    free(refs);
    free(groups);
    kw_co_listing_free(&l);
    if (st == KW_OK && b->oom)
        st = kw_fail(err, "out of memory writing YAML");
    return st;
}
