// kw_generic_lambda.hip: launches inside generic lambdas (`[&](auto tag)`),
// called with different tag types, for tests/plugin/test_launch_idioms.py.
// Written for kwalk's tests in the style of aiter's launchers, which pick a
// kernel variant through a tag argument. Each call of the lambda instantiates
// its call operator once: every instantiation holds its own launch. The
// // KW:... comments mark the lines the test looks for.
#include <hip/hip_runtime.h>

#include <type_traits>

namespace kwgen {

// p[i] += Width, one element per thread.
template <int Width>
__global__ void fill_kernel(float* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += Width;
}

template <int W>
using width_tag = std::integral_constant<int, W>;

// A generic lambda in a non-template entry, called twice.
extern "C" void kwgen_fill(float* p, int n, hipStream_t stream) {
  auto launch = [&](auto tag) {
    constexpr int W = decltype(tag)::value;
    if (n > 0) {  // KW:GUARD gen.nonempty
      fill_kernel<W><<<dim3((n + 63) / 64), dim3(64), 0, stream>>>(p, n);  // KW:LAUNCH gen.fill
    }
  };
  if (n > 4096)  // KW:GUARD gen.big
    launch(width_tag<4>{});  // KW:CALL gen.call4
  else
    launch(width_tag<1>{});  // KW:CALL gen.call1
}

// A generic lambda inside a function template, called once per instantiation;
// written under a condition of the function, which the launch sits under too.
template <int Scale>
void launch_scaled(float* p, int n, hipStream_t stream) {
  if (n >= 128) {  // KW:GUARD gen.scaled_big
    auto go = [=](auto tag) {
      fill_kernel<decltype(tag)::value * Scale><<<dim3(n / 128), dim3(128), 0, stream>>>(p, n);  // KW:LAUNCH gen.scaled
    };
    go(width_tag<2>{});  // KW:CALL gen.call_scaled
  }
}

extern "C" void kwgen_scaled(float* p, int n, hipStream_t stream) {
  launch_scaled<3>(p, n, stream);  // KW:CALL gen.scaled3
  launch_scaled<5>(p, n, stream);  // KW:CALL gen.scaled5
}

}  // namespace kwgen
