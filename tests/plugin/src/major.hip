// major.hip: one kernel and its launch, with just enough of HIP spelled out
// to compile with plain clang (-nogpuinc -nogpulib) of any major: the input of
// the clang_major tests, which load libkwalk.so into clangs of two majors.
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))

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

template <typename T> __global__ void kw_major_scale(T *x, T f, int n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < (unsigned)n)
    x[i] *= f;
}

extern "C" void kw_major_run(float *x, float f, int n) {
  kw_major_scale<float><<<(n + 63) / 64, 64>>>(x, f, n); // KW:LAUNCH major.scale
}
