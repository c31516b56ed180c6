/* kw_render_overview.c: the walkthrough's Overview: what the instantiation
 * is (template, arguments, archs, symbol), what it does in its author's words
 * (the doc comment) and as assembled from facts: the buffers it reads and
 * may write (pointer parameters and their constness), element types, shared
 * memory, inline asm, the device functions it calls, and, when the sidecar
 * has IR facts, its reductions and conversions. */
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

/* Is the pointee of a pointer type const ("const float *__restrict" yes,
 * "float *const" no)? *pointee gets the pointee type without const. */
static bool kw_ptr_const(kw_render *r, const char *type, const char **pointee) {
    const char *star = strrchr(type, '*');
    *pointee = NULL;
    if (!star)
        return false;
    size_t n = (size_t)(star - type);
    bool is_const = false;
    kw_buf b;
    kw_buf_init(&b);
    for (size_t i = 0; i < n;) {
        if (!strncmp(type + i, "const", 5) && (i + 5 >= n || type[i + 5] == ' ') &&
            (i == 0 || type[i - 1] == ' ')) {
            is_const = true;
            i += 5;
            continue;
        }
        kw_buf_putc(&b, type[i++]);
    }
    /* trim */
    const char *s = kw_buf_str(&b);
    while (*s == ' ')
        s++;
    size_t len = strlen(s);
    while (len && s[len - 1] == ' ')
        len--;
    *pointee = kw_arena_strndup(&r->scratch, s, len);
    kw_buf_free(&b);
    return is_const;
}

/* One pointer (a parameter or a field of a struct parameter) when its
 * pointee's constness is want_const. */
static void kw_list_ptr(kw_render *r, const char *name, const char *type, bool want_const,
                        bool *first) {
    const char *pointee;
    if (!type || !strchr(type, '*') || kw_ptr_const(r, type, &pointee) != want_const)
        return;
    kw_r_t(r, *first ? "" : ", ");
    kw_md_code(r->out, name ? name : "(unnamed)", kw_r_prose_in(r));
    if (pointee) {
        kw_r_t(r, " (");
        kw_md_code(r->out, pointee, kw_r_prose_in(r));
        kw_r_t(r, ")");
    }
    *first = false;
}

static void kw_list_params(kw_render *r, bool want_const) {
    const kw_kernel *k = r->mk->k;
    bool first = true;
    for (size_t i = 0; i < k->params.n; i++) {
        const kw_param *p = &k->params.v[i];
        kw_list_ptr(r, p->name, p->type, want_const, &first);
        /* a struct passed by value (ck_tile's kargs): its pointer fields */
        for (size_t f = 0; f < p->fields.n; f++)
            kw_list_ptr(r, p->fields.v[f].name, p->fields.v[f].type, want_const, &first);
    }
    if (first)
        kw_r_t(r, "none");
}

/* A trampoline's kernel struct, its template arguments level by level (the
 * sidecar's functor_args, named by paths of parameter names): a nested list,
 * each argument under its own parameter name; a struct broken out below
 * shows its template only. */
static void kw_overview_functor_args(kw_render *r, const kw_kernel *k) {
    if (!k->functor_args.n)
        return;
    kw_r_p(r);
    kw_r_t(r, "The kernel struct ");
    kw_r_c(r, kw_r_short(r, k->functor));
    kw_r_t(r, ", its template arguments level by level:");
    kw_r_p_end(r);
    kw_r_list(r);
    for (size_t i = 0; i < k->functor_args.n; i++) {
        const kw_template_arg *t = &k->functor_args.v[i];
        const char *name = t->name ? t->name : "?", *leaf = name;
        int depth = 0;
        for (const char *p = name; *p; p++)
            if (*p == '.')
                depth++, leaf = p + 1;
        const char *next = i + 1 < k->functor_args.n ? k->functor_args.v[i + 1].name : NULL;
        size_t n = strlen(name);
        bool parent = next && !strncmp(next, name, n) && next[n] == '.';
        const char *v = t->value ? t->value : "?";
        if (parent && strchr(v, '<')) /* its arguments follow, one level down */
            v = kw_arena_printf(&r->scratch, "%.*s<...>", (int)(strchr(v, '<') - v), v);
        if (!v)
            v = "?";
        const char *s = t->written ? kw_arena_printf(&r->scratch, "%s (%s)", t->written, v) : v;
        kw_r_item(r, depth);
        kw_r_c(r, leaf);
        kw_r_t(r, " = ");
        kw_r_c(r, s ? s : v);
        if (t->defaulted)
            kw_r_t(r, " (default)");
    }
    kw_r_list_end(r);
    kw_r_gap(r);
}

/* Reductions and conversions from the IR facts of the first arch that has
 * them; false when no arch has IR facts. */
static bool kw_overview_ir(kw_render *r) {
    for (size_t a = 0; a < r->archs.n; a++) {
        const kw_irf *ir = r->archs.v[a].ir;
        if (!ir)
            continue;
        kw_r_item(r, 0);
        kw_r_plainf(r, "Reductions and cross-lane steps (IR facts, %s): ", r->archs.v[a].arch);
        size_t n = ir->idioms.n;
        if (!n)
            kw_r_t(r, "none found");
        /* each kind of idiom once, in first-seen order, with how many there are */
        const char **text = kw_arena_alloc(&r->scratch, (n ? n : 1) * sizeof *text);
        for (size_t i = 0; text && i < n; i++) {
            const kw_irf_idiom *d = &ir->idioms.v[i];
            const char *kind = d->kind, *op = d->op, *via = d->via;
            text[i] =
                kw_arena_printf(&r->scratch, "%s%s%s%s%s%s", kind ? kind : "idiom", op ? " (" : "",
                                op ? op : "", op ? ")" : "", via ? " via " : "", via ? via : "");
        }
        size_t shown = 0;
        for (size_t i = 0; text && i < n; i++) {
            bool seen = false;
            unsigned count = 0;
            for (size_t j = 0; j < n && !seen; j++)
                seen = j < i && text[j] && text[i] && !strcmp(text[j], text[i]);
            if (seen || !text[i])
                continue;
            for (size_t j = i; j < n; j++)
                count += text[j] && !strcmp(text[j], text[i]);
            kw_r_plainf(r, "%s%s", shown++ ? "; " : "", text[i]);
            if (count > 1)
                kw_r_tf(r, " (%u times)", count);
        }
        kw_r_t(r, ".");
        char buf[32];
        const char *conv = kw_page_facts_val(&ir->work_per_thread.conversions, buf, sizeof buf);
        if (conv) {
            kw_r_item(r, 0);
            kw_r_t(r, "Conversions per thread (IR facts): ");
            kw_md_code(r->out, conv, kw_r_prose_in(r));
            kw_r_t(r, ".");
        }
        return true;
    }
    return false;
}

/* A precompiled ASM kernel: the code object it is loaded from, its launches,
 * and whether the code object could be read now. */
static void kw_overview_asm(kw_render *r) {
    const kw_mkernel *mk = r->mk;
    kw_r_p(r);
    kw_r_t(r, "A precompiled ASM kernel: no source and no template; the host code loads it by "
              "name from the code object ");
    kw_r_c(r, kw_r_path(r, mk->asm_code_object));
    kw_r_t(r, " and launches it");
    for (size_t i = 0; i < mk->launches.n; i++) {
        const kw_launch *l = r->m->launches.v[mk->launches.v[i]].l;
        kw_r_t(r, i ? "; " : " (");
        if (l->loader) {
            kw_r_t(r, "through the loader class ");
            kw_r_c(r, l->loader);
        } else {
            kw_r_t(r, "with ");
            kw_r_c(r, l->kind ? l->kind : "?");
        }
        kw_r_t(r, " at ");
        kw_r_kloc(r, &l->location);
    }
    kw_r_t(r, mk->launches.n ? ")." : ".");
    kw_r_p_end(r);
    kw_r_p(r);
    if (r->page.asm_k) {
        kw_r_t(r, "Its facts below (section 5) are read from that code object now: ");
        for (size_t i = 0; i < r->page.asm_k->archs.n; i++) {
            kw_r_t(r, i ? ", " : "");
            kw_r_s(r, r->page.asm_k->archs.v[i].arch);
        }
    } else {
        kw_r_t(r, "The code object could not be read now: ");
        kw_md_text(r->out, r->page.asm_note ? r->page.asm_note : "unknown reason",
                   kw_r_prose_in(r));
    }
    kw_r_t(r, ".");
    kw_r_p_end(r);
}

/* The author's doc comment as a block quote (kw_md_doc): author Markdown,
 * which a site page converts here, alone (the rest of the page is written
 * as HTML by its printer). */
static void kw_overview_doc(kw_render *r, const char *doc) {
    if (!kw_r_html(r) || !r->md_html) {
        kw_md_doc(r->out, doc);
        return;
    }
    kw_buf md;
    kw_buf_init(&md);
    kw_md_doc(&md, doc);
    kw_err err = {0};
    if (md.oom)
        r->out->oom = true;
    else if (r->md_html(kw_buf_str(&md), md.len, r->out, &err) != KW_OK)
        kw_buf_append(r->out, md.ptr, md.len); /* (it adds nothing when it fails) */
    else
        kw_buf_free(&md);
}

void kw_render_overview(kw_render *r) {
    const kw_mkernel *mk = r->mk;
    const kw_kernel *k = mk->k;
    kw_buf *o = r->out;
    KW_R_HEADING(r, 2, "Overview");
    if (!k && mk->asm_code_object) {
        kw_overview_asm(r);
        return;
    }
    if (!k) {
        KW_R_LIT(r, "This kernel is launched by the host code of the index, but no sidecar "
                    "of the index holds its device compile: its template arguments, device "
                    "code and ISA are unknown here. Index the sidecar of the translation "
                    "unit that defines it.\n\n");
        return;
    }
    static const char *const head[] = {"", ""};
    kw_r_table(r, 2, head);
    kw_r_row(r);
    kw_r_cell(r);
    kw_r_t(r, "Instantiation");
    kw_r_cell(r);
    kw_md_code(o, mk->name, r->in);
    kw_r_row(r);
    kw_r_cell(r);
    kw_r_t(r, "Device symbol");
    kw_r_cell(r);
    kw_md_code(o, mk->symbol, r->in);
    if (mk->tu) {
        /* internal linkage: other units may have other kernels of this symbol */
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_t(r, "Linkage");
        kw_r_cell(r);
        kw_r_t(r, "internal: the kernel of the translation unit ");
        kw_md_code(o, kw_r_path(r, mk->tu->tu.source ? mk->tu->tu.source : mk->tu->sidecar), r->in);
        kw_r_plainf(r, " (another unit's kernel of the same symbol is another kernel)");
    }
    if (k->template_name) {
        const kw_mgroup *g = &r->m->groups.v[mk->group];
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_t(r, "Template");
        kw_r_cell(r);
        kw_md_code(o, k->template_name, r->in);
        kw_r_plainf(r, " (%zu instantiation%s in this build)", g->kernels.n,
                    g->kernels.n == 1 ? "" : "s");
    }
    kw_r_row(r);
    kw_r_cell(r);
    kw_r_t(r, "Built for");
    kw_r_cell(r);
    for (size_t i = 0; i < k->archs.n; i++)
        kw_r_plainf(r, "%s%s", i ? ", " : "", k->archs.v[i].arch);
    if (!k->archs.n)
        kw_r_t(r, "(no arch recorded)");
    if (k->not_in_object) {
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_t(r, "In the object?");
        kw_r_cell(r);
        kw_r_t(r, "no: ");
        kw_md_text(o, k->not_in_object, r->in);
    }
    kw_r_row(r);
    kw_r_cell(r);
    kw_r_t(r, "Defined at");
    kw_r_cell(r);
    kw_r_kloc(r, &k->location);
    /* a trampoline kernel (ck_tile's kentry<Kernel, Args>): the functor it runs */
    const char *functor = k->functor;
    if (functor) {
        const kw_loc *fl = &k->functor_location;
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_t(r, "Runs the functor");
        kw_r_cell(r);
        kw_md_code(o, functor, r->in);
        if (fl && fl->file) {
            kw_r_t(r, ", ");
            kw_md_code(o, "operator()", r->in);
            kw_r_t(r, " at ");
            kw_r_kloc(r, fl);
            kw_r_ref(r, fl->file, fl->line, "kernel", functor);
        }
    }
    kw_r_table_end(r);
    kw_r_gap(r);

    if (k->doc) {
        KW_R_LIT(r, "What the author says it does (doc comment):\n\n");
        kw_overview_doc(r, k->doc);
    } else {
        KW_R_LIT(r, "The kernel has no doc comment; what follows is assembled from the "
                    "recorded facts.\n\n");
    }
    if (k->template_args.n) {
        kw_r_p(r);
        kw_r_t(r, "This instantiation: ");
        for (size_t i = 0; i < k->template_args.n; i++) {
            const kw_template_arg *t = &k->template_args.v[i];
            char *s = kw_arena_printf(&r->scratch, "%s = %s", t->name ? t->name : "(unnamed)",
                                      kw_r_targ_value(r, t));
            kw_r_t(r, i ? ", " : "");
            kw_r_c(r, s ? s : "?");
            if (t->defaulted)
                kw_r_t(r, " (default)");
        }
        kw_r_t(r, ".");
        kw_r_p_end(r);
    }
    kw_overview_functor_args(r, k);
    KW_R_LIT(r, "Facts:\n\n");
    kw_r_list(r);
    kw_r_item(r, 0);
    kw_r_t(r, "Reads through (pointers to const): ");
    kw_list_params(r, true);
    kw_r_t(r, ".");
    kw_r_item(r, 0);
    kw_r_t(r, "May write through (pointers to non-const): ");
    kw_list_params(r, false);
    kw_r_t(r, ".");
    long long lds = 0;
    bool lds_known = true;
    for (size_t i = 0; i < k->shared.n; i++) {
        if (k->shared.v[i].bytes < 0)
            lds_known = false;
        else
            lds += k->shared.v[i].bytes;
    }
    kw_r_item(r, 0);
    kw_md_code(o, "__shared__", kw_r_prose_in(r));
    if (k->shared.n)
        kw_r_plainf(r, " memory: %zu variable%s, %lld bytes%s (section 2).", k->shared.n,
                    k->shared.n == 1 ? "" : "s", lds,
                    lds_known ? "" : " plus dynamic (extern) shared memory");
    else
        kw_r_t(r, " memory: none declared.");
    if (k->inline_asm.n) {
        kw_r_item(r, 0);
        kw_r_plainf(r, "Inline asm: %zu statement%s (", k->inline_asm.n,
                    k->inline_asm.n == 1 ? "" : "s");
        for (size_t i = 0; i < k->inline_asm.n; i++) {
            kw_r_t(r, i ? ", " : "");
            kw_md_code(o, k->inline_asm.v[i].text ? k->inline_asm.v[i].text : "?",
                       kw_r_prose_in(r));
        }
        kw_r_t(r, ").");
    }
    /* the call tree's first level (helpers folded, short names) */
    const kw_calltree *t = &r->page.tree;
    size_t shown = 0;
    for (size_t i = 0; i < t->items.n; i++) {
        const kw_calltree_item *it = &t->items.v[i];
        if (it->depth != 0 || it->hip)
            continue;
        if (!shown) {
            kw_r_item(r, 0);
            kw_r_t(r, "Device functions it calls: ");
        }
        kw_r_t(r, shown++ ? ", " : "");
        kw_md_code(o, kw_r_name(r, it->label), kw_r_prose_in(r));
    }
    if (shown)
        kw_r_t(r, " (call tree in section 2).");
    for (size_t a = 0; a < r->archs.n; a++) {
        if (!r->archs.v[a].facts)
            continue;
        const kw_isa_resources *res = &r->archs.v[a].facts->resources;
        if (res->vgpr_spill <= 0 && res->sgpr_spill <= 0)
            continue;
        kw_r_item(r, 0);
        kw_r_plainf(r,
                    "Register spills on %s: %lld VGPRs and %lld SGPRs go to scratch "
                    "(%lld bytes per lane; section 5).",
                    r->archs.v[a].arch, res->vgpr_spill > 0 ? res->vgpr_spill : 0,
                    res->sgpr_spill > 0 ? res->sgpr_spill : 0,
                    res->scratch_bytes > 0 ? res->scratch_bytes : 0);
    }
    if (!kw_overview_ir(r)) {
        kw_r_item(r, 0);
        kw_r_t(r, "Reductions, conversions and fused steps: not derived, no IR facts in "
                  "this sidecar (they come from the plugin's IR analysis of the optimized "
                  "kernel).");
    }
    size_t reach = 0, dead = 0;
    kw_r_item(r, 0);
    kw_r_plainf(r, "Launch sites in this build: %zu", mk->launches.n);
    for (size_t i = 0; i < mk->launches.n; i++) {
        reach += r->page.paths[i].v.n;
        dead += r->page.paths[i].dead;
    }
    kw_r_tf(r, "; entry-point paths reaching them: %zu (section 1)", reach);
    if (dead && dead == mk->launches.n)
        kw_r_t(r, "; emitted but unreachable from any entry point: no launch of it ever "
                  "runs (a compile-time constant condition is false)");
    else if (dead)
        kw_r_plainf(r, "; %zu of them never run%s (a compile-time constant condition is false)",
                    dead, dead == 1 ? "s" : "");
    kw_r_t(r, ".");
    kw_r_list_end(r);
    kw_r_gap(r);
}
