// tile_kernels.hip: a ck_tile-style kernel written against kw_tile (the corpus's
// small ck_tile-like library): a Problem/Policy template stack, a kernel struct
// with a __device__ operator(), and a host launch through
// kw_tile::launch_kernel(kw_tile::make_kernel<BlockSize>(...)). Part of the
// kwalk test corpus: the // KW:... comments mark the lines tests look for.
#include <hip/hip_runtime.h>

#include "kw_tile/kernel_launch.h"

namespace kw {

// What is computed, on which types.
template <typename XDataType_, typename YDataType_, typename ComputeDataType_>
struct ScaleProblem {
  using XDataType = XDataType_;
  using YDataType = YDataType_;
  using ComputeDataType = ComputeDataType_;
};

// How the work is split over a workgroup.
template <int BlockSize_, int Vector_>
struct ScalePolicy {
  static constexpr int kBlockSize = BlockSize_;
  static constexpr int kVector = Vector_;
};

struct ScaleArgs {
  const void* x;
  void* y;
  float scale;
  int n;
};

/// y = x * scale, kVector contiguous elements per thread.
template <typename Problem, typename Policy>
struct ScaleKernel {
  static constexpr int kBlockSize = Policy::kBlockSize;
  using XDataType = typename Problem::XDataType;
  using YDataType = typename Problem::YDataType;
  using ComputeDataType = typename Problem::ComputeDataType;

  __device__ void operator()(ScaleArgs a) const {  // KW:FUNCTOR tile.scale_kernel
    const auto* x = static_cast<const XDataType*>(a.x);
    auto* y = static_cast<YDataType*>(a.y);
    int base = (blockIdx.x * kBlockSize + threadIdx.x) * Policy::kVector;
#pragma unroll
    for (int i = 0; i < Policy::kVector; ++i) {
      int idx = base + i;
      if (idx < a.n)
        y[idx] = static_cast<YDataType>(static_cast<ComputeDataType>(x[idx]) * a.scale);
    }
  }
};

template <typename X, typename Y, int BlockSize, int Vector>
float run_scale(const ScaleArgs& args, hipStream_t stream) {
  using Kernel = ScaleKernel<ScaleProblem<X, Y, float>, ScalePolicy<BlockSize, Vector>>;
  const int per_block = BlockSize * Vector;
  dim3 grid((args.n + per_block - 1) / per_block);
  return kw_tile::launch_kernel(  // KW:LAUNCH tile.scale KW:CALL tile.call_launch_kernel
      stream, kw_tile::make_kernel<BlockSize>(Kernel{}, grid, dim3(BlockSize), 0, args));
}

}  // namespace kw

extern "C" float kw_tile_scale(const void* x, void* y, float scale, int n, int wide,  // KW:ENTRY tile.c_scale
                               hipStream_t stream) {
  kw::ScaleArgs args{x, y, scale, n};
  if (wide)  // KW:GUARD tile.wide
    return kw::run_scale<float, float, 256, 4>(args, stream);  // KW:CALL tile.call_wide
  return kw::run_scale<float, float, 64, 1>(args, stream);  // KW:CALL tile.call_narrow
}
