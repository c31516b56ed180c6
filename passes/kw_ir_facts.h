/* kw_ir_facts.h: what kwalk learns about one kernel from its optimized LLVM
 * IR, as plain C structs: the working form of the IR analysis (passes/).
 * The C++ side (kw_ir_analyze.h, which needs LLVM) fills a
 * kw_ir_kernel_facts; kw_ir_facts_to_sidecar turns it into the sidecar's
 * records (sidecar/kw_sidecar_ir.h), which the sidecar writer writes and the
 * kwalk command reads. No LLVM type and no YAML here. The keys and their
 * meaning are documented in docs/ir-facts.md.
 *
 * Conventions:
 *   - Every string and array lives in the kw_arena passed to the analysis;
 *     kw_arena_free releases a kernel's facts at once.
 *   - A fact the analysis could not derive is marked unknown, with the reason
 *     (kw_ir_val.why); nothing is guessed.
 *   - Quantities that depend on the launch are expressions in the small
 *     grammar of docs/ir-facts.md (numbers, kernel parameters, `threadIdx.x`,
 *     `blockDim.x`, `gridDim.x`, `loopN.trips`, + - * /, ceil floor min max).
 *     Kernel parameters appear as `$N` (0-based position) until
 *     kw_ir_facts_name_params() rewrites them into names.
 *   - Indices (loop, group, idiom, cross_lane) refer to the arrays of the same
 *     kw_ir_kernel_facts; -1 means none. */
#ifndef KW_IR_FACTS_H
#define KW_IR_FACTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* common/'s headers have no C++ linkage guards of their own */
#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

/* ---- values: a number, an expression, or unknown with the reason ----------- */

typedef enum kw_ir_val_kind {
    KW_IR_UNKNOWN = 0, /* not derived; `why` says why */
    KW_IR_NUM,         /* a constant: `num` (and `expr`, its decimal text) */
    KW_IR_EXPR         /* an expression over launch quantities: `expr` */
} kw_ir_val_kind;

typedef struct kw_ir_val {
    kw_ir_val_kind kind;
    int64_t num;
    const char *expr;
    const char *why;
} kw_ir_val;

/* ---- source locations ----------------------------------------------------- */

/* One frame of a location. */
typedef struct kw_ir_frame {
    const char *file; /* as the debug info spells it, joined with its directory */
    unsigned line;
    unsigned column;
    const char *function; /* the DISubprogram's name: where this line is written */
} kw_ir_frame;

/* A location with its inlined-at chain: frames.v[0] is the line the code is
 * written on (e.g. inside an inlined helper such as load_vector_nbytes), then
 * each call site it was inlined through, the kernel's own line last.
 * frames.n == 0: the instruction has no debug location (compile without -g). */
typedef struct kw_ir_loc {
    KW_ARRAY(kw_ir_frame) frames;
    /* NULL: the instruction's own location. When the optimizer dropped it (it
     * does for loads and stores it rewrites), the nearest one is borrowed and
     * this says from where: "debug_record" (the variable records just before
     * it, from the code it was generated from), "address" (the address
     * computation), "value" (the stored or moved value), "user" (the first use
     * of the result). */
    const char *from;
} kw_ir_loc;

/* ---- kernel parameters ------------------------------------------------------ */

typedef struct kw_ir_param {
    const char *name;     /* from the caller (kw_ir_facts_name_params), IR or debug info; may be NULL */
    const char *type;     /* IR type: "ptr addrspace(1)", "i32", "float" */
    int is_pointer;
    unsigned addrspace;
    int readonly;         /* IR attributes of the optimized kernel */
    int writeonly;
    int noalias;
} kw_ir_param;

/* ---- memory accesses ---------------------------------------------------------- */

typedef enum kw_ir_op {
    KW_IR_LOAD = 0,
    KW_IR_STORE,
    KW_IR_ATOMIC /* read-modify-write: atomicrmw, cmpxchg, buffer/global atomics */
} kw_ir_op;

typedef enum kw_ir_space {
    KW_IR_GLOBAL = 0, /* addrspace(1) */
    KW_IR_BUFFER,     /* llvm.amdgcn.{raw,struct}[.ptr].buffer.* intrinsics, addrspace(7/8) */
    KW_IR_LDS,        /* addrspace(3): __shared__ */
    KW_IR_FLAT,       /* addrspace(0): generic pointers */
    KW_IR_SCRATCH,    /* addrspace(5): private memory (allocas) */
    KW_IR_CONSTANT,   /* addrspace(4) other than the kernel-argument segment */
    KW_IR_OTHER_SPACE
} kw_ir_space;

typedef struct kw_ir_access {
    kw_ir_op op;
    kw_ir_space space;
    const char *what;        /* the IR operation: "load", "store", "atomicrmw fadd",
                                "llvm.amdgcn.raw.ptr.buffer.load", "llvm.memcpy" */
    const char *type;        /* the value one lane moves: "<4 x float>", "i8" */
    unsigned bytes_per_lane; /* 0 when not a constant (memcpy of a variable length) */
    unsigned align;          /* bytes, from the IR; 0 unknown */
    int param;               /* kernel parameter the address derives from, -1 none */
    long long param_offset;  /* >= 0: the pointer (or buffer resource) is the field at this
                                byte offset of param, a struct passed by value (read from the
                                kernel-argument segment); -1: param itself */
    const char *param_name;  /* set by kw_ir_facts_name_params ("kargs+8"), then
                                kw_ir_facts_name_fields ("kargs.p_a") */
    const char *object;      /* not a parameter: the LDS/global variable's name, "alloca" */
    const char *base_why;    /* why neither param nor object is known */
    /* Address as a function of the work-item and work-group ids: */
    kw_ir_val lane_stride;     /* bytes between lanes with workitem.id.x and +1 */
    kw_ir_val group_stride[3]; /* bytes between work-groups workgroup.id.{x,y,z} and +1 */
    unsigned tid_dims;         /* bit d: the address depends on workitem.id of dimension d */
    unsigned gid_dims;         /* bit d: ... on workgroup.id of dimension d */
    int lanes_exact;           /* 1: per-lane offsets were computed lane by lane (not only
                                  from the stride), so irregular patterns are exact */
    /* One wave's footprint, assuming the wave's first byte sits at the start of
       a 64 B (128 B) segment and blockDim.x is a multiple of the wave size: */
    int active_lanes;     /* lanes of the busiest wave that execute it (guards on the lane
                             id, e.g. `threadIdx.x == 0` gives 1); the wave size when
                             the guards say nothing about lanes */
    int64_t wave_bytes;   /* distinct bytes the wave touches; -1 unknown */
    int64_t segments_64;  /* 64-byte segments those bytes fall in; -1 unknown */
    int64_t segments_128; /* 128-byte segments; -1 unknown */
    int coalesced;        /* 1: segments_64 is the minimum for wave_bytes; 0 no; -1 unknown */
    int lds_conflict_degree; /* LDS only: 1 = conflict-free, N = N-way; 0 n/a; -1 unknown
                                (model: 32 banks x 4 bytes, docs/ir-facts.md) */
    int group;               /* index in groups (accesses that together cover a
                                contiguous run), -1 none */
    int loop;                /* innermost loop, -1 none */
    int conditional;         /* 1: not executed on every pass through its loop/kernel */
    kw_ir_loc loc;
} kw_ir_access;

/* Accesses of one instruction kind to the same base whose per-lane ranges tile
 * the lane stride: e.g. two 16-byte loads per lane at lane stride 32 that
 * together read 32 contiguous bytes per lane. */
typedef struct kw_ir_group {
    KW_ARRAY(unsigned) members; /* access indices, by increasing offset */
    int64_t lane_stride;        /* the common lane stride */
    int64_t bytes_per_lane;     /* bytes the members move per lane together */
    int contiguous;             /* the members tile [first, first + lane_stride) exactly */
    int64_t wave_bytes;
    int64_t segments_64;
    int64_t segments_128;
} kw_ir_group;

/* ---- cross-lane operations ------------------------------------------------------ */

typedef enum kw_ir_xop {
    KW_IR_X_DPP = 0,       /* llvm.amdgcn.update.dpp / mov.dpp */
    KW_IR_X_DPP8,          /* llvm.amdgcn.mov.dpp8 */
    KW_IR_X_SWIZZLE,       /* llvm.amdgcn.ds.swizzle */
    KW_IR_X_BPERMUTE,      /* llvm.amdgcn.ds.bpermute (pull) */
    KW_IR_X_PERMUTE,       /* llvm.amdgcn.ds.permute (push) */
    KW_IR_X_READLANE,      /* llvm.amdgcn.readlane */
    KW_IR_X_READFIRSTLANE, /* llvm.amdgcn.readfirstlane */
    KW_IR_X_WRITELANE,     /* llvm.amdgcn.writelane */
    KW_IR_X_PERMLANE,      /* llvm.amdgcn.permlane16/x16/64/16.swap/32.swap/... */
    KW_IR_X_BALLOT,        /* llvm.amdgcn.ballot, inverse.ballot */
    KW_IR_X_ICMP,          /* llvm.amdgcn.icmp / fcmp (wave-wide compare masks) */
    KW_IR_X_WAVE_REDUCE,   /* llvm.amdgcn.wave.reduce.* */
    KW_IR_X_WWM            /* llvm.amdgcn.wwm / strict.wwm / set.inactive */
} kw_ir_xop;

typedef struct kw_ir_xlane {
    kw_ir_xop op;
    const char *intrinsic; /* "llvm.amdgcn.update.dpp.i32" */
    const char *control;   /* decoded: "row_shr:1", "row_bcast:15", "quad_perm:[1,0,3,2]",
                              "row_newbcast:3", "wave_shr:1",
                              "swizzle(BITMASK_PERM,and:0x1f,or:0x00,xor:0x01)",
                              "lane:63", "lane:lane^1" (bpermute, evaluated per lane),
                              NULL when not decodable (`control_why`) */
    const char *control_why;
    int64_t control_raw;   /* the immediate as written; -1 none */
    int row_mask;          /* DPP: row_mask, bank_mask, bound_ctrl; -1 otherwise */
    int bank_mask;
    int bound_ctrl;
    unsigned bits;         /* width of the value moved */
    int idiom;             /* the idiom it is part of, -1 none */
    int loop;
    kw_ir_loc loc;
} kw_ir_xlane;

typedef enum kw_ir_idiom_kind {
    KW_IR_WAVE_REDUCE = 0, /* every lane (or one lane + broadcast) ends with the whole wave */
    KW_IR_PARTIAL_REDUCE,  /* a reduction over groups of `lanes` lanes (rows, quads) */
    KW_IR_BROADCAST,       /* one lane's value to the wave (readlane/readfirstlane) */
    KW_IR_BLOCK_REDUCE,    /* wave reductions, one value per wave through LDS, barrier(s),
                              a second (wave or partial) reduction of the partials */
    KW_IR_LDS_TREE_REDUCE  /* a tree through LDS: each step combines a thread's slot with
                              the slot `stride` away (stride halving or doubling), stores
                              it back, and waits at a barrier; no cross-lane operation */
} kw_ir_idiom_kind;

typedef struct kw_ir_idiom {
    kw_ir_idiom_kind kind;
    const char *op;     /* "add", "mul", "max", "min", "and", "or", "xor" (reductions) */
    const char *type;   /* "float", "i32", ... */
    const char *via;    /* "dpp", "swizzle", "bpermute", "permlane", "dpp+swizzle", ...;
                           block_reduce: "<via of the wave step>+lds" */
    unsigned steps;     /* cross-lane steps of the reduction */
    unsigned lanes;     /* lanes combined into each result (64 for a wave64 reduction) */
    int result_lane;    /* -1: every lane holds the result (partial_reduce: every lane
                           holds its group's); else the lane that does */
    int broadcast_lane; /* the result is broadcast with readlane from this lane; -1 none */
    KW_ARRAY(unsigned) cross_lane; /* the cross_lane entries it consists of */
    int parts[2];       /* block_reduce: the wave_reduce idioms before and after LDS */
    unsigned barriers;  /* block_reduce: s_barriers between the LDS store and load;
                           lds_tree_reduce: barriers per step */
    const char *lds_object;
    int64_t lds_bytes; /* block_reduce, lds_tree_reduce: size of lds_object; -1 unknown */
    /* lds_tree_reduce: steps of the tree (the trip count of its loop, e.g.
       floor(log2(blockDim.x)), or the unrolled steps), and the stride order */
    kw_ir_val tree_steps;
    const char *stride;       /* "halving", "doubling" */
    const char *first_stride; /* elements between partners in the first step (expression) */
    int loop;
    kw_ir_loc loc;      /* the first cross-lane step */
} kw_ir_idiom;

/* ---- loops ---------------------------------------------------------------------------- */

typedef struct kw_ir_loop {
    int parent;            /* enclosing loop, -1 top level */
    unsigned depth;        /* 1 for a top-level loop */
    kw_ir_val trip_count;  /* executions of the header per entry of the loop */
    int lane_dependent;    /* the trip count depends on threadIdx.* */
    unsigned accesses;     /* memory accesses inside (nested loops included) */
    kw_ir_loc loc;
} kw_ir_loop;

/* ---- barriers and fences ------------------------------------------------------------ */

typedef enum kw_ir_barrier_kind {
    KW_IR_S_BARRIER = 0,  /* llvm.amdgcn.s.barrier (__syncthreads) */
    KW_IR_BARRIER_SIGNAL, /* llvm.amdgcn.s.barrier.signal* (gfx12 split barrier) */
    KW_IR_BARRIER_WAIT,   /* llvm.amdgcn.s.barrier.wait */
    KW_IR_WAVE_BARRIER,   /* llvm.amdgcn.wave.barrier (a scheduling barrier, no sync) */
    KW_IR_FENCE           /* fence instruction */
} kw_ir_barrier_kind;

typedef struct kw_ir_barrier {
    kw_ir_barrier_kind kind;
    const char *scope;    /* fences: "workgroup", "agent", "wavefront", "system" ... */
    const char *ordering; /* fences: "acquire", "release", "acq_rel", "seq_cst" */
    int loop;
    int conditional;
    kw_ir_loc loc;
} kw_ir_barrier;

/* ---- work per thread ------------------------------------------------------------------ */

/* Each value is an expression over the kernel parameters and loop trip counts
 * for ONE thread, taking the most expensive path through every branch (an upper
 * bound; exact for straight-line code) and multiplying loop bodies by their trip
 * counts. See docs/ir-facts.md for what is counted. */
typedef struct kw_ir_work {
    kw_ir_val flops;          /* fadd/fsub/fmul/fdiv/min/max = 1, fma = 2, per vector element */
    kw_ir_val transcendental; /* exp, log, sqrt, rsq, rcp, sin, cos, pow ... per element */
    kw_ir_val int_ops;        /* integer arithmetic and logic, per element (not addressing) */
    kw_ir_val conversions;    /* int<->float, float<->float, cvt intrinsics */
    kw_ir_val bytes_read;     /* global, buffer, flat and constant memory */
    kw_ir_val bytes_written;
    kw_ir_val lds_bytes_read;
    kw_ir_val lds_bytes_written;
    unsigned asm_uncounted;   /* inline asm statements whose work is not known */
    unsigned mfma;            /* matrix instructions (their flops are not counted) */
} kw_ir_work;

/* ---- inline asm --------------------------------------------------------------------------- */

typedef struct kw_ir_asm {
    const char *text;        /* the asm string, operands in the source's syntax (%0, %1;
                                IR's $0 / ${0:m} are converted back) */
    const char *constraints; /* "=v,v,v" */
    int side_effects;        /* asm volatile */
    unsigned srcloc;         /* clang's !srcloc cookie (raw SourceLocation of the string), 0 none */
    int64_t flops;           /* from a table of known mnemonics; -1 unknown */
    int64_t transcendental;
    int loop;
    kw_ir_loc loc;
} kw_ir_asm;

/* ---- one kernel ----------------------------------------------------------------------------- */

typedef struct kw_ir_kernel_facts {
    const char *symbol;    /* the IR function name (device mangled symbol) */
    const char *arch;      /* "target-cpu", e.g. "gfx942" */
    unsigned wave_size;    /* 64 or 32 (target-features / arch) */
    int has_debug_info;    /* the function has a DISubprogram */
    KW_ARRAY(kw_ir_param) params;
    KW_ARRAY(kw_ir_access) accesses;
    KW_ARRAY(kw_ir_group) groups;
    KW_ARRAY(kw_ir_xlane) cross_lane;
    KW_ARRAY(kw_ir_idiom) idioms;
    KW_ARRAY(kw_ir_loop) loops;
    KW_ARRAY(kw_ir_barrier) barriers; /* s_barrier, split barriers, wave barriers, fences */
    unsigned barrier_count;           /* workgroup barriers: s_barrier + s_barrier_signal */
    kw_ir_work work;
    KW_ARRAY(kw_ir_asm) inline_asm;
    KW_ARRAY(const char *) notes;     /* limits the analysis hit in this kernel */
} kw_ir_kernel_facts;

/* ---- functions (C, no LLVM) -------------------------------------------------------------- */

void kw_ir_facts_init(kw_ir_kernel_facts *f);

/* Rewrites every `$N` in the facts' expressions into a parameter name and sets
 * accesses' param_name: names[N] if N < n and names[N] is non-NULL, else
 * params[N].name when the IR or debug info gave one, else "argN". Idempotent
 * after the first call (no `$N` remains). */
kw_status kw_ir_facts_name_params(kw_ir_kernel_facts *f, const char *const *names, size_t n,
                                  kw_arena *arena, kw_err *err);

/* A field of a struct parameter passed by value, by its byte offset. */
typedef struct kw_ir_field_name {
    int param;          /* the parameter's position */
    long long offset;   /* bytes into it */
    const char *name;   /* "kargs.p_a"; must outlive f */
} kw_ir_field_name;

/* After kw_ir_facts_name_params (which names an access through a field
 * "kargs+8"): accesses whose base is a field of fields[] get its name. */
kw_status kw_ir_facts_name_fields(kw_ir_kernel_facts *f, const kw_ir_field_name *fields,
                                  size_t n, kw_err *err);

/* The facts as the sidecar's record (the `ir:` mapping of a kernel's arch,
 * kw_sidecar_ir.h), allocated in arena; strings are shared with f, which must
 * outlive it (name the parameters first: kw_ir_facts_name_params). */
kw_status kw_ir_facts_to_sidecar(const kw_ir_kernel_facts *f, kw_arena *arena, kw_irf **out,
                                 kw_err *err);

const char *kw_ir_op_name(kw_ir_op op);
const char *kw_ir_space_name(kw_ir_space s);
const char *kw_ir_xop_name(kw_ir_xop op);
const char *kw_ir_idiom_name(kw_ir_idiom_kind k);
const char *kw_ir_barrier_name(kw_ir_barrier_kind k);

/* ---- expressions ------------------------------------------------------------------------------ */

/* The expressions' grammar is docs/ir-facts.md's; the kwalk command
 * evaluates them with its one evaluator (model/kw_expr.c, exact mode). */

/* A copy of expr with each `$N` replaced by names[N] (or "argN" when N >= n or
 * names[N] is NULL); NULL when out of memory. */
char *kw_ir_expr_rename(kw_arena *arena, const char *expr, const char *const *names, size_t n);

#ifdef __cplusplus
}
#endif

#endif
