// other.hip: a second translation unit, so that a shared library linked from
// two HIP objects has two offload bundles in its .hip_fatbin.
#include "hipmini.h"

template <typename T>
__global__ void __launch_bounds__(128) scale(T *x, T f, int n) {
  unsigned i = bid_x() * 128 + tid_x();
  if (i < (unsigned)n)
    x[i] *= f;
}
template __global__ void scale<float>(float *, float, int);
template __global__ void scale<double>(double *, double, int);
