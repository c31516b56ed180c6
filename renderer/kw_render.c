/* kw_render.c: the walkthrough of one kernel instantiation: the title block,
 * the order of the sections, the helpers they share (paths, locations,
 * quoting the source with a staleness check), and section 6, the source file
 * index built from every location the other sections printed. */
#include "kw_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kw_co_sidecar.h"
#include "kw_md.h"

void kw_render_init(kw_render *r, kw_model *m, kw_srcs *srcs, const kw_providers *p,
                    const kw_gpus *g, const kw_isa_notes *n, const kw_render_opts *o) {
    memset(r, 0, sizeof(*r));
    r->m = m;
    r->srcs = srcs;
    r->providers = p;
    r->gpus = g;
    r->notes = n;
    r->o = o;
    kw_arena_init(&r->scratch);
    kw_buf_init(&r->hw_table);
    kw_sidecar_init(&r->asm_sc);
}

void kw_render_free(kw_render *r) {
    kw_arena_free(&r->scratch);
    kw_buf_free(&r->hw_table);
    kw_sidecar_free(&r->asm_sc);
}

/* ---- helpers -------------------------------------------------------------------------------- */

const char *kw_r_path(const kw_render *r, const char *path) {
    if (!path)
        return "?";
    const char *root = r->o->root;
    if (root && root[0]) {
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
            n--;
        if (!strncmp(path, root, n) && path[n] == '/')
            return path + n + 1;
    }
    return path;
}

void kw_r_loc(kw_render *r, const char *file, int line) {
    char *s = kw_arena_printf(&r->scratch, "%s:%d", kw_r_path(r, file), line);
    kw_md_code(r->out, s ? s : "?", true);
}

void kw_r_kloc(kw_render *r, const kw_loc *l) {
    if (!l || !l->file)
        kw_buf_puts(r->out, "(no location recorded)");
    else
        kw_r_loc(r, l->file, l->line);
}

void kw_r_ref(kw_render *r, const char *file, int line, const char *role, const char *label) {
    if (!file || line < 1)
        return;
    for (size_t i = 0; i < r->refs.n; i++) {
        kw_ref *x = &r->refs.v[i];
        if (x->line == line && !strcmp(x->file, file) && !strcmp(x->role, role))
            return;
    }
    kw_ref *x = KW_PUSH(&r->scratch, r->refs);
    if (!x)
        return;
    x->file = file;
    x->line = line;
    x->role = role;
    x->label = label;
}

void kw_r_quote(kw_render *r, const char *file, int first, int last, const char *lang) {
    const kw_src_file *f = file ? kw_src_get(r->srcs, file) : NULL;
    if (!f || !f->ok) {
        kw_buf_printf(r->out, "(Source not quoted: %s: %s.)\n\n", kw_r_path(r, file),
                      f ? f->why : "unknown file");
        return;
    }
    if (last < first)
        last = first;
    if (first < 1 || first > f->nlines) {
        kw_buf_printf(r->out, "(Source not quoted: %s has %d lines, the sidecar says line %d.)\n\n",
                      kw_r_path(r, file), f->nlines, first);
        return;
    }
    if (last > f->nlines)
        last = f->nlines;
    kw_buf text;
    kw_buf_init(&text);
    if (first == last)
        kw_buf_printf(&text, "// %s:%d\n", kw_r_path(r, file), first);
    else
        kw_buf_printf(&text, "// %s:%d-%d\n", kw_r_path(r, file), first, last);
    int w = snprintf(NULL, 0, "%d", last);
    for (int n = first; n <= last; n++) {
        const char *t;
        size_t len;
        kw_src_line(f, n, &t, &len);
        kw_buf_printf(&text, "%*d | ", w, n);
        kw_buf_append(&text, t, len);
        kw_buf_putc(&text, '\n');
    }
    kw_md_fence(r->out, lang, kw_buf_str(&text));
    kw_buf_free(&text);
}

bool kw_r_check(kw_render *r, const char *file, int line, const char *token, bool any_text,
                const char *what) {
    const kw_src_file *f = file ? kw_src_get(r->srcs, file) : NULL;
    if (!f || !f->ok) {
        kw_buf_printf(r->out, "> Note: %s cannot be read now (%s); %s is not quoted.\n\n",
                      kw_r_path(r, file), f ? f->why : "unknown file", what);
        return false;
    }
    if (line < 1 || line > f->nlines) {
        kw_buf_printf(r->out,
                      "> Note: the source changed since the build: %s has %d lines, the sidecar "
                      "puts %s at line %d. Rebuild to refresh the sidecar.\n\n",
                      kw_r_path(r, file), f->nlines, what, line);
        return false;
    }
    if (token && !kw_src_line_has(f, line, token, any_text)) {
        kw_buf_printf(r->out,
                      "> Note: the source changed since the build: line %d of %s does not hold ",
                      line, kw_r_path(r, file));
        kw_md_code(r->out, token, false);
        kw_buf_printf(r->out, " (%s). Rebuild to refresh the sidecar.\n\n", what);
        return false;
    }
    return true;
}

const char *kw_r_base_name(kw_render *r, const char *printed) {
    if (!printed || strstr(printed, "(lambda") || strstr(printed, "operator"))
        return NULL;
    /* drop every template argument list, then the qualification */
    kw_buf b;
    kw_buf_init(&b);
    int depth = 0;
    for (const char *p = printed; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (!depth)
            kw_buf_putc(&b, *p);
    }
    const char *s = kw_buf_str(&b), *start = s;
    for (const char *p = s; p[0] && p[1]; p++)
        if (p[0] == ':' && p[1] == ':')
            start = p + 2;
    const char *out = *start ? kw_arena_strdup(&r->scratch, start) : NULL;
    kw_buf_free(&b);
    return out;
}

const char *kw_r_name(kw_render *r, const char *printed) {
    const char *root = r->o->root;
    if (!printed || !root || !root[0] || !strstr(printed, root))
        return printed;
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    kw_buf b;
    kw_buf_init(&b);
    for (const char *p = printed; *p;) {
        if (!strncmp(p, root, n) && p[n] == '/') {
            p += n + 1;
            continue;
        }
        kw_buf_putc(&b, *p++);
    }
    const char *out = kw_arena_strdup(&r->scratch, kw_buf_str(&b));
    kw_buf_free(&b);
    return out ? out : printed;
}

const char *kw_r_targ_value(kw_render *r, const kw_template_arg *t) {
    const char *v = t->value ? t->value : "?";
    if (!t->written)
        return v;
    const char *s = kw_arena_printf(&r->scratch, "%s (%s)", t->written, v);
    return s ? s : v;
}

const char *kw_r_short(kw_render *r, const char *printed) {
    if (!printed)
        return "?";
    if (strlen(printed) <= 60)
        return printed;
    const char *lt = strchr(printed, '<');
    if (!lt)
        return printed;
    char *s = kw_arena_printf(&r->scratch, "%.*s<...>", (int)(lt - printed), printed);
    return s ? s : printed;
}

const kw_operand_decl *kw_r_operand_decl(const kw_launch *l, const kw_config_item *c) {
    const char *op = c == &l->grid         ? "grid"
                     : c == &l->block      ? "block"
                     : c == &l->shared_mem ? "shared_mem"
                     : c == &l->stream     ? "stream"
                                           : NULL;
    for (size_t i = 0; op && i < l->operand_decls.n; i++)
        if (l->operand_decls.v[i].operand && !strcmp(l->operand_decls.v[i].operand, op))
            return &l->operand_decls.v[i];
    return NULL;
}

const kw_shape *kw_r_shape_with(kw_render *r, const kw_constant *k, size_t n) {
    if (!n)
        return &r->shape;
    kw_shape *s = kw_arena_alloc(&r->scratch, sizeof *s);
    if (!s)
        return &r->shape;
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < r->shape.v.n; i++)
        if (kw_shape_set(s, &r->scratch, r->shape.v.v[i].name, r->shape.v.v[i].value,
                         r->shape.v.v[i].from) != KW_OK)
            return &r->shape;
    for (size_t i = 0; i < n; i++) {
        const kw_constant *c = &k[i];
        if (!c->name)
            continue;
        bool bound = false;
        for (size_t j = 0; j < r->shape.v.n && !bound; j++)
            bound = !strcmp(r->shape.v.v[j].name, c->name);
        if (bound)
            continue;
        kw_value v;
        kw_err err;
        char *end = NULL;
        if (c->value) {
            double x = strtod(c->value, &end);
            if (end != c->value && !*end)
                kw_shape_set(s, &r->scratch, c->name, x, "a constant");
        } else if (c->init && kw_expr_eval(c->init, s, KW_EXPR_C, &v, &err) == KW_OK &&
                   v.dims == 1) {
            kw_shape_set(s, &r->scratch, c->name, v.v[0], "its initializer");
        }
    }
    return s;
}

bool kw_r_config_value(kw_render *r, const kw_mlaunch *ml, const kw_config_item *c, kw_value *v,
                       const char **why) {
    memset(v, 0, sizeof(*v));
    if (c->has_value) {
        v->dims = c->dims;
        v->is_int = true;
        for (int i = 0; i < c->dims && i < 3; i++)
            v->v[i] = (double)c->value[i];
        return true;
    }
    if (!c->expr) {
        *why = "not recorded";
        return false;
    }
    const char *expr = c->expr;
    const kw_operand_decl *d = kw_r_operand_decl(ml->l, c);
    bool bound = d && d->name && kw_shape_lookup(&r->shape, d->name, strlen(d->name));
    if (d && !bound) {
        /* a variable: its initializer is its value only for a local nothing changes */
        const char *name = d->name ? d->name : expr;
        char *s = NULL;
        if (d->kind && !strcmp(d->kind, "parameter"))
            s = kw_arena_printf(&r->scratch,
                                "a parameter: its value comes from the caller; give "
                                "--shape %s=...",
                                name);
        else if (d->modified)
            s = kw_arena_printf(&r->scratch,
                                "`%s` is changed after its declaration; give --shape "
                                "%s=... (its value at the launch)",
                                name, name);
        else if (!d->init)
            s = kw_arena_printf(&r->scratch, "`%s` has no initializer; give --shape %s=...", name,
                                name);
        else if (d->kind && !strcmp(d->kind, "local"))
            expr = d->init;
        else
            s = kw_arena_printf(&r->scratch, "a %s variable; give --shape %s=...",
                                d->kind ? d->kind : "non-local", name);
        if (s) {
            *why = s;
            return false;
        }
    }
    if (!r->o->shape) {
        *why = "not a constant; give --shape to evaluate it";
        return false;
    }
    kw_err err;
    const kw_shape *shape = kw_r_shape_with(r, ml->l->constants.v, ml->l->constants.n);
    if (kw_expr_eval(expr, shape, KW_EXPR_C, v, &err) != KW_OK) {
        char *s = kw_arena_printf(&r->scratch, "not evaluated (%s)", err.msg);
        *why = s ? s : "not evaluated";
        return false;
    }
    if (c->dims == 3 && v->dims == 1) {
        v->dims = 3;
        v->v[1] = v->v[2] = 1;
    }
    return true;
}

const char *kw_r_arch_list(kw_render *r) {
    kw_buf b;
    kw_buf_init(&b);
    for (size_t i = 0; i < r->archs.n; i++) {
        if (i)
            kw_buf_puts(&b, i + 1 == r->archs.n ? " and " : ", ");
        kw_buf_puts(&b, r->archs.v[i].arch);
    }
    const char *s = kw_arena_strdup(&r->scratch, b.len ? kw_buf_str(&b) : "no arch");
    kw_buf_free(&b);
    return s ? s : "";
}

/* ---- section 6 ------------------------------------------------------------------------------ */

static int kw_ref_cmp(const void *a, const void *b) {
    const kw_ref *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : x->line - y->line;
}

void kw_render_files(kw_render *r) {
    kw_buf *o = r->out;
    kw_md_heading(o, 2, "6. Source File Index");
    if (!r->refs.n) {
        kw_buf_puts(o, "No source locations were recorded for this kernel.\n\n");
        return;
    }
    qsort(r->refs.v, r->refs.n, sizeof(kw_ref), kw_ref_cmp);
    kw_buf_puts(o, "Every file this walkthrough points into, with the lines it cites.\n\n");
    static const char *const head[] = {"File", "Roles", "Lines"};
    kw_md_table_head(o, 3, head);
    for (size_t i = 0; i < r->refs.n;) {
        size_t j = i;
        while (j < r->refs.n && !strcmp(r->refs.v[j].file, r->refs.v[i].file))
            j++;
        kw_buf_puts(o, "| ");
        kw_md_code(o, kw_r_path(r, r->refs.v[i].file), true);
        kw_buf_puts(o, " | ");
        /* roles, each once, in a fixed order */
        static const char *const order[] = {
            "Python op",     "entry", "dispatch",      "launch",     "kernel",
            "device helper", "loop",  "memory access", "inline asm", "shared memory"};
        bool first = true;
        for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
            for (size_t x = i; x < j; x++)
                if (!strcmp(r->refs.v[x].role, order[k])) {
                    kw_buf_printf(o, "%s%s", first ? "" : ", ", order[k]);
                    first = false;
                    break;
                }
        kw_buf_puts(o, " | ");
        for (size_t x = i; x < j; x++) {
            const kw_ref *f = &r->refs.v[x];
            if (x > i && f->line == r->refs.v[x - 1].line)
                continue;
            kw_buf_printf(o, "%s%d", x > i ? ", " : "", f->line);
            if (f->label) {
                kw_buf_puts(o, " ");
                kw_md_code(o, kw_r_short(r, f->label), true);
            }
        }
        kw_buf_puts(o, " |\n");
        i = j;
    }
    kw_buf_putc(o, '\n');
}

/* ---- the walkthrough ------------------------------------------------------------------------ */

static void kw_render_title(kw_render *r) {
    const kw_mkernel *mk = r->mk;
    const kw_kernel *k = mk->k;
    kw_buf *o = r->out;
    kw_buf_puts(o, "# Kernel Walkthrough: ");
    kw_md_code(o, mk->name, false);
    kw_buf_puts(o, "\n\n");
    if (!k && mk->asm_code_object) {
        kw_buf_printf(o, "> Source: %s | Language: ASM | File: ",
                      kw_provider_of(r->providers, mk->asm_code_object));
        kw_md_code(o, kw_r_path(r, mk->asm_code_object), false);
        kw_buf_puts(o, " (code object)\n\n");
        return;
    }
    const char *file = k && k->location.file ? k->location.file : NULL;
    kw_buf_printf(o, "> Source: %s | Language: HIP C++ | File: ",
                  kw_provider_of(r->providers, file));
    if (file) {
        kw_r_loc(r, file, k->location.line);
        kw_r_ref(r, file, k->location.line, "kernel", mk->name);
    } else {
        kw_buf_puts(o, "(no device record in the index)");
    }
    kw_buf_puts(o, "\n\n");
}

kw_status kw_render_kernel(kw_render *r, size_t ki, kw_buf *out, kw_err *err) {
    kw_arena_free(&r->scratch);
    kw_arena_init(&r->scratch);
    r->out = out;
    r->mk = &r->m->kernels.v[ki];
    memset(&r->refs, 0, sizeof(r->refs));
    memset(&r->archs, 0, sizeof(r->archs));
    memset(&r->shape, 0, sizeof(r->shape));
    const kw_kernel *k = r->mk->k;
    /* a precompiled ASM kernel: its facts from its code object */
    kw_sidecar_free(&r->asm_sc);
    r->asm_k = NULL;
    r->asm_note = NULL;
    if (!k && r->mk->asm_code_object) {
        kw_err cerr;
        if (kw_co_sidecar_fill_kernels(&r->asm_sc, r->mk->asm_code_object, KW_CO_SC_LISTING,
                                       r->mk->symbol, &cerr) != KW_OK) {
            r->asm_note = kw_arena_strdup(&r->scratch, cerr.msg);
        } else {
            for (size_t i = 0; i < r->asm_sc.kernels.n && !r->asm_k; i++)
                if (r->asm_sc.kernels.v[i].symbol &&
                    !strcmp(r->asm_sc.kernels.v[i].symbol, r->mk->symbol))
                    r->asm_k = &r->asm_sc.kernels.v[i];
            if (!r->asm_k)
                r->asm_note = kw_arena_printf(&r->scratch, "%s holds no kernel named %s",
                                              r->mk->asm_code_object, r->mk->symbol);
        }
        k = r->asm_k;
    }
    size_t narch = r->o->arch_override ? r->o->narch_override : k ? k->archs.n : 0;
    for (size_t i = 0; i < narch; i++) {
        kw_rarch a;
        if (r->o->arch_override) {
            a = r->o->arch_override[i];
        } else {
            a.arch = k->archs.v[i].arch;
            a.rec = kw_rv_kernel_arch(&k->archs.v[i]);
            a.ir = k->archs.v[i].ir;
        }
        if (r->o->arch && strcmp(r->o->arch, a.arch))
            continue;
        kw_rarch *slot = KW_PUSH(&r->scratch, r->archs);
        if (!slot)
            return kw_fail(err, "out of memory");
        *slot = a;
    }
    /* names a --shape may bind, plus the kernel's integral template constants */
    if (r->o->shape)
        for (size_t i = 0; i < r->o->shape->v.n; i++) {
            const kw_binding *b = &r->o->shape->v.v[i];
            if (kw_shape_set(&r->shape, &r->scratch, b->name, b->value, b->from) != KW_OK)
                return kw_fail(err, "out of memory");
        }
    if (k)
        for (size_t i = 0; i < k->template_args.n; i++) {
            const kw_template_arg *t = &k->template_args.v[i];
            char *end;
            if (!t->name || !t->value || !t->kind || strcmp(t->kind, "value"))
                continue;
            double v = strtod(t->value, &end);
            if (end == t->value || *end)
                v = !strcmp(t->value, "true") ? 1 : !strcmp(t->value, "false") ? 0 : -1e300;
            if (v > -1e300 && !kw_shape_lookup(&r->shape, t->name, strlen(t->name)) &&
                kw_shape_set(&r->shape, &r->scratch, t->name, v, "template argument") != KW_OK)
                return kw_fail(err, "out of memory");
        }
    size_t nl = r->mk->launches.n;
    r->paths = nl ? kw_arena_alloc(&r->scratch, nl * sizeof(kw_mpaths)) : NULL;
    if (nl && !r->paths)
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < nl; i++)
        if (kw_model_paths(r->m, r->mk->launches.v[i], &r->scratch, &r->paths[i], err) != KW_OK)
            return KW_ERR;
    kw_render_title(r);
    kw_render_overview(r);
    kw_render_host(r);
    kw_render_device(r);
    kw_render_flow(r);
    kw_render_memory(r);
    kw_render_isa(r);
    kw_render_files(r);
    kw_buf_printf(out, "---\n\nGenerated by kwalk from ");
    kw_md_code(out, kw_r_path(r, r->o->db_path), false);
    if (r->o->all)
        kw_buf_puts(out, " · [all kernels](index.md)");
    kw_buf_puts(out, ".\n");
    if (out->oom)
        return kw_fail(err, "out of memory");
    return KW_OK;
}
