// kw_asm_scale_relu.s: a hand-written gfx942 kernel, y[i] = max(x[i] * scale,
// 0) for i < n: kw_asm_scale.s with one more instruction, assembled and linked
// the same way into ${KWALK_CORPUS_DIR}/hsa/gfx942/kw_asm_scale_relu.co
// (tests/corpus/CMakeLists.txt). Its arguments are the same packed struct
// ScaleAsmArgs (out, in, scale, n; 24 bytes); 256 work-items per workgroup.
// The host side is tests/corpus/asm_table_kernels.hip, which picks this
// kernel or kw_asm_scale from the table of include/kw_asm_configs.h.
// (The argument name n is tagged !str: see kw_asm_scale.s.)
  .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
  .text

  .globl kw_asm_scale_relu
  .p2align 8
  .type kw_asm_scale_relu,@function
kw_asm_scale_relu:
  s_load_dwordx4 s[4:7], s[0:1], 0x0      // s[4:5] = out, s[6:7] = in
  s_load_dwordx2 s[8:9], s[0:1], 0x10     // s8 = scale, s9 = n
  v_and_b32_e32 v0, 0x3ff, v0             // work-item id x
  s_lshl_b32 s3, s2, 8                    // workgroup id x * 256
  v_add_u32_e32 v1, s3, v0                // i
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_i32_e32 vcc, s9, v1            // i < n
  s_and_saveexec_b64 s[10:11], vcc
  s_cbranch_execz .Lrelu_done
  v_lshlrev_b32_e32 v1, 2, v1             // byte offset i * 4
  global_load_dword v2, v1, s[6:7]        // x[i]
  s_waitcnt vmcnt(0)
  v_mul_f32_e32 v2, s8, v2                // x[i] * scale
  v_max_f32_e32 v2, 0, v2                 // max(x[i] * scale, 0)
  global_store_dword v1, v2, s[4:5]       // y[i]
.Lrelu_done:
  s_endpgm
.Lrelu_end:
  .size kw_asm_scale_relu, .Lrelu_end-kw_asm_scale_relu

  .rodata
  .p2align 6
  .amdhsa_kernel kw_asm_scale_relu
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_kernarg_size 24
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_group_segment_fixed_size 0
    .amdhsa_private_segment_fixed_size 0
    .amdhsa_next_free_vgpr 3
    .amdhsa_next_free_sgpr 12
    .amdhsa_accum_offset 4
  .end_amdhsa_kernel

  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.kernels:
  - .name: kw_asm_scale_relu
    .symbol: kw_asm_scale_relu.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 18
    .vgpr_count: 3
    .agpr_count: 0
    .sgpr_spill_count: 0
    .vgpr_spill_count: 0
    .max_flat_workgroup_size: 256
    .uses_dynamic_stack: false
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: in, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global, .is_const: true }
      - { .name: scale, .offset: 16, .size: 4, .value_kind: by_value }
      - { .name: !str n, .offset: 20, .size: 4, .value_kind: by_value }
...
  .end_amdgpu_metadata
