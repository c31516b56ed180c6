/* kw_r_ir.c: the IR facts (docs/ir-facts.md) as the lines of a page: the
 * memory accesses (one line per access or group, identical lines counted),
 * the reduction idioms and barriers, the loops. Section 2 of a HIP page
 * (kw_render_device.c) and of a Triton page (kw_render_triton.c) write them. */
#include <stdio.h>
#include <string.h>

#include "render/kw_md.h"
#include "render/kw_render.h"

/* A count as text (into buf). */
static const char *kw_ri_ll(long long v, char *buf, size_t n) {
    snprintf(buf, n, "%lld", v);
    return buf;
}

/* An IR location's first frame, NULL when it has none. */
static const kw_loc *kw_ri_loc(const kw_irf_loc *l) {
    return l->location.at.file ? &l->location.at : NULL;
}

/* LDS and scratch accesses have no segments or coalescing (docs/ir-facts.md). */
static bool kw_ri_local(const kw_irf_access *x) {
    return x->space && (!strcmp(x->space, "lds") || !strcmp(x->space, "scratch"));
}

/* A variable local to a function whose printed name is long (`f(...)
 * const::smem_ptr`, a __shared__ array of ck_tile's GemmKernel::operator(),
 * kilobytes of template text) by its own name: section 2 lists where the
 * variable is declared. Any other object's name as it is. */
static const char *kw_ri_object_name(const char *object) {
    const char *last = NULL;
    int depth = 0;
    for (const char *c = object; *c; c++) {
        if (*c == '<' || *c == '(')
            depth++;
        else if ((*c == '>' || *c == ')') && depth > 0)
            depth--;
        else if (depth == 0 && c[0] == ':' && c[1] == ':')
            last = c;
    }
    if (!last || last == object || !last[2])
        return object;
    size_t n = (size_t)(last - object);
    if (n <= 160)
        return object; /* short enough to tell two functions' variables apart */
    bool in_function = object[n - 1] == ')' ||
                       (n > 7 && !strncmp(object + n - 7, ") const", 7));
    return in_function ? last + 2 : object;
}

static void kw_ri_access_line(kw_render *r, const kw_irf_access *x) {
    kw_buf *o = r->out;
    char b4[32], b5[32];
    const char *op = x->op;
    const char *space = x->space;
    const char *param = x->param;
    const char *object = x->object ? kw_ri_object_name(x->object) : NULL;
    const char *width = kw_ri_ll(x->bytes_per_lane, b4, sizeof b4);
    const char *lane = kw_page_facts_val(&x->lane_stride_bytes, b5, sizeof b5);
    char b6[64], b7[32];
    const char *group = kw_page_facts_val(&x->group_stride_bytes, b6, sizeof b6);
    bool local = kw_ri_local(x);
    const char *segs = local                      ? NULL
                       : x->segments_per_wave < 0 ? "unknown"
                                                  : kw_ri_ll(x->segments_per_wave, b7, sizeof b7);
    const char *coal = local              ? NULL
                       : x->coalesced < 0 ? "unknown"
                       : x->coalesced     ? "true"
                                          : "false";
    kw_md_in in = kw_r_prose_in(r);
    kw_r_plainf(r, "%s of ", op ? op : "access");
    kw_md_code(o, param ? param : object ? object : "(unknown base)", in);
    kw_r_plainf(r, ", %s bytes per lane, %s memory", width ? width : "?", space ? space : "?");
    if (lane) {
        long long s = x->lane_stride_bytes.num, w = x->bytes_per_lane;
        bool si = x->lane_stride_bytes.kind == KW_VAL_NUM;
        if (si && s == w)
            kw_r_plainf(r, "; lanes contiguous (lane stride %s bytes)", lane);
        else if (si && s == 0)
            kw_r_t(r, "; the same address in every lane (uniform)");
        else {
            kw_r_t(r, "; lane stride ");
            kw_md_code(o, lane, in);
            kw_r_t(r, " bytes");
        }
    }
    if (group) {
        kw_r_t(r, "; block stride ");
        kw_md_code(o, group, in);
        kw_r_t(r, " bytes");
    }
    if (segs)
        kw_r_plainf(r, "; %s 64-byte segments per wave", segs);
    if (coal)
        kw_r_plainf(r, " (coalesced: %s)", coal);
    long long active = x->active_lanes;
    if (active >= 0 && active < 64)
        kw_r_tf(r, "; executed by %lld lane%s of a wave", active, active == 1 ? "" : "s");
    /* thread t of block b */
    if (lane && param && width) {
        kw_r_t(r, ". Thread t of block b touches ");
        char *s = kw_arena_printf(&r->scratch, "%s[b*(%s) + t*%s .. + %s - 1]", param,
                                  group ? group : "?", lane, width);
        kw_md_code(o, s ? s : "?", in);
        kw_r_t(r, " (bytes)");
    }
    const kw_loc *l = kw_ri_loc(&x->loc);
    if (l && l->file) {
        kw_r_t(r, ", at ");
        kw_r_kloc(r, l);
        kw_r_ref(r, l->file, l->line, "memory access", param);
    }
}

/* Accesses of one instruction kind to one base that together cover a
 * contiguous run per lane (the IR's groups): one line for all of them. */
static void kw_ri_group_line(kw_render *r, const kw_irf_access *x, const kw_irf_group *g,
                             const char *op) {
    kw_buf *o = r->out;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[64];
    const char *param = x->param;
    const char *object = x->object ? kw_ri_object_name(x->object) : NULL;
    const char *space = x->space;
    const char *width = kw_ri_ll(x->bytes_per_lane, b1, sizeof b1);
    const char *total = kw_ri_ll(g->bytes_per_lane, b2, sizeof b2);
    const char *lane = kw_ri_ll(g->lane_stride_bytes, b3, sizeof b3);
    const char *wave = kw_ri_ll(g->wave_bytes, b4, sizeof b4);
    const char *segs = kw_ri_ll(g->segments_per_wave, b5, sizeof b5);
    const char *group = kw_page_facts_val(&x->group_stride_bytes, b6, sizeof b6);
    bool contiguous = g->contiguous;
    size_t members = g->members.n;
    kw_md_in in = kw_r_prose_in(r);
    kw_md_code(o, param ? param : object ? object : "(unknown base)", in);
    kw_r_plainf(r, ": %zu %ss of %s bytes per lane (%s memory), together %s%s bytes per lane",
                members, op, width ? width : "?", space ? space : "?", total ? total : "?",
                contiguous ? " contiguous" : "");
    if (lane)
        kw_r_plainf(r, "; lane stride %s bytes", lane);
    if (group) {
        kw_r_t(r, "; block stride ");
        kw_md_code(o, group, in);
        kw_r_t(r, " bytes");
    }
    long long wb = g->wave_bytes, sg = g->segments_per_wave;
    if (wave && segs) {
        kw_r_plainf(r, "; a wave touches %s bytes in %s 64-byte segments", wave, segs);
        kw_r_t(r, wb == sg * 64 ? " (every byte of each segment used)" : " (segments partly used)");
    }
    if (lane && param && total) {
        kw_r_t(r, ". Thread t of block b covers ");
        char *s = kw_arena_printf(&r->scratch, "%s[b*(%s) + t*%s .. + %s - 1]", param,
                                  group ? group : "?", lane, total);
        kw_md_code(o, s ? s : "?", in);
        kw_r_t(r, " (bytes)");
    }
}

/* "wave_reduce (add) via `dpp`, 6 cross-lane steps, at `f:l`" into b (an
 * item's text, as r->in has it). */
static void kw_ri_idiom_line(kw_render *r, const kw_irf_idiom *d, kw_buf *b) {
    char b3[32], b4[32];
    const char *kind = d->kind;
    const char *op = d->op;
    const char *via = d->via;
    const char *steps = kw_page_facts_val(&d->steps, b3, sizeof b3);
    bool lds = kind && (!strcmp(kind, "block_reduce") || !strcmp(kind, "lds_tree_reduce"));
    const char *bars = lds ? kw_ri_ll(d->barriers, b4, sizeof b4) : NULL;
    kw_md_in in = kw_r_prose_in(r);
    const char *what = kind ? kind : "idiom";
    kw_md_safe(b, what, in); /* words from the sidecar: as text */
    if (op) {
        kw_buf_puts(b, " (");
        kw_md_safe(b, op, in);
        kw_buf_puts(b, ")");
    }
    if (via) {
        kw_buf_puts(b, " via ");
        kw_md_code(b, via, in);
    }
    bool tree = kind && !strcmp(kind, "lds_tree_reduce");
    if (steps)
        kw_buf_printf(b, tree ? ", %s LDS steps" : ", %s cross-lane steps", steps);
    if (bars)
        kw_buf_printf(b, tree ? ", %s barrier(s) per step" : ", %s barrier(s)", bars);
    const kw_loc *l = kw_ri_loc(&d->loc);
    if (l && l->file) {
        kw_buf *save = r->out;
        r->out = b;
        kw_buf_puts(b, ", at ");
        kw_r_kloc(r, l);
        r->out = save;
        kw_r_ref(r, l->file, l->line, "device helper", kind);
    }
}

/* One line per IR loop: trip count and, when the IR facts have it, the
 * file:line of its header (the `for`/`while` the loop comes from). Returns
 * how many loops have no location. */
size_t kw_r_ir_loops(kw_render *r, const kw_irf *ir) {
    kw_buf *o = r->out;
    size_t unplaced = 0;
    for (size_t i = 0; i < ir->loops.n; i++) {
        const kw_irf_loop *lp = &ir->loops.v[i];
        char b[64];
        const char *trip = kw_page_facts_val(&lp->trip_count, b, sizeof b);
        kw_r_item(r, 0);
        kw_r_tf(r, "Loop %zu: trip count ", i);
        kw_md_code(o, trip ? trip : "unknown", kw_r_prose_in(r));
        const kw_loc *l = kw_ri_loc(&lp->loc);
        if (l && l->file) {
            kw_r_t(r, " at ");
            kw_r_kloc(r, l);
            kw_r_ref(r, l->file, l->line, "loop", NULL);
        } else {
            kw_r_t(r, ", no source line");
            unplaced++;
        }
        kw_r_t(r, ".");
    }
    return unplaced;
}

void kw_r_ir_accesses(kw_render *r, const char *arch, const kw_irf *ir) {
    kw_buf *o = r->out;
    size_t n = ir->accesses.n, ngroups = ir->groups.n;
    kw_r_p(r);
    kw_r_t(r, "From the IR facts of ");
    kw_r_s(r, arch);
    kw_r_tf(r, " (%zu memory access%s in the optimized IR):", n, n == 1 ? "" : "es");
    kw_r_p_end(r);
    static const char *const kinds[] = {"load", "store", "atomic"};
    kw_buf line, prev;
    kw_buf_init(&line);
    kw_buf_init(&prev);
    bool *group_done = kw_arena_alloc(&r->scratch, ngroups + 1);
    if (group_done)
        memset(group_done, 0, ngroups + 1);
    /* an item's text is made before its list is begun: as the list will have it */
    kw_md_in item_in = r->o->printer == KW_R_HTML ? KW_MD_HTML : KW_MD_CELL;
    r->in = item_in;
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
                    kw_ri_group_line(r, x, &ir->groups.v[g], op);
                    group_done[g] = true;
                } else {
                    kw_ri_access_line(r, x);
                }
                r->out = save;
            }
            /* identical consecutive lines are written once, counted */
            if (mine && prev.len && !strcmp(kw_buf_str(&line), kw_buf_str(&prev))) {
                same++;
                continue;
            }
            if (prev.len) {
                kw_r_item(r, 0);
                kw_buf_append(o, prev.ptr, prev.len);
                if (same > 1)
                    kw_r_tf(r, " (%u such accesses)", same);
                kw_r_t(r, ".");
            }
            kw_buf_reset(&prev);
            if (!mine)
                continue;
            if (!any) {
                static const char *const title[] = {"Loads", "Stores", "Atomics"};
                kw_r_p(r);
                kw_md_strong(o, title[k], kw_r_prose_in(r));
                kw_r_p_end(r);
                kw_r_list(r);
            }
            any = true;
            kw_buf_append(&prev, line.ptr, line.len);
            same = 1;
        }
        if (any) {
            kw_r_list_end(r);
            kw_r_gap(r);
            r->in = item_in;
        }
    }
    r->in = KW_MD_CELL;
    kw_buf_free(&line);
    kw_buf_free(&prev);
    if (!ir->notes.n)
        return;
    kw_r_p(r);
    for (size_t i = 0; i < ir->notes.n; i++) {
        kw_r_t(r, i ? "; " : "Limits the analysis hit: ");
        kw_md_text(o, ir->notes.v[i], kw_r_prose_in(r));
    }
    kw_r_t(r, ".");
    kw_r_p_end(r);
}

void kw_r_ir_idioms(kw_render *r, const kw_irf *ir) {
    kw_buf *o = r->out;
    if (!ir->idioms.n) {
        kw_r_item(r, 0);
        kw_r_t(r, "No reduction or broadcast idiom was found.");
    }
    /* one line per idiom; identical lines once (where the first is), counted */
    kw_buf cur;
    kw_buf_init(&cur);
    size_t ni = ir->idioms.n;
    const char **text = kw_arena_alloc(&r->scratch, (ni ? ni : 1) * sizeof *text);
    for (size_t i = 0; text && i < ni; i++) {
        kw_buf_reset(&cur);
        kw_ri_idiom_line(r, &ir->idioms.v[i], &cur);
        text[i] = kw_arena_strndup(&r->scratch, cur.ptr ? cur.ptr : "", cur.len);
    }
    for (size_t i = 0; text && i < ni; i++) {
        if (!text[i])
            continue;
        unsigned count = 1;
        for (size_t j = i + 1; j < ni; j++)
            if (text[j] && !strcmp(text[j], text[i])) {
                count++;
                text[j] = NULL;
            }
        kw_r_item(r, 0);
        kw_buf_puts(o, text[i]);
        if (count > 1)
            kw_r_tf(r, " (%u times)", count);
        kw_r_t(r, ".");
    }
    kw_buf_free(&cur);
    char buf[32];
    const char *bars = kw_ri_ll(ir->barriers, buf, sizeof buf);
    if (bars) {
        kw_r_item(r, 0);
        kw_r_tf(r, "Workgroup barriers: %s.", bars);
    }
}
