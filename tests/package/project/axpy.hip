// axpy.hip: one kernel template and its launch, for the installed-package test.
#include <hip/hip_runtime.h>

/// y = a * x + y, one element per thread.
template <typename T, int BlockSize>
__global__ void __launch_bounds__(BlockSize) axpy_kernel(T a, const T *x, T *y, int n) {
    int i = blockIdx.x * BlockSize + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int tiny_axpy(float a, const float *x, float *y, int n, hipStream_t stream) {
    if (n <= 0)
        return -1;
    axpy_kernel<float, 256><<<(n + 255) / 256, 256, 0, stream>>>(a, x, y, n); // KW:LAUNCH axpy
    return 0;
}
