/* cmd_render.c: `kwalk render KERNEL [options]` writes the walkthrough of one
 * kernel instantiation in Markdown (stdout, or -o FILE); `kwalk render --all
 * -o DIR` writes one page per instantiation plus DIR/index.md. The sections
 * are rendered by kw_render*.c, the pages of --all on the page workers of
 * render/kw_pages_pool.c; the kernel is matched by model/kw_pick.c; this
 * file parses the command line and says what matched.
 *
 * KERNEL is matched as model/kw_pick.h and model/kw_kfamily.h say (a symbol,
 * a printed name, a template's or a functor's name, a glob, a substring, a
 * regular expression). A name that means several instantiations of one kernel
 * gives the kernel's page and its dispatch table (model/kw_kpage.c,
 * render/kw_kpage_write.c), evaluated for --shape; one that means several
 * kernels is an error that lists the kernels. --tu FILE keeps the candidates
 * of the unit whose source, object or sidecar FILE names (a kernel with
 * internal linkage is one unit's own). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_page_opts.h"
#include "cli/kw_render_reload.h"
#include "common/kw_fs.h"
#include "common/kw_pool.h"
#include "model/kw_kfamily.h"
#include "model/kw_kpage.h"
#include "model/kw_kpage_src.h"
#include "model/kw_model_pages.h"
#include "model/kw_pick.h"
#include "render/kw_kpage_write.h"
#include "render/kw_pages.h"
#include "render/kw_pages_pool.h"
#include "render/kw_pick_write.h"
#include "render/kw_render.h"
#include "trace/kw_trace.h"

static const char kw_render_usage[] =
    "usage: kwalk render KERNEL [options]\n"
    "       kwalk render --all -o DIR [options]\n\n"
    "Write the walkthrough of a kernel instantiation in Markdown: overview, 1. host side\n"
    "(Python -> C++ -> launch), 2. device kernel, 3. data flow, 4. memory analysis,\n"
    "5. ISA, 6. source file index. KERNEL is a device symbol, a printed name, a template\n"
    "name, a glob, a substring or a regular expression. A KERNEL that means several\n"
    "instantiations of one kernel (a template, a glob, an ASM table's kernels) gives the\n"
    "kernel's page: its dispatch table, each instantiation with the conditions that select\n"
    "it; with --shape, the instantiations whose conditions hold.\n\n"
    "  --tu FILE           a kernel with internal linkage (static, anonymous namespace) is\n"
    "                      its translation unit's own: pick the one of the unit whose\n"
    "                      source (or object, or sidecar) is FILE (a path or its last parts)\n"
    "  --db FILE           the index written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH
    ")\n"
    "  -o, --output PATH   write to PATH (a file; with --all, a directory) instead of stdout\n"
    "  --all               every instantiation, one page each, plus PATH/index.md\n"
    "  --arch ARCH         only this arch's facts (gfx942, gfx950, ...)\n"
    "  --shape N=V,...     bind names of launch expressions, guards and IR expressions,\n"
    "                      e.g. --shape num_rows=4096,hidden=2048 (N also binds a.N, p->N)\n"
    "  --time-us T         a measured kernel time: achieved bandwidth against the peak\n"
    "  --trace FILE        a rocprofv3 trace (rocpd .db, CSV, JSON): section 4 shows the\n"
    "                      dispatches of the kernel, durations, launches and bandwidth\n"
    "  --gpu NAME          the product for peaks (MI300X, MI300A, MI325X, MI350X, MI355X;\n"
    "                      default: the arch's first-listed default)\n"
    "  --root DIR          print paths relative to DIR\n"
    "  --python-root DIR   scan DIR's *.py for @compile_ops ops and join them to entry points;\n"
    "                      repeated (a model's tree and aiter's): python3 reads the chains\n"
    "                      from the model's code to the ops (section 1)\n"
    "  --python-from PKG   with two --python-root or more: only chains that start in\n"
    "                      package PKG (e.g. atom), not the library's own callers\n";

typedef struct kw_render_cli {
    const char *kernel;
    bool all;
    const char *tu; /* --tu FILE */
    kw_page_opts p; /* --db, -o, --arch, ... (kw_page_opts.h) */
    kw_arena arena;
} kw_render_cli;

static int kw_render_args(kw_render_cli *c, int argc, char **argv) {
    kw_page_opts_init(&c->p);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool taken;
        int r;
        if (kw_cli_is_help(a)) {
            fputs(kw_render_usage, stdout);
            return kw_cli_flush_stdout() == KW_EXIT_OK ? -1 : KW_EXIT_INPUT;
        }
        if ((r = kw_page_opts_take(&c->p, "render", argc, argv, &i, &c->arena, &taken)) !=
            KW_EXIT_OK)
            return r;
        if (taken)
            continue;
        if (!strcmp(a, "--all")) {
            c->all = true;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--tu", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("render", "option %s needs a value", "--tu");
            c->tu = v;
        } else if (a[0] == '-' && a[1]) {
            return kw_cli_usage_error("render", "unknown option '%s'", a);
        } else if (!c->kernel) {
            c->kernel = a;
        } else {
            return kw_cli_usage_error("render", "unexpected argument '%s' (one KERNEL only)", a);
        }
    }
    if (c->all && c->kernel)
        return kw_cli_usage_error("render", "give KERNEL or --all, not both");
    if (c->all && c->tu)
        return kw_cli_usage_error("render", "--tu picks one KERNEL; --all renders every one");
    if (c->all && !c->p.out)
        return kw_cli_usage_error("render", "--all needs -o DIR");
    if (!c->all && !c->kernel)
        return kw_cli_usage_error("render", "no KERNEL given (or --all)");
    if (!c->all && !c->kernel[0])
        return kw_cli_usage_error("render", "KERNEL is empty");
    return KW_EXIT_OK;
}

/* ---- picking the kernel ------------------------------------------------------------------- */

/* No instantiation matches: say why (another unit, another arch, none). */
static int kw_pick_none(const kw_model *m, const kw_render_cli *c, kw_arena *a) {
    kw_pick_hits any, anytu;
    kw_pick_match(m, c->kernel, NULL, c->tu, a, &any);
    kw_pick_match(m, c->kernel, c->p.o.arch, NULL, a, &anytu);
    if (c->tu && anytu.v.n)
        return kw_cli_failf("render: no kernel matching '%s' belongs to the translation unit "
                            "'%s' (kernels with internal linkage are their unit's own; "
                            "'kwalk list' shows each with its unit)",
                            c->kernel, c->tu);
    if (c->p.o.arch && any.v.n)
        return kw_cli_failf("render: no kernel matching '%s' was built for %s", c->kernel,
                            c->p.o.arch);
    return kw_cli_failf("render: no kernel matches '%s' in %s ('kwalk list' shows them)", c->kernel,
                        c->p.db ? c->p.db : KW_INDEX_DEFAULT_PATH);
}

/* The name means several kernels, or one symbol in several units: the
 * error line, then the candidates (render/kw_pick_write.h). */
static int kw_pick_kernels(const kw_model *m, const kw_kfams *f, const kw_render_cli *c,
                           const kw_kfam_hits *h) {
    kw_cli_failf("render: '%s' names %zu kernels (%zu instantiations); name one of them, or an "
                 "instantiation (a symbol or a full printed name). Kernels:",
                 c->kernel, h->fams.n, h->kernels.n);
    kw_pick_write_kernels(stderr, m, f, h);
    return KW_EXIT_INPUT;
}

static int kw_pick_units(const kw_model *m, const kw_render_cli *c, const kw_kfam_hits *h) {
    kw_cli_failf("render: '%s' matches %zu kernel instantiations of one symbol in several "
                 "translation units; --tu FILE picks the unit. Candidates:",
                 c->kernel, h->kernels.n);
    kw_pick_write_units(stderr, m, h);
    return KW_EXIT_INPUT;
}

/* What KERNEL names: one instantiation (*out), one kernel of several
 * (*fam and its matching instantiations in *hits), or an error. */
static int kw_pick(const kw_model *m, const kw_kfams *f, const kw_render_cli *c, kw_arena *a,
                   size_t *out, kw_kfam_hits *hits) {
    kw_kfam_match(f, m, c->kernel, c->p.o.arch, c->tu, a, hits);
    if (!hits->kernels.n)
        return kw_pick_none(m, c, a);
    if (hits->fams.n > 1)
        return kw_pick_kernels(m, f, c, hits);
    bool units = hits->kernels.n > 1;
    for (size_t i = 1; units && i < hits->kernels.n; i++)
        units = !strcmp(m->kernels.v[hits->kernels.v[i]].symbol,
                        m->kernels.v[hits->kernels.v[0]].symbol);
    if (units)
        return kw_pick_units(m, c, hits);
    *out = hits->kernels.n == 1 ? hits->kernels.v[0] : KW_NONE;
    return KW_EXIT_OK;
}

/* The kernel page of the instantiations KERNEL named (kw_kpage.h). */
static int kw_render_kpage(kw_app *app, kw_render *r, const kw_kfams *f, const kw_kfam_hits *h,
                           const kw_render_cli *c, kw_arena *a, kw_buf *b) {
    kw_err err;
    kw_kpage kp;
    kw_kpage_src src;
    if (kw_model_pages_name(&app->model, ".md", &err) != KW_OK ||
        kw_kpage_build(&kp, &app->model, &f->v.v[h->fams.v[0]], h->kernels.v, h->kernels.n, a,
                       &err) != KW_OK)
        return kw_cli_fail(&err);
    if (kw_kpage_src_build(&src, &kp, &app->model, r->srcs, a) != KW_OK)
        return kw_cli_failf("out of memory");
    kp.src = &src;
    r->out = r->page_out = b;
    kw_kpage_write(r, &kp, c->kernel);
    return KW_EXIT_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */

/* The pages a --all run wrote are listed in DIR/.kwalk-pages (kw_pages.h). */
static const char kw_manifest_name[] = ".kwalk-pages";

static int kw_render_all(kw_app *app, kw_render *r, const char *dir) {
    kw_err err;
    if (kw_fs_mkdirs(dir, &err) != KW_OK)
        return kw_cli_fail(&err);
    kw_model *m = &app->model;
    /* page names are unique: a hash collision gets a number */
    if (kw_model_pages_name(m, ".md", &err) != KW_OK || kw_model_cache_paths(m, &err) != KW_OK)
        return kw_cli_fail(&err);
    kw_pages_pool pool = {r, dir, kw_render_kernel, kw_pool_threads()};
    int rc = kw_pages_pool_run(&pool, &err) == KW_OK ? KW_EXIT_OK : kw_cli_fail(&err);
    kw_ipage ip; /* the index page, built before it is written */
    if (rc == KW_EXIT_OK && kw_ipage_build(&ip, m, r->providers, &err) != KW_OK) {
        kw_ipage_free(&ip);
        rc = kw_cli_fail(&err);
    }
    if (rc == KW_EXIT_OK) {
        kw_buf b;
        kw_buf_init(&b);
        kw_render_index(r, &ip, &b);
        kw_ipage_free(&ip);
        char *path = kw_arena_printf(&r->scratch, "%s/index.md", dir);
        if (b.oom || !path)
            rc = kw_cli_failf("out of memory");
        else if (kw_fs_write_atomic(path, b.ptr, b.len, &err) != KW_OK ||
                 kw_pages_manifest(m, NULL, 0, &r->scratch, dir, kw_manifest_name, ".md", &err) !=
                     KW_OK)
            rc = kw_cli_fail(&err);
        else
            printf("%s: %zu walkthroughs and index.md\n", dir, m->kernels.n);
        if (rc == KW_EXIT_OK)
            rc = kw_cli_flush_stdout();
        kw_buf_free(&b);
    }
    return rc;
}

int kw_cmd_render(int argc, char **argv) {
    kw_render_cli c;
    memset(&c, 0, sizeof(c));
    kw_arena_init(&c.arena);
    int rc = kw_render_args(&c, argc, argv);
    if (rc != KW_EXIT_OK) {
        kw_arena_free(&c.arena);
        return rc < 0 ? KW_EXIT_OK : rc;
    }
    kw_app app;
    kw_trace_loaded trace;
    kw_perf_source measured;
    memset(&trace, 0, sizeof trace);
    /* --all reads each page's listings when it writes the page (kw_render_all);
     * one page reads its kernel's rows (kw_index_read_file_only): those of
     * the symbol KERNEL names, and again those of the one kernel KERNEL picks
     * when that is another symbol */
    const char *want[1] = {c.kernel};
    rc = c.all ? kw_app_load_later(&app, kw_pool_threads(), c.p.db, c.p.python_roots,
                                   c.p.npython_roots, c.p.python_from)
               : kw_app_load_only(&app, want, 1, c.p.db, c.p.python_roots, c.p.npython_roots,
                                  c.p.python_from);
    if (rc == KW_EXIT_OK && !c.all)
        rc = kw_render_reload(&app, c.kernel, c.p.o.arch, c.tu, &c.arena);
    if (rc == KW_EXIT_OK)
        rc = kw_page_opts_apply(&c.p, "render", &app, &trace, &measured);
    c.p.o.all = c.all;
    if (rc == KW_EXIT_OK) {
        kw_render r;
        kw_render_init(&r, &app.model, &app.srcs, &app.providers, &app.gpus, &app.notes, &c.p.o);
        if (c.all) {
            rc = kw_render_all(&app, &r, c.p.out);
        } else {
            size_t ki = 0;
            kw_kfams fams;
            kw_kfam_hits hits;
            kw_err err;
            rc = kw_kfams_build(&fams, &app.model, &c.arena, &err) == KW_OK
                     ? kw_pick(&app.model, &fams, &c, &c.arena, &ki, &hits)
                     : kw_cli_fail(&err);
            if (rc == KW_EXIT_OK) {
                kw_buf b;
                kw_buf_init(&b);
                if (ki == KW_NONE)
                    rc = kw_render_kpage(&app, &r, &fams, &hits, &c, &c.arena, &b);
                else if (kw_render_kernel(&r, ki, &b, &err) != KW_OK)
                    rc = kw_cli_fail(&err);
                if (rc != KW_EXIT_OK) {
                    /* said */
                } else if (c.p.out)
                    rc = kw_fs_write_atomic(c.p.out, b.ptr, b.len, &err) == KW_OK
                             ? KW_EXIT_OK
                             : kw_cli_fail(&err);
                else if (fwrite(b.ptr ? b.ptr : "", 1, b.len, stdout) != b.len)
                    rc = kw_cli_failf("cannot write the output: %s", strerror(errno));
                else
                    rc = kw_cli_flush_stdout();
                kw_buf_free(&b);
            }
        }
        kw_render_free(&r);
    }
    kw_trace_loaded_free(&trace);
    kw_app_free(&app);
    kw_arena_free(&c.arena);
    return rc;
}
