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
        kw_r_t(r, k ? " and " : ", when ");
        kw_r_c(r, conds[k]);
    }
}

void kw_r_python_chain(kw_render *r, const kw_py_chain *c, const char *op_label,
                       const kw_py_launch *launch, const char *kernel) {
    kw_r_p(r);
    kw_r_t(r, "Python chain from ");
    kw_r_c(r, c->entry);
    kw_r_tf(r, ", %d call%s down to ", c->length, c->length == 1 ? "" : "s");
    kw_r_c(r, op_label);
    kw_r_t(r, ":");
    kw_r_p_end(r);
    kw_r_ol steps;
    kw_r_ol_open(r, &steps);
    for (size_t f = 0; f < c->frames.n; f++) {
        const kw_py_frame *fr = &c->frames.v[f];
        kw_r_ol_item(r, &steps);
        kw_r_c(r, fr->function);
        kw_r_t(r, " calls ");
        kw_r_c(r, fr->callee);
        kw_r_t(r, " at ");
        kw_r_loc(r, fr->file, fr->line);
        kw_r_ref(r, fr->file, fr->line, "Python call", fr->function);
        kw_r_python_conds(r, fr->conds.v, fr->conds.n);
    }
    kw_r_ol_item(r, &steps);
    if (launch) { /* a Triton wrapper: its kernel[grid](...) */
        kw_r_t(r, "the wrapper ");
        kw_r_c(r, c->op);
        kw_r_t(r, " (");
        kw_r_loc(r, c->op_file, c->op_line);
        kw_r_t(r, ") launches ");
        char *call = kw_arena_printf(&r->scratch, "%s[grid](...)", kernel ? kernel : "?");
        kw_r_c(r, call ? call : "?");
        kw_r_t(r, " at ");
        kw_r_loc(r, launch->file, launch->line);
        kw_r_ref(r, launch->file, launch->line, "launch", kernel);
        kw_r_python_conds(r, launch->conds.v, launch->conds.n);
        kw_r_ol_end(r, &steps);
        return;
    }
    kw_r_t(r, "the op ");
    kw_r_c(r, c->op);
    kw_r_t(r, " at ");
    kw_r_loc(r, c->op_file, c->op_line);
    kw_r_t(r, ", bound to ");
    if (c->bound_module) {
        kw_r_c(r, c->bound_module);
        kw_r_t(r, ".");
    }
    kw_r_c(r, c->bound_function);
    kw_r_ol_end(r, &steps);
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
    const char *name = pc->ops.v[op].name;
    size_t listed = 0, dropped = 0;
    for (size_t i = 0; i < pc->unresolved.n; i++) {
        const kw_py_unresolved *u = &pc->unresolved.v[i];
        if (u->op != op)
            continue;
        if (listed++ == KW_R_PYTHON_UNRESOLVED)
            continue;
        if (listed == 1) {
            kw_r_p(r);
            kw_r_t(r, "Calls not resolved statically that could lead to ");
            kw_r_c(r, name);
            kw_r_t(r, " (listed, not followed):");
            kw_r_p_end(r);
            kw_r_list(r);
        }
        kw_r_item(r, 0);
        kw_r_c(r, u->function);
        kw_r_t(r, " calls ");
        kw_r_c(r, u->callee);
        kw_r_t(r, " at ");
        kw_r_loc(r, u->file, u->line);
        kw_r_ref(r, u->file, u->line, "Python call", u->function);
        kw_r_t(r, " (");
        kw_md_text(r->out, u->why, kw_r_prose_in(r));
        kw_r_t(r, "); it may name ");
        kw_r_c(r, u->names);
    }
    if (listed > KW_R_PYTHON_UNRESOLVED) {
        kw_r_item(r, 0);
        kw_r_tf(r, "and %zu more", listed - KW_R_PYTHON_UNRESOLVED);
    }
    if (listed) {
        kw_r_list_end(r);
        kw_r_gap(r);
    }
    for (size_t i = 0; i < pc->dropped.n; i++)
        dropped += pc->dropped.v[i].op == op ? pc->dropped.v[i].count : 0;
    if (!dropped)
        return;
    kw_r_p(r);
    if (before < pc->ops.n && before != op && kw_r_python_same_dropped(pc, op, before)) {
        kw_r_tf(r, "The same %zu other call%s not resolved statically %s left out for ", dropped,
                dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are");
        kw_r_c(r, name);
        kw_r_t(r, " as for ");
        kw_r_c(r, pc->ops.v[before].name);
        kw_r_t(r, ".");
        kw_r_p_end(r);
        return;
    }
    kw_r_tf(r, "%zu other call%s not resolved statically %s left out, as none could lead to ",
            dropped, dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are");
    kw_r_c(r, name);
    kw_r_t(r, ":");
    const char *sep = " ";
    for (size_t i = 0; i < pc->dropped.n; i++) {
        const kw_py_dropped *d = &pc->dropped.v[i];
        if (d->op != op)
            continue;
        kw_r_tf(r, "%s%zu call%s ", sep, d->count, d->count == 1 ? "" : "s");
        kw_md_text(r->out, d->reason, kw_r_prose_in(r));
        sep = "; ";
    }
    kw_r_t(r, ".");
    kw_r_p_end(r);
}

void kw_r_python_more(kw_render *r, size_t n, size_t shown) {
    if (n <= shown)
        return;
    size_t more = n - shown;
    kw_r_p(r);
    kw_r_tf(r, "And %zu more outermost caller%s in the Python trees reach%s it.", more,
            more == 1 ? "" : "s", more == 1 ? "es" : "");
    kw_r_p_end(r);
}
