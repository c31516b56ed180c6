/* kw_render_device.c: section 2, "Device Kernel: Step-by-Step": template
 * parameters (value, default, and the lines of the definition that use
 * them), thread-to-data mapping and load/store patterns from the IR facts,
 * the core computation (inline asm quoted at its line, reductions, barriers),
 * __shared__ memory, and the device call tree with its lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

/* ---- template parameters ------------------------------------------------------------------ */

static void kw_dev_template(kw_render *r, const kw_src_file *f, const kw_src_def *def,
                            bool have_def) {
    const kw_kernel *k = r->mk->k;
    kw_buf *o = r->out;
    KW_R_HEADING(r, 3, "Template parameters");
    if (!k->template_args.n) {
        KW_R_LIT(r, "Not a template: no template parameters.\n\n");
        return;
    }
    static const char *const head[] = {"#",     "Parameter", "Kind",
                                       "Value", "Default?",  "Used on lines"};
    kw_r_table(r, 6, head);
    for (size_t i = 0; i < k->template_args.n; i++) {
        const kw_template_arg *t = &k->template_args.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_plainf(r, "%zu", i + 1);
        kw_r_cell(r);
        kw_md_code(o, t->name ? t->name : "(unnamed)", r->in);
        kw_r_cell(r);
        kw_r_plainf(r, "%s", t->kind ? t->kind : "?");
        kw_r_cell(r);
        kw_md_code(o, kw_r_targ_value(r, t), r->in);
        kw_r_cell(r);
        kw_r_t(r, t->defaulted ? "yes (default)" : "no");
        kw_r_cell(r);
        if (!t->name || !have_def) {
            kw_r_t(r, "-");
        } else {
            int lines[12];
            size_t n = kw_src_uses(f, def->uses_line, def->uses_col, def->last, t->name, lines, 12);
            if (!n)
                kw_r_t(r, "not used in the kernel's own definition");
            for (size_t j = 0; j < n && j < 12; j++) {
                kw_r_tf(r, "%s%d", j ? ", " : "", lines[j]);
                kw_r_ref(r, f->path, lines[j], "kernel", t->name);
            }
            if (n > 12)
                kw_r_tf(r, " and %zu more", n - 12);
        }
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    if (have_def) {
        kw_r_p(r);
        kw_r_t(r, "Lines are those of the kernel's definition (");
        kw_r_s(r, kw_r_path(r, f->path));
        kw_r_tf(r, ":%d-%d) where the parameter's name appears in code.", def->first, def->last);
        kw_r_p_end(r);
    } else
        KW_R_LIT(r, "The kernel's definition could not be read from its source file, so "
                    "the lines using each parameter are not listed.\n\n");
}

/* ---- IR facts: accesses --------------------------------------------------------------------- */

/* The first arch whose IR facts have source locations, else the first with IR
 * facts, or NULL. By default the plugin tracks locations in one device job
 * per compile (the alphabetically first arch's), so the others have none. */
static const kw_rarch *kw_dev_ir_arch(kw_render *r, const kw_irf **ir) {
    const kw_rarch *first = NULL;
    for (size_t a = 0; a < r->archs.n; a++) {
        const kw_irf *f = r->archs.v[a].ir;
        if (f && f->debug_info) {
            *ir = f;
            return &r->archs.v[a];
        }
        if (f && !first)
            first = &r->archs.v[a];
    }
    if (first)
        *ir = first->ir;
    return first;
}

static void kw_dev_no_ir(kw_render *r, const char *what) {
    kw_r_p(r);
    kw_r_t(r, what);
    kw_r_t(r, ": not derived, no IR facts in this sidecar. They come from the plugin's "
              "analysis of the optimized IR (per access: bytes per lane, lane and block "
              "strides, coalescing); from the AST alone this walkthrough can only say which "
              "pointer parameters are const (Overview).");
    kw_r_p_end(r);
}

static void kw_dev_accesses(kw_render *r) {
    const kw_irf *ir = NULL;
    const kw_rarch *a = kw_dev_ir_arch(r, &ir);
    KW_R_HEADING(r, 3, "Thread-to-data mapping, loads and stores");
    if (!a) {
        kw_dev_no_ir(r, "Thread-to-data mapping and load/store patterns");
        return;
    }
    kw_r_ir_accesses(r, a->arch, ir);
}

/* ---- core computation --------------------------------------------------------------------- */

/* Whether inline asm statement i has no location (nothing quoted after its item). */
static bool kw_dev_asm_bare(const kw_kernel *k, size_t i) {
    return i < k->inline_asm.n && !k->inline_asm.v[i].location.file;
}

/* Statement i's item, "- `text` in `function` at `file:line`:" and a blank
 * line: a list of its own, or, where statements without a location follow
 * each other, an item of a loose list (a paragraph in each item) that runs
 * from the first of them to the last. */
static void kw_dev_asm_item(kw_render *r, const kw_kernel *k, size_t i) {
    const kw_inline_asm *s = &k->inline_asm.v[i];
    kw_buf *o = r->out;
    bool html = kw_r_html(r);
    bool loose =
        kw_dev_asm_bare(k, i) && ((i && kw_dev_asm_bare(k, i - 1)) || kw_dev_asm_bare(k, i + 1));
    if (html && loose) {
        bool first = !i || !kw_dev_asm_bare(k, i - 1);
        kw_buf_puts(o, first ? "<ul>\n<li>\n<p>" : "<li>\n<p>");
        r->in = KW_MD_HTML;
    } else {
        kw_r_list(r);
        kw_r_item(r, 0);
    }
    kw_r_c(r, s->text ? s->text : "?");
    kw_r_t(r, " in ");
    kw_r_c(r, s->function ? s->function : "?");
    if (s->location.file) {
        kw_r_t(r, " at ");
        kw_r_kloc(r, &s->location);
        kw_r_ref(r, s->location.file, s->location.line, "inline asm", s->text);
    }
    kw_r_t(r, ":");
    if (html && loose) {
        kw_buf_puts(o, kw_dev_asm_bare(k, i + 1) ? "</p>\n</li>\n" : "</p>\n</li>\n</ul>\n");
        r->in = KW_MD_CELL;
    } else {
        kw_r_list_end(r);
    }
    kw_r_gap(r);
}

static void kw_dev_compute(kw_render *r) {
    const kw_kernel *k = r->mk->k;
    KW_R_HEADING(r, 3, "Core computation");
    if (k->inline_asm.n) {
        kw_r_p(r);
        kw_r_tf(r, "Inline asm (%zu statement%s), as written:", k->inline_asm.n,
                k->inline_asm.n == 1 ? "" : "s");
        kw_r_p_end(r);
        for (size_t i = 0; i < k->inline_asm.n; i++) {
            const kw_inline_asm *s = &k->inline_asm.v[i];
            kw_dev_asm_item(r, k, i);
            if (s->location.file && kw_r_check(r, s->location.file, s->location.line, "asm", false,
                                               "the asm statement"))
                kw_r_quote(r, s->location.file, s->location.line, s->location.line, "cpp");
        }
    } else {
        KW_R_LIT(r, "No inline asm in the kernel or its callees.\n\n");
    }
    const kw_irf *ir = NULL;
    const kw_rarch *a = kw_dev_ir_arch(r, &ir);
    if (!a) {
        KW_R_LIT(r, "Reductions (and their DPP / LDS steps), barriers, loops and "
                    "conversions: not derived, no IR facts in this sidecar. The device call "
                    "tree below shows which helpers the kernel calls.\n\n");
        return;
    }
    kw_r_p(r);
    kw_r_t(r, "From the IR facts of ");
    kw_r_s(r, a->arch);
    kw_r_t(r, ":");
    kw_r_p_end(r);
    kw_r_list(r);
    kw_r_ir_idioms(r, ir);
    size_t unplaced = kw_r_ir_loops(r, ir);
    kw_r_list_end(r);
    kw_r_gap(r);
    if (!unplaced)
        return;
    bool none = unplaced == ir->loops.n;
    kw_r_p(r);
    kw_r_t(r, none ? "No loop has a source line" : "Some loops have no source line");
    if (!ir->debug_info && ir->lines_in) {
        kw_r_t(r, ": the plugin tracked source locations in one device job of this compile "
                  "only, ");
        kw_r_s(r, ir->lines_in);
        kw_r_t(r, "'s (`-fplugin-arg-kwalk-lines=all` tracks them in every one), and this "
                  "page has no IR facts of ");
        kw_r_s(r, ir->lines_in);
        kw_r_t(r, ".");
    } else if (!ir->debug_info) {
        kw_r_t(r, ": the device code was compiled without debug line tables and with the "
                  "plugin's location tracking off (`-fplugin-arg-kwalk-lines=off` or "
                  "`KWALK_LINES=off`), so the optimized IR the loops are read from has no "
                  "locations. Leave it on (the default) or compile with `-Xarch_device "
                  "-gline-tables-only` (or `-g`) and each loop gets the file:line of its "
                  "`for`/`while`.");
    } else {
        kw_r_tf(r, ": the optimizer left no location on %s header.", none ? "their" : "a loop's");
    }
    kw_r_p_end(r);
}

/* ---- shared memory ------------------------------------------------------------------------ */

static void kw_dev_shared(kw_render *r) {
    const kw_kernel *k = r->mk->k;
    kw_buf *o = r->out;
    kw_r_h(r, 3);
    kw_r_t(r, "Shared memory (`__shared__`)");
    kw_r_h_end(r);
    if (!k->shared.n) {
        kw_r_para(r, "The kernel and its callees declare no `__shared__` variable.");
        return;
    }
    static const char *const head[] = {"Variable", "Type", "Bytes", "Declared in", "At"};
    kw_r_table(r, 5, head);
    long long total = 0;
    for (size_t i = 0; i < k->shared.n; i++) {
        const kw_shared_var *s = &k->shared.v[i];
        kw_r_row(r);
        kw_r_cell(r);
        kw_md_code(o, s->name ? s->name : "?", r->in);
        kw_r_cell(r);
        kw_md_code(o, s->type ? s->type : "?", r->in);
        kw_r_cell(r);
        if (s->bytes >= 0) {
            kw_r_plainf(r, "%lld", s->bytes);
            total += s->bytes;
        } else {
            kw_r_t(r, "dynamic (extern)");
        }
        kw_r_cell(r);
        kw_md_code(o, kw_r_name(r, kw_r_short(r, s->function ? s->function : "?")), r->in);
        kw_r_cell(r);
        kw_r_kloc(r, &s->location);
        if (s->location.file)
            kw_r_ref(r, s->location.file, s->location.line, "shared memory", s->name);
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_r_p(r);
    kw_r_tf(r, "Static `__shared__` total from the declarations: %lld bytes per block.", total);
    for (size_t a = 0; a < r->archs.n; a++) {
        long long lds = r->archs.v[a].facts->resources.lds_bytes;
        if (lds < 0)
            continue;
        kw_r_t(r, " The ");
        kw_r_s(r, r->archs.v[a].arch);
        kw_r_tf(r, " code object reserves %lld bytes of LDS.", lds);
    }
    kw_r_p_end(r);
}

/* ---- call tree ---------------------------------------------------------------------------- */

/* A friendly name for HIP's coordinate accessors. */
static const char *kw_dev_hip_name(const char *name) {
    static const struct {
        const char *from, *to;
    } map[] = {
        {"__HIP_Coordinates<__HIP_ThreadIdx>::__X", "threadIdx.x"},
        {"__HIP_Coordinates<__HIP_ThreadIdx>::__Y", "threadIdx.y"},
        {"__HIP_Coordinates<__HIP_ThreadIdx>::__Z", "threadIdx.z"},
        {"__HIP_Coordinates<__HIP_BlockIdx>::__X", "blockIdx.x"},
        {"__HIP_Coordinates<__HIP_BlockIdx>::__Y", "blockIdx.y"},
        {"__HIP_Coordinates<__HIP_BlockIdx>::__Z", "blockIdx.z"},
        {"__HIP_Coordinates<__HIP_BlockDim>::__X", "blockDim.x"},
        {"__HIP_Coordinates<__HIP_BlockDim>::__Y", "blockDim.y"},
        {"__HIP_Coordinates<__HIP_BlockDim>::__Z", "blockDim.z"},
        {"__HIP_Coordinates<__HIP_GridDim>::__X", "gridDim.x"},
        {"__HIP_Coordinates<__HIP_GridDim>::__Y", "gridDim.y"},
        {"__HIP_Coordinates<__HIP_GridDim>::__Z", "gridDim.z"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strncmp(name, map[i].from, strlen(map[i].from)))
            return map[i].to;
    return name;
}

/* One item of the tree (kw_calltree.h): its short label, a reference to its
 * full name, where it is called and defined, its counts. */
static void kw_dev_tree_item(kw_render *r, const kw_calltree_item *it) {
    kw_buf *o = r->out;
    if (it->hip) {
        kw_r_t(r, "HIP runtime: ");
        for (size_t j = 0; j < it->nsys; j++) {
            if (j)
                kw_r_t(r, ", ");
            kw_md_code(o, kw_dev_hip_name(it->sys[j].name), kw_r_prose_in(r));
            if (it->sys[j].line > 0)
                kw_r_tf(r, " (%d)", it->sys[j].line);
        }
        return;
    }
    kw_md_code(o, kw_r_name(r, it->label), kw_r_prose_in(r));
    kw_r_plainf(r, " [%zu]", it->full + 1);
    if (it->at.file) {
        kw_r_t(r, " called at ");
        kw_r_kloc(r, &it->at);
        kw_r_ref(r, it->at.file, it->at.line, it->depth == 0 ? "kernel" : "device helper",
                 it->label);
    }
    if (it->def.file) {
        kw_r_t(r, ", defined at ");
        kw_r_kloc(r, &it->def);
        kw_r_ref(r, it->def.file, it->def.line, "device helper", it->label);
    }
    if (it->calls > 1 && it->insts > 1)
        kw_r_plainf(r, " (%zu calls, %zu instantiations)", it->calls, it->insts);
    else if (it->calls > 1)
        kw_r_plainf(r, " (%zu calls)", it->calls);
    if (it->folded)
        kw_r_plainf(r, " (%zu helper frames folded)", it->folded);
    if (it->above)
        kw_r_t(r, " (its calls are listed above)");
    if (it->cut)
        kw_r_t(r, " (its calls are not shown: depth limit)");
    if (it->leaf)
        kw_r_t(r, " (library internals: its calls are not shown)");
}

/* The items' full names, folded: a <details> block (the page's own HTML)
 * holding a numbered list. */
static void kw_dev_fullnames(kw_render *r, const kw_calltree *t) {
    kw_buf *o = r->out;
    bool html = kw_r_html(r);
    const char *open = kw_arena_printf(
        &r->scratch, "<details class=\"kw-fullnames\"><summary>Full names (%zu)</summary>\n",
        t->fulls.n);
    if (!open) {
        o->oom = true;
        return;
    }
    if (html)
        kw_r_raw_html(r, open, strlen(open));
    else
        kw_buf_printf(o, "%s\n", open);
    if (t->elided) {
        kw_r_p(r);
        kw_r_tf(r,
                "The last %zu names have their template arguments nested deeper than one "
                "level elided (…), for the page's size; the kernel's own template arguments "
                "are in full above.",
                t->elided);
        kw_r_p_end(r);
    }
    if (html && t->fulls.n)
        kw_buf_puts(o, "<ol>\n");
    for (size_t i = 0; i < t->fulls.n; i++) {
        if (html)
            kw_buf_puts(o, "<li>");
        else
            kw_buf_printf(o, "%zu. ", i + 1);
        kw_md_code(o, kw_r_name(r, t->shown[i]), html ? KW_MD_HTML : KW_MD_TEXT);
        kw_buf_puts(o, html ? "</li>\n" : "\n");
    }
    if (html) {
        if (t->fulls.n)
            kw_buf_puts(o, "</ol>\n");
        kw_r_raw_html(r, "</details>\n", 11);
    } else {
        kw_buf_puts(o, "\n</details>\n\n");
    }
}

static void kw_dev_calls(kw_render *r) {
    const kw_calltree *t = &r->page.tree;
    KW_R_HEADING(r, 3, "Device call tree");
    if (!t->items.n) {
        KW_R_LIT(r, "The kernel calls no function.\n\n");
        return;
    }
    kw_r_p(r);
    kw_r_t(r, "Every function the kernel calls, as instantiated, at its first call site, with "
              "its definition; the calls of one function under one caller are one item with "
              "their count, a function's calls are listed at its first item, HIP runtime "
              "accessors by line. Each item is named without template arguments; [n] is its "
              "full name in the list after the tree.");
    kw_r_t(r, " Compile-time helpers (loops over constants, their lambda frames, sequence / "
              "tuple / constant helpers; annotations/calltree/helpers.txt) are not items: "
              "their calls are listed as their caller's (the plugin records them so");
    if (t->folded)
        kw_r_tf(r, "; %zu helper calls folded here, from a sidecar written before", t->folded);
    kw_r_t(r, "). A library's internals (tensor descriptors and coordinates, leaves.txt) are "
              "items whose calls are not listed.");
    kw_r_p_end(r);
    kw_r_list(r);
    for (size_t i = 0; i < t->items.n; i++) {
        kw_r_item(r, t->items.v[i].depth);
        kw_dev_tree_item(r, &t->items.v[i]);
    }
    kw_r_list_end(r);
    kw_r_gap(r);
    kw_dev_fullnames(r, t);
}

void kw_render_device(kw_render *r) {
    KW_R_HEADING(r, 2, "2. Device Kernel: Step-by-Step");
    const kw_kernel *k = r->mk->k;
    if (!k && r->mk->asm_code_object) {
        KW_R_LIT(r, "A precompiled ASM kernel has no source to walk through: its "
                    "instructions are in section 5.\n\n");
        return;
    }
    if (!k) {
        KW_R_LIT(r, "No device record: the index has no sidecar of this kernel's device "
                    "compile.\n\n");
        return;
    }
    const kw_src_file *f = k->location.file ? kw_page_src(&r->page, k->location.file) : NULL;
    kw_src_def def;
    bool have_def = false;
    if (f && f->ok) {
        const char *base = kw_r_base_name(r, k->name);
        if (kw_r_check(r, k->location.file, k->location.line, base, false, "the kernel's name"))
            have_def = kw_r_def_range(r, f, k->location.line, k->location.column, &def);
    } else if (k->location.file) {
        kw_r_check(r, k->location.file, k->location.line, NULL, false, "the kernel");
    }
    if (have_def) {
        KW_R_LIT(r, "The kernel's signature:\n\n");
        kw_r_quote(r, k->location.file, def.first, def.body_open, "cpp");
    }
    kw_dev_template(r, f, &def, have_def);
    kw_dev_accesses(r);
    kw_dev_compute(r);
    kw_dev_shared(r);
    kw_dev_calls(r);
}
