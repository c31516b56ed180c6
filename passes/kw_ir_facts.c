/* kw_ir_facts.c: the C side of the IR facts: initialization, names of the
 * enums, binding parameter names into the expressions, and the conversion into
 * the sidecar's records (kw_sidecar_ir.h), which the sidecar writer writes. */
#include "passes/kw_ir_facts.h"

#include <string.h>

void kw_ir_facts_init(kw_ir_kernel_facts *f) { memset(f, 0, sizeof *f); }

const char *kw_ir_op_name(kw_ir_op op) {
    switch (op) {
    case KW_IR_LOAD: return "load";
    case KW_IR_STORE: return "store";
    case KW_IR_ATOMIC: return "atomic";
    }
    return "?";
}

const char *kw_ir_space_name(kw_ir_space s) {
    switch (s) {
    case KW_IR_GLOBAL: return "global";
    case KW_IR_BUFFER: return "buffer";
    case KW_IR_LDS: return "lds";
    case KW_IR_FLAT: return "flat";
    case KW_IR_SCRATCH: return "scratch";
    case KW_IR_CONSTANT: return "constant";
    case KW_IR_OTHER_SPACE: return "other";
    }
    return "?";
}

const char *kw_ir_xop_name(kw_ir_xop op) {
    switch (op) {
    case KW_IR_X_DPP: return "dpp";
    case KW_IR_X_DPP8: return "dpp8";
    case KW_IR_X_SWIZZLE: return "swizzle";
    case KW_IR_X_BPERMUTE: return "bpermute";
    case KW_IR_X_PERMUTE: return "permute";
    case KW_IR_X_READLANE: return "readlane";
    case KW_IR_X_READFIRSTLANE: return "readfirstlane";
    case KW_IR_X_WRITELANE: return "writelane";
    case KW_IR_X_PERMLANE: return "permlane";
    case KW_IR_X_BALLOT: return "ballot";
    case KW_IR_X_ICMP: return "wave_cmp";
    case KW_IR_X_WAVE_REDUCE: return "wave_reduce_intrinsic";
    case KW_IR_X_WWM: return "wwm";
    }
    return "?";
}

const char *kw_ir_idiom_name(kw_ir_idiom_kind k) {
    switch (k) {
    case KW_IR_WAVE_REDUCE: return "wave_reduce";
    case KW_IR_PARTIAL_REDUCE: return "partial_reduce";
    case KW_IR_BROADCAST: return "broadcast";
    case KW_IR_BLOCK_REDUCE: return "block_reduce";
    case KW_IR_LDS_TREE_REDUCE:
        return "lds_tree_reduce";
    }
    return "?";
}

const char *kw_ir_barrier_name(kw_ir_barrier_kind k) {
    switch (k) {
    case KW_IR_S_BARRIER: return "s_barrier";
    case KW_IR_BARRIER_SIGNAL: return "s_barrier_signal";
    case KW_IR_BARRIER_WAIT: return "s_barrier_wait";
    case KW_IR_WAVE_BARRIER: return "wave_barrier";
    case KW_IR_FENCE: return "fence";
    }
    return "?";
}

/* ---- parameter names ------------------------------------------------------------------------ */

static kw_status rename_str(const char **s, const char *const *names, size_t n, kw_arena *a,
                            kw_err *err) {
    if (!*s || !strchr(*s, '$'))
        return KW_OK;
    char *r = kw_ir_expr_rename(a, *s, names, n);
    if (!r)
        return kw_fail(err, "out of memory");
    *s = r;
    return KW_OK;
}

/* expressions, and the reasons (which may quote an expression) */
static kw_status rename_val(kw_ir_val *v, const char *const *names, size_t n, kw_arena *a,
                            kw_err *err) {
    if (rename_str(&v->why, names, n, a, err))
        return KW_ERR;
    return v->kind == KW_IR_EXPR ? rename_str(&v->expr, names, n, a, err) : KW_OK;
}

kw_status kw_ir_facts_name_params(kw_ir_kernel_facts *f, const char *const *names, size_t n,
                                  kw_arena *a, kw_err *err) {
    /* the final name of every parameter: caller's, else IR/debug info's, else argN */
    size_t np = f->params.n;
    const char **final = kw_arena_alloc(a, (np ? np : 1) * sizeof(char *));
    if (!final)
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < np; i++) {
        if (i < n && names && names[i] && names[i][0])
            final[i] = kw_arena_strdup(a, names[i]);
        else if (f->params.v[i].name)
            final[i] = f->params.v[i].name;
        else
            final[i] = kw_arena_printf(a, "arg%zu", i);
        if (!final[i])
            return kw_fail(err, "out of memory");
        f->params.v[i].name = final[i];
    }
    for (size_t i = 0; i < f->accesses.n; i++) {
        kw_ir_access *x = &f->accesses.v[i];
        if (x->param >= 0 && (size_t)x->param < np)
            x->param_name = x->param_offset < 0 ? final[x->param]
                                                : kw_arena_printf(a, "%s+%lld", final[x->param],
                                                                  x->param_offset);
        if (x->param >= 0 && (size_t)x->param < np && !x->param_name)
            return kw_fail(err, "out of memory");
        if (rename_val(&x->lane_stride, final, np, a, err) ||
            rename_val(&x->group_stride[0], final, np, a, err) ||
            rename_val(&x->group_stride[1], final, np, a, err) ||
            rename_val(&x->group_stride[2], final, np, a, err))
            return KW_ERR;
    }
    for (size_t i = 0; i < f->loops.n; i++)
        if (rename_val(&f->loops.v[i].trip_count, final, np, a, err))
            return KW_ERR;
    for (size_t i = 0; i < f->idioms.n; i++)
        if (rename_val(&f->idioms.v[i].tree_steps, final, np, a, err) ||
            rename_str(&f->idioms.v[i].first_stride, final, np, a, err))
            return KW_ERR;
    kw_ir_val *w[] = {&f->work.flops,          &f->work.transcendental, &f->work.int_ops,
                      &f->work.conversions,    &f->work.bytes_read,     &f->work.bytes_written,
                      &f->work.lds_bytes_read, &f->work.lds_bytes_written};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (rename_val(w[i], final, np, a, err))
            return KW_ERR;
    return KW_OK;
}

kw_status kw_ir_facts_name_fields(kw_ir_kernel_facts *f, const kw_ir_field_name *fields,
                                  size_t n, kw_err *err) {
    (void)err;
    for (size_t i = 0; i < f->accesses.n; i++) {
        kw_ir_access *x = &f->accesses.v[i];
        if (x->param < 0 || x->param_offset < 0)
            continue;
        for (size_t j = 0; j < n; j++)
            if (fields[j].param == x->param && fields[j].offset == x->param_offset &&
                fields[j].name) {
                x->param_name = fields[j].name;
                break;
            }
    }
    return KW_OK;
}

/* ---- the sidecar's records ------------------------------------------------------------------ */

#define KW_NEW_ARRAY(a, arr, count)                                                                \
    ((arr).n = (arr).cap = (count),                                                                \
     (arr).v = (count) ? kw_arena_alloc((a), (count) * sizeof(*(arr).v)) : NULL,                   \
     (count) && !(arr).v ? KW_ERR : KW_OK)

static kw_val to_val(const kw_ir_val *v) {
    kw_val r = {KW_VAL_UNKNOWN, 0, NULL, v->kind == KW_IR_UNKNOWN ? v->why : NULL};
    if (v->kind == KW_IR_NUM) {
        r.kind = KW_VAL_NUM;
        r.num = v->num;
    } else if (v->kind == KW_IR_EXPR) {
        r.kind = KW_VAL_EXPR;
        r.expr = v->expr;
    }
    return r;
}

static kw_val num_val(long long n) {
    kw_val r = {KW_VAL_NUM, n, NULL, NULL};
    return r;
}

static kw_status to_loc(kw_arena *a, const kw_ir_loc *l, kw_irf_loc *o) {
    memset(o, 0, sizeof *o);
    if (!l->frames.n)
        return KW_OK;
    o->location_from = l->from;
    if (KW_NEW_ARRAY(a, o->inlined_at, l->frames.n - 1))
        return KW_ERR;
    for (size_t i = 0; i < l->frames.n; i++) {
        const kw_ir_frame *f = &l->frames.v[i];
        kw_irf_frame *t = i ? &o->inlined_at.v[i - 1] : &o->location;
        t->at.file = f->file;
        t->at.line = (int)f->line;
        t->at.column = (int)f->column;
        t->function = f->function;
    }
    return KW_OK;
}

static kw_status to_access(kw_arena *a, const kw_ir_kernel_facts *f, size_t i, kw_irf_access *o) {
    const kw_ir_access *x = &f->accesses.v[i];
    o->id = (long long)i;
    o->op = kw_ir_op_name(x->op);
    o->space = kw_ir_space_name(x->space);
    o->what = x->what;
    o->type = x->type;
    o->bytes_per_lane = x->bytes_per_lane;
    o->align = x->align;
    o->param = x->param >= 0 ? (x->param_name ? x->param_name : f->params.v[x->param].name) : NULL;
    o->param_index = x->param >= 0 ? x->param : -1;
    o->param_offset = x->param >= 0 ? x->param_offset : -1;
    o->object = x->object;
    o->base_why = x->base_why;
    o->lane_stride_bytes = to_val(&x->lane_stride);
    o->group_stride_bytes = to_val(&x->group_stride[0]);
    o->group_stride_bytes_y = to_val(&x->group_stride[1]);
    o->group_stride_bytes_z = to_val(&x->group_stride[2]);
    if (!(x->gid_dims & 2))
        o->group_stride_bytes_y.kind = KW_VAL_ABSENT;
    if (!(x->gid_dims & 4))
        o->group_stride_bytes_z.kind = KW_VAL_ABSENT;
    static const char *const tid[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    static const char *const gid[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    size_t nd = 0;
    for (int d = 0; d < 3; d++)
        nd += ((x->tid_dims >> d) & 1) + ((x->gid_dims >> d) & 1);
    if (KW_NEW_ARRAY(a, o->depends_on, nd))
        return KW_ERR;
    nd = 0;
    for (int d = 0; d < 3; d++)
        if (x->tid_dims & (1u << d))
            o->depends_on.v[nd++] = tid[d];
    for (int d = 0; d < 3; d++)
        if (x->gid_dims & (1u << d))
            o->depends_on.v[nd++] = gid[d];
    o->lanes_exact = x->lanes_exact != 0;
    o->active_lanes = x->active_lanes;
    o->wave_bytes = x->wave_bytes;
    o->segments_per_wave = x->segments_64;
    o->segments_per_wave_128 = x->segments_128;
    o->coalesced = x->coalesced < 0 ? -1 : x->coalesced != 0;
    o->bank_conflict_degree = x->lds_conflict_degree;
    o->group = x->group;
    o->loop = x->loop;
    o->conditional = x->conditional != 0;
    return to_loc(a, &x->loc, &o->loc);
}

static kw_status to_idiom(kw_arena *a, size_t i, const kw_ir_idiom *d, kw_irf_idiom *o) {
    o->id = (long long)i;
    o->kind = kw_ir_idiom_name(d->kind);
    o->op = d->op;
    o->type = d->type;
    o->via = d->via;
    o->steps = d->kind == KW_IR_LDS_TREE_REDUCE ? to_val(&d->tree_steps) : num_val(d->steps);
    o->lanes = d->lanes;
    if (d->kind == KW_IR_BROADCAST || (d->result_lane < 0 && d->kind != KW_IR_PARTIAL_REDUCE))
        o->result_lane = "all";
    else if (d->result_lane < 0)
        o->result_lane = "each_group";
    else if (!(o->result_lane = kw_arena_printf(a, "%d", d->result_lane)))
        return KW_ERR;
    o->broadcast_lane = d->broadcast_lane;
    if (KW_NEW_ARRAY(a, o->cross_lane, d->cross_lane.n) || KW_NEW_ARRAY(a, o->parts, 2))
        return KW_ERR;
    for (size_t m = 0; m < d->cross_lane.n; m++)
        o->cross_lane.v[m] = d->cross_lane.v[m];
    o->parts.v[0] = d->parts[0];
    o->parts.v[1] = d->parts[1];
    o->stride = d->stride;
    o->first_stride = d->first_stride;
    o->barriers = d->barriers;
    o->lds_object = d->lds_object;
    o->lds_bytes = d->lds_bytes;
    o->loop = d->loop;
    return to_loc(a, &d->loc, &o->loc);
}

kw_status kw_ir_facts_to_sidecar(const kw_ir_kernel_facts *f, kw_arena *a, kw_irf **out,
                                 kw_err *err) {
    kw_irf *o = kw_arena_alloc(a, sizeof *o);
    *out = NULL;
    if (!o)
        return kw_fail(err, "out of memory");
    memset(o, 0, sizeof *o);
    o->symbol = f->symbol;
    o->arch = f->arch;
    o->wave_size = f->wave_size;
    o->debug_info = f->has_debug_info != 0;
    if (KW_NEW_ARRAY(a, o->params, f->params.n) || KW_NEW_ARRAY(a, o->accesses, f->accesses.n) ||
        KW_NEW_ARRAY(a, o->groups, f->groups.n) ||
        KW_NEW_ARRAY(a, o->cross_lane, f->cross_lane.n) ||
        KW_NEW_ARRAY(a, o->idioms, f->idioms.n) || KW_NEW_ARRAY(a, o->loops, f->loops.n) ||
        KW_NEW_ARRAY(a, o->barrier_list, f->barriers.n) ||
        KW_NEW_ARRAY(a, o->inline_asm, f->inline_asm.n) || KW_NEW_ARRAY(a, o->notes, f->notes.n))
        return kw_fail(err, "out of memory");
    for (size_t i = 0; i < f->params.n; i++) {
        const kw_ir_param *p = &f->params.v[i];
        kw_irf_param *t = &o->params.v[i];
        t->index = (long long)i;
        t->name = p->name;
        t->type = p->type;
        t->addrspace = p->is_pointer ? (long long)p->addrspace : -1;
        t->readonly = p->readonly != 0;
        t->writeonly = p->writeonly != 0;
        t->noalias = p->noalias != 0;
    }
    for (size_t i = 0; i < f->accesses.n; i++)
        if (to_access(a, f, i, &o->accesses.v[i]))
            return kw_fail(err, "out of memory");
    for (size_t i = 0; i < f->groups.n; i++) {
        const kw_ir_group *g = &f->groups.v[i];
        kw_irf_group *t = &o->groups.v[i];
        if (KW_NEW_ARRAY(a, t->members, g->members.n))
            return kw_fail(err, "out of memory");
        for (size_t m = 0; m < g->members.n; m++)
            t->members.v[m] = g->members.v[m];
        t->lane_stride_bytes = g->lane_stride;
        t->bytes_per_lane = g->bytes_per_lane;
        t->contiguous = g->contiguous != 0;
        t->wave_bytes = g->wave_bytes;
        t->segments_per_wave = g->segments_64;
        t->segments_per_wave_128 = g->segments_128;
    }
    for (size_t i = 0; i < f->cross_lane.n; i++) {
        const kw_ir_xlane *x = &f->cross_lane.v[i];
        kw_irf_xlane *t = &o->cross_lane.v[i];
        t->id = (long long)i;
        t->op = kw_ir_xop_name(x->op);
        t->intrinsic = x->intrinsic;
        t->control = x->control;
        t->control_why = x->control_why;
        t->control_raw = x->control_raw;
        t->row_mask = x->row_mask;
        /* as the printer of `0x%x` wrote an int */
        t->bank_mask = x->row_mask >= 0 ? (long long)(unsigned)x->bank_mask : -1;
        t->bound_ctrl = x->bound_ctrl != 0;
        t->bits = x->bits;
        t->idiom = x->idiom;
        t->loop = x->loop;
        if (to_loc(a, &x->loc, &t->loc))
            return kw_fail(err, "out of memory");
    }
    for (size_t i = 0; i < f->idioms.n; i++)
        if (to_idiom(a, i, &f->idioms.v[i], &o->idioms.v[i]))
            return kw_fail(err, "out of memory");
    for (size_t i = 0; i < f->loops.n; i++) {
        const kw_ir_loop *l = &f->loops.v[i];
        kw_irf_loop *t = &o->loops.v[i];
        t->id = (long long)i;
        t->parent = l->parent;
        t->depth = l->depth;
        t->trip_count = to_val(&l->trip_count);
        t->lane_dependent = l->lane_dependent != 0;
        t->accesses = l->accesses;
        if (to_loc(a, &l->loc, &t->loc))
            return kw_fail(err, "out of memory");
    }
    o->barriers = f->barrier_count;
    for (size_t i = 0; i < f->barriers.n; i++) {
        const kw_ir_barrier *b = &f->barriers.v[i];
        kw_irf_barrier *t = &o->barrier_list.v[i];
        t->kind = kw_ir_barrier_name(b->kind);
        t->scope = b->scope;
        t->ordering = b->ordering;
        t->loop = b->loop;
        t->conditional = b->conditional != 0;
        if (to_loc(a, &b->loc, &t->loc))
            return kw_fail(err, "out of memory");
    }
    const kw_ir_work *w = &f->work;
    kw_irf_work *tw = &o->work_per_thread;
    tw->flops = to_val(&w->flops);
    tw->transcendental = to_val(&w->transcendental);
    tw->int_ops = to_val(&w->int_ops);
    tw->conversions = to_val(&w->conversions);
    tw->bytes_read = to_val(&w->bytes_read);
    tw->bytes_written = to_val(&w->bytes_written);
    tw->lds_bytes_read = to_val(&w->lds_bytes_read);
    tw->lds_bytes_written = to_val(&w->lds_bytes_written);
    tw->asm_uncounted = w->asm_uncounted;
    tw->mfma = w->mfma;
    for (size_t i = 0; i < f->inline_asm.n; i++) {
        const kw_ir_asm *s = &f->inline_asm.v[i];
        kw_irf_asm *t = &o->inline_asm.v[i];
        t->text = s->text;
        t->constraints = s->constraints;
        t->is_volatile = s->side_effects != 0;
        t->srcloc = s->srcloc;
        t->flops = s->flops;
        t->transcendental = s->transcendental;
        t->loop = s->loop;
        if (to_loc(a, &s->loc, &t->loc))
            return kw_fail(err, "out of memory");
    }
    for (size_t i = 0; i < f->notes.n; i++)
        o->notes.v[i] = f->notes.v[i];
    *out = o;
    return KW_OK;
}
