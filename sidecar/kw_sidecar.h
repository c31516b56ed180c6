/* kw_sidecar.h: the sidecar document in memory: plain C structs shared by the
 * plugin (which fills them from Clang's AST and writes them), the fragment
 * merge, and the kwalk command (which reads them back). The YAML form is
 * documented in docs/sidecar-schema.md; KW_SCHEMA_VERSION changes when that
 * form changes incompatibly.
 *
 * The IR facts of a kernel's arch are records of the same model, in
 * kw_sidecar_ir.h (included below).
 *
 * Every string and array lives in the document's arena. A NULL string means
 * "not known"; a kw_loc with file == NULL means "no location". */
#ifndef KW_SIDECAR_H
#define KW_SIDECAR_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_buf.h"
#include "common/kw_err.h"

#define KW_SCHEMA_VERSION 3
/* The oldest kwalk_schema the reader accepts: schema 1 carries each kernel
 * arch's listing inline, schema 2 names the code objects instead
 * (translation_unit.code_objects) and `kwalk index` reads the listing back. */
#define KW_SCHEMA_OLDEST 1

typedef struct kw_loc {
    const char *file; /* absolute path as the compiler saw it */
    int line;
    int column;
} kw_loc;

/* One entry of a map of counts, e.g. {salu: 12, valu: 30} (the schema kind
 * KW_F_COUNTS: a KW_ARRAY(kw_count), in the order read or set). */
typedef struct kw_count {
    const char *key;
    long long n;
} kw_count;

typedef struct kw_template_arg {
    const char *name;  /* template parameter name; NULL for an unnamed one */
    const char *kind;  /* "type", "value", "template", "pack" */
    const char *value; /* as printed by Clang (the canonical type or value) */
    const char *written; /* the typedef name the source used for a type argument, when it
                            differs from value ("opus::fp8_t" for "_BitInt(8)"); NULL if none */
    bool defaulted;    /* came from the parameter's default */
} kw_template_arg;

/* A field of a kernel parameter passed by value as a struct (a ck_tile kargs):
 * the kernel reads it from the kernel-argument segment like a parameter. */
typedef struct kw_param_field {
    const char *name;   /* the parameter's name, '.', the field's ("kargs.p_a"; nested
                           structs "kargs.desc.stride") */
    const char *type;   /* as printed ("const void *") */
    long long offset;   /* bytes from the start of the parameter */
} kw_param_field;

typedef struct kw_param {
    const char *name; /* an element of a parameter pack: the name of the parameter it is
                         forwarded to (kentry's `Kernel{}(args...)` into operator()'s
                         `kargs`), else the pack's name and position, "args#0" */
    const char *type;
    const char *pack; /* an element of a parameter pack: "args#0"; NULL otherwise */
    KW_ARRAY(kw_param_field) fields; /* a struct passed by value: its scalar fields */
} kw_param;

typedef struct kw_attr {
    const char *name;  /* "launch_bounds", "amdgpu_flat_work_group_size", ... */
    const char *value; /* arguments as evaluated, e.g. "256" or "1,256" */
} kw_attr;

typedef struct kw_shared_var {
    const char *name;
    const char *type;
    long long bytes; /* -1 when the size is not known (extern __shared__) */
    const char *function; /* the function declaring it, as instantiated */
    kw_loc location;
} kw_shared_var;

typedef struct kw_inline_asm {
    const char *text;     /* the asm string */
    const char *function; /* the function containing it, as instantiated */
    kw_loc location;
} kw_inline_asm;

/* One edge of a kernel's device call tree. depth 1 = called by the kernel. */
typedef struct kw_call {
    const char *caller;  /* device symbol of the calling function */
    const char *name;    /* callee, printed with template arguments */
    const char *symbol;  /* callee device symbol */
    int depth;
    bool system;         /* callee defined in a system header (not expanded) */
    kw_loc location;        /* the call site */
    kw_loc callee_location; /* the callee's definition */
} kw_call;

/* A kernel's resources from the code object's NT_AMDGPU_METADATA note, and
 * the occupancy they allow. -1 = not known. */
typedef struct kw_isa_resources {
    long long vgpr, agpr, sgpr;
    long long vgpr_spill, sgpr_spill;
    long long lds_bytes, scratch_bytes, kernarg_bytes;
    long long wavefront_size, max_flat_workgroup_size;
    long long occupancy;           /* waves per SIMD */
    const char *occupancy_limiter; /* "vgpr", "sgpr", "lds", "workgroup", "none", "+"-joined */
} kw_isa_resources;

/* Instruction counts of a kernel's listing, one per class (see
 * docs/sidecar-schema.md); -1 = no listing. dpp and sdwa count modifiers
 * across classes; insns is the total. */
typedef struct kw_isa_classes {
    long long salu, valu, valu_packed, valu_trans, cvt_fp8_fp4, mfma, smfmac, wmma;
    long long readlane, writelane, readfirstlane, permlane;
    long long vmem_load, vmem_store, vmem_atomic, smem;
    long long lds, ds_swizzle, ds_bpermute, ds_permute;
    long long branch, waitcnt, barrier, nop, other;
    long long dpp, sdwa, insns;
} kw_isa_classes;

#include "sidecar/kw_sidecar_ir.h"

typedef struct kw_isa_count {
    const char *key; /* "row_shr:1"; "global_load" */
    long long bytes; /* access width per lane for memory counts, -1 otherwise */
    long long n;
} kw_isa_count;

/* Where an instruction's code comes from (line tables); one row where the
 * location changes. */
typedef struct kw_isa_line {
    long long offset; /* bytes from the kernel's first instruction */
    kw_loc location;
    KW_ARRAY(kw_loc) inlined_at; /* call sites it was inlined into, innermost first */
} kw_isa_line;

/* What one arch knows about a kernel: the device job records that the arch
 * emits it; the host job adds the linked code object's facts. */
typedef struct kw_kernel_arch {
    const char *arch;      /* "gfx942" */
    const char *target_id; /* "gfx942:sramecc+:xnack-" */
    kw_isa_resources resources;
    kw_isa_classes classes;
    KW_ARRAY(kw_isa_count) dpp_patterns;
    KW_ARRAY(kw_isa_count) memory;
    const char *isa;        /* the listing: "OFFSET: text" lines and "label:" lines */
    const char *lines_note; /* why there are no lines, when there are none */
    KW_ARRAY(kw_isa_line) lines;
    /* Why the listing (and what is derived from it) is not shown: the code
     * object the sidecar names is missing or changed since the compile. Set
     * by `kwalk index` only; NULL otherwise. */
    const char *isa_note;
    /* Facts from the kernel's optimized LLVM IR (passes/, docs/ir-facts.md);
     * NULL when the device job did not analyse it. */
    kw_irf *ir;
    /* Not a sidecar field: the index database's row of this record when its
     * listing and line table are read later (kw_index_read_listing); 0
     * otherwise. */
    long long db_row;
    /* Not a sidecar field: 1 + the index's translation unit (kw_index.tus)
     * this arch record came from, whose object holds its code object (its
     * listing is decoded from there when a page needs it: model/kw_decode.h);
     * 0 outside an index. */
    size_t unit;
} kw_kernel_arch;

/* Every "not known" field of a kernel arch set (-1, NULL, empty). */
void kw_kernel_arch_init(kw_kernel_arch *a);

/* Is any resource / instruction class count known (the writer then writes
 * the arch's `resources` / `classes`)? */
bool kw_isa_resources_known(const kw_isa_resources *r);
bool kw_isa_classes_known(const kw_isa_classes *c);
/* The instruction classes in the schema's order (docs/sidecar-schema.md): the
 * key of class i, NULL past the last one, and its count in c (-1: not known). */
const char *kw_isa_class_key(size_t i);
long long kw_isa_class_count(const kw_isa_classes *c, size_t i);

/* A Triton specialization's facts (docs/sidecar-schema.md, "Triton
 * specializations"): written by the Python hook or built from Triton's cache
 * (triton/). */
typedef struct kw_triton_option {
    const char *name;  /* "num_warps" */
    const char *value; /* as NAME.json writes it: "4", "true", "none" */
} kw_triton_option;

/* A path prefix rewritten (`kwalk index --map-prefix OLD=NEW`): the tree
 * that was at `from` when the record was made is at `to` now. */
typedef struct kw_path_prefix {
    const char *from;
    const char *to;
} kw_path_prefix;

/* path with the first prefix whose `from` is a leading part of it (whole
 * path components) replaced by its `to`, in arena a; path itself when none
 * matches (or when out of memory); NULL for NULL. */
const char *kw_path_prefix_map(kw_arena *a, const kw_path_prefix *prefixes, size_t n,
                               const char *path);

typedef struct kw_triton_constexpr {
    const char *name;  /* the tl.constexpr argument */
    const char *value; /* Python's repr: "8192", "True", "240.0"; NULL when not known */
    const char *from;  /* "hook", "autotune", "heuristics", "default", "compile", "cache_ir",
                        * "cache_ir_branch"; NULL with value */
    const char *why;   /* when value is NULL: why */
    kw_loc location;   /* cache_ir: the IR op's source position; cache_ir_branch: the `if`;
                        * heuristics: its function; autotune: the decorator; compile:
                        * the triton.compile(...) call */
} kw_triton_constexpr;

/* A layout of the TTGIR (`#blocked = #ttg.blocked<{...}>`). */
typedef struct kw_triton_layout {
    const char *name;   /* the alias as written: "#blocked" */
    const char *kind;   /* the attribute after "#ttg.": "blocked", "amd_mfma", "swizzled_shared" */
    const char *params; /* the attribute dictionary as written, braces aside; NULL when none */
} kw_triton_layout;

/* A load, store, LDS or dot op of the TTGIR's kernel function. */
typedef struct kw_triton_memop {
    const char *op;    /* "amdg.buffer_load", "tt.store", "ttg.local_load", "tt.dot", ... */
    const char *value; /* its result's name as written ("x"); NULL when it has none */
    kw_loc location;   /* the Python position of the op */
    KW_ARRAY(long long)
    shape;               /* the tensor's (stores: the stored value's; tt.dot: the
                          * result's) dimensions; empty for a scalar */
    const char *element; /* MLIR element type: "bf16" (a tensor of pointers: the pointee's);
                          * NULL when not read */
    const char *layout;  /* its encoding as written: "#blocked" or "#ttg.dot_op<{...}>";
                          * NULL when none */
    long long dot_k;     /* tt.dot: K, the first operand's last dimension; -1 otherwise */
    const char *dot_element; /* tt.dot: the first operand's element type ("f16"); NULL
                              * otherwise */
    long long loops;   /* the scf.for loops the op is inside; -1 when none */
    const char *trips; /* the product of their trip counts, an expression in C integer
                        * arithmetic over the function's arguments and blockIdx.x/y/z
                        * ("(K + 31) / 32 - 1"); NULL when none or not known */
} kw_triton_memop;

typedef struct kw_triton {
    const char *hash;      /* NAME.json "hash" */
    const char *cache_key; /* the cache folder's name */
    const char *cache_dir; /* the cache folder, absolute */
    KW_ARRAY(const char *) files; /* the cache files, absolute, sorted */
    const char *triton_version;
    const char *backend; /* "hip" */
    long long warp_size;    /* -1 when absent */
    long long shared_bytes; /* NAME.json "shared"; -1 when absent */
    KW_ARRAY(kw_triton_option) options;
    KW_ARRAY(kw_triton_constexpr) constexprs;
    const char *constexprs_note; /* why constexprs is empty or incomplete */
    bool cache_hit;              /* the hook: loaded from the cache */
    /* the hook, for a compile not reached through a launch: the
     * triton.compile(...) call; file NULL otherwise */
    kw_loc compiled_at;
    /* From NAME.ttgir (the cache reader): the layouts and the memory ops of
     * the kernel function in the order written. */
    KW_ARRAY(kw_triton_layout) layouts;
    KW_ARRAY(kw_triton_memop) memory_ops;
    /* Why the kernel's arch has no IR facts from NAME.llir (cache reader):
     * "IR facts: not readable by LLVM 19.1.7: ..."; NULL when it has them. */
    const char *ir_note;
    /* The cache reader: the --map-prefix rules `kwalk index` applied to this
     * record's paths, in order; a page applies them to the line table it
     * decodes from the .hsaco (model/kw_decode.h). Empty otherwise. */
    KW_ARRAY(kw_path_prefix) map_prefix;
} kw_triton;

typedef struct kw_kernel {
    const char *symbol;   /* device mangled name: the join key everywhere */
    const char *name;     /* printed with full template arguments */
    const char *template_name; /* qualified name of the template; NULL if none */
    kw_loc location;      /* definition */
    /* "internal" for a kernel with internal linkage (an anonymous namespace,
     * `static`, or a template argument of such a type): every translation unit
     * that defines one has a kernel of its own under the same symbol. NULL:
     * external linkage, one kernel per symbol in a build. */
    const char *linkage;
    /* In a kwalk index only, for a kernel with internal linkage: the sidecar
     * path of its translation unit (kw_index_tu.sidecar), which with the
     * symbol identifies it. NULL otherwise (and ignored in a sidecar). */
    const char *tu;
    /* A trampoline kernel (ck_tile's kentry<Kernel, Args> calling Kernel{}(args)):
     * the user-level kernel type it runs, printed with its template arguments,
     * and where that type's operator() is defined. NULL / no location otherwise. */
    const char *functor;
    kw_loc functor_location;
    /* The functor's template arguments broken out level by level: name is
     * the path of parameter names ("Pipeline_.Problem_.kPadN"), the rest as
     * in template_args. Empty for other kernels. */
    KW_ARRAY(kw_template_arg) functor_args;
    const char *doc;      /* doc comment text, NULL if none */
    /* Why the compile's object does not hold this kernel although a device
     * job compiled it (the host object embeds no code object); NULL when it
     * does or when that is not known. */
    const char *not_in_object;
    KW_ARRAY(kw_template_arg) template_args;
    KW_ARRAY(kw_param) params;
    KW_ARRAY(kw_attr) attrs;
    KW_ARRAY(kw_shared_var) shared;
    KW_ARRAY(kw_inline_asm) inline_asm;
    KW_ARRAY(kw_call) calls;
    /* "triton" for a Triton specialization (then triton is set); NULL for HIP */
    const char *language;
    kw_triton *triton;
    KW_ARRAY(kw_kernel_arch) archs;
} kw_kernel;

typedef struct kw_macro_expansion {
    const char *macro;
    kw_loc location; /* where the macro was expanded */
} kw_macro_expansion;

typedef struct kw_chain_link {
    const char *function; /* the caller, as instantiated */
    const char *symbol;   /* its host mangled name */
    kw_loc location;      /* the call (point of instantiation) */
} kw_chain_link;

/* A launch configuration operand: grid/block (3 values), shared memory (1),
 * stream (expression only). */
typedef struct kw_config_item {
    const char *expr; /* as written, or pretty-printed inside a macro; NULL if absent */
    bool has_value;   /* constant in this instantiation */
    int dims;         /* 3 for grid/block, 1 for shared memory */
    long long value[3];
} kw_config_item;

typedef struct kw_launch_arg {
    const char *param; /* kernel parameter name */
    const char *expr;  /* argument as written */
    /* a Triton launch's starred argument (`*x.stride()`): the parameters its
     * values bound, when the hook could tell; empty otherwise */
    KW_ARRAY(const char *) params;
} kw_launch_arg;

typedef struct kw_guard {
    const char *kind;      /* "if", "case", "default", "ternary", "for", "while", "do" */
    const char *condition; /* as written (case: "dtype == DT_FP16") */
    bool holds;            /* true: launch sits where the condition holds */
    /* The condition is a compile-time constant in this instantiation:
     * "always" (the guard is always satisfied, as holds says) or "never" (it
     * never is: the statement under it never runs); NULL when not constant. */
    const char *constant;
    kw_loc location;
} kw_guard;

/* The variable a launch operand (grid, block, shared memory, stream) names
 * when it is written as one: its declaration, and whether it changes after
 * it (then the initializer is not the value at the launch). */
typedef struct kw_operand_decl {
    const char *operand; /* "grid", "block", "shared_mem", "stream" */
    const char *name;    /* the variable */
    const char *kind;    /* "local", "parameter", "global" */
    const char *text;    /* the declaration as written, on one line */
    const char *init;    /* its initializer as one expression ("dim3(x, y)"); NULL if none */
    /* init with the calls it makes to functions of one return statement
     * expanded, constants as values (Kernel::GridSize(args.M, args.N, 1) ->
     * "dim3((((args.M + 256) - 1) / 256), ...)"); NULL when it makes none */
    const char *inlined;
    bool modified;       /* written after its declaration in the function (a global: not const) */
    kw_loc location;     /* the variable's name in its declaration */
} kw_operand_decl;

/* A name an expression of a launch or a condition is written with whose
 * value the compiler knows or that stands for a fixed expression: a
 * const/constexpr variable or an enumerator (value: clang's constant
 * evaluation), or a local variable never changed after its declaration whose
 * initializer is not constant here (init: that initializer, in terms of other
 * names, e.g. parameters --shape binds). Listed in dependency order: a name's
 * init only names parameters or names listed before it. */
typedef struct kw_constant {
    const char *name;  /* as written at the use: "B", "Mode::Wide", "kUnrollFour" */
    const char *kind;  /* "local", "global", "enumerator", "member" */
    const char *value; /* a decimal integer; NULL when not a constant here */
    const char *init;  /* when value is NULL: the initializer as one expression */
} kw_constant;

/* One row of a constant table a loader's constructor arguments are read
 * from: the kernel and code object that row names, and what selects it. */
typedef struct kw_asm_candidate {
    const char *asm_kernel;  /* the kernel's name in the code object */
    const char *code_object; /* the path as the row writes it */
    const char *file;        /* the code object found on disk (absolute); NULL if not found */
    const char *arch;        /* the row's gfx* field, when it has one */
    const char *condition;   /* what selects the row: `kernelName == "gfx942_k"` */
    const char *fields;      /* the row's other fields: `qType="bf16", Gqa=8` */
    kw_loc location;         /* the row's initializer */
} kw_asm_candidate;

/* A loader object constructed from a table's fields: the construction, the
 * table and its lookup, and the rows it can pick (at most KW_ASM_CANDIDATES_MAX). */
typedef struct kw_asm_choice {
    kw_loc construction;   /* the loader's constructor call */
    const char *table;     /* the table variable */
    kw_loc table_location; /* its declaration */
    const char *lookup;    /* the key or index expression that selects the row */
    int rows;              /* the table's rows (more than candidates: the list is cut) */
    KW_ARRAY(kw_asm_candidate) candidates;
    /* The loader built inside a wrapper from its parameters (a class's
     * constructor `W(name, co) : kernel(name, co)`): construction is then a
     * call of the wrapper, these name it and the loader's construction in it. */
    const char *wrapper;     /* the wrapper class (or function) */
    kw_loc wrapper_location; /* the loader's construction inside it */
} kw_asm_choice;

#define KW_ASM_CANDIDATES_MAX 256

typedef struct kw_launch {
    const char *kernel;      /* device symbol of the launched kernel */
    const char *kernel_name; /* printed name */
    const char *kind; /* "triple_chevron", "hipLaunchKernelGGL", "hipLaunchKernel",
                         "asm_loader", "hipModuleLaunchKernel" */
    kw_loc location;         /* where the user wrote it (or asked for it, see library) */
    /* When the <<<>>> sits in a kernel library's header (annotations/libraries/):
     * the library's name and the <<<>>>'s own location; location is then the
     * first call of the instantiation chain outside the library. */
    const char *library;
    kw_loc site;
    /* A precompiled ASM kernel launched through a loader class
     * (annotations/loaders/) or hipModuleLaunchKernel: the kernel's name and
     * code object as written (literal pieces joined; other pieces as ${expr}),
     * and the loader class. kernel is NULL for these. */
    const char *asm_kernel;
    const char *code_object;
    const char *loader;
    /* When the loader's kernel and code object come from a table: the rows
     * the launch can run, per construction of the loader (asm_kernel and
     * code_object are then set only when every row agrees). */
    KW_ARRAY(kw_asm_choice) asm_choices;
    KW_ARRAY(kw_macro_expansion) macro_expansions; /* innermost first */
    const char *function;        /* enclosing function as instantiated */
    const char *function_symbol; /* its host mangled name */
    /* a Triton launch: the expression before `[grid]` as written (`impl`,
     * `_kernel`); NULL when not recorded */
    const char *callee;
    KW_ARRAY(kw_chain_link) instantiation_chain;
    /* a Triton launch (kind "triton"): the Python frames above the launching
     * one, innermost first; function and location of each */
    KW_ARRAY(kw_chain_link) call_chain;
    kw_config_item grid, block, shared_mem, stream;
    KW_ARRAY(kw_operand_decl)
    operand_decls; /* in operand order; only operands that are variables */
    KW_ARRAY(kw_launch_arg) args;
    KW_ARRAY(kw_guard) guards; /* outermost first */
    /* the constants the configuration, the operands' initializers and the
     * guards are written with */
    KW_ARRAY(kw_constant) constants;
    bool dead; /* a guard is constant "never": compiled (its kernel emitted), never run */
} kw_launch;

typedef struct kw_entry {
    const char *name;            /* Python-visible / C name */
    const char *kind;            /* "extern_c", "pybind" */
    const char *function;        /* the C++ function it runs */
    const char *function_symbol; /* its host mangled name */
    const char *module;          /* pybind module name, NULL otherwise */
    kw_loc location;             /* the definition (extern_c) or the m.def (pybind) */
} kw_entry;

typedef struct kw_host_call {
    const char *caller; /* host mangled names */
    const char *callee;
    const char *caller_name; /* printed */
    const char *callee_name;
    kw_loc location;
    KW_ARRAY(kw_guard) guards;
    KW_ARRAY(kw_constant) constants; /* the constants the guards are written with */
    bool dead; /* a guard is constant "never": the call never happens */
} kw_host_call;

/* Who wrote a document (a sidecar, an index). */
typedef struct kw_producer {
    const char *name;
    const char *version;
    const char *clang_version;
} kw_producer;

/* A device code object the compile's object embeds (schema 2): what
 * `kwalk index` checks before it reads the listing back from the object. */
typedef struct kw_code_object {
    const char *arch;      /* "gfx942" */
    const char *target_id; /* "gfx942:sramecc+:xnack-" */
    long long bytes;       /* the code object's size (the ELF image in the bundle) */
    const char *md5;       /* MD5 of those bytes, 32 lowercase hex digits */
} kw_code_object;

/* The translation unit a sidecar describes. */
typedef struct kw_tu {
    const char *source;
    const char *object;
    const char *cuid;
    KW_ARRAY(const char *) offload_archs;
    /* Schema 2: the code objects of the object's .hip_fatbin, in bundle
     * order; empty in schema 1 (the listing is then inline) and when the
     * object embeds no device code. */
    KW_ARRAY(kw_code_object) code_objects;
} kw_tu;

typedef struct kw_sidecar {
    kw_arena arena;
    int schema;
    kw_producer producer;
    kw_tu tu;
    KW_ARRAY(kw_kernel) kernels;
    KW_ARRAY(kw_launch) launches;
    KW_ARRAY(kw_entry) entries;
    KW_ARRAY(kw_host_call) host_calls;
} kw_sidecar;

void kw_sidecar_init(kw_sidecar *sc);
void kw_sidecar_free(kw_sidecar *sc);

/* Emit the document as YAML into out. */
kw_status kw_sidecar_emit(const kw_sidecar *sc, kw_buf *out, kw_err *err);
/* Emit and write atomically to path. */
kw_status kw_sidecar_write_file(const kw_sidecar *sc, const char *path, kw_err *err);
/* The same, as one zstd frame of that text where zstd is set
 * (sidecar/kw_sidecar_zstd.h; every reader takes both forms). */
kw_status kw_sidecar_write_file_as(const kw_sidecar *sc, const char *path, bool zstd, kw_err *err);

/* Parse YAML text. name is used in error messages (a path). On failure sc is
 * left initialized and empty, and err says "<name>: line N: what". */
kw_status kw_sidecar_parse(kw_sidecar *sc, const char *name, const char *text, size_t len,
                           kw_err *err);
kw_status kw_sidecar_read_file(kw_sidecar *sc, const char *path, kw_err *err);

/* The key a kernel is joined by: its symbol, or, for one with a translation
 * unit (tu, see kw_kernel), the symbol and the unit; in arena a (NULL when
 * out of memory). kw_kernel_key_buf writes it into a malloc'ed string. */
const char *kw_kernel_key(kw_arena *a, const char *symbol, const char *tu);
char *kw_kernel_key_buf(const char *symbol, const char *tu);

/* Merge the kernels of a device fragment into dst: kernels are matched by
 * symbol; a kernel already present gains the fragment's archs; offload_archs
 * are unioned. Strings are copied into dst's arena. */
kw_status kw_sidecar_merge_kernels(kw_sidecar *dst, const kw_sidecar *frag, kw_err *err);

#endif
