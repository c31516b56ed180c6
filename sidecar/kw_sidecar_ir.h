/* kw_sidecar_ir.h: the IR facts of one kernel and arch (the `ir:` mapping of
 * kernels[].archs.<arch> in a sidecar) as records of the sidecar model: one
 * struct per mapping, one member per key, in the key order of
 * docs/ir-facts.md, which explains the keys. passes/ fills them from its
 * analysis (kw_ir_facts_to_sidecar); the sidecar writer, reader, merge and
 * index walk their schema tables (kw_sidecar_ir.c) like every other record.
 *
 * Conventions (what the writer omits or writes as a word; docs/ir-facts.md):
 *   - a string NULL is `null` for keys always written, else the key is left out;
 *   - an index (loop, group, idiom, parent, broadcast_lane) < 0 is `null`;
 *   - a count marked "unknown" < 0 is `unknown`;
 *   - a long long marked "omitted" < 0 is left out;
 *   - a kw_val is a number, an expression, or `unknown` with a `<key>_why`.
 * Included by kw_sidecar.h; not to be included on its own. */
#ifndef KW_SIDECAR_IR_H
#define KW_SIDECAR_IR_H

/* A value that is a number, an expression over launch quantities, or not
 * known with the reason: the field kind KW_F_VAL. */
typedef enum kw_val_kind {
    KW_VAL_UNKNOWN = 0, /* `unknown`; why says why (may be NULL) */
    KW_VAL_NUM,         /* num (expr: its decimal text, when read) */
    KW_VAL_EXPR,        /* expr */
    KW_VAL_ABSENT       /* the key is not written */
} kw_val_kind;

typedef struct kw_val {
    kw_val_kind kind;
    long long num;
    const char *expr;
    const char *why;
} kw_val;

/* One frame of an IR location: {file, line, column, function}. */
typedef struct kw_irf_frame {
    kw_loc at; /* file NULL: no location (nothing of the frame is written) */
    const char *function;
} kw_irf_frame;

/* The location keys every located IR record ends with: `location` (the line
 * the code is written on), `location_from` (where it was borrowed from, when
 * the instruction had none), `inlined_at` (the call sites, innermost first). */
typedef struct kw_irf_loc {
    kw_irf_frame location;
    const char *location_from;
    KW_ARRAY(kw_irf_frame) inlined_at;
} kw_irf_loc;

typedef struct kw_irf_param {
    long long index;
    const char *name;
    const char *type;
    long long addrspace; /* < 0: not a pointer (it and the three flags are not written) */
    bool readonly, writeonly, noalias;
} kw_irf_param;

typedef struct kw_irf_access {
    long long id;
    const char *op;    /* "load", "store", "atomic" */
    const char *space; /* "global", "buffer", "lds", "flat", "scratch", "constant", "other" */
    const char *what;
    const char *type;
    long long bytes_per_lane, align;
    const char *param;     /* the parameter's name; NULL none */
    long long param_index; /* < 0: none (omitted) */
    long long param_offset; /* >= 0: the base is the field at this byte offset of the
                               parameter (a struct passed by value); < 0: none (omitted) */
    const char *object;
    const char *base_why;
    kw_val lane_stride_bytes;
    kw_val group_stride_bytes, group_stride_bytes_y, group_stride_bytes_z;
    KW_ARRAY(const char *) depends_on; /* "threadIdx.x", "blockIdx.y", ... */
    bool lanes_exact;
    long long active_lanes;
    long long wave_bytes;            /* < 0 unknown */
    long long segments_per_wave;     /* < 0 unknown; written unless lds or scratch */
    long long segments_per_wave_128; /* likewise */
    int coalesced; /* -1 unknown, 0 false, 1 true (KW_F_TRI); written unless lds or scratch */
    long long bank_conflict_degree; /* < 0 unknown; written for lds only */
    long long group, loop;          /* indices, < 0 none */
    bool conditional;
    kw_irf_loc loc;
} kw_irf_access;

typedef struct kw_irf_group {
    KW_ARRAY(long long) members;
    long long lane_stride_bytes, bytes_per_lane;
    bool contiguous;
    long long wave_bytes, segments_per_wave, segments_per_wave_128;
} kw_irf_group;

typedef struct kw_irf_xlane {
    long long id;
    const char *op;
    const char *intrinsic;
    const char *control; /* NULL when not decodable (control_why) */
    const char *control_why;
    long long control_raw;         /* < 0: none (omitted); written in hex */
    long long row_mask, bank_mask; /* < 0: not DPP (omitted with bound_ctrl); hex */
    bool bound_ctrl;
    long long bits;
    long long idiom, loop; /* indices, < 0 none */
    kw_irf_loc loc;
} kw_irf_xlane;

typedef struct kw_irf_idiom {
    long long id;
    const char *kind; /* "wave_reduce", "partial_reduce", "broadcast", "block_reduce",
                         "lds_tree_reduce" */
    const char *op, *type, *via;
    kw_val steps;
    long long lanes;
    const char *result_lane; /* "all", "each_group" or a lane number */
    long long broadcast_lane;
    KW_ARRAY(long long) cross_lane;
    KW_ARRAY(long long) parts;         /* block_reduce */
    const char *stride, *first_stride; /* lds_tree_reduce */
    long long barriers;                /* block_reduce, lds_tree_reduce, with: */
    const char *lds_object;
    long long lds_bytes; /* < 0 unknown */
    long long loop;
    kw_irf_loc loc;
} kw_irf_idiom;

typedef struct kw_irf_loop {
    long long id;
    long long parent; /* < 0 none */
    long long depth;
    kw_val trip_count;
    bool lane_dependent;
    long long accesses;
    kw_irf_loc loc;
} kw_irf_loop;

typedef struct kw_irf_barrier {
    const char *kind; /* "s_barrier", "s_barrier_signal", "s_barrier_wait", "wave_barrier",
                         "fence" */
    const char *scope, *ordering;
    long long loop;
    bool conditional;
    kw_irf_loc loc;
} kw_irf_barrier;

typedef struct kw_irf_work {
    kw_val flops, transcendental, int_ops, conversions;
    kw_val bytes_read, bytes_written, lds_bytes_read, lds_bytes_written;
    long long asm_uncounted, mfma;
} kw_irf_work;

typedef struct kw_irf_asm {
    const char *text;
    const char *constraints;
    bool is_volatile; /* key `volatile` */
    long long srcloc;
    long long flops, transcendental; /* < 0 unknown */
    long long loop;
    kw_irf_loc loc;
} kw_irf_asm;

/* The `ir:` mapping. */
typedef struct kw_irf {
    const char *symbol;
    const char *arch;
    long long wave_size;
    bool debug_info;
    /* Set where this arch's IR has no locations because the plugin tracked
     * them in another device job of the same compile only: that job's arch. */
    const char *lines_in;
    KW_ARRAY(kw_irf_param) params;
    KW_ARRAY(kw_irf_access) accesses;
    KW_ARRAY(kw_irf_group) groups;
    KW_ARRAY(kw_irf_xlane) cross_lane;
    KW_ARRAY(kw_irf_idiom) idioms;
    KW_ARRAY(kw_irf_loop) loops;
    long long barriers; /* workgroup barriers */
    KW_ARRAY(kw_irf_barrier) barrier_list;
    kw_irf_work work_per_thread;
    KW_ARRAY(kw_irf_asm) inline_asm;
    KW_ARRAY(const char *) notes;
} kw_irf;

/* A value as the YAML writes it: the number (printed into buf), the
 * expression, or "unknown"; NULL when absent. */
const char *kw_val_text(const kw_val *v, char *buf, size_t n);

/* Every "not written" member of a fresh record (absent values, NULL, -1). */
void kw_irf_init(kw_irf *f);

/* Write IR facts records as one YAML document `kernels: [...]` (the sidecar
 * writer; for tools and tests). */
kw_status kw_irf_emit_list(kw_irf *const *facts, size_t n, kw_buf *out, kw_err *err);

/* That document as records: `kernels:`, a list of IR facts. */
typedef struct kw_irf_list {
    KW_ARRAY(kw_irf) kernels;
} kw_irf_list;

/* Read a document kw_irf_emit_list wrote (kwalk-irfacts' output, named name
 * in messages) into out (zeroed here), every string and array in arena a. */
kw_status kw_irf_parse_list(kw_irf_list *out, kw_arena *a, const char *name, const char *text,
                            size_t len, kw_err *err);

#endif
