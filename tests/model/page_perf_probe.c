/* page_perf_probe.c: section 4's page model (model/kw_page_perf.h) of every
 * kernel instantiation of an index, for the model.page_perf_corpus test
 * (test_page_perf_corpus.py), which checks it against the corpus source and
 * the annotation files. Usage: page_perf_probe DB [TIME_US]. One JSON object
 * a line: {"page": NAME, "arch", "launch" (its index), "work": [[read,
 * written, FLOP] per thread, block, invocation; null where not known],
 * "classified", "intensity", "ridge", "bound", "gpu", "timed", "tbs"}, and
 * per arch shown one {"page", "arch", "occ": [[VGPRs, waves] at 0 and at each
 * step]}. Exit 1 when the index cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/kw_index.h"
#include "model/kw_annot.h"
#include "model/kw_page.h"
#include "model/kw_page_perf.h"

/* s as a JSON string (names hold no control characters; quotes escaped). */
static void kw_probe_str(const char *s) {
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

static void kw_probe_page(const kw_page *p, const kw_page_perf *pf) {
    for (size_t a = 0; a < p->archs.n; a++) {
        const kw_page_perf_arch *x = &pf->archs[a];
        printf("{\"page\": ");
        kw_probe_str(p->mk->name);
        printf(", \"arch\": ");
        kw_probe_str(x->arch);
        printf(", \"occ\": [[0, %u]", x->occ.waves0);
        for (size_t i = 0; x->occ.known && i < x->occ.nsteps; i++)
            printf(", [%u, %u]", x->occ.vgprs[i], x->occ.waves[i]);
        printf("], \"occ_known\": %s}\n", x->occ.known ? "true" : "false");
        for (size_t i = 0; i < pf->nlaunches; i++) {
            const kw_page_perf_launch *l = &pf->launches[a * pf->nlaunches + i];
            printf("{\"page\": ");
            kw_probe_str(p->mk->name);
            printf(", \"arch\": ");
            kw_probe_str(x->arch);
            printf(", \"launch\": %zu, \"work\": [", i);
            for (int per = 0; per < 3; per++)
                for (int w = 0; w < 3; w++) {
                    printf("%s", per || w ? ", " : "");
                    if (l->known[per][w])
                        printf("%.17g", l->work[per][w]);
                    else
                        printf("null");
                }
            printf("], \"classified\": %s, \"intensity\": %.17g, \"ridge\": %.17g, \"bound\": ",
                   l->classified ? "true" : "false", l->bound.intensity, l->bound.ridge);
            kw_probe_str(l->classified ? l->bound.name : "");
            printf(", \"gpu\": ");
            kw_probe_str(x->gpu ? x->gpu->product : "");
            printf(", \"timed\": %s, \"tbs\": %.17g}\n", l->timed ? "true" : "false", l->bw.tbs);
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: page_perf_probe DB [TIME_US]\n");
        return 2;
    }
    double time_us = argc == 3 ? atof(argv[2]) : -1;
    kw_err err;
    kw_index ix;
    kw_index_init(&ix);
    kw_annot an;
    kw_gpus gpus;
    kw_model m;
    if (kw_index_read_file(&ix, argv[1], &err) != KW_OK || kw_annot_load(&an, &err) != KW_OK ||
        kw_gpus_load(&gpus, &err) != KW_OK || kw_model_build(&m, &ix, NULL, &err) != KW_OK) {
        fprintf(stderr, "page_perf_probe: %s\n", err.msg);
        return 1;
    }
    kw_srcs srcs;
    kw_srcs_init(&srcs);
    int rc = 0;
    for (size_t k = 0; k < m.kernels.n && !rc; k++) {
        kw_arena a;
        kw_arena_init(&a);
        kw_page p;
        kw_page_init(&p);
        kw_page_perf pf;
        if (kw_page_open(&p, &m, &m.kernels.v[k], &srcs, &a, &err) != KW_OK ||
            kw_page_finish(&p, &m, NULL, 0, NULL, &a, &err) != KW_OK ||
            kw_page_perf_build(&pf, &p, &m, &gpus, NULL, NULL, time_us, NULL, &a, &err) != KW_OK) {
            fprintf(stderr, "page_perf_probe: %s\n", err.msg);
            rc = 1;
        } else {
            kw_probe_page(&p, &pf);
        }
        kw_page_free(&p);
        kw_arena_free(&a);
    }
    kw_srcs_free(&srcs);
    kw_model_free(&m);
    kw_gpus_free(&gpus);
    kw_annot_free(&an);
    kw_index_free(&ix);
    return rc;
}
