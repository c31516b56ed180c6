/* ipage_probe.c: the index page's model (model/kw_ipage.h) of an index,
 * printed for the model.ipage test (test_ipage.py), which checks it against
 * the corpus's marker comments and tests/corpus/expected.json. Usage:
 * ipage_probe DB. One line a fact, tab-separated:
 *   C  KERNELS GROUPS LAUNCHES ENTRIES TRITON     the counts
 *   G  KEY                                        a template, in page order
 *   D  FILE LINE                                  a definition it lists
 *   K  NAME SYMBOL UNREACHABLE                    an instantiation (0/1)
 *   E  KIND FILE LINE LABEL                       an entry point reaching it
 * Exit 1 (with a message) when the index cannot be read. */
#include <stdio.h>
#include <string.h>

#include "model/kw_annot.h"
#include "model/kw_ipage.h"

static const char *kw_s(const char *s) {
    return s ? s : "-";
}

static void kw_probe_print(const kw_ipage *p) {
    const kw_model *m = p->m;
    printf("C\t%zu\t%zu\t%zu\t%zu\t%zu\n", p->nkernels, p->ngroups, p->nlaunches, p->nentries,
           p->ntriton);
    for (size_t g = 0; g < p->groups.n; g++) {
        const kw_ipage_group *pg = &p->groups.v[g];
        printf("G\t%s\n", m->groups.v[pg->group].key);
        for (size_t d = 0; d < pg->defs.n; d++) {
            const kw_loc *l = &m->kernels.v[pg->defs.v[d]].k->location;
            printf("D\t%s\t%d\n", kw_s(l->file), l->line);
        }
        for (size_t r = 0; r < pg->rows.n; r++) {
            const kw_ipage_row *row = &pg->rows.v[r];
            const kw_mkernel *mk = &m->kernels.v[row->kernel];
            printf("K\t%s\t%s\t%d\n", mk->name, mk->symbol, row->unreachable ? 1 : 0);
            for (size_t e = 0; e < row->entries.n; e++) {
                const kw_entry *en = m->entries.v[row->entries.v[e].entry].e;
                printf("E\t%s\t%s\t%d\t%s\n", kw_s(en->kind), kw_s(en->location.file),
                       en->location.line, row->entries.v[e].label);
            }
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: ipage_probe DB\n");
        return 2;
    }
    kw_index ix;
    kw_annot an;
    kw_providers prov;
    kw_model m;
    kw_ipage p;
    kw_err err;
    kw_index_init(&ix);
    memset(&an, 0, sizeof an);
    memset(&prov, 0, sizeof prov);
    memset(&m, 0, sizeof m);
    memset(&p, 0, sizeof p);
    int rc = 0;
    if (kw_index_read_file(&ix, argv[1], &err) != KW_OK || kw_annot_load(&an, &err) != KW_OK ||
        kw_providers_load(&prov, &an, &err) != KW_OK ||
        kw_model_build(&m, &ix, NULL, &err) != KW_OK ||
        kw_ipage_build(&p, &m, &prov, &err) != KW_OK) {
        fprintf(stderr, "ipage_probe: %s\n", err.msg);
        rc = 1;
    } else {
        kw_probe_print(&p);
    }
    kw_ipage_free(&p);
    kw_model_free(&m);
    kw_providers_free(&prov);
    kw_annot_free(&an);
    kw_index_free(&ix);
    return rc;
}
