/* kw_tpick.c: picks one Triton specialization by a KERNEL argument
 * (kw_tpick.h). */
#include <stdio.h>

#include "cli/kw_cli.h"
#include "cli/kw_tpick.h"
#include "model/kw_pick.h"

static bool kw_is_triton(const kw_mkernel *mk) {
    return mk->k && mk->k->triton;
}

int kw_tpick(const kw_model *m, const char *cmd, const char *q, const char *arch, size_t *out) {
    kw_arena a;
    kw_arena_init(&a);
    kw_pick_hits h;
    kw_pick_match(m, q, arch, NULL, &a, &h);
    size_t n = 0, at = 0;
    for (size_t i = 0; i < h.v.n; i++)
        if (kw_is_triton(&m->kernels.v[h.v.v[i]]))
            n++, at = h.v.v[i];
    int rc = KW_EXIT_OK;
    if (!h.v.n) {
        rc = kw_cli_failf("%s: no kernel matches '%s'%s%s ('kwalk list' shows them)", cmd, q,
                          arch ? " for " : "", arch ? arch : "");
    } else if (!n) {
        rc = kw_cli_failf("%s: '%s' is not a Triton specialization (it reads a Triton kernel's "
                          "cache entry)",
                          cmd, q);
    } else if (n > 1) {
        kw_cli_failf("%s: '%s' matches %zu Triton specializations; name one (its hash, or "
                     "--arch). Candidates:",
                     cmd, q, n);
        size_t shown = 0;
        for (size_t i = 0; i < h.v.n && shown < 50; i++) {
            const kw_mkernel *mk = &m->kernels.v[h.v.v[i]];
            if (!kw_is_triton(mk))
                continue;
            fprintf(stderr, "  %s\t%s\t%s\n", mk->name,
                    mk->k->archs.n ? mk->k->archs.v[0].arch : "?",
                    mk->k->triton->hash ? mk->k->triton->hash : mk->symbol);
            shown++;
        }
        if (n > shown)
            fprintf(stderr, "  ... and %zu more\n", n - shown);
        rc = KW_EXIT_INPUT;
    } else {
        *out = at;
    }
    kw_arena_free(&a);
    return rc;
}
