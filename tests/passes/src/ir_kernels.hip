// ir_kernels.hip: kernels for the IR-analysis tests (tests/passes/), covering what
// the corpus (tests/corpus) does not: deliberately strided and symbolic-stride
// accesses, LDS bank conflicts with and without padding, buffer intrinsics,
// atomics, loops whose trip counts are kernel parameters or blockDim,
// ds_swizzle / bpermute (__shfl_xor) / DPP quad_perm and row_newbcast
// reductions, readfirstlane broadcasts, inline asm. The `// KWIR:<KIND> <id>`
// comments mark the lines the tests look for; the tests derive every expected
// value from this source (constants, strides, types), never from the tool.
#include <hip/hip_runtime.h>

#include <cstdint>

namespace kwir {

// Strided reads. Lane t reads in[t * 3] (a constant 12-byte lane stride) and
// col[t * ld] (a column: lane stride ld * 4 bytes), and writes out[t].
__global__ void __launch_bounds__(64)
strided_kernel(const float* __restrict__ in, const float* __restrict__ col, float* __restrict__ out,
               int ld) {
  const int t = threadIdx.x;
  const float a = in[t * 3];    // KWIR:ACCESS strided.const3
  const float b = col[t * ld];  // KWIR:ACCESS strided.column
  out[blockIdx.x * 64 + t] = a + b;  // KWIR:ACCESS strided.out
}

// LDS: a column of a 64x32 float tile (lane stride 128 bytes: every lane of a
// 32-lane pass in one bank) against the same column of a 64x33 tile (lane
// stride 132 bytes: 32 different banks), and a row read (stride 4).
__global__ void __launch_bounds__(64) lds_kernel(float* __restrict__ out) {
  __shared__ float tile[64][32];
  __shared__ float padded[64][33];
  const int t = threadIdx.x;
  tile[t][0] = static_cast<float>(t);    // KWIR:ACCESS lds.tile_column
  padded[t][0] = static_cast<float>(t);  // KWIR:ACCESS lds.padded_column
  __syncthreads();                       // KWIR:BARRIER lds.sync
  out[t] = tile[0][t] + padded[t][0];    // KWIR:ACCESS lds.row_and_column
}

// Buffer intrinsics: a 16-byte raw buffer load per lane at voffset t*16 from a
// resource over `src + blockIdx.x * ld` (ld in floats), a 4-byte store, and a
// global atomic.
__global__ void __launch_bounds__(64)
buffer_kernel(const float* __restrict__ src, float* __restrict__ dst, float* __restrict__ total,
              int ld, int n) {
  const int t = threadIdx.x;
  __amdgpu_buffer_rsrc_t in = __builtin_amdgcn_make_buffer_rsrc(
      const_cast<float*>(src) + blockIdx.x * ld, 0, n * 4, 0x00020000);
  __amdgpu_buffer_rsrc_t out = __builtin_amdgcn_make_buffer_rsrc(dst, 0, n * 4, 0x00020000);
  using v4 = float __attribute__((ext_vector_type(4)));
  const v4 x = __builtin_bit_cast(v4, __builtin_amdgcn_raw_buffer_load_b128(in, t * 16, 0, 0));  // KWIR:ACCESS buffer.load
  const float s = x.x + x.y + x.z + x.w;
  __builtin_amdgcn_raw_buffer_store_b32(__builtin_bit_cast(uint32_t, s), out, t * 4, 0, 0);  // KWIR:ACCESS buffer.store
  atomicAdd(total, s);  // KWIR:ACCESS buffer.atomic
}

// Loops: a row loop with a parameter trip count (`rows`), a grid-stride-like
// loop over `n` stepping by blockDim.x, and a nested loop (rows x cols).
__global__ void loops_kernel(const float* __restrict__ a, float* __restrict__ out, int rows,
                             int cols, int n) {
  const int t = threadIdx.x;
  float acc = 0.f;
#pragma nounroll
  for (int r = 0; r < rows; ++r)  // KWIR:LOOP loops.rows
    acc += a[r * cols + t];
#pragma nounroll
  for (int i = t; i < n; i += blockDim.x)  // KWIR:LOOP loops.blockdim
    acc += a[i];
#pragma nounroll
  for (int r = 0; r < rows; ++r)  // KWIR:LOOP loops.outer
#pragma nounroll
    for (int c = 0; c < cols; ++c)  // KWIR:LOOP loops.inner
      acc += a[r * cols + c] * 2.f;
  out[t] = acc;
}

// Cross-lane: a butterfly sum over __shfl_xor (ds_bpermute, lane ^ 32 .. 1);
// a quad sum from a ds_swizzle SWAP,1 (lane ^ 1) and a DPP quad_perm:[2,3,0,1]
// (lane ^ 2); a row sum from DPP row_ror:8/4/2/1; a row_newbcast:3 that is
// stored, not combined; a readfirstlane broadcast.
__global__ void __launch_bounds__(64) xlane_kernel(const float* __restrict__ in, float* __restrict__ out) {
  const int t = threadIdx.x;
  float v = in[t];
  for (int m = 32; m >= 1; m >>= 1)
    v += __shfl_xor(v, m);  // KWIR:XLANE xlane.butterfly
  out[t] = v;
  int w = static_cast<int>(in[64 + t]);
  w = w + __builtin_amdgcn_ds_swizzle(w, 0x041f);              // KWIR:XLANE xlane.swizzle
  w = w + __builtin_amdgcn_mov_dpp(w, 0x4e, 0xf, 0xf, false);  // KWIR:XLANE xlane.quad_perm
  out[64 + t] = static_cast<float>(w);
  int r = static_cast<int>(in[128 + t]);
  r = r + __builtin_amdgcn_update_dpp(0, r, 0x128, 0xf, 0xf, false);  // KWIR:XLANE xlane.row_ror8
  r = r + __builtin_amdgcn_update_dpp(0, r, 0x124, 0xf, 0xf, false);  // KWIR:XLANE xlane.row_ror4
  r = r + __builtin_amdgcn_update_dpp(0, r, 0x122, 0xf, 0xf, false);  // KWIR:XLANE xlane.row_ror2
  r = r + __builtin_amdgcn_update_dpp(0, r, 0x121, 0xf, 0xf, false);  // KWIR:XLANE xlane.row_ror1
  out[128 + t] = static_cast<float>(r);
  out[192 + t] = static_cast<float>(__builtin_amdgcn_update_dpp(0, r, 0x153, 0xf, 0xf, false));  // KWIR:XLANE xlane.newbcast
  const int u = __builtin_amdgcn_readfirstlane(static_cast<int>(in[256 + t]));  // KWIR:XLANE xlane.readfirstlane
  out[256 + t] = static_cast<float>(u);
}

// Inline asm that survives to IR, with a mnemonic whose work is not known.
__global__ void __launch_bounds__(64) asm_kernel(float* __restrict__ out) {
  float x = out[threadIdx.x];
  asm volatile("v_fma_f32 %0, %0, %0, 1.0" : "+v"(x));  // KWIR:ASM asm.fma
  asm volatile("s_sleep 1");                             // KWIR:ASM asm.sleep
  out[threadIdx.x] = x;
}

}  // namespace kwir
