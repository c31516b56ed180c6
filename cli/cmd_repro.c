/* cmd_repro.c: `kwalk repro KERNEL [--db FILE] [--arch ARCH] [-o FILE]`: the
 * reproducer of a Triton specialization, a Python script that recompiles it
 * with triton.compile from what the index recorded and compares the hash
 * (model/kw_repro.c builds it, render/kw_repro_write.c writes it). KERNEL is
 * matched as `render KERNEL` matches (model/kw_pick.h), among the index's
 * Triton specializations; it must name one. */
#include <stdio.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_tpick.h"
#include "common/kw_buf.h"
#include "index/kw_index.h"
#include "model/kw_model.h"
#include "model/kw_repro.h"
#include "render/kw_repro_write.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

static const char kw_repro_usage[] =
    "usage: kwalk repro KERNEL [--db FILE] [--arch ARCH] [-o FILE]\n\n"
    "Write a Python script that recompiles a Triton specialization with\n"
    "triton.compile(ASTSource(fn, signature, constexprs), target, options): the\n"
    "signature, constexprs, options and target its cache entry recorded. Run on a\n"
    "machine with Triton (no GPU needed), it prints the hash Triton computes and\n"
    "exits 0 when it is the recorded one. Constexprs kwalk could not recover are\n"
    "named in the script and given on its command line as NAME=VALUE.\n\n"
    "  KERNEL          a Triton kernel's name, its cache hash, or any name\n"
    "                  'kwalk render' takes; it must pick one specialization\n"
    "  --db FILE       the index (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --arch ARCH     only the specializations compiled for ARCH\n"
    "  -o, --output F  write the script to F instead of stdout\n";

int kw_cmd_repro(int argc, char **argv) {
    kw_tpick_args o;
    int prc = kw_tpick_args_parse(argc, argv, "repro", kw_repro_usage, 1, &o);
    if (prc >= 0)
        return prc;
    const char *db = o.db, *arch = o.arch, *output = o.output, *kernel = o.q[0];
    if (!kernel || !*kernel)
        return kw_cli_usage_error("repro", "name a Triton kernel");
    const char *path = db ? db : KW_INDEX_DEFAULT_PATH;
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
    size_t ki = 0;
    kw_repro r;
    if (kw_model_build(&m, &ix, NULL, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto done;
    }
    if ((rc = kw_tpick(&m, "repro", kernel, arch, &ki)) != KW_EXIT_OK)
        goto model;
    if (kw_repro_build(m.kernels.v[ki].k, &a, &r, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto model;
    }
    kw_repro_write(&b, &r, path, KWALK_VERSION);
    rc = kw_cli_write_buf(&b, output);
model:
    kw_model_free(&m);
done:
    kw_buf_free(&b);
    kw_arena_free(&a);
    kw_index_free(&ix);
    return rc;
}
