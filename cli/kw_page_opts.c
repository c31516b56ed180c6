/* kw_page_opts.c: the options `kwalk render` and `kwalk site` share, parsed
 * once (kw_page_opts.h): each with its value checked and its usage error
 * named after the command. */
#include "cli/kw_page_opts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kw_cli.h"

void kw_page_opts_init(kw_page_opts *p) {
    memset(p, 0, sizeof(*p));
    p->o.time_us = -1;
}

/* --time-us T: a positive, finite number of microseconds. */
static int kw_page_opts_time(kw_page_opts *p, const char *cmd, const char *v) {
    char *end;
    double t = strtod(v, &end);
    if (*end || !(t > 0) || !isfinite(t))
        return kw_cli_usage_error(cmd,
                                  "--time-us takes a positive number of "
                                  "microseconds, got '%s'",
                                  v);
    p->o.time_us = t;
    return KW_EXIT_OK;
}

/* A value given to an option that takes more than a string. */
static int kw_page_opts_value(kw_page_opts *p, const char *cmd, const char *name, const char *v,
                              kw_arena *a) {
    if (!strcmp(name, "--python-root")) {
        if (p->npython_roots == sizeof p->python_roots / sizeof p->python_roots[0])
            return kw_cli_usage_error(cmd, "at most 64 --python-root directories");
        p->python_roots[p->npython_roots++] = v;
        return KW_EXIT_OK;
    }
    if (!strcmp(name, "--shape")) {
        kw_err err;
        if (kw_shape_parse(&p->shape, a, v, &err) != KW_OK)
            return kw_cli_usage_error(cmd, "%s", err.msg);
        p->have_shape = true;
        return KW_EXIT_OK;
    }
    return kw_page_opts_time(p, cmd, v); /* --time-us */
}

int kw_page_opts_take(kw_page_opts *p, const char *cmd, int argc, char **argv, int *i, kw_arena *a,
                      bool *taken) {
    /* each option, the name its error says, and where a plain value goes */
    const struct {
        const char *name, *alias, *said, **slot;
    } opts[] = {
        {"--db", NULL, "--db", &p->db},
        {"--output", "-o", "-o", &p->out},
        {"--arch", NULL, "--arch", &p->o.arch},
        {"--root", NULL, "--root", &p->o.root},
        {"--python-root", NULL, "--python-root", NULL},
        {"--python-from", NULL, "--python-from", &p->python_from},
        {"--gpu", NULL, "--gpu", &p->o.gpu},
        {"--trace", NULL, "--trace", &p->trace},
        {"--shape", NULL, "--shape", NULL},
        {"--time-us", NULL, "--time-us", NULL},
    };
    *taken = false;
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        const char *v;
        int r = kw_cli_opt(argc, argv, i, opts[k].name, opts[k].alias, &v);
        if (!r)
            continue;
        *taken = true;
        if (r < 0 || !*v)
            return kw_cli_usage_error(cmd, "option %s needs a value", opts[k].said);
        if (!opts[k].slot)
            return kw_page_opts_value(p, cmd, opts[k].name, v, a);
        *opts[k].slot = v;
        return KW_EXIT_OK;
    }
    return KW_EXIT_OK;
}

int kw_page_opts_apply(kw_page_opts *p, const char *cmd, kw_app *app, kw_trace_loaded *trace,
                       kw_perf_source *measured) {
    if (p->trace) {
        kw_err err;
        if (kw_trace_load(trace, p->trace, &app->ix, app->db, &err) != KW_OK)
            return kw_cli_fail(&err);
        *measured = kw_tstats_source(&trace->stats);
        p->o.trace = measured;
    }
    p->o.db_path = app->db;
    app->model.shape = p->have_shape ? &p->shape : NULL; /* every page's (kw_page_open) */
    p->o.python_root = p->npython_roots ? p->python_roots[0] : NULL;
    if (p->o.gpu && !kw_gpu_named(&app->gpus, p->o.gpu))
        return kw_cli_usage_error(cmd,
                                  "--gpu: unknown product '%s' (see "
                                  "annotations/hw/amdgpu-peaks.txt)",
                                  p->o.gpu);
    return KW_EXIT_OK;
}
