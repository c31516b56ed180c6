// kw_linkage_a.hip: with kw_linkage_b.hip, two translation units that each
// define their own kernels with internal linkage under the same names, so
// the same symbols name different kernels: helper_k (anonymous namespace)
// and static_k (`static`). Here helper_k uses no __shared__ memory.
// (tests/plugin/test_internal_linkage.py)
#include <hip/hip_runtime.h>

namespace {
__global__ void helper_k(float* p, int n) { // LINKAGE:helper_k
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * 2.f + 1.f;
}
} // namespace

static __global__ void static_k(int* p) { // LINKAGE:static_k
  __shared__ int flag[64];
  flag[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = flag[63 - threadIdx.x];
}

extern "C" void linkage_run_a(float* p, int* q, int n) {
  helper_k<<<dim3((n + 255) / 256), dim3(256)>>>(p, n);
  static_k<<<1, 64>>>(q);
}
