/* test_classify.c: kw_co_classify on instruction texts written out by hand
 * (as llvm-objdump prints them for gfx942/gfx950): class, access width,
 * memory space, DPP control. The expected values come from the ISA manuals'
 * definitions of each instruction, not from the classifier. */
#include <stdio.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"

typedef struct want {
    const char *text;
    kw_co_class klass;
    unsigned width;
    const char *space;
    const char *dpp;
} want;

static const want cases[] = {
    {"s_load_dwordx4 s[0:3], s[0:1], 0x0", KW_CO_SMEM, 16, "smem", NULL},
    {"s_load_dword s3, s[0:1], 0x10", KW_CO_SMEM, 4, "smem", NULL},
    {"s_buffer_load_dwordx2 s[4:5], s[0:3], 0x0", KW_CO_SMEM, 8, "smem", NULL},
    {"s_add_u32 s5, s5, 1", KW_CO_SALU, 0, NULL, NULL},
    {"s_endpgm", KW_CO_SALU, 0, NULL, NULL},
    {"s_waitcnt vmcnt(0) lgkmcnt(0)", KW_CO_WAITCNT, 0, NULL, NULL},
    {"s_barrier", KW_CO_BARRIER, 0, NULL, NULL},
    {"s_nop 1", KW_CO_NOP, 0, NULL, NULL},
    {"s_cbranch_execz 20", KW_CO_BRANCH, 0, NULL, NULL},
    {"s_branch 65533", KW_CO_BRANCH, 0, NULL, NULL},
    {"s_setpc_b64 s[30:31]", KW_CO_BRANCH, 0, NULL, NULL},
    {"v_add_f32_e32 v2, v3, v2", KW_CO_VALU, 0, NULL, NULL},
    {"v_pk_fma_f32 v[8:9], v[0:1], v[4:5], v[0:1]", KW_CO_VALU_PACKED, 0, NULL, NULL},
    {"v_pk_mul_f32 v[0:1], v[2:3], v[4:5]", KW_CO_VALU_PACKED, 0, NULL, NULL},
    {"v_rcp_f32_e32 v2, v2", KW_CO_VALU_TRANS, 0, NULL, NULL},
    {"v_rsq_f32_e32 v5, v4", KW_CO_VALU_TRANS, 0, NULL, NULL},
    {"v_exp_f32_e32 v6, v4", KW_CO_VALU_TRANS, 0, NULL, NULL},
    {"v_log_f32_e32 v7, v4", KW_CO_VALU_TRANS, 0, NULL, NULL},
    {"v_sqrt_f32_e32 v8, v4", KW_CO_VALU_TRANS, 0, NULL, NULL},
    {"v_cvt_pk_fp8_f32 v11, v8, v9", KW_CO_CVT_LOWP, 0, NULL, NULL},
    {"v_cvt_f32_bf8_sdwa v4, v11 src0_sel:BYTE_2", KW_CO_CVT_LOWP, 0, NULL, NULL},
    {"v_cvt_scalef32_pk_fp4_f32 v0, v1, v2, v3", KW_CO_CVT_LOWP, 0, NULL, NULL},
    {"v_cvt_f32_f16_e32 v0, v1", KW_CO_VALU, 0, NULL, NULL},
    {"v_mfma_f32_16x16x16_f16 v[0:3], v[6:7], v[6:7], v[0:3]", KW_CO_MFMA, 0, NULL, NULL},
    {"v_mfma_f32_32x32x64_f8f6f4 a[0:15], v[0:7], v[8:15], a[0:15]", KW_CO_MFMA, 0, NULL, NULL},
    {"v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10", KW_CO_SMFMAC, 0, NULL, NULL},
    {"v_readlane_b32 s0, v5, 3", KW_CO_READLANE, 0, NULL, NULL},
    {"v_writelane_b32 v5, s0, 5", KW_CO_WRITELANE, 0, NULL, NULL},
    {"v_readfirstlane_b32 s0, v5", KW_CO_READFIRSTLANE, 0, NULL, NULL},
    {"v_permlane32_swap_b32_e32 v7, v6", KW_CO_PERMLANE, 0, NULL, NULL},
    {"v_mov_b32_dpp v9, v4 row_shr:1 row_mask:0xf bank_mask:0xf", KW_CO_VALU, 0, NULL, "row_shr:1"},
    {"v_add_u32_dpp v5, v9, v9 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1",
     KW_CO_VALU, 0, NULL, "quad_perm:[3,2,1,0]"},
    {"v_add_u32_dpp v5, v5, v5 row_bcast:15 row_mask:0xa bank_mask:0xf", KW_CO_VALU, 0, NULL,
     "row_bcast:15"},
    {"v_add_u32_dpp v5, v5, v5 row_bcast:31 row_mask:0xc bank_mask:0xf", KW_CO_VALU, 0, NULL,
     "row_bcast:31"},
    {"v_add_u32_dpp v5, v5, v5 wave_shr:1 row_mask:0xf bank_mask:0xf", KW_CO_VALU, 0, NULL,
     "wave_shr:1"},
    {"v_add_u32_dpp v5, v5, v5 row_mirror row_mask:0xf bank_mask:0xf", KW_CO_VALU, 0, NULL,
     "row_mirror"},
    {"v_add_f32_dpp v2, v2, v3 row_half_mirror row_mask:0xf bank_mask:0xf", KW_CO_VALU, 0, NULL,
     "row_half_mirror"},
    {"v_mov_b32_dpp v0, v1 row_ror:8 row_mask:0xf bank_mask:0xf", KW_CO_VALU, 0, NULL, "row_ror:8"},
    {"v_mov_b32_dpp v0, v1 row_shl:4 row_mask:0xf bank_mask:0xf", KW_CO_VALU, 0, NULL, "row_shl:4"},
    {"global_load_dword v2, v[2:3], off", KW_CO_VMEM_LOAD, 4, "global", NULL},
    {"global_load_dwordx4 v[0:3], v0, s[2:3]", KW_CO_VMEM_LOAD, 16, "global", NULL},
    {"global_load_ubyte v1, v0, s[0:1]", KW_CO_VMEM_LOAD, 1, "global", NULL},
    {"global_load_short_d16_hi v1, v0, s[0:1]", KW_CO_VMEM_LOAD, 2, "global", NULL},
    {"global_load_lds_dwordx4 v0, s[0:1]", KW_CO_VMEM_LOAD, 16, "global", NULL},
    {"global_store_dword v[0:1], v2, off", KW_CO_VMEM_STORE, 4, "global", NULL},
    {"global_store_byte v0, v1, s[0:1]", KW_CO_VMEM_STORE, 1, "global", NULL},
    {"global_atomic_add_f32 v0, v1, s[0:1]", KW_CO_VMEM_ATOMIC, 4, "global", NULL},
    {"global_atomic_pk_add_f16 v0, v1, s[0:1]", KW_CO_VMEM_ATOMIC, 4, "global", NULL},
    {"global_atomic_cmpswap_x2 v[0:1], v[2:5], off", KW_CO_VMEM_ATOMIC, 8, "global", NULL},
    {"buffer_load_dword v1, v0, s[4:7], 0 offen", KW_CO_VMEM_LOAD, 4, "buffer", NULL},
    {"buffer_load_format_xyzw v[0:3], v4, s[0:3], 0 idxen", KW_CO_VMEM_LOAD, 16, "buffer", NULL},
    {"buffer_load_format_d16_xy v0, v4, s[0:3], 0 idxen", KW_CO_VMEM_LOAD, 4, "buffer", NULL},
    {"buffer_store_dwordx2 v[0:1], v2, s[4:7], 0 offen", KW_CO_VMEM_STORE, 8, "buffer", NULL},
    {"buffer_wbl2 sc0 sc1", KW_CO_OTHER, 0, NULL, NULL},
    {"flat_store_dword v[0:1], v2", KW_CO_VMEM_STORE, 4, "flat", NULL},
    {"flat_load_dwordx2 v[0:1], v[2:3]", KW_CO_VMEM_LOAD, 8, "flat", NULL},
    {"scratch_store_dwordx4 off, v[0:3], s0", KW_CO_VMEM_STORE, 16, "scratch", NULL},
    {"scratch_load_dword v0, off, s0 offset:16", KW_CO_VMEM_LOAD, 4, "scratch", NULL},
    {"ds_read_b128 v[0:3], v4", KW_CO_LDS, 16, "lds", NULL},
    {"ds_write_b32 v0, v1", KW_CO_LDS, 4, "lds", NULL},
    {"ds_read2_b32 v[0:1], v2 offset1:1", KW_CO_LDS, 8, "lds", NULL},
    {"ds_write2st64_b64 v0, v[2:3], v[4:5] offset1:1", KW_CO_LDS, 16, "lds", NULL},
    {"ds_read_u16_d16_hi v0, v1", KW_CO_LDS, 2, "lds", NULL},
    {"ds_add_u32 v0, v1", KW_CO_LDS, 4, "lds", NULL},
    {"ds_swizzle_b32 v6, v5 offset:swizzle(BITMASK_PERM,\"ppppp\")", KW_CO_LDS_SWIZZLE, 0, "lds",
     NULL},
    {"ds_bpermute_b32 v6, v10, v5", KW_CO_LDS_BPERMUTE, 0, "lds", NULL},
    {"ds_permute_b32 v6, v10, v5", KW_CO_LDS_PERMUTE, 0, "lds", NULL},
    {".long 0xffffffff", KW_CO_OTHER, 0, NULL, NULL},
};

static bool same(const char *a, const char *b, size_t blen) {
    if (!a || !b)
        return a == b;
    return strlen(b) == blen && strncmp(a, b, blen) == 0;
}

int main(void) {
    int fails = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const want *w = &cases[i];
        kw_co_insn in;
        memset(&in, 0, sizeof in);
        kw_co_classify(w->text, &in);
        size_t dlen = in.dpp ? strcspn(in.dpp, " ") : 0;
        bool ok = in.klass == w->klass && in.width == w->width &&
                  (w->space ? in.space && strcmp(in.space, w->space) == 0 : !in.space) &&
                  (w->dpp ? same(in.dpp, w->dpp, dlen) && (in.flags & KW_CO_INSN_DPP)
                          : !in.dpp && !(in.flags & KW_CO_INSN_DPP));
        if (!ok) {
            printf("FAIL %s: class %s width %u space %s dpp %.*s\n", w->text,
                   kw_co_class_name((kw_co_class)in.klass), in.width, in.space ? in.space : "-",
                   (int)dlen, in.dpp ? in.dpp : "-");
            fails++;
        }
    }
    kw_co_insn sd;
    memset(&sd, 0, sizeof sd);
    kw_co_classify("v_cvt_f32_fp8_sdwa v4, v11 src0_sel:BYTE_1", &sd);
    if (!(sd.flags & KW_CO_INSN_SDWA)) {
        printf("FAIL sdwa flag\n");
        fails++;
    }
    printf("classify: %zu cases, %d failures\n", sizeof cases / sizeof cases[0], fails);
    return fails ? 1 : 0;
}
