// kw_loops.hip: loops for render.loops (section 2 gives each loop's source
// line). The test finds the loop lines by their "loop-marker:" comments: a
// loop of an inlined device helper and a loop of the kernel itself, both
// kept as loops by the optimizer (their trip counts depend on arguments).
#include <hip/hip_runtime.h>

__device__ float kwloop_sum_row(const float *x, int n) {
    float s = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) // loop-marker: helper_for
        s += x[i];
    return s;
}

__global__ void kwloop_kernel(const float *x, float *y, int n, int m) {
    float acc = 0.f;
    int r = blockIdx.x;
    while (r < m) { // loop-marker: kernel_while
        acc += kwloop_sum_row(x + (long)r * n, n);
        r += gridDim.x;
    }
    y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" void kwloop_launch(const float *x, float *y, int n, int m) {
    kwloop_kernel<<<dim3(64), dim3(256)>>>(x, y, n, m);
}
