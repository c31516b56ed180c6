/* cmd_list.c: `kwalk list [--db FILE]`: one line per kernel instantiation of
 * the index, and per precompiled ASM kernel a launch loads, tab-separated,
 * sorted by printed name (in natural order, kw_natcmp) then symbol:
 *
 *   NAME <TAB> SYMBOL <TAB> ARCHS <TAB> LAUNCHES <TAB> ENTRIES <TAB> TU <TAB> KIND <TAB>
 * CODE_OBJECTS
 *
 * ARCHS is a comma-separated sorted list (gfx942,gfx950); LAUNCHES the launch
 * sites file:line, comma-separated, in index order; ENTRIES the host entry
 * points that reach a launch of the kernel, as KIND:NAME (pybind names as
 * pybind:MODULE.NAME, torch as torch:NS.OP; a `cxx` entry the index shadows,
 * kw_entry.h, is left out). An empty field is "-". A kernel that is launched but
 * has no device record in the index is listed too, with ARCHS "-". TU is
 * the source of the translation unit a kernel with internal linkage belongs
 * to ("-" for external linkage): the same symbol in two units is two kernels,
 * two lines, each with its unit's launches. KIND is "hip" (compiled from
 * source), "triton" (a Triton specialization, `language: triton`: its
 * CODE_OBJECTS the cache's .hsaco) or "asm" (a precompiled kernel that
 * launches load by name from a code object, as `render` and `map` show it:
 * its ARCHS "-", its CODE_OBJECTS the files the launches give,
 * comma-separated; "-" for hip kernels).
 *
 * Reachability: an entry point reaches the functions found by a breadth-first
 * search from its function_symbol along the host_calls edges (caller ->
 * callee, across all translation units); it reaches a kernel when one of those
 * functions (the entry's own function included) is the function_symbol of a
 * launch of that kernel.
 *
 * --json: the same rows as one JSON document (docs/json.md), written with
 * jansson: {"kwalk_list": 1, "kernels": [{name, symbol, archs, launches
 * [{file, line}], entries [{kind, module, name}], tu, kind, code_objects}]}.
 *
 * This file parses the arguments; the rows are built in model/kw_list.c and
 * written by render/kw_list_write.c. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_cli_json.h"
#include "index/kw_index.h"
#include "model/kw_list.h"
#include "render/kw_list_write.h"

static const char kw_list_usage[] =
    "usage: kwalk list [--db FILE] [--json]\n\n"
    "One line per kernel instantiation and per precompiled ASM kernel launched,\n"
    "tab-separated:\n"
    "  NAME  SYMBOL  ARCHS  LAUNCHES  ENTRIES  TU  KIND  CODE_OBJECTS\n"
    "ARCHS: arch,arch  LAUNCHES: file:line,...  ENTRIES: kind:name,...\n"
    "TU: the source file of a kernel with internal linkage (static, anonymous namespace),\n"
    "    whose symbol other translation units may use for other kernels; - otherwise\n"
    "KIND: hip or asm  CODE_OBJECTS (asm): file.co,...  (empty: -)\n"
    "NAME: the printed name; the kernel struct a trampoline runs (ck_tile::kentry) with the\n"
    "    type aliases its source wrote (ck_tile::bf16_t), as index.md; render takes both\n\n"
    "  --db FILE   the database written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --json      one JSON document instead (docs/json.md): the same fields, as lists\n";

int kw_cmd_list(int argc, char **argv) {
    const char *db = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_list_usage, stdout);
            return kw_cli_flush_stdout();
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("list", "option --db needs a file name");
            db = v;
        } else if (argv[i][0] == '-') {
            return kw_cli_usage_error("list", "unknown option '%s'", argv[i]);
        } else {
            return kw_cli_usage_error("list", "unexpected argument '%s'", argv[i]);
        }
    }
    kw_index ix;
    kw_err err;
    int rc = kw_app_read_index_only(&ix, db, NULL, 0); /* the list's rows only */
    if (rc != KW_EXIT_OK)
        return rc;
    kw_list l;
    if (kw_list_build(&l, &ix, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
    } else if (json) {
        bool oom = false;
        json_t *doc = kw_list_json(&l, &oom);
        rc = kw_cli_json_print(doc, oom);
    } else {
        kw_buf b;
        kw_buf_init(&b);
        if (kw_list_write_tsv(&l, &b, &err) != KW_OK)
            rc = kw_cli_fail(&err);
        else
            rc = kw_cli_write_buf(&b, NULL);
        kw_buf_free(&b);
    }
    kw_list_free(&l);
    kw_index_free(&ix);
    return rc;
}
