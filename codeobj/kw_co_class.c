/* kw_co_class.c: instruction classes from the disassembled text. The
 * mnemonic decides the class (one per instruction, see kw_co_class); its
 * '_'-separated parts give the bytes a memory instruction moves per lane;
 * the operands give DPP controls. Working on text keeps this independent of
 * LLVM's C++ opcode tables and identical for every consumer of the listing. */
#include <stdio.h>
#include <string.h>

#include "kw_co_internal.h"

static const char *const class_names[KW_CO_NCLASSES] = {
    [KW_CO_SALU] = "salu",
    [KW_CO_VALU] = "valu",
    [KW_CO_VALU_PACKED] = "valu_packed",
    [KW_CO_VALU_TRANS] = "valu_trans",
    [KW_CO_CVT_LOWP] = "cvt_fp8_fp4",
    [KW_CO_MFMA] = "mfma",
    [KW_CO_SMFMAC] = "smfmac",
    [KW_CO_WMMA] = "wmma",
    [KW_CO_READLANE] = "readlane",
    [KW_CO_WRITELANE] = "writelane",
    [KW_CO_READFIRSTLANE] = "readfirstlane",
    [KW_CO_PERMLANE] = "permlane",
    [KW_CO_VMEM_LOAD] = "vmem_load",
    [KW_CO_VMEM_STORE] = "vmem_store",
    [KW_CO_VMEM_ATOMIC] = "vmem_atomic",
    [KW_CO_SMEM] = "smem",
    [KW_CO_LDS] = "lds",
    [KW_CO_LDS_SWIZZLE] = "ds_swizzle",
    [KW_CO_LDS_BPERMUTE] = "ds_bpermute",
    [KW_CO_LDS_PERMUTE] = "ds_permute",
    [KW_CO_BRANCH] = "branch",
    [KW_CO_WAITCNT] = "waitcnt",
    [KW_CO_BARRIER] = "barrier",
    [KW_CO_NOP] = "nop",
    [KW_CO_OTHER] = "other",
};

const char *kw_co_class_name(kw_co_class c) {
    return (unsigned)c < KW_CO_NCLASSES ? class_names[c] : "other";
}

static bool starts(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Is part (of length n) one of the '_'-separated parts of mnemonic m? */
static bool has_part(const char *m, size_t mlen, const char *part) {
    size_t n = strlen(part);
    for (size_t i = 0; i + n <= mlen; i++)
        if ((i == 0 || m[i - 1] == '_') && memcmp(m + i, part, n) == 0 &&
            (i + n == mlen || m[i + n] == '_'))
            return true;
    return false;
}

/* Bytes per lane named by one mnemonic part, 0 if it names none. */
static unsigned part_width(const char *p, size_t n) {
    static const struct {
        const char *part;
        unsigned bytes;
    } w[] = {
        {"dword", 4},     {"dwordx2", 8}, {"dwordx3", 12}, {"dwordx4", 16}, {"dwordx8", 32},
        {"dwordx16", 64}, {"ubyte", 1},   {"sbyte", 1},    {"byte", 1},     {"ushort", 2},
        {"sshort", 2},    {"short", 2},   {"b8", 1},       {"u8", 1},       {"i8", 1},
        {"b16", 2},       {"u16", 2},     {"i16", 2},      {"f16", 2},      {"bf16", 2},
        {"b32", 4},       {"u32", 4},     {"i32", 4},      {"f32", 4},      {"b64", 8},
        {"u64", 8},       {"i64", 8},     {"f64", 8},      {"b96", 12},     {"b128", 16},
        {"x2", 8},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strlen(w[i].part) == n && memcmp(w[i].part, p, n) == 0)
            return w[i].bytes;
    return 0;
}

/* Width of a memory mnemonic: the first part after the operation that names
 * a size; "format_[d16_]x..xyzw" counts components; "pk" doubles a 16-bit
 * type; ds "read2"/"write2" move two elements. */
static unsigned mem_width(const char *m, size_t mlen, bool atomic) {
    unsigned comps = 0;
    bool d16 = has_part(m, mlen, "d16"), pk = has_part(m, mlen, "pk");
    unsigned mult = (has_part(m, mlen, "read2") || has_part(m, mlen, "write2") ||
                     has_part(m, mlen, "read2st64") || has_part(m, mlen, "write2st64") ||
                     has_part(m, mlen, "load_2addr") || has_part(m, mlen, "store_2addr"))
                        ? 2
                        : 1;
    if (has_part(m, mlen, "format")) {
        static const char *const c[] = {"x", "xy", "xyz", "xyzw"};
        for (unsigned i = 0; i < 4; i++)
            if (has_part(m, mlen, c[i]))
                comps = i + 1;
        if (comps)
            return comps * (d16 ? 2 : 4);
        return 0;
    }
    size_t i = 0;
    while (i < mlen) {
        size_t j = i;
        while (j < mlen && m[j] != '_')
            j++;
        unsigned w = part_width(m + i, j - i);
        if (w && i > 0) /* never the space prefix itself */
            return w * mult * (pk && w == 2 ? 2 : 1);
        i = j + 1;
    }
    return atomic ? 4 : 0;
}

#define KW_DPP(s)                                                                                  \
    { s, sizeof s - 1 }
static const struct {
    const char *s;
    size_t n;
} dpp_prefixes[] = {
    KW_DPP("quad_perm:"), KW_DPP("row_shl:"),        KW_DPP("row_shr:"),   KW_DPP("row_ror:"),
    KW_DPP("wave_shl:"),  KW_DPP("wave_rol:"),       KW_DPP("wave_shr:"),  KW_DPP("wave_ror:"),
    KW_DPP("row_mirror"), KW_DPP("row_half_mirror"), KW_DPP("row_bcast:"), KW_DPP("row_share:"),
    KW_DPP("row_xmask:"), KW_DPP("row_newbcast:"),   KW_DPP("dpp8:"),
};
#undef KW_DPP

/* The DPP control among the operands: a pointer to its token inside ops
 * (the token ends at the next space or the end), or NULL. Every prefix
 * begins with d, q, r or w, so other tokens are skipped on their first
 * letter (comparing each token with every prefix, a strlen each, was most
 * of the classifier's time in `kwalk index`). */
static const char *find_dpp(const char *ops) {
    const char *p = ops;
    while (p && *p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, " ");
        if (*p == 'q' || *p == 'r' || *p == 'w' || *p == 'd')
            for (size_t i = 0; i < sizeof dpp_prefixes / sizeof dpp_prefixes[0]; i++)
                if (n >= dpp_prefixes[i].n && !memcmp(p, dpp_prefixes[i].s, dpp_prefixes[i].n))
                    return p;
        p += n;
    }
    return NULL;
}

static bool is_trans(const char *m) {
    static const char *const t[] = {"v_rcp_",  "v_rsq_", "v_exp_", "v_log_",
                                    "v_sqrt_", "v_sin_", "v_cos_"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (starts(m, t[i]))
            return true;
    return false;
}

static bool is_lowp_cvt(const char *m, size_t mlen) {
    if (!starts(m, "v_cvt_"))
        return false;
    static const char *const f[] = {"fp8", "bf8", "fp4", "fp6", "bf6"};
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%.*s", (int)mlen, m);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (strstr(tmp, f[i]))
            return true;
    return false;
}

static kw_co_class classify_scalar(const char *m, size_t mlen, kw_co_insn *in) {
    if (starts(m, "s_waitcnt") || starts(m, "s_wait_"))
        return KW_CO_WAITCNT;
    if (starts(m, "s_barrier"))
        return KW_CO_BARRIER;
    if (mlen == 5 && starts(m, "s_nop"))
        return KW_CO_NOP;
    if (starts(m, "s_branch") || starts(m, "s_cbranch_") || starts(m, "s_setpc_") ||
        starts(m, "s_swappc_") || starts(m, "s_call_"))
        return KW_CO_BRANCH;
    static const char *const smem[] = {"s_load_",         "s_buffer_load_",   "s_store_",
                                       "s_buffer_store_", "s_scratch_",       "s_dcache_",
                                       "s_atc_probe",     "s_memtime",        "s_memrealtime",
                                       "s_atomic_",       "s_buffer_atomic_", "s_prefetch_"};
    for (size_t i = 0; i < sizeof smem / sizeof smem[0]; i++)
        if (starts(m, smem[i])) {
            in->space = "smem";
            in->width = (uint16_t)mem_width(m, mlen, false);
            return KW_CO_SMEM;
        }
    return KW_CO_SALU;
}

static kw_co_class classify_vmem(const char *m, size_t mlen, kw_co_insn *in) {
    if (starts(m, "global_"))
        in->space = "global";
    else if (starts(m, "buffer_") || starts(m, "tbuffer_"))
        in->space = "buffer";
    else if (starts(m, "flat_"))
        in->space = "flat";
    else if (starts(m, "scratch_"))
        in->space = "scratch";
    else
        in->space = "image";
    bool atomic = has_part(m, mlen, "atomic");
    kw_co_class c;
    if (atomic)
        c = KW_CO_VMEM_ATOMIC;
    else if (has_part(m, mlen, "load") || has_part(m, mlen, "sample") ||
             has_part(m, mlen, "gather4"))
        c = KW_CO_VMEM_LOAD;
    else if (has_part(m, mlen, "store"))
        c = KW_CO_VMEM_STORE;
    else {
        in->space = NULL; /* cache control: buffer_wbl2, buffer_inv, ... */
        return KW_CO_OTHER;
    }
    if (strcmp(in->space, "image") != 0) /* image widths depend on dmask */
        in->width = (uint16_t)mem_width(m, mlen, atomic);
    return c;
}

static kw_co_class classify_lds(const char *m, size_t mlen, kw_co_insn *in) {
    in->space = "lds";
    if (starts(m, "ds_swizzle"))
        return KW_CO_LDS_SWIZZLE;
    if (starts(m, "ds_bpermute"))
        return KW_CO_LDS_BPERMUTE;
    if (starts(m, "ds_permute"))
        return KW_CO_LDS_PERMUTE;
    in->width = (uint16_t)mem_width(m, mlen, false);
    return KW_CO_LDS;
}

void kw_co_classify(const char *text, kw_co_insn *in) {
    in->klass = KW_CO_OTHER;
    in->width = 0;
    in->space = NULL;
    in->dpp = NULL;
    in->flags &= (uint8_t) ~(KW_CO_INSN_DPP | KW_CO_INSN_SDWA);
    if (!text)
        return;
    const char *m = text;
    size_t mlen = strcspn(m, " ");
    const char *ops = m + mlen;
    kw_co_class c = KW_CO_OTHER;
    if (starts(m, "s_"))
        c = classify_scalar(m, mlen, in);
    else if (starts(m, "v_")) {
        if (starts(m, "v_pk_"))
            c = KW_CO_VALU_PACKED;
        else if (starts(m, "v_mfma_"))
            c = KW_CO_MFMA;
        else if (starts(m, "v_smfmac_"))
            c = KW_CO_SMFMAC;
        else if (starts(m, "v_wmma_") || starts(m, "v_swmmac_"))
            c = KW_CO_WMMA;
        else if (starts(m, "v_readlane_"))
            c = KW_CO_READLANE;
        else if (starts(m, "v_writelane_"))
            c = KW_CO_WRITELANE;
        else if (starts(m, "v_readfirstlane_"))
            c = KW_CO_READFIRSTLANE;
        else if (starts(m, "v_permlane"))
            c = KW_CO_PERMLANE;
        else if (is_trans(m))
            c = KW_CO_VALU_TRANS;
        else if (is_lowp_cvt(m, mlen))
            c = KW_CO_CVT_LOWP;
        else
            c = KW_CO_VALU;
        if (mlen > 5 && memcmp(m + mlen - 5, "_sdwa", 5) == 0)
            in->flags |= KW_CO_INSN_SDWA;
    } else if (starts(m, "global_") || starts(m, "buffer_") || starts(m, "tbuffer_") ||
               starts(m, "flat_") || starts(m, "scratch_") || starts(m, "image_"))
        c = classify_vmem(m, mlen, in);
    else if (starts(m, "ds_"))
        c = classify_lds(m, mlen, in);
    in->klass = (uint8_t)c;
    if (starts(m, "v_"))
        in->dpp = find_dpp(ops);
    if (in->dpp)
        in->flags |= KW_CO_INSN_DPP;
}
