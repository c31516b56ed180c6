// kw_asm_scale.s: a hand-written gfx942 kernel, y[i] = x[i] * scale for
// i < n, built the way aiter's precompiled ASM kernels (hsa/gfx942/**/*.co)
// are: clang -x assembler -target amdgcn-amd-amdhsa -mcpu=gfx942 -c, then
// ld.lld -shared (tests/corpus/CMakeLists.txt makes
// ${KWALK_CORPUS_DIR}/hsa/gfx942/kw_asm_scale.co). The host side that loads
// and launches it is tests/corpus/asm_kernels.hip; the kernel arguments are
// its packed struct ScaleAsmArgs:
//   offset  0  void*       out    (y)
//   offset  8  const void* in     (x)
//   offset 16  float       scale
//   offset 20  int         n
// One work-item per element, 256 work-items per workgroup, grid
// (n + 255) / 256 workgroups.
//
// Registers at entry: s[0:1] kernarg segment pointer (user SGPRs), s2
// workgroup id x (system SGPR), v0 work-item ids (packed on gfx942: x in bits
// 0-9).
// The argument name n is tagged !str in the metadata: LLVM 19's YAML reader
// takes n, bare or quoted, for the boolean false ("invalid HSA metadata"); 22
// reads a string either way, and the code object is the same.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
  .text

  .globl kw_asm_scale
  .p2align 8
  .type kw_asm_scale,@function
kw_asm_scale:
  s_load_dwordx4 s[4:7], s[0:1], 0x0      // s[4:5] = out, s[6:7] = in
  s_load_dwordx2 s[8:9], s[0:1], 0x10     // s8 = scale, s9 = n
  v_and_b32_e32 v0, 0x3ff, v0             // work-item id x
  s_lshl_b32 s3, s2, 8                    // workgroup id x * 256
  v_add_u32_e32 v1, s3, v0                // i
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_i32_e32 vcc, s9, v1            // i < n
  s_and_saveexec_b64 s[10:11], vcc
  s_cbranch_execz .Lscale_done
  v_lshlrev_b32_e32 v1, 2, v1             // byte offset i * 4
  global_load_dword v2, v1, s[6:7]        // x[i]
  s_waitcnt vmcnt(0)
  v_mul_f32_e32 v2, s8, v2                // x[i] * scale
  global_store_dword v1, v2, s[4:5]       // y[i]
.Lscale_done:
  s_endpgm
.Lscale_end:
  .size kw_asm_scale, .Lscale_end-kw_asm_scale

  .rodata
  .p2align 6
  .amdhsa_kernel kw_asm_scale
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
  - .name: kw_asm_scale
    .symbol: kw_asm_scale.kd
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
