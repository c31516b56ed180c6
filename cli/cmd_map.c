/* cmd_map.c: `kwalk map`: the "known kernel -> host entry -> device code"
 * table of the walkthrough seed, regenerated from the build. One row per
 * kernel (template), launch site and entry point reaching it (and per Python
 * op bound to that entry), with the number of the kernel's instantiations on
 * that path:
 *
 *   Kernel | Instantiations | Python entry | C++ entry | Launch site | Device code
 *
 * The Python entry is the op's def line, with the package's public functions
 * that call it. With two --python-root or more (a model's tree and aiter's),
 * a Model entry column follows it: the outermost callers in those trees that
 * reach the op (python/kwalk_pyscan.py's chains, kw_python_chains.h), each
 * at the call that starts its chain, shortest chain first. A trampoline
 * kernel (ck_tile's kentry) names the functor templates it runs. A launch no
 * entry reaches has "-" as its entries; a kernel never launched has "-" as
 * its launch site. A Triton kernel's Python entry is the function that
 * launches it, called by the Python frames its hook recorded (a row per
 * distinct chain); it has no C++ entry. A kernel every launch of which never runs (under a
 * condition that is constant false, or reached only through calls that are)
 * is "emitted but unreachable from any entry point" at those launches; such
 * launches of a kernel that another launch does run are left out. A precompiled ASM kernel
 * (launched through a loader or hipModuleLaunchKernel, or one of the rows of a loader's config
 * table) has its code objects as device code. --format tsv prints the same rows as tab-separated
 * fields for scripts (docs/render.md), --format json (--json) as one JSON document written
 * with jansson (docs/json.md). With the chains, the Python calls not resolved
 * statically that could lead to an op of the rows follow them
 * (render/kw_map_unresolved.c).
 *
 * --kernels NAME,... prints the seed's own three columns instead, a row per
 * name as the user types it (a template, a glob, an ASM kernel's name):
 * Kernel | Host Entry (the Python ops, file:line) | Device Code (the
 * definition's file:line, or the code objects of ASM kernels); the rows are
 * joined in model/kw_kseed.c and written by render/kw_kseed_write.c.
 *
 * This file parses the arguments; the rows are joined in model/kw_map.c and
 * written by render/kw_map_write.c (Markdown, TSV) and render/kw_map_json.c. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "common/kw_fs.h"
#include "model/kw_kfamily.h"
#include "model/kw_kseed.h"
#include "model/kw_map.h"
#include "render/kw_kseed_write.h"
#include "render/kw_map_json.h"
#include "render/kw_map_write.h"

static const char kw_map_usage[] =
    "usage: kwalk map [--db FILE] [--python-root DIR]... [--python-from PKG] [--root DIR]\n"
    "                 [--format md|tsv|json] [--json] [--kernels NAME,...] [--shape N=V,...]\n"
    "                 [-o FILE]\n\n"
    "The known-kernel table: kernel -> Python entry (file:line) -> C++ entry -> launch\n"
    "site -> device code, one row per kernel, launch site and entry point reaching it.\n\n"
    "  --db FILE           the index written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH
    ")\n"
    "  --python-root DIR   scan DIR's *.py for @compile_ops ops and their public callers\n"
    "                      (the Python entry column); repeated (a model's tree and aiter's):\n"
    "                      python3 reads the chains from the model's code to the ops, the\n"
    "                      Model entry column (the TSV's 12th field, MODEL)\n"
    "  --python-from PKG   with two --python-root or more: only chains that start in\n"
    "                      package PKG (e.g. atom), not the library's own callers\n"
    "  --root DIR          print paths relative to DIR\n"
    "  --format md|tsv     a Markdown table (default) or tab-separated fields:\n"
    "                      KERNEL INSTANTIATIONS PYTHON PYOP ENTRY_KIND ENTRY ENTRY_AT LAUNCH "
    "DEVICE\n"
    "                      FUNCTORS CALLERS [MODEL]\n"
    "                      or json: one JSON document, the same rows (docs/json.md);\n"
    "                      with the chains, then @unresolved and @left-out rows (TSV)\n"
    "                      or keys (JSON): Python calls not resolved statically\n"
    "  --json              the same as --format json\n"
    "  --kernels NAME,...  the seed's known-kernel table instead (Markdown): a row per NAME\n"
    "                      (a template, a glob such as 'pa_bf16_*', an ASM kernel's name):\n"
    "                      Kernel | Host Entry (Python file:line) | Device Code (file:line,\n"
    "                      or the .co files of ASM kernels)\n"
    "  --shape N=V,...     only the rows whose dispatch conditions hold or could not be\n"
    "                      evaluated for these names (as render's kernel page decides),\n"
    "                      marked 'selected' or 'candidate'; each row counts those\n"
    "                      instantiations (e.g. --shape dtype=bf16,n=4096)\n"
    "  -o, --output FILE   write to FILE instead of stdout\n";

/* --kernels: the seed's table of the names given, in Markdown. */
static kw_status kw_map_kernels(kw_app *app, const char *names, const char *root, kw_buf *b,
                                kw_err *err) {
    kw_arena a;
    kw_arena_init(&a);
    kw_kfams f;
    kw_kseed s;
    kw_status st = kw_kfams_build(&f, &app->model, &a, err);
    if (st == KW_OK)
        st = kw_kseed_build(&s, &app->model, &f, names, &a, err);
    if (st == KW_OK) {
        kw_render_opts o = {.root = root, .time_us = -1};
        kw_render r;
        kw_render_init(&r, &app->model, &app->srcs, &app->providers, &app->gpus, &app->notes, &o);
        r.out = r.page_out = b;
        kw_kseed_write(&r, &s);
        kw_render_free(&r);
    }
    kw_arena_free(&a);
    return st;
}

/* --kernels: every kernel's own rows read to match the names (against the
 * whole build, as people type them), then the rows of the kernels they
 * match (kw_index_read_file_only), not the whole index. */
static int kw_map_load_kernels(kw_app *app, const char *names, const char *db,
                               const char *const *py, size_t npy, const char *py_from) {
    const char *want[1] = {names};
    int rc = kw_app_load_pick(app, want, 1, db, py, npy, py_from);
    if (rc != KW_EXIT_OK)
        return rc;
    kw_arena a;
    kw_arena_init(&a);
    kw_kfams f;
    kw_kseed_syms syms;
    kw_err err;
    if (kw_kfams_build(&f, &app->model, &a, &err) != KW_OK ||
        kw_kseed_symbols(&app->model, &f, names, &a, &syms, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    else if (syms.n)
        rc = kw_app_reload_only(app, syms.v, syms.n, true);
    kw_arena_free(&a);
    return rc;
}

int kw_cmd_map(int argc, char **argv) {
    const char *db = NULL, *out = NULL, *py_from = NULL;
    const char *py[64]; /* --python-root, repeatable */
    size_t npy = 0;
    const char *root = NULL, *kernels = NULL;
    const char *shape_text = NULL;
    bool tsv = false, json = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_map_usage, stdout);
            return kw_cli_flush_stdout();
        } else if ((r = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option --db needs a file name");
            db = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--python-root", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option --python-root needs a directory");
            if (npy == sizeof py / sizeof py[0])
                return kw_cli_usage_error("map", "at most 64 --python-root directories");
            py[npy++] = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--python-from", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option --python-from needs a package name");
            py_from = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--root", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option --root needs a directory");
            root = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option -o needs a file name");
            out = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (r > 0 && !strcmp(v, "tsv"))
                tsv = true, json = false;
            else if (r > 0 && !strcmp(v, "md"))
                tsv = false, json = false;
            else if (r > 0 && !strcmp(v, "json"))
                tsv = false, json = true;
            else
                return kw_cli_usage_error("map", "--format takes 'md', 'tsv' or 'json'");
        } else if ((r = kw_cli_opt(argc, argv, &i, "--kernels", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option --kernels needs NAME,...");
            kernels = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--shape", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option --shape needs N=V,...");
            shape_text = v;
        } else if (!strcmp(argv[i], "--json")) {
            tsv = false, json = true;
        } else if (argv[i][0] == '-') {
            return kw_cli_usage_error("map", "unknown option '%s'", argv[i]);
        } else {
            return kw_cli_usage_error("map", "unexpected argument '%s'", argv[i]);
        }
    }
    if (kernels && (tsv || json))
        return kw_cli_usage_error("map", "--kernels writes a Markdown table only");
    if (kernels && shape_text)
        return kw_cli_usage_error("map", "--kernels takes no --shape");
    kw_arena shape_arena;
    kw_arena_init(&shape_arena);
    kw_shape shape;
    memset(&shape, 0, sizeof(shape));
    kw_err serr;
    if (shape_text && kw_shape_parse(&shape, &shape_arena, shape_text, &serr) != KW_OK) {
        kw_arena_free(&shape_arena);
        return kw_cli_usage_error("map", "%s", serr.msg);
    }
    kw_app app;
    /* the map shows no ISA listing or line table: they stay in the index */
    int rc = kernels ? kw_map_load_kernels(&app, kernels, db, py, npy, py_from)
                     : kw_app_load_later(&app, 0, db, py, npy, py_from);
    if (rc == KW_EXIT_OK) {
        kw_map m;
        kw_buf b;
        kw_buf_init(&b);
        kw_err err;
        kw_status st =
            kernels ? KW_OK : kw_map_build_shape(&m, &app.model, shape_text ? &shape : NULL, &err);
        if (kernels)
            st = kw_map_kernels(&app, kernels, root, &b, &err);
        else if (st == KW_OK)
            st = json  ? kw_map_json(&m, root, &b, &err)
                 : tsv ? kw_map_write_tsv(&m, root, &b, &err)
                       : kw_map_write_md(&m, root, KW_R_MARKDOWN, NULL, &b, &err);
        if (st != KW_OK)
            rc = kw_cli_fail(&err);
        else if (out)
            rc = kw_fs_write_atomic(out, b.ptr, b.len, &err) == KW_OK ? KW_EXIT_OK
                                                                      : kw_cli_fail(&err);
        else if (fwrite(b.ptr ? b.ptr : "", 1, b.len, stdout) != b.len)
            rc = kw_cli_failf("cannot write the output: %s", strerror(errno));
        else
            rc = kw_cli_flush_stdout();
        kw_buf_free(&b);
        if (!kernels)
            kw_map_free(&m);
    }
    kw_app_free(&app);
    kw_arena_free(&shape_arena);
    return rc;
}
