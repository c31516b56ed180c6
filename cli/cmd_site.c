/* cmd_site.c: `kwalk site -o DIR` writes the walkthroughs as a static HTML
 * site (docs/site.md): DIR/index.html, a row per kernel, a page per kernel
 * with its dispatch table and shape box, DIR/instantiations.html, one table
 * of every instantiation, and one page per instantiation (the Markdown walkthrough of `kwalk render`
 * converted by libcmark-gfm, with the source <-> ISA view per arch). Pages
 * are rendered on a few threads as `render --all` does, each thread reading
 * its kernels' listings and line tables from the index as it writes their
 * pages (the load leaves them); the files of a previous run that no
 * instantiation has now are removed (DIR/.kwalk-site). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_page_opts.h"
#include "common/kw_fs.h"
#include "common/kw_pool.h"
#include "model/kw_map.h"
#include "model/kw_model_pages.h"
#include "render/kw_html.h"
#include "render/kw_html_ir.h"
#include "render/kw_map_write.h"
#include "render/kw_pages.h"
#include "render/kw_pages_pool.h"
#include "trace/kw_trace.h"

static const char kw_site_usage[] =
    "usage: kwalk site -o DIR [options]\n\n"
    "Write every kernel instantiation's walkthrough as a static HTML site that opens from\n"
    "file:// (no server, no network): DIR/index.html, a sortable, filterable table of the\n"
    "kernels; a page per kernel with its dispatch table (each instantiation with the\n"
    "conditions that select it) and a shape box; DIR/instantiations.html, every\n"
    "instantiation grouped by template; one page per instantiation with the six\n"
    "sections of 'kwalk render' and its source and ISA side by side per arch; and per\n"
    "Triton specialization NAME.ir.html, its TTIR, TTGIR, LLIR and AMDGCN beside the source.\n\n"
    "  -o, --output DIR    the directory to write (created when missing)\n"
    "  --db FILE           the index written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH
    ")\n"
    "  --arch ARCH         only this arch's facts (gfx942, gfx950, ...)\n"
    "  --gpu NAME          the product for peaks (see 'kwalk render --help')\n"
    "  --root DIR          print paths relative to DIR\n"
    "  --shape N=V,...     bind names of launch expressions, guards and IR expressions\n"
    "                      (see 'kwalk render --help'): the bytes of the roofline's point\n"
    "  --time-us T         a measured kernel time: with --shape, the roofline's point\n"
    "  --trace FILE        a rocprofv3 kernel trace (rocpd database, CSV or JSON):\n"
    "                      section 4's measured figures and a roofline point per launch\n"
    "                      configuration\n"
    "  --python-root DIR   scan DIR's *.py for ops (repeatable; see 'kwalk render --help')\n"
    "  --python-from PKG   with two --python-root or more: only chains starting in PKG\n";

typedef struct kw_site_cli {
    kw_page_opts p; /* --db, -o, --arch, ... (kw_page_opts.h) */
    kw_arena arena;
} kw_site_cli;

static int kw_site_args(kw_site_cli *c, int argc, char **argv) {
    kw_page_opts_init(&c->p);
    c->p.o.listing_in_view = true; /* section 5's listings from the view's data */
    c->p.o.printer = KW_R_HTML;    /* the pages written by the HTML printer */
    for (int i = 1; i < argc; i++) {
        bool taken;
        int r;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_site_usage, stdout);
            return kw_cli_flush_stdout() == KW_EXIT_OK ? -1 : KW_EXIT_INPUT;
        }
        if ((r = kw_page_opts_take(&c->p, "site", argc, argv, &i, &c->arena, &taken)) != KW_EXIT_OK)
            return r;
        if (!taken)
            return kw_cli_usage_error("site", "unexpected argument '%s'", argv[i]);
    }
    if (!c->p.out)
        return kw_cli_usage_error("site", "-o DIR is required");
    return KW_EXIT_OK;
}

typedef KW_ARRAY(const char *) kw_site_ir_names;

/* DIR/NAME.ir.html: the IR view of each Triton specialization (kw_html_ir.h),
 * one after the other (few kernels; the sources through the render's cache). */
static int kw_site_ir(kw_render *r, kw_arena *a, const char *dir, kw_site_ir_names *names) {
    kw_buf b;
    kw_buf_init(&b);
    kw_err err;
    int rc = KW_EXIT_OK;
    for (size_t i = 0; i < r->m->kernels.n && rc == KW_EXIT_OK; i++) {
        const kw_mkernel *mk = &r->m->kernels.v[i];
        const char *name = kw_html_ir_name(a, mk), **slot;
        if (!name)
            continue;
        char *path = kw_arena_printf(a, "%s/%s", dir, name);
        if (!path || !(slot = KW_PUSH(a, *names))) {
            rc = kw_cli_failf("out of memory");
            break;
        }
        *slot = name;
        kw_buf_reset(&b);
        if (kw_html_ir_page(mk, kw_r_title(r, mk), r->srcs, &b, &err) != KW_OK ||
            kw_fs_write_atomic(path, b.ptr ? b.ptr : "", b.len, &err) != KW_OK)
            rc = kw_cli_fail(&err);
    }
    kw_buf_free(&b);
    return rc;
}

static int kw_site_write(kw_app *app, kw_render *r, const char *dir) {
    kw_err err;
    if (kw_fs_mkdirs(dir, &err) != KW_OK)
        return kw_cli_fail(&err);
    kw_model *m = &app->model;
    /* DIR/.kwalk-site lists the pages a run wrote (kw_pages.h) */
    if (kw_model_pages_name(m, ".html", &err) != KW_OK || kw_model_cache_paths(m, &err) != KW_OK)
        return kw_cli_fail(&err);
    kw_html_global_init();
    static const struct {
        const char *name, *text;
    } assets[] = {{KW_HTML_CSS, kw_html_css},
                  {KW_HTML_PAGE_JS, kw_html_page_js},
                  {KW_HTML_INDEX_JS, kw_html_index_js},
                  {KW_HTML_KERNEL_JS, kw_html_kernel_js},
                  {KW_HTML_IR_CSS, kw_html_ir_css},
                  {KW_HTML_IR_JS, kw_html_ir_js}};
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++) {
        char *path = kw_arena_printf(&r->scratch, "%s/%s", dir, assets[i].name);
        if (!path)
            return kw_cli_failf("out of memory");
        if (kw_fs_write_atomic(path, assets[i].text, strlen(assets[i].text), &err) != KW_OK)
            return kw_cli_fail(&err);
    }
    kw_pages_pool pool = {r, dir, kw_html_page, kw_pool_threads()};
    int rc = kw_pages_pool_run(&pool, &err) == KW_OK ? KW_EXIT_OK : kw_cli_fail(&err);
    if (rc != KW_EXIT_OK)
        return rc;
    kw_site_ir_names irs = {0};
    kw_arena ira; /* their names, for the manifest (r->scratch is reset on the way) */
    kw_arena_init(&ira);
    kw_ipage ip; /* the index page, built before it is written */
    if ((rc = kw_site_ir(r, &ira, dir, &irs)) != KW_EXIT_OK ||
        kw_ipage_build(&ip, m, r->providers, &err) != KW_OK) {
        if (rc == KW_EXIT_OK)
            kw_ipage_free(&ip);
        kw_arena_free(&ira);
        return rc != KW_EXIT_OK ? rc : kw_cli_fail(&err);
    }
    /* the kernels' pages and index.html; every instantiation in one table */
    kw_arena a;
    kw_arena_init(&a);
    const char **kpages = NULL;
    size_t nk = 0; /* kernel pages */
    kw_buf b;
    kw_buf_init(&b);
    if (kw_html_kernels(r, &ip, dir, &a, &kpages, &nk, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    /* the manifest's pages beyond m's: the kernel pages, then the IR views */
    const char **more = rc == KW_EXIT_OK ? kw_arena_alloc(&a, (nk + irs.n + 1) * sizeof *more) : NULL;
    if (rc == KW_EXIT_OK && !more)
        rc = kw_cli_failf("out of memory");
    for (size_t i = 0; more && i < nk + irs.n; i++)
        more[i] = i < nk ? kpages[i] : irs.v[i - nk];
    if (rc == KW_EXIT_OK)
        kw_html_index(r, &ip, &b);
    kw_ipage_free(&ip);
    char *path = kw_arena_printf(&a, "%s/" KW_HTML_INSTANTIATIONS, dir);
    if (rc != KW_EXIT_OK) {
        /* said */
    } else if (b.oom || !path) {
        rc = kw_cli_failf("out of memory");
    } else if (kw_fs_write_atomic(path, b.ptr, b.len, &err) != KW_OK ||
               kw_pages_manifest(m, more, nk + irs.n, &a, dir, ".kwalk-site", ".html", &err) !=
                   KW_OK) {
        rc = kw_cli_fail(&err);
    } else {
        printf("%s/index.html: %zu pages\n", dir, m->kernels.n);
    }
    kw_buf_free(&b);
    kw_arena_free(&a);
    kw_arena_free(&ira);
    return rc == KW_EXIT_OK ? kw_cli_flush_stdout() : rc;
}

/* DIR/map.html: the map of `kwalk map` from the site's own index (loaded
 * once for both), written by the HTML printer and linked (kw_html_map). */
static int kw_site_map(const kw_site_cli *c, kw_app *app, kw_render *r) {
    char *html = kw_arena_printf(&r->scratch, "%s/map.html", c->p.out);
    if (!html)
        return kw_cli_failf("out of memory");
    kw_buf b;
    kw_buf_init(&b);
    kw_map m;
    kw_err err;
    int rc = KW_EXIT_OK;
    if (kw_map_build(&m, &app->model, &err) != KW_OK ||
        kw_map_sites_build(&m, c->p.o.root, &err) != KW_OK ||
        kw_html_map(r, &m, &b, &err) != KW_OK ||
        kw_fs_write_atomic(html, b.ptr ? b.ptr : "", b.len, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    kw_map_free(&m);
    kw_buf_free(&b);
    return rc;
}

int kw_cmd_site(int argc, char **argv) {
    kw_site_cli c;
    memset(&c, 0, sizeof(c));
    kw_arena_init(&c.arena);
    int rc = kw_site_args(&c, argc, argv);
    if (rc != KW_EXIT_OK) {
        kw_arena_free(&c.arena);
        return rc < 0 ? KW_EXIT_OK : rc;
    }
    kw_app app;
    kw_trace_loaded trace;
    kw_perf_source measured;
    memset(&trace, 0, sizeof trace);
    /* each page thread reads its kernels' listings (the largest part of the index) */
    rc = kw_app_load_later(&app, kw_pool_threads(), c.p.db, c.p.python_roots, c.p.npython_roots,
                           c.p.python_from);
    if (rc == KW_EXIT_OK)
        rc = kw_page_opts_apply(&c.p, "site", &app, &trace, &measured);
    if (rc == KW_EXIT_OK) {
        kw_render r;
        kw_render_init(&r, &app.model, &app.srcs, &app.providers, &app.gpus, &app.notes, &c.p.o);
        rc = kw_site_write(&app, &r, c.p.out);
        if (rc == KW_EXIT_OK)
            rc = kw_site_map(&c, &app, &r);
        kw_render_free(&r);
    }
    kw_trace_loaded_free(&trace);
    kw_app_free(&app);
    kw_arena_free(&c.arena);
    return rc;
}
