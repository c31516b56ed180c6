// hipmini.h: just enough of HIP's surface to compile the codeobj test kernels
// with plain clang (-nogpuinc -nogpulib), without HIP headers or device
// libraries: the attributes, dim3, and the runtime entry points a host-side
// kernel stub refers to. Tests never run these kernels.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __host__ __attribute__((host))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  __host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shmem,
                               hipStream_t s);
extern "C" unsigned __hipPushCallConfiguration(dim3 g, dim3 b, unsigned long shmem = 0,
                                               hipStream_t s = 0);
extern "C" int __hipPopCallConfiguration(dim3 *g, dim3 *b, unsigned long *shmem, hipStream_t *s);

__device__ static inline unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
