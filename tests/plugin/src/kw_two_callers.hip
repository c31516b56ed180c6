// kw_two_callers.hip: one kernel instantiation launched through
// kw_tile::make_kernel (include/kw_tile/maker_launch.h, the ck_tile pattern)
// from two call sites in two functions, each with its own guard, grid and
// block: each launch must be cited at its own caller's launch_kernel(...)
// line, with that caller's guard and grid/block. The TWO: comments mark the
// lines the test looks for (tests/plugin/test_launch_idioms.py).
#include "include/kw_tile/maker_launch.h"

struct TwoScale {
  __device__ void operator()(float* p, int n) const {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
      p[i] *= 2.f;
  }
};

extern "C" float two_small(float* p, int n, hipStream_t st) {
  const dim3 grid_small((n + 255) / 256);
  const dim3 block_small(256);
  if (n < 4096)  // TWO:guard small
    return kw_tile::launch_kernel(kw_tile::stream_config{st, 1},  // TWO:launch small
        kw_tile::make_kernel<256>(TwoScale{}, grid_small, block_small, 0, p, n));
  return -1.f;
}

extern "C" float two_large(float* p, int n, hipStream_t st) {
  const dim3 grid_large(n / 1024);
  const dim3 block_large(128);
  if (n % 1024 == 0)  // TWO:guard large
    return kw_tile::launch_kernel(kw_tile::stream_config{st, 2},  // TWO:launch large
        kw_tile::make_kernel<256>(TwoScale{}, grid_large, block_large, 0, p, n));
  return -1.f;
}
