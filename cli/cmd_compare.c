/* cmd_compare.c: `kwalk compare A B [--db FILE] [--arch ARCH] [-o FILE]`:
 * two specializations of one @triton.jit function side by side (two
 * autotune configs, two archs): their constexprs and options and what those
 * changed in resources, instruction mix and TTGIR layouts, as a Markdown
 * page (model/kw_tcompare.c builds it, render/kw_tcompare_write.c writes
 * it). A and B are matched as `kwalk repro` matches (cli/kw_tpick.h). */
#include <stdio.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_tpick.h"
#include "common/kw_buf.h"
#include "index/kw_index.h"
#include "model/kw_decode.h"
#include "model/kw_model.h"
#include "model/kw_tcompare.h"
#include "render/kw_tcompare_write.h"

static const char kw_compare_usage[] =
    "usage: kwalk compare A B [--db FILE] [--arch ARCH] [-o FILE]\n\n"
    "Two specializations of one @triton.jit function side by side, as Markdown: the\n"
    "constexprs and options each was compiled with, and what they changed in the code\n"
    "object's resources, its instruction mix and the TTGIR's layouts.\n\n"
    "  A, B            each names one Triton specialization: its cache hash (a prefix),\n"
    "                  NAME@HASH, or any name 'kwalk render' takes\n"
    "  --db FILE       the index (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --arch ARCH     only the specializations compiled for ARCH\n"
    "  -o, --output F  write the page to F instead of stdout\n";

int kw_cmd_compare(int argc, char **argv) {
    kw_tpick_args o;
    int prc = kw_tpick_args_parse(argc, argv, "compare", kw_compare_usage, 2, &o);
    if (prc >= 0)
        return prc;
    const char *db = o.db, *arch = o.arch, *output = o.output, *const *q = o.q;
    if (o.nq < 2 || !*q[0] || !*q[1])
        return kw_cli_usage_error("compare", "name two Triton specializations (A B)");
    kw_index ix;
    kw_err err;
    int rc = kw_app_read_index(&ix, db, false, 0);
    if (rc != KW_EXIT_OK)
        return rc;
    kw_model m;
    kw_arena a;
    kw_arena_init(&a);
    kw_buf b;
    kw_buf_init(&b);
    size_t ka = 0, kb = 0;
    kw_tcmp c;
    if (kw_model_build(&m, &ix, NULL, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto done;
    }
    if ((rc = kw_tpick(&m, "compare", q[0], arch, &ka)) != KW_EXIT_OK ||
        (rc = kw_tpick(&m, "compare", q[1], arch, &kb)) != KW_EXIT_OK)
        goto model;
    if (ka == kb) {
        rc = kw_cli_failf("compare: '%s' and '%s' name the same specialization", q[0], q[1]);
        goto model;
    }
    /* their instruction classes, decoded from their code objects (model/kw_decode.h) */
    const kw_kernel *k0 = m.kernels.v[ka].k, *k1 = m.kernels.v[kb].k;
    if (kw_decode_kernel(m.decode, k0, &a, &k0, &err) != KW_OK ||
        kw_decode_kernel(m.decode, k1, &a, &k1, &err) != KW_OK ||
        kw_tcmp_build(&c, k0, k1, &a, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto model;
    }
    kw_tcompare_write(&b, &c);
    rc = kw_cli_write_buf(&b, output);
model:
    kw_model_free(&m);
done:
    kw_buf_free(&b);
    kw_arena_free(&a);
    kw_index_free(&ix);
    return rc;
}
