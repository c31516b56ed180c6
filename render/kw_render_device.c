/* kw_render_device.c: section 2, "Device Kernel: Step-by-Step": template
 * parameters (value, default, and the lines of the definition that use
 * them), thread-to-data mapping and load/store patterns from the IR facts,
 * the core computation (inline asm quoted at its line, reductions, barriers),
 * __shared__ memory, and the device call tree with its lines. */
#include <stdio.h>
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

/* ---- template parameters ------------------------------------------------------------------ */

static void kw_dev_template(kw_render *r, const kw_src_file *f, const kw_src_def *def,
                            bool have_def) {
    const kw_kernel *k = r->mk->k;
    kw_buf *o = r->out;
    kw_md_heading(o, 3, "Template parameters");
    if (!k->template_args.n) {
        kw_buf_puts(o, "Not a template: no template parameters.\n\n");
        return;
    }
    static const char *const head[] = {"#", "Parameter", "Kind", "Value", "Default?",
                                       "Used on lines"};
    kw_md_table_head(o, 6, head);
    for (size_t i = 0; i < k->template_args.n; i++) {
        const kw_template_arg *t = &k->template_args.v[i];
        kw_buf_printf(o, "| %zu | ", i + 1);
        kw_md_code(o, t->name ? t->name : "(unnamed)", true);
        kw_buf_printf(o, " | %s | ", t->kind ? t->kind : "?");
        kw_md_code(o, kw_r_targ_value(r, t), true);
        kw_buf_printf(o, " | %s | ", t->defaulted ? "yes (default)" : "no");
        if (!t->name || !have_def) {
            kw_buf_puts(o, "-");
        } else {
            int lines[12];
            size_t n = kw_src_uses(f, def->uses_line, def->uses_col, def->last, t->name, lines, 12);
            if (!n)
                kw_buf_puts(o, "not used in the kernel's own definition");
            for (size_t j = 0; j < n && j < 12; j++) {
                kw_buf_printf(o, "%s%d", j ? ", " : "", lines[j]);
                kw_r_ref(r, f->path, lines[j], "kernel", t->name);
            }
            if (n > 12)
                kw_buf_printf(o, " and %zu more", n - 12);
        }
        kw_buf_puts(o, " |\n");
    }
    kw_buf_putc(o, '\n');
    if (have_def)
        kw_buf_printf(o, "Lines are those of the kernel's definition (%s:%d-%d) where the "
                         "parameter's name appears in code.\n\n",
                      kw_r_path(r, f->path), def->first, def->last);
    else
        kw_buf_puts(o, "The kernel's definition could not be read from its source file, so "
                       "the lines using each parameter are not listed.\n\n");
}

/* ---- IR facts: accesses --------------------------------------------------------------------- */

/* A count as text (into buf). */
static const char *kw_dev_ll(long long v, char *buf, size_t n) {
    snprintf(buf, n, "%lld", v);
    return buf;
}

/* An IR location's first frame, NULL when it has none. */
static const kw_loc *kw_dev_loc(const kw_irf_loc *l) {
    return l->location.at.file ? &l->location.at : NULL;
}

/* The first arch with IR facts, or NULL. */
static const kw_rarch *kw_dev_ir_arch(kw_render *r, const kw_irf **ir) {
    for (size_t a = 0; a < r->archs.n; a++) {
        if (r->archs.v[a].ir) {
            *ir = r->archs.v[a].ir;
            return &r->archs.v[a];
        }
    }
    return NULL;
}

static void kw_dev_no_ir(kw_render *r, const char *what) {
    kw_buf_printf(r->out,
                  "%s: not derived, no IR facts in this sidecar. They come from the plugin's "
                  "analysis of the optimized IR (per access: bytes per lane, lane and block "
                  "strides, coalescing); from the AST alone this walkthrough can only say which "
                  "pointer parameters are const (Overview).\n\n",
                  what);
}

/* LDS and scratch accesses have no segments or coalescing (docs/ir-facts.md). */
static bool kw_dev_local(const kw_irf_access *x) {
    return x->space && (!strcmp(x->space, "lds") || !strcmp(x->space, "scratch"));
}

static void kw_dev_access_line(kw_render *r, const kw_irf_access *x) {
    kw_buf *o = r->out;
    char b4[32], b5[32];
    const char *op = x->op;
    const char *space = x->space;
    const char *param = x->param;
    const char *object = x->object;
    const char *width = kw_dev_ll(x->bytes_per_lane, b4, sizeof b4);
    const char *lane = kw_val_text(&x->lane_stride_bytes, b5, sizeof b5);
    char b6[64], b7[32];
    const char *group = kw_val_text(&x->group_stride_bytes, b6, sizeof b6);
    bool local = kw_dev_local(x);
    const char *segs = local                      ? NULL
                       : x->segments_per_wave < 0 ? "unknown"
                                                  : kw_dev_ll(x->segments_per_wave, b7, sizeof b7);
    const char *coal = local              ? NULL
                       : x->coalesced < 0 ? "unknown"
                       : x->coalesced     ? "true"
                                          : "false";
    kw_buf_puts(o, "- ");
    kw_buf_puts(o, op ? op : "access");
    kw_buf_puts(o, " of ");
    kw_md_code(o, param ? param : object ? object : "(unknown base)", false);
    kw_buf_printf(o, ", %s bytes per lane, %s memory", width ? width : "?",
                  space ? space : "?");
    if (lane) {
        long long s = x->lane_stride_bytes.num, w = x->bytes_per_lane;
        bool si = x->lane_stride_bytes.kind == KW_VAL_NUM;
        if (si && s == w)
            kw_buf_printf(o, "; lanes contiguous (lane stride %s bytes)", lane);
        else if (si && s == 0)
            kw_buf_puts(o, "; the same address in every lane (uniform)");
        else {
            kw_buf_puts(o, "; lane stride ");
            kw_md_code(o, lane, false);
            kw_buf_puts(o, " bytes");
        }
    }
    if (group) {
        kw_buf_puts(o, "; block stride ");
        kw_md_code(o, group, false);
        kw_buf_puts(o, " bytes");
    }
    if (segs)
        kw_buf_printf(o, "; %s 64-byte segments per wave", segs);
    if (coal)
        kw_buf_printf(o, " (coalesced: %s)", coal);
    long long active = x->active_lanes;
    if (active >= 0 && active < 64)
        kw_buf_printf(o, "; executed by %lld lane%s of a wave", active, active == 1 ? "" : "s");
    /* thread t of block b */
    if (lane && param && width) {
        kw_buf_puts(o, ". Thread t of block b touches ");
        char *s = kw_arena_printf(&r->scratch, "%s[b*(%s) + t*%s .. + %s - 1]", param,
                                  group ? group : "?", lane, width);
        kw_md_code(o, s ? s : "?", false);
        kw_buf_puts(o, " (bytes)");
    }
    const kw_loc *l = kw_dev_loc(&x->loc);
    if (l && l->file) {
        kw_buf_puts(o, ", at ");
        kw_r_kloc(r, l);
        kw_r_ref(r, l->file, l->line, "memory access", param);
    }
    kw_buf_puts(o, ".\n");
}

/* Accesses of one instruction kind to one base that together cover a
 * contiguous run per lane (the IR's groups): one line for all of them. */
static void kw_dev_group_line(kw_render *r, const kw_irf_access *x, const kw_irf_group *g,
                              const char *op) {
    kw_buf *o = r->out;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[64];
    const char *param = x->param;
    const char *object = x->object;
    const char *space = x->space;
    const char *width = kw_dev_ll(x->bytes_per_lane, b1, sizeof b1);
    const char *total = kw_dev_ll(g->bytes_per_lane, b2, sizeof b2);
    const char *lane = kw_dev_ll(g->lane_stride_bytes, b3, sizeof b3);
    const char *wave = kw_dev_ll(g->wave_bytes, b4, sizeof b4);
    const char *segs = kw_dev_ll(g->segments_per_wave, b5, sizeof b5);
    const char *group = kw_val_text(&x->group_stride_bytes, b6, sizeof b6);
    bool contiguous = g->contiguous;
    size_t members = g->members.n;
    kw_buf_puts(o, "- ");
    kw_md_code(o, param ? param : object ? object : "(unknown base)", false);
    kw_buf_printf(o, ": %zu %ss of %s bytes per lane (%s memory), together %s%s bytes per lane",
                  members, op, width ? width : "?", space ? space : "?", total ? total : "?",
                  contiguous ? " contiguous" : "");
    if (lane)
        kw_buf_printf(o, "; lane stride %s bytes", lane);
    if (group) {
        kw_buf_puts(o, "; block stride ");
        kw_md_code(o, group, false);
        kw_buf_puts(o, " bytes");
    }
    long long wb = g->wave_bytes, sg = g->segments_per_wave;
    if (wave && segs) {
        kw_buf_printf(o, "; a wave touches %s bytes in %s 64-byte segments", wave, segs);
        kw_buf_puts(o, wb == sg * 64 ? " (every byte of each segment used)"
                                     : " (segments partly used)");
    }
    if (lane && param && total) {
        kw_buf_puts(o, ". Thread t of block b covers ");
        char *s = kw_arena_printf(&r->scratch, "%s[b*(%s) + t*%s .. + %s - 1]", param,
                                  group ? group : "?", lane, total);
        kw_md_code(o, s ? s : "?", false);
        kw_buf_puts(o, " (bytes)");
    }
    kw_buf_puts(o, ".\n");
}

static void kw_dev_accesses(kw_render *r) {
    kw_buf *o = r->out;
    const kw_irf *ir = NULL;
    const kw_rarch *a = kw_dev_ir_arch(r, &ir);
    kw_md_heading(o, 3, "Thread-to-data mapping, loads and stores");
    if (!a) {
        kw_dev_no_ir(r, "Thread-to-data mapping and load/store patterns");
        return;
    }
    size_t n = ir->accesses.n, ngroups = ir->groups.n;
    kw_buf_printf(o, "From the IR facts of %s (%zu memory access%s in the optimized IR):\n\n",
                  a->arch, n, n == 1 ? "" : "es");
    static const char *const kinds[] = {"load", "store", "atomic"};
    kw_buf line, prev;
    kw_buf_init(&line);
    kw_buf_init(&prev);
    bool *group_done = kw_arena_alloc(&r->scratch, ngroups + 1);
    if (group_done)
        memset(group_done, 0, ngroups + 1);
    for (size_t k = 0; k < 3; k++) {
        bool any = false;
        unsigned same = 0;
        kw_buf_reset(&prev);
        for (size_t i = 0; i <= n; i++) {
            const kw_irf_access *x = i < n ? &ir->accesses.v[i] : NULL;
            const char *op = x ? x->op : NULL;
            bool mine = op && !strcmp(op, kinds[k]);
            long long g = mine ? x->group : -1;
            if (mine && g >= 0 && (size_t)g < ngroups && group_done && group_done[g])
                continue; /* shown with its group */
            kw_buf_reset(&line);
            if (mine) {
                kw_buf *save = r->out;
                r->out = &line;
                if (g >= 0 && (size_t)g < ngroups && group_done) {
                    kw_dev_group_line(r, x, &ir->groups.v[g], op);
                    group_done[g] = true;
                } else {
                    kw_dev_access_line(r, x);
                }
                r->out = save;
            }
            /* identical consecutive lines are written once, counted */
            if (mine && prev.len && !strcmp(kw_buf_str(&line), kw_buf_str(&prev))) {
                same++;
                continue;
            }
            if (prev.len) {
                if (same > 1)
                    prev.len -= 2, kw_buf_printf(&prev, " (%u such accesses).\n", same);
                kw_buf_append(o, prev.ptr, prev.len);
            }
            kw_buf_reset(&prev);
            if (!mine)
                continue;
            if (!any)
                kw_buf_printf(o, "**%s%ss**\n\n", k == 0 ? "L" : k == 1 ? "S" : "A",
                              kinds[k] + 1);
            any = true;
            kw_buf_append(&prev, line.ptr, line.len);
            same = 1;
        }
        if (any)
            kw_buf_putc(o, '\n');
    }
    kw_buf_free(&line);
    kw_buf_free(&prev);
    for (size_t i = 0; i < ir->notes.n; i++) {
        kw_buf_puts(o, i ? "; " : "Limits the analysis hit: ");
        kw_md_text(o, ir->notes.v[i], false);
    }
    if (ir->notes.n)
        kw_buf_puts(o, ".\n\n");
}

/* ---- core computation --------------------------------------------------------------------- */

/* "- wave_reduce (add) via `dpp`, 6 cross-lane steps, at `f:l`.\n" into b. */
static void kw_dev_idiom_line(kw_render *r, const kw_irf_idiom *d, kw_buf *b) {
    char b3[32], b4[32];
    const char *kind = d->kind;
    const char *op = d->op;
    const char *via = d->via;
    const char *steps = kw_val_text(&d->steps, b3, sizeof b3);
    bool lds = kind && (!strcmp(kind, "block_reduce") || !strcmp(kind, "lds_tree_reduce"));
    const char *bars = lds ? kw_dev_ll(d->barriers, b4, sizeof b4) : NULL;
    kw_buf_printf(b, "- %s", kind ? kind : "idiom");
    if (op)
        kw_buf_printf(b, " (%s)", op);
    if (via) {
        kw_buf_puts(b, " via ");
        kw_md_code(b, via, false);
    }
    bool tree = kind && !strcmp(kind, "lds_tree_reduce");
    if (steps)
        kw_buf_printf(b, tree ? ", %s LDS steps" : ", %s cross-lane steps", steps);
    if (bars)
        kw_buf_printf(b, tree ? ", %s barrier(s) per step" : ", %s barrier(s)", bars);
    const kw_loc *l = kw_dev_loc(&d->loc);
    if (l && l->file) {
        kw_buf *save = r->out;
        r->out = b;
        kw_buf_puts(b, ", at ");
        kw_r_kloc(r, l);
        r->out = save;
        kw_r_ref(r, l->file, l->line, "device helper", kind);
    }
    kw_buf_puts(b, ".\n");
}

/* One line per IR loop: trip count and, when the IR facts have it, the
 * file:line of its header (the `for`/`while` the loop comes from). Returns
 * how many loops have no location. */
static size_t kw_dev_loops(kw_render *r, const kw_irf *ir) {
    kw_buf *o = r->out;
    size_t unplaced = 0;
    for (size_t i = 0; i < ir->loops.n; i++) {
        const kw_irf_loop *lp = &ir->loops.v[i];
        char b[64];
        const char *trip = kw_val_text(&lp->trip_count, b, sizeof b);
        kw_buf_printf(o, "- Loop %zu: trip count ", i);
        kw_md_code(o, trip ? trip : "unknown", false);
        const kw_loc *l = kw_dev_loc(&lp->loc);
        if (l && l->file) {
            kw_buf_puts(o, " at ");
            kw_r_kloc(r, l);
            kw_r_ref(r, l->file, l->line, "loop", NULL);
        } else {
            kw_buf_puts(o, ", no source line");
            unplaced++;
        }
        kw_buf_puts(o, ".\n");
    }
    return unplaced;
}

static void kw_dev_compute(kw_render *r) {
    const kw_kernel *k = r->mk->k;
    kw_buf *o = r->out;
    kw_md_heading(o, 3, "Core computation");
    if (k->inline_asm.n) {
        kw_buf_printf(o, "Inline asm (%zu statement%s), as written:\n\n", k->inline_asm.n,
                      k->inline_asm.n == 1 ? "" : "s");
        for (size_t i = 0; i < k->inline_asm.n; i++) {
            const kw_inline_asm *s = &k->inline_asm.v[i];
            kw_buf_puts(o, "- ");
            kw_md_code(o, s->text ? s->text : "?", false);
            kw_buf_puts(o, " in ");
            kw_md_code(o, s->function ? s->function : "?", false);
            if (s->location.file) {
                kw_buf_puts(o, " at ");
                kw_r_kloc(r, &s->location);
                kw_r_ref(r, s->location.file, s->location.line, "inline asm", s->text);
            }
            kw_buf_puts(o, ":\n\n");
            if (s->location.file &&
                kw_r_check(r, s->location.file, s->location.line, "asm", false, "the asm statement"))
                kw_r_quote(r, s->location.file, s->location.line, s->location.line, "cpp");
        }
    } else {
        kw_buf_puts(o, "No inline asm in the kernel or its callees.\n\n");
    }
    const kw_irf *ir = NULL;
    const kw_rarch *a = kw_dev_ir_arch(r, &ir);
    if (!a) {
        kw_buf_puts(o, "Reductions (and their DPP / LDS steps), barriers, loops and "
                       "conversions: not derived, no IR facts in this sidecar. The device call "
                       "tree below shows which helpers the kernel calls.\n\n");
        return;
    }
    kw_buf_printf(o, "From the IR facts of %s:\n\n", a->arch);
    if (!ir->idioms.n)
        kw_buf_puts(o, "- No reduction or broadcast idiom was found.\n");
    /* one line per idiom; identical consecutive lines once, counted */
    kw_buf cur, last;
    kw_buf_init(&cur);
    kw_buf_init(&last);
    unsigned count = 0;
    size_t ni = ir->idioms.n;
    for (size_t i = 0; i <= ni; i++) {
        kw_buf_reset(&cur);
        if (i < ni)
            kw_dev_idiom_line(r, &ir->idioms.v[i], &cur);
        if (i < ni && last.len && !strcmp(kw_buf_str(&cur), kw_buf_str(&last))) {
            count++;
            continue;
        }
        if (last.len) {
            if (count > 1)
                last.len -= 2, kw_buf_printf(&last, " (%u times).\n", count);
            kw_buf_append(o, last.ptr, last.len);
        }
        kw_buf_reset(&last);
        kw_buf_append(&last, cur.ptr, cur.len);
        count = 1;
    }
    kw_buf_free(&cur);
    kw_buf_free(&last);
    char buf[32];
    const char *bars = kw_dev_ll(ir->barriers, buf, sizeof buf);
    if (bars)
        kw_buf_printf(o, "- Workgroup barriers: %s.\n", bars);
    size_t unplaced = kw_dev_loops(r, ir);
    kw_buf_putc(o, '\n');
    if (!unplaced)
        return;
    bool none = unplaced == ir->loops.n;
    if (!ir->debug_info)
        kw_buf_printf(o,
                      "%s: the device code was compiled without debug line "
                      "tables and with the plugin's location tracking off "
                      "(`-fplugin-arg-kwalk-lines=off` or `KWALK_LINES=off`), so the optimized "
                      "IR the loops are read from has no locations. Leave it on (the default) "
                      "or compile with `-Xarch_device -gline-tables-only` (or `-g`) and each "
                      "loop gets the file:line of its `for`/`while`.\n\n",
                      none ? "No loop has a source line" : "Some loops have no source line");
    else
        kw_buf_printf(o, "%s: the optimizer left no location on %s header.\n\n",
                      none ? "No loop has a source line" : "Some loops have no source line",
                      none ? "their" : "a loop's");
}

/* ---- shared memory ------------------------------------------------------------------------ */

static void kw_dev_shared(kw_render *r) {
    const kw_kernel *k = r->mk->k;
    kw_buf *o = r->out;
    kw_md_heading(o, 3, "Shared memory (`__shared__`)");
    if (!k->shared.n) {
        kw_buf_puts(o, "The kernel and its callees declare no `__shared__` variable.\n\n");
        return;
    }
    static const char *const head[] = {"Variable", "Type", "Bytes", "Declared in", "At"};
    kw_md_table_head(o, 5, head);
    long long total = 0;
    for (size_t i = 0; i < k->shared.n; i++) {
        const kw_shared_var *s = &k->shared.v[i];
        kw_buf_puts(o, "| ");
        kw_md_code(o, s->name ? s->name : "?", true);
        kw_buf_puts(o, " | ");
        kw_md_code(o, s->type ? s->type : "?", true);
        if (s->bytes >= 0) {
            kw_buf_printf(o, " | %lld | ", s->bytes);
            total += s->bytes;
        } else {
            kw_buf_puts(o, " | dynamic (extern) | ");
        }
        kw_md_code(o, kw_r_name(r, kw_r_short(r, s->function ? s->function : "?")), true);
        kw_buf_puts(o, " | ");
        kw_r_kloc(r, &s->location);
        if (s->location.file)
            kw_r_ref(r, s->location.file, s->location.line, "shared memory", s->name);
        kw_buf_puts(o, " |\n");
    }
    kw_buf_printf(o, "\nStatic `__shared__` total from the declarations: %lld bytes per block.",
                  total);
    for (size_t a = 0; a < r->archs.n; a++) {
        long long lds = r->archs.v[a].facts->resources.lds_bytes;
        if (lds >= 0)
            kw_buf_printf(o, " The %s code object reserves %lld bytes of LDS.", r->archs.v[a].arch,
                          lds);
    }
    kw_buf_puts(o, "\n\n");
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

typedef struct kw_tree {
    kw_render *r;
    const kw_kernel *k;
    KW_ARRAY(const char *) expanded; /* callee symbols already expanded */
    size_t lines;                    /* list items written */
} kw_tree;

static bool kw_tree_seen(kw_tree *t, const char *sym) {
    for (size_t i = 0; i < t->expanded.n; i++)
        if (!strcmp(t->expanded.v[i], sym))
            return true;
    return false;
}

static void kw_tree_walk(kw_tree *t, const char *caller, int depth) {
    kw_render *r = t->r;
    kw_buf *o = r->out;
    const kw_kernel *k = t->k;
    /* system callees: one line per caller, names with their lines */
    bool any_system = false;
    for (size_t i = 0; i < k->calls.n; i++) {
        const kw_call *c = &k->calls.v[i];
        if (!c->caller || strcmp(c->caller, caller) || !c->system)
            continue;
        if (!any_system) {
            for (int d = 0; d < depth; d++)
                kw_buf_puts(o, "  ");
            kw_buf_puts(o, "- HIP runtime: ");
            t->lines++;
        } else {
            kw_buf_puts(o, ", ");
        }
        any_system = true;
        kw_md_code(o, kw_dev_hip_name(c->name ? c->name : "?"), false);
        if (c->location.file)
            kw_buf_printf(o, " (%d)", c->location.line);
    }
    if (any_system)
        kw_buf_putc(o, '\n');
    for (size_t i = 0; i < k->calls.n; i++) {
        const kw_call *c = &k->calls.v[i];
        if (!c->caller || strcmp(c->caller, caller) || c->system)
            continue;
        /* calls of the same callee on the same line: one item, counted */
        size_t same = 0;
        bool earlier = false;
        for (size_t j = 0; j < k->calls.n; j++) {
            const kw_call *d = &k->calls.v[j];
            bool eq = d->caller && !strcmp(d->caller, caller) && !d->system && d->name &&
                      c->name && !strcmp(d->name, c->name) &&
                      d->location.line == c->location.line &&
                      (d->location.file == c->location.file ||
                       (d->location.file && c->location.file &&
                        !strcmp(d->location.file, c->location.file)));
            if (eq && j < i)
                earlier = true;
            same += eq;
        }
        if (earlier)
            continue;
        for (int d = 0; d < depth; d++)
            kw_buf_puts(o, "  ");
        kw_buf_puts(o, "- ");
        kw_md_code(o, c->name ? c->name : "?", false);
        if (c->location.file) {
            kw_buf_puts(o, " called at ");
            kw_r_kloc(r, &c->location);
            const char *base = kw_r_base_name(r, c->name);
            kw_r_ref(r, c->location.file, c->location.line,
                     depth == 0 ? "kernel" : "device helper", base ? base : c->name);
        }
        if (c->callee_location.file) {
            kw_buf_puts(o, ", defined at ");
            kw_r_kloc(r, &c->callee_location);
            kw_r_ref(r, c->callee_location.file, c->callee_location.line, "device helper",
                     c->name);
        }
        if (same > 1)
            kw_buf_printf(o, " (%zu calls on that line)", same);
        t->lines++;
        bool recurse = c->symbol && !kw_tree_seen(t, c->symbol) && depth < 30;
        bool has_children = false;
        for (size_t j = 0; j < k->calls.n && c->symbol && !has_children; j++)
            has_children = k->calls.v[j].caller && !strcmp(k->calls.v[j].caller, c->symbol);
        if (c->symbol && !recurse && has_children)
            kw_buf_puts(o, " (its calls are listed above)");
        kw_buf_putc(o, '\n');
        if (recurse) {
            const char **slot = KW_PUSH(&r->scratch, t->expanded);
            if (slot)
                *slot = c->symbol;
            kw_tree_walk(t, c->symbol, depth + 1);
        }
    }
}

static void kw_dev_calls(kw_render *r) {
    const kw_kernel *k = r->mk->k;
    kw_buf *o = r->out;
    kw_md_heading(o, 3, "Device call tree");
    if (!k->calls.n) {
        kw_buf_puts(o, "The kernel calls no function.\n\n");
        return;
    }
    kw_buf_puts(o, "Every call as instantiated, at its call site, with the callee's "
                   "definition; HIP runtime accessors are listed by line.\n\n");
    kw_tree t;
    memset(&t, 0, sizeof(t));
    t.r = r;
    t.k = k;
    kw_tree_walk(&t, k->symbol, 0);
    kw_buf_putc(o, '\n');
}

void kw_render_device(kw_render *r) {
    kw_buf *o = r->out;
    kw_md_heading(o, 2, "2. Device Kernel: Step-by-Step");
    const kw_kernel *k = r->mk->k;
    if (!k && r->mk->asm_code_object) {
        kw_buf_puts(o, "A precompiled ASM kernel has no source to walk through: its "
                       "instructions are in section 5.\n\n");
        return;
    }
    if (!k) {
        kw_buf_puts(o, "No device record: the index has no sidecar of this kernel's device "
                       "compile.\n\n");
        return;
    }
    const kw_src_file *f = k->location.file ? kw_page_src(&r->page, k->location.file) : NULL;
    kw_src_def def;
    bool have_def = false;
    if (f && f->ok) {
        const char *base = kw_r_base_name(r, k->name);
        if (kw_r_check(r, k->location.file, k->location.line, base, false,
                       "the kernel's name"))
            have_def = kw_src_def_range(f, k->location.line, k->location.column, &def);
    } else if (k->location.file) {
        kw_r_check(r, k->location.file, k->location.line, NULL, false, "the kernel");
    }
    if (have_def) {
        kw_buf_puts(o, "The kernel's signature:\n\n");
        kw_r_quote(r, k->location.file, def.first, def.body_open, "cpp");
    }
    kw_dev_template(r, f, &def, have_def);
    kw_dev_accesses(r);
    kw_dev_compute(r);
    kw_dev_shared(r);
    kw_dev_calls(r);
}
