/* kw_co_write.c: code-object facts as text for people (the `kwalk isa`
 * kernel table and listings). As YAML they go into the sidecar
 * (kw_co_sidecar.c, written by the one YAML writer, sidecar/kw_yaml_emit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kw_co_internal.h"

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
