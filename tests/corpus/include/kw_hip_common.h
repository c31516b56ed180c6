// kw_hip_common.h: types and host-side helpers shared by the kwalk test
// corpus. Written for kwalk in the style of a HIP inference-kernel library;
// the kernels in this corpus are small but real (they compute what they say).
#pragma once

#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

#include <cstdint>
#include <cstdio>

namespace kw {

// Element types a host entry can name. The values are the ABI of the
// extern "C" entries (ctypes passes them as plain ints).
enum class DType : int {
  fp32 = 0,
  fp16 = 1,
  bf16 = 2,
  int8 = 3,
  fp8 = 4,
};

// One byte of fp8 e4m3: OCP "e4m3fn" on gfx950, "e4m3fnuz" on gfx942. Only a
// storage type here; conversions are the hardware builtins.
struct fp8_e4m3 {
  uint8_t bits;
};

constexpr int kWaveSize = 64;

inline void report_unsupported(const char* op, DType dtype) {
  std::fprintf(stderr, "%s: unsupported dtype %d\n", op, static_cast<int>(dtype));
}

// ---- scalar conversions used by device code --------------------------------
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__bf16 x) { return static_cast<float>(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half(x); }
template <>
__device__ __forceinline__ __bf16 from_float<__bf16>(float x) { return static_cast<__bf16>(x); }

}  // namespace kw

// ---- dispatch macros ---------------------------------------------------------
// Switch over the input element type; the lambda (passed as the variadic
// argument) is expanded once per case with `scalar_t` bound to that type.
#define KW_DISPATCH_FLOATING_TYPES(DTYPE, NAME, ...)            \
  switch (DTYPE) {                                              \
    case kw::DType::fp32: {                                     \
      using scalar_t = float;                                   \
      __VA_ARGS__();                                            \
      break;                                                    \
    }                                                           \
    case kw::DType::fp16: {                                     \
      using scalar_t = __half;                                  \
      __VA_ARGS__();                                            \
      break;                                                    \
    }                                                           \
    case kw::DType::bf16: {                                     \
      using scalar_t = __bf16;                                  \
      __VA_ARGS__();                                            \
      break;                                                    \
    }                                                           \
    default:                                                    \
      kw::report_unsupported(NAME, DTYPE);                      \
      break;                                                    \
  }

// If-based dispatch over the quantized element type: `quant_t` is fp8 when
// IS_FP8 holds, int8 otherwise.
#define KW_DISPATCH_QUANT_TYPE(IS_FP8, ...)                     \
  if (IS_FP8) {                                                 \
    using quant_t = kw::fp8_e4m3;                               \
    __VA_ARGS__();                                              \
  } else {                                                      \
    using quant_t = int8_t;                                     \
    __VA_ARGS__();                                              \
  }

#define KW_HIP_CHECK(expr)                                                  \
  do {                                                                      \
    hipError_t kw_err_ = (expr);                                            \
    if (kw_err_ != hipSuccess)                                              \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                   hipGetErrorString(kw_err_));                             \
  } while (0)
