/* kw_kpage_write.c: writing a kernel's page and dispatch table
 * (kw_kpage_write.h) in the page's printer: blocks through kw_r.c, inline
 * text through kw_md.h, so one set of calls gives the Markdown of `kwalk
 * render NAME` and the HTML of the site's kernel page. */
#include "render/kw_kpage_write.h"

#include <stdio.h>
#include <string.h>

#include "common/kw_esc.h"
#include "common/kw_fs.h"
#include "common/kw_num.h"
#include "model/kw_kpage_src.h"
#include "render/kw_kpage_shared.h"
#include "render/kw_md.h"

static const char *kw_kverdict_word(kw_kverdict v) {
    return v == KW_KV_HOLDS ? "selected" : v == KW_KV_OPEN ? "candidate" : "ruled out";
}

static void kw_kw_head(kw_render *r, const kw_kpage *p, const char *query) {
    const kw_kfam *f = p->fam;
    const kw_mkernel *first = &r->m->kernels.v[f->kernels.v[0]];
    kw_r_h(r, 1);
    kw_r_t(r, "Kernel ");
    kw_r_c(r, f->name);
    kw_r_h_end(r);
    kw_r_p(r);
    kw_r_tf(r, "Kind: %s; %zu instantiation%s in this build", kw_kfam_kind_name(f->kind),
            f->kernels.n, f->kernels.n == 1 ? "" : "s");
    if (f->via) {
        kw_r_t(r, ", each launched through ");
        kw_r_c(r, f->via);
    }
    kw_r_t(r, ". ");
    const kw_loc *def = first->k ? (first->k->functor_location.file ? &first->k->functor_location
                                                                    : &first->k->location)
                                 : NULL;
    if (def && def->file) {
        kw_r_t(r, "Defined at ");
        kw_kpage_shared_loc(r, def, kw_r_prose_in(r));
        kw_r_t(r, ". ");
    } else if (first->asm_code_object) {
        kw_r_t(r, "Precompiled code objects, e.g. ");
        kw_r_c(r, kw_r_path(r, first->asm_code_object));
        kw_r_t(r, ". ");
    }
    if (p->subset && query) {
        kw_r_tf(r, "%zu of them match ", p->rows.n);
        kw_r_c(r, query);
        kw_r_t(r, " and are listed.");
    }
    kw_r_p_end(r);
}

/* "N=V,..." of --shape as the page prints it, in scratch (a whole number
 * in full, kw_num_value: the site's box reads it back). */
static const char *kw_kw_shape_text(kw_render *r, const kw_shape *s) {
    const char *t = "";
    for (size_t i = 0; s && t && i < s->v.n; i++) {
        char v[32];
        kw_num_value_to(v, sizeof v, s->v.v[i].value);
        t = kw_arena_printf(&r->scratch, "%s%s%s=%s", t, i ? "," : "", s->v.v[i].name,
                            s->v.v[i].text ? s->v.v[i].text : v);
    }
    return t ? t : "";
}

/* The site's shape box: the page script (kwalk-kernel.js) evaluates the
 * page's conditions for what is typed and marks the rows; it starts from
 * the site's --shape. */
static void kw_kw_shape_box(kw_render *r, const kw_kpage *p) {
    const char *s = kw_kw_shape_text(r, p->shape);
    kw_buf_puts(r->out, "<h2>For a shape</h2>\n<p><label for=\"kw-shape-in\">Bind the names of "
                        "the dispatch conditions as <code>kwalk render NAME --shape</code> "
                        "does (C's operators on integers: arithmetic, comparisons, bitwise, "
                        "<code>&amp;&amp;</code>, <code>||</code>, <code>!</code>, "
                        "<code>?:</code>):</label> <input id=\"kw-shape-in\" "
                        "type=\"search\" size=\"60\" placeholder=\"name=value,name=value\" "
                        "value=\"");
    kw_esc_html(r->out, s, strlen(s), true);
    kw_buf_puts(r->out, "\"></p>\n<div id=\"kw-shape-out\"></div>\n");
}

/* The ways ruled out, though open, as unreachable: each contradiction. */
static void kw_kw_unreach(kw_render *r, const kw_kpage *p) {
    if (!p->unreach.n)
        return;
    kw_kpage_shared_list(r, "Ruled out where open, as unreachable (a way that needs a condition "
                            "and its negation runs only if a name in it changes between the "
                            "two tests):");
    for (size_t i = 0; i < p->unreach.n; i++) {
        const kw_kway *w = p->unreach.v[i];
        kw_kpage_shared_at(r, w->contra->text, &w->contra->loc);
        kw_r_t(r, ": contradicts ");
        kw_r_c(r, w->contra_of->text);
        kw_r_t(r, " at ");
        kw_kpage_shared_loc(r, &w->contra_of->loc, kw_r_prose_in(r));
    }
    kw_r_list_end(r);
    kw_r_gap(r);
}

static void kw_kw_shape(kw_render *r, const kw_kpage *p) {
    if (kw_r_html(r)) {
        kw_kw_shape_box(r, p);
        return;
    }
    if (!p->shape)
        return;
    kw_r_h(r, 2);
    kw_r_t(r, "For --shape ");
    kw_r_t(r, kw_kw_shape_text(r, p->shape));
    kw_r_h_end(r);
    kw_r_ptf(r,
             "%zu instantiation%s selected (every dispatch condition on a way to it holds), "
             "%zu candidate%s (none fails, some could not be evaluated), %zu ruled out.",
             p->nselected, p->nselected == 1 ? "" : "s", p->ncandidates,
             p->ncandidates == 1 ? "" : "s", p->rows.n - p->nselected - p->ncandidates);
    kw_r_list(r);
    for (size_t i = 0; i < p->rows.n; i++) {
        if (p->rows.v[i].v != KW_KV_HOLDS && p->rows.v[i].v != KW_KV_OPEN)
            continue;
        kw_r_item(r, 0);
        kw_r_tf(r, "%s: ", kw_kverdict_word(p->rows.v[i].v));
        kw_r_c(r, r->m->kernels.v[p->rows.v[i].kernel].name);
    }
    kw_r_list_end(r);
    if (p->nselected + p->ncandidates)
        kw_r_gap(r);
    if (p->open.n) {
        kw_kpage_shared_list(r, "Not evaluated (bind their names with --shape to decide):");
        for (size_t i = 0; i < p->open.n; i++) {
            kw_kpage_shared_at(r, p->open.v[i]->text, &p->open.v[i]->loc);
            if (p->open.v[i]->why) {
                kw_r_t(r, ": ");
                kw_r_sp(r, p->open.v[i]->why);
            }
        }
        kw_r_list_end(r);
        kw_r_gap(r);
    }
    kw_kw_unreach(r, p);
}

static void kw_kw_resources(kw_render *r, const kw_mkernel *mk, kw_md_in in) {
    bool any = false;
    for (size_t i = 0; mk->k && i < mk->k->archs.n; i++) {
        const kw_kernel_arch *ar = &mk->k->archs.v[i];
        const kw_isa_resources *res = &ar->resources;
        if (res->vgpr < 0 && res->sgpr < 0)
            continue;
        char *s = kw_arena_printf(
            &r->scratch, "%s%s: %lld VGPR, %lld AGPR, %lld SGPR, %lld B LDS, %lld waves/SIMD",
            any ? "; " : "", ar->arch, res->vgpr, res->agpr < 0 ? 0 : res->agpr, res->sgpr,
            res->lds_bytes < 0 ? 0 : res->lds_bytes, res->occupancy);
        kw_md_text(r->out, s ? s : "?", in);
        any = true;
    }
    if (!any)
        kw_md_text(r->out, mk->is_asm ? "(in its code object: see its page)" : "-", in);
}

/* The row's instruction mix per arch (archs with the same mix joined). */
static void kw_kw_mix(kw_render *r, const kw_krow *row, kw_md_in in) {
    for (size_t i = 0; i < row->mix.n; i++) {
        const kw_isa_mix *m = &row->mix.v[i].m;
        if (i + 1 < row->mix.n && !memcmp(m, &row->mix.v[i + 1].m, sizeof(*m))) {
            kw_md_text(r->out, row->mix.v[i].arch, in);
            kw_md_text(r->out, ", ", in);
            continue;
        }
        char *s = kw_arena_printf(
            &r->scratch,
            "%s: MFMA %lld, VALU %lld, SALU %lld, VMEM %lld, LDS %lld, branch %lld (of %lld)%s",
            row->mix.v[i].arch, m->mfma, m->valu, m->salu, m->vmem, m->lds, m->branch, m->insns,
            i + 1 < row->mix.n ? "; " : "");
        kw_md_text(r->out, s ? s : "?", in);
    }
    if (!row->mix.n)
        kw_md_text(r->out, "-", in);
}

static void kw_kw_way(kw_render *r, const kw_kway *way, kw_md_in in) {
    if (way->entry != KW_NONE) {
        kw_md_code(r->out, r->m->entries.v[way->entry].e->name, in);
        kw_md_text(r->out, " → ", in);
    }
    kw_kpage_shared_loc(r, &way->launch->l->location, in);
    if (way->v != KW_KV_NONE) {
        kw_md_text(r->out,
                   way->v == KW_KV_HOLDS   ? " (holds)"
                   : way->v == KW_KV_FAILS ? " (fails)"
                                           : " (open)",
                   in);
    }
}

/* The group's ways, as a list: the conditions of each. */
static void kw_kw_ways(kw_render *r, const kw_krow *first) {
    if (!first->ways.n) {
        kw_r_para(r, "Emitted, but no recorded way runs them: their launches sit under "
                     "conditions constant false in these instantiations, or nothing "
                     "launches them.");
        return;
    }
    kw_kpage_shared_list(r, "Selected where:");
    for (size_t i = 0; i < first->ways.n; i++) {
        const kw_kway *way = &first->ways.v[i];
        kw_r_item(r, 0);
        if (!way->conds.n)
            kw_r_t(r, "always (no dispatch condition)");
        for (size_t c = 0; c < way->conds.n; c++) {
            if (c)
                kw_r_t(r, " && ");
            kw_r_c(r, way->conds.v[c].text);
        }
        kw_r_t(r, ", on the way ");
        kw_kw_way(r, way, kw_r_prose_in(r));
    }
    kw_r_list_end(r);
    kw_r_gap(r);
}

/* In HTML, text as code in a link to the instantiation's page (data-r the
 * row the shape box marks). */
static void kw_kw_link(kw_render *r, const kw_mkernel *mk, size_t row, const char *text) {
    kw_buf_puts(r->out, "<a href=\"");
    if (mk->page)
        kw_esc_html(r->out, mk->page, strlen(mk->page), true);
    kw_buf_printf(r->out, "\" data-r=\"%zu\">", row);
    kw_md_code(r->out, text, r->in);
    kw_buf_puts(r->out, "</a>");
}

/* The instantiation's cell: its name and page (in HTML a link to it). */
static void kw_kw_name(kw_render *r, const kw_mkernel *mk, size_t row) {
    const char *title = mk->title ? mk->title : mk->name;
    if (kw_r_html(r)) {
        kw_kw_link(r, mk, row, title);
        return;
    }
    kw_md_code(r->out, title, r->in);
    if (mk->page) {
        kw_md_text(r->out, " (", r->in);
        kw_md_code(r->out, mk->page, r->in);
        kw_md_text(r->out, ")", r->in);
    }
}

/* The row's --shape cell, where the table has one (with --shape; in HTML
 * always, for the shape box): its verdict, or empty. */
static void kw_kw_verdict(kw_render *r, const kw_kpage *p, const kw_krow *row, bool html) {
    if (!p->shape && !html)
        return;
    kw_r_cell(r);
    if (p->shape)
        kw_md_text(r->out, kw_kverdict_word(row->v), r->in);
}

static void kw_kw_group(kw_render *r, const kw_kpage *p, size_t g, size_t nth) {
    const kw_krow *first = NULL;
    size_t n = 0;
    for (size_t i = 0; i < p->rows.n; i++)
        if (p->rows.v[i].group == g && (n++, !first))
            first = &p->rows.v[i];
    kw_r_h(r, 3);
    kw_r_tf(r, "Group %zu: %zu instantiation%s", nth, n, n == 1 ? "" : "s");
    kw_r_h_end(r);
    kw_kw_ways(r, first);
    bool html = kw_r_html(r);
    const char *const titles[] = {"Instantiation", "Symbol",          "Differs by",
                                  "Resources",     "Instruction mix", html ? "Shape" : "--shape"};
    kw_r_table(r, p->shape || html ? 6 : 5, titles);
    for (size_t i = 0; i < p->rows.n; i++) {
        const kw_krow *row = &p->rows.v[i];
        if (row->group != g)
            continue;
        const kw_mkernel *mk = &r->m->kernels.v[row->kernel];
        kw_r_row(r);
        kw_r_cell(r);
        kw_kw_name(r, mk, i);
        kw_r_cell(r);
        kw_md_code(r->out, mk->symbol, r->in);
        kw_r_cell(r);
        if (row->args)
            kw_md_code(r->out, row->args, r->in);
        else
            kw_md_text(r->out, "-", r->in);
        kw_r_cell(r);
        kw_kw_resources(r, mk, r->in);
        kw_r_cell(r);
        kw_kw_mix(r, row, r->in);
        kw_kw_verdict(r, p, row, html);
    }
    kw_r_table_end(r);
    kw_r_gap(r);
}

/* The template's definition, quoted once as an instantiation page quotes
 * it (numbered lines under a `// path:first-last` comment). */
static void kw_kw_quote(kw_render *r, const kw_kpage_src *s) {
    kw_buf text;
    kw_buf_init(&text);
    kw_buf_printf(&text, "// %s:%d-%d\n", kw_r_path(r, s->file), s->first, s->last);
    int w = snprintf(NULL, 0, "%d", s->last);
    for (int n = s->first; n <= s->last; n++) {
        const char *t;
        size_t len;
        if (!kw_src_line(s->f, n, &t, &len))
            break;
        kw_buf_printf(&text, "%*d | ", w, n);
        kw_buf_append(&text, t, len);
        kw_buf_putc(&text, '\n');
    }
    kw_r_fence(r, "cpp", kw_buf_str(&text));
    kw_buf_free(&text);
}

/* A parameter's types in the instantiations: the one they agree on, or
 * how many and the first few. */
static void kw_kw_ptypes(kw_render *r, const kw_kparam_src *q) {
    if (!q->types.n) {
        kw_md_text(r->out, "-", r->in);
        return;
    }
    if (q->types.n == 1) {
        kw_md_code(r->out, q->types.v[0], r->in);
        kw_md_text(r->out, " in every one", r->in);
        return;
    }
    char *s = kw_arena_printf(&r->scratch, "%zu types: ", q->types.n);
    kw_md_text(r->out, s ? s : "", r->in);
    for (size_t i = 0; i < q->types.n && i < 4; i++) {
        if (i)
            kw_md_text(r->out, ", ", r->in);
        kw_md_code(r->out, q->types.v[i], r->in);
    }
    if (q->types.n > 4)
        kw_md_text(r->out, ", ...", r->in);
}

/* What the kernel is, once for every instantiation: its source and its
 * parameters. */
static void kw_kw_source(kw_render *r, const kw_kpage *p) {
    const kw_kpage_src *s = p->src;
    if (!s || !s->file)
        return;
    kw_r_h(r, 2);
    kw_r_t(r, "The kernel's source");
    kw_r_h_end(r);
    if (!s->first) {
        kw_r_p(r);
        kw_r_t(r, "(Source not quoted: ");
        kw_r_s(r, kw_r_path(r, s->file));
        kw_r_t(r, ": ");
        kw_r_sp(r, s->why ? s->why : "not found");
        kw_r_t(r, ".)");
        kw_r_p_end(r);
        return;
    }
    kw_r_para(r, "The definition every instantiation compiles (its signature; the body "
                 "follows in the source):");
    kw_kw_quote(r, s);
    if (!s->params.n)
        return;
    kw_r_para(r, "Its parameters as the source writes them, and the types the "
                 "instantiations give them:");
    static const char *const head[] = {"#", "Parameter", "As written", "In the instantiations"};
    kw_r_table(r, 4, head);
    for (size_t i = 0; i < s->params.n; i++) {
        const kw_kparam_src *q = &s->params.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_plainf(r, "%zu", i + 1);
        kw_r_cell(r);
        kw_md_code(r->out, *q->name ? q->name : "(unnamed)", r->in);
        kw_r_cell(r);
        kw_md_code(r->out, q->written, r->in);
        kw_r_cell(r);
        kw_kw_ptypes(r, q);
    }
    kw_r_table_end(r);
    kw_r_gap(r);
}

/* A folded family (p->fold): the conditions every way needs once, a line
 * per group (its other conditions, its rows' template arguments), then
 * every instantiation by symbol under its group's number (in HTML linking
 * to its page, data-r the row the shape box marks). */
static void kw_kw_fold(kw_render *r, const kw_kpage *p) {
    bool html = kw_r_html(r);
    if (p->common.n) {
        kw_kpage_shared_list(r, "Every way to every instantiation needs:");
        for (size_t i = 0; i < p->common.n; i++) {
            kw_r_item(r, 0);
            kw_r_c(r, p->common.v[i]);
        }
        kw_r_list_end(r);
        kw_r_gap(r);
    }
    kw_r_h(r, 3);
    kw_r_t(r, "Groups by the conditions that select them");
    kw_r_h_end(r);
    kw_r_p(r);
    kw_r_t(r, "Each group's way: its entry point, then its conditions outermost first (the "
              "ways shared up to a condition written once); a group's line ends with its "
              "number, its instantiation count and their template arguments");
    for (size_t i = 0; i < p->differ.n; i++) {
        kw_r_t(r, i ? ", " : " (");
        kw_r_c(r, p->differ.v[i]);
    }
    kw_r_t(r, p->differ.n ? ")." : ".");
    kw_r_p_end(r);
    kw_r_list(r);
    for (size_t i = 0; i < p->tree.n; i++) {
        const kw_ktree *t = &p->tree.v[i];
        kw_r_item(r, (int)t->depth);
        if (t->entry)
            kw_r_t(r, "from ");
        kw_r_c(r, t->text);
        for (size_t j = 0; j < t->more.n; j++) {
            kw_r_t(r, t->entry && !j ? ": " : " && ");
            kw_r_c(r, t->more.v[j]);
        }
        if (t->contra) {
            kw_r_t(r, " (unreachable unless a name changes between the tests: contradicts ");
            kw_r_c(r, t->contra);
            kw_r_t(r, ")");
        }
        if (!t->group)
            continue;
        const kw_kgroup *k = &p->groups.v[t->group - 1];
        kw_r_tf(r, " → group %zu: %zu", t->group, k->n);
        if (*k->args) {
            kw_r_t(r, " ");
            kw_r_c(r, k->args);
        }
    }
    kw_r_list_end(r);
    kw_r_gap(r);
    kw_r_h(r, 3);
    kw_r_t(r, "Instantiations by group");
    kw_r_h_end(r);
    kw_r_para(r, html ? "Each links to its walkthrough."
                      : "Each one's walkthrough: kwalk render SYMBOL.");
    static const char *const it[] = {"Group", "Symbol", "--shape"};
    static const char *const ith[] = {"Group", "Symbol", "Shape"};
    kw_r_table(r, p->shape || html ? 3 : 2, html ? ith : it);
    for (size_t g = 0; g < p->groups.n; g++)
        for (size_t i = 0; i < p->rows.n; i++) {
            const kw_krow *row = &p->rows.v[i];
            if (row->group != g)
                continue;
            const kw_mkernel *mk = &r->m->kernels.v[row->kernel];
            kw_r_row(r);
            kw_r_cell(r);
            kw_r_plainf(r, "%zu", g + 1);
            kw_r_cell(r);
            if (html)
                kw_kw_link(r, mk, i, mk->symbol);
            else
                kw_md_code(r->out, mk->symbol, r->in);
            kw_kw_verdict(r, p, row, html);
        }
    kw_r_table_end(r);
    kw_r_gap(r);
}

void kw_kpage_write(kw_render *r, const kw_kpage *p, const char *query) {
    kw_kw_head(r, p, query);
    kw_kw_source(r, p);
    kw_kpage_shared_write(r, p);
    kw_kw_shape(r, p);
    kw_r_h(r, 2);
    kw_r_t(r, "Dispatch table");
    kw_r_h_end(r);
    kw_r_p(r);
    kw_r_tf(r,
            "%zu instantiation%s in %zu group%s: the instantiations of a group are "
            "selected by the same conditions, on the same ways from an entry point to a "
            "launch (a way's conditions are the guards of its calls and its launch, as "
            "the way needs them; loops and compile-time constants left out)",
            p->rows.n, p->rows.n == 1 ? "" : "s", p->ngroups, p->ngroups == 1 ? "" : "s");
    if (p->differ.n) {
        kw_r_t(r, "; they differ by ");
        for (size_t i = 0; i < p->differ.n; i++) {
            if (i)
                kw_r_t(r, ", ");
            kw_r_c(r, p->differ.v[i]);
        }
    }
    kw_r_t(r, ".");
    kw_r_p_end(r);
    if (p->fold) {
        kw_kw_fold(r, p);
        return;
    }
    for (size_t g = 0; g < p->ngroups; g++)
        kw_kw_group(r, p, g, g + 1);
}
