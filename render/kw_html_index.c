/* kw_html_index.c: DIR/instantiations.html of `kwalk site`: every kernel
 * instantiation of the index in one table, grouped by template (a header row
 * per template), each row linking to its page. Numeric cells carry data-v
 * (the value the script sorts by: the largest over the archs, the smallest
 * for occupancy); a cell of several archs lists them in the kernel's order.
 * The rows, their entry points, resources and the counts are the index
 * page's model (model/kw_ipage.h), shared with DIR/index.md: this file
 * computes no entry path, no best of a column, and includes nothing of
 * sidecar/ or index/. */
#include <stdio.h>
#include <string.h>

#include "render/kw_html.h"

static const kw_html_col kw_cols[] = {
    {"tmpl", "Template", false},
    {"name", "Instantiation", false},
    {"targs", "Template arguments", false},
    {"lang", "Language", false},
    {"archs", "Archs", false},
    {"vgpr", "VGPR", true},
    {"agpr", "AGPR", true},
    {"sgpr", "SGPR", true},
    {"lds", "LDS (B)", true},
    {"scratch", "Scratch (B/lane)", true},
    {"spills", "Spills (V+S)", true},
    {"occ", "Occupancy (waves/SIMD)", true},
    {"launches", "Launch sites", true},
    {"entries", "Entry points", true},
};
enum { KW_NCOLS = sizeof(kw_cols) / sizeof(kw_cols[0]) };

/* A numeric cell: per arch its value ("-" unknown), data-v the best (the
 * index page's model's). */
static void kw_hi_num(kw_buf *o, const kw_ipage_row *row, int i) {
    kw_buf_puts(o, "<td class=\"n\"");
    if (row->best[i] >= 0)
        kw_buf_printf(o, " data-v=\"%lld\"", row->best[i]);
    kw_buf_puts(o, ">");
    for (size_t a = 0; a < row->narchs; a++) {
        if (a)
            kw_buf_puts(o, " / ");
        if (row->res[a][i] >= 0)
            kw_buf_printf(o, "%lld", row->res[a][i]);
        else
            kw_buf_puts(o, "-");
    }
    kw_buf_puts(o, "</td>");
}

/* The row's entry points: data-v their number. */
static void kw_hi_entries(const kw_ipage_row *row, kw_buf *o) {
    kw_buf_printf(o, "<td data-v=\"%zu\">", row->entries.n);
    for (size_t i = 0; i < row->entries.n; i++) {
        kw_buf_puts(o, i ? "<br><code>" : "<code>");
        kw_html_esc(o, row->entries.v[i].label);
        kw_buf_puts(o, "</code>");
    }
    kw_buf_puts(o, "</td>");
}

static void kw_hi_row(kw_render *r, size_t g, const kw_ipage_row *row, kw_buf *o) {
    size_t ki = row->kernel;
    const kw_mkernel *mk = &r->m->kernels.v[ki];
    const kw_kernel *k = mk->k;
    kw_buf_printf(o, "<tr data-i=\"%zu\" data-g=\"%zu\" data-sym=\"", ki, g);
    kw_html_esc(o, mk->symbol);
    kw_buf_puts(o, "\"><td>");
    kw_html_esc(o, r->m->groups.v[g].key);
    if (r->m->groups.v[g].runs) { /* a trampoline: the kernel struct it runs */
        kw_buf_puts(o, " running ");
        kw_html_esc(o, r->m->groups.v[g].runs);
    }
    kw_buf_puts(o, "</td><td><a href=\"");
    kw_html_esc(o, mk->page ? mk->page : "");
    kw_buf_puts(o, "\"><code>");
    kw_html_esc(o, kw_r_name(r, kw_title_name(&r->scratch, mk))); /* aliases as written */
    kw_buf_puts(o, "</code></a>");
    if (mk->tu) {
        kw_buf_puts(o, " of <code>");
        kw_html_esc(o, kw_r_path(r, mk->tu->tu.source ? mk->tu->tu.source : mk->tu->sidecar));
        kw_buf_puts(o, "</code>");
    }
    kw_buf_puts(o, "</td><td>");
    const kw_triton *tr = k ? k->triton : NULL;
    for (size_t i = 0; k && i < k->template_args.n; i++) {
        const kw_template_arg *t = &k->template_args.v[i];
        kw_buf_puts(o, i ? "<br><code>" : "<code>");
        if (t->name) {
            kw_html_esc(o, t->name);
            kw_buf_puts(o, " = ");
        }
        kw_html_esc(o, kw_r_targ_value(r, t));
        kw_buf_puts(o, "</code>");
    }
    for (size_t c = 0; tr && c < tr->constexprs.n; c++) {
        if (!tr->constexprs.v[c].name || !tr->constexprs.v[c].value)
            continue;
        kw_buf_puts(o, c ? "<br><code>" : "<code>");
        kw_html_esc(o, tr->constexprs.v[c].name);
        kw_buf_puts(o, " = ");
        kw_html_esc(o, tr->constexprs.v[c].value);
        kw_buf_puts(o, "</code>");
    }
    const char *lang = tr || (k && k->language && !strcmp(k->language, "triton")) ? "Triton"
                       : k                                                        ? "HIP"
                       : mk->asm_code_object                                      ? "ASM"
                                                                                  : "?";
    kw_buf_printf(o, "</td><td>%s</td><td>", lang);
    for (size_t a = 0; k && a < k->archs.n; a++) {
        kw_buf_puts(o, a ? " " : "");
        kw_html_esc(o, k->archs.v[a].arch);
    }
    if (!k)
        kw_buf_puts(o, mk->asm_code_object ? "(code object)" : "no device record");
    kw_buf_puts(o, "</td>");
    for (int i = KW_IPAGE_VGPR; i < KW_IPAGE_OCC; i++)
        kw_hi_num(o, row, i);
    /* occupancy: per arch with its limiter, data-v the smallest */
    kw_buf_puts(o, "<td class=\"n\"");
    if (row->best[KW_IPAGE_OCC] >= 0)
        kw_buf_printf(o, " data-v=\"%lld\"", row->best[KW_IPAGE_OCC]);
    kw_buf_puts(o, ">");
    for (size_t a = 0; a < row->narchs; a++) {
        kw_buf_puts(o, a ? " / " : "");
        if (row->res[a][KW_IPAGE_OCC] < 0) {
            kw_buf_puts(o, "-");
            continue;
        }
        kw_buf_printf(o, "%lld", row->res[a][KW_IPAGE_OCC]);
        const char *limiter = k->archs.v[a].resources.occupancy_limiter;
        if (limiter) {
            kw_buf_puts(o, " (");
            kw_html_esc(o, limiter);
            kw_buf_puts(o, ")");
        }
    }
    kw_buf_printf(o, "</td><td data-v=\"%zu\">", mk->launches.n);
    for (size_t l = 0; l < mk->launches.n; l++) {
        const kw_launch *la = r->m->launches.v[mk->launches.v[l]].l;
        kw_buf_puts(o, l ? "<br><code>" : "<code>");
        kw_html_esc(o, kw_r_path(r, la->location.file));
        kw_buf_printf(o, ":%d</code>", la->location.line);
    }
    kw_buf_puts(o, "</td>");
    kw_hi_entries(row, o);
    kw_buf_puts(o, "</tr>\n");
}

void kw_html_index_from(kw_render *r, const kw_ipage *p, kw_buf *out) {
    kw_buf_puts(out, "<p>Generated by kwalk from <code>");
    kw_html_esc(out, kw_r_path(r, r->o->db_path));
    kw_buf_puts(out, "</code>: ");
    kw_render_index_counts(p, out, true);
}

void kw_html_index_head(kw_buf *out, const kw_html_col *cols, size_t n) {
    for (size_t c = 0; c < n; c++)
        kw_buf_printf(out, "<th data-key=\"%s\" data-num=\"%d\">%s</th>", cols[c].key,
                      cols[c].num ? 1 : 0, cols[c].title);
}

void kw_html_index(kw_render *r, const kw_ipage *p, kw_buf *out) {
    kw_arena_free(&r->scratch);
    kw_arena_init(&r->scratch);
    const kw_model *m = r->m;
    kw_html_open(out, "Kernel instantiations");
    kw_buf_puts(out, "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a> · <a "
                     "href=\"map.html\">Map</a></nav>\n<main>\n<h1>Kernel instantiations</h1>\n");
    kw_html_index_from(r, p, out);
    kw_buf_puts(out, ". Click a column header to sort "
                     "(again to reverse; <a href=\"#\" id=\"kw-grouped\">back to grouped by "
                     "template</a>); type to filter. The map: kernel, Python entry, C++ entry, "
                     "launch site, device code: <a href=\"map.html\">map.html</a>.</p>\n");
    kw_buf_puts(out, "<input id=\"kw-q\" type=\"search\" placeholder=\"Filter: name, template "
                     "argument, arch, file...\" autofocus> <span id=\"kw-count\"></span>\n"
                     "<table id=\"kw-idx\"><thead><tr>");
    kw_html_index_head(out, kw_cols, KW_NCOLS);
    kw_buf_puts(out, "</tr></thead>\n<tbody>\n");
    for (size_t g = 0; g < p->groups.n; g++) {
        const kw_ipage_group *pg = &p->groups.v[g];
        const kw_mgroup *grp = &m->groups.v[pg->group];
        const kw_mkernel *first = &m->kernels.v[grp->kernels.v[0]];
        kw_buf_printf(out, "<tr class=\"kw-g\" data-g=\"%zu\"><td colspan=\"%d\"><code>", g,
                      (int)KW_NCOLS);
        kw_html_esc(out, grp->key);
        if (grp->runs) { /* a trampoline: the kernel struct it runs */
            kw_buf_puts(out, "</code> running <code>");
            kw_html_esc(out, grp->runs);
        }
        kw_buf_printf(out, "</code> · %zu instantiation%s", grp->kernels.n,
                      grp->kernels.n == 1 ? "" : "s");
        if (first->k && first->k->location.file) {
            kw_buf_puts(out, " · ");
            kw_html_esc(out, pg->provider);
            kw_buf_puts(out, " · <code>");
            kw_html_esc(out, kw_r_path(r, first->k->location.file));
            kw_buf_printf(out, ":%d</code>", first->k->location.line);
        }
        kw_buf_puts(out, "</td></tr>\n");
        for (size_t i = 0; i < pg->rows.n; i++)
            kw_hi_row(r, g, &pg->rows.v[i], out);
        /* keep the scratch arena small over thousands of kernels */
        kw_arena_free(&r->scratch);
        kw_arena_init(&r->scratch);
    }
    kw_buf_puts(out, "</tbody></table>\n</main>\n<script src=\"" KW_HTML_INDEX_JS "\"></script>\n");
    kw_html_close(out);
}
