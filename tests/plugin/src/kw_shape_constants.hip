// kw_shape_constants.hip: constants a launch's grid, block and conditions are
// written with, for tests/plugin/test_shape_constants.py: constexpr and const
// locals, a chain of them, a const local declared inside the macro that
// launches (aiter's dispatch macros), enumerators in case labels and
// conditions, and the default stream written as 0 or nullptr.
//
// The same file compiles as plain host C++ with -DKWSC_PROBE (the test
// replaces each `<<<grid, block, ...>>>(...)` by a call printing the line,
// grid and block), so the values `kwalk render --shape` gives are checked
// against what the C++ compiler computes from the same text.
// The // KW:... comments mark the lines the test looks for.
#ifndef KWSC_PROBE
#include <hip/hip_runtime.h>
#endif
#include <algorithm>

namespace kwsc {

enum class Mode { Narrow = 1, Wide = 7 };
enum Unroll { kUnrollOne = 1, kUnrollFour = 4 };

template <int Width>
__global__ void scale_kernel(float* y, const float* x, int n) {
#ifndef KWSC_PROBE
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * Width;
  for (int k = 0; k < Width; k++)
    if (i + k < n)
      y[i + k] = 2.f * x[i + k];
#endif
}

// A grid declared with a const local inside the macro that launches.
#define KWSC_LAUNCH_ROWS(WIDTH)                                               \
  do {                                                                        \
    const int rows_per_block = 4 * WIDTH;                                     \
    dim3 grid((n + rows_per_block - 1) / rows_per_block);                     \
    scale_kernel<WIDTH><<<grid, 128, 0, stream>>>(y, x, n);                   \
  } while (0)

// constexpr block (also bound to a const reference: std::max), grid from
// a parameter and the constant.
void launch_constexpr(float* y, const float* x, int n, int mode, hipStream_t stream) {
  constexpr int B = 256;
  const int rows = std::max(n, B);
  scale_kernel<1><<<(rows + B - 1) / B, B, 0, stream>>>(y, x, n);  // KW:LAUNCH sc.constexpr
}

// A chain of constant locals, and a local dim3 built from them.
void launch_chain(float* y, const float* x, int n, int mode, hipStream_t stream) {
  const int base = 64;
  const int threads = base * 2;
  const int per_block = threads * kUnrollFour;
  const int blocks = (n + per_block - 1) / per_block;
  dim3 grid(blocks, 2);
  scale_kernel<4><<<grid, threads, 0, stream>>>(y, x, n);  // KW:LAUNCH sc.chain
}

// A const local inside the launching macro.
void launch_macro(float* y, const float* x, int n, int mode, hipStream_t stream) {
  KWSC_LAUNCH_ROWS(2);  // KW:LAUNCH sc.macro
}

// Enumerators in case labels and in a condition; the default stream.
void launch_modes(float* y, const float* x, int n, int mode, hipStream_t stream) {
  switch (static_cast<Mode>(mode)) {
  case Mode::Narrow:
    scale_kernel<8><<<n / 64, 64, 0, 0>>>(y, x, n);  // KW:LAUNCH sc.narrow
    break;
  case Mode::Wide:
    scale_kernel<16><<<n / 512, 512, 0, nullptr>>>(y, x, n);  // KW:LAUNCH sc.wide
    break;
  default:
    break;
  }
  if (mode == kUnrollFour)
    scale_kernel<32><<<n / 1024, 1024>>>(y, x, n);  // KW:LAUNCH sc.unroll
}

} // namespace kwsc

extern "C" void kwsc_run(float* y, const float* x, int n, int mode, hipStream_t stream) {
  kwsc::launch_constexpr(y, x, n, mode, stream);
  kwsc::launch_chain(y, x, n, mode, stream);
  kwsc::launch_macro(y, x, n, mode, stream);
  kwsc::launch_modes(y, x, n, mode, stream);
}
