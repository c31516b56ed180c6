// kw_dead_launches.hip: launches under conditions the compiler knows, for
// tests/plugin/test_launch_idioms.py. Written for kwalk's tests in the style
// of aiter's norm dispatchers: an `if constexpr` on a macro argument in a
// non-template function (its discarded branch is still compiled, so the
// kernel instantiations launched there are emitted but never launched), a
// plain `if` on a template argument, a `switch` on a constant, and a call
// made only from a discarded branch. The // KW:... comments mark the lines
// the test looks for.
#include <hip/hip_runtime.h>

namespace kwdead {

constexpr int kMode = 1;

// out[i] = in[i] * (Vec + Interleave), Vec elements per thread.
template <typename T, int BlockSize, int Vec, bool Interleave>
__global__ void __launch_bounds__(BlockSize) norm_kernel(T* out, const T* in, int n) {
  const int base = (blockIdx.x * BlockSize + threadIdx.x) * Vec;
  for (int k = 0; k < Vec; k++)
    if (base + k < n)
      out[base + k] = in[base + k] * T(Vec + (Interleave ? 1 : 0));
}

// The launch, inside a lambda called where it is written (as a dtype
// dispatch macro would call it).
#define KWD_LAUNCH(BLOCK, VEC, INTERLEAVE)                                                   \
  [&] {                                                                                      \
    dim3 grid((n + (BLOCK)*(VEC)-1) / ((BLOCK) * (VEC)));                                    \
    norm_kernel<float, BLOCK, VEC, INTERLEAVE><<<grid, dim3(BLOCK), 0, stream>>>(out, in, n); \
  }()

// Wide vectors have an interleaved and a plain variant; narrow ones only the
// interleaved one. VEC is a literal: `if constexpr` decides in non-template code.
#define KWD_IMPL(BLOCK, VEC)                   \
  if constexpr ((VEC > 8)) {                   \
    if (n % 2 == 0) {                          \
      KWD_LAUNCH(BLOCK, VEC, true);            \
    } else {                                   \
      KWD_LAUNCH(BLOCK, VEC, false);           \
    }                                          \
  } else {                                     \
    KWD_LAUNCH(BLOCK, VEC, true);              \
  }

extern "C" void kwdead_norm(float* out, const float* in, int n, hipStream_t stream) {
  if (n <= 512) {
    KWD_IMPL(64, 8);  // KW:LAUNCH dead.narrow
  } else {
    KWD_IMPL(256, 16);  // KW:LAUNCH dead.wide
  }
}

// A plain `if` on a template argument: constant in each instantiation.
template <int Vec>
void launch_tail(float* out, const float* in, int n, hipStream_t stream) {
  if (Vec > 8) {
    norm_kernel<float, 128, Vec, false><<<dim3(n / 128), dim3(128), 0, stream>>>(out, in, n);  // KW:LAUNCH dead.tail
  }
}

// A switch on a constant: only the case it selects runs.
template <int Vec>
void launch_mode(float* out, const float* in, int n, hipStream_t stream) {
  switch (kMode) {
  case 0:
    norm_kernel<float, 32, Vec, true><<<dim3(n / 32), dim3(32), 0, stream>>>(out, in, n);  // KW:LAUNCH dead.mode0
    break;
  default:
    norm_kernel<float, 32, Vec, false><<<dim3(n / 32), dim3(32), 0, stream>>>(out, in, n);  // KW:LAUNCH dead.mode_other
    break;
  }
}

// Called only from a discarded branch below.
void launch_legacy(float* out, const float* in, int n, hipStream_t stream) {
  norm_kernel<double, 512, 1, false><<<dim3(n / 512), dim3(512), 0, stream>>>(  // KW:LAUNCH dead.legacy
      reinterpret_cast<double*>(out), reinterpret_cast<const double*>(in), n);
}

extern "C" void kwdead_tail(float* out, const float* in, int n, hipStream_t stream) {
  launch_tail<4>(out, in, n, stream);
  launch_tail<16>(out, in, n, stream);
  launch_mode<2>(out, in, n, stream);
  if constexpr (kMode == 0) {
    launch_legacy(out, in, n, stream);  // KW:CALL dead.legacy_call
  }
}

}  // namespace kwdead
