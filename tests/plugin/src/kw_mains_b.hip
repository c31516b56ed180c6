// kw_mains_b.hip: with kw_mains_a.hip, two programs' translation units that
// each define their own host functions under the same symbols: `main`, a
// `static` run(), a `static` mains::go(), a `static` run_c() with C linkage
// (its symbol is mangled as internal, _ZL5run_cPf) and a lambda in main, each
// launching this unit's own kernels. Their launches must be reached from
// this unit's main only. (tests/plugin/test_unit_mains.py)
#include <hip/hip_runtime.h>

__global__ void mains_b_k(float* p) { p[threadIdx.x] += 1.f; }
__global__ void mains_b_static_k(float* p) { p[threadIdx.x] *= 2.f; }
__global__ void mains_b_lambda_k(float* p) { p[threadIdx.x] -= 3.f; }
__global__ void mains_b_ns_k(float* p) { p[threadIdx.x] *= 0.5f; }
__global__ void mains_b_c_k(float* p) { p[threadIdx.x] += 4.f; }

static void run(float* p) {
  mains_b_static_k<<<1, 64>>>(p);
}

extern "C" {
static void run_c(float* p) {
  mains_b_c_k<<<1, 64>>>(p);
}
}

namespace mains {
static void go(float* p) {
  mains_b_ns_k<<<1, 64>>>(p);
}
} // namespace mains

int main() { // MAINS:main
  float* p = nullptr;
  if (hipMalloc(&p, 64 * sizeof(float)) != hipSuccess)
    return 1;
  mains_b_k<<<1, 64>>>(p);
  run(p);
  mains::go(p);
  run_c(p);
  auto go = [&]() { mains_b_lambda_k<<<1, 64>>>(p); };
  go();
  return hipDeviceSynchronize() != hipSuccess;
}
