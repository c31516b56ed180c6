// kw_tile/kernel_launch.h: a small ck_tile-style kernel library written for
// the kwalk corpus: a kernel is a struct with a __device__ operator(), run on
// the GPU by the generic kentry trampoline; make_kernel<BlockSize> packs the
// kernel with its grid, block and arguments; launch_kernel launches it. A
// launch written by users of this library has its <<<>>> here, in the
// library, and kwalk attributes it to the user's launch_kernel call. Part of
// the kwalk test corpus: the // KW:... comments mark the lines tests look for.
#pragma once
#include <hip/hip_runtime.h>

namespace kw_tile {

/// The trampoline every kernel of the library runs through: runs the kernel
/// object's operator() on the arguments.
template <typename Kernel, typename Args>
__global__ __launch_bounds__(Kernel::kBlockSize) void kentry(Args args) {  // KW:KERNEL tile.kentry
  Kernel{}(args);
}

template <int BlockSize, typename Kernel, typename Args>
struct KernelLaunch {
  dim3 grid;
  dim3 block;
  int lds_bytes;
  Args args;
};

template <int BlockSize, typename Kernel, typename Args>
KernelLaunch<BlockSize, Kernel, Args> make_kernel(Kernel, dim3 grid, dim3 block, int lds_bytes,
                                                 Args args) {
  return KernelLaunch<BlockSize, Kernel, Args>{grid, block, lds_bytes, args};
}

template <int BlockSize, typename Kernel, typename Args>
float launch_kernel(hipStream_t stream, const KernelLaunch<BlockSize, Kernel, Args>& k) {
  kentry<Kernel, Args><<<k.grid, k.block, k.lds_bytes, stream>>>(k.args);  // KW:SITE tile.kentry_site
  return 0.f;
}

}  // namespace kw_tile
