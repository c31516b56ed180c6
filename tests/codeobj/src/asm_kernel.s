// asm_kernel.s: two hand-written gfx942 kernels, assembled the way aiter's
// ASM kernels (hsa/gfx942/**/*.co) are built: clang -x assembler -target
// amdgcn-amd-amdhsa -mcpu=gfx942. asm_reduce is described by the metadata
// note; asm_bare has a kernel descriptor only, as some hand-built code
// objects do, and must still be listed. The argument name n is tagged !str:
// LLVM 19's YAML reader takes a bare n for the boolean false ("invalid HSA
// metadata"); 22 reads a string either way, and the code object is the same.
// reduce_loop is a label kept in the symbol table, as aiter's label_XXXX are:
// llvm-objdump prints the backward branch to it by name.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
  .text

  .globl asm_reduce
  .p2align 8
  .type asm_reduce,@function
asm_reduce:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_load_dword s4, s[0:1], 0x8
  v_lshlrev_b32_e32 v1, 2, v0
  s_mov_b32 s5, 0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[2:3]
  s_waitcnt vmcnt(0)
reduce_loop:
  s_nop 1
  v_mov_b32_dpp v3, v2 row_shr:1 row_mask:0xf bank_mask:0xf
  s_nop 1
  v_add_f32_dpp v2, v2, v3 row_bcast:15 row_mask:0xa bank_mask:0xf
  v_pk_add_f32 v[2:3], v[2:3], v[2:3]
  s_add_u32 s5, s5, 1
  s_cmp_lt_u32 s5, s4
  s_cbranch_scc1 reduce_loop
  ds_swizzle_b32 v3, v2 offset:swizzle(SWAP,16)
  s_waitcnt lgkmcnt(0)
  v_readlane_b32 s6, v3, 63
  v_mov_b32_e32 v2, s6
  s_barrier
  global_store_dword v1, v2, s[2:3]
  s_endpgm
.Lreduce_end:
  .size asm_reduce, .Lreduce_end-asm_reduce

  .globl asm_bare
  .p2align 8
  .type asm_bare,@function
asm_bare:
  v_exp_f32_e32 v0, v0
  s_branch .Lbare_out
  v_rcp_f32_e32 v0, v0
.Lbare_out:
  s_endpgm
.Lbare_end:
  .size asm_bare, .Lbare_end-asm_bare

  .rodata
  .p2align 6
  .amdhsa_kernel asm_reduce
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_group_segment_fixed_size 1024
    .amdhsa_next_free_vgpr 4
    .amdhsa_next_free_sgpr 7
    .amdhsa_accum_offset 4
  .end_amdhsa_kernel

  .p2align 6
  .amdhsa_kernel asm_bare
    .amdhsa_next_free_vgpr 1
    .amdhsa_next_free_sgpr 1
    .amdhsa_accum_offset 4
  .end_amdhsa_kernel

  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.kernels:
  - .name: asm_reduce
    .symbol: asm_reduce.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 13
    .vgpr_count: 4
    .agpr_count: 0
    .sgpr_spill_count: 0
    .vgpr_spill_count: 0
    .max_flat_workgroup_size: 256
    .uses_dynamic_stack: false
    .args:
      - { .name: data, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: !str n, .offset: 8, .size: 4, .value_kind: by_value }
...
  .end_amdgpu_metadata
