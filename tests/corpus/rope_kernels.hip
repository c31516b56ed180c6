// rope_kernels.hip: rotary position embedding applied in place to query and
// key in [seq, batch, heads, head_size] ("sbhd") layout. One block per
// (token, batch) pair, 256 threads over heads x rotary pairs. Part of the kwalk
// test corpus: the // KW:... comments mark the lines tests look for.
#include "kw_hip_common.h"

namespace kw {

constexpr int kRopeBlock = 256;
constexpr int kRopeMaxRotDim = 256;

// Rotates one pair of x: (x0, x1) -> (x0 cos - x1 sin, x1 cos + x0 sin).
// NeoX style pairs element r with r + rot_dim/2; GPT-J style pairs 2r, 2r+1.
template <typename scalar_t, bool kIsNeox>
__device__ __forceinline__ void rotate_pair(scalar_t* __restrict__ x, float c, float s, int r,
                                            int half) {
  const int i0 = kIsNeox ? r : 2 * r;
  const int i1 = kIsNeox ? r + half : 2 * r + 1;
  const float x0 = to_float(x[i0]);
  const float x1 = to_float(x[i1]);
  x[i0] = from_float<scalar_t>(x0 * c - x1 * s);
  x[i1] = from_float<scalar_t>(x1 * c + x0 * s);
}

/** RoPE forward, in place, sbhd layout.
 *
 * blockIdx.x is the sequence position s, blockIdx.y the batch index b; the
 * token's position id is positions[s * batch + b]. The token's cos/sin row
 * (rot_dim floats: rot_dim/2 cos then rot_dim/2 sin) is staged in LDS once,
 * then every thread rotates (head, pair) items of query and key.
 */
template <typename scalar_t, bool kIsNeox>
__global__ void __launch_bounds__(kRopeBlock)
rope_sbhd_fwd_kernel(  // KW:KERNEL rope.rope_sbhd_fwd_kernel
    scalar_t* __restrict__ query, scalar_t* __restrict__ key,
    const float* __restrict__ cos_sin_cache, const int64_t* __restrict__ positions, int batch,
    int num_heads, int num_kv_heads, int head_size, int rot_dim) {
  __shared__ float cos_sin[kRopeMaxRotDim];
  const int64_t token = static_cast<int64_t>(blockIdx.x) * batch + blockIdx.y;
  const int64_t pos = positions[token];
  const int half = rot_dim / 2;
  for (int i = threadIdx.x; i < rot_dim; i += kRopeBlock) cos_sin[i] = cos_sin_cache[pos * rot_dim + i];
  __syncthreads();

  scalar_t* q = query + token * num_heads * head_size;
  for (int i = threadIdx.x; i < num_heads * half; i += kRopeBlock) {
    const int h = i / half;
    const int r = i % half;
    rotate_pair<scalar_t, kIsNeox>(q + h * head_size, cos_sin[r], cos_sin[half + r], r, half);
  }
  scalar_t* k = key + token * num_kv_heads * head_size;
  for (int i = threadIdx.x; i < num_kv_heads * half; i += kRopeBlock) {
    const int h = i / half;
    const int r = i % half;
    rotate_pair<scalar_t, kIsNeox>(k + h * head_size, cos_sin[r], cos_sin[half + r], r, half);
  }
}

struct RopeArgs {
  void* query;
  void* key;
  const float* cos_sin_cache;
  const int64_t* positions;
  int seq_len;
  int batch;
  int num_heads;
  int num_kv_heads;
  int head_size;
  int rot_dim;
};

template <typename scalar_t>
void launch_rope_sbhd_fwd(const RopeArgs& a, bool is_neox, hipStream_t stream) {
  auto* query = static_cast<scalar_t*>(a.query);
  auto* key = static_cast<scalar_t*>(a.key);
  dim3 grid(a.seq_len, a.batch);
  dim3 block(kRopeBlock);
  if (is_neox) {  // KW:GUARD rope.is_neox
    hipLaunchKernelGGL(HIP_KERNEL_NAME(rope_sbhd_fwd_kernel<scalar_t, true>), grid, block, 0, stream,  // KW:LAUNCH rope.neox
                       query, key, a.cos_sin_cache, a.positions, a.batch, a.num_heads,
                       a.num_kv_heads, a.head_size, a.rot_dim);
  } else {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(rope_sbhd_fwd_kernel<scalar_t, false>), grid, block, 0, stream,  // KW:LAUNCH rope.gptj
                       query, key, a.cos_sin_cache, a.positions, a.batch, a.num_heads,
                       a.num_kv_heads, a.head_size, a.rot_dim);
  }
}

int rope_sbhd_fwd(const RopeArgs& a, DType dtype, bool is_neox, hipStream_t stream) {
  if (a.rot_dim > kRopeMaxRotDim || a.rot_dim > a.head_size) {  // KW:GUARD rope.rot_dim_too_large
    return -1;
  }
  KW_DISPATCH_FLOATING_TYPES(dtype, "rope_sbhd_fwd", [&] {  // KW:GUARD rope.dtype
    launch_rope_sbhd_fwd<scalar_t>(a, is_neox, stream);  // KW:CALL rope.call_launch
  });
  return 0;
}

}  // namespace kw

// ctypes entry
extern "C" int kw_rope_sbhd_fwd(  // KW:ENTRY rope.c_rope_sbhd_fwd
    void* query, void* key, const float* cos_sin_cache, const int64_t* positions, int seq_len,
    int batch, int num_heads, int num_kv_heads, int head_size, int rot_dim, int dtype,
    int is_neox, hipStream_t stream) {
  const kw::RopeArgs a{query,   key,       cos_sin_cache, positions,    seq_len,
                       batch,   num_heads, num_kv_heads,  head_size,    rot_dim};
  return kw::rope_sbhd_fwd(a, static_cast<kw::DType>(dtype), is_neox != 0, stream);
}
