/* kw_render_triton.c: the walkthrough of a Triton specialization (a kernel
 * with language: triton, docs/triton.md): the title, the overview, section
 * 1 (the hook's launch: call chain, grid and arguments as written; the
 * constexpr values and compile options), section 2 (the @triton.jit function
 * quoted, the TTGIR's layouts and tl.dot ops (kw_r_ttgir.c) and the .llir's
 * IR facts), section 3 (where the data comes from and goes) and 4 (work per
 * program from the IR facts and the tl.dot ops, against the hardware peaks),
 * as far as the captured facts go. Sections 5 and 6 are the shared writers.
 * What is quoted and where is decided in the page model (model/kw_page.c). */
#include <stdlib.h>
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

static const char *const kw_rt_no_ir =
    "not captured for this kernel: they need the IR facts of the cache's `.llir` and the "
    "layouts of its `.ttgir`, which `kwalk index --triton-cache` reads but this index does not "
    "have (docs/triton.md)";

/* The option named name, or NULL. */
static const char *kw_rt_option(const kw_triton *t, const char *name) {
    for (size_t i = 0; i < t->options.n; i++)
        if (t->options.v[i].name && !strcmp(t->options.v[i].name, name))
            return t->options.v[i].value;
    return NULL;
}

static void kw_rt_title(kw_render *r) {
    const kw_kernel *k = r->page.k;
    kw_r_h(r, 1);
    kw_r_t(r, "Kernel Walkthrough: ");
    kw_r_c(r, r->mk->name);
    kw_r_h_end(r);
    const char *file = k->location.file;
    kw_r_note(r);
    kw_r_tf(r, "Source: %s | Language: Triton | File: ", kw_provider_of(r->providers, file));
    if (file) {
        kw_r_loc(r, file, k->location.line);
        kw_r_ref(r, file, k->location.line, "kernel", r->mk->name);
    } else {
        kw_r_t(r, "(no definition recorded)");
    }
    kw_r_note_end(r);
}

/* A row of the overview table: a key and its value's first cell text. */
static void kw_rt_key(kw_render *r, const char *key) {
    kw_r_row(r);
    kw_r_cell(r);
    kw_buf_puts(r->out, key);
    kw_r_cell(r);
}

static void kw_rt_row(kw_render *r, const char *key, const char *code) {
    kw_rt_key(r, key);
    kw_md_code(r->out, code ? code : "?", r->in);
}

static void kw_rt_overview(kw_render *r) {
    const kw_kernel *k = r->page.k;
    const kw_triton *t = r->page.triton;
    kw_buf *o = r->out;
    KW_R_HEADING(r, 2, "Overview");
    static const char *const head[] = {"", ""};
    kw_r_table(r, 2, head);
    kw_rt_row(r, "Specialization", r->mk->name);
    kw_rt_row(r, "Symbol", k->symbol);
    kw_rt_key(r, "Built for");
    kw_r_plainf(r, "%s", kw_r_arch_list(r));
    kw_rt_key(r, "Defined at");
    kw_r_kloc(r, &k->location);
    if (t->triton_version) {
        kw_rt_key(r, "Triton");
        kw_r_plainf(r, "%s, backend %s, wave size %lld", t->triton_version,
                    t->backend ? t->backend : "?", t->warp_size);
    }
    if (t->cache_dir) {
        kw_rt_key(r, "Cache folder");
        kw_md_code(o, kw_r_path(r, t->cache_dir), r->in);
    }
    if (t->cache_hit) {
        kw_rt_key(r, "Compile");
        kw_buf_puts(o, "loaded from Triton's cache by the run the hook recorded");
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    KW_R_LIT(r, "A Triton specialization: the `@triton.jit` function compiled with the "
                "constexpr values and options of section 1 for one arch, one folder of "
                "Triton's cache.\n\n");
}

/* ---- section 1 ------------------------------------------------------------------------------ */

static const char *kw_rt_param_type(const kw_kernel *k, const kw_triton *t, const char *name) {
    for (size_t i = 0; name && i < k->params.n; i++)
        if (k->params.v[i].name && !strcmp(k->params.v[i].name, name))
            return k->params.v[i].type;
    for (size_t i = 0; name && i < t->constexprs.n; i++)
        if (t->constexprs.v[i].name && !strcmp(t->constexprs.v[i].name, name))
            return "constexpr";
    return name && kw_rt_option(t, name) ? "(compile option)" : NULL;
}

/* An argument written `*expr` or `**expr` (no single parameter). */
static bool kw_rt_spread(const kw_launch_arg *a) {
    return a->expr && a->expr[0] == '*';
}

/* Whether s is one Python identifier (checked as a token, not as text). */
static bool kw_rt_ident(const char *s) {
    for (const char *p = s; *p; p++)
        if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (p > s && *p >= '0' && *p <= '9')))
            return false;
    return *s != 0;
}

/* A starred argument's parameters (or their types), comma-separated. */
static void kw_rt_params(kw_render *r, const kw_kernel *k, const kw_launch_arg *a, bool types) {
    for (size_t i = 0; i < a->params.n; i++) {
        const char *p = a->params.v[i];
        const char *t = types ? kw_rt_param_type(k, r->page.triton, p) : p;
        if (i)
            kw_buf_puts(r->out, ", ");
        kw_md_code(r->out, t ? t : "?", r->in);
    }
}

static void kw_rt_launch(kw_render *r, size_t i) {
    kw_buf *o = r->out;
    const kw_kernel *k = r->page.k;
    const kw_launch *l = r->m->launches.v[r->mk->launches.v[i]].l;
    kw_r_h(r, 3);
    kw_r_tf(r, "Launch site %zu of %zu: ", i + 1, r->mk->launches.n);
    kw_r_s(r, kw_r_path(r, l->location.file));
    kw_r_tf(r, ":%d", l->location.line);
    kw_r_h_end(r);
    kw_r_p(r);
    kw_md_strong(o, "Call chain", kw_r_prose_in(r));
    kw_r_t(r, ", from the outermost Python frame down to the launch:");
    kw_r_p_end(r);
    kw_r_ol steps;
    kw_r_ol_open(r, &steps);
    for (size_t j = l->call_chain.n; j-- > 0;) {
        const kw_chain_link *c = &l->call_chain.v[j];
        kw_r_ol_item(r, &steps);
        kw_r_c(r, c->function ? c->function : "?");
        kw_r_t(r, " at ");
        kw_r_kloc(r, &c->location);
        kw_r_ref(r, c->location.file, c->location.line, "Python op", c->function);
    }
    kw_r_ol_item(r, &steps);
    kw_r_c(r, l->function ? l->function : "?");
    kw_r_t(r, " launches ");
    const char *callee = l->callee ? l->callee : r->mk->name;
    char *call =
        kw_arena_printf(&r->scratch, "%s[%s](...)", callee, l->grid.expr ? l->grid.expr : "?");
    kw_r_c(r, call ? call : "?");
    kw_r_t(r, " at ");
    kw_r_kloc(r, &l->location);
    kw_r_ol_end(r, &steps);
    if (strcmp(callee, r->mk->name)) {
        kw_r_p(r);
        kw_r_t(r, "The kernel is launched under another name: ");
        kw_r_c(r, callee);
        kw_r_t(r, " held ");
        kw_r_c(r, r->mk->name);
        kw_r_t(r, " (or the autotuner or heuristics wrapping it) when the hook saw the launch.");
        kw_r_p_end(r);
    }
    kw_r_ref(r, l->location.file, l->location.line, "launch", r->mk->name);

    kw_r_p(r);
    kw_md_strong(o, "Grid.", kw_r_prose_in(r));
    kw_r_t(r, " As written: ");
    kw_r_c(r, l->grid.expr ? l->grid.expr : "(not recorded)");
    if (l->grid.has_value)
        kw_r_tf(r, "; at the launch: (%lld, %lld, %lld) programs.", l->grid.value[0],
                l->grid.value[1], l->grid.value[2]);
    else
        kw_r_t(r, "; its value is not recorded (the hook records it when the grid is a tuple of "
                  "ints at the call).");
    kw_r_p_end(r);

    bool unplaced = false;
    if (l->args.n) {
        KW_R_LIT(r, "Arguments as written at the launch:\n\n");
        static const char *const head[] = {"Parameter", "Triton type", "Argument"};
        kw_r_table(r, 3, head);
        for (size_t j = 0; j < l->args.n; j++) {
            const kw_launch_arg *a = &l->args.v[j];
            const char *type = kw_rt_param_type(k, r->page.triton, a->param);
            kw_r_row(r);
            kw_r_cell(r);
            if (a->param) /* none for `**config`: its keys are not known here */
                kw_md_code(o, a->param, r->in);
            else if (a->params.n) /* the one `*x.stride()`: the parameters it bound */
                kw_rt_params(r, k, a, false);
            else if (kw_rt_spread(a))
                kw_buf_puts(o, "-");
            else /* after a starred argument, not placed */
                kw_buf_puts(o, "not known"), unplaced = true;
            kw_r_cell(r);
            if (a->params.n)
                kw_rt_params(r, k, a, true);
            else if (type)
                kw_md_code(o, type, r->in);
            else
                kw_buf_puts(o, "-");
            kw_r_cell(r);
            kw_md_code(o, a->expr ? a->expr : "?", r->in);
        }
        kw_r_table_end(r);
        kw_r_gap(r);
        if (unplaced)
            kw_r_para(r, "\"Not known\": a positional argument after a starred one "
                         "(`*x.stride()`) whose parameter the hook could not tell: it places "
                         "those after the last starred argument by counting back from the "
                         "values the launch passed, and no others.");
    } else {
        KW_R_LIT(r, "The arguments as written are not recorded (the call's source text could "
                    "not be read when it ran).\n\n");
    }
    int last = r->page.launch_last ? r->page.launch_last[i] : 0;
    kw_r_p(r);
    kw_r_t(r, "Launch statement in ");
    kw_r_c(r, l->function ? l->function : "?");
    kw_r_t(r, ":");
    kw_r_p_end(r);
    /* the line holds the callee the hook recorded (`impl`, `self.kernel`), up to
     * its first blank (the hook writes a line break as one); older sidecars name
     * none: the kernel's own name */
    const char *blank = strchr(callee, ' ');
    const char *first =
        blank ? kw_arena_strndup(&r->scratch, callee, (size_t)(blank - callee)) : callee;
    if (!first) {
        o->oom = true;
        return;
    }
    if (kw_r_check(r, l->location.file, l->location.line, first, !kw_rt_ident(first), "the launch"))
        kw_r_quote(r, l->location.file, l->location.line, last ? last : l->location.line, "python");
}

/* ", WHAT file:line" of a constexpr's location, when it has one (in a
 * table's cell: what is the program's words, `code` its only markup). */
static void kw_rt_from_at(kw_render *r, const kw_triton_constexpr *c, const char *what) {
    if (!c->location.file)
        return;
    kw_buf_puts(r->out, ", ");
    kw_md_lit(r->out, what, r->in);
    kw_r_kloc(r, &c->location);
}

/* `from: hook`: the compile's constants. Where a launch's argument binds
 * the name, the launch passed it; where a launch spreads a mapping or a
 * sequence, it may have; where the launches show neither, a wrapper of the
 * kernel set it (a hook before the one telling them apart wrote `hook`). */
static void kw_rt_from_launch(kw_render *r, const kw_triton_constexpr *c) {
    kw_buf *o = r->out;
    const kw_launch_arg *bound = NULL, *spread = NULL;
    for (size_t i = 0; i < r->mk->launches.n && !bound; i++) {
        const kw_launch *l = r->m->launches.v[r->mk->launches.v[i]].l;
        for (size_t j = 0; j < l->args.n && !bound; j++) {
            const kw_launch_arg *a = &l->args.v[j];
            bool in_star = false;
            for (size_t p = 0; p < a->params.n && c->name && !in_star; p++)
                in_star = !strcmp(a->params.v[p], c->name);
            if (a->param && c->name && !strcmp(a->param, c->name))
                bound = a;
            else if (in_star)
                spread = a;
            else if (!spread && kw_rt_spread(a))
                spread = a;
        }
    }
    if (bound) {
        kw_buf_puts(o, "the launch passed it: ");
        kw_md_code(o, bound->expr ? bound->expr : "?", r->in);
        kw_buf_puts(o, " (hook)");
    } else if (spread) {
        kw_buf_puts(o, "the launch passed it through ");
        kw_md_code(o, spread->expr, r->in);
        kw_buf_puts(o, " (hook)");
    } else if (r->mk->launches.n) {
        kw_md_lit(o,
                  "the compile's constants (hook); no argument of the launch names it: a "
                  "wrapper of the kernel (`@triton.autotune`, `@triton.heuristics`) set it",
                  r->in);
    } else {
        kw_buf_puts(o, "the compile's constants (hook)");
    }
}

static void kw_rt_constexprs(kw_render *r) {
    kw_buf *o = r->out;
    const kw_triton *t = r->page.triton;
    KW_R_HEADING(r, 3, "Constexpr values of this specialization");
    if (!t->constexprs.n) {
        kw_r_p(r);
        if (t->constexprs_note) {
            kw_r_t(r, "None listed: ");
            kw_md_text(o, t->constexprs_note, kw_r_prose_in(r));
            kw_r_t(r, ".");
        } else {
            kw_r_t(r, "The function has no `tl.constexpr` argument.");
        }
        kw_r_p_end(r);
        return;
    }
    KW_R_LIT(r, "The `tl.constexpr` arguments pick the code, as template arguments do in "
                "C++:\n\n");
    static const char *const head[] = {"Name", "Value", "From"};
    kw_r_table(r, 3, head);
    for (size_t i = 0; i < t->constexprs.n; i++) {
        const kw_triton_constexpr *c = &t->constexprs.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(o, c->name ? c->name : "?", r->in);
        kw_r_cell(r);
        if (c->value)
            kw_md_code(o, c->value, r->in);
        else
            kw_buf_puts(o, "not known");
        kw_r_cell(r);
        const char *from = c->from ? c->from : "";
        if (!c->value) {
            kw_md_text(o, c->why ? c->why : "not recorded", r->in);
        } else if (!strcmp(from, "hook")) {
            kw_rt_from_launch(r, c);
        } else if (!strcmp(from, "default")) {
            kw_buf_puts(o, "the ");
            kw_md_code(o, "def", r->in);
            kw_buf_puts(o, "'s default, not passed (hook)");
        } else if (!strcmp(from, "autotune")) {
            kw_buf_puts(o, "the ");
            kw_md_code(o, "triton.Config", r->in);
            kw_buf_puts(o, " the autotuner ran (hook)");
            kw_rt_from_at(r, c, "`@triton.autotune` at ");
        } else if (!strcmp(from, "heuristics")) {
            kw_md_code(o, "@triton.heuristics", r->in);
            kw_buf_puts(o, " computed it (hook)");
            kw_rt_from_at(r, c, "its function at ");
        } else if (!strcmp(from, "compile")) {
            kw_buf_puts(o, "the direct ");
            kw_md_code(o, "triton.compile(...)", r->in);
            kw_buf_puts(o, " passed it (hook)");
            kw_rt_from_at(r, c, "at ");
        } else if (!strcmp(from, "cache_ir_branch")) {
            kw_buf_puts(o, "the cache's TTIR: it holds code of the ");
            kw_md_code(o, !strcmp(c->value, "True") ? "if" : "else", r->in);
            kw_buf_puts(o, " branch only of ");
            kw_md_code(o, kw_arena_printf(&r->scratch, "if %s:", c->name ? c->name : "?"), r->in);
            kw_buf_puts(o, " at ");
            kw_r_kloc(r, &c->location);
        } else if (!strcmp(from, "cache_ir")) {
            /* the source line the op comes from, as it reads now */
            const kw_src_file *f =
                c->location.file ? kw_page_src(&r->page, c->location.file) : NULL;
            const char *text;
            size_t tl;
            kw_buf_puts(o, "the cache's TTIR: the op of ");
            if (f && kw_src_line_unindented(f, c->location.line, &text, &tl)) {
                char *line = kw_arena_strndup(&r->scratch, text, tl);
                kw_md_code(o, line ? line : "?", r->in);
                kw_buf_puts(o, " at ");
            }
            kw_r_kloc(r, &c->location);
        } else {
            kw_md_text(o, from, r->in);
        }
    }
    kw_r_table_end(r);
    kw_r_gap(r);
}

static void kw_rt_options(kw_render *r) {
    kw_buf *o = r->out;
    const kw_triton *t = r->page.triton;
    KW_R_HEADING(r, 3, "Compile options");
    if (!t->options.n) {
        KW_R_LIT(r, "No compile options recorded.\n\n");
        return;
    }
    KW_R_LIT(r, "As Triton's `NAME.json` for this compile writes them:\n\n");
    static const char *const head[] = {"Option", "Value"};
    kw_r_table(r, 2, head);
    for (size_t i = 0; i < t->options.n; i++) {
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(o, t->options.v[i].name ? t->options.v[i].name : "?", r->in);
        kw_r_cell(r);
        const char *v = t->options.v[i].value;
        if (v && *v)
            kw_md_code(o, v, r->in);
        else
            kw_buf_puts(o, "(empty)");
    }
    kw_r_table_end(r);
    kw_r_gap(r);
}

enum { KW_RT_CHAINS = 3 }; /* chains from the model shown per launch */

/* The chains python/kwalk_pyscan.py found statically over the --python-root
 * trees: per `kernel[grid](...)` of this kernel in a wrapper, the outermost
 * callers' chains down to that launch, then the calls not resolved
 * statically that could lead to the wrapper. */
static void kw_rt_chains(kw_render *r) {
    const kw_py_chains *pc = r->m->py ? r->m->py->chains : NULL;
    const kw_kernel *k = r->page.k;
    if (!pc || !k || !k->location.file)
        return;
    kw_buf *o = r->out;
    size_t *ix = NULL;
    size_t n = kw_py_chains_kernel_launches(pc, k->name, k->location.file, k->location.line,
                                            &r->scratch, &ix);
    if (n == (size_t)-1) {
        o->oom = true;
        return;
    }
    KW_R_HEADING(r, 3, "Python chains to the launch (static)");
    if (!n) {
        kw_r_para(r, "No `kernel[grid](...)` of this kernel in the Python trees (as far as "
                     "calls resolve statically).");
        for (size_t i = 0; i < pc->too_deep.n; i++) {
            const kw_py_too_deep *t = &pc->too_deep.v[i];
            const char *given = kw_arena_printf(&r->scratch, "--python-root %s", t->root);
            const char *pass = kw_arena_printf(&r->scratch, "--python-root %s", t->parent);
            kw_r_p(r);
            kw_r_c(r, given ? given : "?");
            kw_r_t(r, " is the package ");
            kw_r_c(r, t->package);
            kw_r_t(r, " itself (");
            kw_r_loc(r, t->file, t->line);
            kw_r_t(r, " imports it by that name), so its modules are not found under the names "
                      "the code imports: give the folder holding it, ");
            kw_r_c(r, pass ? pass : "?");
            kw_r_t(r, ".");
            kw_r_p_end(r);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const kw_py_launch *pl = &pc->launches.v[ix[i]];
        const char *wrapper = pc->ops.v[pl->op].name;
        size_t *cx = NULL;
        size_t nc = kw_py_chains_of_op(pc, pl->op, true, &r->scratch, &cx);
        if (nc == (size_t)-1) {
            o->oom = true;
            return;
        }
        kw_r_p(r);
        kw_r_c(r, wrapper);
        kw_r_t(r, " launches it at ");
        kw_r_loc(r, pl->file, pl->line);
        kw_r_ref(r, pl->file, pl->line, "launch", r->mk->name);
        for (size_t c = 0; c < pl->conds.n; c++) {
            kw_r_t(r, c ? " and " : ", when ");
            kw_r_c(r, pl->conds.v[c]);
        }
        if (!nc)
            kw_r_t(r, "; no outermost caller in the Python trees reaches the wrapper");
        kw_r_t(r, ".");
        kw_r_p_end(r);
        for (size_t c = 0; c < nc && c < KW_RT_CHAINS; c++)
            kw_r_python_chain(r, &pc->v.v[cx[c]], wrapper, pl, r->mk->name);
        kw_r_python_more(r, nc, KW_RT_CHAINS);
        bool again = false; /* the wrapper's unresolved calls once */
        for (size_t j = 0; j < i && !again; j++)
            again = pc->launches.v[ix[j]].op == pl->op;
        if (!again)
            kw_r_python_unresolved(r, pc, pl->op, i ? pc->launches.v[ix[0]].op : (size_t)-1);
    }
}

static void kw_rt_host(kw_render *r) {
    KW_R_HEADING(r, 2, "1. Host Side: Python → Kernel Launch");
    const kw_triton *t = r->page.triton;
    if (!r->mk->launches.n && t && t->compiled_at.file) {
        kw_r_p(r);
        kw_r_t(r, "Compiled directly, not launched: ");
        kw_r_c(r, "triton.compile(...)");
        kw_r_t(r, " at ");
        kw_r_kloc(r, &t->compiled_at);
        kw_r_t(r, " (hook). No grid, arguments or call chain: no `kernel[grid](...)` reached "
                  "this compile.");
        kw_r_p_end(r);
        kw_r_ref(r, t->compiled_at.file, t->compiled_at.line, "Python call", "triton.compile");
    } else if (!r->mk->launches.n) {
        KW_R_LIT(r, "No launch recorded (cache-only; run with the hook: docs/triton.md).\n\n");
    }
    for (size_t i = 0; i < r->mk->launches.n; i++)
        kw_rt_launch(r, i);
    kw_rt_chains(r);
    kw_rt_constexprs(r);
    kw_rt_options(r);
}

/* ---- sections 2, 3, 4 ----------------------------------------------------------------------- */

/* Section 2's TTGIR part: the layouts, each blocked layout's tile, and the
 * loads, stores, LDS and dot ops with their tensors. */
static void kw_rt_ttgir(kw_render *r, const kw_triton *t) {
    kw_buf *o = r->out;
    KW_R_LIT(r, "The layouts of the kernel's TTGIR (`NAME.ttgir` in the cache folder), as "
                "Triton wrote them:\n\n");
    static const char *const lhead[] = {"Layout", "Kind", "Parameters"};
    kw_r_table(r, 3, lhead);
    for (size_t i = 0; i < t->layouts.n; i++) {
        const kw_triton_layout *l = &t->layouts.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(o, l->name, r->in);
        kw_r_cell(r);
        kw_md_code(o, l->kind ? l->kind : "?", r->in);
        kw_r_cell(r);
        if (l->params)
            kw_md_code(o, l->params, r->in);
        else
            kw_buf_puts(o, "-");
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_r_ttgir_layout_notes(r);
    KW_R_HEADING(r, 3, "Loads, stores, LDS and dot ops (TTGIR)");
    if (!t->memory_ops.n) {
        KW_R_LIT(r, "None in the TTGIR's kernel function.\n\n");
        return;
    }
    static const char *const mhead[] = {"Op",     "Result", "Python line",
                                        "Tensor", "Layout", "Per thread"};
    kw_r_table(r, 6, mhead);
    for (size_t i = 0; i < t->memory_ops.n; i++) {
        const kw_triton_memop *m = &t->memory_ops.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(o, m->op, r->in);
        kw_r_cell(r);
        char *val = m->value ? kw_arena_printf(&r->scratch, "%%%s", m->value) : NULL;
        if (val)
            kw_md_code(o, val, r->in);
        else
            kw_buf_puts(o, "-");
        kw_r_cell(r);
        if (m->location.file)
            kw_r_loc(r, m->location.file, m->location.line);
        else
            kw_buf_puts(o, "-");
        kw_r_cell(r);
        for (size_t d = 0; d < m->shape.n; d++)
            kw_buf_printf(o, "%lld × ", m->shape.v[d]);
        kw_md_code(o, m->element ? m->element : "?", r->in);
        if (!m->shape.n)
            kw_buf_puts(o, " (scalar)");
        kw_r_cell(r);
        if (m->layout)
            kw_md_code(o, m->layout, r->in);
        else
            kw_buf_puts(o, "-");
        kw_r_cell(r);
        const kw_ttgir_per_thread *pt = &r->page.ttgir->per_thread.v[i];
        if (pt->known)
            kw_buf_printf(o, "%lld elements, %lld consecutive along dim %lld at a time", pt->elems,
                          pt->vec, pt->vec_dim);
        if (pt->lanes) {
            kw_buf_printf(o, "%slane stride %lld element%s", pt->known ? "; " : "", pt->lane_elems,
                          pt->lane_elems == 1 ? "" : "s");
            if (pt->lane_bytes > 0)
                kw_buf_printf(o, " (%lld byte%s)", pt->lane_bytes, pt->lane_bytes == 1 ? "" : "s");
            kw_buf_printf(o, " along dim %lld for %lld lanes; a wave covers ", pt->lane_dim,
                          pt->lanes_along);
            for (size_t d = 0; d < pt->rank; d++)
                kw_buf_printf(o, "%s%lld", d ? " × " : "", pt->wave[d]);
            kw_buf_puts(o, " elements");
        }
        if (!pt->known && !pt->lanes)
            kw_buf_puts(o, "-");
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    KW_R_LIT(r, "Per thread: the tensor's elements one thread holds under a blocked layout "
                "whose tile divides the tensor (Π sizePerThread × tensor / tile); the lane "
                "stride: how far lane l + 1's elements start after lane l's along `order[0]` "
                "(sizePerThread), for threadsPerWarp of that dim lanes, and the wave's "
                "footprint (sizePerThread × threadsPerWarp per dim), where it fits the tensor; "
                "\"-\" where the layout is not blocked. Where the IR facts below say "
                "\"lane stride unknown\", this column gives the layout's answer.\n\n");
    kw_r_ttgir_dots(r);
}

/* The IR facts of the first arch shown that has them (NULL: none; *a set). */
static const kw_irf *kw_rt_ir(kw_render *r, const kw_rarch **a) {
    for (size_t i = 0; i < r->archs.n; i++)
        if (r->archs.v[i].ir) {
            *a = &r->archs.v[i];
            return r->archs.v[i].ir;
        }
    return NULL;
}

/* "WHAT: not derived, no IR facts for this kernel (<the cache reader's
 * note>)." (the sentence alone when what is NULL); the note itself only where
 * why is set (section 2), the later sections point there. */
static void kw_rt_ir_missing(kw_render *r, const char *what, bool why) {
    const kw_triton *t = r->page.triton;
    if (what) {
        kw_r_t(r, what);
        kw_r_t(r, ": ");
    }
    kw_r_t(r, "not derived, no IR facts for this kernel");
    if (!why) {
        kw_r_t(r, " (section 2 says why)");
    } else if (t && t->ir_note) {
        kw_r_t(r, " (");
        kw_md_text(r->out, t->ir_note, kw_r_prose_in(r));
        kw_r_t(r, ")");
    } else {
        kw_r_t(r, " (indexed without the cache's `.llir`: `kwalk index --triton-cache` reads it, "
                  "docs/triton.md)");
    }
    kw_r_t(r, ".");
}

/* The same as a paragraph. */
static void kw_rt_ir_missing_p(kw_render *r, const char *what, bool why) {
    kw_r_p(r);
    kw_rt_ir_missing(r, what, why);
    kw_r_p_end(r);
}

static void kw_rt_device(kw_render *r) {
    kw_buf *o = r->out;
    const kw_kernel *k = r->page.k;
    KW_R_HEADING(r, 2, "2. Device Kernel: Step-by-Step");
    KW_R_LIT(r, "The `@triton.jit` function, from its `def` to the end of its body:\n\n");
    if (!r->page.def_first) {
        kw_r_p(r);
        kw_r_t(r, "(Source not quoted: ");
        kw_r_s(r, kw_r_path(r, k->location.file));
        kw_r_t(r, ": ");
        kw_md_text(o, r->page.def_why ? r->page.def_why : "not found", kw_r_prose_in(r));
        kw_r_t(r, ".)");
        kw_r_p_end(r);
    } else if (kw_r_check(r, k->location.file, r->page.def_first, r->mk->name, false,
                          "the kernel")) {
        kw_r_quote(r, k->location.file, r->page.def_first, r->page.def_last, "python");
    }
    KW_R_HEADING(r, 3, "Arguments");
    if (!k->params.n) {
        KW_R_LIT(r, "No arguments recorded.\n\n");
    } else {
        static const char *const head[] = {"Name", "Triton type"};
        kw_r_table(r, 2, head);
        for (size_t i = 0; i < k->params.n; i++) {
            kw_r_row(r);
            kw_r_cell(r);
            kw_md_code(o, k->params.v[i].name ? k->params.v[i].name : "?", r->in);
            kw_r_cell(r);
            kw_md_code(o, k->params.v[i].type ? k->params.v[i].type : "?", r->in);
        }
        kw_r_table_end(r);
        kw_r_gap(r);
        KW_R_LIT(r, "The `tl.constexpr` arguments and their values are in section 1.\n\n");
    }
    KW_R_HEADING(r, 3, "Thread-to-data mapping, loads and stores, loops");
    const kw_triton *t = r->page.triton;
    if (t && t->layouts.n)
        kw_rt_ttgir(r, t);
    const kw_rarch *a = NULL;
    const kw_irf *ir = kw_rt_ir(r, &a);
    if (ir) {
        kw_r_para(r, "From the IR facts of the cache's `.llir` (kwalk-irfacts, docs/ir-facts.md): "
                     "a lane is one thread of the program, a block one program "
                     "(`tl.program_id(0)` is `blockIdx.x`); the arguments are named by the "
                     "TTIR signature, the ones Triton appends to the `.llir` (scratch "
                     "pointers) keep `argN`.");
        kw_r_ir_accesses(r, a->arch, ir);
        KW_R_HEADING(r, 3, "Loops, reductions, barriers");
        kw_r_list(r);
        kw_r_ir_idioms(r, ir);
        kw_r_ir_loops(r, ir);
        kw_r_list_end(r);
        kw_r_gap(r);
        KW_R_LIT(r, "Section 5 gives the Python line of each instruction.\n\n");
    } else if (t && (t->layouts.n || t->ir_note)) {
        kw_rt_ir_missing_p(r, "The `tl.program_id` to data mapping, loops and reductions", true);
    } else {
        kw_r_p(r);
        kw_r_t(r, "The `tl.program_id` to data mapping, the accesses, loops, `tl.dot` and "
                  "reductions are ");
        kw_r_t(r, kw_rt_no_ir);
        kw_r_t(r, ". Section 5 gives the Python line of each instruction.");
        kw_r_p_end(r);
    }
}

/* One line per base of the IR's accesses of one kind: "`x_ptr`: 2 loads,
 * 4 bytes per lane each". */
static void kw_rt_flow_bases(kw_render *r, const kw_irf *ir, const char *op, const char *verb) {
    for (size_t i = 0; i < ir->accesses.n; i++) {
        const kw_irf_access *x = &ir->accesses.v[i];
        const char *base = x->param ? x->param : x->object;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            const kw_irf_access *y = &ir->accesses.v[j];
            const char *yb = y->param ? y->param : y->object;
            seen = !strcmp(y->op, x->op) && yb && base && !strcmp(yb, base) &&
                   !strcmp(y->space, x->space);
        }
        if (seen || strcmp(x->op, op) || !base)
            continue;
        size_t n = 0;
        long long bytes = 0;
        for (size_t j = i; j < ir->accesses.n; j++) {
            const kw_irf_access *y = &ir->accesses.v[j];
            const char *yb = y->param ? y->param : y->object;
            if (!strcmp(y->op, x->op) && yb && !strcmp(yb, base) && !strcmp(y->space, x->space))
                n++, bytes += y->bytes_per_lane > 0 ? y->bytes_per_lane : 0;
        }
        kw_r_item(r, 0);
        kw_r_t(r, verb);
        kw_r_t(r, " ");
        kw_r_c(r, base);
        kw_r_t(r, " (");
        kw_r_s(r, x->space);
        kw_r_tf(r, " memory): %zu %s%s in the IR, %lld bytes per lane together.", n, op,
                n == 1 ? "" : "s", bytes);
    }
}

static void kw_rt_flow(kw_render *r) {
    KW_R_HEADING(r, 2, "3. Data Flow Diagram");
    const kw_rarch *a = NULL;
    const kw_irf *ir = kw_rt_ir(r, &a);
    if (!ir) {
        kw_rt_ir_missing_p(r, "The data flow diagram", false);
        return;
    }
    kw_r_p(r);
    kw_r_tf(r,
            "Where the program's data comes from and goes, from the IR facts of %s (section 2 "
            "has each access):",
            a->arch);
    kw_r_p_end(r);
    kw_r_list(r);
    kw_rt_flow_bases(r, ir, "load", "reads");
    kw_rt_flow_bases(r, ir, "atomic", "updates");
    kw_rt_flow_bases(r, ir, "store", "writes");
    kw_r_list_end(r);
    kw_r_gap(r);
}

/* "- LABEL per thread: `v` (x N threads = M per program)." */
static void kw_rt_work(kw_render *r, const char *label, const kw_val *v, long long threads,
                       const char *unit) {
    char b[64];
    const char *text = kw_page_facts_val(v, b, sizeof b);
    if (!text)
        return;
    kw_r_item(r, 0);
    kw_r_t(r, label);
    kw_r_t(r, " per thread: ");
    kw_r_c(r, text);
    if (v->kind == KW_VAL_NUM && threads > 0) {
        kw_r_tf(r, " %s; × %lld threads = %lld %s per program", unit, threads, v->num * threads,
                unit);
    } else if (v->kind == KW_VAL_UNKNOWN && v->why) {
        kw_r_t(r, " (");
        kw_r_sp(r, v->why);
        kw_r_t(r, ")");
    }
    kw_r_t(r, ".");
}

/* Per arch shown with a launch's grid value: its GPU's CUs and the programs
 * per CU (fewer programs than CUs: launch-bound). */
static void kw_rt_programs_per_cu(kw_render *r) {
    const kw_page_perf *pf = r->page.perf;
    for (size_t i = 0; i < r->mk->launches.n; i++) {
        for (size_t a = 0; a < r->archs.n; a++) {
            const kw_page_perf_launch *pl = &pf->launches[a * pf->nlaunches + i];
            const kw_gpu *g = pf->archs[a].gpu;
            if (!pl->per_cu)
                continue;
            kw_r_item(r, 0);
            kw_r_tf(r, "Launch site %zu on %s (%s, %.0f CUs): %.2f programs per CU%s.", i + 1,
                    g->product, g->arch, g->compute_units, pl->blocks_per_cu,
                    pl->launch_bound ? "; fewer programs than CUs, so part of the GPU stays idle "
                                       "(launch-bound at this grid)"
                                     : "");
        }
    }
}

/* The IR facts' FLOP per byte of global traffic against the FP32 ridge point
 * of the arch's GPU, as a HIP page's section 4 says it (the page model's,
 * model/kw_page_perf.h). */
static void kw_rt_bound(kw_render *r, const kw_rarch *a, const kw_irf_work *w) {
    kw_buf *o = r->out;
    const kw_page_perf_arch *pa = &r->page.perf->archs[a - r->archs.v];
    kw_r_item(r, 0);
    if (!pa->ir_numbers) {
        kw_r_t(r, "Arithmetic intensity: not computed (global bytes or FLOP per thread are not a "
                  "number).");
        return;
    }
    const kw_gpu *g = pa->gpu;
    kw_perf_bound b = pa->ir_bound;
    kw_r_tf(r, "Arithmetic intensity: %.3g FLOP per byte of global traffic", b.intensity);
    if (w->mfma > 0)
        kw_r_t(r, " (the MFMA instructions' FLOP in it)");
    if (b.kind != KW_BOUND_UNKNOWN) {
        bool mem = b.kind == KW_BOUND_MEMORY;
        kw_r_tf(r, "; against %s's FP32 ridge point (%.1f FLOP/byte): ", g->product, b.ridge);
        kw_md_strong(o, mem ? "memory-bound" : "compute-bound", kw_r_prose_in(r));
        kw_r_t(r, mem ? " (below the ridge)" : " (at or above the ridge)");
    } else {
        kw_r_tf(r, "; no %s peaks in annotations/hw/amdgpu-peaks.txt", a->arch);
    }
    kw_r_t(r, ".");
}

static void kw_rt_memory(kw_render *r) {
    kw_buf *o = r->out;
    const kw_triton *t = r->page.triton;
    KW_R_HEADING(r, 2, "4. Memory Access Analysis");
    const char *nw = kw_rt_option(t, "num_warps");
    char *end = NULL;
    long long warps = nw ? strtoll(nw, &end, 10) : 0;
    kw_r_list(r);
    kw_r_item(r, 0);
    if (nw && end && !*end && warps > 0 && t->warp_size > 0)
        kw_r_tf(r, "Threads per program: `num_warps` × wave size = %lld × %lld = %lld.", warps,
                t->warp_size, warps * t->warp_size);
    else
        kw_r_t(r, "Threads per program: not known (no `num_warps` or wave size).");
    for (size_t i = 0; i < r->mk->launches.n; i++) {
        const kw_launch *l = r->m->launches.v[r->mk->launches.v[i]].l;
        kw_r_item(r, 0);
        kw_r_tf(r, "Programs at launch site %zu: ", i + 1);
        if (l->grid.has_value)
            kw_r_tf(r, "%lld.", l->grid.value[0] * l->grid.value[1] * l->grid.value[2]);
        else
            kw_r_t(r, "not recorded.");
    }
    kw_r_item(r, 0);
    kw_r_t(r, "LDS per program: ");
    if (t->shared_bytes >= 0) {
        kw_num_bytes(o, (double)t->shared_bytes);
        kw_r_t(r, " (Triton's `shared`, `NAME.json`).");
    } else {
        kw_r_t(r, "not recorded.");
    }
    kw_rt_programs_per_cu(r);
    kw_r_ttgir_dot_work(r);
    const kw_rarch *a = NULL;
    const kw_irf *ir = kw_rt_ir(r, &a);
    if (!ir) {
        kw_r_item(r, 0);
        kw_r_t(r, "Bytes read and written per program, FLOP: ");
        kw_rt_ir_missing(r, NULL, false);
        kw_r_list_end(r);
        kw_r_gap(r);
        kw_render_memory_peaks(r);
        return;
    }
    kw_r_list_end(r);
    long long threads =
        nw && end && !*end && warps > 0 && t->warp_size > 0 ? warps * t->warp_size : 0;
    kw_r_gap(r);
    kw_r_p(r);
    kw_r_tf(r,
            "From the IR facts of %s (an upper bound per thread: the most expensive path, "
            "docs/ir-facts.md):",
            a->arch);
    kw_r_p_end(r);
    kw_r_list(r);
    const kw_irf_work *w = &ir->work_per_thread;
    kw_rt_work(r, "Global bytes read", &w->bytes_read, threads, "bytes");
    kw_rt_work(r, "Global bytes written", &w->bytes_written, threads, "bytes");
    kw_rt_work(r, "LDS bytes read", &w->lds_bytes_read, threads, "bytes");
    kw_rt_work(r, "LDS bytes written", &w->lds_bytes_written, threads, "bytes");
    kw_rt_work(r, "FLOP", &w->flops, threads, "FLOP");
    kw_rt_work(r, "Transcendental operations", &w->transcendental, threads, "operations");
    kw_rt_work(r, "Conversions", &w->conversions, threads, "elements");
    char cb[64];
    if (kw_page_facts_val(&w->conversions, cb, sizeof cb)) {
        /* the item's second line (its paragraph's, indented in Markdown) */
        kw_r_t(r, kw_r_prose_in(r) == KW_MD_HTML ? "\n" : "\n  ");
        kw_r_t(r, "(Conversion operations of the IR: int ↔ float, `fpext`/`fptrunc` and "
                  "`amdgcn.cvt` intrinsics. A conversion Triton writes as integer code, such as "
                  "bf16 → fp32 by a 16-bit shift or a software fp8 rounding, counts among the "
                  "integer operations.)");
    }
    if (w->mfma > 0) {
        kw_r_item(r, 0);
        kw_r_tf(r,
                "Matrix (MFMA) intrinsic calls in the IR: %lld (a count of the calls written in "
                "the function, not weighted by loop trip counts as the figures above are; their "
                "work is in the FLOP above, weighted: each lane's share of a floating-point "
                "MFMA, 2 × K × its result elements, while an integer MFMA counts among the "
                "integer operations).",
                w->mfma);
    }
    kw_rt_bound(r, a, w);
    kw_r_list_end(r);
    kw_r_gap(r);
    kw_render_memory_peaks(r);
}

void kw_render_triton(kw_render *r) {
    kw_rt_title(r);
    kw_rt_overview(r);
    kw_rt_host(r);
    kw_rt_device(r);
    kw_rt_flow(r);
    kw_rt_memory(r);
}
