// kw_dispatch_paths.hip: dispatch code in which one entry point reaches the
// same kernel launch along several call paths, each under its own
// conditions, for tests/render/test_render_paths.py. Written for kwalk's tests
// in the style of aiter's dispatchers; the // KW:... comments mark the lines
// the test looks for.
#include "kw_hip_common.h"

namespace kwpath {

// out[i] = in[i] * scale, one element per thread.
template <typename T, int BlockSize>
__global__ void __launch_bounds__(BlockSize)
scale_kernel(T* __restrict__ out, const T* __restrict__ in, T scale, int n) {  // KW:KERNEL paths.scale
  const int i = blockIdx.x * BlockSize + threadIdx.x;
  if (i < n)
    out[i] = in[i] * scale;
}

template <typename T>
void launch_scale(T* out, const T* in, T scale, int n, hipStream_t stream) {
  const dim3 grid((n + 255) / 256);
  const dim3 block(256);
  scale_kernel<T, 256><<<grid, block, 0, stream>>>(out, in, scale, n);  // KW:LAUNCH paths.launch
}

// Two call sites of the same launcher: the fp32 path and the large-n
// fallback reach the same instantiation under different conditions.
void dispatch_scale(float* out, const float* in, float scale, int n, int mode,
                    hipStream_t stream) {
  if (mode == 0) {  // KW:GUARD paths.mode0
    launch_scale<float>(out, in, scale, n, stream);  // KW:CALL paths.first
  } else if (n > 4096) {  // KW:GUARD paths.big
    launch_scale<float>(out, in, scale, n, stream);  // KW:CALL paths.second
  }
}

// A fan-out of 2 x 2 x 2 x 2 = 16 call paths to one launch.
void fan3(double* out, const double* in, int n, hipStream_t stream) {
  launch_scale<double>(out, in, 2.0, n, stream);  // KW:CALL paths.fan3
}
void fan2(double* out, const double* in, int n, hipStream_t stream) {
  fan3(out, in, n, stream);
  fan3(out, in, n / 2, stream);
}
void fan1(double* out, const double* in, int n, hipStream_t stream) {
  fan2(out, in, n, stream);
  fan2(out, in, n / 2, stream);
}
void fan0(double* out, const double* in, int n, hipStream_t stream) {
  fan1(out, in, n, stream);
  fan1(out, in, n / 2, stream);
}

// Launch operands that are variables of three kinds: a local changed after
// its declaration (its initializer is not the value at the launch), a
// parameter (the value comes from the caller) and a local set once.
void launch_rounded(float* out, const float* in, int n, hipStream_t stream) {
  dim3 grid(n / 256);  // KW:DECL paths.grid_changed
  if (n % 256)
    grid.x += 1;
  const dim3 block(256);  // KW:DECL paths.block_once
  scale_kernel<float, 256><<<grid, block, 0, stream>>>(out, in, 0.5f, n);  // KW:LAUNCH paths.rounded
}

void launch_given(float* out, const float* in, int n, dim3 grid,  // KW:DECL paths.grid_param
                  hipStream_t stream) {
  scale_kernel<float, 256><<<grid, 256, 0, stream>>>(out, in, 2.0f, n);  // KW:LAUNCH paths.given
}

}  // namespace kwpath

extern "C" void kwpath_rounded(float* out, const float* in, int n, hipStream_t stream) {  // KW:ENTRY paths.entry_rounded
  kwpath::launch_rounded(out, in, n, stream);
  kwpath::launch_given(out, in, n, dim3((n + 127) / 128), stream);
}

extern "C" void kwpath_scale(float* out, const float* in, float scale, int n, int mode,  // KW:ENTRY paths.entry_scale
                             hipStream_t stream) {
  kwpath::dispatch_scale(out, in, scale, n, mode, stream);  // KW:CALL paths.call_entry
}

extern "C" void kwpath_fanout(double* out, const double* in, int n, hipStream_t stream) {  // KW:ENTRY paths.entry_fanout
  kwpath::fan0(out, in, n, stream);
  kwpath::fan0(out, in, n / 2, stream);
}
