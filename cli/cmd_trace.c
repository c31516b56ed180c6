/* cmd_trace.c: `kwalk trace FILE [--db FILE] [--format text|yaml|json] [--gpu NAME]
 * [--shape NAME=V,...]`: a profiler's kernel trace (rocprofv3 --kernel-trace:
 * the rocpd database, CSV or JSON; kw_trace.h) joined to the kernel
 * instantiations of the index.
 *
 * Per instantiation: the dispatches, their total and median duration, the
 * launch configurations seen (grid in workgroups = Grid_Size / Workgroup_Size,
 * rounded up; workgroup size), and the bytes moved per dispatch with the
 * achieved bandwidth against the arch's peak, when the sidecar has IR facts
 * (kernels[].archs.<arch>.ir.work_per_thread.bytes_read / bytes_written,
 * evaluated with the dispatch's blockDim / gridDim and --shape); without them
 * the bytes are "not known (no IR facts)", never guessed.
 *
 * Names the index does not know are listed apart; a name that matches several
 * instantiations (a base name from --truncate-kernels, a name cut short) is
 * reported as ambiguous with its candidates, and its dispatches are counted
 * for none of them.
 *
 * The gathering per instantiation is kw_trace_stats.c (shared with `kwalk
 * render --trace`), the bytes, bandwidth and bound of each configuration
 * trace/kw_treport_build.c (through kw_perf.c) into the report model
 * (model/kw_treport.h); it is written by render/kw_treport_write.c (text),
 * render/kw_treport_json.c and trace/kw_treport_yaml.c. This file parses the
 * command line. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_cli_json.h"
#include "common/kw_buf.h"
#include "index/kw_index.h"
#include "model/kw_annot.h"
#include "model/kw_expr.h"
#include "model/kw_hw.h"
#include "render/kw_treport_json.h"
#include "render/kw_treport_write.h"
#include "trace/kw_trace.h"
#include "trace/kw_treport_build.h"
#include "trace/kw_treport_yaml.h"

static const char kw_trace_usage[] =
    "usage: kwalk trace FILE [--db FILE] [--format text|yaml|json] [--json] [--gpu NAME]\n"
    "                   [--shape N=V,...]\n\n"
    "Join a profiler's kernel trace to the kernel instantiations of the index:\n"
    "per instantiation, dispatches, total and median duration, launch\n"
    "configurations (grid in workgroups x workgroup size), bytes moved and\n"
    "achieved bandwidth vs. the GPU's peak (from IR facts, when the sidecars\n"
    "have them).\n\n"
    "FILE: a rocprofv3 kernel trace: its default rocpd database (rocprofv3\n"
    "--kernel-trace, the %hostname%/%pid%_results.db file), CSV (--output-format\n"
    "csv, *_kernel_trace.csv) or JSON (--output-format json). Kernel names may be\n"
    "mangled (--mangled-kernels; best), demangled (the default), truncated\n"
    "(--truncate-kernels) or cut short; a name matching several instantiations\n"
    "is reported as ambiguous.\n\n"
    "  --db FILE       the database written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --format F      text (default), yaml or json (docs/json.md; --json is the same)\n"
    "  --gpu NAME      the GPU the trace ran on, for peaks (MI300X, MI325X, MI355X, ...;\n"
    "                  default: the arch's default product, annotations/hw/amdgpu-peaks.txt)\n"
    "  --shape N=V,... values for names in IR expressions the trace cannot give\n";

typedef struct kw_tctx {
    kw_arena arena;
    const char *db;
    const char *gpu;
    kw_shape shape;
    kw_trace trace;
    kw_index ix;
    kw_annot annot;
    kw_gpus gpus;
    kw_tjoin join;
    kw_tstats stats;
    kw_treport report;
} kw_tctx;

static void kw_tctx_free(kw_tctx *c) {
    kw_treport_free(&c->report);
    kw_tstats_free(&c->stats);
    kw_tjoin_free(&c->join);
    kw_gpus_free(&c->gpus);
    kw_annot_free(&c->annot);
    kw_index_free(&c->ix);
    kw_trace_free(&c->trace);
    kw_arena_free(&c->arena);
}

int kw_cmd_trace(int argc, char **argv) {
    const char *file = NULL, *db = NULL, *format = "text", *gpu = NULL, *shape = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_trace_usage, stdout);
            return kw_cli_flush_stdout();
        } else if ((m = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--db needs a file");
            db = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (m < 0 || (strcmp(v, "text") && strcmp(v, "yaml") && strcmp(v, "json")))
                return kw_cli_usage_error("trace", "--format takes text, yaml or json");
            format = v;
        } else if (!strcmp(argv[i], "--json")) {
            format = "json";
        } else if ((m = kw_cli_opt(argc, argv, &i, "--gpu", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--gpu needs a product name");
            gpu = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--shape", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--shape needs NAME=VALUE,...");
            shape = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return kw_cli_usage_error("trace", "unknown option '%s'", argv[i]);
        } else if (file) {
            return kw_cli_usage_error("trace", "one trace file at a time ('%s' and '%s')", file,
                                      argv[i]);
        } else {
            file = argv[i];
        }
    }
    if (!file)
        return kw_cli_usage_error("trace", "no trace file given");

    kw_tctx c;
    memset(&c, 0, sizeof c);
    kw_arena_init(&c.arena);
    kw_trace_init(&c.trace);
    kw_index_init(&c.ix);
    kw_tstats_init(&c.stats);
    c.db = db ? db : KW_INDEX_DEFAULT_PATH;
    c.gpu = gpu;
    kw_err err;
    int rc = KW_EXIT_OK;
    if (shape && kw_shape_parse(&c.shape, &c.arena, shape, &err) != KW_OK) {
        rc = kw_cli_usage_error("trace", "--shape: %s", err.msg);
        goto out;
    }
    /* A CSV or JSON trace before the index, so that a damaged one fails without the
     * cost of reading the whole index; a rocpd trace after it: it is joined to the
     * index in SQL as it is read. */
    bool rocpd = kw_trace_is_rocpd(file);
    if (rocpd && (rc = kw_app_read_index(&c.ix, db, false, 0)) != KW_EXIT_OK)
        goto out;
    if (kw_trace_read_file(&c.trace, file, c.db, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (!rocpd && (rc = kw_app_read_index(&c.ix, db, false, 0)) != KW_EXIT_OK)
        goto out;
    if (kw_annot_load(&c.annot, &err) != KW_OK || kw_gpus_load(&c.gpus, &err) != KW_OK ||
        kw_tjoin_init(&c.join, &c.ix, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (gpu && !kw_gpu_named(&c.gpus, gpu)) {
        rc = kw_cli_usage_error("trace",
                                "--gpu: unknown product '%s' (see "
                                "annotations/hw/amdgpu-peaks.txt)",
                                gpu);
        goto out;
    }
    if (kw_tstats_build(&c.stats, &c.trace, &c.join, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (kw_treport_build(&c.report, &c.stats, &c.gpus, c.gpu, &c.shape, c.db, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (!strcmp(format, "json")) {
        bool oom = false;
        json_t *doc = kw_treport_json(&c.report, &oom);
        rc = kw_cli_json_print(doc, oom);
        goto out;
    }
    kw_buf o;
    kw_buf_init(&o);
    kw_status st = KW_OK;
    if (!strcmp(format, "yaml"))
        st = kw_treport_yaml(&c.report, &o, &err);
    else
        kw_treport_write_text(&c.report, &o);
    if (st != KW_OK) {
        rc = kw_cli_fail(&err);
    } else if (o.oom) {
        rc = kw_cli_failf("out of memory");
    } else {
        fwrite(o.ptr ? o.ptr : "", 1, o.len, stdout);
        rc = kw_cli_flush_stdout();
    }
    kw_buf_free(&o);
out:
    kw_tctx_free(&c);
    return rc;
}
