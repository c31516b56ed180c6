/* kw_html_kindex.c: the site's first level, the kernel (docs/site.md):
 * DIR/index.html, a row per kernel (model/kw_kfamily.h: a template, the
 * struct a trampoline runs, an ASM table, a Triton function, a kernel
 * alone) with its kind, instantiation count, archs, definition and launch
 * sites, linking to the kernel's page (kw_html_kpage.c), which the same run
 * writes here; every instantiation in one table is DIR/instantiations.html
 * (kw_html_index.c). */
#include <stdio.h>
#include <string.h>

#include "common/kw_fs.h"
#include "model/kw_kpage.h"
#include "model/kw_kpage_src.h"
#include "model/kw_model_pages.h"
#include "render/kw_html.h"

/* The archs of the family's instantiations, each once, in first-seen order. */
static void kw_hx_archs(const kw_model *m, const kw_kfam *f, kw_buf *o) {
    KW_ARRAY(const char *) seen = {0};
    kw_arena a;
    kw_arena_init(&a);
    for (size_t i = 0; i < f->kernels.n; i++) {
        const kw_kernel *k = m->kernels.v[f->kernels.v[i]].k;
        for (size_t j = 0; k && j < k->archs.n; j++) {
            size_t before = seen.n;
            KW_STRSET_ADD(&a, seen, k->archs.v[j].arch, strlen(k->archs.v[j].arch));
            if (seen.n > before) {
                kw_buf_puts(o, before ? " " : "");
                kw_html_esc(o, k->archs.v[j].arch);
            }
        }
    }
    if (!seen.n)
        kw_buf_puts(o, m->kernels.v[f->kernels.v[0]].asm_code_object ? "(code object)"
                                                                      : "no device record");
    kw_arena_free(&a);
}

/* The family's launch sites, each once: data-v their number. */
static void kw_hx_launches(kw_render *r, const kw_kfam *f, kw_buf *o) {
    const kw_model *m = r->m;
    KW_ARRAY(const char *) seen = {0};
    kw_buf cell;
    kw_buf_init(&cell);
    for (size_t i = 0; i < f->kernels.n; i++) {
        const kw_mkernel *mk = &m->kernels.v[f->kernels.v[i]];
        for (size_t l = 0; l < mk->launches.n; l++) {
            const kw_launch *la = m->launches.v[mk->launches.v[l]].l;
            const char *s = kw_arena_printf(&r->scratch, "%s:%d", kw_r_path(r, la->location.file),
                                            la->location.line);
            size_t before = seen.n;
            if (!s || !KW_STRSET_ADD(&r->scratch, seen, s, strlen(s)) || seen.n == before)
                continue;
            kw_buf_puts(&cell, before ? "<br><code>" : "<code>");
            kw_html_esc(&cell, s);
            kw_buf_puts(&cell, "</code>");
        }
    }
    kw_buf_printf(o, "<td data-v=\"%zu\">", seen.n);
    kw_buf_append(o, cell.ptr ? cell.ptr : "", cell.len);
    kw_buf_puts(o, "</td>");
    if (cell.oom)
        o->oom = true;
    kw_buf_free(&cell);
}

static void kw_hx_row(kw_render *r, size_t i, const kw_kfam *f, const char *page, kw_buf *o) {
    const kw_mkernel *first = &r->m->kernels.v[f->kernels.v[0]];
    kw_buf_printf(o, "<tr data-i=\"%zu\" data-g=\"0\" data-sym=\"", i);
    kw_html_esc(o, f->name);
    kw_buf_puts(o, "\"><td><a href=\"");
    kw_html_esc(o, page);
    kw_buf_puts(o, "\"><code>");
    kw_html_esc(o, kw_r_name(r, f->name));
    kw_buf_printf(o, "</code></a></td><td>%s", kw_kfam_kind_name(f->kind));
    if (f->via) {
        kw_buf_puts(o, " through <code>");
        kw_html_esc(o, f->via);
        kw_buf_puts(o, "</code>");
    }
    kw_buf_printf(o, "</td><td class=\"n\" data-v=\"%zu\">%zu", f->kernels.n, f->kernels.n);
    if (f->kernels.n == 1 && first->page) { /* its walkthrough, one click away too */
        kw_buf_puts(o, " (<a href=\"");
        kw_html_esc(o, first->page);
        kw_buf_puts(o, "\">walkthrough</a>)");
    }
    kw_buf_puts(o, "</td><td>");
    kw_hx_archs(r->m, f, o);
    kw_buf_puts(o, "</td><td>");
    const kw_loc *def = first->k ? (first->k->functor_location.file ? &first->k->functor_location
                                                                    : &first->k->location)
                                 : NULL;
    if (def && def->file) {
        kw_buf_puts(o, "<code>");
        kw_html_esc(o, kw_r_path(r, def->file));
        kw_buf_printf(o, ":%d</code>", def->line);
    } else if (first->asm_code_object) {
        kw_buf_puts(o, "precompiled, e.g. <code>");
        kw_html_esc(o, kw_r_path(r, first->asm_code_object));
        kw_buf_puts(o, "</code>");
    } else {
        kw_buf_puts(o, "-");
    }
    kw_buf_puts(o, "</td>");
    kw_hx_launches(r, f, o);
    kw_buf_puts(o, "</tr>\n");
}

/* index.html's columns (kwalk-index.js sorts by them). */
static const kw_html_col kw_hx_cols[] = {
    {"name", "Kernel", false},      {"kind", "Kind", false},       {"count", "Instantiations", true},
    {"archs", "Archs", false},      {"def", "Defined at", false}, {"launches", "Launch sites", true},
};

static void kw_hx_index(kw_render *r, const kw_ipage *ip, const kw_kfams *f,
                        const char *const *pages, kw_buf *out) {
    kw_html_open(out, "Kernels");
    kw_buf_puts(out, "<main>\n<h1>Kernels</h1>\n");
    kw_html_index_from(r, ip, out);
    kw_buf_printf(out, "; %zu kernel%s as people name them (a template's instantiations, the "
                       "struct a trampoline runs, an ASM table's kernels each one). A row per "
                       "kernel, linking to its page: its dispatch "
                       "table, every instantiation with the conditions that select it, and a "
                       "shape box. Every instantiation in one table: <a href=\"" KW_HTML_INSTANTIATIONS
                       "\">" KW_HTML_INSTANTIATIONS "</a>; the map (kernel, Python entry, C++ "
                       "entry, launch site, device code): <a href=\"map.html\">map.html</a>. "
                       "Click a column header to sort (again to reverse; <a href=\"#\" "
                       "id=\"kw-grouped\">back to the order by name</a>); type to filter.</p>\n",
                  f->v.n, f->v.n == 1 ? "" : "s");
    kw_buf_puts(out, "<input id=\"kw-q\" type=\"search\" placeholder=\"Filter: name, arch, "
                     "file...\" autofocus> <span id=\"kw-count\"></span>\n<table id=\"kw-idx\" "
                     "data-noun=\"kernels\"><thead><tr>");
    kw_html_index_head(out, kw_hx_cols, sizeof(kw_hx_cols) / sizeof(kw_hx_cols[0]));
    kw_buf_puts(out, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < f->v.n; i++) {
        kw_hx_row(r, i, &f->v.v[i], pages[i], out);
        kw_arena_free(&r->scratch); /* small over thousands of kernels */
        kw_arena_init(&r->scratch);
    }
    kw_buf_puts(out, "</tbody></table>\n</main>\n<script src=\"" KW_HTML_INDEX_JS "\"></script>\n");
    kw_html_close(out);
}

/* One kernel's page into DIR/page. */
static kw_status kw_hx_kpage(kw_render *r, const kw_kfam *f, const char *dir, const char *page,
                             kw_buf *b, kw_err *err) {
    kw_arena a;
    kw_arena_init(&a);
    kw_kpage p;
    kw_buf_reset(b);
    kw_kpage_src src;
    kw_status st = kw_kpage_build(&p, r->m, f, f->kernels.v, f->kernels.n, &a, err);
    if (st == KW_OK && kw_kpage_src_build(&src, &p, r->m, r->srcs, &a) != KW_OK)
        st = kw_fail(err, "out of memory");
    p.src = &src;
    if (st == KW_OK)
        st = kw_html_kpage(r, &p, b, err);
    char *path = st == KW_OK ? kw_arena_printf(&a, "%s/%s", dir, page) : NULL;
    if (st == KW_OK && !path)
        st = kw_fail(err, "out of memory");
    if (st == KW_OK)
        st = kw_fs_write_atomic(path, b->ptr ? b->ptr : "", b->len, err);
    kw_arena_free(&a);
    kw_arena_free(&r->scratch);
    kw_arena_init(&r->scratch);
    return st;
}

kw_status kw_html_kernels(kw_render *r, const kw_ipage *ip, const char *dir, kw_arena *a,
                          const char ***pages, size_t *npages, kw_err *err) {
    kw_kfams f;
    *npages = 0;
    if (kw_kfams_build(&f, r->m, a, err) != KW_OK ||
        kw_model_pages_kernels(&f, a, pages, err) != KW_OK)
        return KW_ERR;
    kw_buf b;
    kw_buf_init(&b);
    kw_status st = KW_OK;
    for (size_t i = 0; i < f.v.n && st == KW_OK; i++)
        st = kw_hx_kpage(r, &f.v.v[i], dir, (*pages)[i], &b, err);
    if (st == KW_OK) {
        kw_buf_reset(&b);
        kw_hx_index(r, ip, &f, *pages, &b);
        char *path = kw_arena_printf(a, "%s/index.html", dir);
        st = b.oom || !path ? kw_fail(err, "out of memory")
                            : kw_fs_write_atomic(path, b.ptr, b.len, err);
    }
    kw_buf_free(&b);
    *npages = f.v.n;
    return st;
}
