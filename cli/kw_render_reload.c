/* kw_render_reload.c: what `kwalk render KERNEL` reads of the index a second
 * time, once the first read (kw_app_reload_only's rows of the symbol or
 * printed name KERNEL) shows what KERNEL picks. */
#include "cli/kw_render_reload.h"

#include <string.h>

#include "cli/kw_cli.h"
#include "model/kw_kfamily.h"
#include "model/kw_pick.h"

/* The index read again for what KERNEL picks. When the first read found
 * kernels of symbol or printed name KERNEL, it read those whole and of the
 * others only their templates' (kw_index.kernels_some): they are what
 * KERNEL picks (kw_kfam_match takes a symbol or printed name first), unless
 * --arch or --tu leaves none of them, where the index is read again with
 * every kernel's own rows, as when KERNEL named no symbol: then the one
 * kernel of another symbol than KERNEL is read again whole (with every
 * kernel's own rows: the page picks it by KERNEL again; so is the one
 * kernel KERNEL names as people type names, kw_kfam_match: the first read
 * has not its launches), or every
 * instantiation of the one kernel whose page KERNEL asks for (its dispatch
 * table needs each one's launches, guards and template arguments), with
 * its template's kernels only (kw_index.kernels_some: that kernel is their
 * family unless it is a trampoline's or ASM kernels', which read every
 * kernel's rows). */
int kw_render_reload(kw_app *app, const char *kernel, const char *arch, const char *tu,
                     kw_arena *keep) {
    kw_arena a;
    kw_arena_init(&a);
    kw_kfams f;
    kw_kfam_hits fh;
    kw_err err;
    int rc = KW_EXIT_OK;
    if (app->ix.kernels_some) {
        if (kw_kfams_build(&f, &app->model, &a, &err) != KW_OK)
            rc = kw_cli_fail(&err);
        else
            kw_kfam_match(&f, &app->model, kernel, arch, tu, &a, &fh);
        bool picked = rc == KW_EXIT_OK && fh.kernels.n;
        kw_arena_free(&a);
        if (rc != KW_EXIT_OK || picked)
            return rc;
        const char *want[1] = {kernel};
        if ((rc = kw_app_reload_only(app, want, 1, true)) != KW_EXIT_OK)
            return rc;
        kw_arena_init(&a);
    }
    kw_pick_hits h;
    kw_pick_match(&app->model, kernel, arch, tu, &a, &h);
    const char *sym = h.v.n == 1 ? app->model.kernels.v[h.v.v[0]].symbol : NULL;
    if (sym && strcmp(sym, kernel)) {
        const char *want[1] = {kw_arena_strdup(keep, sym)};
        rc = want[0] ? kw_app_reload_only(app, want, 1, true) : kw_cli_failf("out of memory");
    } else if (!sym && kw_kfams_build(&f, &app->model, &a, &err) == KW_OK) {
        kw_kfam_match(&f, &app->model, kernel, arch, tu, &a, &fh);
        size_t n = fh.fams.n == 1 ? fh.kernels.n : 0, i = 0;
        const char **want = n ? kw_arena_alloc(keep, n * sizeof *want) : NULL;
        while (want && i < n &&
               (want[i] = kw_arena_strdup(keep, app->model.kernels.v[fh.kernels.v[i]].symbol)))
            i++;
        /* one kernel: its page, picked by KERNEL again among every kernel */
        if (n)
            rc = i == n ? kw_app_reload_only(app, want, n, n == 1) : kw_cli_failf("out of memory");
    }
    kw_arena_free(&a);
    return rc;
}
