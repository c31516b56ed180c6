/* kw_r_python.c: the helpers sections 1 of HIP and Triton pages share for
 * the Python side read by python/kwalk_pyscan.py (declared in kw_render.h):
 * a chain of calls from the model's code as a numbered list, ending at the
 * op or at a Triton wrapper's launch, and the calls not resolved statically
 * that could lead to an op, with the others counted by reason. They write
 * into the kw_render context and call no section. */
#include <string.h>

#include "model/kw_python_chains.h"
#include "render/kw_md.h"
#include "render/kw_render.h"

/* The `if` tests of a step: ", when `a` and `b`". */
static void kw_r_python_conds(kw_render *r, const char *const *conds, size_t n) {
    for (size_t k = 0; k < n; k++) {
        kw_buf_puts(r->out, k ? " and " : ", when ");
        kw_md_code(r->out, conds[k], false);
    }
}

void kw_r_python_chain(kw_render *r, const kw_py_chain *c, const char *op_label,
                       const kw_py_launch *launch, const char *kernel) {
    kw_buf *o = r->out;
    kw_buf_puts(o, "Python chain from ");
    kw_md_code(o, c->entry, false);
    kw_buf_printf(o, ", %d call%s down to ", c->length, c->length == 1 ? "" : "s");
    kw_md_code(o, op_label, false);
    kw_buf_puts(o, ":\n\n");
    int step = 1;
    for (size_t f = 0; f < c->frames.n; f++, step++) {
        const kw_py_frame *fr = &c->frames.v[f];
        kw_buf_printf(o, "%d. ", step);
        kw_md_code(o, fr->function, false);
        kw_buf_puts(o, " calls ");
        kw_md_code(o, fr->callee, false);
        kw_buf_puts(o, " at ");
        kw_r_loc(r, fr->file, fr->line);
        kw_r_ref(r, fr->file, fr->line, "Python call", fr->function);
        kw_r_python_conds(r, fr->conds.v, fr->conds.n);
        kw_buf_putc(o, '\n');
    }
    if (launch) { /* a Triton wrapper: its kernel[grid](...) */
        kw_buf_printf(o, "%d. the wrapper ", step);
        kw_md_code(o, c->op, false);
        kw_buf_puts(o, " (");
        kw_r_loc(r, c->op_file, c->op_line);
        kw_buf_puts(o, ") launches ");
        char *call = kw_arena_printf(&r->scratch, "%s[grid](...)", kernel ? kernel : "?");
        kw_md_code(o, call ? call : "?", false);
        kw_buf_puts(o, " at ");
        kw_r_loc(r, launch->file, launch->line);
        kw_r_ref(r, launch->file, launch->line, "launch", kernel);
        kw_r_python_conds(r, launch->conds.v, launch->conds.n);
        kw_buf_puts(o, "\n\n");
        return;
    }
    kw_buf_printf(o, "%d. the op ", step);
    kw_md_code(o, c->op, false);
    kw_buf_puts(o, " at ");
    kw_r_loc(r, c->op_file, c->op_line);
    kw_buf_puts(o, ", bound to ");
    if (c->bound_module) {
        kw_md_code(o, c->bound_module, false);
        kw_buf_puts(o, ".");
    }
    kw_md_code(o, c->bound_function, false);
    kw_buf_puts(o, "\n\n");
}

enum { KW_R_PYTHON_UNRESOLVED = 8 }; /* unresolved calls listed per op */

/* Are the calls left out for ops a and b the same counts, reason by reason? */
static bool kw_r_python_same_dropped(const kw_py_chains *pc, size_t a, size_t b) {
    size_t i = 0, j = 0;
    for (;;) {
        while (i < pc->dropped.n && pc->dropped.v[i].op != a)
            i++;
        while (j < pc->dropped.n && pc->dropped.v[j].op != b)
            j++;
        if (i == pc->dropped.n || j == pc->dropped.n)
            return i == pc->dropped.n && j == pc->dropped.n;
        if (pc->dropped.v[i].count != pc->dropped.v[j].count ||
            strcmp(pc->dropped.v[i].reason, pc->dropped.v[j].reason))
            return false;
        i++, j++;
    }
}

void kw_r_python_unresolved(kw_render *r, const kw_py_chains *pc, size_t op, size_t before) {
    kw_buf *o = r->out;
    const char *name = pc->ops.v[op].name;
    size_t listed = 0, dropped = 0;
    for (size_t i = 0; i < pc->unresolved.n; i++) {
        const kw_py_unresolved *u = &pc->unresolved.v[i];
        if (u->op != op)
            continue;
        if (listed++ == KW_R_PYTHON_UNRESOLVED)
            continue;
        if (listed == 1) {
            kw_buf_puts(o, "Calls not resolved statically that could lead to ");
            kw_md_code(o, name, false);
            kw_buf_puts(o, " (listed, not followed):\n\n");
        }
        kw_buf_puts(o, "- ");
        kw_md_code(o, u->function, false);
        kw_buf_puts(o, " calls ");
        kw_md_code(o, u->callee, false);
        kw_buf_puts(o, " at ");
        kw_r_loc(r, u->file, u->line);
        kw_r_ref(r, u->file, u->line, "Python call", u->function);
        kw_buf_puts(o, " (");
        kw_md_text(o, u->why, false);
        kw_buf_puts(o, "); it may name ");
        kw_md_code(o, u->names, false);
        kw_buf_putc(o, '\n');
    }
    if (listed > KW_R_PYTHON_UNRESOLVED)
        kw_buf_printf(o, "- and %zu more\n", listed - KW_R_PYTHON_UNRESOLVED);
    if (listed)
        kw_buf_putc(o, '\n');
    for (size_t i = 0; i < pc->dropped.n; i++)
        dropped += pc->dropped.v[i].op == op ? pc->dropped.v[i].count : 0;
    if (!dropped)
        return;
    if (before < pc->ops.n && before != op && kw_r_python_same_dropped(pc, op, before)) {
        kw_buf_printf(o, "The same %zu other call%s not resolved statically %s left out for ",
                      dropped, dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are");
        kw_md_code(o, name, false);
        kw_buf_puts(o, " as for ");
        kw_md_code(o, pc->ops.v[before].name, false);
        kw_buf_puts(o, ".\n\n");
        return;
    }
    kw_buf_printf(o,
                  "%zu other call%s not resolved statically %s left out, as none could "
                  "lead to ",
                  dropped, dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are");
    kw_md_code(o, name, false);
    kw_buf_puts(o, ":");
    const char *sep = " ";
    for (size_t i = 0; i < pc->dropped.n; i++) {
        const kw_py_dropped *d = &pc->dropped.v[i];
        if (d->op != op)
            continue;
        kw_buf_printf(o, "%s%zu call%s ", sep, d->count, d->count == 1 ? "" : "s");
        kw_md_text(o, d->reason, false);
        sep = "; ";
    }
    kw_buf_puts(o, ".\n\n");
}
