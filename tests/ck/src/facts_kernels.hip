// facts_kernels.hip: two small kernels for tests/ck/check_facts.py, facts the
// ck-tile fixture has no kernel for: a kernel compiled for large workgroups
// (MoE sorting's 768 work-items), whose LLVM occupancy assumes workgroups of
// one work-item, and a kernel that spills VGPRs to scratch.
#include <hip/hip_runtime.h>

// 768 work-items = 12 waves per workgroup; few registers.
__global__ void __launch_bounds__(768) kwf_block768(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.0f;
}

// 48 values live at once in a kernel allowed 24 VGPRs: the rest spill.
__global__ void __attribute__((amdgpu_num_vgpr(24))) kwf_spill(float *out, const float *in) {
    float v[48];
#pragma unroll
    for (int k = 0; k < 48; k++)
        v[k] = in[threadIdx.x + k * 64];
    asm volatile("" ::: "memory");
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 48; k++)
        s += v[k] * v[47 - k] + (float)k;
    out[threadIdx.x] = s;
}

extern "C" void kwf_launch(float *out, const float *in, int n, hipStream_t st) {
    kwf_block768<<<(n + 767) / 768, 768, 0, st>>>(out, in, n);
    kwf_spill<<<1, 64, 0, st>>>(out, in);
}
