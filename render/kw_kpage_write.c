/* kw_kpage_write.c: writing a kernel's page and dispatch table as Markdown
 * (kw_kpage_write.h), through kw_md.h only. */
#include "render/kw_kpage_write.h"

#include <stdio.h>
#include <string.h>

#include "common/kw_arena.h"
#include "common/kw_fs.h"
#include "render/kw_md.h"

typedef struct kw_kw {
    const kw_model *m;
    const kw_kpage *p;
    const char *root;
    kw_buf *b;
    kw_arena *a;
} kw_kw;

static void kw_kw_loc(kw_kw *w, const kw_loc *l, kw_md_in in) {
    if (!l || !l->file) {
        kw_md_text(w->b, "(no location recorded)", in);
        return;
    }
    char *s = kw_arena_printf(w->a, "%s:%d", kw_fs_rel(w->root, l->file), l->line);
    kw_md_code(w->b, s ? s : "?", in);
}

static const char *kw_kverdict_word(kw_kverdict v) {
    return v == KW_KV_HOLDS ? "selected" : v == KW_KV_OPEN ? "candidate" : "ruled out";
}

static void kw_kw_head(kw_kw *w, const char *query) {
    const kw_kfam *f = w->p->fam;
    const kw_mkernel *first = &w->m->kernels.v[f->kernels.v[0]];
    kw_buf_puts(w->b, "# Kernel ");
    kw_md_code(w->b, f->name, KW_MD_TEXT);
    kw_buf_puts(w->b, "\n\n");
    kw_buf_printf(w->b, "Kind: %s; %zu instantiation%s in this build", kw_kfam_kind_name(f->kind),
                  f->kernels.n, f->kernels.n == 1 ? "" : "s");
    if (f->via) {
        kw_buf_puts(w->b, ", each launched through ");
        kw_md_code(w->b, f->via, KW_MD_TEXT);
    }
    kw_buf_puts(w->b, ". ");
    const kw_loc *def = first->k ? (first->k->functor_location.file ? &first->k->functor_location
                                                                    : &first->k->location)
                                 : NULL;
    if (def && def->file) {
        kw_buf_puts(w->b, "Defined at ");
        kw_kw_loc(w, def, KW_MD_TEXT);
        kw_buf_puts(w->b, ". ");
    } else if (first->asm_code_object) {
        kw_buf_puts(w->b, "Precompiled code objects, e.g. ");
        kw_md_code(w->b, kw_fs_rel(w->root, first->asm_code_object), KW_MD_TEXT);
        kw_buf_puts(w->b, ". ");
    }
    if (w->p->subset) {
        kw_buf_printf(w->b, "%zu of them match ", w->p->rows.n);
        kw_md_code(w->b, query, KW_MD_TEXT);
        kw_buf_puts(w->b, " and are listed.");
    }
    kw_buf_puts(w->b, "\n\n");
}

static void kw_kw_shape(kw_kw *w) {
    const kw_kpage *p = w->p;
    if (!p->shape)
        return;
    kw_buf_puts(w->b, "## For --shape ");
    for (size_t i = 0; i < p->shape->v.n; i++)
        if (p->shape->v.v[i].text)
            kw_buf_printf(w->b, "%s%s=%s", i ? "," : "", p->shape->v.v[i].name,
                          p->shape->v.v[i].text);
        else
            kw_buf_printf(w->b, "%s%s=%g", i ? "," : "", p->shape->v.v[i].name,
                          p->shape->v.v[i].value);
    kw_buf_puts(w->b, "\n\n");
    kw_buf_printf(w->b,
                  "%zu instantiation%s selected (every dispatch condition on a way to it holds), "
                  "%zu candidate%s (none fails, some could not be evaluated), %zu ruled out.\n\n",
                  p->nselected, p->nselected == 1 ? "" : "s", p->ncandidates,
                  p->ncandidates == 1 ? "" : "s", p->rows.n - p->nselected - p->ncandidates);
    for (size_t r = 0; r < p->rows.n; r++) {
        if (p->rows.v[r].v != KW_KV_HOLDS && p->rows.v[r].v != KW_KV_OPEN)
            continue;
        const kw_mkernel *mk = &w->m->kernels.v[p->rows.v[r].kernel];
        kw_buf_printf(w->b, "- %s: ", kw_kverdict_word(p->rows.v[r].v));
        kw_md_code(w->b, mk->name, KW_MD_TEXT);
        kw_buf_putc(w->b, '\n');
    }
    if (p->nselected + p->ncandidates)
        kw_buf_putc(w->b, '\n');
    if (p->open.n) {
        kw_buf_puts(w->b, "Not evaluated (bind their names with --shape to decide):\n\n");
        for (size_t i = 0; i < p->open.n; i++) {
            kw_buf_puts(w->b, "- ");
            kw_md_code(w->b, p->open.v[i]->text, KW_MD_TEXT);
            kw_buf_puts(w->b, " at ");
            kw_kw_loc(w, &p->open.v[i]->loc, KW_MD_TEXT);
            if (p->open.v[i]->why) {
                kw_buf_puts(w->b, ": ");
                kw_md_safe_prose(w->b, p->open.v[i]->why, KW_MD_TEXT);
            }
            kw_buf_putc(w->b, '\n');
        }
        kw_buf_putc(w->b, '\n');
    }
}

static void kw_kw_resources(kw_kw *w, const kw_mkernel *mk, kw_md_in in) {
    bool any = false;
    for (size_t i = 0; mk->k && i < mk->k->archs.n; i++) {
        const kw_kernel_arch *ar = &mk->k->archs.v[i];
        const kw_isa_resources *res = &ar->resources;
        if (res->vgpr < 0 && res->sgpr < 0)
            continue;
        char *s = kw_arena_printf(
            w->a, "%s%s: %lld VGPR, %lld AGPR, %lld SGPR, %lld B LDS, %lld waves/SIMD",
            any ? "; " : "", ar->arch, res->vgpr, res->agpr < 0 ? 0 : res->agpr, res->sgpr,
            res->lds_bytes < 0 ? 0 : res->lds_bytes, res->occupancy);
        kw_md_text(w->b, s ? s : "?", in);
        any = true;
    }
    if (!any)
        kw_md_text(w->b, mk->is_asm ? "(in its code object: see its page)" : "-", in);
}

static void kw_kw_mix(kw_kw *w, const kw_krow *row, kw_md_in in) {
    for (size_t i = 0; i < row->mix.n; i++) {
        const kw_isa_mix *m = &row->mix.v[i].m;
        if (i + 1 < row->mix.n && !memcmp(m, &row->mix.v[i + 1].m, sizeof(*m))) {
            kw_md_text(w->b, row->mix.v[i].arch, in);
            kw_md_text(w->b, ", ", in);
            continue;
        }
        char *s = kw_arena_printf(
            w->a, "%s: MFMA %lld, VALU %lld, SALU %lld, VMEM %lld, LDS %lld, branch %lld (of %lld)%s",
            row->mix.v[i].arch, m->mfma, m->valu, m->salu, m->vmem, m->lds, m->branch, m->insns,
            i + 1 < row->mix.n ? "; " : "");
        kw_md_text(w->b, s ? s : "?", in);
    }
    if (!row->mix.n)
        kw_md_text(w->b, "-", in);
}

static void kw_kw_way(kw_kw *w, const kw_kway *way, kw_md_in in) {
    if (way->entry != KW_NONE) {
        kw_md_code(w->b, w->m->entries.v[way->entry].e->name, in);
        kw_md_text(w->b, " → ", in);
    }
    kw_kw_loc(w, &way->launch->l->location, in);
    if (way->v != KW_KV_NONE) {
        kw_md_text(w->b,
                   way->v == KW_KV_HOLDS   ? " (holds)"
                   : way->v == KW_KV_FAILS ? " (fails)"
                                           : " (open)",
                   in);
    }
}

static void kw_kw_group(kw_kw *w, size_t g, size_t nth) {
    const kw_kpage *p = w->p;
    const kw_krow *first = NULL;
    size_t n = 0;
    for (size_t r = 0; r < p->rows.n; r++)
        if (p->rows.v[r].group == g && (n++, !first))
            first = &p->rows.v[r];
    kw_buf_printf(w->b, "### Group %zu: %zu instantiation%s\n\n", nth, n, n == 1 ? "" : "s");
    if (!first->ways.n) {
        kw_buf_puts(w->b, "Emitted, but no recorded way runs them: their launches sit under "
                          "conditions constant false in these instantiations, or nothing "
                          "launches them.\n\n");
    } else {
        kw_buf_puts(w->b, "Selected where:\n\n");
        for (size_t i = 0; i < first->ways.n; i++) {
            const kw_kway *way = &first->ways.v[i];
            kw_buf_puts(w->b, "- ");
            if (!way->conds.n)
                kw_buf_puts(w->b, "always (no dispatch condition)");
            for (size_t c = 0; c < way->conds.n; c++) {
                if (c)
                    kw_buf_puts(w->b, " && ");
                kw_md_code(w->b, way->conds.v[c].text, KW_MD_TEXT);
            }
            kw_buf_puts(w->b, ", on the way ");
            kw_kw_way(w, way, KW_MD_TEXT);
            kw_buf_putc(w->b, '\n');
        }
        kw_buf_putc(w->b, '\n');
    }
    static const char *const titles[] = {"Instantiation", "Symbol",          "Differs by",
                                         "Resources",     "Instruction mix", "--shape"};
    int cols = p->shape ? 6 : 5;
    kw_md_table t;
    kw_md_table_open(&t, w->b, false, cols, titles, NULL);
    for (size_t r = 0; r < p->rows.n; r++) {
        const kw_krow *row = &p->rows.v[r];
        if (row->group != g)
            continue;
        const kw_mkernel *mk = &w->m->kernels.v[row->kernel];
        kw_md_table_row(&t);
        kw_md_table_cell(&t);
        kw_md_code(w->b, mk->title ? mk->title : mk->name, KW_MD_CELL);
        if (mk->page) {
            kw_md_text(w->b, " (", KW_MD_CELL);
            kw_md_code(w->b, mk->page, KW_MD_CELL);
            kw_md_text(w->b, ")", KW_MD_CELL);
        }
        kw_md_table_cell(&t);
        kw_md_code(w->b, mk->symbol, KW_MD_CELL);
        kw_md_table_cell(&t);
        if (row->args)
            kw_md_code(w->b, row->args, KW_MD_CELL);
        else
            kw_md_text(w->b, "-", KW_MD_CELL);
        kw_md_table_cell(&t);
        kw_kw_resources(w, mk, KW_MD_CELL);
        kw_md_table_cell(&t);
        kw_kw_mix(w, row, KW_MD_CELL);
        if (p->shape) {
            kw_md_table_cell(&t);
            kw_md_text(w->b, kw_kverdict_word(row->v), KW_MD_CELL);
        }
    }
    kw_md_table_close(&t);
    kw_buf_putc(w->b, '\n');
}

/* What the instantiations share: their launch sites and entry points. */
static void kw_kw_common(kw_kw *w) {
    const kw_kpage *p = w->p;
    if (!p->sites.n)
        return;
    kw_buf_puts(w->b, "## What the instantiations share\n\n");
    if (p->sites.n) {
        kw_buf_puts(w->b, "Launched at:\n\n");
        for (size_t i = 0; i < p->sites.n; i++) {
            kw_buf_puts(w->b, "- ");
            kw_kw_loc(w, p->sites.v[i].loc, KW_MD_TEXT);
            kw_buf_printf(w->b, ": %zu of %zu\n", p->sites.v[i].rows, p->rows.n);
        }
        kw_buf_putc(w->b, '\n');
    }
    if (p->entries.n) {
        kw_buf_puts(w->b, "Entry points reaching them:\n\n");
        for (size_t i = 0; i < p->entries.n; i++) {
            const kw_entry *e = w->m->entries.v[p->entries.v[i].entry].e;
            kw_buf_puts(w->b, "- ");
            kw_md_code(w->b, e->name ? e->name : "?", KW_MD_TEXT);
            if (e->location.file) {
                kw_buf_puts(w->b, " at ");
                kw_kw_loc(w, &e->location, KW_MD_TEXT);
            }
            kw_buf_printf(w->b, ": %zu of %zu\n", p->entries.v[i].rows, p->rows.n);
        }
        kw_buf_putc(w->b, '\n');
    }
}

void kw_kpage_write(const kw_model *m, const kw_kpage *p, const char *query, const char *root,
                    kw_buf *out) {
    kw_arena a;
    kw_arena_init(&a);
    kw_kw w = {m, p, root, out, &a};
    kw_kw_head(&w, query);
    kw_kw_common(&w);
    kw_kw_shape(&w);
    kw_buf_puts(out, "## Dispatch table\n\n");
    kw_buf_printf(out,
                  "%zu instantiation%s in %zu group%s: the instantiations of a group are "
                  "selected by the same conditions, on the same ways from an entry point to a "
                  "launch (a way's conditions are the guards of its calls and its launch, as "
                  "the way needs them; loops and compile-time constants left out)",
                  p->rows.n, p->rows.n == 1 ? "" : "s", p->ngroups, p->ngroups == 1 ? "" : "s");
    if (p->differ.n) {
        kw_buf_puts(out, "; they differ by ");
        for (size_t i = 0; i < p->differ.n; i++) {
            if (i)
                kw_buf_puts(out, ", ");
            kw_md_code(out, p->differ.v[i], KW_MD_TEXT);
        }
    }
    kw_buf_puts(out, ".\n\n");
    for (size_t g = 0; g < p->ngroups; g++)
        kw_kw_group(&w, g, g + 1);
    kw_arena_free(&a);
}
