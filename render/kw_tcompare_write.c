/* kw_tcompare_write.c: writes the comparison of two Triton specializations
 * (kw_tcompare_write.h) as Markdown: a header naming both (hash, arch, cache
 * folder), then a table per section, rows A | B | changed ("yes" where they
 * differ); the instruction classes neither uses are left out. Every input
 * is a code span or kw_md_safe text (docs/security.md). */
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_tcompare_write.h"

static void kw_tcw_side(kw_buf *b, const char *label, const kw_kernel *k, const kw_kernel_arch *x) {
    kw_buf_printf(b, "- %s: ", label);
    kw_md_code(b, k->triton->hash ? k->triton->hash : k->symbol, KW_MD_TEXT);
    kw_buf_puts(b, ", ");
    kw_md_code(b, x ? x->arch : "no arch", KW_MD_TEXT);
    if (k->triton->cache_dir) {
        kw_buf_puts(b, ", cache folder ");
        kw_md_code(b, k->triton->cache_dir, KW_MD_TEXT);
    }
    kw_buf_puts(b, "\n");
}

/* A value in a cell: a code span, "(empty)" for an empty string. */
static void kw_tcw_value(kw_buf *b, const char *v) {
    if (*v)
        kw_md_code(b, v, KW_MD_CELL);
    else
        kw_buf_puts(b, "(empty)");
}

static void kw_tcw_table(kw_buf *b, const char *title, const char *what, const kw_tcmp_rows *rows,
                         bool skip_zero) {
    kw_buf_printf(b, "## %s\n\n", title);
    size_t shown = 0, changed = 0;
    for (size_t i = 0; i < rows->n; i++)
        if (!(skip_zero && !strcmp(rows->v[i].a, "0") && !strcmp(rows->v[i].b, "0")))
            shown++, changed += rows->v[i].changed;
    if (!shown) {
        kw_buf_printf(b, "Neither has %s.\n\n", what);
        return;
    }
    kw_buf_printf(b, "%zu of %zu differ.\n\n", changed, shown);
    static const char *const titles[] = {"", "A", "B", "Changed"};
    kw_md_table t;
    kw_md_table_open(&t, b, false, 4, titles, NULL);
    for (size_t i = 0; i < rows->n; i++) {
        const kw_tcmp_row *r = &rows->v[i];
        if (skip_zero && !strcmp(r->a, "0") && !strcmp(r->b, "0"))
            continue;
        kw_md_table_row(&t);
        kw_md_table_cell(&t);
        kw_md_code(b, r->key, KW_MD_CELL);
        kw_md_table_cell(&t);
        kw_tcw_value(b, r->a);
        kw_md_table_cell(&t);
        kw_tcw_value(b, r->b);
        kw_md_table_cell(&t);
        kw_buf_puts(b, r->changed ? "yes" : "");
    }
    kw_md_table_close(&t);
    kw_buf_puts(b, "\n");
}

void kw_tcompare_write(kw_buf *b, const kw_tcmp *c) {
    kw_buf_puts(b, "# Comparison of ");
    kw_md_code(b, c->a->name ? c->a->name : c->a->symbol, KW_MD_TEXT);
    kw_buf_puts(b, ": two specializations\n\n");
    if (c->a->location.file) {
        kw_buf_puts(b, "> Language: Triton | File: ");
        kw_md_safe(b, c->a->location.file, KW_MD_TEXT);
        kw_buf_printf(b, ":%d\n\n", c->a->location.line);
    }
    kw_tcw_side(b, "A", c->a, c->aa);
    kw_tcw_side(b, "B", c->b, c->ba);
    kw_buf_puts(b, "\nWhat the compile was given (the constexprs, the options of `NAME.json`) and "
                   "what it changed: the code object's resources and instruction classes (the "
                   "first arch of each), the TTGIR's layouts.\n\n");
    kw_tcw_table(b, "Constexprs", "constexprs", &c->constexprs, false);
    kw_tcw_table(b, "Options", "options", &c->options, false);
    kw_tcw_table(b, "Resources", "code-object facts (index with --triton-cache)", &c->resources,
                 false);
    kw_tcw_table(b, "Instruction mix", "an ISA listing", &c->classes, true);
    kw_tcw_table(b, "Layouts (TTGIR)", "TTGIR layouts", &c->layouts, false);
}
