/* cmd_render.c: `kwalk render KERNEL [options]` writes the walkthrough of one
 * kernel instantiation in Markdown (stdout, or -o FILE); `kwalk render --all
 * -o DIR` writes one page per instantiation plus DIR/index.md. The sections
 * are rendered by kw_render*.c; this file parses the command line, picks the
 * kernel, and writes the files.
 *
 * KERNEL is matched, in order, as a device symbol, a printed name, a
 * template's name, a printed name or demangled signature with blanks
 * ignored (kw_name_written, common/kw_names.h: the matcher `isa --kernel`
 * shares), a substring of printed names or symbols, and finally a
 * POSIX extended regular expression over printed names. More than one match
 * is an error that lists the candidates. A kernel with internal linkage is
 * one translation unit's own (several units may each have one of the same
 * symbol): --tu FILE keeps the candidates of the unit whose source, object or
 * sidecar FILE names. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_pages.h"
#include "cli/kw_pool.h"
#include "common/kw_fs.h"
#include "render/kw_render.h"
#include "trace/kw_trace.h"

static const char kw_render_usage[] =
    "usage: kwalk render KERNEL [options]\n"
    "       kwalk render --all -o DIR [options]\n\n"
    "Write the walkthrough of a kernel instantiation in Markdown: overview, 1. host side\n"
    "(Python -> C++ -> launch), 2. device kernel, 3. data flow, 4. memory analysis,\n"
    "5. ISA, 6. source file index. KERNEL is a device symbol, a printed name, a template\n"
    "name, a substring or a regular expression; it must pick one instantiation.\n\n"
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
    const char *db;
    const char *out;
    bool all;
    const char *python_roots[64]; /* --python-root, repeatable */
    size_t npython_roots;
    const char *python_from; /* --python-from PKG */
    const char *trace; /* --trace FILE */
    const char *tu;    /* --tu FILE */
    kw_render_opts o;
    kw_shape shape;
    kw_arena arena;
} kw_render_cli;

static int kw_render_args(kw_render_cli *c, int argc, char **argv) {
    c->o.time_us = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int r;
        if (kw_cli_is_help(a)) {
            fputs(kw_render_usage, stdout);
            return kw_cli_flush_stdout() == KW_EXIT_OK ? -1 : KW_EXIT_INPUT;
        }
#define KW_OPT(name, alias) ((r = kw_cli_opt(argc, argv, &i, name, alias, &v)) != 0)
#define KW_NEED(name)                                                                              \
    if (r < 0 || !*v)                                                                              \
        return kw_cli_usage_error("render", "option %s needs a value", name);
        if (!strcmp(a, "--all")) {
            c->all = true;
        } else if (KW_OPT("--db", NULL)) {
            KW_NEED("--db");
            c->db = v;
        } else if (KW_OPT("--output", "-o")) {
            KW_NEED("-o");
            c->out = v;
        } else if (KW_OPT("--arch", NULL)) {
            KW_NEED("--arch");
            c->o.arch = v;
        } else if (KW_OPT("--root", NULL)) {
            KW_NEED("--root");
            c->o.root = v;
        } else if (KW_OPT("--python-root", NULL)) {
            KW_NEED("--python-root");
            if (c->npython_roots == sizeof c->python_roots / sizeof c->python_roots[0])
                return kw_cli_usage_error("render", "at most 64 --python-root directories");
            c->python_roots[c->npython_roots++] = v;
        } else if (KW_OPT("--python-from", NULL)) {
            KW_NEED("--python-from");
            c->python_from = v;
        } else if (KW_OPT("--trace", NULL)) {
            KW_NEED("--trace");
            c->trace = v;
        } else if (KW_OPT("--tu", NULL)) {
            KW_NEED("--tu");
            c->tu = v;
        } else if (KW_OPT("--gpu", NULL)) {
            KW_NEED("--gpu");
            c->o.gpu = v;
        } else if (KW_OPT("--shape", NULL)) {
            KW_NEED("--shape");
            kw_err err;
            if (kw_shape_parse(&c->shape, &c->arena, v, &err) != KW_OK)
                return kw_cli_usage_error("render", "%s", err.msg);
            c->o.shape = &c->shape;
        } else if (KW_OPT("--time-us", NULL)) {
            KW_NEED("--time-us");
            char *end;
            double t = strtod(v, &end);
            if (*end || !(t > 0) || !isfinite(t))
                return kw_cli_usage_error("render",
                                          "--time-us takes a positive number of "
                                          "microseconds, got '%s'",
                                          v);
            c->o.time_us = t;
        } else if (a[0] == '-' && a[1]) {
            return kw_cli_usage_error("render", "unknown option '%s'", a);
        } else if (!c->kernel) {
            c->kernel = a;
        } else {
            return kw_cli_usage_error("render", "unexpected argument '%s' (one KERNEL only)", a);
        }
#undef KW_OPT
#undef KW_NEED
    }
    if (c->all && c->kernel)
        return kw_cli_usage_error("render", "give KERNEL or --all, not both");
    if (c->all && c->tu)
        return kw_cli_usage_error("render", "--tu picks one KERNEL; --all renders every one");
    if (c->all && !c->out)
        return kw_cli_usage_error("render", "--all needs -o DIR");
    if (!c->all && !c->kernel)
        return kw_cli_usage_error("render", "no KERNEL given (or --all)");
    if (!c->all && !c->kernel[0])
        return kw_cli_usage_error("render", "KERNEL is empty");
    return KW_EXIT_OK;
}

/* ---- picking the kernel ------------------------------------------------------------------- */

static bool kw_has_arch(const kw_mkernel *mk, const char *arch) {
    if (!arch)
        return true;
    for (size_t i = 0; mk->k && i < mk->k->archs.n; i++)
        if (!strcmp(mk->k->archs.v[i].arch, arch))
            return true;
    return false;
}

typedef struct kw_hits {
    KW_ARRAY(size_t) v;
} kw_hits;

/* Does path name file q: the same string, path ending in "/q", or the same
 * file on disk? */
static bool kw_names_file(const char *path, const char *q) {
    if (!path)
        return false;
    size_t np = strlen(path), nq = strlen(q);
    if (!strcmp(path, q) || (np > nq && path[np - nq - 1] == '/' && !strcmp(path + np - nq, q)))
        return true;
    char *a = realpath(path, NULL), *b = a ? realpath(q, NULL) : NULL;
    bool same = a && b && !strcmp(a, b);
    free(a);
    free(b);
    return same;
}

/* --tu: a kernel with internal linkage must belong to the unit FILE names;
 * one with external linkage is the build's, whatever the unit. */
static bool kw_in_tu(const kw_mkernel *mk, const char *tu) {
    if (!tu || !mk->tu)
        return true;
    return kw_names_file(mk->tu->tu.source, tu) || kw_names_file(mk->tu->tu.object, tu) ||
           kw_names_file(mk->tu->sidecar, tu);
}

static void kw_hit(kw_arena *a, kw_hits *h, size_t i) {
    size_t *slot = KW_PUSH(a, h->v);
    if (slot)
        *slot = i;
}

static void kw_match(const kw_model *m, const char *q, const char *arch, const char *tu,
                     kw_arena *a, kw_hits *h) {
    memset(h, 0, sizeof(*h));
    for (int stage = 0; stage < 6 && !h->v.n; stage++) {
        regex_t re;
        if (stage == 5 && regcomp(&re, q, REG_EXTENDED | REG_NOSUB) != 0)
            break;
        for (size_t i = 0; i < m->kernels.n; i++) {
            const kw_mkernel *mk = &m->kernels.v[i];
            bool hit = false;
            switch (stage) {
            case 0:
                hit = !strcmp(mk->symbol, q);
                break;
            case 1:
                hit = !strcmp(mk->name, q);
                break;
            case 2:
                /* a template, or the kernel struct a trampoline runs */
                hit = !strcmp(m->groups.v[mk->group].key, q) ||
                      (m->groups.v[mk->group].runs && !strcmp(m->groups.v[mk->group].runs, q));
                break;
            case 3:
                hit = kw_name_written(a, mk->symbol, mk->name, q);
                break;
            case 4:
                hit = strstr(mk->name, q) || strstr(mk->symbol, q);
                break;
            default:
                hit = regexec(&re, mk->name, 0, NULL, 0) == 0;
                break;
            }
            if (hit && kw_has_arch(mk, arch) && kw_in_tu(mk, tu))
                kw_hit(a, h, i);
        }
        if (stage == 5)
            regfree(&re);
    }
}

static int kw_pick(const kw_model *m, const kw_render_cli *c, size_t *out) {
    kw_arena a;
    kw_arena_init(&a);
    kw_hits h;
    kw_match(m, c->kernel, c->o.arch, c->tu, &a, &h);
    int rc = KW_EXIT_OK;
    if (!h.v.n) {
        kw_hits any, anytu;
        kw_match(m, c->kernel, NULL, c->tu, &a, &any);
        kw_match(m, c->kernel, c->o.arch, NULL, &a, &anytu);
        if (c->tu && anytu.v.n)
            rc = kw_cli_failf("render: no kernel matching '%s' belongs to the translation unit "
                              "'%s' (kernels with internal linkage are their unit's own; "
                              "'kwalk list' shows each with its unit)",
                              c->kernel, c->tu);
        else if (c->o.arch && any.v.n)
            rc = kw_cli_failf("render: no kernel matching '%s' was built for %s", c->kernel,
                              c->o.arch);
        else
            rc = kw_cli_failf("render: no kernel matches '%s' in %s ('kwalk list' shows them)",
                              c->kernel, c->db ? c->db : KW_INDEX_DEFAULT_PATH);
    } else if (h.v.n > 1) {
        bool units = false;
        for (size_t i = 0; i < h.v.n; i++)
            units = units || m->kernels.v[h.v.v[i]].tu;
        kw_cli_failf("render: '%s' matches %zu kernel instantiations; name one (a symbol or a "
                     "full printed name%s). Candidates:",
                     c->kernel, h.v.n,
                     units ? "; --tu FILE picks the translation unit of one with internal linkage"
                           : "");
        for (size_t i = 0; i < h.v.n && i < 50; i++) {
            const kw_mkernel *mk = &m->kernels.v[h.v.v[i]];
            fprintf(stderr, "  %s\t%s", mk->name, mk->symbol);
            if (mk->tu)
                fprintf(stderr, "\tinternal linkage, --tu %s",
                        mk->tu->tu.source ? mk->tu->tu.source : mk->tu->sidecar);
            fputc('\n', stderr);
        }
        if (h.v.n > 50)
            fprintf(stderr, "  ... and %zu more\n", h.v.n - 50);
        rc = KW_EXIT_INPUT;
    } else {
        *out = h.v.v[0];
    }
    kw_arena_free(&a);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------ */

/* --all: pages are rendered and written on a few threads (kw_pool.h), each
 * with its own render context and source cache; the model is read-only once
 * every launch's paths are cached, but for the listings: the load leaves the
 * ISA listings and line tables in the database (kw_index_read_file_later),
 * and each page reads its kernel's on its worker's own connection, into the
 * worker's arena, freed once the page is written, so that the run never
 * holds more than a page's listings per thread. */
typedef struct kw_all_worker {
    kw_render r;
    kw_srcs srcs;
    kw_buf page;
    kw_arena listing; /* the listings of the page being written */
} kw_all_worker;

typedef struct kw_all {
    kw_app *app;
    const char *dir;
    kw_all_worker *w;
    kw_status *st;
    kw_err *err;
} kw_all;

/* Pages are rendered in chunks of KW_ALL_CHUNK: one pool item per chunk keeps
 * the hand-offs between threads rare (a page takes tens of microseconds). */
enum { KW_ALL_CHUNK = 32 };

static void kw_all_page(kw_all *a, kw_all_worker *w, unsigned worker, size_t i) {
    kw_buf_reset(&w->page);
    /* the model's kernel is the index's: this page's alone while it is written */
    kw_kernel *k = (kw_kernel *)a->app->model.kernels.v[i].k;
    kw_index_saved_listing *saved;
    a->st[i] = kw_index_kernel_listings(&a->app->ix, worker, k, &w->listing, &saved, &a->err[i]);
    if (a->st[i] == KW_OK)
        a->st[i] = kw_render_kernel(&w->r, i, &w->page, &a->err[i]);
    kw_index_kernel_listings_done(k, saved, &w->listing);
    if (a->st[i] != KW_OK)
        return;
    char *path = kw_arena_printf(&w->r.scratch, "%s/%s", a->dir, a->app->model.kernels.v[i].page);
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (!f) {
        a->st[i] = kw_fail(&a->err[i], "%s: %s", path ? path : a->dir,
                           path ? strerror(errno) : "out of memory");
        return;
    }
    bool ok = fwrite(w->page.ptr ? w->page.ptr : "", 1, w->page.len, f) == w->page.len;
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        a->st[i] = kw_fail(&a->err[i], "%s: %s", path, strerror(errno ? errno : EIO));
}

static void kw_all_work(void *ctx, unsigned worker, size_t chunk) {
    kw_all *a = ctx;
    size_t n = a->app->model.kernels.n;
    for (size_t i = chunk * KW_ALL_CHUNK; i < n && i < (chunk + 1) * KW_ALL_CHUNK; i++) {
        kw_all_page(a, &a->w[worker], worker, i);
        if (a->st[i] != KW_OK)
            return;
    }
}

static int kw_all_done(void *ctx, size_t chunk) {
    kw_all *a = ctx;
    size_t n = a->app->model.kernels.n;
    for (size_t i = chunk * KW_ALL_CHUNK; i < n && i < (chunk + 1) * KW_ALL_CHUNK; i++)
        if (a->st[i] != KW_OK)
            return kw_cli_fail(&a->err[i]);
    return KW_EXIT_OK;
}

/* The pages a --all run wrote are listed in DIR/.kwalk-pages (kw_pages.h). */
static const char kw_manifest_name[] = ".kwalk-pages";

static int kw_render_all(kw_app *app, kw_render *r, const char *dir) {
    kw_err err;
    if (kw_fs_mkdirs(dir, &err) != KW_OK)
        return kw_cli_fail(&err);
    kw_model *m = &app->model;
    /* page names are unique: a hash collision gets a number */
    if (kw_pages_name(m, ".md", &err) != KW_OK || kw_model_cache_paths(m, &err) != KW_OK)
        return kw_cli_fail(&err);
    unsigned threads = kw_pool_threads();
    kw_all a = {app, dir, calloc(threads, sizeof(kw_all_worker)),
                calloc(m->kernels.n + 1, sizeof(kw_status)),
                calloc(m->kernels.n + 1, sizeof(kw_err))};
    int rc = KW_EXIT_OK;
    if (!a.w || !a.st || !a.err) {
        rc = kw_cli_failf("out of memory");
    } else {
        for (unsigned t = 0; t < threads; t++) {
            kw_srcs_init(&a.w[t].srcs);
            kw_buf_init(&a.w[t].page);
            kw_arena_init(&a.w[t].listing);
            kw_render_init(&a.w[t].r, m, &a.w[t].srcs, r->providers, r->gpus, r->notes, r->o);
        }
        size_t chunks = (m->kernels.n + KW_ALL_CHUNK - 1) / KW_ALL_CHUNK;
        rc = kw_pool_run(chunks, threads, 4 * (size_t)threads, kw_all_work, kw_all_done, &a);
        for (unsigned t = 0; t < threads; t++) {
            kw_render_free(&a.w[t].r);
            kw_srcs_free(&a.w[t].srcs);
            kw_buf_free(&a.w[t].page);
            kw_arena_free(&a.w[t].listing);
        }
    }
    free(a.w);
    free(a.st);
    free(a.err);
    if (rc == KW_EXIT_OK) {
        kw_buf b;
        kw_buf_init(&b);
        kw_render_index(r, &b);
        char *path = kw_arena_printf(&r->scratch, "%s/index.md", dir);
        if (b.oom || !path)
            rc = kw_cli_failf("out of memory");
        else if (kw_fs_write_atomic(path, b.ptr, b.len, &err) != KW_OK ||
                 kw_pages_manifest(m, &r->scratch, dir, kw_manifest_name, ".md", &err) != KW_OK)
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
    memset(&trace, 0, sizeof trace);
    /* --all reads each page's listings when it writes the page (kw_render_all) */
    rc = c.all ? kw_app_load_later(&app, kw_pool_threads(), c.db, c.python_roots, c.npython_roots,
                                   c.python_from)
               : kw_app_load(&app, c.db, c.python_roots, c.npython_roots, c.python_from);
    if (rc == KW_EXIT_OK && c.trace) {
        kw_err err;
        if (kw_trace_load(&trace, c.trace, &app.ix, app.db, &err) != KW_OK)
            rc = kw_cli_fail(&err);
        c.o.trace = &trace.stats;
    }
    if (rc == KW_EXIT_OK) {
        c.o.db_path = app.db;
        c.o.python_root = c.npython_roots ? c.python_roots[0] : NULL;
        c.o.all = c.all;
        if (c.o.gpu && !kw_gpu_named(&app.gpus, c.o.gpu))
            rc = kw_cli_usage_error("render",
                                    "--gpu: unknown product '%s' (see "
                                    "annotations/hw/amdgpu-peaks.txt)",
                                    c.o.gpu);
    }
    if (rc == KW_EXIT_OK) {
        kw_render r;
        kw_render_init(&r, &app.model, &app.srcs, &app.providers, &app.gpus, &app.notes, &c.o);
        if (c.all) {
            rc = kw_render_all(&app, &r, c.out);
        } else {
            size_t ki = 0;
            rc = kw_pick(&app.model, &c, &ki);
            if (rc == KW_EXIT_OK) {
                kw_buf b;
                kw_buf_init(&b);
                kw_err err;
                if (kw_render_kernel(&r, ki, &b, &err) != KW_OK)
                    rc = kw_cli_fail(&err);
                else if (c.out)
                    rc = kw_fs_write_atomic(c.out, b.ptr, b.len, &err) == KW_OK ? KW_EXIT_OK
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
