/* kw_kseed_write.c: writing the seed's known-kernel table (kw_kseed_write.h)
 * through kw_md.h. */
#include "render/kw_kseed_write.h"

#include <stdio.h>

#include "common/kw_fs.h"
#include "model/kw_python_entries.h"
#include "render/kw_md.h"

static void kw_kseed_loc(kw_buf *b, const char *root, const kw_loc *l) {
    char line[32] = "";
    if (l->line > 0)
        snprintf(line, sizeof line, ":%d", l->line);
    kw_buf *t = b;
    kw_buf s;
    kw_buf_init(&s);
    kw_buf_puts(&s, kw_fs_rel(root, l->file));
    kw_buf_puts(&s, line);
    kw_md_code(t, s.oom || !s.ptr ? "?" : s.ptr, KW_MD_CELL);
    kw_buf_free(&s);
}

void kw_kseed_write(const kw_kseed *s, const char *root, kw_buf *out) {
    static const char *const titles[] = {"Kernel", "Host Entry", "Device Code"};
    kw_md_table t;
    kw_md_table_open(&t, out, false, 3, titles, NULL);
    for (size_t i = 0; i < s->rows.n; i++) {
        const kw_kseed_row *r = &s->rows.v[i];
        kw_md_table_row(&t);
        kw_md_table_cell(&t);
        kw_md_code(out, r->query, KW_MD_CELL);
        kw_md_table_cell(&t);
        if (r->why) {
            kw_md_text(out, r->why, KW_MD_CELL);
            kw_md_table_cell(&t);
            continue;
        }
        for (size_t h = 0; h < r->host.n; h++) {
            if (h)
                kw_md_text(out, ", ", KW_MD_CELL);
            if (!r->host_is_python)
                kw_md_text(out, "C++ ", KW_MD_CELL);
            kw_md_code(out, r->host.v[h].what, KW_MD_CELL);
            kw_md_text(out, " ", KW_MD_CELL);
            if (r->host.v[h].loc.file)
                kw_kseed_loc(out, root, &r->host.v[h].loc);
            const kw_py_op *op = r->host.v[h].op;
            for (size_t c = 0; op && c < op->callers.n; c++) {
                const kw_py_caller *pc = &op->callers.v[c];
                kw_loc at = {0};
                at.file = pc->file;
                at.line = pc->def_line;
                kw_md_text(out, c ? ", " : ", called by ", KW_MD_CELL);
                kw_md_code(out, pc->name, KW_MD_CELL);
                kw_md_text(out, " ", KW_MD_CELL);
                kw_kseed_loc(out, root, &at);
            }
        }
        if (!r->host.n)
            kw_md_text(out, "-", KW_MD_CELL);
        kw_md_table_cell(&t);
        for (size_t d = 0; d < r->device.n; d++) {
            if (d)
                kw_md_text(out, ", ", KW_MD_CELL);
            kw_kseed_loc(out, root, &r->device.v[d].loc);
        }
        if (r->is_asm)
            kw_md_text(out, " (ASM)", KW_MD_CELL);
        if (!r->device.n)
            kw_md_text(out, "-", KW_MD_CELL);
    }
    kw_md_table_close(&t);
}
