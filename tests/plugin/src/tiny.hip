// tiny.hip: a corpus-like TU for the kwalk-env test: a kernel template, one
// instantiation launched from an extern "C" entry point.
#include <hip/hip_runtime.h>

#ifndef KWALK_ENV_KEPT
#error "the flags HIPCC_COMPILE_FLAGS_APPEND held before kwalk-env.sh must be kept"
#endif

template <typename T, int BlockSize>
__global__ void __launch_bounds__(BlockSize) scale_kernel(T *out, const T *in, T alpha, int n) {
    int i = blockIdx.x * BlockSize + threadIdx.x;
    if (i < n)
        out[i] = alpha * in[i];
}

extern "C" int tiny_scale(float *out, const float *in, float alpha, int n, hipStream_t stream) {
    dim3 grid((n + 255) / 256);
    scale_kernel<float, 256><<<grid, 256, 0, stream>>>(out, in, alpha, n);
    return 0;
}
