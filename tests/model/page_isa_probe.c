/* page_isa_probe.c: the page model's ISA part (model/kw_page_isa.h) and
 * TTGIR reading (model/kw_ttgir.h) of every kernel of an index, as lines of
 * tab-separated fields for the model.page_isa and model.ttgir tests, which
 * compare them with llvm-objdump and the TTGIR text:
 *   K  symbol  cache folder (a Triton specialization's; - for others)
 *   A  arch  lines  instructions         (the listing as the page splits it)
 *   M  arch  mnemonic  count             (section 5's counts, suffix stripped)
 *   T  token  class                      (the view's class of a mnemonic token)
 *   C  arch  class  count                (section 5's class table)
 *   L  name  kind  rank-or-0  tile...    (a TTGIR layout as the page reads it)
 *   D  m  n  k  flop  mfma-M  mfma-N  mfma-K  per_program  per_wave  elem_bytes
 * Usage: page_isa_probe DB. Exit 1 when the index or a page cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/kw_index.h"
#include "model/kw_annot.h"
#include "model/kw_hw.h"
#include "model/kw_isa_notes.h"
#include "model/kw_model.h"
#include "model/kw_page.h"
#include "model/kw_page_isa.h"
#include "model/kw_ttgir.h"

static void kw_probe_isa(const kw_page_isa *pi) {
    for (size_t a = 0; a < pi->archs.n; a++) {
        const kw_page_isa_arch *x = &pi->archs.v[a];
        const char *arch = x->a->arch;
        if (x->lines)
            printf("A\t%s\t%zu\t%zu\n", arch, x->n, x->ninsn);
        for (size_t i = 0; i < pi->mnems.n && a < KW_PAGE_ISA_COUNTED; i++)
            if (pi->mnems.v[i].count[a])
                printf("M\t%s\t%s\t%u\n", arch, pi->mnems.v[i].name.text, pi->mnems.v[i].count[a]);
        for (size_t i = 0; i < pi->classes.n; i++)
            if (pi->classes.v[i].v[a] >= 0)
                printf("C\t%s\t%s\t%lld\n", arch, pi->classes.v[i].key, pi->classes.v[i].v[a]);
    }
    for (size_t i = 0; i < pi->mns.n; i++) {
        const kw_page_isa_mnem *m = &pi->mns.v[i];
        int k = m->klass;
        printf("T\t%.*s\t%s\n", (int)m->mnem.len, m->mnem.text,
               k >= 0 && (size_t)k < pi->class_names.n ? pi->class_names.v[k] : "?");
    }
}

static void kw_probe_ttgir(const kw_ttgir *g) {
    for (size_t i = 0; i < g->layouts.n; i++) {
        const kw_ttgir_layout *l = &g->layouts.v[i];
        static const char *const kind[] = {"other", "blocked", "mfma", "shared"};
        printf("L\t%s\t%s\t%zu", l->l->name ? l->l->name : "?", kind[l->kind], l->rank);
        for (size_t d = 0; d < l->rank; d++)
            printf("\t%lld", l->tile[d]);
        if (l->kind == KW_TTGIR_MFMA)
            printf("\t%lld\t%lld\t%lld\t%lld\t%lld", l->mfma.shape[0], l->mfma.shape[1],
                   l->mfma.shape[2], l->mfma.warps[0], l->mfma.warps[1]);
        printf("\n");
    }
    for (size_t i = 0; i < g->dots.n; i++) {
        const kw_ttgir_dot *d = &g->dots.v[i];
        printf("D\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%d\n", d->m, d->n, d->k,
               d->flop, d->has_mfma ? d->mfma.shape[0] : 0, d->has_mfma ? d->mfma.shape[1] : 0,
               d->has_mfma ? d->mfma.shape[2] : 0, d->per_program, d->per_wave, d->elem_bytes);
        /* the tl.dot's position, its tt.dot copies and executions per program */
        printf("X\t%d\t%d\t%zu\t%d\t%s\t%lld\n", d->op->location.line, d->op->location.column,
               d->copies, d->in_loop, d->execs ? d->execs : "-", d->execs_n);
    }
    for (size_t i = 0; i < g->per_thread.n; i++) { /* each memory op's lanes */
        const kw_ttgir_per_thread *pt = &g->per_thread.v[i];
        printf("P\t%zu\t%d", i, pt->lanes);
        if (pt->lanes) {
            printf("\t%lld\t%lld\t%lld\t%lld", pt->lane_elems, pt->lane_bytes, pt->lane_dim,
                   pt->lanes_along);
            for (size_t d = 0; d < pt->rank; d++)
                printf("\t%lld", pt->wave[d]);
        }
        printf("\n");
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: page_isa_probe DB\n");
        return 2;
    }
    kw_err err;
    kw_index ix;
    kw_index_init(&ix);
    kw_annot annot;
    kw_gpus gpus;
    kw_isa_notes notes;
    kw_model m;
    memset(&annot, 0, sizeof annot);
    memset(&gpus, 0, sizeof gpus);
    memset(&notes, 0, sizeof notes);
    memset(&m, 0, sizeof m);
    if (kw_index_read_file(&ix, argv[1], &err) != KW_OK || kw_annot_load(&annot, &err) != KW_OK ||
        kw_gpus_load(&gpus, &err) != KW_OK ||
        kw_isa_notes_load(&notes, &annot, &err) != KW_OK ||
        kw_model_build(&m, &ix, NULL, &err) != KW_OK) {
        fprintf(stderr, "page_isa_probe: %s\n", err.msg);
        return 1;
    }
    kw_srcs srcs;
    kw_srcs_init(&srcs);
    kw_page_isa_defs *defs = calloc(1, sizeof *defs);
    int rc = defs ? 0 : 1;
    for (size_t i = 0; i < m.kernels.n && !rc; i++) {
        kw_arena a;
        kw_arena_init(&a);
        kw_page p;
        kw_page_init(&p);
        kw_page_isa pi;
        kw_ttgir g;
        const kw_mkernel *mk = &m.kernels.v[i];
        if (kw_page_open(&p, &m, mk, &srcs, &a, &err) != KW_OK ||
            kw_page_finish(&p, &m, NULL, 0, NULL, &a, &err) != KW_OK ||
            kw_page_isa_build(&pi, &p, &notes, &a, &err) != KW_OK ||
            kw_page_isa_view(&pi, &p, &notes, defs, &a, &err) != KW_OK ||
            (p.triton &&
             kw_ttgir_build(&g, p.triton, p.archs.v, p.archs.n, &gpus, NULL, &a, &err) != KW_OK)) {
            fprintf(stderr, "page_isa_probe: %s: %s\n", mk->symbol, err.msg);
            rc = 1;
        } else {
            printf("K\t%s\t%s\n", mk->symbol,
                   p.triton && p.triton->cache_dir ? p.triton->cache_dir : "-");
            kw_probe_isa(&pi);
            if (p.triton)
                kw_probe_ttgir(&g);
        }
        kw_page_free(&p);
        kw_arena_free(&a);
    }
    free(defs);
    kw_srcs_free(&srcs);
    kw_model_free(&m);
    kw_isa_notes_free(&notes);
    kw_gpus_free(&gpus);
    kw_annot_free(&annot);
    kw_index_free(&ix);
    return rc;
}
