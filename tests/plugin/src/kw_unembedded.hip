// kw_unembedded.hip: a translation unit whose device jobs compile a kernel that
// its object does not hold, as aiter's pybind TUs compile ck_tile's
// flush_cache: the kernel comes with a header and only an inline function no
// one calls launches it, so no host code of the TU registers a kernel and
// clang leaves the code object out of the object. For
// tests/plugin/test_object_kernels.py.
#include <hip/hip_runtime.h>

namespace unemb {

// Writes one marker value; defined in "a header", static like flush_cache.
static __global__ void touch(int* p) {
  if (threadIdx.x == 0)
    p[blockIdx.x] = 1;
}

inline void touch_all(int* p, int n) { touch<<<n, 64>>>(p); }

}  // namespace unemb

// The TU's own host code: no kernel launch.
extern "C" int unemb_host_only(int x) { return 2 * x + 1; }
