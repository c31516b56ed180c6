// rmsnorm_quant_kernels.hip: fused residual add + RMSNorm + per-row
// quantization (int8 or fp8), one block per row. Part of the kwalk test
// corpus: the // KW:... comments mark the lines tests look for.
#include "kw_hip_common.h"
#include "kw_opus.h"
#include "kw_reduce.h"
#include "kw_ops.h"

namespace kw {

using float2_t = float __attribute__((ext_vector_type(2)));

// Packed 2 x fp32 multiply: one v_pk_mul_f32 on gfx942 / gfx950.
__device__ __forceinline__ float2_t pk_mul_f32(float2_t a, float2_t b) {
#if defined(__gfx942__) || defined(__gfx950__)
  float2_t c;
  asm volatile("v_pk_mul_f32 %0, %1, %2" : "=v"(c) : "v"(a), "v"(b));  // KW:ASM rmsnorm.pk_mul_f32
  return c;
#else
  return a * b;
#endif
}

/// Fused `residual_out = input + residual_in`, RMSNorm of that sum scaled by
/// `weight`, and quantization of the normalized row to DTYPE_O with one scale
/// per row (`row_scale[row] = max|y| / quant_max`, so `y ~= out * row_scale`).
///
/// One block per row. Thread t owns the contiguous elements
/// [t * thread_data_size, (t + 1) * thread_data_size) of its row, read with
/// kVecBytes-wide vector loads, and keeps them in registers across the two
/// block reductions (sum of squares, then absolute maximum).
/// Requires hidden <= BlockSize * thread_data_size and hidden a multiple of
/// kVecBytes / sizeof(DTYPE_I).
template <typename DTYPE_I, typename DTYPE_O, int BlockSize, int thread_data_size,
          int kVecBytes = 16>
__global__ void __launch_bounds__(BlockSize)
add_rmsnorm_quant_kernel(  // KW:KERNEL rmsnorm.add_rmsnorm_quant_kernel
    DTYPE_O* __restrict__ out, float* __restrict__ row_scale, DTYPE_I* __restrict__ residual_out,
    const DTYPE_I* __restrict__ input, const DTYPE_I* __restrict__ residual_in,
    const DTYPE_I* __restrict__ weight, float epsilon, int hidden, int64_t in_stride,
    int64_t out_stride) {
  constexpr int kVecElems = kVecBytes / static_cast<int>(sizeof(DTYPE_I));
  static_assert(thread_data_size % kVecElems == 0, "whole vectors per thread");
  static_assert(thread_data_size % 2 == 0, "pairs for v_pk_mul_f32");
  constexpr int kVecs = thread_data_size / kVecElems;

  const int64_t row = blockIdx.x;
  const int first = threadIdx.x * thread_data_size;
  const DTYPE_I* in_row = input + row * in_stride;
  const DTYPE_I* res_row = residual_in + row * in_stride;
  DTYPE_I* res_out_row = residual_out + row * in_stride;

  // 1. x = input + residual, written back as the new residual; sum of squares
  float x[thread_data_size];
  float sum_sq = 0.f;
#pragma unroll
  for (int v = 0; v < kVecs; ++v) {
    const int col = first + v * kVecElems;
    if (col < hidden) {
      const auto a = opus::load_vector_nbytes<DTYPE_I, kVecElems, kVecBytes>(in_row, col);
      const auto r = opus::load_vector_nbytes<DTYPE_I, kVecElems, kVecBytes>(res_row, col);
#pragma unroll
      for (int j = 0; j < kVecElems; ++j) {
        const float s = to_float(a[j]) + to_float(r[j]);
        x[v * kVecElems + j] = s;
        sum_sq += s * s;
      }
      opus::store_vector<DTYPE_I, float, kVecElems>(res_out_row, &x[v * kVecElems], col);
    } else {
#pragma unroll
      for (int j = 0; j < kVecElems; ++j) x[v * kVecElems + j] = 0.f;
    }
  }

  // 2. RMS over the row
  const float total = block_reduce<float, SumOp<float>, BlockSize>(sum_sq, SumOp<float>{});
  const float inv_rms = rsqrtf(total / static_cast<float>(hidden) + epsilon);

  // 3. y = x * inv_rms * weight (packed multiplies); row absolute maximum
  float amax = 0.f;
#pragma unroll
  for (int v = 0; v < kVecs; ++v) {
    const int col = first + v * kVecElems;
    if (col < hidden) {
      const auto w = opus::load_vector_nbytes<DTYPE_I, kVecElems, kVecBytes>(weight, col);
#pragma unroll
      for (int j = 0; j < kVecElems; j += 2) {
        const float2_t xy = {x[v * kVecElems + j], x[v * kVecElems + j + 1]};
        const float2_t g = {inv_rms * to_float(w[j]), inv_rms * to_float(w[j + 1])};
        const float2_t y = pk_mul_f32(xy, g);
        x[v * kVecElems + j] = y.x;
        x[v * kVecElems + j + 1] = y.y;
        amax = fmaxf(fmaxf(amax, fabsf(y.x)), fabsf(y.y));
      }
    }
  }

  // 4. per-row scale, quantized store
  const float row_max = block_reduce<float, MaxOp<float>, BlockSize>(amax, MaxOp<float>{});
  const float scale = row_max / opus::quant_traits<DTYPE_O>::kMax;
  const float inv_scale = scale > 0.f ? 1.f / scale : 0.f;
  if (threadIdx.x == 0) row_scale[row] = scale;
  DTYPE_O* out_row = out + row * out_stride;
#pragma unroll
  for (int v = 0; v < kVecs; ++v) {
    const int col = first + v * kVecElems;
    if (col < hidden) {
      opus::store_vector<DTYPE_O, float, kVecElems>(out_row, &x[v * kVecElems], col, inv_scale);
    }
  }
}

struct RmsnormQuantArgs {
  void* out;
  float* row_scale;
  void* residual_out;
  const void* input;
  const void* residual_in;
  const void* weight;
  int num_rows;
  int hidden;
  float epsilon;
};

template <typename DTYPE_I, typename DTYPE_O, int BlockSize, int thread_data_size>
void launch_add_rmsnorm_quant(const RmsnormQuantArgs& a, hipStream_t stream) {
  dim3 grid(a.num_rows);
  dim3 block(BlockSize);
  add_rmsnorm_quant_kernel<DTYPE_I, DTYPE_O, BlockSize, thread_data_size><<<grid, block, 0, stream>>>(  // KW:LAUNCH rmsnorm.launcher
      static_cast<DTYPE_O*>(a.out), a.row_scale, static_cast<DTYPE_I*>(a.residual_out),
      static_cast<const DTYPE_I*>(a.input), static_cast<const DTYPE_I*>(a.residual_in),
      static_cast<const DTYPE_I*>(a.weight), a.epsilon, a.hidden, a.hidden, a.hidden);
}

// Block shape by hidden size: one row per block, every thread holds
// thread_data_size elements in registers.
template <typename DTYPE_I, typename DTYPE_O>
int dispatch_add_rmsnorm_quant_hidden(const RmsnormQuantArgs& a, hipStream_t stream) {
  if (a.hidden <= 1024) {  // KW:GUARD rmsnorm.hidden_le_1024
    launch_add_rmsnorm_quant<DTYPE_I, DTYPE_O, 128, 8>(a, stream);  // KW:CALL rmsnorm.call_128x8
  } else if (a.hidden <= 4096) {  // KW:GUARD rmsnorm.hidden_le_4096
    launch_add_rmsnorm_quant<DTYPE_I, DTYPE_O, 256, 16>(a, stream);  // KW:CALL rmsnorm.call_256x16
  } else if (a.hidden <= 8192) {  // KW:GUARD rmsnorm.hidden_le_8192
    launch_add_rmsnorm_quant<DTYPE_I, DTYPE_O, 512, 16>(a, stream);  // KW:CALL rmsnorm.call_512x16
  } else {
    return -1;
  }
  return 0;
}

int add_rmsnorm_quant(const RmsnormQuantArgs& a, DType in_dtype, bool use_fp8, hipStream_t stream) {
  int rc = -1;
  KW_DISPATCH_FLOATING_TYPES(in_dtype, "add_rmsnorm_quant", [&] {  // KW:GUARD rmsnorm.in_dtype
    if (use_fp8) {  // KW:GUARD rmsnorm.use_fp8
      rc = dispatch_add_rmsnorm_quant_hidden<scalar_t, fp8_e4m3>(a, stream);  // KW:CALL rmsnorm.call_fp8
    } else {
      rc = dispatch_add_rmsnorm_quant_hidden<scalar_t, int8_t>(a, stream);  // KW:CALL rmsnorm.call_int8
    }
  });
  return rc;
}

// Older entry kept for reference: fp32 input, int8 output, 8-byte vectors,
// launched through hipLaunchKernel. Nothing calls it: a C++ entry of its own.
int rmsnorm_quant_legacy(const RmsnormQuantArgs& a, hipStream_t stream) {  // KW:ENTRY rmsnorm.cxx_legacy
  auto* out = static_cast<int8_t*>(a.out);
  float* row_scale = a.row_scale;
  auto* residual_out = static_cast<float*>(a.residual_out);
  auto* input = static_cast<const float*>(a.input);
  auto* residual_in = static_cast<const float*>(a.residual_in);
  auto* weight = static_cast<const float*>(a.weight);
  float epsilon = a.epsilon;
  int hidden = a.hidden;
  int64_t stride = a.hidden;
  void* args[] = {&out, &row_scale, &residual_out, &input, &residual_in, &weight,
                  &epsilon, &hidden, &stride, &stride};
  dim3 grid(a.num_rows);
  dim3 block(256);
  return hipLaunchKernel(reinterpret_cast<const void*>(&add_rmsnorm_quant_kernel<float, int8_t, 256, 16, 8>), grid, block, args, 0, stream) == hipSuccess ? 0 : -1;  // KW:LAUNCH rmsnorm.legacy_hip_launch_kernel
}

}  // namespace kw

// ---- entry points --------------------------------------------------------------

// ctypes entry: every input dtype, int8 or fp8 output.
extern "C" int kw_add_rmsnorm_quant(  // KW:ENTRY rmsnorm.c_add_rmsnorm_quant
    void* out, float* row_scale, void* residual_out, const void* input,
    const void* residual_in, const void* weight, int num_rows, int hidden, float epsilon,
    int in_dtype, int use_fp8, hipStream_t stream) {
  const kw::RmsnormQuantArgs a{out, row_scale, residual_out, input, residual_in,
                               weight, num_rows, hidden, epsilon};
  return kw::add_rmsnorm_quant(a, static_cast<kw::DType>(in_dtype), use_fp8 != 0, stream);
}

// ctypes entry: bf16 in, fp8 out only (a subset of the instantiations above).
extern "C" int kw_add_rmsnorm_quant_bf16_fp8(  // KW:ENTRY rmsnorm.c_add_rmsnorm_quant_bf16_fp8
    void* out, float* row_scale, void* residual_out, const void* input,
    const void* residual_in, const void* weight, int num_rows, int hidden, float epsilon,
    hipStream_t stream) {
  const kw::RmsnormQuantArgs a{out, row_scale, residual_out, input, residual_in,
                               weight, num_rows, hidden, epsilon};
  return kw::dispatch_add_rmsnorm_quant_hidden<__bf16, kw::fp8_e4m3>(a, stream);  // KW:CALL rmsnorm.call_bf16_fp8
}

// pybind11-facing wrapper, bound in pybind/rmsnorm_quant_pybind.hip.
void add_rmsnorm_quant_py(uintptr_t out, uintptr_t row_scale, uintptr_t residual_out,  // KW:ENTRY rmsnorm.cxx_add_rmsnorm_quant_py
                          uintptr_t input, uintptr_t residual_in, uintptr_t weight,
                          int64_t num_rows, int64_t hidden, double epsilon, int64_t in_dtype,
                          bool use_fp8, uintptr_t stream) {
  const kw::RmsnormQuantArgs a{reinterpret_cast<void*>(out),
                               reinterpret_cast<float*>(row_scale),
                               reinterpret_cast<void*>(residual_out),
                               reinterpret_cast<const void*>(input),
                               reinterpret_cast<const void*>(residual_in),
                               reinterpret_cast<const void*>(weight),
                               static_cast<int>(num_rows),
                               static_cast<int>(hidden),
                               static_cast<float>(epsilon)};
  kw::add_rmsnorm_quant(a, static_cast<kw::DType>(in_dtype), use_fp8,
                        reinterpret_cast<hipStream_t>(stream));
}
