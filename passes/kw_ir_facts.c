/* kw_ir_facts.c: the C side of the IR facts: initialization, names of the
 * enums, binding parameter names into the expressions, and a YAML printer for
 * tools and tests (the key names are those of docs/ir-facts.md). */
#include "passes/kw_ir_facts.h"

#include <ctype.h>
#include <inttypes.h>
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
            x->param_name = final[x->param];
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

/* ---- YAML printer --------------------------------------------------------------------------- */

static int plain_ok(const char *s) {
    if (!*s)
        return 0;
    static const char *const reserved[] = {"true", "false", "null", "yes", "no", "on", "off", "~"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(s, reserved[i]))
            return 0;
    if (!isalpha((unsigned char)s[0]) && s[0] != '_' && s[0] != '/')
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_./-+", *p))
            return 0;
    return 1;
}

static void put_str(FILE *o, const char *s) {
    if (!s) {
        fputs("null", o);
        return;
    }
    if (plain_ok(s)) {
        fputs(s, o);
        return;
    }
    fputc('"', o);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", o); break;
        case '\\': fputs("\\\\", o); break;
        case '\n': fputs("\\n", o); break;
        case '\t': fputs("\\t", o); break;
        default:
            if (*p < 0x20)
                fprintf(o, "\\x%02x", *p);
            else
                fputc(*p, o);
        }
    }
    fputc('"', o);
}

static void pad(FILE *o, int n) {
    for (int i = 0; i < n; i++)
        fputc(' ', o);
}

/* `key: value` for a kw_ir_val; unknown values get a `<key>_why` line. */
static void put_val(FILE *o, int ind, const char *key, const kw_ir_val *v) {
    pad(o, ind);
    fprintf(o, "%s: ", key);
    if (v->kind == KW_IR_NUM)
        fprintf(o, "%" PRId64 "\n", v->num);
    else if (v->kind == KW_IR_EXPR) {
        put_str(o, v->expr);
        fputc('\n', o);
    } else {
        fputs("unknown\n", o);
        if (v->why) {
            pad(o, ind);
            fprintf(o, "%s_why: ", key);
            put_str(o, v->why);
            fputc('\n', o);
        }
    }
}

static void put_frame(FILE *o, const kw_ir_frame *fr) {
    fputs("{file: ", o);
    put_str(o, fr->file);
    fprintf(o, ", line: %u, column: %u, function: ", fr->line, fr->column);
    put_str(o, fr->function);
    fputc('}', o);
}

static void put_loc(FILE *o, int ind, const kw_ir_loc *l) {
    if (!l->frames.n)
        return;
    pad(o, ind);
    fputs("location: ", o);
    put_frame(o, &l->frames.v[0]);
    fputc('\n', o);
    if (l->from) {
        pad(o, ind);
        fprintf(o, "location_from: %s\n", l->from);
    }
    if (l->frames.n > 1) {
        pad(o, ind);
        fputs("inlined_at: [", o);
        for (size_t i = 1; i < l->frames.n; i++) {
            if (i > 1)
                fputs(", ", o);
            put_frame(o, &l->frames.v[i]);
        }
        fputs("]\n", o);
    }
}

static void put_int_or_unknown(FILE *o, int ind, const char *key, int64_t v) {
    pad(o, ind);
    if (v < 0)
        fprintf(o, "%s: unknown\n", key);
    else
        fprintf(o, "%s: %" PRId64 "\n", key, v);
}

static void put_index(FILE *o, int ind, const char *key, int v) {
    pad(o, ind);
    if (v < 0)
        fprintf(o, "%s: null\n", key);
    else
        fprintf(o, "%s: %d\n", key, v);
}

static void put_key_str(FILE *o, int ind, const char *key, const char *s) {
    pad(o, ind);
    fprintf(o, "%s: ", key);
    put_str(o, s);
    fputc('\n', o);
}

static void print_access(FILE *o, int ind, const kw_ir_kernel_facts *f, size_t i) {
    const kw_ir_access *x = &f->accesses.v[i];
    pad(o, ind - 2);
    fprintf(o, "- id: %zu\n", i);
    put_key_str(o, ind, "op", kw_ir_op_name(x->op));
    put_key_str(o, ind, "space", kw_ir_space_name(x->space));
    put_key_str(o, ind, "what", x->what);
    put_key_str(o, ind, "type", x->type);
    pad(o, ind);
    fprintf(o, "bytes_per_lane: %u\n", x->bytes_per_lane);
    pad(o, ind);
    fprintf(o, "align: %u\n", x->align);
    if (x->param >= 0) {
        put_key_str(o, ind, "param", x->param_name ? x->param_name : f->params.v[x->param].name);
        pad(o, ind);
        fprintf(o, "param_index: %d\n", x->param);
    } else {
        put_key_str(o, ind, "param", NULL);
    }
    if (x->object)
        put_key_str(o, ind, "object", x->object);
    if (x->base_why)
        put_key_str(o, ind, "base_why", x->base_why);
    put_val(o, ind, "lane_stride_bytes", &x->lane_stride);
    put_val(o, ind, "group_stride_bytes", &x->group_stride[0]);
    if (x->gid_dims & 2)
        put_val(o, ind, "group_stride_bytes_y", &x->group_stride[1]);
    if (x->gid_dims & 4)
        put_val(o, ind, "group_stride_bytes_z", &x->group_stride[2]);
    pad(o, ind);
    fprintf(o, "depends_on: [");
    const char *sep = "";
    for (int d = 0; d < 3; d++)
        if (x->tid_dims & (1u << d)) {
            fprintf(o, "%sthreadIdx.%c", sep, "xyz"[d]);
            sep = ", ";
        }
    for (int d = 0; d < 3; d++)
        if (x->gid_dims & (1u << d)) {
            fprintf(o, "%sblockIdx.%c", sep, "xyz"[d]);
            sep = ", ";
        }
    fputs("]\n", o);
    pad(o, ind);
    fprintf(o, "lanes_exact: %s\n", x->lanes_exact ? "true" : "false");
    pad(o, ind);
    fprintf(o, "active_lanes: %d\n", x->active_lanes);
    put_int_or_unknown(o, ind, "wave_bytes", x->wave_bytes);
    if (x->space != KW_IR_LDS && x->space != KW_IR_SCRATCH) {
        put_int_or_unknown(o, ind, "segments_per_wave", x->segments_64);
        put_int_or_unknown(o, ind, "segments_per_wave_128", x->segments_128);
        pad(o, ind);
        fprintf(o, "coalesced: %s\n",
                x->coalesced < 0 ? "unknown" : x->coalesced ? "true" : "false");
    }
    if (x->space == KW_IR_LDS) {
        pad(o, ind);
        if (x->lds_conflict_degree < 0)
            fputs("bank_conflict_degree: unknown\n", o);
        else
            fprintf(o, "bank_conflict_degree: %d\n", x->lds_conflict_degree);
    }
    put_index(o, ind, "group", x->group);
    put_index(o, ind, "loop", x->loop);
    pad(o, ind);
    fprintf(o, "conditional: %s\n", x->conditional ? "true" : "false");
    put_loc(o, ind, &x->loc);
}

void kw_ir_facts_print_yaml(FILE *o, const kw_ir_kernel_facts *f, int ind) {
    put_key_str(o, ind, "symbol", f->symbol);
    put_key_str(o, ind, "arch", f->arch);
    pad(o, ind);
    fprintf(o, "wave_size: %u\n", f->wave_size);
    pad(o, ind);
    fprintf(o, "debug_info: %s\n", f->has_debug_info ? "true" : "false");

    pad(o, ind);
    fputs(f->params.n ? "params:\n" : "params: []\n", o);
    for (size_t i = 0; i < f->params.n; i++) {
        const kw_ir_param *p = &f->params.v[i];
        pad(o, ind + 2);
        fprintf(o, "- {index: %zu, name: ", i);
        put_str(o, p->name);
        fputs(", type: ", o);
        put_str(o, p->type);
        if (p->is_pointer)
            fprintf(o, ", addrspace: %u, readonly: %s, writeonly: %s, noalias: %s", p->addrspace,
                    p->readonly ? "true" : "false", p->writeonly ? "true" : "false",
                    p->noalias ? "true" : "false");
        fputs("}\n", o);
    }

    pad(o, ind);
    fputs(f->accesses.n ? "accesses:\n" : "accesses: []\n", o);
    for (size_t i = 0; i < f->accesses.n; i++)
        print_access(o, ind + 4, f, i);

    pad(o, ind);
    fputs(f->groups.n ? "groups:\n" : "groups: []\n", o);
    for (size_t i = 0; i < f->groups.n; i++) {
        const kw_ir_group *g = &f->groups.v[i];
        pad(o, ind + 2);
        fputs("- {members: [", o);
        for (size_t m = 0; m < g->members.n; m++)
            fprintf(o, "%s%u", m ? ", " : "", g->members.v[m]);
        fprintf(o, "], lane_stride_bytes: %" PRId64 ", bytes_per_lane: %" PRId64
                   ", contiguous: %s, wave_bytes: %" PRId64 ", segments_per_wave: %" PRId64
                   ", segments_per_wave_128: %" PRId64 "}\n",
                g->lane_stride, g->bytes_per_lane, g->contiguous ? "true" : "false",
                g->wave_bytes, g->segments_64, g->segments_128);
    }

    pad(o, ind);
    fputs(f->cross_lane.n ? "cross_lane:\n" : "cross_lane: []\n", o);
    for (size_t i = 0; i < f->cross_lane.n; i++) {
        const kw_ir_xlane *x = &f->cross_lane.v[i];
        pad(o, ind + 2);
        fprintf(o, "- id: %zu\n", i);
        put_key_str(o, ind + 4, "op", kw_ir_xop_name(x->op));
        put_key_str(o, ind + 4, "intrinsic", x->intrinsic);
        put_key_str(o, ind + 4, "control", x->control);
        if (x->control_why)
            put_key_str(o, ind + 4, "control_why", x->control_why);
        if (x->control_raw >= 0) {
            pad(o, ind + 4);
            fprintf(o, "control_raw: 0x%" PRIx64 "\n", x->control_raw);
        }
        if (x->row_mask >= 0) {
            pad(o, ind + 4);
            fprintf(o, "row_mask: 0x%x\n", x->row_mask);
            pad(o, ind + 4);
            fprintf(o, "bank_mask: 0x%x\n", x->bank_mask);
            pad(o, ind + 4);
            fprintf(o, "bound_ctrl: %s\n", x->bound_ctrl ? "true" : "false");
        }
        pad(o, ind + 4);
        fprintf(o, "bits: %u\n", x->bits);
        put_index(o, ind + 4, "idiom", x->idiom);
        put_index(o, ind + 4, "loop", x->loop);
        put_loc(o, ind + 4, &x->loc);
    }

    pad(o, ind);
    fputs(f->idioms.n ? "idioms:\n" : "idioms: []\n", o);
    for (size_t i = 0; i < f->idioms.n; i++) {
        const kw_ir_idiom *d = &f->idioms.v[i];
        pad(o, ind + 2);
        fprintf(o, "- id: %zu\n", i);
        put_key_str(o, ind + 4, "kind", kw_ir_idiom_name(d->kind));
        if (d->op)
            put_key_str(o, ind + 4, "op", d->op);
        if (d->type)
            put_key_str(o, ind + 4, "type", d->type);
        if (d->via)
            put_key_str(o, ind + 4, "via", d->via);
        if (d->kind == KW_IR_LDS_TREE_REDUCE) {
            put_val(o, ind + 4, "steps", &d->tree_steps);
        } else {
            pad(o, ind + 4);
            fprintf(o, "steps: %u\n", d->steps);
        }
        pad(o, ind + 4);
        fprintf(o, "lanes: %u\n", d->lanes);
        pad(o, ind + 4);
        if (d->kind == KW_IR_BROADCAST)
            fputs("result_lane: all\n", o);
        else if (d->result_lane < 0)
            fprintf(o, "result_lane: %s\n", d->kind == KW_IR_PARTIAL_REDUCE ? "each_group" : "all");
        else
            fprintf(o, "result_lane: %d\n", d->result_lane);
        put_index(o, ind + 4, "broadcast_lane", d->broadcast_lane);
        pad(o, ind + 4);
        fputs("cross_lane: [", o);
        for (size_t m = 0; m < d->cross_lane.n; m++)
            fprintf(o, "%s%u", m ? ", " : "", d->cross_lane.v[m]);
        fputs("]\n", o);
        if (d->kind == KW_IR_BLOCK_REDUCE) {
            pad(o, ind + 4);
            fprintf(o, "parts: [%d, %d]\n", d->parts[0], d->parts[1]);
        }
        if (d->kind == KW_IR_LDS_TREE_REDUCE) {
            put_key_str(o, ind + 4, "stride", d->stride);
            put_key_str(o, ind + 4, "first_stride", d->first_stride);
        }
        if (d->kind == KW_IR_BLOCK_REDUCE || d->kind == KW_IR_LDS_TREE_REDUCE) {
            pad(o, ind + 4);
            fprintf(o, "barriers: %u\n", d->barriers);
            put_key_str(o, ind + 4, "lds_object", d->lds_object);
            put_int_or_unknown(o, ind + 4, "lds_bytes", d->lds_bytes);
        }
        put_index(o, ind + 4, "loop", d->loop);
        put_loc(o, ind + 4, &d->loc);
    }

    pad(o, ind);
    fputs(f->loops.n ? "loops:\n" : "loops: []\n", o);
    for (size_t i = 0; i < f->loops.n; i++) {
        const kw_ir_loop *l = &f->loops.v[i];
        pad(o, ind + 2);
        fprintf(o, "- id: %zu\n", i);
        put_index(o, ind + 4, "parent", l->parent);
        pad(o, ind + 4);
        fprintf(o, "depth: %u\n", l->depth);
        put_val(o, ind + 4, "trip_count", &l->trip_count);
        pad(o, ind + 4);
        fprintf(o, "lane_dependent: %s\n", l->lane_dependent ? "true" : "false");
        pad(o, ind + 4);
        fprintf(o, "accesses: %u\n", l->accesses);
        put_loc(o, ind + 4, &l->loc);
    }

    pad(o, ind);
    fprintf(o, "barriers: %u\n", f->barrier_count);
    pad(o, ind);
    fputs(f->barriers.n ? "barrier_list:\n" : "barrier_list: []\n", o);
    for (size_t i = 0; i < f->barriers.n; i++) {
        const kw_ir_barrier *b = &f->barriers.v[i];
        pad(o, ind + 2);
        fprintf(o, "- kind: %s\n", kw_ir_barrier_name(b->kind));
        if (b->scope)
            put_key_str(o, ind + 4, "scope", b->scope);
        if (b->ordering)
            put_key_str(o, ind + 4, "ordering", b->ordering);
        put_index(o, ind + 4, "loop", b->loop);
        pad(o, ind + 4);
        fprintf(o, "conditional: %s\n", b->conditional ? "true" : "false");
        put_loc(o, ind + 4, &b->loc);
    }

    pad(o, ind);
    fputs("work_per_thread:\n", o);
    put_val(o, ind + 2, "flops", &f->work.flops);
    put_val(o, ind + 2, "transcendental", &f->work.transcendental);
    put_val(o, ind + 2, "int_ops", &f->work.int_ops);
    put_val(o, ind + 2, "conversions", &f->work.conversions);
    put_val(o, ind + 2, "bytes_read", &f->work.bytes_read);
    put_val(o, ind + 2, "bytes_written", &f->work.bytes_written);
    put_val(o, ind + 2, "lds_bytes_read", &f->work.lds_bytes_read);
    put_val(o, ind + 2, "lds_bytes_written", &f->work.lds_bytes_written);
    pad(o, ind + 2);
    fprintf(o, "asm_uncounted: %u\n", f->work.asm_uncounted);
    pad(o, ind + 2);
    fprintf(o, "mfma: %u\n", f->work.mfma);

    pad(o, ind);
    fputs(f->inline_asm.n ? "inline_asm:\n" : "inline_asm: []\n", o);
    for (size_t i = 0; i < f->inline_asm.n; i++) {
        const kw_ir_asm *s = &f->inline_asm.v[i];
        pad(o, ind + 2);
        fputs("- text: ", o);
        put_str(o, s->text);
        fputc('\n', o);
        put_key_str(o, ind + 4, "constraints", s->constraints);
        pad(o, ind + 4);
        fprintf(o, "volatile: %s\n", s->side_effects ? "true" : "false");
        pad(o, ind + 4);
        fprintf(o, "srcloc: %u\n", s->srcloc);
        put_int_or_unknown(o, ind + 4, "flops", s->flops);
        put_int_or_unknown(o, ind + 4, "transcendental", s->transcendental);
        put_index(o, ind + 4, "loop", s->loop);
        put_loc(o, ind + 4, &s->loc);
    }

    pad(o, ind);
    fputs(f->notes.n ? "notes:\n" : "notes: []\n", o);
    for (size_t i = 0; i < f->notes.n; i++) {
        pad(o, ind + 2);
        fputs("- ", o);
        put_str(o, f->notes.v[i]);
        fputc('\n', o);
    }
}
