// sample_kernels.hip: token sampling from logits, one block of 1024 threads
// per sequence. With temperature > 0, an "exponential race" (argmax of
// p_i / E_i with E_i ~ Exp(1) supplied by the caller) draws from
// softmax(logits / temperature); with temperature 0, greedy argmax. Part of
// the kwalk test corpus: the // KW:... comments mark the lines tests look for.
#include "kw_hip_common.h"
#include "kw_reduce.h"

namespace kw {

/// Samples one token per row: block max and block sum give the softmax of
/// logits * inv_temperature; each thread keeps its best p_i / exponentials[i]
/// over a strided slice of the vocabulary; the block takes the maximum of
/// those and, on ties, the smallest index.
template <typename scalar_t, int BlockSize>
__global__ void __launch_bounds__(BlockSize)
mix_sample_kernel(  // KW:KERNEL sample.mix_sample_kernel
    const scalar_t* __restrict__ logits, const float* __restrict__ exponentials,
    int* __restrict__ out_tokens, int vocab, float inv_temperature) {
  const int64_t row = blockIdx.x;
  const scalar_t* l = logits + row * vocab;
  const float* e = exponentials + row * vocab;

  float m = MaxOp<float>::identity();
  for (int i = threadIdx.x; i < vocab; i += BlockSize) m = fmaxf(m, to_float(l[i]) * inv_temperature);
  m = block_reduce<float, MaxOp<float>, BlockSize>(m, MaxOp<float>{});

  float s = 0.f;
  for (int i = threadIdx.x; i < vocab; i += BlockSize) s += expf(to_float(l[i]) * inv_temperature - m);
  s = block_reduce<float, SumOp<float>, BlockSize>(s, SumOp<float>{});
  const float inv_sum = 1.f / s;

  float best = MaxOp<float>::identity();
  int best_i = MinOp<int>::identity();
  for (int i = threadIdx.x; i < vocab; i += BlockSize) {
    const float p = expf(to_float(l[i]) * inv_temperature - m) * inv_sum;
    const float q = p / e[i];
    if (q > best) {
      best = q;
      best_i = i;
    }
  }
  const float block_best = block_reduce<float, MaxOp<float>, BlockSize>(best, MaxOp<float>{});
  const int token = block_reduce<int, MinOp<int>, BlockSize>(best == block_best ? best_i : MinOp<int>::identity(), MinOp<int>{});
  if (threadIdx.x == 0) out_tokens[row] = token;
}

/// Greedy sampling: the index of the largest logit (smallest index on ties).
template <typename scalar_t, int BlockSize>
__global__ void __launch_bounds__(BlockSize)
greedy_sample_kernel(  // KW:KERNEL sample.greedy_sample_kernel
    const scalar_t* __restrict__ logits, int* __restrict__ out_tokens, int vocab) {
  const int64_t row = blockIdx.x;
  const scalar_t* l = logits + row * vocab;
  float best = MaxOp<float>::identity();
  int best_i = MinOp<int>::identity();
  for (int i = threadIdx.x; i < vocab; i += BlockSize) {
    const float x = to_float(l[i]);
    if (x > best) {
      best = x;
      best_i = i;
    }
  }
  const float block_best = block_reduce<float, MaxOp<float>, BlockSize>(best, MaxOp<float>{});
  const int token = block_reduce<int, MinOp<int>, BlockSize>(best == block_best ? best_i : MinOp<int>::identity(), MinOp<int>{});
  if (threadIdx.x == 0) out_tokens[row] = token;
}

struct SampleArgs {
  const void* logits;
  const float* exponentials;
  int* out_tokens;
  int batch;
  int vocab;
};

int sample(const SampleArgs& a, DType dtype, float temperature, hipStream_t stream) {
  const int batch = a.batch;
  KW_DISPATCH_FLOATING_TYPES(dtype, "sample", [&] {  // KW:GUARD sample.dtype
    const auto* logits = static_cast<const scalar_t*>(a.logits);
    if (temperature > 0.f) {  // KW:GUARD sample.temperature_pos
      mix_sample_kernel<scalar_t, 1024><<<batch, 1024, 0, stream>>>(logits, a.exponentials, a.out_tokens, a.vocab, 1.f / temperature);  // KW:LAUNCH sample.random
    } else {
      greedy_sample_kernel<scalar_t, 1024><<<batch, 1024, 0, stream>>>(logits, a.out_tokens, a.vocab);  // KW:LAUNCH sample.greedy
    }
  });
  return 0;
}

int greedy_sample(const SampleArgs& a, DType dtype, hipStream_t stream) {
  const int batch = a.batch;
  KW_DISPATCH_FLOATING_TYPES(dtype, "greedy_sample", [&] {  // KW:GUARD sample.greedy_dtype
    greedy_sample_kernel<scalar_t, 1024><<<batch, 1024, 0, stream>>>(static_cast<const scalar_t*>(a.logits), a.out_tokens, a.vocab);  // KW:LAUNCH sample.greedy_only
  });
  return 0;
}

}  // namespace kw

// ctypes entries
extern "C" int kw_sample(  // KW:ENTRY sample.c_sample
    const void* logits, const float* exponentials, int* out_tokens, int batch, int vocab,
    float temperature, int dtype, hipStream_t stream) {
  const kw::SampleArgs a{logits, exponentials, out_tokens, batch, vocab};
  return kw::sample(a, static_cast<kw::DType>(dtype), temperature, stream);
}

extern "C" int kw_greedy_sample(  // KW:ENTRY sample.c_greedy_sample
    const void* logits, int* out_tokens, int batch, int vocab, int dtype, hipStream_t stream) {
  const kw::SampleArgs a{logits, nullptr, out_tokens, batch, vocab};
  return kw::greedy_sample(a, static_cast<kw::DType>(dtype), stream);
}
