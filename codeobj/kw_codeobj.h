/* kw_codeobj.h: AMDGPU code objects as a HIP build leaves them on disk, read
 * in C. This header is the whole interface of the code-object library
 * (codeobj/kw_co_*.c); the plugin's host job and `kwalk isa` both call it.
 *
 * What it reads, recognized by content, never by file name:
 *   - an AMDGPU ELF code object (.co, .hsaco, a bundle entry);
 *   - a __CLANG_OFFLOAD_BUNDLE__ bundle (.hipfb, a device-only -c output);
 *   - a "CCOB" compressed bundle (versions 1-3, zstd or zlib);
 *   - a host ELF object or shared library with a .hip_fatbin section holding
 *     one bundle or several concatenated ones (a linked .so).
 * What it gives per code object: the target id, every kernel with its
 * NT_AMDGPU_METADATA values and kernel descriptor, occupancy and its limiter;
 * per kernel on request: the disassembly (text identical to llvm-objdump's),
 * branch labels, instruction classes, DPP patterns, and file:line from
 * .debug_line when the code object has line tables.
 *
 * Conventions: errors are values (kw_status + a one-line kw_err); nothing
 * aborts on bad input. Every string and array of a kw_co_set lives in its
 * arena; a listing has its own arena. Integer facts the metadata does not
 * hold are KW_CO_ABSENT. */
#ifndef KW_CODEOBJ_H
#define KW_CODEOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kw_arena.h"
#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "codeobj/kw_names.h"

#define KW_CO_ABSENT (-1)

/* ---- hardware facts (annotations/hw/amdgpu-occupancy.txt, amdgpu-peaks.txt)
 * The one hardware table: per arch (processor) the facts occupancy needs,
 * per product (MI300X, ...) its published peaks and its arch's facts. */

typedef struct kw_co_hw {
    const char *arch; /* "gfx942" */
    unsigned mach;    /* ELF EF_AMDGPU_MACH value */
    unsigned wave_size;
    unsigned simds_per_cu;
    unsigned max_waves_per_simd;
    unsigned vgprs_per_lane;
    unsigned vgpr_granule;
    unsigned lds_bytes_per_cu;
    unsigned max_barriers_per_cu;
    unsigned sgpr_steps[8][2]; /* {max SGPRs, waves}, tried in order */
    unsigned nsgpr_steps;
    unsigned sgpr_default_waves; /* above the last step */
    const char *source;
} kw_co_hw;

/* An AMD Instinct product's published peak rates (amdgpu-peaks.txt: vendor
 * data, dense); a rate the file does not give is negative ("not known"). */
typedef struct kw_co_gpu {
    const char *product; /* "MI300X" */
    const char *arch;    /* "gfx942": an arch of the table */
    bool is_default;     /* the product used for its arch unless --gpu says otherwise */
    double compute_units, peak_clock_mhz, memory_gb, hbm_tbs;
    double fp32_vector_tflops, fp32_matrix_tflops, fp16_tflops, bf16_tflops, fp8_tflops;
    const char *source;
    const kw_co_hw *hw; /* its arch's facts (LDS per CU, register file, ...) */
} kw_co_gpu;

/* The facts for an arch name ("gfx942", target-id features ignored), or NULL. */
const kw_co_hw *kw_co_hw_lookup(const char *arch);
/* The products, in file order: n of them at *v (0 when the table is empty). */
const kw_co_gpu *kw_co_hw_gpus(size_t *n);
/* Whether LLVM's AMDGPU disassembler knows the processor name. */
bool kw_co_hw_known_processor(const char *arch);
/* The arch name for an ELF e_flags mach value, or NULL. */
const char *kw_co_hw_arch_for_mach(unsigned mach);
/* Why the table is empty ("annotations/hw/amdgpu-occupancy.txt:LINE: ..."),
 * or NULL when the embedded files were read (kw_co_hw.c; read once, on first
 * use of any kw_co_hw_* function). */
const char *kw_co_hw_error(void);

/* ---- code objects and kernels ------------------------------------------- */

typedef struct kw_co_arg {
    const char *name;          /* NULL when the metadata has none */
    const char *type_name;     /* NULL when absent */
    int64_t offset;            /* bytes into the kernarg segment */
    int64_t size;              /* bytes */
    const char *value_kind;    /* "global_buffer", "by_value", "hidden_block_count_x", ... */
    const char *address_space; /* "global", ... for pointers; NULL otherwise */
} kw_co_arg;

/* The kernel's NT_AMDGPU_METADATA values, KW_CO_ABSENT where missing. */
typedef struct kw_co_resources {
    int64_t vgpr;       /* .vgpr_count (on gfx90a+ the unified VGPR+AGPR total) */
    int64_t agpr;       /* .agpr_count */
    int64_t sgpr;       /* .sgpr_count (includes VCC, FLAT_SCRATCH, XNACK) */
    int64_t vgpr_spill; /* .vgpr_spill_count */
    int64_t sgpr_spill; /* .sgpr_spill_count */
    int64_t lds_bytes;  /* .group_segment_fixed_size (static LDS) */
    int64_t scratch_bytes; /* .private_segment_fixed_size, per lane */
    int64_t kernarg_bytes; /* .kernarg_segment_size */
    int64_t kernarg_align; /* .kernarg_segment_align */
    int64_t max_flat_workgroup_size;
    int64_t wavefront_size;
    int64_t uses_dynamic_stack; /* 0, 1 or KW_CO_ABSENT */
    int64_t reqd_workgroup_size[3]; /* .reqd_workgroup_size */
} kw_co_resources;

/* The 64-byte kernel descriptor (the .kd symbol), raw fields. */
typedef struct kw_co_kd {
    bool present;
    uint32_t group_segment_fixed_size;
    uint32_t private_segment_fixed_size;
    uint32_t kernarg_size;
    int64_t kernel_code_entry_byte_offset;
    uint32_t compute_pgm_rsrc3;
    uint32_t compute_pgm_rsrc1;
    uint32_t compute_pgm_rsrc2;
    uint16_t kernel_code_properties;
} kw_co_kd;

/* Occupancy limiters, as bits of kw_co_occupancy.limiters. */
enum {
    KW_CO_LIMIT_VGPR = 1u << 0,
    KW_CO_LIMIT_SGPR = 1u << 1,
    KW_CO_LIMIT_LDS = 1u << 2,       /* static LDS per workgroup against the CU's LDS */
    KW_CO_LIMIT_WORKGROUP = 1u << 3, /* workgroup size: wave slots and barriers per CU */
};

/* Waves per SIMD, computed the way LLVM computes the "Occupancy [waves/SIMD]"
 * of -Rpass-analysis=kernel-resource-usage: the minimum of the VGPR term, the
 * SGPR term, and the workgroup/LDS term over the flat workgroup size range
 * (1 .. .max_flat_workgroup_size, or exactly .reqd_workgroup_size). */
typedef struct kw_co_occupancy {
    bool known;
    const char *unknown_reason; /* when !known: why ("no hardware data for gfx1100") */
    unsigned waves;             /* waves per SIMD */
    unsigned max_waves;         /* the hardware's wave slots per SIMD */
    unsigned by_vgpr, by_sgpr;
    unsigned by_workgroup; /* workgroup size alone (no LDS) */
    unsigned by_lds;       /* workgroup size and static LDS together */
    unsigned limiters;     /* KW_CO_LIMIT_* bits of the terms equal to waves < max_waves */
    unsigned min_wg, max_wg; /* the flat workgroup size range used */
    bool min_wg_assumed;     /* min_wg = 1 by assumption: code objects do not record the
                              * minimum of amdgpu_flat_work_group_size (HIP's
                              * __launch_bounds__ sets 1); kw_co_occupancy_compute with
                              * the source's range gives the exact value */
} kw_co_occupancy;

/* Occupancy at one workgroup size: what a dispatch of blocks of `block`
 * work-items reaches, the whole workgroup resident on one CU at once. */
typedef struct kw_co_occ_block {
    bool known;
    unsigned block;          /* work-items per workgroup */
    unsigned waves_per_wg;   /* ceil(block / wave size) */
    unsigned wgs_per_cu;     /* workgroups resident on one CU */
    unsigned waves;          /* waves per SIMD: ceil(wgs_per_cu * waves_per_wg / SIMDs) */
    unsigned by_regs;        /* waves per SIMD the registers allow (VGPR and SGPR terms) */
    unsigned limiters;       /* KW_CO_BLOCK_* bits: what keeps waves below by_regs */
} kw_co_occ_block;

/* What keeps kw_co_occ_block's waves below the registers' term: whole
 * workgroups only (the block size: R x SIMDs is not a multiple of the waves
 * per workgroup), the CU's barriers, its LDS. */
enum {
    KW_CO_BLOCK_SIZE = 1u << 0,
    KW_CO_BLOCK_BARRIERS = 1u << 1,
    KW_CO_BLOCK_LDS = 1u << 2,
};

/* hw's occupancy for a kernel of vgpr (arch VGPRs + AGPRs, as .vgpr_count),
 * sgpr, lds (static bytes per workgroup) run in workgroups of block items:
 *   per SIMD the registers allow R = min(VGPR term, SGPR term) waves (as
 *   kw_co_occupancy_compute); a CU holds floor(R x SIMDs / waves per
 *   workgroup) workgroups, at most the CU's LDS / lds and, for workgroups of
 *   several waves, its barriers; waves = ceil(that x waves per workgroup /
 *   SIMDs). LLVM's occupancy (kw_co_occupancy) takes the minimum workgroup
 *   size as 1, so a kernel compiled for large blocks may never reach it:
 *   768 work-items (12 waves) at R = 8 fit 2 workgroups, 6 waves per SIMD. */
void kw_co_occupancy_at_block(const kw_co_hw *hw, long long vgpr, long long sgpr, long long lds,
                              unsigned block, kw_co_occ_block *out);

/* hw's VGPR term: the waves per SIMD a kernel of vgprs VGPRs (arch VGPRs +
 * AGPRs) allows, as kw_co_occupancy_compute takes it. */
unsigned kw_co_waves_by_vgpr(const kw_co_hw *hw, unsigned vgprs);

/* "vgpr", "sgpr", "lds", "workgroup", joined with '+' when several bind;
 * "none" when the kernel reaches the hardware's wave slots. */
const char *kw_co_limiter_name(unsigned limiters);

/* "block size", "barriers", "lds", joined with '+' when several bind (the
 * KW_CO_BLOCK_* bits); "none" when no bit is set. */
const char *kw_co_block_limiter_name(unsigned limiters);

typedef struct kw_co_kernel {
    const char *name;   /* .name (the mangled device symbol) */
    const char *symbol; /* .symbol ("NAME.kd"); NULL when not in the metadata */
    bool in_metadata;   /* listed in amdhsa.kernels */
    bool has_code;      /* code_addr/code_size are valid */
    uint64_t kd_addr;   /* virtual address of the kernel descriptor */
    uint64_t code_addr; /* address of the first instruction (section offset in an ET_REL) */
    uint64_t code_size; /* bytes; the symbol's size, else up to the next function symbol */
    uint32_t code_section; /* ELF section index holding the code */
    kw_co_kd kd;
    kw_co_resources res;
    KW_ARRAY(kw_co_arg) args;
    kw_co_occupancy occ;
} kw_co_kernel;

typedef struct kw_co_object {
    const char *origin;    /* human-readable: "a.so: .hip_fatbin bundle 2, hipv4-amdgcn-amd-amdhsa--gfx942" */
    const char *container; /* how it was wrapped: "elf", "bundle", "ccob-v3-zstd+bundle", "host-elf+bundle", ... */
    const char *bundle_id; /* the bundle entry id; NULL for a bare code object */
    const char *target_id; /* "gfx942:sramecc+:xnack-" from amdhsa.target */
    const char *elf_target_id; /* the same as e_flags (EF_AMDGPU_MACH, feature bits) say it */
    const char *arch;      /* "gfx942" */
    const unsigned char *image; /* the ELF bytes (in the set's arena) */
    size_t image_size;
    unsigned e_flags;
    unsigned elf_type; /* ET_DYN for linked code objects, ET_REL for assembler output */
    int64_t metadata_version[2]; /* amdhsa.version */
    bool has_debug_line;         /* a .debug_line section exists */
    KW_ARRAY(kw_co_kernel) kernels;
    void *priv; /* library-private state (the libelf handle) */
} kw_co_object;

typedef struct kw_co_set {
    kw_arena arena;
    const char *name; /* the path or name given to kw_co_open/kw_co_load */
    KW_ARRAY(kw_co_object) objects;
    KW_ARRAY(const char *) notes; /* things skipped on purpose (host entries, bitcode) */
    void *priv;                   /* disassembler contexts, one per arch */
    void *maps;                   /* the files kw_co_open mapped: the objects' bytes */
    bool llvm_too_old; /* a disassembly failed: the loaded LLVM predates the processor */
} kw_co_set;

void kw_co_set_init(kw_co_set *set);
void kw_co_set_free(kw_co_set *set);

/* Read the file at path and add every code object it holds to set. A file
 * that holds no AMDGPU code object at all is an error. */
kw_status kw_co_open(kw_co_set *set, const char *path, kw_err *err);
/* Same for bytes already in memory (copied; data may be freed afterwards).
 * name appears in origins and error messages. */
kw_status kw_co_load(kw_co_set *set, const char *name, const void *data, size_t size,
                     kw_err *err);

/* Bare bundle reading, for callers that only need the entries (e.g. to
 * extract them): calls fn for each entry of every bundle in data (plain,
 * compressed or in a host ELF's .hip_fatbin). Entry bytes are valid during
 * the call only. fn returns KW_OK to go on. */
typedef kw_status (*kw_co_entry_fn)(void *ctx, const char *bundle_id, const void *data,
                                    size_t size, kw_err *err);
kw_status kw_co_foreach_entry(const char *name, const void *data, size_t size,
                              kw_co_entry_fn fn, void *ctx, kw_err *err);

/* The MD5 of n bytes as 32 lowercase hex digits and a NUL (a code object's
 * identity in a schema 2 sidecar; not for security). */
void kw_co_md5_hex(const void *data, size_t n, char out[33]);

/* Recompute kernel->occ for the flat workgroup size range [min_wg, max_wg]
 * (e.g. a launch's known block size); the default comes from the metadata. */
void kw_co_occupancy_compute(const kw_co_object *obj, const kw_co_kernel *kernel,
                             unsigned min_wg, unsigned max_wg, kw_co_occupancy *out);

/* ---- disassembly, classes, lines ---------------------------------------- */

/* Instruction classes. Every instruction has exactly one; the counts of a
 * listing add up to its instruction count. */
typedef enum kw_co_class {
    KW_CO_SALU,          /* scalar ALU, s_endpgm, s_sleep, s_setprio, ... */
    KW_CO_VALU,          /* vector ALU not counted below */
    KW_CO_VALU_PACKED,   /* v_pk_* */
    KW_CO_VALU_TRANS,    /* v_rcp/v_rsq/v_exp/v_log/v_sqrt/v_sin/v_cos */
    KW_CO_CVT_LOWP,      /* conversions to/from fp8, bf8, fp4 (and scaled forms) */
    KW_CO_MFMA,          /* v_mfma_* */
    KW_CO_SMFMAC,        /* v_smfmac_* */
    KW_CO_WMMA,          /* v_wmma_* / v_swmmac_* */
    KW_CO_READLANE,      /* v_readlane_* */
    KW_CO_WRITELANE,     /* v_writelane_* */
    KW_CO_READFIRSTLANE, /* v_readfirstlane_* */
    KW_CO_PERMLANE,      /* v_permlane* */
    KW_CO_VMEM_LOAD,     /* global/buffer/flat/scratch loads (incl. to LDS) */
    KW_CO_VMEM_STORE,
    KW_CO_VMEM_ATOMIC,
    KW_CO_SMEM,          /* s_load/s_buffer_load/s_store/s_dcache/... */
    KW_CO_LDS,           /* ds_* not counted below */
    KW_CO_LDS_SWIZZLE,   /* ds_swizzle_* */
    KW_CO_LDS_BPERMUTE,  /* ds_bpermute_* */
    KW_CO_LDS_PERMUTE,   /* ds_permute_* */
    KW_CO_BRANCH,        /* s_branch, s_cbranch_*, s_setpc/s_swappc/s_call */
    KW_CO_WAITCNT,       /* s_waitcnt* */
    KW_CO_BARRIER,       /* s_barrier* */
    KW_CO_NOP,           /* s_nop */
    KW_CO_OTHER,         /* anything else, and undecodable words */
    KW_CO_NCLASSES
} kw_co_class;

/* The sidecar key of a class: "salu", "valu_packed", "vmem_load", ... */
const char *kw_co_class_name(kw_co_class c);

enum {
    KW_CO_INSN_DPP = 1u << 0,     /* has a DPP control (see dpp) */
    KW_CO_INSN_SDWA = 1u << 1,    /* SDWA form */
    KW_CO_INSN_INVALID = 1u << 2, /* the bytes did not decode */
    KW_CO_INSN_TARGET = 1u << 3,  /* a direct branch: target is valid */
};

typedef struct kw_co_insn {
    uint32_t offset;  /* bytes from the kernel's first instruction */
    uint8_t size;     /* bytes */
    uint8_t klass;    /* kw_co_class */
    uint8_t flags;    /* KW_CO_INSN_* */
    uint16_t width;   /* memory access bytes per lane (VMEM, LDS, SMEM), 0 if n/a */
    const char *text; /* mnemonic and operands, as llvm-objdump -d prints them */
    const char *space; /* memory instructions: "global", "buffer", "flat", "scratch", "lds", "smem" */
    const char *dpp;   /* the DPP control ("row_shr:1", "quad_perm:[3,2,1,0]") or NULL */
    int64_t target;   /* branch target, bytes from the kernel start (may be outside it) */
    int32_t label;    /* label number when this instruction is a branch target, else -1 */
    int32_t target_label; /* label number of the target, -1 when outside the kernel */
    int32_t loc;      /* index into the listing's locs, -1 without line tables */
} kw_co_insn;

/* One frame of a source location; frames[0] is where the code is, the next
 * ones are the call sites it was inlined into, outward. */
typedef struct kw_co_frame {
    const char *file;
    unsigned line;
    unsigned column;
    const char *function; /* the function the code belongs to, when known */
} kw_co_frame;

typedef struct kw_co_loc {
    KW_ARRAY(kw_co_frame) frames;
} kw_co_loc;

typedef struct kw_co_count {
    const char *key; /* "row_shr:1", "global_load", ... */
    unsigned width;  /* bytes, for memory counts; 0 otherwise */
    unsigned n;
} kw_co_count;

typedef struct kw_co_listing {
    kw_arena arena;
    const kw_co_object *object;
    const kw_co_kernel *kernel;
    KW_ARRAY(kw_co_insn) insns;
    unsigned nlabels;
    unsigned classes[KW_CO_NCLASSES];
    unsigned dpp;  /* instructions with a DPP control (a modifier, across classes) */
    unsigned sdwa; /* SDWA instructions */
    KW_ARRAY(kw_co_count) dpp_patterns; /* per DPP control, first-seen order */
    KW_ARRAY(kw_co_count) memory;       /* per "space_load"/"space_store"/... and width */
    bool has_lines;
    const char *lines_note; /* when !has_lines: why ("no .debug_line in the code object") */
    KW_ARRAY(kw_co_loc) locs;
} kw_co_listing;

enum { KW_CO_WANT_LINES = 1u << 0 };

void kw_co_listing_init(kw_co_listing *l);
void kw_co_listing_free(kw_co_listing *l);

/* Disassemble kernel (of obj, of set) into l (which must be initialized; it
 * is reset first). flags: KW_CO_WANT_LINES to map instructions to source. */
kw_status kw_co_disassemble(kw_co_set *set, const kw_co_object *obj, const kw_co_kernel *kernel,
                            unsigned flags, kw_co_listing *l, kw_err *err);

/* Classify one instruction from its text (fills klass, width, space, dpp,
 * flags DPP/SDWA); exposed for tests. space is static; dpp points at the DPP
 * token inside text, which ends at the next space (listings hold a copy). */
void kw_co_classify(const char *text, kw_co_insn *insn);

/* ---- picking kernels by name (kw_co_match.c) ----------------------------- */

/* The closest rank (common/kw_names.h) at which q names any kernel of set;
 * KW_NAME_NONE when it names none. Demangled names go into a. */
kw_name_rank kw_co_match_rank(const kw_co_set *set, const char *q, kw_arena *a);
/* Does q pick kernel k, given best = kw_co_match_rank of its set? */
bool kw_co_match(const kw_co_kernel *k, const char *q, kw_name_rank best, kw_arena *a);

/* ---- output -------------------------------------------------------------- */

/* The kernel table of `kwalk isa FILE`: one block per code object. */
void kw_co_write_summary(kw_buf *out, const kw_co_set *set);
/* A listing as text: labels, "OFFSET: text", branch targets, then the
 * classes, DPP patterns and memory widths. */
void kw_co_write_listing(kw_buf *out, const kw_co_listing *l);
/* As YAML, the facts go into a sidecar's kernels[].archs.<arch> through
 * kw_co_sidecar_fill (kw_co_sidecar.h) and the one YAML writer. */

#endif
