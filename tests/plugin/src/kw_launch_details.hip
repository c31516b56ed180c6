// kw_launch_details.hip: launch idioms of aiter's host code, for
// tests/plugin/test_launch_idioms.py. Written for kwalk's tests in aiter's
// style: a kernel declared with parameter names and defined for the host
// pass as a stub without them, launched through hipLaunchKernelGGL with the
// kernel in parentheses; a grid declared inside the macro that launches; a
// block and grid from a structured binding; a check macro that fails through
// a [[noreturn]] function; multi-line inline asm; __shared__ memory inside a
// generic lambda of a kernel. The // KW:... comments mark the lines the test
// looks for.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace kwdet {

[[noreturn]] inline void check_failed(const char* what, int line) {
  std::fprintf(stderr, "check failed: %s (line %d)\n", what, line);
  std::abort();
}

// A check that stops the program, one statement wherever it is written.
#define KWDET_CHECK(cond, what)              \
  do {                                       \
    if (!(cond)) [[unlikely]] {              \
      ::kwdet::check_failed(what, __LINE__); \
    }                                        \
  } while (0)

template <int Width>
struct row_traits {
  static constexpr int width = Width;
};

// y[r] = sum over the row of x times scale; declared here with its
// parameter names, defined below for the device only.
template <typename Traits, bool Accumulate>
__global__ void row_sum_kernel(float* __restrict__ y,  // KW:KERNEL det.row_sum
                               const float* __restrict__ x,
                               float scale,
                               int rows,
                               int cols);

#if !defined(__HIP_DEVICE_COMPILE__)
// Host pass: a stub, so that the launch stubs resolve.
template <typename Traits, bool Accumulate>
__global__ void row_sum_kernel(float*, const float*, float, int, int) {}
#else
template <typename Traits, bool Accumulate>
__global__ void row_sum_kernel(float* __restrict__ y, const float* __restrict__ x, float scale,
                               int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float acc = 0.f;
  for (int c = 0; c < cols; c += Traits::width)
    for (int k = 0; k < Traits::width && c + k < cols; k++)
      acc += x[r * cols + c + k];
  y[r] = Accumulate ? y[r] + acc * scale : acc * scale;
}
#endif

// Block and grid for rows of cols elements.
inline std::pair<dim3, dim3> pick_dims(int rows, int cols) {
  const int threads = cols >= 1024 ? 256 : 64;
  return {dim3(threads), dim3((rows + threads - 1) / threads)};
}

// The grid is declared inside the macro that launches.
#define KWDET_LAUNCH_ROWS(WIDTH, ACC)                                                         \
  do {                                                                                        \
    dim3 grid((rows + 63) / 64);                                                              \
    dim3 block(64);                                                                           \
    hipLaunchKernelGGL((row_sum_kernel<row_traits<WIDTH>, ACC>), grid, block, 0, stream, y, x, \
                       scale, rows, cols);                                                    \
  } while (0)

extern "C" void kwdet_row_sum(float* y, const float* x, float scale, int rows, int cols,
                              bool accumulate, hipStream_t stream) {
  KWDET_CHECK(rows > 0 && cols % 4 == 0, "rows and cols");  // KW:GUARD det.check
  if (accumulate)
    KWDET_LAUNCH_ROWS(4, true);  // KW:LAUNCH det.macro_grid
  else
    KWDET_LAUNCH_ROWS(4, false);  // KW:LAUNCH det.macro_grid_plain
}

extern "C" void kwdet_row_sum_wide(float* y, const float* x, float scale, int rows, int cols,
                                   hipStream_t stream) {
  const auto [block, grid] = pick_dims(rows, cols);  // KW:DECL det.binding
  hipLaunchKernelGGL((row_sum_kernel<row_traits<8>, false>), grid, block, 0, stream, y, x,  // KW:LAUNCH det.paren
                     scale, rows, cols);
}

// A grid rounded up after its declaration: its initializer is not its value.
extern "C" void kwdet_row_sum_rounded(float* y, const float* x, int rows, int cols,
                                      hipStream_t stream) {
  dim3 grid(rows / 64);  // KW:DECL det.rounded_grid
  if (rows % 64)
    grid.x += 1;
  hipLaunchKernelGGL((row_sum_kernel<row_traits<4>, false>), grid, dim3(64), 0, stream, y, x,  // KW:LAUNCH det.rounded
                     1.0f, rows, cols);
}

// Two instructions in one asm statement, and __shared__ memory in a generic
// lambda called with two tags: the code object allocates one array per
// instantiation of the lambda's call operator.
template <int Lanes>
__global__ void mix_kernel(float* p) {  // KW:KERNEL det.mix_kernel
  float v = p[threadIdx.x];
  asm volatile(  // KW:ASM det.asm2
      "v_add_f32 %0, %0, %0\n\t"
      "v_mul_f32 %0, %0, %0"
      : "+v"(v));
  auto stage = [&](auto tag) {
    __shared__ float buf[8];
    buf[threadIdx.x % 8] = v * decltype(tag)::value;
    __syncthreads();
    v += buf[(threadIdx.x + 1) % 8];
  };
  stage(std::integral_constant<int, Lanes>{});
  stage(std::integral_constant<int, 2 * Lanes>{});
  p[threadIdx.x] = v;
}

extern "C" void kwdet_mix(float* p, hipStream_t stream) {
  mix_kernel<4><<<dim3(1), dim3(64), 0, stream>>>(p);  // KW:LAUNCH det.mix
}

}  // namespace kwdet
