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
 * (kw_map_unresolved.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kw_app.h"
#include "cli/kw_cli.h"
#include "cli/kw_cli_json.h"
#include "cli/kw_map_unresolved.h"
#include "common/kw_fs.h"
#include "model/kw_entry.h"
#include "model/kw_python_chains.h"
#include "render/kw_md.h"

static const char kw_map_usage[] =
    "usage: kwalk map [--db FILE] [--python-root DIR]... [--python-from PKG] [--root DIR]\n"
    "                 [--format md|tsv|json] [--json] [-o FILE]\n\n"
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
    "  -o, --output FILE   write to FILE instead of stdout\n";

/* The entry of a row whose launches never run. */
#define KW_MAP_DEAD ((size_t)-2)

typedef struct kw_map_row {
    size_t group;
    const kw_mlaunch *launch; /* NULL: never launched */
    size_t entry;             /* KW_NONE: no entry reaches the launch; KW_MAP_DEAD: never runs */
    size_t count;             /* instantiations */
    const char *functors;     /* trampoline kernels: the functor templates they run, ", "-joined */
    const kw_mkernel *kernel; /* the first instantiation of the row (its device code) */
} kw_map_row;

typedef struct kw_map {
    kw_app *app;
    const char *root;
    bool tsv;
    bool json;
    json_t *rows_json; /* --json: the rows so far */
    bool oom;          /* --json: out of memory while building them */
    kw_arena arena;
    KW_ARRAY(kw_map_row) rows;
    kw_symmap row_of;          /* "group|file:line|entry" -> row */
    KW_ARRAY(size_t) py_shown; /* the helper's ops in rows (kw_py_chains ops), each once */
    /* the Markdown table (kw_md_table: GFM, or HTML for `kwalk site`), and
     * where its cells' code spans go */
    bool html;
    kw_md_table tab;
    kw_md_in in;
} kw_map;

static const char *kw_map_path(const kw_map *m, const char *path) {
    return kw_map_unres_path(m->root, path);
}

/* The template of a printed functor type: "ns::F<int, 4>" -> "ns::F". */
static char *kw_map_functor_template(kw_arena *a, const char *functor) {
    const char *lt = strchr(functor, '<');
    return kw_arena_strndup(a, functor, lt ? (size_t)(lt - functor) : strlen(functor));
}

/* Add the functor of kernel mk (a trampoline) to the row's list, once. */
static bool kw_map_add_functor(kw_map *m, kw_map_row *r, const kw_mkernel *mk) {
    if (!mk || !mk->k || !mk->k->functor)
        return true;
    char *f = kw_map_functor_template(&m->arena, mk->k->functor);
    if (!f)
        return false;
    size_t n = strlen(f);
    for (const char *p = r->functors; p && (p = strstr(p, f)); p += n)
        if ((p == r->functors || p[-1] == ' ') && (p[n] == ',' || !p[n]))
            return true;
    r->functors = r->functors ? kw_arena_printf(&m->arena, "%s, %s", r->functors, f) : f;
    return r->functors != NULL;
}

static bool kw_map_add(kw_map *m, size_t group, const kw_mlaunch *ml, size_t entry,
                       const kw_mkernel *mk) {
    /* a kernel with internal linkage is its unit's own: a row of its own */
    const char *unit = mk && mk->tu && mk->tu->sidecar ? mk->tu->sidecar : "";
    char *key = ml ? kw_arena_printf(&m->arena, "%zu|%s:%d|%zu|%s", group,
                                     ml->l->location.file ? ml->l->location.file : "?",
                                     ml->l->location.line, entry, unit)
                   : kw_arena_printf(&m->arena, "%zu|-|%s", group, unit);
    /* a Triton launch reached through other Python callers: a row of its own */
    for (size_t i = 0; key && ml && i < ml->l->call_chain.n; i++)
        key = kw_arena_printf(
            &m->arena, "%s|%s:%d", key,
            ml->l->call_chain.v[i].location.file ? ml->l->call_chain.v[i].location.file : "?",
            ml->l->call_chain.v[i].location.line);
    if (!key)
        return false;
    size_t *at = kw_symmap_get(&m->row_of, key);
    if (at) {
        m->rows.v[*at].count++;
        return kw_map_add_functor(m, &m->rows.v[*at], mk);
    }
    kw_map_row *r = KW_PUSH(&m->arena, m->rows);
    if (!r || kw_symmap_put(&m->row_of, key, m->rows.n - 1) != KW_OK)
        return false;
    r->group = group;
    r->launch = ml;
    r->entry = entry;
    r->count = 1;
    r->kernel = mk;
    return kw_map_add_functor(m, r, mk);
}

static bool kw_map_collect(kw_map *m) {
    kw_model *md = &m->app->model;
    kw_arena tmp;
    kw_arena_init(&tmp);
    bool ok = true;
    for (size_t g = 0; g < md->groups.n && ok; g++) {
        const kw_mgroup *grp = &md->groups.v[g];
        for (size_t k = 0; k < grp->kernels.n && ok; k++) {
            const kw_mkernel *mk = &md->kernels.v[grp->kernels.v[k]];
            if (!mk->launches.n)
                ok = kw_map_add(m, g, NULL, KW_NONE, mk);
            bool all_dead = true; /* every launch of the kernel never runs */
            for (size_t l = 0; l < mk->launches.n && ok && all_dead; l++) {
                kw_mpaths p;
                kw_err err;
                ok = kw_model_paths(md, mk->launches.v[l], &tmp, &p, &err) == KW_OK;
                all_dead = p.dead;
            }
            for (size_t l = 0; l < mk->launches.n && ok; l++) {
                kw_mpaths p;
                kw_err err;
                const kw_mlaunch *ml = &md->launches.v[mk->launches.v[l]];
                if (kw_model_paths(md, mk->launches.v[l], &tmp, &p, &err) != KW_OK) {
                    ok = false;
                    break;
                }
                if (p.dead && all_dead)
                    ok = kw_map_add(m, g, ml, KW_MAP_DEAD, mk);
                else if (!p.v.n && !p.dead)
                    ok = kw_map_add(m, g, ml, KW_NONE, mk);
                for (size_t e = 0; e < p.v.n && ok; e++) /* one row per entry point */
                    if (e == 0 || p.v.v[e].entry != p.v.v[e - 1].entry)
                        ok = kw_map_add(m, g, ml, p.v.v[e].entry, mk);
            }
            if (k % 64 == 63) { /* keep the path scratch small */
                kw_arena_free(&tmp);
                kw_arena_init(&tmp);
            }
        }
    }
    kw_arena_free(&tmp);
    return ok;
}

static int kw_row_cmp(const void *a, const void *b) {
    const kw_map_row *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (!x->launch || !y->launch)
        return x->launch ? 1 : y->launch ? -1 : 0;
    const char *fx = x->launch->l->location.file ? x->launch->l->location.file : "";
    const char *fy = y->launch->l->location.file ? y->launch->l->location.file : "";
    int c = strcmp(fx, fy);
    if (c)
        return c;
    if (x->launch->l->location.line != y->launch->l->location.line)
        return x->launch->l->location.line - y->launch->l->location.line;
    if (x->entry != y->entry)
        return x->entry < y->entry ? -1 : 1;
    /* Triton launches of one site: by their recorded Python frames */
    const kw_launch *lx = x->launch->l, *ly = y->launch->l;
    for (size_t i = 0; i < lx->call_chain.n && i < ly->call_chain.n; i++) {
        const kw_loc *a = &lx->call_chain.v[i].location, *b = &ly->call_chain.v[i].location;
        c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
        if (c)
            return c;
        if (a->line != b->line)
            return a->line < b->line ? -1 : 1;
    }
    return lx->call_chain.n < ly->call_chain.n ? -1 : lx->call_chain.n > ly->call_chain.n;
}

/* A field of the TSV: tabs and line breaks as spaces. */
static void kw_tsv(kw_buf *b, const char *s) {
    for (; s && *s; s++)
        kw_buf_putc(b, (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s);
}

enum { KW_MAP_SHOWN = 4 }; /* public callers named in a Markdown row */

/* One "name file:line" item of a list into b, after "; " unless it is the
 * first: Markdown code spans, or plain for TSV. */
static void kw_map_item(kw_map *m, kw_buf *b, size_t i, const char *name, const char *file,
                        int line) {
    char *at = kw_arena_printf(&m->arena, "%s:%d", kw_map_path(m, file), line);
    kw_buf_puts(b, i ? "; " : "");
    if (m->tsv) {
        kw_tsv(b, name);
        kw_buf_putc(b, ' ');
        kw_tsv(b, at ? at : "?");
    } else {
        kw_md_code(b, name, m->in);
        kw_buf_putc(b, ' ');
        kw_md_code(b, at ? at : "?", m->in);
    }
}

/* The op's public callers in the package into b: up to max of them, "name
 * file:line" each (with "(via _private)" when the call goes through a private
 * function), "; "-joined, then "and N more". Names and places as Markdown
 * code spans, or plain for TSV (where tabs and line breaks become blanks). */
static void kw_map_callers(kw_map *m, kw_buf *b, const kw_py_op *op, size_t max) {
    for (size_t i = 0; i < op->callers.n && i < max; i++) {
        const kw_py_caller *c = &op->callers.v[i];
        kw_map_item(m, b, i, c->name, c->file, c->def_line);
        if (c->via) {
            kw_buf_puts(b, " (via ");
            if (m->tsv)
                kw_tsv(b, c->via);
            else
                kw_md_code(b, c->via, m->in);
            kw_buf_putc(b, ')');
        }
    }
    if (op->callers.n > max)
        kw_buf_printf(b, " and %zu more", op->callers.n - max);
}

/* Remember the helper's op (an index into its ops) for the section on
 * unresolved calls after the table, once. */
static void kw_map_shown(kw_map *m, size_t op) {
    for (size_t i = 0; i < m->py_shown.n; i++)
        if (m->py_shown.v[i] == op)
            return;
    size_t *slot = KW_PUSH(&m->arena, m->py_shown);
    if (slot)
        *slot = op;
}

/* The outermost chains of the helper's ops ops[0..nops), merged shortest
 * first (stable), into *out (indexes into the chains); the ops are
 * remembered for the unresolved calls after the rows. Their number,
 * (size_t)-1 when out of memory. */
static size_t kw_map_model_chains(kw_map *m, const size_t *ops, size_t nops, size_t **out) {
    const kw_py_chains *pc = m->app->py.chains;
    KW_ARRAY(size_t) all = {0};
    for (size_t o = 0; pc && o < nops; o++) {
        size_t *ix = NULL;
        size_t n = kw_py_chains_of_op(pc, ops[o], true, &m->arena, &ix);
        if (n == (size_t)-1)
            return n;
        kw_map_shown(m, ops[o]);
        for (size_t i = 0; i < n; i++) {
            size_t *slot = KW_PUSH(&m->arena, all);
            if (!slot)
                return (size_t)-1;
            size_t j = all.n - 1;
            for (; j > 0 && pc->v.v[all.v[j - 1]].length > pc->v.v[ix[i]].length; j--)
                all.v[j] = all.v[j - 1];
            all.v[j] = ix[i];
        }
    }
    *out = all.v;
    return all.n;
}

/* The model entries of the helper's ops ops[0..nops) into b: their
 * outermost callers, "entry file:line" each (the call that starts the
 * chain), shortest chain first, up to max, then "and N more"; "-" when
 * none. */
static void kw_map_model_of(kw_map *m, kw_buf *b, const size_t *ops, size_t nops, size_t max) {
    const kw_py_chains *pc = m->app->py.chains;
    size_t *all = NULL;
    size_t n = kw_map_model_chains(m, ops, nops, &all);
    if (n == (size_t)-1) {
        b->oom = true;
        return;
    }
    if (!n)
        kw_buf_putc(b, '-');
    for (size_t i = 0; i < n && i < max; i++) {
        const kw_py_chain *c = &pc->v.v[all[i]];
        kw_map_item(m, b, i, c->entry, c->entry_file, c->entry_line);
    }
    if (n > max)
        kw_buf_printf(b, " and %zu more", n - max);
}

/* The helper's ops bound to op's module (pybind ops) and function, into
 * *ops; their number, (size_t)-1 when out of memory. */
static size_t kw_map_op_ops(kw_map *m, const kw_py_op *op, size_t **ops) {
    const kw_py_chains *pc = m->app->py.chains;
    bool pybind = op && op->entry_kind && !strcmp(op->entry_kind, "pybind");
    *ops = NULL;
    return pc && op ? kw_py_chains_ops(pc, pybind ? op->module : NULL, op->function, &m->arena, ops)
                    : 0;
}

/* The op's model entries into b (with two --python-root or more): the
 * helper's ops bound to its module and function (kw_map_model_of). */
static void kw_map_model(kw_map *m, kw_buf *b, const kw_py_op *op, size_t max) {
    size_t *ops = NULL;
    size_t n = kw_map_op_ops(m, op, &ops);
    if (n == (size_t)-1) {
        b->oom = true;
        return;
    }
    kw_map_model_of(m, b, ops, n, max);
}

/* The helper's launches of the row's Triton kernel (kw_py_chains_kernel_launches);
 * with l (a launch the hook recorded), those at its line in a file of its
 * name. Their number, (size_t)-1 when out of memory. */
static size_t kw_map_py_launches(kw_map *m, const kw_map_row *r, const kw_launch *l, size_t **out) {
    const kw_py_chains *pc = m->app->py.chains;
    const kw_kernel *k = r->kernel ? r->kernel->k : NULL;
    *out = NULL;
    if (!pc || !k || !k->location.file)
        return 0;
    size_t n = kw_py_chains_kernel_launches(pc, k->name, k->location.file, k->location.line,
                                            &m->arena, out);
    if (!l || n == (size_t)-1)
        return n;
    const char *base = l->location.file ? strrchr(l->location.file, '/') : NULL;
    base = base ? base + 1 : l->location.file;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const kw_py_launch *pl = &pc->launches.v[(*out)[i]];
        const char *pb = strrchr(pl->file, '/');
        if (base && pl->line == l->location.line && !strcmp(pb ? pb + 1 : pl->file, base))
            (*out)[kept++] = (*out)[i];
    }
    return kept;
}

/* The wrappers (the helper's ops) that launch the row's Triton kernel (at
 * the hook's launch l, when recorded), each once, into *ops; their number,
 * (size_t)-1 when out of memory. */
static size_t kw_map_triton_ops(kw_map *m, const kw_map_row *r, const kw_launch *l, size_t **ops) {
    size_t *ix = NULL;
    size_t n = kw_map_py_launches(m, r, l, &ix);
    *ops = n && n != (size_t)-1 ? kw_arena_alloc(&m->arena, n * sizeof(size_t)) : NULL;
    if (n == (size_t)-1 || (n && !*ops))
        return (size_t)-1;
    size_t nops = 0;
    for (size_t i = 0; i < n; i++) {
        size_t op = m->app->py.chains->launches.v[ix[i]].op, j = 0;
        while (j < nops && (*ops)[j] != op)
            j++;
        if (j == nops)
            (*ops)[nops++] = op;
    }
    return nops;
}

/* The Model entry of a Triton row: the chains to the wrappers that launch
 * its kernel (at the hook's launch, when recorded) */
static void kw_map_triton_model(kw_map *m, kw_buf *b, const kw_map_row *r, const kw_launch *l,
                                size_t max) {
    size_t *ops = NULL;
    size_t nops = kw_map_triton_ops(m, r, l, &ops);
    if (nops == (size_t)-1) {
        b->oom = true;
        return;
    }
    kw_map_model_of(m, b, ops, nops, max);
}

/* Is the row's launch a Triton kernel's (`kernel[grid](...)` in Python)? */
static bool kw_map_triton(const kw_map_row *r) {
    return r->launch && r->launch->l->kind && !strcmp(r->launch->l->kind, "triton");
}

/* A Triton launch's recorded Python frames above the launching function into
 * b: "function file:line" each (the call), innermost first, up to max, then
 * "and N more"; "-" when none. */
static void kw_map_frames(kw_map *m, kw_buf *b, const kw_launch *l, size_t max) {
    if (!l->call_chain.n)
        kw_buf_putc(b, '-');
    for (size_t i = 0; i < l->call_chain.n && i < max; i++) {
        const kw_chain_link *c = &l->call_chain.v[i];
        kw_map_item(m, b, i, c->function ? c->function : "?", c->location.file, c->location.line);
    }
    if (l->call_chain.n > max)
        kw_buf_printf(b, " and %zu more", l->call_chain.n - max);
}

/* A Triton row's first cells: the kernel, the count, and "FN launches at
 * AT" (its Python entry, to be continued). */
static void kw_map_triton_cells(kw_map *m, kw_buf *b, const char *key, const char *num,
                                const char *fn, const char *at) {
    kw_md_table_row(&m->tab);
    kw_md_table_cell(&m->tab);
    kw_md_code(b, key, m->in);
    kw_md_table_cell(&m->tab);
    kw_buf_puts(b, num);
    kw_md_table_cell(&m->tab);
    kw_md_code(b, fn, m->in);
    kw_buf_puts(b, " launches at ");
    kw_md_code(b, at ? at : "?", m->in);
}

/* A Triton kernel's row: its Python entry is the function that launches it
 * (at the launch), called by the frames the hook recorded; it has no C++
 * entry. */
static void kw_map_triton_row_out(kw_map *m, kw_buf *b, const kw_map_row *r, const char *num,
                                  const char *launch, const char *dev) {
    const kw_launch *l = r->launch->l;
    const char *fn = l->function ? l->function : "?";
    const char *key = m->app->model.groups.v[r->group].key;
    if (m->tsv) {
        const char *f[10] = {key,
                             num,
                             launch ? launch : "-",
                             fn,
                             "triton",
                             "-",
                             "-",
                             launch ? launch : "-",
                             dev ? dev : "-",
                             "-"};
        for (int i = 0; i < 10; i++) {
            if (i)
                kw_buf_putc(b, '\t');
            kw_tsv(b, f[i]);
        }
        kw_buf_putc(b, '\t');
        kw_map_frames(m, b, l, (size_t)-1);
        if (m->app->have_chains) {
            kw_buf_putc(b, '\t');
            kw_map_triton_model(m, b, r, l, (size_t)-1);
        }
        kw_buf_putc(b, '\n');
        return;
    }
    kw_map_triton_cells(m, b, key, num, fn, launch);
    if (l->call_chain.n) {
        kw_buf_puts(b, ", called by ");
        kw_map_frames(m, b, l, KW_MAP_SHOWN);
    }
    if (m->app->have_chains) {
        kw_md_table_cell(&m->tab);
        kw_map_triton_model(m, b, r, l, KW_MAP_SHOWN);
    }
    kw_md_table_cell(&m->tab);
    kw_buf_puts(b, "(Triton: launched from Python)");
    kw_md_table_cell(&m->tab);
    kw_md_code(b, launch ? launch : "?", m->in);
    kw_md_table_cell(&m->tab);
    if (dev)
        kw_md_code(b, dev, m->in);
    else
        kw_buf_puts(b, "(no device record)");
    kw_buf_puts(b, " (Triton)");
}

/* A Triton kernel no launch of which was recorded (cache-only): a row per
 * `kernel[grid](...)` of it the helper found in the Python trees, the
 * wrapper as its Python entry, the chains to the wrapper as its Model
 * entry. False when the helper found none. */
static bool kw_map_triton_static(kw_map *m, kw_buf *b, const kw_map_row *r, const char *num,
                                 const char *dev) {
    size_t *ix = NULL;
    size_t n = kw_map_py_launches(m, r, NULL, &ix);
    if (n == (size_t)-1)
        b->oom = true;
    if (n == (size_t)-1 || !n)
        return false;
    const char *key = m->app->model.groups.v[r->group].key;
    for (size_t i = 0; i < n; i++) {
        const kw_py_launch *pl = &m->app->py.chains->launches.v[ix[i]];
        const char *fn = m->app->py.chains->ops.v[pl->op].name;
        char *at = kw_arena_printf(&m->arena, "%s:%d", kw_map_path(m, pl->file), pl->line);
        if (m->tsv) {
            const char *f[11] = {key, num,           at ? at : "?",   fn,  "triton", "-",
                                 "-", at ? at : "?", dev ? dev : "-", "-", "-"};
            for (int k = 0; k < 11; k++) {
                kw_buf_puts(b, k ? "\t" : "");
                kw_tsv(b, f[k]);
            }
            kw_buf_putc(b, '\t');
            kw_map_model_of(m, b, &pl->op, 1, (size_t)-1);
            kw_buf_putc(b, '\n');
            continue;
        }
        kw_map_triton_cells(m, b, key, num, fn, at);
        kw_buf_puts(b, " (found statically, no launch recorded)");
        kw_md_table_cell(&m->tab);
        kw_map_model_of(m, b, &pl->op, 1, KW_MAP_SHOWN);
        kw_md_table_cell(&m->tab);
        kw_buf_puts(b, "(Triton: launched from Python)");
        kw_md_table_cell(&m->tab);
        kw_md_code(b, at ? at : "?", m->in);
        kw_md_table_cell(&m->tab);
        if (dev)
            kw_md_code(b, dev, m->in);
        else
            kw_buf_puts(b, "(no device record)");
        kw_buf_puts(b, " (Triton)");
    }
    return true;
}

/* The code objects of a group of precompiled ASM kernels, ", "-separated
 * (one kernel name may come in a code object per arch); NULL when none. */
static char *kw_map_code_objects(kw_map *m, const kw_mgroup *grp) {
    kw_buf b;
    kw_buf_init(&b);
    for (size_t k = 0; k < grp->kernels.n; k++) {
        const kw_mkernel *mk = &m->app->model.kernels.v[grp->kernels.v[k]];
        for (size_t c = 0; c < mk->asm_code_objects.n; c++) {
            if (b.len)
                kw_buf_puts(&b, ", ");
            kw_buf_puts(&b, kw_map_path(m, mk->asm_code_objects.v[c]));
        }
    }
    char *s = b.len && !b.oom ? kw_arena_printf(&m->arena, "%.*s", (int)b.len, b.ptr) : NULL;
    kw_buf_free(&b);
    return s;
}

/* ---- --json ---- */

static json_t *kw_mj_at(const kw_map *m, const char *file, int line) {
    return json_pack("{s:o, s:i}", "file", kw_jansson_text(kw_map_path(m, file)), "line", line);
}

/* The op's public callers, model entries (NULL without chains) or a Triton
 * launch's frames, as JSON lists. */
static json_t *kw_mj_callers(kw_map *m, const kw_py_op *op) {
    json_t *a = json_array();
    for (size_t i = 0; a && op && i < op->callers.n; i++) {
        const kw_py_caller *c = &op->callers.v[i];
        json_t *o = kw_mj_at(m, c->file, c->def_line);
        if (o) {
            kw_jansson_set(o, "name", kw_jansson_text(c->name), &m->oom);
            kw_jansson_set(o, "via", kw_jansson_text(c->via), &m->oom);
        }
        kw_jansson_push(a, o, &m->oom);
    }
    return a;
}

/* The model entries of the helper's ops ops[0..n) (kw_map_model_chains). */
static json_t *kw_mj_model(kw_map *m, const size_t *ops, size_t n) {
    const kw_py_chains *pc = m->app->py.chains;
    size_t *ix = NULL;
    size_t k = n == (size_t)-1 ? n : kw_map_model_chains(m, ops, n, &ix);
    json_t *a = json_array();
    if (k == (size_t)-1)
        m->oom = true;
    for (size_t i = 0; a && k != (size_t)-1 && i < k; i++) {
        const kw_py_chain *c = &pc->v.v[ix[i]];
        json_t *o = kw_mj_at(m, c->entry_file, c->entry_line);
        if (o)
            kw_jansson_set(o, "name", kw_jansson_text(c->entry), &m->oom);
        kw_jansson_push(a, o, &m->oom);
    }
    return a;
}

static json_t *kw_mj_frames(kw_map *m, const kw_launch *l) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->call_chain.n; i++) {
        const kw_chain_link *c = &l->call_chain.v[i];
        json_t *o = kw_mj_at(m, c->location.file, c->location.line);
        if (o)
            kw_jansson_set(o, "name", kw_jansson_text(c->function), &m->oom);
        kw_jansson_push(a, o, &m->oom);
    }
    return a;
}

/* One row as a JSON object (docs/json.md), appended to m->rows_json. */
static void kw_map_row_json(kw_map *m, const kw_map_row *r, const kw_py_op *op) {
    kw_model *md = &m->app->model;
    const kw_mgroup *grp = &md->groups.v[r->group];
    const kw_mkernel *first =
        r->kernel && r->kernel->k ? r->kernel : &md->kernels.v[grp->kernels.v[0]];
    const kw_entry *e = r->entry < md->entries.n ? md->entries.v[r->entry].e : NULL;
    bool triton = kw_map_triton(r);
    bool *oom = &m->oom;
    json_t *o = json_object();
    if (!o) {
        *oom = true;
        return;
    }
    kw_jansson_set(o, "kernel", kw_jansson_text(grp->key), oom);
    kw_jansson_set(o, "kind",
                   json_string(triton                                ? "triton"
                               : !first->k && first->asm_code_object ? "asm"
                                                                     : "hip"),
                   oom);
    if (first->is_asm && strcmp(first->name, grp->key)) /* an ASM kernel's demangled name */
        kw_jansson_set(o, "demangled", kw_jansson_text(first->name), oom);
    kw_jansson_set(o, "instantiations", json_integer((json_int_t)r->count), oom);
    kw_jansson_set(o, "functors", kw_jansson_text(r->functors), oom);
    json_t *py = json_null();
    if (triton) { /* the launching function, at the launch, and the recorded frames */
        const kw_launch *l = r->launch->l;
        py = kw_mj_at(m, l->location.file, l->location.line);
        if (py) {
            kw_jansson_set(py, "function", kw_jansson_text(l->function), oom);
            kw_jansson_set(py, "callers", kw_mj_frames(m, l), oom);
        }
    } else if (op) {
        py = kw_mj_at(m, op->file, op->def_line);
        if (py) {
            kw_jansson_set(py, "function", kw_jansson_text(op->def_name), oom);
            kw_jansson_set(py, "callers", kw_mj_callers(m, op), oom);
        }
    }
    kw_jansson_set(o, "python", py, oom);
    if (m->app->have_chains) { /* a Triton row: the chains to the wrappers launching it */
        size_t *ops = NULL;
        size_t n =
            triton ? kw_map_triton_ops(m, r, r->launch->l, &ops) : kw_map_op_ops(m, op, &ops);
        kw_jansson_set(o, "model_entries", kw_mj_model(m, ops, n), oom);
    }
    json_t *entry = json_null();
    if (e && !triton) {
        entry = e->location.file ? kw_mj_at(m, e->location.file, e->location.line)
                                 : json_pack("{s:n, s:n}", "file", "line");
        if (entry) {
            kw_jansson_set(entry, "kind", kw_jansson_text(e->kind), oom);
            kw_jansson_set(entry, "name", kw_jansson_text(kw_entry_label(&m->arena, e)), oom);
        }
    }
    kw_jansson_set(o, "entry", entry, oom);
    kw_jansson_set(o, "reached",
                   json_string(triton                    ? "python"
                               : e                       ? "entry"
                               : r->entry == KW_MAP_DEAD ? "unreachable"
                               : r->launch               ? "no_entry"
                                                         : "not_launched"),
                   oom);
    kw_jansson_set(o, "launch",
                   r->launch ? kw_mj_at(m, r->launch->l->location.file, r->launch->l->location.line)
                             : json_null(),
                   oom);
    json_t *cos = json_array();
    for (size_t k = 0; cos && !(first->k && first->k->location.file) && k < grp->kernels.n; k++) {
        const kw_mkernel *mk = &md->kernels.v[grp->kernels.v[k]];
        for (size_t c = 0; c < mk->asm_code_objects.n; c++)
            kw_jansson_push(cos, kw_jansson_text(kw_map_path(m, mk->asm_code_objects.v[c])), oom);
    }
    kw_jansson_set(o, "device",
                   first->k && first->k->location.file
                       ? kw_mj_at(m, first->k->location.file, first->k->location.line)
                       : json_null(),
                   oom);
    kw_jansson_set(o, "code_objects", cos, oom);
    kw_jansson_push(m->rows_json, o, oom);
}

static void kw_map_row_out(kw_map *m, kw_buf *b, const kw_map_row *r, const kw_py_op *op) {
    if (m->json) {
        kw_map_row_json(m, r, op);
        return;
    }
    kw_model *md = &m->app->model;
    const kw_mgroup *grp = &md->groups.v[r->group];
    /* the device code of the row's own kernel (a kernel with internal linkage:
     * its unit's definition), else of the template's first instantiation */
    const kw_mkernel *first =
        r->kernel && r->kernel->k ? r->kernel : &md->kernels.v[grp->kernels.v[0]];
    const kw_entry *e = r->entry < md->entries.n ? md->entries.v[r->entry].e : NULL;
    char num[32];
    snprintf(num, sizeof num, "%zu", r->count);
    const char *entry_name = e ? kw_entry_label(&m->arena, e) : NULL;
    char *eat = e && e->location.file
                    ? kw_arena_printf(&m->arena, "%s:%d", kw_map_path(m, e->location.file),
                                      e->location.line)
                    : NULL;
    char *py =
        op ? kw_arena_printf(&m->arena, "%s:%d", kw_map_path(m, op->file), op->def_line) : NULL;
    char *launch = r->launch ? kw_arena_printf(&m->arena, "%s:%d",
                                               kw_map_path(m, r->launch->l->location.file),
                                               r->launch->l->location.line)
                             : NULL;
    char *dev = first->k && first->k->location.file
                    ? kw_arena_printf(&m->arena, "%s:%d", kw_map_path(m, first->k->location.file),
                                      first->k->location.line)
                    : kw_map_code_objects(m, grp);
    if (kw_map_triton(r)) {
        kw_map_triton_row_out(m, b, r, num, launch, dev);
        return;
    }
    bool triton = first->k && first->k->language && !strcmp(first->k->language, "triton");
    if (triton && !r->launch && m->app->have_chains && kw_map_triton_static(m, b, r, num, dev))
        return;
    if (m->tsv) {
        const char *f[10] = {grp->key,
                             num,
                             py ? py : "-",
                             op && op->def_name ? op->def_name : "-",
                             e && e->kind              ? e->kind
                             : r->entry == KW_MAP_DEAD ? "unreachable"
                                                       : "-",
                             entry_name ? entry_name : "-",
                             eat ? eat : "-",
                             launch ? launch : "-",
                             dev ? dev : "-",
                             r->functors ? r->functors : "-"};
        for (int i = 0; i < 10; i++) {
            if (i)
                kw_buf_putc(b, '\t');
            kw_tsv(b, f[i]);
        }
        kw_buf_putc(b, '\t');
        if (op && op->callers.n)
            kw_map_callers(m, b, op, (size_t)-1);
        else
            kw_buf_putc(b, '-');
        if (m->app->have_chains) {
            kw_buf_putc(b, '\t');
            kw_map_model(m, b, op, (size_t)-1);
        }
        kw_buf_putc(b, '\n');
        return;
    }
    kw_md_table_row(&m->tab);
    kw_md_table_cell(&m->tab);
    kw_md_code(b, grp->key, m->in);
    if (first->is_asm && strcmp(first->name, grp->key)) { /* an ASM kernel's demangled name */
        kw_buf_puts(b, " (");
        kw_md_code(b, first->name, m->in);
        kw_buf_puts(b, ")");
    }
    if (r->functors) {
        kw_buf_puts(b, " running ");
        kw_md_code(b, r->functors, m->in);
    }
    kw_md_table_cell(&m->tab);
    kw_buf_puts(b, num);
    kw_md_table_cell(&m->tab);
    if (py) {
        kw_md_code(b, op->def_name ? op->def_name : "?", m->in);
        kw_buf_puts(b, " ");
        kw_md_code(b, py, m->in);
        if (op->callers.n) {
            kw_buf_puts(b, ", called by ");
            kw_map_callers(m, b, op, KW_MAP_SHOWN);
        }
    } else {
        kw_buf_puts(b, "-");
    }
    if (m->app->have_chains) {
        kw_md_table_cell(&m->tab);
        kw_map_model(m, b, op, KW_MAP_SHOWN);
    }
    kw_md_table_cell(&m->tab);
    if (e) {
        const char *word = e->kind && !strcmp(e->kind, "pybind") ? "pybind" : kw_entry_word(e);
        kw_md_plain(b, word, strlen(word), m->in);
        kw_buf_putc(b, ' ');
        kw_md_code(b, entry_name ? entry_name : "?", m->in);
        if (eat) {
            kw_buf_puts(b, " ");
            kw_md_code(b, eat, m->in);
        }
    } else {
        kw_buf_puts(b, r->entry == KW_MAP_DEAD ? "(emitted but unreachable from any entry point)"
                       : r->launch             ? "(no entry point reaches it)"
                                               : "-");
    }
    kw_md_table_cell(&m->tab);
    if (launch)
        kw_md_code(b, launch, m->in);
    else
        kw_buf_puts(b, "(no launch recorded)");
    kw_md_table_cell(&m->tab);
    if (dev)
        kw_md_code(b, dev, m->in);
    else
        kw_buf_puts(b, "(no device record)");
    if (!first->k && first->asm_code_object)
        kw_buf_puts(b, " (ASM)");
}

/* Why an op joins no entry point: the scanner's reason, or the entry point
 * of that name the index has in another module (or of another kind), or
 * none of that name at all. */
static void kw_map_unjoined_why(kw_map *m, kw_buf *b, const kw_py_op *op) {
    if (op->why) {
        kw_buf_puts(b, op->why);
        return;
    }
    bool pybind = op->entry_kind && !strcmp(op->entry_kind, "pybind");
    if (pybind)
        kw_buf_printf(b, "no pybind entry point %s.%s in this index", op->module ? op->module : "?",
                      op->function ? op->function : "?");
    else
        kw_buf_printf(b, "no extern \"C\" entry point %s in this index",
                      op->function ? op->function : "?");
    const kw_model *md = &m->app->model;
    size_t shown = 0;
    for (size_t i = 0; i < md->entries.n && op->function; i++) {
        const kw_entry *e = md->entries.v[i].e;
        if (!e->name || strcmp(e->name, op->function))
            continue;
        bool epy = e->kind && !strcmp(e->kind, "pybind");
        if (shown++ == 4) {
            kw_buf_puts(b, ", ...");
            break;
        }
        kw_buf_puts(b, shown == 1 ? "; the entry exists as " : ", as ");
        if (epy)
            kw_buf_printf(b, "pybind %s.%s", e->module ? e->module : "?", e->name);
        else
            kw_buf_printf(b, "extern \"C\" %s", e->name);
        if (e->location.file)
            kw_buf_printf(b, " (%s:%d)", kw_map_path(m, e->location.file), e->location.line);
        if (epy && pybind)
            kw_buf_puts(b, ", in another module");
    }
}

static int kw_map_run(kw_map *m, kw_buf *b) {
    if (!kw_map_collect(m))
        return kw_cli_failf("out of memory");
    if (m->rows.n)
        qsort(m->rows.v, m->rows.n, sizeof(kw_map_row), kw_row_cmp);
    kw_model *md = &m->app->model;
    if (m->json)
        m->rows_json = json_array();
    static const char *const head7[] = {"Kernel",      "Instantiations", "Python entry",
                                        "Model entry", "C++ entry",      "Launch site",
                                        "Device code"};
    static const char *const head6[] = {"Kernel",    "Instantiations", "Python entry",
                                        "C++ entry", "Launch site",    "Device code"};
    bool table = !m->tsv && !m->json;
    m->in = m->html ? KW_MD_HTML : KW_MD_CELL;
    if (table && m->app->have_chains)
        kw_md_table_open(&m->tab, b, m->html, 7, head7, "-r-----");
    else if (table)
        kw_md_table_open(&m->tab, b, m->html, 6, head6, "-r----");
    for (size_t i = 0; i < m->rows.n; i++) {
        const kw_map_row *r = &m->rows.v[i];
        const kw_mentry *me = r->entry < md->entries.n ? &md->entries.v[r->entry] : NULL;
        if (me && me->ops.n)
            for (size_t k = 0; k < me->ops.n; k++)
                kw_map_row_out(m, b, r, &md->py->ops.v[me->ops.v[k]]);
        else
            kw_map_row_out(m, b, r, NULL);
    }
    if (table)
        kw_md_table_close(&m->tab);
    if (m->json)
        return m->oom ? kw_cli_failf("out of memory") : KW_EXIT_OK;
    kw_map_unres u = {m->app->py.chains, m->py_shown.v, m->py_shown.n, m->root, &m->arena};
    if (m->app->have_chains && m->tsv)
        kw_map_unres_tsv(&u, b);
    else if (m->app->have_chains)
        kw_map_unres_md(&u, b);
    if (!m->tsv && m->app->have_py) {
        size_t unjoined = 0;
        for (size_t o = 0; o < m->app->py.ops.n; o++) {
            bool joined = false;
            for (size_t e = 0; e < md->entries.n && !joined; e++)
                for (size_t k = 0; k < md->entries.v[e].ops.n && !joined; k++)
                    joined = md->entries.v[e].ops.v[k] == o;
            if (joined)
                continue;
            const kw_py_op *op = &m->app->py.ops.v[o];
            if (!unjoined++)
                kw_buf_puts(b, "\nPython ops bound to no entry point of this index:\n\n");
            kw_buf_puts(b, "- ");
            kw_md_code(b, op->def_name ? op->def_name : "?", false);
            char *s = kw_arena_printf(&m->arena, "%s:%d", kw_map_path(m, op->file), op->def_line);
            kw_buf_puts(b, " ");
            kw_md_code(b, s ? s : "?", false);
            kw_buf_puts(b, ": ");
            /* names and paths of the inputs: as text (docs/security.md) */
            kw_buf why;
            kw_buf_init(&why);
            kw_map_unjoined_why(m, &why, op);
            kw_md_safe_prose(b, kw_buf_str(&why), KW_MD_TEXT);
            b->oom |= why.oom;
            kw_buf_free(&why);
            kw_buf_putc(b, '\n');
        }
    }
    return b->oom ? kw_cli_failf("out of memory") : KW_EXIT_OK;
}

/* --json: {"kwalk_map": 1, "rows": [...]} written into b. */
static int kw_map_json_doc(kw_map *m, kw_buf *b) {
    json_t *doc = json_object();
    bool oom = !doc || !m->rows_json;
    if (!oom) {
        kw_jansson_set(doc, "kwalk_map", json_integer(1), &oom);
        kw_jansson_set(doc, "rows", json_incref(m->rows_json), &oom);
    }
    if (!oom && m->app->have_chains) {
        kw_map_unres u = {m->app->py.chains, m->py_shown.v, m->py_shown.n, m->root, &m->arena};
        kw_map_unres_json(&u, doc, &oom);
    }
    char *text = oom ? NULL : json_dumps(doc, JSON_INDENT(2));
    json_decref(doc);
    if (!text)
        return kw_cli_failf("out of memory");
    kw_buf_puts(b, text);
    kw_buf_putc(b, '\n');
    free(text);
    return b->oom ? kw_cli_failf("out of memory") : KW_EXIT_OK;
}

/* The map's Markdown of a loaded index into b (kwalk site's map.html, with
 * the site's own index: no second load). */
int kw_map_markdown(kw_app *app, const char *root, bool html, kw_buf *b) {
    kw_map m;
    memset(&m, 0, sizeof(m));
    m.app = app;
    m.root = root;
    m.html = html;
    kw_arena_init(&m.arena);
    kw_symmap_init(&m.row_of);
    int rc = kw_map_run(&m, b);
    kw_symmap_free(&m.row_of);
    kw_arena_free(&m.arena);
    return rc;
}

int kw_cmd_map(int argc, char **argv) {
    const char *db = NULL, *out = NULL, *py_from = NULL;
    const char *py[64]; /* --python-root, repeatable */
    size_t npy = 0;
    kw_map m;
    memset(&m, 0, sizeof(m));
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
            m.root = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("map", "option -o needs a file name");
            out = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (r > 0 && !strcmp(v, "tsv"))
                m.tsv = true, m.json = false;
            else if (r > 0 && !strcmp(v, "md"))
                m.tsv = false, m.json = false;
            else if (r > 0 && !strcmp(v, "json"))
                m.tsv = false, m.json = true;
            else
                return kw_cli_usage_error("map", "--format takes 'md', 'tsv' or 'json'");
        } else if (!strcmp(argv[i], "--json")) {
            m.tsv = false, m.json = true;
        } else if (argv[i][0] == '-') {
            return kw_cli_usage_error("map", "unknown option '%s'", argv[i]);
        } else {
            return kw_cli_usage_error("map", "unexpected argument '%s'", argv[i]);
        }
    }
    kw_app app;
    /* the map shows no ISA listing or line table: they stay in the index */
    int rc = kw_app_load_later(&app, 0, db, py, npy, py_from);
    if (rc == KW_EXIT_OK) {
        m.app = &app;
        kw_arena_init(&m.arena);
        kw_symmap_init(&m.row_of);
        kw_buf b;
        kw_buf_init(&b);
        rc = kw_map_run(&m, &b);
        if (rc == KW_EXIT_OK && m.json) /* the rows as one document, into b */
            rc = kw_map_json_doc(&m, &b);
        json_decref(m.rows_json);
        kw_err err;
        if (rc == KW_EXIT_OK && out)
            rc = kw_fs_write_atomic(out, b.ptr, b.len, &err) == KW_OK ? KW_EXIT_OK
                                                                      : kw_cli_fail(&err);
        else if (rc == KW_EXIT_OK) {
            if (fwrite(b.ptr ? b.ptr : "", 1, b.len, stdout) != b.len)
                rc = kw_cli_failf("cannot write the output: %s", strerror(errno));
            else
                rc = kw_cli_flush_stdout();
        }
        kw_buf_free(&b);
        kw_symmap_free(&m.row_of);
        kw_arena_free(&m.arena);
    }
    kw_app_free(&app);
    return rc;
}
