/* kw_app.c: loading the index, the annotations, the Python ops and the model
 * for `kwalk render` and `kwalk map` (see kw_app.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/kw_app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/kw_cli.h"
#include "cli/kw_pyhelper.h"
#include "common/kw_fs.h"

/* The Python reader (python/kwalk_pyscan.py) over the roots: the ops of the
 * entry-point rules (on the first root that has any) with their public
 * callers and, with two roots or more, the chains across them. One root is
 * a package folder (`--package-root`), several are PYTHONPATH entries. */
static int kw_app_python(kw_app *app, const char *const *roots, size_t n, const char *from) {
    kw_err err;
    const char *decorators[64];
    size_t ndec = 0;
    char *abs[64];
    size_t nabs = 0;
    int rc = KW_EXIT_OK;
    if (kw_py_load_rules(&app->py, &app->annot, &err) != KW_OK)
        return kw_cli_fail(&err);
    for (size_t i = 0; i < app->py.rules.n && ndec < 64; i++)
        decorators[ndec++] = app->py.rules.v[i].decorator;
    /* a root that is not a folder is a Python file: checked the way kwalk
     * reads its inputs (a regular file within the 64 MiB limit), before
     * python3 is handed it */
    for (size_t i = 0; i < n && i < 64; i++) {
        struct stat st;
        unsigned char head[1];
        size_t got;
        if (stat(roots[i], &st) == 0 && !S_ISDIR(st.st_mode) &&
            kw_fs_head(roots[i], KW_FS_TEXT, head, sizeof head, &got, &err) != KW_OK)
            return kw_cli_fail(&err);
    }
    for (size_t i = 0; i < n && i < 64; i++) /* the reader's paths are absolute */
        if ((abs[nabs] = realpath(roots[i], NULL)))
            nabs++;
        else {
            rc = kw_cli_failf("--python-root %s: %s", roots[i], strerror(errno));
            break;
        }
    if (rc != KW_EXIT_OK) {
        for (size_t i = 0; i < nabs; i++)
            free(abs[i]);
        return rc;
    }
    switch (kw_pyhelper_chains((const char *const *)abs, nabs, from, decorators, ndec, n == 1,
                               &app->chains, &err)) {
    case KW_PYHELPER_OK:
        if (kw_py_ops_from_chains(&app->py, &app->chains, (const char *const *)abs, nabs, &err) !=
            KW_OK) {
            rc = kw_cli_fail(&err);
            break;
        }
        app->have_py = true;
        if (n < 2)
            break;
        app->have_chains = true; /* a model and the library: the chains across them */
        app->py.chains = &app->chains;
        for (size_t i = 0; i < app->chains.too_deep.n; i++) {
            const kw_py_too_deep *t = &app->chains.too_deep.v[i];
            fprintf(stderr,
                    "kwalk: warning: --python-root %s is the package '%s' itself (%s:%d "
                    "imports it by that name): give the folder holding it, --python-root "
                    "%s\n",
                    t->root, t->package, t->file, t->line, t->parent);
        }
        break;
    case KW_PYHELPER_NONE:
        fprintf(stderr, "kwalk: note: %s: the Python entries and chains are left out\n", err.msg);
        break;
    case KW_PYHELPER_FAILED:
        rc = kw_cli_fail(&err);
        break;
    }
    for (size_t i = 0; i < nabs; i++)
        free(abs[i]);
    return rc;
}

/* How an app reads the index: whole, listings later, or only a few kernels' rows. */
typedef struct kw_app_how {
    bool later;
    unsigned readers;
    bool only;
    const char *const *symbols;
    size_t n;
    bool every; /* with every kernel's own rows (kw_index_read_file_only) */
} kw_app_how;

static int kw_app_read(kw_index *ix, const char *db, const kw_app_how *how) {
    const char *path = db ? db : KW_INDEX_DEFAULT_PATH;
    kw_err err;
    /* KWALK_INDEX_READ=whole: the whole read where a command would read only
     * its rows (the comparison of tests/index/test_index_only.py) */
    const char *env = getenv("KWALK_INDEX_READ");
    bool only = how->only && !(env && !strcmp(env, "whole"));
    kw_status st = only ? kw_index_read_file_only(ix, path, how->symbols, how->n, how->every, &err)
                   : how->later ? kw_index_read_file_later(ix, path, how->readers, &err)
                                : kw_index_read_file(ix, path, &err);
    if (st == KW_OK)
        return KW_EXIT_OK;
    struct stat st_;
    if (!db && stat(KW_INDEX_DEFAULT_PATH, &st_) != 0)
        return kw_cli_failf("%s (run 'kwalk index DIR' first, or give --db FILE)", err.msg);
    return kw_cli_fail(&err);
}

int kw_app_read_index(kw_index *ix, const char *db, bool later, unsigned readers) {
    kw_app_how how = {later, readers, false, NULL, 0, false};
    return kw_app_read(ix, db, &how);
}

int kw_app_read_index_only(kw_index *ix, const char *db, const char *const *symbols, size_t n) {
    kw_app_how how = {false, 0, true, symbols, n, false};
    return kw_app_read(ix, db, &how);
}

static int kw_app_load_in(kw_app *app, const kw_app_how *how, const char *db,
                          const char *const *python_roots, size_t nroots, const char *python_from) {
    memset(app, 0, sizeof(*app));
    kw_index_init(&app->ix);
    kw_srcs_init(&app->srcs);
    kw_py_ops_init(&app->py);
    kw_py_chains_init(&app->chains);
    app->db = db ? db : KW_INDEX_DEFAULT_PATH;
    int rc = kw_app_read(&app->ix, db, how);
    if (rc != KW_EXIT_OK)
        return rc;
    kw_err err;
    if (!app->ix.kernels.n) {
        bool launches = false;
        for (size_t i = 0; i < app->ix.tus.n && !launches; i++)
            launches = app->ix.tus.v[i].launches.n > 0;
        if (!launches)
            return kw_cli_failf("%s: no kernels in this index (were the sidecars written by a "
                                "compile with device code?)",
                                app->db);
    }
    if (kw_annot_load(&app->annot, &err) != KW_OK ||
        kw_providers_load(&app->providers, &app->annot, &err) != KW_OK ||
        kw_gpus_load(&app->gpus, &err) != KW_OK ||
        kw_isa_notes_load(&app->notes, &app->annot, &err) != KW_OK ||
        kw_calltree_rules_load(&app->tree_rules, &app->annot, &err) != KW_OK)
        return kw_cli_fail(&err);
    if (nroots && (rc = kw_app_python(app, python_roots, nroots, python_from)) != KW_EXIT_OK)
        return rc;
    if (kw_model_build(&app->model, &app->ix, app->have_py ? &app->py : NULL, &err) != KW_OK)
        return kw_cli_fail(&err);
    app->model.tree_rules = &app->tree_rules;
    return KW_EXIT_OK;
}

int kw_app_load_only(kw_app *app, const char *const *symbols, size_t n, const char *db,
                     const char *const *python_roots, size_t nroots, const char *python_from) {
    kw_app_how how = {false, 0, true, symbols, n, false};
    return kw_app_load_in(app, &how, db, python_roots, nroots, python_from);
}

int kw_app_load_pick(kw_app *app, const char *const *symbols, size_t n, const char *db,
                     const char *const *python_roots, size_t nroots, const char *python_from) {
    kw_app_how how = {false, 0, true, symbols, n, true};
    return kw_app_load_in(app, &how, db, python_roots, nroots, python_from);
}

int kw_app_reload_only(kw_app *app, const char *const *symbols, size_t n, bool every) {
    kw_model_free(&app->model);
    kw_index_free(&app->ix);
    kw_app_how how = {false, 0, true, symbols, n, every};
    int rc = kw_app_read(&app->ix, app->db, &how);
    kw_err err;
    if (rc == KW_EXIT_OK &&
        kw_model_build(&app->model, &app->ix, app->have_py ? &app->py : NULL, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    app->model.tree_rules = &app->tree_rules;
    return rc;
}

int kw_app_load_later(kw_app *app, unsigned readers, const char *db,
                      const char *const *python_roots, size_t nroots, const char *python_from) {
    kw_app_how how = {true, readers, false, NULL, 0, false};
    return kw_app_load_in(app, &how, db, python_roots, nroots, python_from);
}

void kw_app_free(kw_app *app) {
    kw_model_free(&app->model);
    kw_srcs_free(&app->srcs);
    kw_py_ops_free(&app->py);
    kw_py_chains_free(&app->chains);
    kw_isa_notes_free(&app->notes);
    kw_calltree_rules_free(&app->tree_rules);
    kw_gpus_free(&app->gpus);
    kw_providers_free(&app->providers);
    kw_annot_free(&app->annot);
    kw_index_free(&app->ix);
}
