/* kw_page.c: building one instantiation's page model (see kw_page.h): the
 * kernel, the shape bindings, the entry paths, the dispatch conditions'
 * verdicts for --shape, and section 4's geometry and per-thread work. Moved
 * here from render/ (kw_render_kernel, kw_render_host.c, kw_render_memory.c)
 * so that the writers only read what is decided. */
#include "model/kw_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_asm_kernel.h"
#include "model/kw_decode.h"
#include "model/kw_operand.h"
#include "model/kw_pysrc.h"

void kw_page_init(kw_page *p) {
    memset(p, 0, sizeof(*p));
    kw_sidecar_init(&p->asm_sc);
}

void kw_page_free(kw_page *p) {
    kw_sidecar_free(&p->asm_sc);
}

/* ---- dispatch conditions -------------------------------------------------------------------- */

/* Whether a --shape evaluates guard g, as section 1 prints it: a loop, a
 * `default:` and a compile-time constant are not evaluated. */
static bool kw_page_guard_tried(const kw_guard *g) {
    const char *kind = g->kind ? g->kind : "if";
    bool loop = !strcmp(kind, "for") || !strcmp(kind, "range_for") || !strcmp(kind, "while") ||
                !strcmp(kind, "do");
    return !loop && strcmp(kind, "default") && !g->constant;
}

/* The verdicts of the guards of one call or launch, evaluated with shape:
 * --shape plus the constants it is written with. Each guard once. */
static kw_status kw_page_guards(kw_page *p, const kw_guard *g, size_t n, const kw_shape *shape,
                                kw_arena *a, kw_err *err) {
    for (size_t i = 0; i < n; i++) {
        if (kw_page_verdict_of(p, &g[i]))
            continue;
        kw_page_verdict *v = KW_PUSH(a, p->verdicts);
        if (!v)
            return kw_fail(err, "out of memory");
        memset(v, 0, sizeof(*v));
        v->g = &g[i];
        if (!kw_page_guard_tried(&g[i]))
            continue;
        v->tried = true;
        kw_value val;
        kw_err e;
        if (kw_expr_eval(g[i].condition ? g[i].condition : "?", shape, KW_EXPR_C, &val, &e) !=
            KW_OK) {
            v->why = kw_arena_strdup(a, e.msg);
            continue;
        }
        v->evaluated = true;
        v->holds = (val.v[0] != 0) == g[i].holds;
    }
    return KW_OK;
}

const kw_page_verdict *kw_page_verdict_of(const kw_page *p, const kw_guard *g) {
    for (size_t i = 0; i < p->verdicts.n; i++)
        if (p->verdicts.v[i].g == g)
            return &p->verdicts.v[i];
    return NULL;
}

/* Every guard section 1 can show: those of each launch and of each call on
 * a path reaching one. */
static kw_status kw_page_verdicts(kw_page *p, kw_model *m, kw_arena *a, kw_err *err) {
    for (size_t i = 0; i < p->mk->launches.n; i++) {
        const kw_launch *l = m->launches.v[p->mk->launches.v[i]].l;
        if (kw_page_guards(p, l->guards.v, l->guards.n,
                           kw_operand_shape(&p->shape, a, l->constants.v, l->constants.n), a,
                           err) != KW_OK)
            return KW_ERR;
        for (size_t j = 0; j < p->paths[i].v.n; j++) {
            const kw_mpath *path = &p->paths[i].v.v[j];
            for (size_t c = 0; c < path->calls.n; c++) {
                const kw_host_call *hc = m->calls.v[path->calls.v[c]].c;
                if (kw_page_guards(p, hc->guards.v, hc->guards.n,
                                   kw_operand_shape(&p->shape, a, hc->constants.v, hc->constants.n),
                                   a, err) != KW_OK)
                    return KW_ERR;
            }
        }
    }
    return KW_OK;
}

/* ---- source files --------------------------------------------------------------------------- */

static void kw_page_read(kw_page *p, const char *path) {
    if (path)
        kw_src_get(p->srcs, path);
}

/* Every file a section may quote or check a line of (the files of the line
 * table rows are read per arch shown, in kw_page_finish). */
static void kw_page_sources(kw_page *p, kw_model *m) {
    const kw_kernel *ks[2] = {p->mk->k, p->k};
    for (int n = 0; n < 2; n++) {
        const kw_kernel *k = ks[n];
        if (!k || (n && k == ks[0]))
            continue;
        kw_page_read(p, k->location.file);
        for (size_t i = 0; i < k->inline_asm.n; i++)
            kw_page_read(p, k->inline_asm.v[i].location.file);
    }
    for (size_t i = 0; i < p->mk->launches.n; i++) {
        const kw_launch *l = m->launches.v[p->mk->launches.v[i]].l;
        kw_page_read(p, l->location.file);
        kw_page_read(p, l->site.file);
        for (size_t j = 0; j < l->call_chain.n; j++)
            kw_page_read(p, l->call_chain.v[j].location.file);
    }
}

/* ---- a Triton specialization ----------------------------------------------------------------- */

/* The lines section 1 and 2 quote: the @triton.jit function (def to the end
 * of its body) and each launch's kernel[grid](...) statement. */
static kw_status kw_page_triton(kw_page *p, kw_model *m, kw_arena *a, kw_err *err) {
    const kw_kernel *k = p->k;
    p->def_first = p->def_last = 0;
    p->def_why = NULL;
    const kw_src_file *f = kw_page_src(p, k->location.file);
    if (!k->location.file || k->location.line < 1)
        p->def_why = "no definition recorded";
    else if (!f || !f->ok)
        p->def_why = f ? f->why : "unknown file";
    else if ((p->def_last = kw_py_def_end(f, k->location.line, &p->def_why)) > 0)
        p->def_first = k->location.line;
    size_t nl = p->mk->launches.n;
    p->launch_last = nl ? kw_arena_alloc(a, nl * sizeof(int)) : NULL;
    if (nl && !p->launch_last)
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < nl; i++) {
        const kw_launch *l = m->launches.v[p->mk->launches.v[i]].l;
        const kw_src_file *lf = kw_page_src(p, l->location.file);
        p->launch_last[i] =
            lf && lf->ok && l->location.line > 0 ? kw_py_stmt_end(lf, l->location.line) : 0;
    }
    return KW_OK;
}

const kw_src_file *kw_page_src(const kw_page *p, const char *path) {
    return path && p->srcs ? kw_src_find(p->srcs, path) : NULL;
}

/* ---- the page ------------------------------------------------------------------------------- */

kw_status kw_page_open(kw_page *p, kw_model *m, const kw_mkernel *mk, kw_srcs *srcs, kw_arena *a,
                       kw_err *err) {
    const kw_shape *user_shape = p->user_shape = m->shape;
    p->mk = mk;
    p->srcs = srcs;
    p->k = mk->k;
    memset(&p->shape, 0, sizeof(p->shape));
    memset(&p->verdicts, 0, sizeof(p->verdicts));
    memset(&p->archs, 0, sizeof(p->archs));
    p->paths = NULL;
    p->geom = NULL;
    p->work = NULL;
    p->triton = NULL;
    p->launch_last = NULL;
    p->perf = NULL;
    p->isa = NULL;
    p->ttgir = NULL;
    /* a precompiled ASM kernel: its facts from its code object */
    p->asm_k = NULL;
    p->asm_note = NULL;
    if (!p->k && mk->asm_code_object)
        p->k = p->asm_k = kw_asm_kernel_read(&p->asm_sc, mk, a, &p->asm_note);
    /* listings kept in code objects (index version 5): the page's copy of
     * its kernel, filled from them */
    else if (p->k && kw_decode_kernel(m->decode, p->k, a, &p->k, err) != KW_OK)
        return KW_ERR;
    const kw_kernel *k = p->k;
    kw_page_sources(p, m);
    if (k && k->triton && k->language && !strcmp(k->language, "triton")) {
        p->triton = k->triton;
        if (kw_page_triton(p, m, a, err) != KW_OK)
            return KW_ERR;
    }
    /* names a --shape may bind, plus the kernel's integral template constants */
    if (user_shape)
        for (size_t i = 0; i < user_shape->v.n; i++) {
            const kw_binding *b = &user_shape->v.v[i];
            if (kw_shape_add(&p->shape, a, b) != KW_OK)
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
            if (v > -1e300 && !kw_shape_lookup(&p->shape, t->name, strlen(t->name)) &&
                kw_shape_set(&p->shape, a, t->name, v, "template argument") != KW_OK)
                return kw_fail(err, "out of memory");
        }
    size_t nl = mk->launches.n;
    p->paths = nl ? kw_arena_alloc(a, nl * sizeof(kw_mpaths)) : NULL;
    if (nl && !p->paths)
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < nl; i++)
        if (kw_model_paths(m, mk->launches.v[i], a, &p->paths[i], err) != KW_OK)
            return KW_ERR;
    return user_shape ? kw_page_verdicts(p, m, a, err) : KW_OK;
}

/* ---- section 4: geometry and work ------------------------------------------------------------ */

static void kw_mem_geom(kw_page *p, bool user_shape, kw_arena *a, const kw_mlaunch *ml,
                        kw_page_geom *g) {
    memset(g, 0, sizeof(*g));
    kw_value v;
    g->block_known =
        kw_operand_value(&p->shape, user_shape, a, ml->l, &ml->l->block, &v, &g->why_block);
    if (g->block_known) {
        memcpy(g->block, v.v, sizeof g->block);
        g->threads_per_block = v.v[0] * v.v[1] * v.v[2];
    }
    g->grid_known =
        kw_operand_value(&p->shape, user_shape, a, ml->l, &ml->l->grid, &v, &g->why_grid);
    if (g->grid_known) {
        memcpy(g->grid, v.v, sizeof g->grid);
        g->blocks = v.v[0] * v.v[1] * v.v[2];
    }
}

/* Names an IR expression may use, bound for this launch: --shape and template
 * constants (already in p->shape), blockDim/gridDim from the geometry, and
 * each kernel parameter from its launch argument when that evaluates. */
static void kw_mem_bind(kw_page *p, kw_arena *a, const kw_mlaunch *ml, const kw_page_geom *g,
                        kw_shape *s) {
    memset(s, 0, sizeof(*s));
    for (size_t i = 0; i < p->shape.v.n; i++)
        kw_shape_add(s, a, &p->shape.v.v[i]);
    static const char *const dim[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; d++) {
        char name[32];
        if (g->block_known) {
            snprintf(name, sizeof name, "blockDim.%s", dim[d]);
            kw_shape_set(s, a, name, g->block[d], "launch");
        }
        if (g->grid_known) {
            snprintf(name, sizeof name, "gridDim.%s", dim[d]);
            kw_shape_set(s, a, name, g->grid[d], "launch");
        }
    }
    for (size_t i = 0; i < ml->l->args.n; i++) {
        const kw_launch_arg *la = &ml->l->args.v[i];
        kw_value v;
        kw_err err;
        if (!la->param || !la->expr || kw_shape_lookup(s, la->param, strlen(la->param)))
            continue;
        if (kw_expr_eval(la->expr, &p->shape, KW_EXPR_C, &v, &err) == KW_OK)
            kw_shape_set(s, a, la->param, v.v[0], "launch argument");
    }
}

static bool kw_mem_eval(kw_arena *a, const kw_val *v, const kw_shape *s, double *out,
                        const char **text) {
    char buf[64];
    *text = kw_val_text(v, buf, sizeof buf);
    if (*text)
        *text = kw_arena_strdup(a, *text);
    if (v->kind == KW_VAL_NUM) {
        *out = (double)v->num;
        return true;
    }
    if (!*text || !strcmp(*text, "unknown"))
        return false;
    kw_value val;
    kw_err err;
    if (kw_expr_eval(*text, s, KW_EXPR_EXACT, &val, &err) != KW_OK)
        return false;
    *out = val.v[0];
    return true;
}

/* The occupancy at the block size the kernel is compiled for, when its
 * source fixes that size (an attribute whose maximum is the code object's
 * .max_flat_workgroup_size): LLVM's occupancy assumes blocks as small as one
 * work-item, which a kernel compiled for 768 may never be launched with. */
static void kw_page_occ_block(const kw_kernel *k, kw_page_arch *x) {
    const kw_isa_resources *res = x->facts ? &x->facts->resources : NULL;
    if (!k || !res || res->max_flat_workgroup_size <= 0)
        return;
    bool fixed = false;
    for (size_t i = 0; i < k->attrs.n && !fixed; i++) {
        const char *n = k->attrs.v[i].name, *v = k->attrs.v[i].value;
        if (!n || !v)
            continue;
        const char *max = v;
        if (!strcmp(n, "amdgpu_flat_work_group_size") && strchr(v, ','))
            max = strchr(v, ',') + 1;
        else if (strcmp(n, "launch_bounds"))
            continue;
        fixed = atoll(max) == res->max_flat_workgroup_size;
    }
    if (!fixed)
        return;
    long long vgpr = res->vgpr;
    kw_co_occupancy_at_block(kw_co_hw_lookup(x->arch), vgpr, res->sgpr, res->lds_bytes,
                             (unsigned)res->max_flat_workgroup_size, &x->occ_block);
}

kw_status kw_page_finish(kw_page *p, kw_model *m, const kw_page_arch *archs, size_t narchs,
                         const char *only, kw_arena *a, kw_err *err) {
    bool user_shape = p->user_shape != NULL;
    if (!archs)
        narchs = p->k ? p->k->archs.n : 0;
    for (size_t i = 0; i < narchs; i++) {
        kw_page_arch x = {0};
        if (archs) {
            x = archs[i];
        } else {
            const kw_kernel_arch *ka = &p->k->archs.v[i];
            x.arch = ka->arch, x.facts = ka, x.ir = ka->ir;
        }
        if (only && strcmp(only, x.arch))
            continue;
        kw_page_arch *slot = KW_PUSH(a, p->archs);
        if (!slot)
            return kw_fail(err, "out of memory");
        *slot = x;
        slot->of = i;
        kw_page_occ_block(p->k, slot);
        /* section 5's listing quotes the line of each line-table row: the
         * rows name a few files (most often as the same strings), each
         * looked up once */
        const char *seen[8] = {0};
        size_t next = 0; /* the slot the next file takes, in turn */
        for (size_t j = 0; x.facts && j < x.facts->lines.n; j++) {
            const char *file = x.facts->lines.v[j].location.file;
            bool known = false;
            for (size_t k = 0; k < 8 && !known; k++)
                known = seen[k] == file;
            if (known)
                continue;
            kw_page_read(p, file);
            seen[next++ % 8] = file;
        }
    }
    archs = p->archs.v;
    narchs = p->archs.n;
    size_t ir_at = 0;
    while (ir_at < narchs && !archs[ir_at].ir)
        ir_at++;
    /* a Triton specialization has no diagram (kw_render_triton.c says why) */
    kw_flow_build(&p->flow, p->triton ? NULL : p->mk->k, ir_at < narchs ? archs[ir_at].arch : NULL,
                  ir_at < narchs ? archs[ir_at].ir : NULL, a);
    if (kw_calltree_build(&p->tree, p->triton ? NULL : p->k, m->tree_rules, a, err) != KW_OK)
        return KW_ERR;
    size_t nl = p->mk->launches.n;
    if (!nl)
        return KW_OK;
    p->geom = kw_arena_alloc(a, nl * sizeof(kw_page_geom));
    if (!p->geom)
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < nl; i++)
        kw_mem_geom(p, user_shape, a, &m->launches.v[p->mk->launches.v[i]], &p->geom[i]);
    if (!p->k || !narchs)
        return KW_OK;
    p->work = kw_arena_alloc(a, narchs * nl * sizeof(kw_page_work));
    if (!p->work)
        return kw_fail(err, "out of memory");
    memset(p->work, 0, narchs * nl * sizeof(kw_page_work));
    for (size_t x = 0; x < narchs; x++) {
        const kw_irf *ir = archs[x].ir;
        if (!ir)
            continue;
        for (size_t i = 0; i < nl; i++) {
            kw_page_work *w = &p->work[x * nl + i];
            kw_shape s;
            kw_mem_bind(p, a, &m->launches.v[p->mk->launches.v[i]], &p->geom[i], &s);
            w->krd = kw_mem_eval(a, &ir->work_per_thread.bytes_read, &s, &w->rd, &w->trd);
            w->kwr = kw_mem_eval(a, &ir->work_per_thread.bytes_written, &s, &w->wr, &w->twr);
            w->kfl = kw_mem_eval(a, &ir->work_per_thread.flops, &s, &w->fl, &w->tfl);
        }
    }
    return KW_OK;
}
