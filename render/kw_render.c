/* kw_render.c: the walkthrough of one kernel instantiation: the title block,
 * the order of the sections, and section 6, the source file index built from
 * every location the other sections printed. The helpers the sections share
 * are kw_r.c. */
#include "render/kw_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/kw_md.h"

void kw_render_init(kw_render *r, kw_model *m, kw_srcs *srcs, const kw_providers *p,
                    const kw_gpus *g, const kw_isa_notes *n, const kw_render_opts *o) {
    memset(r, 0, sizeof(*r));
    r->in = KW_MD_CELL;
    r->m = m;
    r->srcs = srcs;
    r->providers = p;
    r->gpus = g;
    r->notes = n;
    r->o = o;
    kw_arena_init(&r->scratch);
    kw_buf_init(&r->hw_table);
    kw_page_init(&r->page);
}

void kw_render_free(kw_render *r) {
    for (size_t i = 0; r->lits && i < KW_R_LITS; i++)
        free(r->lits[i].html);
    free(r->lits);
    kw_arena_free(&r->scratch);
    kw_buf_free(&r->hw_table);
    kw_page_free(&r->page);
}

/* ---- helpers -------------------------------------------------------------------------------- */

static int kw_ref_cmp(const void *a, const void *b) {
    const kw_ref *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : x->line - y->line;
}

void kw_render_files(kw_render *r) {
    kw_buf *o = r->out;
    KW_R_HEADING(r, 2, "6. Source File Index");
    if (!r->refs.n) {
        KW_R_LIT(r, "No source locations were recorded for this kernel.\n\n");
        return;
    }
    qsort(r->refs.v, r->refs.n, sizeof(kw_ref), kw_ref_cmp);
    KW_R_LIT(r, "Every file this walkthrough points into, with the lines it cites.\n\n");
    static const char *const head[] = {"File", "Roles", "Lines"};
    kw_r_table(r, 3, head);
    for (size_t i = 0; i < r->refs.n;) {
        size_t j = i;
        while (j < r->refs.n && !strcmp(r->refs.v[j].file, r->refs.v[i].file))
            j++;
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(o, kw_r_path(r, r->refs.v[i].file), r->in);
        kw_r_cell(r);
        /* roles, each once, in a fixed order */
        static const char *const order[] = {
            "Python call",   "Python op", "entry",         "dispatch",   "launch",       "kernel",
            "device helper", "loop",      "memory access", "inline asm", "shared memory"};
        bool first = true;
        for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
            for (size_t x = i; x < j; x++)
                if (!strcmp(r->refs.v[x].role, order[k])) {
                    kw_r_plainf(r, "%s%s", first ? "" : ", ", order[k]);
                    first = false;
                    break;
                }
        kw_r_cell(r);
        for (size_t x = i; x < j; x++) {
            const kw_ref *f = &r->refs.v[x];
            if (x > i && f->line == r->refs.v[x - 1].line)
                continue;
            kw_r_plainf(r, "%s%d", x > i ? ", " : "", f->line);
            if (f->label) {
                kw_buf_puts(o, " ");
                kw_md_code(o, kw_r_short(r, f->label), r->in);
            }
        }
        i = j;
    }
    kw_r_table_end(r);
    kw_buf_putc(o, '\n');
}

/* ---- the walkthrough ------------------------------------------------------------------------ */

const char *kw_r_title(kw_render *r, const kw_mkernel *mk) {
    (void)r;
    return mk->title ? mk->title : mk->name;
}

static void kw_render_title(kw_render *r) {
    const kw_mkernel *mk = r->mk;
    const kw_kernel *k = mk->k;
    kw_buf *o = r->out;
    kw_buf_puts(o, "# Kernel Walkthrough: ");
    kw_md_code(o, kw_r_title(r, mk), false);
    if (mk->is_asm && strcmp(mk->name, mk->symbol)) { /* the symbol it is loaded by */
        kw_buf_puts(o, " (");
        kw_md_code(o, mk->symbol, false);
        kw_buf_puts(o, ")");
    }
    kw_buf_puts(o, "\n\n");
    if (!k && mk->asm_code_object) {
        kw_buf_printf(o, "> Source: %s | Language: ASM | File: ",
                      kw_r_safe(r, kw_provider_of(r->providers, mk->asm_code_object)));
        kw_md_code(o, kw_r_path(r, mk->asm_code_object), false);
        kw_buf_puts(o, " (code object)\n\n");
        return;
    }
    const char *file = k && k->location.file ? k->location.file : NULL;
    kw_buf_printf(o, "> Source: %s | Language: HIP C++ | File: ",
                  kw_r_safe(r, kw_provider_of(r->providers, file)));
    if (file) {
        kw_r_loc(r, file, k->location.line);
        kw_r_ref(r, file, k->location.line, "kernel", mk->name);
    } else {
        kw_buf_puts(o, "(no device record in the index)");
    }
    kw_buf_puts(o, "\n\n");
}

/* The page model's parts built with the page, before the first section
 * writes: section 5 and, on a site page (md_html set), the source <-> ISA
 * view (model/kw_page_isa.h); a Triton page's TTGIR reading (kw_ttgir.h). */
static kw_status kw_render_page_parts(kw_render *r, kw_err *err) {
    kw_page_isa *pi = kw_arena_alloc(&r->scratch, sizeof *pi);
    if (!pi)
        return kw_fail(err, "out of memory");
    if (kw_page_isa_build(pi, &r->page, r->notes, &r->scratch, err) != KW_OK ||
        (r->md_html &&
         kw_page_isa_view(pi, &r->page, r->notes, &r->defs, &r->scratch, err) != KW_OK))
        return KW_ERR;
    r->page.isa = pi;
    if (r->page.triton) {
        kw_ttgir *g = kw_arena_alloc(&r->scratch, sizeof *g);
        if (!g)
            return kw_fail(err, "out of memory");
        if (kw_ttgir_build(g, r->page.triton, r->page.archs.v, r->page.archs.n, r->gpus, r->o->gpu,
                           &r->scratch, err) != KW_OK)
            return KW_ERR;
        r->page.ttgir = g;
    }
    return KW_OK;
}

kw_status kw_render_kernel(kw_render *r, size_t ki, kw_buf *out, kw_err *err) {
    kw_arena_free(&r->scratch);
    kw_arena_init(&r->scratch);
    r->out = out;
    r->page_out = out;
    memset(&r->html, 0, sizeof r->html);
    r->lit_end = 0;
    r->mk = &r->m->kernels.v[ki];
    memset(&r->refs, 0, sizeof(r->refs));
    memset(&r->archs, 0, sizeof(r->archs));
    r->py_counted = (size_t)-1;
    if (kw_page_open(&r->page, r->m, r->mk, r->srcs, &r->scratch, err) != KW_OK)
        return KW_ERR;
    /* the page decides which archs it shows (--arch) and evaluates for them */
    if (kw_page_finish(&r->page, r->m, r->o->arch_override, r->o->narch_override, r->o->arch,
                       &r->scratch, err) != KW_OK)
        return KW_ERR;
    /* section 4's numbers, with what --trace measured of the kernel */
    kw_perf_measured *ms = r->o->trace ? kw_arena_alloc(&r->scratch, sizeof *ms) : NULL;
    kw_page_perf *perf = kw_arena_alloc(&r->scratch, sizeof *perf);
    if (!perf || (r->o->trace && (!ms || !kw_tstats_measured(r->o->trace, r->mk->symbol,
                                                             &r->scratch, ms))))
        return kw_fail(err, "out of memory");
    if (kw_page_perf_build(perf, &r->page, r->m, r->gpus, r->o->gpu, r->o->arch, r->o->time_us,
                           ms, &r->scratch, err) != KW_OK)
        return KW_ERR;
    r->page.perf = perf;
    r->archs.v = r->page.archs.v;
    r->archs.n = r->page.archs.n;
    if (kw_render_page_parts(r, err) != KW_OK)
        return KW_ERR;
    if (r->page.triton) {
        kw_render_triton(r);
    } else {
        kw_render_title(r);
        kw_render_overview(r);
        kw_render_host(r);
        kw_render_device(r);
        kw_render_flow(r);
        kw_render_memory(r);
    }
    kw_render_isa(r);
    kw_render_files(r);
    kw_buf_printf(out, "---\n\nGenerated by kwalk from ");
    kw_md_code(out, kw_r_path(r, r->o->db_path), false);
    if (r->o->all)
        kw_buf_puts(out, " · [all kernels](index.md)");
    kw_buf_puts(out, ".\n");
    if (out->oom)
        return kw_fail(err, "out of memory");
    return KW_OK;
}
