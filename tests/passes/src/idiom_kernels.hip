// idiom_kernels.hip: kernels in the style of aiter's normalization kernels
// for the IR-idiom checks (check_idioms.py): block reductions through LDS
// (a halving-stride tree over a runtime block size, the same tree unrolled
// for a fixed block of 256, a wave reduction whose per-wave partials are
// exchanged through LDS), loops bounded by kernel arguments, and element
// conversions. Markers: `// KWIR:TREE <id> <op>`, `// KWIR:LOOP <id>`,
// `// KWIR:CVT <id> <elements per thread>`; the checks read the loops'
// bounds, the LDS arrays and the conversion widths from this text.
#include <hip/hip_runtime.h>

typedef float f32x8 __attribute__((ext_vector_type(8)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float f32x2 __attribute__((ext_vector_type(2)));

// Row sums: a block-stride accumulation, then a tree over LDS whose stride
// halves from blockDim.x / 2 down to 1, a barrier after every step.
__global__ void tree_sum_kernel(const float* __restrict__ in, float* __restrict__ out,
                                int hidden) {
  __shared__ float part[1024];
  const int t = threadIdx.x;
  float acc = 0.f;
  for (int i = t; i < hidden; i += blockDim.x)  // KWIR:LOOP tree.accumulate
    acc += in[blockIdx.x * hidden + i];
  part[t] = acc;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {  // KWIR:TREE tree.loop add
    if (t < s)
      part[t] = part[t] + part[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = part[0];
}

// Row maxima for a block of exactly 256 threads: the same tree, unrolled.
__global__ void __attribute__((amdgpu_flat_work_group_size(256, 256)))
tree_max_fixed_kernel(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float part[256];
  const int t = threadIdx.x;
  part[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
#pragma unroll
  for (int s = 128; s > 0; s >>= 1) {  // KWIR:TREE tree.unrolled max
    if (t < s)
      part[t] = fmaxf(part[t], part[t + s]);
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = part[0];
}

// A wave-wide butterfly sum, one partial per wave through LDS, then each
// group of 4 lanes combines the 4 partials (blocks of 256 threads).
__global__ void __launch_bounds__(256) wave_lds_sum_kernel(const float* __restrict__ in,
                                                           float* __restrict__ out) {
  __shared__ float partials[4];
  const int t = threadIdx.x;
  const int lane = t % 64;
  float v = in[blockIdx.x * 256 + t];
  for (int m = 32; m > 0; m >>= 1)
    v += __shfl_xor(v, m);
  if (lane == 0)
    partials[t / 64] = v;
  __syncthreads();
  float w = partials[lane % 4];  // KWIR:BLOCK block.partials add
  w += __shfl_xor(w, 1);
  w += __shfl_xor(w, 2);
  if (t == 0)
    out[blockIdx.x] = w;
}

// Loops bounded by kernel arguments: vectors of 8 from a start past the
// first 4 block-widths (as a register-cached prologue leaves it), and a row
// loop over half the rows.
__global__ void bounded_loops_kernel(const f32x8* __restrict__ in, float* __restrict__ out,
                                     int rows, int hidden) {
  const int lane = threadIdx.x;
  const int tpr = blockDim.x;
  float acc = 0.f;
#pragma nounroll
  for (int idx = lane + 4 * tpr; idx < hidden / 8; idx += tpr)  // KWIR:LOOP bounded.vec
    acc += in[idx][0] + in[idx][7];
#pragma nounroll
  for (int r = 0; r < rows / 2; ++r)  // KWIR:LOOP bounded.rows
    acc += out[r * 2];
  out[blockIdx.x * 1024 + lane] = acc;
}

// The same vector loop with the block fixed at 256 threads.
__global__ void __attribute__((amdgpu_flat_work_group_size(256, 256)))
bounded_fixed_kernel(const f32x8* __restrict__ in, float* __restrict__ out, int hidden) {
  const int lane = threadIdx.x;
  float acc = 0.f;
#pragma nounroll
  for (int idx = lane + 4 * 256; idx < hidden / 8; idx += 256)  // KWIR:LOOP fixed.vec
    acc += in[idx][0];
  out[blockIdx.x * 256 + lane] = acc;
}

// Conversions: 8 floats to 8 bf16 in one vector conversion, and a packed
// pair of fp8 values to 2 floats through the hardware conversion builtin.
__global__ void convert_kernel(const f32x8* __restrict__ in, bf16x8* __restrict__ out,
                               const unsigned* __restrict__ q, f32x2* __restrict__ deq) {
  const int t = threadIdx.x;
  out[t] = __builtin_convertvector(in[t], bf16x8);      // KWIR:CVT cvt.bf16x8 8
  deq[t] = __builtin_amdgcn_cvt_pk_f32_fp8(q[t], false);  // KWIR:CVT cvt.fp8x2 2
}
