/* kw_map_write.c: `kwalk map`'s rows (model/kw_map.h) written as a
 * table, paragraphs and lists by the page's printer (render/kw_r.c:
 * Markdown for `kwalk map`, HTML for `kwalk site`'s map.html, whose code
 * spans kw_map_link.c links) or as TSV (docs/render.md): per row, and per Python op bound to its
 * entry, the kernel, its instantiations, the Python entry (the op's def line and its public
 * callers; a Triton kernel's launching function and its recorded frames), with the chains a Model
 * entry column, the C++ entry, the launch site and the device code. After the table: the Python
 * calls not resolved statically (kw_map_unresolved.h) and the Python ops bound to no entry point of
 * the index. Every line is the map's model, complete (its Model entries looked up, model/kw_map.h):
 * this file looks nothing up and includes nothing of sidecar/ or index/. */
#define _POSIX_C_SOURCE 200809L
#include "render/kw_map_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_entry.h"
#include "render/kw_map_link.h"
#include "render/kw_map_unresolved.h"
#include "render/kw_md.h"

typedef struct kw_map_w {
    kw_map *map;
    const char *root; /* --root: paths relative to it */
    bool tsv;
    /* the page's blocks, by its printer (r.out: the output; r.in: where a
     * cell's code spans go), and map.html's links (NULL: none) */
    kw_render r;
    kw_render_opts o;
    const kw_map_links *links;
} kw_map_w;

/* A code span of a table cell. */
static void kw_map_code(kw_map_w *m, const char *s) {
    kw_map_link_code(&m->r, m->links, s, m->r.in);
}

static const char *kw_map_path(const kw_map_w *m, const char *path) {
    return kw_map_unres_path(m->root, path);
}

/* A field of the TSV: tabs and line breaks as spaces. */
static void kw_tsv(kw_buf *b, const char *s) {
    for (; s && *s; s++)
        kw_buf_putc(b, (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s);
}

/* The first n fields of a TSV line, tab-separated (no tab after the last). */
static void kw_tsv_fields(kw_buf *b, const char *const *f, int n) {
    for (int i = 0; i < n; i++) {
        if (i)
            kw_buf_putc(b, '\t');
        kw_tsv(b, f[i]);
    }
}

enum { KW_MAP_SHOWN = 4 }; /* public callers named in a Markdown row */

/* One "name file:line" item of a list into b, after "; " unless it is the
 * first: Markdown code spans, or plain for TSV. */
static void kw_map_item(kw_map_w *m, kw_buf *b, size_t i, const char *name, const char *file,
                        int line) {
    char *at = kw_arena_printf(&m->map->arena, "%s:%d", kw_map_path(m, file), line);
    kw_buf_puts(b, i ? "; " : "");
    if (m->tsv) {
        kw_tsv(b, name);
        kw_buf_putc(b, ' ');
        kw_tsv(b, at ? at : "?");
    } else {
        kw_map_code(m, name);
        kw_buf_putc(b, ' ');
        kw_map_code(m, at ? at : "?");
    }
}

/* The op's public callers in the package into b: up to max of them, "name
 * file:line" each (with "(via _private)" when the call goes through a private
 * function), "; "-joined, then "and N more". Names and places as Markdown
 * code spans, or plain for TSV (where tabs and line breaks become blanks). */
static void kw_map_callers(kw_map_w *m, kw_buf *b, const kw_py_op *op, size_t max) {
    for (size_t i = 0; i < op->callers.n && i < max; i++) {
        const kw_py_caller *c = &op->callers.v[i];
        kw_map_item(m, b, i, c->name, c->file, c->def_line);
        if (c->via) {
            kw_buf_puts(b, " (via ");
            if (m->tsv)
                kw_tsv(b, c->via);
            else
                kw_map_code(m, c->via);
            kw_buf_putc(b, ')');
        }
    }
    if (op->callers.n > max)
        kw_buf_printf(b, " and %zu more", op->callers.n - max);
}

/* Model entries into b: the outermost callers of chains[0..n) (indexes into
 * the helper's chains), "entry file:line" each (the call that starts the
 * chain), shortest chain first, up to max, then "and N more"; "-" when
 * none. */
static void kw_map_model_of(kw_map_w *m, kw_buf *b, const size_t *chains, size_t n, size_t max) {
    const kw_py_chains *pc = m->map->chains;
    if (!n)
        kw_buf_putc(b, '-');
    for (size_t i = 0; i < n && i < max; i++) {
        const kw_py_chain *c = &pc->v.v[chains[i]];
        kw_map_item(m, b, i, c->entry, c->entry_file, c->entry_line);
    }
    if (n > max)
        kw_buf_printf(b, " and %zu more", n - max);
}

/* The calls crossing from the model's package into the op's (Markdown):
 * ", crossing at `fn` `file:line`; ..." after the Model entries. */
static void kw_map_crossings(kw_map_w *m, kw_buf *b, const kw_map_line *ln) {
    for (size_t i = 0; i < ln->crossings.n && i < KW_MAP_SHOWN; i++) {
        const kw_py_frame *f = ln->crossings.v[i];
        kw_buf_puts(b, i ? "; " : ", crossing at ");
        kw_map_item(m, b, 0, f->function, f->file, f->line);
    }
    if (ln->crossings.n > KW_MAP_SHOWN)
        kw_buf_printf(b, " and %zu more", ln->crossings.n - (size_t)KW_MAP_SHOWN);
}

/* A Triton launch's recorded Python frames above the launching function into
 * b: "function file:line" each (the call), innermost first, up to max, then
 * "and N more"; "-" when none. */
static void kw_map_frames(kw_map_w *m, kw_buf *b, const kw_launch *l, size_t max) {
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
static void kw_map_triton_cells(kw_map_w *m, kw_buf *b, const char *key, const char *num,
                                const char *fn, const char *at) {
    kw_r_row(&m->r);
    kw_r_cell(&m->r);
    kw_map_code(m, key);
    kw_r_cell(&m->r);
    kw_buf_puts(b, num);
    kw_r_cell(&m->r);
    kw_map_code(m, fn);
    kw_buf_puts(b, " launches at ");
    kw_map_code(m, at ? at : "?");
}

/* A Triton row's last cells: no C++ entry, the launch site at, the device
 * symbol dev. */
static void kw_map_triton_ends(kw_map_w *m, kw_buf *b, const char *at, const char *dev) {
    kw_r_cell(&m->r);
    kw_buf_puts(b, "(Triton: launched from Python)");
    kw_r_cell(&m->r);
    kw_map_code(m, at ? at : "?");
    kw_r_cell(&m->r);
    if (dev)
        kw_map_code(m, dev);
    else
        kw_buf_puts(b, "(no device record)");
    kw_buf_puts(b, " (Triton)");
}

/* A Triton kernel's row: its Python entry is the function that launches it
 * (at the launch), called by the frames the hook recorded; it has no C++
 * entry. */
static void kw_map_triton_row_out(kw_map_w *m, kw_buf *b, const kw_map_line *ln, const char *num,
                                  const char *launch, const char *dev) {
    const kw_map_row *r = ln->row;
    const kw_launch *l = r->launch->l;
    const char *fn = l->function ? l->function : "?";
    const char *key = m->map->model->groups.v[r->group].key;
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
        kw_tsv_fields(b, f, 10);
        kw_buf_putc(b, '\t');
        kw_map_frames(m, b, l, (size_t)-1);
        if (m->map->chains) {
            kw_buf_putc(b, '\t');
            kw_map_model_of(m, b, ln->chains, ln->nchains, (size_t)-1);
        }
        kw_buf_putc(b, '\n');
        return;
    }
    kw_map_triton_cells(m, b, key, num, fn, launch);
    if (l->call_chain.n) {
        kw_buf_puts(b, ", called by ");
        kw_map_frames(m, b, l, KW_MAP_SHOWN);
    }
    if (m->map->chains) {
        kw_r_cell(&m->r);
        kw_map_model_of(m, b, ln->chains, ln->nchains, KW_MAP_SHOWN);
        kw_map_crossings(m, b, ln);
    }
    kw_map_triton_ends(m, b, launch, dev);
}

/* A Triton kernel no launch of which was recorded (cache-only): a row per
 * `kernel[grid](...)` of it the helper found in the Python trees (the
 * line's statics), the wrapper as its Python entry, the chains to the
 * wrapper as its Model entry. */
static void kw_map_triton_static(kw_map_w *m, kw_buf *b, const kw_map_line *ln, const char *num,
                                 const char *dev) {
    const char *key = m->map->model->groups.v[ln->row->group].key;
    for (size_t i = 0; i < ln->statics.n; i++) {
        const kw_map_static *st = &ln->statics.v[i];
        const kw_py_launch *pl = st->launch;
        const char *fn = st->wrapper;
        char *at = kw_arena_printf(&m->map->arena, "%s:%d", kw_map_path(m, pl->file), pl->line);
        if (m->tsv) {
            const char *f[11] = {key, num,           at ? at : "?",   fn,  "triton", "-",
                                 "-", at ? at : "?", dev ? dev : "-", "-", "-"};
            kw_tsv_fields(b, f, 11);
            kw_buf_putc(b, '\t');
            kw_map_model_of(m, b, st->chains, st->nchains, (size_t)-1);
            kw_buf_putc(b, '\n');
            continue;
        }
        kw_map_triton_cells(m, b, key, num, fn, at);
        kw_buf_puts(b, " (found statically, no launch recorded)");
        kw_r_cell(&m->r);
        kw_map_model_of(m, b, st->chains, st->nchains, KW_MAP_SHOWN);
        kw_map_triton_ends(m, b, at, dev);
    }
}

/* The code objects of a group of precompiled ASM kernels, ", "-separated
 * (one kernel name may come in a code object per arch); NULL when none. */
static char *kw_map_code_objects(kw_map_w *m, const kw_mgroup *grp) {
    kw_buf b;
    kw_buf_init(&b);
    for (size_t k = 0; k < grp->kernels.n; k++) {
        const kw_mkernel *mk = &m->map->model->kernels.v[grp->kernels.v[k]];
        for (size_t c = 0; c < mk->asm_code_objects.n; c++) {
            if (b.len)
                kw_buf_puts(&b, ", ");
            kw_buf_puts(&b, kw_map_path(m, mk->asm_code_objects.v[c]));
        }
    }
    char *s = b.len && !b.oom ? kw_arena_printf(&m->map->arena, "%.*s", (int)b.len, b.ptr) : NULL;
    kw_buf_free(&b);
    return s;
}

static void kw_map_row_out(kw_map_w *m, kw_buf *b, const kw_map_line *ln) {
    const kw_map_row *r = ln->row;
    const kw_py_op *op = ln->op;
    const kw_mgroup *grp = &m->map->model->groups.v[r->group];
    /* the device code of the row's own kernel (a kernel with internal linkage:
     * its unit's definition), else of the template's first instantiation */
    const kw_mkernel *first = ln->first;
    const kw_entry *e = ln->entry;
    char num[32];
    snprintf(num, sizeof num, "%zu%s", r->count,
             m->tsv || r->v == KW_KV_NONE ? ""
             : r->v == KW_KV_HOLDS        ? ", selected"
                                          : ", candidate");
    const char *entry_name = ln->entry_label;
    char *eat = e && e->location.file
                    ? kw_arena_printf(&m->map->arena, "%s:%d", kw_map_path(m, e->location.file),
                                      e->location.line)
                    : NULL;
    char *py = op ? kw_arena_printf(&m->map->arena, "%s:%d", kw_map_path(m, op->file), op->def_line)
                  : NULL;
    char *launch = r->launch ? kw_arena_printf(&m->map->arena, "%s:%d",
                                               kw_map_path(m, r->launch->l->location.file),
                                               r->launch->l->location.line)
                             : NULL;
    const kw_loc *dl = kw_map_device(first);
    char *dev = dl ? kw_arena_printf(&m->map->arena, "%s:%d", kw_map_path(m, dl->file), dl->line)
                   : kw_map_code_objects(m, grp);
    if (ln->triton) {
        kw_map_triton_row_out(m, b, ln, num, launch, dev);
        return;
    }
    if (ln->statics.n) {
        kw_map_triton_static(m, b, ln, num, dev);
        return;
    }
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
        kw_tsv_fields(b, f, 10);
        kw_buf_putc(b, '\t');
        if (op && op->callers.n)
            kw_map_callers(m, b, op, (size_t)-1);
        else
            kw_buf_putc(b, '-');
        if (m->map->chains) {
            kw_buf_putc(b, '\t');
            kw_map_model_of(m, b, ln->chains, ln->nchains, (size_t)-1);
        }
        kw_buf_putc(b, '\n');
        return;
    }
    kw_r_row(&m->r);
    kw_r_cell(&m->r);
    kw_map_code(m, grp->key);
    if (first->is_asm && strcmp(first->name, grp->key)) { /* an ASM kernel's demangled name */
        kw_buf_puts(b, " (");
        kw_map_code(m, first->name);
        kw_buf_puts(b, ")");
    }
    if (r->functors) {
        kw_buf_puts(b, " running ");
        kw_map_code(m, r->functors);
    }
    kw_r_cell(&m->r);
    kw_buf_puts(b, num);
    kw_r_cell(&m->r);
    if (py) {
        kw_map_code(m, op->def_name ? op->def_name : "?");
        kw_buf_puts(b, " ");
        kw_map_code(m, py);
        if (op->callers.n) {
            kw_buf_puts(b, ", called by ");
            kw_map_callers(m, b, op, KW_MAP_SHOWN);
        }
    } else {
        kw_buf_puts(b, "-");
    }
    if (m->map->chains) {
        kw_r_cell(&m->r);
        kw_map_model_of(m, b, ln->chains, ln->nchains, KW_MAP_SHOWN);
        kw_map_crossings(m, b, ln);
    }
    kw_r_cell(&m->r);
    if (e) {
        const char *word = e->kind && !strcmp(e->kind, "pybind") ? "pybind" : kw_entry_word(e);
        kw_md_plain(b, word, strlen(word), m->r.in);
        kw_buf_putc(b, ' ');
        kw_map_code(m, entry_name ? entry_name : "?");
        if (eat) {
            kw_buf_puts(b, " ");
            kw_map_code(m, eat);
        }
    } else {
        kw_buf_puts(b, r->entry == KW_MAP_DEAD ? "(emitted but unreachable from any entry point)"
                       : r->launch             ? "(no entry point reaches it)"
                                               : "-");
    }
    kw_r_cell(&m->r);
    if (launch)
        kw_map_code(m, launch);
    else
        kw_buf_puts(b, "(no launch recorded)");
    kw_r_cell(&m->r);
    if (dev)
        kw_map_code(m, dev);
    else
        kw_buf_puts(b, "(no device record)");
    if (!first->k && first->asm_code_object)
        kw_buf_puts(b, " (ASM)");
}

/* Why an op joins no entry point: the scanner's reason, or the entry point
 * of that name the index has in another module (or of another kind), or
 * none of that name at all. */
static void kw_map_unjoined_why(kw_map_w *m, kw_buf *b, const kw_map_unjoined *u) {
    const kw_py_op *op = u->op;
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
    const kw_model *md = m->map->model;
    for (size_t i = 0; i < u->nsame; i++) {
        const kw_entry *e = md->entries.v[u->same[i]].e;
        bool epy = e->kind && !strcmp(e->kind, "pybind");
        kw_buf_puts(b, i == 0 ? "; the entry exists as " : ", as ");
        if (epy)
            kw_buf_printf(b, "pybind %s.%s", e->module ? e->module : "?", e->name);
        else
            kw_buf_printf(b, "extern \"C\" %s", e->name);
        if (e->location.file)
            kw_buf_printf(b, " (%s:%d)", kw_map_path(m, e->location.file), e->location.line);
        if (epy && pybind)
            kw_buf_puts(b, ", in another module");
    }
    if (u->more)
        kw_buf_puts(b, ", ...");
}

/* The rows, then what follows them, into b. */
static kw_status kw_map_write(kw_map_w *m, kw_buf *b, kw_err *err) {
    static const char *const head7[] = {"Kernel",      "Instantiations", "Python entry",
                                        "Model entry", "C++ entry",      "Launch site",
                                        "Device code"};
    static const char *const head6[] = {"Kernel",    "Instantiations", "Python entry",
                                        "C++ entry", "Launch site",    "Device code"};
    kw_render *r = &m->r;
    bool table = !m->tsv;
    if (table && m->map->chains)
        kw_r_table_aligned(r, 7, head7, "-r-----");
    else if (table)
        kw_r_table_aligned(r, 6, head6, "-r----");
    for (size_t i = 0; i < m->map->lines.n; i++)
        kw_map_row_out(m, b, &m->map->lines.v[i]);
    if (table) {
        kw_r_table_end(r);
        kw_r_gap(r);
    }
    kw_map_unres u = {m->map->chains,
                      m->map->shown.ops.v,
                      m->map->shown.ops.n,
                      m->map->shown.elsewhere,
                      m->root,
                      &m->map->arena,
                      m->links};
    if (m->map->chains && m->tsv)
        kw_map_unres_tsv(&u, b);
    else if (m->map->chains)
        kw_map_unres_md(&u, r);
    for (size_t o = 0; !m->tsv && o < m->map->unjoined.n; o++) {
        const kw_map_unjoined *uj = &m->map->unjoined.v[o];
        const kw_py_op *op = uj->op;
        if (!o) {
            kw_r_para(r, "Python ops bound to no entry point of this index:");
            kw_r_list(r);
        }
        kw_r_item(r, 0);
        kw_map_link_code(r, m->links, op->def_name ? op->def_name : "?", kw_r_prose_in(r));
        char *s = kw_arena_printf(&m->map->arena, "%s:%d", kw_map_path(m, op->file), op->def_line);
        kw_r_t(r, " ");
        kw_map_link_code(r, m->links, s ? s : "?", kw_r_prose_in(r));
        kw_r_t(r, ": ");
        /* names and paths of the inputs: as text (docs/security.md) */
        kw_buf why;
        kw_buf_init(&why);
        kw_map_unjoined_why(m, &why, uj);
        kw_r_sp(r, kw_buf_str(&why));
        b->oom |= why.oom;
        kw_buf_free(&why);
    }
    if (m->map->unjoined.n && !m->tsv) {
        kw_r_list_end(r);
        kw_r_gap(r);
    }
    /* every block ends with a blank line: the page ends with its last line */
    if (table && !kw_r_html(r) && b->len >= 2 && !memcmp(b->ptr + b->len - 2, "\n\n", 2))
        b->ptr[--b->len] = 0;
    return b->oom ? kw_fail(err, "out of memory") : KW_OK;
}

/* The writer's state over b; kw_render_free(&m->r) after. */
static void kw_map_w_init(kw_map_w *m, kw_map *map, const char *root, kw_r_printer printer,
                          kw_buf *b) {
    memset(m, 0, sizeof(*m));
    m->map = map;
    m->root = root;
    m->o.root = root;
    m->o.time_us = -1;
    m->o.printer = printer;
    kw_render_init(&m->r, map->model, NULL, NULL, NULL, NULL, &m->o);
    m->r.out = m->r.page_out = b;
}

kw_status kw_map_write_md(kw_map *map, const char *root, kw_r_printer printer,
                          const kw_map_links *links, kw_buf *b, kw_err *err) {
    kw_map_w m;
    kw_map_w_init(&m, map, root, printer, b);
    m.links = links;
    kw_status st = kw_map_write(&m, b, err);
    kw_render_free(&m.r);
    return st;
}

kw_status kw_map_write_tsv(kw_map *map, const char *root, kw_buf *b, kw_err *err) {
    kw_map_w m;
    kw_map_w_init(&m, map, root, KW_R_MARKDOWN, b);
    m.tsv = true;
    kw_status st = kw_map_write(&m, b, err);
    kw_render_free(&m.r);
    return st;
}
