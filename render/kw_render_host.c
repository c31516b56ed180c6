/* kw_render_host.c: section 1, "Host Side: Python -> C++ -> Kernel Launch":
 * the Python ops and C++ entry points that reach the kernel (with the chains
 * of calls from the model's code down to each op, when kwalk_pyscan.py read
 * them), the dispatch path from each entry to each launch site as a chain of
 * calls with the conditions they sit under (their --shape verdicts from the
 * page model, model/kw_page.h), the grid and block chosen there, the kernel
 * arguments, and the launch statement quoted from the source. */
#include <stdio.h>
#include <string.h>

#include "model/kw_entry.h"
#include "model/kw_python_chains.h"
#include "render/kw_md.h"
#include "render/kw_render.h"

/* How many conditions of a path a --shape could evaluate (a compile-time
 * constant counts as evaluated; a loop is no condition). */
typedef struct kw_tally {
    int conditions, evaluated;
} kw_tally;

/* " [shape: not evaluated, WHY]" after a guard --shape could not decide: the
 * evaluator's message with its quoted name as code ("unknown name
 * `s.time_kernel_`"), written once a page; a later guard with the same
 * message says "as above" (launch_kernel's timer branches repeat one). */
static void kw_host_why(kw_render *r, const kw_page_verdict *v) {
    const char *why = v->why ? v->why : "?";
    for (size_t i = 0; i < r->page.verdicts.n; i++) {
        const kw_page_verdict *o = &r->page.verdicts.v[i];
        if (o->said && o->why && !strcmp(o->why, why)) {
            kw_buf_puts(r->out, " [shape: not evaluated, as above]");
            return;
        }
    }
    r->page.verdicts.v[v - r->page.verdicts.v].said = true;
    kw_buf_puts(r->out, " [shape: not evaluated, ");
    const char *q = strchr(why, '\''), *e = q ? strchr(q + 1, '\'') : NULL;
    if (q && e && e > q + 1 && !memchr(q, '`', (size_t)(e - q))) {
        char *t = kw_arena_printf(&r->scratch, "%.*s`%.*s`%s", (int)(q - why), why,
                                  (int)(e - q - 1), q + 1, e + 1);
        kw_md_safe_prose(r->out, t ? t : why, kw_r_prose_in(r));
    } else {
        kw_md_safe(r->out, why, kw_r_prose_in(r));
    }
    kw_buf_puts(r->out, "]");
}

/* A guard as prose: "when `a.hidden <= 4096`", "when not `use_fp8`" ... and,
 * with a --shape, whether it holds for that shape (the page's verdict:
 * evaluated with --shape plus the constants of the launch or call the guard
 * is on). Returns false when the shape makes the path impossible. */
static bool kw_host_guard(kw_render *r, const kw_guard *g, kw_tally *tally) {
    const char *kind = g->kind ? g->kind : "if";
    const char *cond = g->condition ? g->condition : "?";
    bool loop = !strcmp(kind, "for") || !strcmp(kind, "range_for") || !strcmp(kind, "while") ||
                !strcmp(kind, "do");
    if (loop) {
        kw_r_tf(r, "inside a `%s` loop (", !strcmp(kind, "range_for") ? "for" : kind);
        kw_r_c(r, cond);
        kw_r_t(r, ")");
    } else if (!strcmp(kind, "early_exit")) {
        /* an `if (cond) return;` before the call: the path runs where it is false */
        kw_r_t(r, g->holds ? "when " : "when not ");
        kw_r_c(r, cond);
        kw_r_t(r, " (early exit above)");
    } else if (!strcmp(kind, "default")) {
        kw_r_t(r, "in the `default:` of a switch (");
        kw_md_text(r->out, cond, kw_r_prose_in(r));
        kw_r_t(r, ")");
    } else {
        kw_r_t(r, g->holds ? "when " : "when not ");
        kw_r_c(r, cond);
        if (!strcmp(kind, "case"))
            kw_r_t(r, " (switch case)");
        else if (!strcmp(kind, "ternary"))
            kw_r_t(r, " (?:)");
    }
    bool never = g->constant && !strcmp(g->constant, "never");
    if (never)
        kw_r_t(r, " (a compile-time constant that never holds here: dead code)");
    else if (g->constant && !strcmp(g->constant, "always"))
        kw_r_t(r, " (a compile-time constant that always holds here)");
    if (g->location.file) {
        kw_r_t(r, " at ");
        kw_r_kloc(r, &g->location);
        kw_r_ref(r, g->location.file, g->location.line, "dispatch", cond);
    }
    if (!loop && tally) {
        tally->conditions++;
        tally->evaluated += g->constant != NULL;
    }
    if (never)
        return false;
    const kw_page_verdict *v = kw_page_verdict_of(&r->page, g);
    if (!v || !v->tried)
        return true;
    /* the brackets below make no link: the same text in both printers */
    if (!v->evaluated) {
        kw_host_why(r, v);
        return true;
    }
    bool holds = v->holds;
    if (tally)
        tally->evaluated++;
    kw_buf_puts(r->out, holds ? " [shape: yes]" : " [shape: NO, this path is not taken]");
    return holds;
}

/* The guards of one step; a guard already shown on an earlier step of the
 * same path (a dispatch macro's switch around a lambda and its call) is not
 * repeated. shown may be NULL. */
typedef struct kw_shown {
    KW_ARRAY(const kw_guard *) v;
} kw_shown;

static bool kw_guard_same(const kw_guard *a, const kw_guard *b) {
    return a->holds == b->holds && a->location.line == b->location.line && a->condition &&
           b->condition && !strcmp(a->condition, b->condition) &&
           (a->location.file == b->location.file ||
            (a->location.file && b->location.file && !strcmp(a->location.file, b->location.file)));
}

static void kw_host_guards(kw_render *r, const kw_guard *g, size_t n, bool *taken, kw_shown *shown,
                           kw_tally *tally) {
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t k = 0; shown && k < shown->v.n && !dup; k++)
            dup = kw_guard_same(shown->v.v[k], &g[i]);
        if (dup)
            continue;
        if (shown) {
            const kw_guard **slot = KW_PUSH(&r->scratch, shown->v);
            if (slot)
                *slot = &g[i];
        }
        kw_r_t(r, ", ");
        if (!kw_host_guard(r, &g[i], tally))
            *taken = false;
    }
}

/* A host function's printed name; its mangled symbol when no record names it. */
static const char *kw_node_name(kw_render *r, size_t node, const char *fallback,
                                const char *symbol) {
    const char *n = node != KW_NONE ? r->m->node_name.v[node] : NULL;
    return n ? n : fallback ? fallback : symbol ? symbol : "?";
}

static void kw_host_entry_label(kw_render *r, const kw_mentry *me) {
    const kw_entry *e = me->e;
    const char *s = kw_entry_label(&r->scratch, e);
    kw_r_plainf(r, "%s ", kw_entry_word(e));
    kw_md_code(r->out, s ? s : "?", r->in);
    if (kw_entry_binds(e)) {
        kw_buf_puts(r->out, " (runs ");
        kw_md_code(r->out, kw_r_name(r, e->function ? e->function : "?"), r->in);
        kw_buf_puts(r->out, ")");
    }
}

enum { KW_HOST_CHAINS = 3 }; /* chains from the model shown per op */

/* The chains of calls from the model's code to op (python/kwalk_pyscan.py
 * over the --python-root trees): the outermost callers, shortest chain
 * first, each a numbered list of its calls (file:line, the `if` tests around
 * the call) ending at the op; the rest counted; then the calls not resolved
 * statically that could lead to it. */
static void kw_host_op_chains(kw_render *r, const kw_py_op *op) {
    const kw_py_chains *pc = r->m->py ? r->m->py->chains : NULL;
    if (!pc)
        return;
    size_t *ix = NULL, *ops = NULL;
    bool pybind = op->entry_kind && !strcmp(op->entry_kind, "pybind");
    const char *mod = pybind ? op->module : NULL;
    size_t n = kw_py_chains_for(pc, mod, op->function, true, &r->scratch, &ix);
    size_t nops = kw_py_chains_ops(pc, mod, op->function, &r->scratch, &ops);
    if (n == (size_t)-1 || nops == (size_t)-1) {
        r->out->oom = true;
        return;
    }
    const char *label = op->def_name ? op->def_name : "?";
    if (!n) {
        kw_r_p(r);
        kw_r_t(r, "No outermost caller in the Python trees reaches ");
        kw_r_c(r, label);
        kw_r_t(r, " (as far as calls resolve statically).");
        kw_r_p_end(r);
    }
    for (size_t i = 0; i < n && i < KW_HOST_CHAINS; i++)
        kw_r_python_chain(r, &pc->v.v[ix[i]], label, NULL, NULL);
    kw_r_python_more(r, n, KW_HOST_CHAINS);
    for (size_t i = 0; i < nops; i++) {
        kw_r_python_unresolved(r, pc, ops[i], r->py_counted);
        if (r->py_counted == (size_t)-1)
            r->py_counted = ops[i]; /* later ops refer to its counts */
    }
}

/* Where the package calls the listed ops: their public callers, each op once
 * (and the chains from the model's code, when read). */
static void kw_host_op_callers(kw_render *r, const kw_py_op *const *ops, size_t n) {
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = ops[j] == ops[i];
        if (dup)
            continue;
        const kw_py_op *op = ops[i];
        kw_host_op_chains(r, op);
        if (!op->callers.n)
            continue;
        kw_r_p(r);
        kw_r_t(r, "Public callers of ");
        kw_r_c(r, op->def_name ? op->def_name : "?");
        kw_r_t(r, " in the package:");
        for (size_t k = 0; k < op->callers.n && k < 8; k++) {
            const kw_py_caller *c = &op->callers.v[k];
            kw_r_t(r, k ? ", " : " ");
            kw_r_c(r, c->name);
            kw_r_t(r, " ");
            kw_r_loc(r, c->file, c->def_line);
            if (c->via) {
                kw_r_t(r, " (via ");
                kw_r_c(r, c->via);
                kw_r_t(r, ")");
            }
        }
        if (op->callers.n > 8)
            kw_r_tf(r, " and %zu more", op->callers.n - 8);
        kw_r_t(r, ".");
        kw_r_p_end(r);
    }
}

/* Does no launch of the kernel ever run (each one dead)? */
static bool kw_host_all_dead(const kw_mpaths *paths, size_t npaths) {
    for (size_t i = 0; i < npaths; i++)
        if (!paths[i].dead)
            return false;
    return npaths > 0;
}

/* The entries of all paths of all launch sites, each once, in entry order. */
static void kw_host_entries(kw_render *r, const kw_mpaths *paths, size_t npaths) {
    kw_buf *o = r->out;
    KW_R_HEADING(r, 3, "Entry points");
    bool any = false;
    for (size_t i = 0; i < npaths && !any; i++)
        any = paths[i].v.n > 0;
    if (!any && kw_host_all_dead(paths, npaths)) {
        kw_r_p(r);
        kw_md_strong(r->out, "Emitted but unreachable from any entry point.", kw_r_prose_in(r));
        kw_r_t(r, " The code object holds this instantiation, but every launch of it sits under "
                  "a condition that is a compile-time constant and false here, or is reached "
                  "only through calls that do (clang compiles the discarded branch of an `if "
                  "constexpr` written in non-template code, and so emits the kernels launched "
                  "there). The launch sites below say which condition.");
        kw_r_p_end(r);
        return;
    }
    if (!any) {
        kw_r_para(r, "No host entry point of this index reaches a launch of this kernel "
                     "(no `extern \"C\"` function, pybind11 or `TORCH_LIBRARY` binding, "
                     "host function with external linkage or annotated function calls its "
                     "launcher); the instantiation chains below show where the launches are "
                     "instantiated from.");
        return;
    }
    static const char *const head[] = {"Python op", "Binding", "C++ entry point", "Defined at"};
    kw_r_table(r, 4, head);
    KW_ARRAY(size_t) seen = {0};
    KW_ARRAY(const kw_py_op *) ops = {0}; /* listed ops that have callers or chains */
    for (size_t i = 0; i < npaths; i++)
        for (size_t j = 0; j < paths[i].v.n; j++) {
            size_t e = paths[i].v.v[j].entry;
            bool dup = false;
            for (size_t s = 0; s < seen.n && !dup; s++)
                dup = seen.v[s] == e;
            if (dup)
                continue;
            size_t *slot = KW_PUSH(&r->scratch, seen);
            if (slot)
                *slot = e;
            const kw_mentry *me = &r->m->entries.v[e];
            size_t nops = me->ops.n ? me->ops.n : 1;
            for (size_t k = 0; k < nops; k++) {
                kw_r_row(r);
                kw_r_cell(r);
                if (me->ops.n) {
                    const kw_py_op *op = &r->m->py->ops.v[me->ops.v[k]];
                    kw_md_code(o, op->def_name ? op->def_name : "?", r->in);
                    kw_buf_puts(o, " ");
                    kw_r_loc(r, op->file, op->def_line);
                    kw_r_ref(r, op->file, op->def_line, "Python op", op->def_name);
                    const kw_py_op **os =
                        op->callers.n || r->m->py->chains ? KW_PUSH(&r->scratch, ops) : NULL;
                    if (os)
                        *os = op;
                    kw_r_cell(r);
                    kw_r_plainf(r, "@%s, %s", op->stack, op->ffi ? op->ffi : "?");
                } else {
                    kw_buf_puts(o, r->o->python_root ? "(no decorated op binds it)"
                                                     : "(Python not scanned)");
                    kw_r_cell(r);
                }
                kw_r_cell(r);
                kw_host_entry_label(r, me);
                kw_r_cell(r);
                kw_r_kloc(r, &me->e->location);
                if (me->e->location.file)
                    kw_r_ref(r, me->e->location.file, me->e->location.line, "entry", me->e->name);
            }
        }
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_host_op_callers(r, ops.v, ops.n);
    if (!r->o->python_root)
        kw_r_para(r, "Python ops were not scanned: give `--python-root DIR` (the directory of "
                     "the `@compile_ops` op files) to join them to these entry points.");
}

/* What a --shape says about a path: how many of its conditions could be
 * evaluated, and whether those hold. */
static void kw_host_verdict(kw_render *r, const kw_tally *t, bool taken) {
    if (taken && !t->conditions) {
        kw_r_para(r, "With this shape: the path has no conditions.");
        return;
    }
    kw_r_p(r);
    if (!taken) {
        kw_r_t(r, "With this shape this path is ");
        kw_md_strong(r->out, "not", kw_r_prose_in(r));
        kw_r_tf(r,
                " taken: a condition above does not hold (%d of %d condition%s on this path "
                "could be evaluated).",
                t->evaluated, t->conditions, t->conditions == 1 ? "" : "s");
        kw_r_p_end(r);
        return;
    }
    kw_r_tf(r, "With this shape %d of %d condition%s on this path could be evaluated", t->evaluated,
            t->conditions, t->conditions == 1 ? "" : "s");
    if (!t->evaluated)
        kw_r_t(r, "; give --shape values for their names to decide whether it is taken.");
    else if (t->evaluated == 1)
        kw_r_t(r, "; it holds.");
    else if (t->evaluated == 2)
        kw_r_t(r, "; both hold.");
    else
        kw_r_tf(r, "; all %d hold.", t->evaluated);
    kw_r_p_end(r);
}

/* The numbered chain of one path: calls with their guards, then the launch,
 * and with --shape the verdict. The call at step omit (-1: none) is made at
 * nomit places, listed after the chain (kw_host_parts). */
static void kw_host_steps(kw_render *r, const kw_mlaunch *ml, const kw_mpath *p, long omit,
                          size_t nomit) {
    bool taken = true;
    kw_tally tally = {0, 0};
    kw_shown shown;
    memset(&shown, 0, sizeof shown);
    kw_r_ol steps;
    kw_r_ol_open(r, &steps);
    for (size_t i = 0; i < p->calls.n; i++) {
        const kw_mcall *mc = &r->m->calls.v[p->calls.v[i]];
        const char *callee =
            kw_r_name(r, kw_node_name(r, mc->to, mc->c->callee_name, mc->c->callee));
        kw_r_ol_item(r, &steps);
        kw_r_c(r, kw_r_name(r, kw_r_short(r, kw_node_name(r, mc->from, mc->c->caller_name,
                                                          mc->c->caller))));
        kw_r_t(r, " calls ");
        kw_r_c(r, callee);
        if ((long)i == omit) { /* the calls of several paths: listed after the route */
            kw_r_tf(r, " at %zu places (below)", nomit);
            continue;
        }
        if (mc->c->location.file) {
            kw_r_t(r, " at ");
            kw_r_kloc(r, &mc->c->location);
            kw_r_ref(r, mc->c->location.file, mc->c->location.line, "dispatch", callee);
        }
        kw_host_guards(r, mc->c->guards.v, mc->c->guards.n, &taken, &shown, &tally);
    }
    const kw_launch *l = ml->l;
    kw_r_ol_item(r, &steps);
    kw_r_c(r, kw_r_name(r, kw_r_short(r, l->function ? l->function : "?")));
    kw_r_t(r, " launches the kernel at ");
    kw_r_kloc(r, &l->location);
    kw_host_guards(r, l->guards.v, l->guards.n, &taken, &shown, &tally);
    kw_r_ol_end(r, &steps);
    if (r->page.user_shape && omit < 0)
        kw_host_verdict(r, &tally, taken);
}

/* The step where the paths of one route first take different call records,
 * -1 when none does: the calls that tell them apart, in code this page does
 * not cite (a library's, folded into the call that enters it). */
static long kw_host_parting(const kw_mpath *const *ps, size_t n) {
    for (size_t s = 0; n > 1; s++)
        for (size_t k = 0; k < n; k++) {
            if (s >= ps[k]->calls.n || s >= ps[0]->calls.n)
                return -1;
            if (ps[k]->calls.v[s] != ps[0]->calls.v[s])
                return (long)s;
        }
    return -1;
}

/* Whether every call of cs[0, n) has a guard the same as g. */
static bool kw_host_guard_common(const kw_host_call *const *cs, size_t n, const kw_guard *g) {
    for (size_t k = 0; k < n; k++) {
        bool has = false;
        for (size_t h = 0; h < cs[k]->guards.n && !has; h++)
            has = kw_guard_same(&cs[k]->guards.v[h], g);
        if (!has)
            return false;
    }
    return true;
}

/* Where the paths of one route part (step s): the caller, and each call's
 * line with the conditions not all of them share. */
static void kw_host_parts(kw_render *r, const kw_mpath *const *ps, size_t n, size_t s) {
    const kw_host_call **cs = kw_arena_alloc(&r->scratch, n * sizeof *cs);
    if (!cs)
        return;
    for (size_t k = 0; k < n; k++)
        cs[k] = r->m->calls.v[ps[k]->calls.v[s]].c;
    const kw_mcall *first = &r->m->calls.v[ps[0]->calls.v[s]];
    kw_r_p(r);
    kw_r_tf(r, "At step %zu ", s + 1);
    kw_r_c(r, kw_r_name(r, kw_r_short(r, kw_node_name(r, first->from, cs[0]->caller_name,
                                                      cs[0]->caller))));
    kw_r_tf(r, " makes the call at %zu places, one path each:", n);
    kw_r_p_end(r);
    kw_r_list(r);
    for (size_t k = 0; k < n; k++) {
        kw_r_item(r, 0);
        kw_r_kloc(r, &cs[k]->location);
        if (cs[k]->location.file)
            kw_r_ref(r, cs[k]->location.file, cs[k]->location.line, "dispatch", cs[k]->callee_name);
        for (size_t g = 0; g < cs[k]->guards.n; g++) {
            const kw_guard *gd = &cs[k]->guards.v[g];
            if (!gd->condition || kw_host_guard_common(cs, n, gd))
                continue;
            kw_r_t(r, ", ");
            kw_host_guard(r, gd, NULL);
        }
    }
    kw_r_list_end(r);
    kw_r_gap(r);
    /* the conditions every one of them sits under */
    bool any = false;
    for (size_t g = 0; g < cs[0]->guards.n; g++) {
        const kw_guard *gd = &cs[0]->guards.v[g];
        if (!gd->condition || !kw_host_guard_common(cs, n, gd))
            continue;
        if (!any)
            kw_r_p(r);
        kw_r_t(r, any ? ", " : "All of them: ");
        kw_host_guard(r, gd, NULL);
        any = true;
    }
    if (any) {
        kw_r_t(r, ".");
        kw_r_p_end(r);
    }
}

/* One route of an entry point: the paths (n, the first ps[0]) whose chains
 * read the same on this page, numbered route `nth` of `of`. Paths that part
 * only in the library's calls (kw_host_same_route) are one route with their
 * count, and the calls and conditions that tell them apart. grouped: some
 * route of this launch has several paths (routes are numbered, not paths). */
static void kw_host_route(kw_render *r, const kw_mlaunch *ml, const kw_mpath *const *ps, size_t n,
                          size_t nth, size_t of, bool grouped) {
    const kw_mpath *p = ps[0];
    const kw_mentry *me = &r->m->entries.v[p->entry];
    kw_r_p(r);
    kw_r_t(r, "From ");
    kw_host_entry_label(r, me);
    if (me->e->location.file) {
        kw_r_t(r, ", ");
        kw_r_kloc(r, &me->e->location);
    }
    if (!grouped && p->of > 1) /* every path its own route: numbered as paths */
        kw_r_tf(r, ", path %zu of %s%zu", p->nth, p->at_least ? "at least " : "", p->of);
    else if (grouped && of > 1)
        kw_r_tf(r, ", route %zu of %zu", nth, of);
    if (n > 1)
        kw_r_tf(r, " (%zu call paths)", n);
    kw_r_t(r, ":");
    kw_r_p_end(r);
    long s = kw_host_parting(ps, n);
    kw_host_steps(r, ml, p, s, n);
    if (s >= 0)
        kw_host_parts(r, ps, n, (size_t)s);
    bool last = p->nth == KW_PATHS_SHOWN || p->nth == p->of;
    for (size_t k = 1; k < n && !last; k++)
        last = ps[k]->nth == KW_PATHS_SHOWN || ps[k]->nth == ps[k]->of;
    const kw_mpath *end = ps[n - 1];
    if (last && end->of > KW_PATHS_SHOWN) {
        kw_r_p(r);
        kw_r_tf(r,
                "%s%zu more path%s from this entry point %s not listed (the first %d, "
                "shortest first, are).",
                end->at_least ? "At least " : "", end->of - KW_PATHS_SHOWN,
                end->of - KW_PATHS_SHOWN == 1 ? "" : "s",
                end->of - KW_PATHS_SHOWN == 1 ? "is" : "are", KW_PATHS_SHOWN);
        kw_r_p_end(r);
    }
}

/* Whether two paths are one route: from the same entry point through the
 * same functions, their call records the same but at one step, where both
 * calls sit in the file of the kernel library's own <<<>>> (l->site: the
 * library calling its launcher from several places, ck_tile's launch_kernel
 * once untimed and in its warm-up and timed loops). Paths that part in the
 * user's code stay apart. */
static bool kw_host_same_route(const kw_model *m, const kw_launch *l, const kw_mpath *a,
                               const kw_mpath *b) {
    if (!l->library || !l->site.file || a->entry != b->entry || a->calls.n != b->calls.n)
        return false;
    size_t differ = 0;
    for (size_t i = 0; i < a->calls.n; i++) {
        const kw_mcall *x = &m->calls.v[a->calls.v[i]], *y = &m->calls.v[b->calls.v[i]];
        if (x->from != y->from || x->to != y->to || x->from == KW_NONE || x->to == KW_NONE)
            return false;
        if (x == y)
            continue;
        const char *fx = x->c->location.file, *fy = y->c->location.file;
        if (differ++ || !fx || !fy || strcmp(fx, l->site.file) || strcmp(fy, l->site.file))
            return false;
    }
    return true;
}

/* The paths of one launch, entry by entry, each distinct route once: the
 * paths that take the same functions are one route, with the calls that
 * part them (ck_tile::launch_kernel's untimed call, warm-up and timed loops,
 * each calling the kernel's launcher) listed after it. */
static void kw_host_routes(kw_render *r, const kw_mlaunch *ml, const kw_mpaths *paths,
                           size_t nentries) {
    size_t n = paths->v.n;
    size_t *route = kw_arena_alloc(&r->scratch, (n + 1) * sizeof *route);
    const kw_mpath **ps = kw_arena_alloc(&r->scratch, (n + 1) * sizeof *ps);
    if (!route || !ps) {
        r->out->oom = true;
        kw_r_p_end(r);
        return;
    }
    size_t nroutes = 0;
    for (size_t j = 0; j < n; j++) {
        route[j] = j;
        for (size_t k = 0; k < j && route[j] == j; k++)
            if (route[k] == k && kw_host_same_route(r->m, ml->l, &paths->v.v[k], &paths->v.v[j]))
                route[j] = k;
        nroutes += route[j] == j;
    }
    if (n > nentries)
        kw_r_tf(r, " along %zu%s call paths", n, paths->v.v[n - 1].at_least ? "+" : "");
    if (nroutes < n)
        kw_r_tf(r, ", %zu distinct route%s through the same functions", nroutes,
                nroutes == 1 ? "" : "s");
    else if (n > nentries)
        kw_r_t(r, " (each with its own conditions)");
    kw_r_t(r, ":");
    kw_r_p_end(r);
    for (size_t j = 0; j < n; j++) {
        if (route[j] != j)
            continue;
        size_t nth = 0, of = 0, np = 0;
        for (size_t k = 0; k < n; k++)
            if (paths->v.v[k].entry == paths->v.v[j].entry && route[k] == k) {
                of++;
                nth += k <= j;
            }
        for (size_t k = j; k < n; k++)
            if (route[k] == j)
                ps[np++] = &paths->v.v[k];
        kw_host_route(r, ml, ps, np, nth, of, nroutes < n);
    }
}

/* The number of distinct entry points among paths (grouped by entry). */
static size_t kw_host_nentries(const kw_mpaths *paths) {
    size_t n = 0;
    for (size_t j = 0; j < paths->v.n; j++)
        n += j == 0 || paths->v.v[j].entry != paths->v.v[j - 1].entry;
    return n;
}

static void kw_host_chain(kw_render *r, const kw_launch *l) {
    if (!l->instantiation_chain.n) {
        kw_r_p(r);
        kw_r_c(r, kw_r_name(r, l->function ? l->function : "?"));
        kw_r_t(r, " launches it; it is not a template instantiation, and nothing in this index "
                  "that an entry point reaches calls it.");
        kw_r_p_end(r);
        return;
    }
    kw_r_para(r, "Instantiation chain (each caller, at the call that instantiates the next "
                 "function):");
    kw_r_ol chain;
    kw_r_ol_open(r, &chain);
    kw_r_ol_item(r, &chain);
    kw_r_c(r, l->function ? l->function : "?");
    kw_r_t(r, " (launches the kernel)");
    for (size_t i = 0; i < l->instantiation_chain.n; i++) {
        const kw_chain_link *c = &l->instantiation_chain.v[i];
        kw_r_ol_item(r, &chain);
        kw_r_t(r, "called by ");
        kw_r_c(r, kw_r_name(r, c->function ? c->function : "?"));
        if (c->location.file) {
            kw_r_t(r, " at ");
            kw_r_kloc(r, &c->location);
            kw_r_ref(r, c->location.file, c->location.line, "dispatch", c->function);
        }
    }
    kw_r_ol_end(r, &chain);
}

/* One row of the configuration table. */
static void kw_host_config_row(kw_render *r, const kw_mlaunch *ml, size_t li, const char *what,
                               const kw_config_item *c) {
    kw_buf *o = r->out;
    kw_r_row(r);
    kw_r_cell(r);
    kw_buf_puts(o, what);
    kw_r_cell(r);
    if (c->expr)
        kw_md_code(o, c->expr, r->in);
    else
        kw_buf_puts(o, "(not written: default)");
    kw_r_cell(r);
    if (!c->expr && !c->has_value) {
        kw_buf_puts(o, "not recorded");
    } else if (c->has_value) {
        if (c->dims == 3)
            kw_buf_printf(o, "(%lld, %lld, %lld)", c->value[0], c->value[1], c->value[2]);
        else if (c == &ml->l->stream && !c->value[0])
            kw_buf_puts(o, "the default stream (a null stream)");
        else
            kw_buf_printf(o, "%lld", c->value[0]);
    } else {
        kw_buf_puts(o, "not a constant in this instantiation");
    }
    kw_r_cell(r);
    /* grid and block for the shape: the page's geometry */
    const kw_page_geom *g = &r->page.geom[li];
    bool grid = c == &ml->l->grid, block = c == &ml->l->block;
    const double *v = grid ? g->grid : g->block;
    const char *why = grid ? g->why_grid : block ? g->why_block : NULL;
    bool ok = c->dims == 3 && ((grid && g->grid_known) || (block && g->block_known));
    const kw_operand_decl *d = kw_operand_decl_of(ml->l, c);
    if (d && d->text) {
        kw_md_code(o, d->text, r->in);
        if (d->location.file) {
            kw_buf_puts(o, " at ");
            kw_r_kloc(r, &d->location);
            kw_r_ref(r, d->location.file, d->location.line, "launch", d->text);
        }
        if (d->kind && strcmp(d->kind, "local"))
            kw_r_plainf(r, " (a %s)", d->kind);
        if (d->modified)
            kw_buf_puts(o, " (changed after it)");
    } else {
        kw_buf_puts(o, "-");
    }
    if (r->page.user_shape) {
        kw_r_cell(r);
        if (c->has_value || c->dims != 3) {
            kw_buf_puts(o, "-");
        } else if (ok) {
            char x[32], y[32], z[32];
            kw_num_value_to(x, sizeof x, v[0]);
            kw_num_value_to(y, sizeof y, v[1]);
            kw_num_value_to(z, sizeof z, v[2]);
            kw_buf_printf(o, "(%s, %s, %s)", x, y, z);
        } else {
            kw_md_prose(o, why, r->in);
        }
    }
}

/* "Block: N threads = W waves of L lanes." and the kernel's attributes, one
 * paragraph (in Markdown, a blank line when there is neither). */
static void kw_host_block(kw_render *r, const kw_launch *l) {
    const kw_kernel *k = r->mk->k;
    size_t nattrs = k ? k->attrs.n : 0;
    if (!l->block.has_value && !nattrs) {
        kw_r_gap(r);
        kw_r_gap(r);
        return;
    }
    kw_r_p(r);
    if (l->block.has_value) {
        long long threads = l->block.value[0] * l->block.value[1] * l->block.value[2];
        kw_r_tf(r, "Block: %lld threads", threads);
        int ws = 0;
        for (size_t a = 0; a < r->archs.n && !ws; a++)
            ws = kw_hw_wave_size(r->archs.v[a].arch);
        if (ws)
            kw_r_tf(r, " = %lld wave%s of %d lanes", (threads + ws - 1) / ws,
                    (threads + ws - 1) / ws == 1 ? "" : "s", ws);
        kw_r_t(r, ".");
    }
    for (size_t i = 0; i < nattrs; i++) {
        /* (the paragraph's text begins at its first letter) */
        kw_r_t(r, i || l->block.has_value || !kw_r_html(r) ? " Kernel attribute "
                                                           : "Kernel attribute ");
        kw_r_c(r, k->attrs.v[i].name ? k->attrs.v[i].name : "?");
        kw_r_t(r, " = ");
        kw_r_c(r, k->attrs.v[i].value ? k->attrs.v[i].value : "?");
        kw_r_t(r, ".");
    }
    kw_r_p_end(r);
}

static void kw_host_config(kw_render *r, const kw_mlaunch *ml, size_t li) {
    const kw_launch *l = ml->l;
    static const char *const head[] = {"Operand", "As written", "Value", "Declared as",
                                       "With --shape"};
    kw_r_table(r, r->page.user_shape ? 5 : 4, head);
    kw_host_config_row(r, ml, li, "grid", &l->grid);
    kw_host_config_row(r, ml, li, "block", &l->block);
    kw_host_config_row(r, ml, li, "dynamic shared memory (bytes)", &l->shared_mem);
    kw_host_config_row(r, ml, li, "stream", &l->stream);
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_host_block(r, l);
    if (r->page.user_shape && r->page.user_shape->v.n) {
        kw_r_p(r);
        kw_r_t(r, "Shape bindings: ");
        for (size_t i = 0; i < r->page.shape.v.n; i++) {
            char num[32];
            kw_num_value_to(num, sizeof num, r->page.shape.v.v[i].value);
            const char *val = r->page.shape.v.v[i].text ? r->page.shape.v.v[i].text : num;
            char *s = kw_arena_printf(&r->scratch, "%s = %s", r->page.shape.v.v[i].name, val);
            kw_r_t(r, i ? ", " : "");
            kw_r_c(r, s ? s : "?");
            kw_r_t(r, " (");
            kw_r_sp(r, r->page.shape.v.v[i].from);
            kw_r_t(r, ")");
        }
        kw_r_t(r, ". A name binds an expression's name that is equal to it or ends in `.name`, "
                  "`->name` or `::name`.");
        kw_r_p_end(r);
    }
    if (r->page.user_shape && l->constants.n) {
        kw_r_p(r);
        kw_r_t(r, "Constants this launch is written with (clang's values; for a local set once "
                  "and not constant here, its initializer): ");
        for (size_t i = 0; i < l->constants.n; i++) {
            const kw_constant *k = &l->constants.v[i];
            const char *rhs = k->value ? k->value : k->init ? k->init : "?";
            char *s = kw_arena_printf(&r->scratch, "%s = %s", k->name ? k->name : "?", rhs);
            kw_r_t(r, i ? ", " : "");
            kw_r_c(r, s ? s : "?");
        }
        kw_r_t(r, ".");
        kw_r_p_end(r);
    }
}

/* A struct passed by value (a ck_tile kargs): each scalar field a row of its
 * own, as the kernel reads it from the kernel-argument segment. */
static void kw_host_arg_fields(kw_render *r, const kw_param *p) {
    for (size_t f = 0; f < p->fields.n; f++) {
        const kw_param_field *x = &p->fields.v[f];
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(r->out, x->name ? x->name : "?", r->in);
        kw_r_cell(r);
        if (x->type)
            kw_md_code(r->out, x->type, r->in);
        kw_r_cell(r);
        char *s = kw_arena_printf(&r->scratch, "its field at byte %lld", x->offset);
        kw_r_t(r, s ? s : "its field");
    }
}

static void kw_host_args(kw_render *r, const kw_launch *l) {
    if (!l->args.n)
        return;
    kw_buf *o = r->out;
    const kw_kernel *k = r->mk->k;
    kw_r_para(r, "Kernel arguments as written at the launch:");
    static const char *const head[] = {"Parameter", "Type", "Argument"};
    kw_r_table(r, 3, head);
    /* arguments are in parameter order: by position when the counts agree (the
     * elements of a parameter pack share the pack's name), else by name */
    bool by_pos = k && k->params.n == l->args.n;
    for (size_t i = 0; i < l->args.n; i++) {
        const kw_launch_arg *a = &l->args.v[i];
        const char *type = NULL, *name = a->param, *pack = NULL;
        if (by_pos) {
            type = k->params.v[i].type;
            name = k->params.v[i].name ? k->params.v[i].name : name;
            pack = k->params.v[i].pack;
        }
        for (size_t p = 0; k && !by_pos && p < k->params.n && !type; p++)
            if (k->params.v[p].name && a->param && !strcmp(k->params.v[p].name, a->param))
                type = k->params.v[p].type;
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(o, name ? name : "?", r->in);
        if (pack && name && strcmp(pack, name)) {
            kw_buf_puts(o, " (");
            kw_md_code(o, pack, r->in);
            kw_buf_puts(o, ")");
        }
        kw_r_cell(r);
        if (type)
            kw_md_code(o, type, r->in);
        kw_r_cell(r);
        kw_md_code(o, a->expr ? a->expr : "?", r->in);
        if (by_pos)
            kw_host_arg_fields(r, &k->params.v[i]);
    }
    kw_r_table_end(r);
    kw_r_gap(r);
}

/* A long function name with its first template argument list elided, what
 * follows it kept: "ck_tile::make_kernel<...>::(lambda at f.hpp:39:12)" for
 * make_kernel's kilobytes of kernel-struct arguments (the page's overview
 * has them). */
static const char *kw_host_fn_short(kw_render *r, const char *name) {
    const char *lt = strchr(name, '<');
    if (strlen(name) <= 200 || !lt) /* the instantiation shown where it reads in a line */
        return name;
    int depth = 0;
    const char *c = lt;
    for (; *c; c++) {
        depth += *c == '<' ? 1 : *c == '>' ? -1 : 0;
        if (!depth)
            break;
    }
    if (!*c)
        return name;
    const char *s = kw_arena_printf(&r->scratch, "%.*s<...>%s", (int)(lt - name), name, c + 1);
    return s ? s : name;
}

static void kw_host_statement(kw_render *r, const kw_mlaunch *ml) {
    const kw_launch *l = ml->l;
    if (!l->location.file) {
        kw_r_para(r, "The launch has no recorded location.");
        return;
    }
    kw_r_ref(r, l->location.file, l->location.line, "launch", r->mk->name);
    const char *kind = l->kind ? l->kind : "other";
    kw_r_p(r);
    kw_r_t(r, "Launch statement (");
    kw_r_c(r, kind);
    if (l->macro_expansions.n) {
        kw_r_t(r, ", through macro");
        kw_r_t(r, l->macro_expansions.n > 1 ? "s " : " ");
        for (size_t i = l->macro_expansions.n; i-- > 0;) {
            kw_r_c(r, l->macro_expansions.v[i].macro ? l->macro_expansions.v[i].macro : "?");
            kw_r_t(r, i ? " > " : "");
        }
    }
    kw_r_t(r, ") in ");
    kw_r_c(r, kw_host_fn_short(r, kw_r_name(r, l->function ? l->function : "?")));
    kw_r_t(r, ", at ");
    kw_r_kloc(r, &l->location);
    kw_r_t(r, ":");
    kw_r_p_end(r);
    /* a launch inside a kernel library's header (the sidecar's `library` and
     * `site`): location is the user's call into the library, site the <<<>>>
     * itself */
    const char *library = l->library;
    const kw_loc *site = &l->site;
    if (library) {
        kw_r_p(r);
        kw_r_t(r, "The `<<<>>>` itself is inside the kernel library ");
        kw_r_c(r, library);
        if (site && site->file) {
            kw_r_t(r, ", at ");
            kw_r_kloc(r, site);
            kw_r_ref(r, site->file, site->line, "launch", library);
        }
        kw_r_t(r, "; the launch is attributed to the first call outside the library, quoted "
                  "here:");
        kw_r_p_end(r);
        if (kw_r_check(r, l->location.file, l->location.line, NULL, false, "the call"))
            kw_r_quote(r, l->location.file, l->location.line,
                       kw_src_stmt_end(kw_page_src(&r->page, l->location.file), l->location.line,
                                       l->location.column, 30),
                       "cpp");
        if (site && site->file &&
            kw_r_check(r, site->file, site->line, NULL, false, "the library's launch")) {
            const kw_src_file *sf = kw_page_src(&r->page, site->file);
            /* the kernel's name may sit on a line above the `<<<` */
            int first = kw_src_stmt_start(sf, site->line, kw_r_base_name(r, r->mk->name), 8);
            kw_r_para(r, "The library's launch statement:");
            kw_r_quote(r, site->file, first ? first : site->line,
                       kw_src_stmt_end(sf, site->line, site->column, 30), "cpp");
        }
        return;
    }
    /* the line must still hold the kernel's name (or the launching macro's) */
    const char *name = kw_r_base_name(r, r->mk->name);
    const char *token = l->kernel ? name : NULL; /* a loader's call need not name the kernel */
    const kw_src_file *f = kw_page_src(&r->page, l->location.file);
    if (token && l->macro_expansions.n && !kw_src_line_has(f, l->location.line, token, false)) {
        const char *outer = l->macro_expansions.v[l->macro_expansions.n - 1].macro;
        if (outer)
            token = outer;
    }
    /* a statement whose kernel name is on a line above its `<<<` begins there */
    int first = token ? kw_src_stmt_start(f, l->location.line, token, 8) : 0;
    if (!first)
        first = l->location.line;
    if (!kw_r_check(r, l->location.file, first, token, false, "the launch"))
        return;
    int last = kw_src_stmt_end(f, l->location.line, l->location.column, 30);
    kw_r_quote(r, l->location.file, first, last, "cpp");
}

/* A launch whose loader is built from a config table's rows (the sidecar's
 * asm_choices): the rows naming this kernel, with what selects each. */

/* A launch no entry point reaches: the conditions it sits under and the
 * instantiation chain that emitted it. */
static void kw_host_unreached(kw_render *r, const kw_launch *l) {
    if (l->guards.n) {
        bool taken = true;
        kw_r_p(r);
        kw_r_t(r, "Conditions at the launch");
        kw_host_guards(r, l->guards.v, l->guards.n, &taken, NULL, NULL);
        kw_r_t(r, ".");
        kw_r_p_end(r);
    }
    kw_host_chain(r, l);
}
/* The sentence before a config table's rows: where the loader is built,
 * and from which table; then the list of the rows is open (kw_r_list). */
static void kw_host_table_head(kw_render *r, const kw_asm_choice *ch) {
    kw_r_p(r);
    if (ch->wrapper) {
        kw_md_strong(r->out, "Chosen where the wrapper is made.", kw_r_prose_in(r));
        kw_r_t(r, " The loader is built inside ");
        kw_r_c(r, ch->wrapper);
        kw_r_t(r, " at ");
        kw_r_loc(r, ch->wrapper_location.file, ch->wrapper_location.line);
        kw_r_t(r, " from its arguments; ");
        kw_r_c(r, ch->wrapper);
        kw_r_t(r, " is made at ");
        kw_r_loc(r, ch->construction.file, ch->construction.line);
        if (ch->table) {
            kw_r_t(r, " from a row of ");
            kw_r_c(r, ch->table);
            kw_r_tf(r, " (%d rows) ", ch->rows);
            kw_r_loc(r, ch->table_location.file, ch->table_location.line);
        }
        kw_r_t(r, ch->table ? "; this kernel's rows:" : ":");
    } else {
        kw_md_strong(r->out, "Selected from a table.", kw_r_prose_in(r));
        kw_r_t(r, " The loader is built from a row of ");
        kw_r_c(r, ch->table ? ch->table : "?");
        kw_r_tf(r, " (%d rows) ", ch->rows);
        kw_r_loc(r, ch->table_location.file, ch->table_location.line);
        kw_r_t(r, "; this kernel's rows:");
    }
    kw_r_p_end(r);
    kw_r_list(r);
}

static void kw_host_table_rows(kw_render *r, const kw_launch *l, const char *symbol) {
    for (size_t c = 0; c < l->asm_choices.n; c++) {
        const kw_asm_choice *ch = &l->asm_choices.v[c];
        bool head = false;
        for (size_t i = 0; i < ch->candidates.n; i++) {
            const kw_asm_candidate *cd = &ch->candidates.v[i];
            if (!cd->asm_kernel || !symbol || strcmp(cd->asm_kernel, symbol))
                continue;
            if (!head)
                kw_host_table_head(r, ch);
            head = true;
            kw_r_item(r, 0);
            kw_r_loc(r, cd->location.file, cd->location.line);
            if (cd->condition) {
                kw_r_t(r, " when ");
                kw_r_c(r, cd->condition);
            }
            if (cd->fields) {
                kw_r_t(r, " (");
                kw_r_c(r, cd->fields);
                kw_r_t(r, ")");
            }
            kw_r_t(r, ": ");
            kw_r_c(r, kw_r_path(r, cd->file ? cd->file : cd->code_object));
        }
        if (head) {
            kw_r_list_end(r);
            kw_r_gap(r);
        }
    }
}

void kw_render_host(kw_render *r) {
    const kw_mkernel *mk = r->mk;
    KW_R_HEADING(r, 2, "1. Host Side: Python → C++ → Kernel Launch");
    size_t nl = mk->launches.n;
    kw_mpaths *paths = r->page.paths;
    if (!nl) {
        kw_r_para(r, "No launch of this kernel was recorded in the host code of this index (it "
                     "may be launched through a function pointer, a module loader, or from a "
                     "translation unit whose sidecar is not indexed).");
        return;
    }
    kw_host_entries(r, paths, nl);
    for (size_t i = 0; i < nl; i++) {
        const kw_mlaunch *ml = &r->m->launches.v[mk->launches.v[i]];
        kw_r_h(r, 3);
        kw_r_tf(r, "Launch site %zu of %zu: ", i + 1, nl);
        kw_r_s(r, kw_r_path(r, ml->l->location.file));
        kw_r_tf(r, ":%d", ml->l->location.line);
        kw_r_h_end(r);
        kw_r_p(r);
        kw_md_strong(r->out, "Dispatch path.", kw_r_prose_in(r));
        kw_r_t(r, " ");
        if (paths && paths[i].v.n) {
            size_t ne = kw_host_nentries(&paths[i]);
            kw_r_tf(r, "%zu entry point%s reach%s this launch", ne, ne == 1 ? "" : "s",
                    ne == 1 ? "es" : "");
            kw_host_routes(r, ml, &paths[i], ne); /* ends the paragraph */
        } else {
            if (!paths || !paths[i].dead)
                kw_r_t(r, "No entry point of this index reaches this launch.");
            else if (ml->l->dead)
                kw_r_t(r, "This launch never runs: a condition it sits under is a compile-time "
                          "constant that does not hold here.");
            else
                kw_r_t(r, "This launch never runs: every entry point that would reach it does "
                          "so only through a call under a compile-time constant condition that "
                          "does not hold.");
            kw_r_p_end(r);
            kw_host_unreached(r, ml->l);
        }
        kw_host_table_rows(r, ml->l, mk->symbol);
        kw_r_p(r);
        kw_md_strong(r->out, "Grid and block.", kw_r_prose_in(r));
        kw_r_p_end(r);
        kw_host_config(r, ml, i);
        kw_host_args(r, ml->l);
        kw_host_statement(r, ml);
    }
}
