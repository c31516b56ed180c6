/* kw_kseed_write.c: writing the seed's known-kernel table (kw_kseed_write.h)
 * as a table of the page's printer (kw_r_table), its text through kw_md.h. */
#include "render/kw_kseed_write.h"

#include <stdio.h>

#include "model/kw_python_entries.h"
#include "render/kw_md.h"

static void kw_kseed_loc(kw_render *r, const kw_loc *l) {
    char line[32] = "";
    if (l->line > 0)
        snprintf(line, sizeof line, ":%d", l->line);
    const char *s = kw_arena_printf(&r->scratch, "%s%s", kw_r_path(r, l->file), line);
    kw_md_code(r->out, s ? s : "?", r->in);
}

/* The row's host entries: each with its callers. */
static void kw_kseed_hosts(kw_render *r, const kw_kseed_row *row) {
    for (size_t h = 0; h < row->host.n; h++) {
        if (h)
            kw_md_text(r->out, ", ", r->in);
        if (!row->host_is_python)
            kw_md_text(r->out, "C++ ", r->in);
        kw_md_code(r->out, row->host.v[h].what, r->in);
        kw_md_text(r->out, " ", r->in);
        if (row->host.v[h].loc.file)
            kw_kseed_loc(r, &row->host.v[h].loc);
        const kw_py_op *op = row->host.v[h].op;
        for (size_t c = 0; op && c < op->callers.n; c++) {
            const kw_py_caller *pc = &op->callers.v[c];
            kw_loc at = {0};
            at.file = pc->file;
            at.line = pc->def_line;
            kw_md_text(r->out, c ? ", " : ", called by ", r->in);
            kw_md_code(r->out, pc->name, r->in);
            kw_md_text(r->out, " ", r->in);
            kw_kseed_loc(r, &at);
        }
    }
    if (!row->host.n)
        kw_md_text(r->out, "-", r->in);
}

void kw_kseed_write(kw_render *r, const kw_kseed *s) {
    static const char *const titles[] = {"Kernel", "Host Entry", "Device Code"};
    kw_r_table(r, 3, titles);
    for (size_t i = 0; i < s->rows.n; i++) {
        const kw_kseed_row *row = &s->rows.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(r->out, row->query, r->in);
        kw_r_cell(r);
        if (row->why) {
            kw_md_text(r->out, row->why, r->in);
            kw_r_cell(r);
            continue;
        }
        kw_kseed_hosts(r, row);
        kw_r_cell(r);
        for (size_t d = 0; d < row->device.n; d++) {
            if (d)
                kw_md_text(r->out, ", ", r->in);
            kw_kseed_loc(r, &row->device.v[d].loc);
        }
        if (row->is_asm)
            kw_md_text(r->out, " (ASM)", r->in);
        if (!row->device.n)
            kw_md_text(r->out, "-", r->in);
    }
    kw_r_table_end(r);
}
