// kw_site.hip: kernels for the site tests (tests/site), compiled with device
// line tables: a template kernel in three instantiations whose register use
// differs (the index table sorts by it) and which inlines a device helper
// (its lines show beside the kernel's), and a plain kernel.
#include <hip/hip_runtime.h>

template <int N>
__device__ float kwsite_dot(const float *a, const float *b, int i, int n) {
    float acc[N];
    for (int k = 0; k < N; k++)
        acc[k] = a[(i + k) % n] * b[(i * (k + 1)) % n];
    float s = 0.f;
    for (int k = 0; k < N; k++)
        s += acc[k] * acc[(k + 1) % N];
    return s;
}

template <int N>
__global__ void kwsite_kernel(const float *a, const float *b, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = kwsite_dot<N>(a, b, i, n);
}

__global__ void kwsite_scale(float *y, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = y[i] * s + 1.0f / (1.0f + __expf(-y[i]));
}

extern "C" void kwsite_launch(const float *a, const float *b, float *y, int n, int which) {
    dim3 grid((n + 255) / 256), block(256);
    if (which == 1)
        kwsite_kernel<1><<<grid, block>>>(a, b, y, n);
    else if (which == 8)
        kwsite_kernel<8><<<grid, block>>>(a, b, y, n);
    else
        kwsite_kernel<32><<<grid, block>>>(a, b, y, n);
    kwsite_scale<<<grid, block>>>(y, 0.5f, n);
}
