// kw_opus.h: vectorized global-memory access and output conversion for the
// kwalk test corpus. `load_vector_nbytes` reads a thread's contiguous run of
// elements in ChunkBytes-wide pieces (16 bytes = one global_load_dwordx4);
// `store_vector` converts float data to the output type, optionally scaled,
// and writes it back the same way.
#pragma once

#include "kw_hip_common.h"

namespace kw {
namespace opus {

// A thread's private run of N elements.
template <typename T, int N>
struct vector_t {
  T data[N];
  __device__ __forceinline__ T& operator[](int i) { return data[i]; }
  __device__ __forceinline__ const T& operator[](int i) const { return data[i]; }
};

// The integer type a ChunkBytes-wide memory access moves.
template <int ChunkBytes>
struct chunk_type;
template <>
struct chunk_type<2> { using type = uint16_t; };
template <>
struct chunk_type<4> { using type = uint32_t; };
template <>
struct chunk_type<8> { using type = uint32_t __attribute__((ext_vector_type(2))); };
template <>
struct chunk_type<16> { using type = uint32_t __attribute__((ext_vector_type(4))); };

// Loads base[offset .. offset+N) in chunks of ChunkBytes. The caller
// guarantees alignment of base + offset to ChunkBytes.
template <typename T, int N, int ChunkBytes = 16>
__device__ __forceinline__ vector_t<T, N> load_vector_nbytes(const T* __restrict__ base,
                                                             int64_t offset) {
  constexpr int kBytes = N * static_cast<int>(sizeof(T));
  static_assert(kBytes % ChunkBytes == 0, "N elements must fill whole chunks");
  constexpr int kChunks = kBytes / ChunkBytes;
  using chunk_t = typename chunk_type<ChunkBytes>::type;
  const chunk_t* src = reinterpret_cast<const chunk_t*>(base + offset);
  vector_t<T, N> v;
#pragma unroll
  for (int i = 0; i < kChunks; ++i) {
    chunk_t c = src[i];
    __builtin_memcpy(reinterpret_cast<char*>(v.data) + i * ChunkBytes, &c, ChunkBytes);
  }
  return v;
}

// ---- output conversion ---------------------------------------------------------
// Largest finite magnitude of each quantized type: the per-row / per-token
// scale maps the absolute maximum onto it.
template <typename T>
struct quant_traits;
template <>
struct quant_traits<int8_t> {
  static constexpr float kMax = 127.f;
};
template <>
struct quant_traits<fp8_e4m3> {
#if defined(__gfx950__)
  static constexpr float kMax = 448.f;  // OCP e4m3fn
#else
  static constexpr float kMax = 240.f;  // e4m3fnuz (gfx942)
#endif
};

// Software float -> e4m3fn, saturating; only used where the hardware
// conversion does not exist (never on gfx942 / gfx950).
__device__ inline uint8_t fp8_e4m3_from_float_sw(float x) {
  const uint8_t sign = (__builtin_bit_cast(uint32_t, x) >> 24) & 0x80;
  const float a = fminf(fabsf(x), 448.f);
  if (!(a >= 0x1p-10f)) return sign;
  int e = 0;
  const float m = frexpf(a, &e);
  int exp = e - 1 + 7;
  if (exp <= 0) return sign | static_cast<uint8_t>(rintf(a * 512.f));
  int mant = static_cast<int>(rintf((m * 2.f - 1.f) * 8.f));
  if (mant == 8) {
    mant = 0;
    ++exp;
  }
  if (exp > 15 || (exp == 15 && mant > 6)) {
    exp = 15;
    mant = 6;
  }
  return sign | static_cast<uint8_t>(exp << 3) | static_cast<uint8_t>(mant);
}

template <typename DTYPE_O, int N>
struct converter {
  // generic: float / __half / __bf16 outputs
  __device__ __forceinline__ static void run(DTYPE_O* out, const float* x, float scale) {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = from_float<DTYPE_O>(x[i] * scale);
  }
};

template <int N>
struct converter<int8_t, N> {
  __device__ __forceinline__ static void run(int8_t* out, const float* x, float scale) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const float q = rintf(x[i] * scale);
      out[i] = static_cast<int8_t>(fmaxf(-127.f, fminf(127.f, q)));
    }
  }
};

template <int N>
struct converter<fp8_e4m3, N> {
  static_assert(N % 2 == 0, "fp8 values are converted in pairs");
  __device__ __forceinline__ static void run(fp8_e4m3* out, const float* x, float scale) {
#if defined(__gfx942__) || defined(__gfx950__)
    // two fp8 per v_cvt_pk_fp8_f32; the second pair of a dword goes to its
    // high half (word_sel = true)
#pragma unroll
    for (int i = 0; i + 4 <= N; i += 4) {
      int word = __builtin_amdgcn_cvt_pk_fp8_f32(x[i] * scale, x[i + 1] * scale, 0, false);
      word = __builtin_amdgcn_cvt_pk_fp8_f32(x[i + 2] * scale, x[i + 3] * scale, word, true);
      __builtin_memcpy(out + i, &word, 4);
    }
    if constexpr (N % 4 == 2) {
      const int word =
          __builtin_amdgcn_cvt_pk_fp8_f32(x[N - 2] * scale, x[N - 1] * scale, 0, false);
      __builtin_memcpy(out + N - 2, &word, 2);
    }
#else
#pragma unroll
    for (int i = 0; i < N; ++i) out[i].bits = fp8_e4m3_from_float_sw(x[i] * scale);
#endif
  }
};

// Converts data[0..N) * scale to DTYPE_O and stores it at base[offset..):
// the converted run is written in chunks of up to 16 bytes.
template <typename DTYPE_O, typename DTYPE_F, int N,
          int ChunkBytes = (N * sizeof(DTYPE_O) >= 16 ? 16 : N * sizeof(DTYPE_O))>
__device__ __forceinline__ void store_vector(DTYPE_O* __restrict__ base, const DTYPE_F* data,
                                             int64_t offset, float scale = 1.f) {
  static_assert(sizeof(DTYPE_F) == sizeof(float), "data is float");
  constexpr int kBytes = N * static_cast<int>(sizeof(DTYPE_O));
  static_assert(kBytes % ChunkBytes == 0, "N elements must fill whole chunks");
  using chunk_t = typename chunk_type<ChunkBytes>::type;
  vector_t<DTYPE_O, N> v;
  converter<DTYPE_O, N>::run(v.data, data, scale);
  chunk_t* dst = reinterpret_cast<chunk_t*>(base + offset);
#pragma unroll
  for (int i = 0; i < kBytes / ChunkBytes; ++i) {
    chunk_t c;
    __builtin_memcpy(&c, reinterpret_cast<const char*>(v.data) + i * ChunkBytes, ChunkBytes);
    dst[i] = c;
  }
}

}  // namespace opus
}  // namespace kw
