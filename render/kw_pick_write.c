/* kw_pick_write.c: the candidates of an ambiguous `kwalk render KERNEL`
 * (kw_pick_write.h), one line each, with `--tu` where a kernel has
 * internal linkage. */
#include "render/kw_pick_write.h"

/* "\tinternal linkage, --tu FILE" for a kernel of one unit's own. */
static void kw_pick_write_tu(FILE *f, const kw_mkernel *mk) {
    if (mk->tu)
        fprintf(f, "\tinternal linkage, --tu %s",
                mk->tu->tu.source ? mk->tu->tu.source : mk->tu->sidecar);
}

void kw_pick_write_kernels(FILE *f, const kw_model *m, const kw_kfams *fams,
                           const kw_kfam_hits *h) {
    for (size_t i = 0; i < h->fams.n && i < 50; i++) {
        const kw_kfam *fam = &fams->v.v[h->fams.v[i]];
        size_t n = 0;
        for (size_t j = 0; j < h->kernels.n; j++)
            n += fams->of[h->kernels.v[j]] == h->fams.v[i];
        fprintf(f, "  %s\t%s, %zu of %zu instantiations match", fam->name,
                kw_kfam_kind_name(fam->kind), n, fam->kernels.n);
        const kw_mkernel *mk = &m->kernels.v[fam->kernels.v[0]];
        if (n == 1)
            for (size_t j = 0; j < h->kernels.n; j++)
                if (fams->of[h->kernels.v[j]] == h->fams.v[i])
                    mk = &m->kernels.v[h->kernels.v[j]];
        if (n == 1)
            kw_pick_write_tu(f, mk);
        fputc('\n', f);
    }
    if (h->fams.n > 50)
        fprintf(f, "  ... and %zu more\n", h->fams.n - 50);
}

void kw_pick_write_units(FILE *f, const kw_model *m, const kw_kfam_hits *h) {
    for (size_t i = 0; i < h->kernels.n; i++) {
        const kw_mkernel *mk = &m->kernels.v[h->kernels.v[i]];
        fprintf(f, "  %s\t%s", mk->name, mk->symbol);
        kw_pick_write_tu(f, mk);
        fputc('\n', f);
    }
}
