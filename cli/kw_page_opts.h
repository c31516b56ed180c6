/* kw_page_opts.h: the options `kwalk render` and `kwalk site` share (--db,
 * -o, --arch, --root, --python-root, --python-from, --gpu, --trace, --shape,
 * --time-us), parsed in one place (kw_page_opts.c), and what they set once
 * the index is loaded. */
#ifndef KW_PAGE_OPTS_H
#define KW_PAGE_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/kw_app.h"
#include "common/kw_arena.h"
#include "model/kw_expr.h"
#include "render/kw_render.h"
#include "trace/kw_trace.h"

typedef struct kw_page_opts {
    const char *db, *out;
    const char *python_roots[64]; /* --python-root, repeatable */
    size_t npython_roots;
    const char *python_from; /* --python-from PKG */
    const char *trace;       /* --trace FILE */
    kw_render_opts o;        /* --arch, --root, --gpu, --time-us (< 0: not given) */
    kw_shape shape;          /* --shape, parsed once: the model's (kw_model.shape) */
    bool have_shape;
} kw_page_opts;

/* Nothing given: every field empty, o.time_us -1. */
void kw_page_opts_init(kw_page_opts *p);

/* argv[*i] when it is one of the shared options: *taken set, *i past its
 * value, the value kept (--shape parsed into a); KW_EXIT_OK. A missing or
 * bad value: the usage error of command cmd ("kwalk CMD: ..."),
 * KW_EXIT_USAGE. Another argument: *taken false, KW_EXIT_OK. */
int kw_page_opts_take(kw_page_opts *p, const char *cmd, int argc, char **argv, int *i, kw_arena *a,
                      bool *taken);

/* Once app is loaded: --trace read into *trace (its measurements in
 * *measured, the pages' p->o.trace), the index path, --shape as the model's,
 * the first --python-root, and --gpu checked against the hardware table; a
 * kwalk exit status (a failure said on stderr). */
int kw_page_opts_apply(kw_page_opts *p, const char *cmd, kw_app *app, kw_trace_loaded *trace,
                       kw_perf_source *measured);

#endif
