// kw_linkage_b.hip: the other translation unit of the pair (see
// kw_linkage_a.hip): its own helper_k, staging 2 KiB through __shared__, and
// its own static_k, with none.
// (tests/plugin/test_internal_linkage.py)
#include <hip/hip_runtime.h>

namespace {
__global__ void helper_k(float* p, int n) { // LINKAGE:helper_k
  __shared__ float tile[512];
  const int i = blockIdx.x * 512 + threadIdx.x;
  tile[threadIdx.x] = i < n ? p[i] : 0.f;
  __syncthreads();
  if (i < n) p[i] = tile[511 - threadIdx.x];
}
} // namespace

static __global__ void static_k(int* p) { // LINKAGE:static_k
  p[threadIdx.x] += 1;
}

extern "C" void linkage_run_b(float* p, int* q, int n) {
  helper_k<<<dim3((n + 511) / 512), dim3(512)>>>(p, n);
  static_k<<<1, 64>>>(q);
}
