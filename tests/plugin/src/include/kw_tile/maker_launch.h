// kw_tile/maker_launch.h: a small kernel library written for kwalk's plugin
// tests, launching the way ck_tile's make_kernel does: the kernel's entry is
// kept in a local function pointer and launched from a lambda that
// make_kernel returns; launch_kernel calls the lambda. Its <<<>>> is the
// library's, so kwalk cites the user's launch_kernel(...) line instead
// (tests/plugin/test_launch_idioms.py, kw_two_callers.hip).
#pragma once
#include <hip/hip_runtime.h>

namespace kw_tile {

struct stream_config {
  hipStream_t stream_id_ = nullptr;
  int repeat_ = 1;
};

template <int MaxThreads, typename Kernel, typename... Args>
__global__ __launch_bounds__(MaxThreads) void mk_entry(Args... args) {
  Kernel{}(args...);
}

template <int MaxThreads, typename Kernel, typename... Args>
auto make_kernel(Kernel, dim3 grid_dim, dim3 block_dim, int lds_byte, Args... args) {
  const auto kernel = mk_entry<MaxThreads, Kernel, Args...>;
  return [=](const stream_config& s) {
    kernel<<<grid_dim, block_dim, lds_byte, s.stream_id_>>>(args...);
  };
}

template <typename Callable>
float launch_kernel(const stream_config& s, Callable callable) {
  for (int i = 0; i < s.repeat_; i++)
    callable(s);
  return 0.f;
}

}  // namespace kw_tile
