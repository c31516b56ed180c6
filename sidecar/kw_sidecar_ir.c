/* kw_sidecar_ir.c: the schema tables of the IR facts (kw_sidecar_ir.h), the
 * `ir:` mapping of a kernel's arch; the keys and their order are those of
 * docs/ir-facts.md. The writer, reader, copy and packed index walk them like
 * the tables of kw_sidecar.c. */
#include "sidecar/kw_schema.h"

#include <stdio.h>
#include <string.h>

#define Q KW_F_QUOTED
#define QA (KW_F_QUOTED | KW_F_ALWAYS)

static const kw_field kw_f_irf_frame[] = {
    {"file", KW_F_STR, offsetof(kw_irf_frame, at.file), NULL, Q, NULL},
    {"line", KW_F_INT, offsetof(kw_irf_frame, at.line), NULL, 0, "file"},
    {"column", KW_F_INT, offsetof(kw_irf_frame, at.column), NULL, 0, "file"},
    {"function", KW_F_STR, offsetof(kw_irf_frame, function), NULL, QA, "file"},
};
static KW_TYPE(kw_t_irf_frame, "IR location", kw_irf_frame, true, kw_f_irf_frame);

/* The location rows every located record ends with (kw_irf_loc loc). */
#define KW_IRF_LOC_ROWS(T)                                                                         \
    {"location", KW_F_MAP, offsetof(T, loc.location), &kw_t_irf_frame, 0, NULL},                   \
        {"location_from", KW_F_STR, offsetof(T, loc.location_from), NULL, Q, NULL},                \
        {"inlined_at", KW_F_LIST, offsetof(T, loc.inlined_at), &kw_t_irf_frame, KW_F_FLOW, NULL}

static const kw_field kw_f_irf_param[] = {
    {"index", KW_F_LL, offsetof(kw_irf_param, index), NULL, 0, NULL},
    {"name", KW_F_STR, offsetof(kw_irf_param, name), NULL, QA, NULL},
    {"type", KW_F_STR, offsetof(kw_irf_param, type), NULL, QA, NULL},
    {"addrspace", KW_F_BYTES, offsetof(kw_irf_param, addrspace), NULL, 0, NULL},
    {"readonly", KW_F_BOOL, offsetof(kw_irf_param, readonly), NULL, 0, "addrspace"},
    {"writeonly", KW_F_BOOL, offsetof(kw_irf_param, writeonly), NULL, 0, "addrspace"},
    {"noalias", KW_F_BOOL, offsetof(kw_irf_param, noalias), NULL, 0, "addrspace"},
};
static KW_TYPE(kw_t_irf_param, "IR parameter", kw_irf_param, true, kw_f_irf_param);

#define KW_NOT_LOCAL "space!=lds|scratch"

static const kw_field kw_f_irf_access[] = {
    {"id", KW_F_LL, offsetof(kw_irf_access, id), NULL, KW_F_POS, NULL},
    {"op", KW_F_STR, offsetof(kw_irf_access, op), NULL, QA, NULL},
    {"space", KW_F_STR, offsetof(kw_irf_access, space), NULL, QA, NULL},
    {"what", KW_F_STR, offsetof(kw_irf_access, what), NULL, QA, NULL},
    {"type", KW_F_STR, offsetof(kw_irf_access, type), NULL, QA, NULL},
    {"bytes_per_lane", KW_F_LL, offsetof(kw_irf_access, bytes_per_lane), NULL, 0, NULL},
    {"align", KW_F_LL, offsetof(kw_irf_access, align), NULL, 0, NULL},
    {"param", KW_F_STR, offsetof(kw_irf_access, param), NULL, QA, NULL},
    {"param_index", KW_F_BYTES, offsetof(kw_irf_access, param_index), NULL, 0, NULL},
    {"param_offset", KW_F_BYTES, offsetof(kw_irf_access, param_offset), NULL, 0, NULL},
    {"object", KW_F_STR, offsetof(kw_irf_access, object), NULL, Q, NULL},
    {"base_why", KW_F_STR, offsetof(kw_irf_access, base_why), NULL, Q, NULL},
    {"lane_stride_bytes", KW_F_VAL, offsetof(kw_irf_access, lane_stride_bytes), NULL, Q, NULL},
    {"group_stride_bytes", KW_F_VAL, offsetof(kw_irf_access, group_stride_bytes), NULL, Q, NULL},
    {"group_stride_bytes_y", KW_F_VAL, offsetof(kw_irf_access, group_stride_bytes_y), NULL, Q,
     NULL},
    {"group_stride_bytes_z", KW_F_VAL, offsetof(kw_irf_access, group_stride_bytes_z), NULL, Q,
     NULL},
    {"depends_on", KW_F_STRS, offsetof(kw_irf_access, depends_on), NULL, QA, NULL},
    {"lanes_exact", KW_F_BOOL, offsetof(kw_irf_access, lanes_exact), NULL, 0, NULL},
    {"active_lanes", KW_F_LL, offsetof(kw_irf_access, active_lanes), NULL, 0, NULL},
    {"wave_bytes", KW_F_LL, offsetof(kw_irf_access, wave_bytes), NULL, KW_F_UNKNOWN, NULL},
    {"segments_per_wave", KW_F_LL, offsetof(kw_irf_access, segments_per_wave), NULL, KW_F_UNKNOWN,
     KW_NOT_LOCAL},
    {"segments_per_wave_128", KW_F_LL, offsetof(kw_irf_access, segments_per_wave_128), NULL,
     KW_F_UNKNOWN, KW_NOT_LOCAL},
    {"coalesced", KW_F_TRI, offsetof(kw_irf_access, coalesced), NULL, 0, KW_NOT_LOCAL},
    {"bank_conflict_degree", KW_F_LL, offsetof(kw_irf_access, bank_conflict_degree), NULL,
     KW_F_UNKNOWN, "space=lds"},
    {"group", KW_F_LL, offsetof(kw_irf_access, group), NULL, KW_F_NULL, NULL},
    {"loop", KW_F_LL, offsetof(kw_irf_access, loop), NULL, KW_F_NULL, NULL},
    {"conditional", KW_F_BOOL, offsetof(kw_irf_access, conditional), NULL, 0, NULL},
    KW_IRF_LOC_ROWS(kw_irf_access),
};
static KW_TYPE(kw_t_irf_access, "IR access", kw_irf_access, true, kw_f_irf_access);

static const kw_field kw_f_irf_group[] = {
    {"members", KW_F_INTS, offsetof(kw_irf_group, members), NULL, KW_F_ALWAYS, NULL},
    {"lane_stride_bytes", KW_F_LL, offsetof(kw_irf_group, lane_stride_bytes), NULL, 0, NULL},
    {"bytes_per_lane", KW_F_LL, offsetof(kw_irf_group, bytes_per_lane), NULL, 0, NULL},
    {"contiguous", KW_F_BOOL, offsetof(kw_irf_group, contiguous), NULL, 0, NULL},
    {"wave_bytes", KW_F_LL, offsetof(kw_irf_group, wave_bytes), NULL, 0, NULL},
    {"segments_per_wave", KW_F_LL, offsetof(kw_irf_group, segments_per_wave), NULL, 0, NULL},
    {"segments_per_wave_128", KW_F_LL, offsetof(kw_irf_group, segments_per_wave_128), NULL, 0,
     NULL},
};
static KW_TYPE(kw_t_irf_group, "IR access group", kw_irf_group, true, kw_f_irf_group);

static const kw_field kw_f_irf_xlane[] = {
    {"id", KW_F_LL, offsetof(kw_irf_xlane, id), NULL, KW_F_POS, NULL},
    {"op", KW_F_STR, offsetof(kw_irf_xlane, op), NULL, QA, NULL},
    {"intrinsic", KW_F_STR, offsetof(kw_irf_xlane, intrinsic), NULL, QA, NULL},
    {"control", KW_F_STR, offsetof(kw_irf_xlane, control), NULL, QA, NULL},
    {"control_why", KW_F_STR, offsetof(kw_irf_xlane, control_why), NULL, Q, NULL},
    {"control_raw", KW_F_BYTES, offsetof(kw_irf_xlane, control_raw), NULL, KW_F_HEX, NULL},
    {"row_mask", KW_F_BYTES, offsetof(kw_irf_xlane, row_mask), NULL, KW_F_HEX, NULL},
    {"bank_mask", KW_F_BYTES, offsetof(kw_irf_xlane, bank_mask), NULL, KW_F_HEX, "row_mask"},
    {"bound_ctrl", KW_F_BOOL, offsetof(kw_irf_xlane, bound_ctrl), NULL, 0, "row_mask"},
    {"bits", KW_F_LL, offsetof(kw_irf_xlane, bits), NULL, 0, NULL},
    {"idiom", KW_F_LL, offsetof(kw_irf_xlane, idiom), NULL, KW_F_NULL, NULL},
    {"loop", KW_F_LL, offsetof(kw_irf_xlane, loop), NULL, KW_F_NULL, NULL},
    KW_IRF_LOC_ROWS(kw_irf_xlane),
};
static KW_TYPE(kw_t_irf_xlane, "IR cross-lane operation", kw_irf_xlane, true, kw_f_irf_xlane);

#define KW_LDS_IDIOM "kind=block_reduce|lds_tree_reduce"

static const kw_field kw_f_irf_idiom[] = {
    {"id", KW_F_LL, offsetof(kw_irf_idiom, id), NULL, KW_F_POS, NULL},
    {"kind", KW_F_STR, offsetof(kw_irf_idiom, kind), NULL, QA, NULL},
    {"op", KW_F_STR, offsetof(kw_irf_idiom, op), NULL, Q, NULL},
    {"type", KW_F_STR, offsetof(kw_irf_idiom, type), NULL, Q, NULL},
    {"via", KW_F_STR, offsetof(kw_irf_idiom, via), NULL, Q, NULL},
    {"steps", KW_F_VAL, offsetof(kw_irf_idiom, steps), NULL, Q, NULL},
    {"lanes", KW_F_LL, offsetof(kw_irf_idiom, lanes), NULL, 0, NULL},
    {"result_lane", KW_F_SCALAR, offsetof(kw_irf_idiom, result_lane), NULL, 0, NULL},
    {"broadcast_lane", KW_F_LL, offsetof(kw_irf_idiom, broadcast_lane), NULL, KW_F_NULL, NULL},
    {"cross_lane", KW_F_INTS, offsetof(kw_irf_idiom, cross_lane), NULL, KW_F_ALWAYS, NULL},
    {"parts", KW_F_INTS, offsetof(kw_irf_idiom, parts), NULL, KW_F_ALWAYS, "kind=block_reduce"},
    {"stride", KW_F_STR, offsetof(kw_irf_idiom, stride), NULL, QA, "kind=lds_tree_reduce"},
    {"first_stride", KW_F_STR, offsetof(kw_irf_idiom, first_stride), NULL, QA,
     "kind=lds_tree_reduce"},
    {"barriers", KW_F_LL, offsetof(kw_irf_idiom, barriers), NULL, 0, KW_LDS_IDIOM},
    {"lds_object", KW_F_STR, offsetof(kw_irf_idiom, lds_object), NULL, QA, KW_LDS_IDIOM},
    {"lds_bytes", KW_F_LL, offsetof(kw_irf_idiom, lds_bytes), NULL, KW_F_UNKNOWN, KW_LDS_IDIOM},
    {"loop", KW_F_LL, offsetof(kw_irf_idiom, loop), NULL, KW_F_NULL, NULL},
    KW_IRF_LOC_ROWS(kw_irf_idiom),
};
static KW_TYPE(kw_t_irf_idiom, "IR idiom", kw_irf_idiom, true, kw_f_irf_idiom);

static const kw_field kw_f_irf_loop[] = {
    {"id", KW_F_LL, offsetof(kw_irf_loop, id), NULL, KW_F_POS, NULL},
    {"parent", KW_F_LL, offsetof(kw_irf_loop, parent), NULL, KW_F_NULL, NULL},
    {"depth", KW_F_LL, offsetof(kw_irf_loop, depth), NULL, 0, NULL},
    {"trip_count", KW_F_VAL, offsetof(kw_irf_loop, trip_count), NULL, Q, NULL},
    {"lane_dependent", KW_F_BOOL, offsetof(kw_irf_loop, lane_dependent), NULL, 0, NULL},
    {"accesses", KW_F_LL, offsetof(kw_irf_loop, accesses), NULL, 0, NULL},
    KW_IRF_LOC_ROWS(kw_irf_loop),
};
static KW_TYPE(kw_t_irf_loop, "IR loop", kw_irf_loop, true, kw_f_irf_loop);

static const kw_field kw_f_irf_barrier[] = {
    {"kind", KW_F_STR, offsetof(kw_irf_barrier, kind), NULL, QA, NULL},
    {"scope", KW_F_STR, offsetof(kw_irf_barrier, scope), NULL, Q, NULL},
    {"ordering", KW_F_STR, offsetof(kw_irf_barrier, ordering), NULL, Q, NULL},
    {"loop", KW_F_LL, offsetof(kw_irf_barrier, loop), NULL, KW_F_NULL, NULL},
    {"conditional", KW_F_BOOL, offsetof(kw_irf_barrier, conditional), NULL, 0, NULL},
    KW_IRF_LOC_ROWS(kw_irf_barrier),
};
static KW_TYPE(kw_t_irf_barrier, "IR barrier", kw_irf_barrier, true, kw_f_irf_barrier);

static const kw_field kw_f_irf_work[] = {
    {"flops", KW_F_VAL, offsetof(kw_irf_work, flops), NULL, Q, NULL},
    {"transcendental", KW_F_VAL, offsetof(kw_irf_work, transcendental), NULL, Q, NULL},
    {"int_ops", KW_F_VAL, offsetof(kw_irf_work, int_ops), NULL, Q, NULL},
    {"conversions", KW_F_VAL, offsetof(kw_irf_work, conversions), NULL, Q, NULL},
    {"bytes_read", KW_F_VAL, offsetof(kw_irf_work, bytes_read), NULL, Q, NULL},
    {"bytes_written", KW_F_VAL, offsetof(kw_irf_work, bytes_written), NULL, Q, NULL},
    {"lds_bytes_read", KW_F_VAL, offsetof(kw_irf_work, lds_bytes_read), NULL, Q, NULL},
    {"lds_bytes_written", KW_F_VAL, offsetof(kw_irf_work, lds_bytes_written), NULL, Q, NULL},
    {"asm_uncounted", KW_F_LL, offsetof(kw_irf_work, asm_uncounted), NULL, 0, NULL},
    {"mfma", KW_F_LL, offsetof(kw_irf_work, mfma), NULL, 0, NULL},
};
static KW_TYPE(kw_t_irf_work, "IR work per thread", kw_irf_work, false, kw_f_irf_work);

static const kw_field kw_f_irf_asm[] = {
    {"text", KW_F_STR, offsetof(kw_irf_asm, text), NULL, QA, NULL},
    {"constraints", KW_F_STR, offsetof(kw_irf_asm, constraints), NULL, QA, NULL},
    {"volatile", KW_F_BOOL, offsetof(kw_irf_asm, is_volatile), NULL, 0, NULL},
    {"srcloc", KW_F_LL, offsetof(kw_irf_asm, srcloc), NULL, 0, NULL},
    {"flops", KW_F_LL, offsetof(kw_irf_asm, flops), NULL, KW_F_UNKNOWN, NULL},
    {"transcendental", KW_F_LL, offsetof(kw_irf_asm, transcendental), NULL, KW_F_UNKNOWN, NULL},
    {"loop", KW_F_LL, offsetof(kw_irf_asm, loop), NULL, KW_F_NULL, NULL},
    KW_IRF_LOC_ROWS(kw_irf_asm),
};
static KW_TYPE(kw_t_irf_asm, "IR inline asm", kw_irf_asm, true, kw_f_irf_asm);

static const kw_field kw_f_irf[] = {
    {"symbol", KW_F_STR, offsetof(kw_irf, symbol), NULL, QA, NULL},
    {"arch", KW_F_STR, offsetof(kw_irf, arch), NULL, QA, NULL},
    {"wave_size", KW_F_LL, offsetof(kw_irf, wave_size), NULL, 0, NULL},
    {"debug_info", KW_F_BOOL, offsetof(kw_irf, debug_info), NULL, 0, NULL},
    {"lines_in", KW_F_STR, offsetof(kw_irf, lines_in), NULL, KW_F_QUOTED, NULL},
    {"params", KW_F_LIST, offsetof(kw_irf, params), &kw_t_irf_param, KW_F_ALWAYS, NULL},
    {"accesses", KW_F_LIST, offsetof(kw_irf, accesses), &kw_t_irf_access, KW_F_ALWAYS, NULL},
    {"groups", KW_F_LIST, offsetof(kw_irf, groups), &kw_t_irf_group, KW_F_ALWAYS, NULL},
    {"cross_lane", KW_F_LIST, offsetof(kw_irf, cross_lane), &kw_t_irf_xlane, KW_F_ALWAYS, NULL},
    {"idioms", KW_F_LIST, offsetof(kw_irf, idioms), &kw_t_irf_idiom, KW_F_ALWAYS, NULL},
    {"loops", KW_F_LIST, offsetof(kw_irf, loops), &kw_t_irf_loop, KW_F_ALWAYS, NULL},
    {"barriers", KW_F_LL, offsetof(kw_irf, barriers), NULL, 0, NULL},
    {"barrier_list", KW_F_LIST, offsetof(kw_irf, barrier_list), &kw_t_irf_barrier, KW_F_ALWAYS,
     NULL},
    {"work_per_thread", KW_F_MAP, offsetof(kw_irf, work_per_thread), &kw_t_irf_work, KW_F_ALWAYS,
     NULL},
    {"inline_asm", KW_F_LIST, offsetof(kw_irf, inline_asm), &kw_t_irf_asm, KW_F_ALWAYS, NULL},
    {"notes", KW_F_STRS, offsetof(kw_irf, notes), NULL, QA | KW_F_BLOCK, NULL},
};
KW_TYPE(kw_t_irf, "IR facts", kw_irf, false, kw_f_irf);

static const kw_field kw_f_irf_list[] = {
    {"kernels", KW_F_LIST, offsetof(kw_irf_list, kernels), &kw_t_irf, KW_F_ALWAYS, NULL},
};
KW_TYPE(kw_t_irf_list, "IR facts list", kw_irf_list, false, kw_f_irf_list);

void kw_irf_init(kw_irf *f) {
    memset(f, 0, sizeof(*f));
    kw_schema_defaults(&kw_t_irf, f);
}

const char *kw_val_text(const kw_val *v, char *buf, size_t n) {
    switch (v->kind) {
    case KW_VAL_NUM:
        snprintf(buf, n, "%lld", v->num);
        return buf;
    case KW_VAL_EXPR:
        return v->expr ? v->expr : "unknown";
    case KW_VAL_UNKNOWN:
        return "unknown";
    case KW_VAL_ABSENT:
        break;
    }
    return NULL;
}
