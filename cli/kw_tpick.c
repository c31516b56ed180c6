/* kw_tpick.c: the command line of `kwalk repro` and `kwalk compare`, and
 * the one Triton specialization a KERNEL argument picks (kw_tpick.h). */
#include <stdio.h>
#include <string.h>

#include "cli/kw_cli.h"
#include "cli/kw_tpick.h"
#include "model/kw_pick.h"

int kw_tpick_args_parse(int argc, char **argv, const char *cmd, const char *usage, size_t max,
                        kw_tpick_args *out) {
    memset(out, 0, sizeof(*out));
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kw_cli_is_help(argv[i])) {
            fputs(usage, stdout);
            return kw_cli_flush_stdout();
        } else if ((r = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error(cmd, "option --db needs a file name");
            out->db = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--arch", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error(cmd, "option --arch needs an arch name");
            out->arch = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error(cmd, "option --output needs a file name");
            out->output = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return kw_cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        } else if (out->nq == max || out->nq == 2) {
            return kw_cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
        } else {
            out->q[out->nq++] = argv[i];
        }
    }
    return -1;
}

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
