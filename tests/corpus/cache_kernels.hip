// cache_kernels.hip: writes new key/value vectors into a paged KV cache,
// either as-is or quantized (int8 / fp8) with one scale per token and head.
// One wave (64 lanes) per (token, head). Exposes a ctypes entry and, in the
// same translation unit, a pybind11 module. Part of the kwalk test corpus:
// the // KW:... comments mark the lines tests look for.
#include <pybind11/pybind11.h>

#include "kw_hip_common.h"
#include "kw_opus.h"
#include "kw_reduce.h"

namespace kw {

enum class CacheDType : int { kAuto = 0, kInt8 = 1, kFp8 = 2 };

// Cache layout: [num_blocks, num_heads, block_size, head_size]; a slot is
// block_index * block_size + offset_in_block, negative for padding tokens.
__device__ __forceinline__ int64_t cache_offset(int64_t slot, int head, int num_heads,
                                                int block_size, int head_size) {
  const int64_t block_idx = slot / block_size;
  const int64_t block_off = slot % block_size;
  return ((block_idx * num_heads + head) * block_size + block_off) * head_size;
}

/// Unquantized cache write: the cache has the element type of key/value.
template <typename scalar_t>
__global__ void __launch_bounds__(kWaveSize)
reshape_and_cache_kernel(  // KW:KERNEL cache.reshape_and_cache_kernel
    const scalar_t* __restrict__ key, const scalar_t* __restrict__ value,
    scalar_t* __restrict__ key_cache, scalar_t* __restrict__ value_cache,
    const int64_t* __restrict__ slot_mapping, int64_t key_stride, int64_t value_stride,
    int num_heads, int head_size, int block_size) {
  const int64_t token = blockIdx.x;
  const int head = blockIdx.y;
  const int64_t slot = slot_mapping[token];
  if (slot < 0) return;
  const int64_t dst = cache_offset(slot, head, num_heads, block_size, head_size);
  const scalar_t* k = key + token * key_stride + head * head_size;
  const scalar_t* v = value + token * value_stride + head * head_size;
  for (int i = threadIdx.x; i < head_size; i += kWaveSize) {
    key_cache[dst + i] = k[i];
    value_cache[dst + i] = v[i];
  }
}

/// Quantized cache write with a scale per (token, head): each of the 64
/// lanes owns kHeadSize / 64 contiguous elements of the head; the wave finds
/// max |k| and max |v| with a DPP wave_reduce, stores the dequantization
/// scales at [head, slot] and writes the quantized vectors to the cache.
template <typename scalar_t, typename cache_t, int kHeadSize>
__global__ void __launch_bounds__(kWaveSize)
reshape_and_cache_with_per_token_quant_kernel(  // KW:KERNEL cache.per_token_quant_kernel
    const scalar_t* __restrict__ key, const scalar_t* __restrict__ value,
    cache_t* __restrict__ key_cache, cache_t* __restrict__ value_cache,
    float* __restrict__ k_dequant_scales, float* __restrict__ v_dequant_scales,
    const int64_t* __restrict__ slot_mapping, int64_t key_stride, int64_t value_stride,
    int num_heads, int block_size, int64_t num_slots) {
  constexpr int kPerLane = kHeadSize / kWaveSize;
  static_assert(kPerLane >= 2 && kHeadSize % kWaveSize == 0, "2+ elements per lane");
  constexpr int kLoadBytes = kPerLane * static_cast<int>(sizeof(scalar_t)) > 16
                                 ? 16
                                 : kPerLane * static_cast<int>(sizeof(scalar_t));

  const int64_t token = blockIdx.x;
  const int head = blockIdx.y;
  const int64_t slot = slot_mapping[token];
  if (slot < 0) return;  // padding token: nothing to write
  const int col = threadIdx.x * kPerLane;

  const auto kv = opus::load_vector_nbytes<scalar_t, kPerLane, kLoadBytes>(
      key + token * key_stride + head * kHeadSize, col);
  const auto vv = opus::load_vector_nbytes<scalar_t, kPerLane, kLoadBytes>(
      value + token * value_stride + head * kHeadSize, col);
  float k[kPerLane];
  float v[kPerLane];
  float k_max = 0.f;
  float v_max = 0.f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    k[i] = to_float(kv[i]);
    v[i] = to_float(vv[i]);
    k_max = fmaxf(k_max, fabsf(k[i]));
    v_max = fmaxf(v_max, fabsf(v[i]));
  }
  k_max = wave_reduce(k_max, MaxOp<float>{});
  v_max = wave_reduce(v_max, MaxOp<float>{});
  const float k_scale = k_max / opus::quant_traits<cache_t>::kMax;
  const float v_scale = v_max / opus::quant_traits<cache_t>::kMax;
  if (threadIdx.x == 0) {
    k_dequant_scales[head * num_slots + slot] = k_scale;
    v_dequant_scales[head * num_slots + slot] = v_scale;
  }
  const int64_t dst = cache_offset(slot, head, num_heads, block_size, kHeadSize);
  opus::store_vector<cache_t, float, kPerLane>(key_cache + dst, k, col,
                                               k_scale > 0.f ? 1.f / k_scale : 0.f);
  opus::store_vector<cache_t, float, kPerLane>(value_cache + dst, v, col,
                                               v_scale > 0.f ? 1.f / v_scale : 0.f);
}

struct CacheArgs {
  const void* key;
  const void* value;
  void* key_cache;
  void* value_cache;
  float* k_dequant_scales;
  float* v_dequant_scales;
  const int64_t* slot_mapping;
  int num_tokens;
  int num_heads;
  int head_size;
  int block_size;
  int64_t num_slots;
};

template <typename scalar_t, int kHeadSize>
void launch_reshape_and_cache_per_token_quant(const CacheArgs& a, bool use_fp8, hipStream_t stream) {
  const int64_t stride = static_cast<int64_t>(a.num_heads) * a.head_size;
  KW_DISPATCH_QUANT_TYPE(use_fp8, [&] {  // KW:GUARD cache.use_fp8
    dim3 grid(a.num_tokens, a.num_heads);
    dim3 block(kWaveSize);
    reshape_and_cache_with_per_token_quant_kernel<scalar_t, quant_t, kHeadSize><<<grid, block, 0, stream>>>(  // KW:LAUNCH cache.per_token_quant
        static_cast<const scalar_t*>(a.key), static_cast<const scalar_t*>(a.value),
        static_cast<quant_t*>(a.key_cache), static_cast<quant_t*>(a.value_cache),
        a.k_dequant_scales, a.v_dequant_scales, a.slot_mapping, stride, stride, a.num_heads,
        a.block_size, a.num_slots);
  });
}

template <typename scalar_t>
int dispatch_per_token_quant_head_size(const CacheArgs& a, bool use_fp8, hipStream_t stream) {
  if (a.head_size == 128) {  // KW:GUARD cache.head_128
    launch_reshape_and_cache_per_token_quant<scalar_t, 128>(a, use_fp8, stream);  // KW:CALL cache.call_128
  } else if (a.head_size == 256) {  // KW:GUARD cache.head_256
    launch_reshape_and_cache_per_token_quant<scalar_t, 256>(a, use_fp8, stream);  // KW:CALL cache.call_256
  } else {
    return -1;
  }
  return 0;
}

// Any cache dtype: kAuto copies, kInt8 / kFp8 quantize per token.
int reshape_and_cache(const CacheArgs& a, DType dtype, CacheDType cache_dtype, hipStream_t stream) {
  int rc = 0;
  const int num_tokens = a.num_tokens;
  const int num_heads = a.num_heads;
  const int64_t stride = static_cast<int64_t>(a.num_heads) * a.head_size;
  KW_DISPATCH_FLOATING_TYPES(dtype, "reshape_and_cache", [&] {  // KW:GUARD cache.dtype
    if (cache_dtype == CacheDType::kAuto) {  // KW:GUARD cache.kv_auto
      reshape_and_cache_kernel<scalar_t><<<dim3(num_tokens, num_heads), dim3(64)>>>(  // KW:LAUNCH cache.plain
          static_cast<const scalar_t*>(a.key), static_cast<const scalar_t*>(a.value),
          static_cast<scalar_t*>(a.key_cache), static_cast<scalar_t*>(a.value_cache),
          a.slot_mapping, stride, stride, a.num_heads, a.head_size, a.block_size);
    } else {
      rc = dispatch_per_token_quant_head_size<scalar_t>(a, cache_dtype == CacheDType::kFp8, stream);  // KW:CALL cache.call_quant_from_any
    }
  });
  return rc;
}

// Quantized only.
int reshape_and_cache_with_per_token_quant(const CacheArgs& a, DType dtype, bool use_fp8,
                                           hipStream_t stream) {
  int rc = 0;
  KW_DISPATCH_FLOATING_TYPES(dtype, "reshape_and_cache_with_per_token_quant", [&] {  // KW:GUARD cache.quant_dtype
    rc = dispatch_per_token_quant_head_size<scalar_t>(a, use_fp8, stream);  // KW:CALL cache.call_quant_only
  });
  return rc;
}

}  // namespace kw

// ---- entry points --------------------------------------------------------------

// ctypes entry: every cache dtype.
extern "C" int kw_reshape_and_cache(  // KW:ENTRY cache.c_reshape_and_cache
    const void* key, const void* value, void* key_cache, void* value_cache,
    float* k_dequant_scales, float* v_dequant_scales, const int64_t* slot_mapping,
    int num_tokens, int num_heads, int head_size, int block_size, int64_t num_slots, int dtype,
    int cache_dtype, hipStream_t stream) {
  const kw::CacheArgs a{key,          value,      key_cache, value_cache, k_dequant_scales,
                        v_dequant_scales, slot_mapping, num_tokens, num_heads, head_size,
                        block_size,   num_slots};
  return kw::reshape_and_cache(a, static_cast<kw::DType>(dtype),
                               static_cast<kw::CacheDType>(cache_dtype), stream);
}

// pybind11-facing wrapper of the quantized path (addresses as integers).
static int reshape_and_cache_with_per_token_quant_py(
    uintptr_t key, uintptr_t value, uintptr_t key_cache, uintptr_t value_cache,
    uintptr_t k_dequant_scales, uintptr_t v_dequant_scales, uintptr_t slot_mapping,
    int64_t num_tokens, int64_t num_heads, int64_t head_size, int64_t block_size,
    int64_t num_slots, int64_t dtype, bool use_fp8, uintptr_t stream) {
  const kw::CacheArgs a{reinterpret_cast<const void*>(key),
                        reinterpret_cast<const void*>(value),
                        reinterpret_cast<void*>(key_cache),
                        reinterpret_cast<void*>(value_cache),
                        reinterpret_cast<float*>(k_dequant_scales),
                        reinterpret_cast<float*>(v_dequant_scales),
                        reinterpret_cast<const int64_t*>(slot_mapping),
                        static_cast<int>(num_tokens),
                        static_cast<int>(num_heads),
                        static_cast<int>(head_size),
                        static_cast<int>(block_size),
                        num_slots};
  return kw::reshape_and_cache_with_per_token_quant(a, static_cast<kw::DType>(dtype), use_fp8,
                                                    reinterpret_cast<hipStream_t>(stream));
}

PYBIND11_MODULE(module_cache, m) {
  m.doc() = "kwalk corpus: KV-cache writes";
  m.def("reshape_and_cache_with_per_token_quant", &reshape_and_cache_with_per_token_quant_py, "quantized KV-cache write");  // KW:ENTRY cache.py_reshape_and_cache_with_per_token_quant
  m.def("reshape_and_cache", [](uintptr_t key, uintptr_t value, uintptr_t key_cache, uintptr_t value_cache, uintptr_t slot_mapping, int64_t num_tokens, int64_t num_heads, int64_t head_size, int64_t block_size, int64_t dtype, uintptr_t stream) {  // KW:ENTRY cache.py_reshape_and_cache
    const kw::CacheArgs a{reinterpret_cast<const void*>(key),
                          reinterpret_cast<const void*>(value),
                          reinterpret_cast<void*>(key_cache),
                          reinterpret_cast<void*>(value_cache),
                          nullptr,
                          nullptr,
                          reinterpret_cast<const int64_t*>(slot_mapping),
                          static_cast<int>(num_tokens),
                          static_cast<int>(num_heads),
                          static_cast<int>(head_size),
                          static_cast<int>(block_size),
                          0};
    return kw::reshape_and_cache(a, static_cast<kw::DType>(dtype), kw::CacheDType::kAuto,
                                 reinterpret_cast<hipStream_t>(stream));
  });
}
