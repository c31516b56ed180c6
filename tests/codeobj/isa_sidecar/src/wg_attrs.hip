// wg_attrs.hip: kernels whose occupancy depends on what the source says about
// the flat workgroup size, not only on what the code object records (its
// maximum). Not part of the corpus: the isa_sidecar tests compile it with the
// plugin and compare each kernel's sidecar occupancy with clang's
// -Rpass-analysis=kernel-resource-usage remark.
#include <hip/hip_runtime.h>

// Exactly 576 threads: 9 waves per group, 3 groups per CU = 27 of 32 wave
// slots, 7 waves/SIMD. The code object says only .max_flat_workgroup_size 576,
// which over 1..576 would give 8.
extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(576, 576)))
wg_576(float* out) {
  out[blockIdx.x * 576 + threadIdx.x] = 1.0f;
}

// A range with a minimum above 1 and static LDS.
extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(320, 640)))
wg_320_640(float* out) {
  __shared__ float s[4096];
  s[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}

// HIP's __launch_bounds__ macro: amdgpu_flat_work_group_size(1, 256) (+
// amdgpu_waves_per_eu with a second argument); 16 KiB of LDS: 4 groups per
// CU, 4 waves/SIMD.
extern "C" __global__ void __launch_bounds__(256) hip_lb_256(float* out) {
  __shared__ float s[4096];
  s[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}

extern "C" __global__ void __launch_bounds__(256, 2) hip_lb_256_2(float* out) {
  __shared__ float s[4096];
  s[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}

// The bare launch_bounds attribute: clang 22 does not turn it into a flat
// workgroup size on AMDGPU (the code object says 1024), so the range 1..256
// it names must not be used: over 1..1024 the remark says 8, over 1..256 it
// would be 4.
extern "C" __global__ void __attribute__((launch_bounds(256))) bare_lb_256(float* out) {
  __shared__ float s[4096];
  s[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}

extern "C" __global__ void __attribute__((launch_bounds(576, 1))) bare_lb_576_1(float* out) {
  out[threadIdx.x] = 3.0f;
}

// Both: amdgpu_flat_work_group_size wins (as in clang).
extern "C" __global__ void __attribute__((launch_bounds(1024))) __attribute__((
    amdgpu_flat_work_group_size(192, 192))) both_192(float* out) {
  out[threadIdx.x] = 4.0f;
}

// No attribute: HIP's default range 1..1024.
extern "C" __global__ void plain(float* out) { out[threadIdx.x] = 5.0f; }

// A template: the attribute's value is evaluated per instantiation.
template <int N>
__global__ void __attribute__((amdgpu_flat_work_group_size(N, N))) wg_exact(float* out) {
  out[blockIdx.x * N + threadIdx.x] = float(N);
}

void launch_all(float* p, hipStream_t st) {
  wg_576<<<1, 576, 0, st>>>(p);
  wg_320_640<<<1, 320, 0, st>>>(p);
  hip_lb_256<<<1, 256, 0, st>>>(p);
  hip_lb_256_2<<<1, 256, 0, st>>>(p);
  bare_lb_256<<<1, 256, 0, st>>>(p);
  bare_lb_576_1<<<1, 576, 0, st>>>(p);
  both_192<<<1, 192, 0, st>>>(p);
  plain<<<1, 64, 0, st>>>(p);
  wg_exact<832><<<1, 832, 0, st>>>(p);
  wg_exact<448><<<1, 448, 0, st>>>(p);
}
