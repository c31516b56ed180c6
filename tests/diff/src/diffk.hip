// diffk.hip: the translation unit tests/diff compiles twice, as the OLD build
// and (with -DKWD_NEW) as the NEW one. Between them: kdiff_scale<double> is
// removed, kdiff_scale<int> added, kdiff_heavy keeps more values live and a
// larger LDS tile, kdiff_spill keeps more values live than its launch bounds
// leave registers for. kdiff_scale<float> and the static kdiff_local are the
// same in both. NEW also launches kdiff_scale<int> from a second entry point,
// kdiff_run_ints. Lines are found by the `kwd:` marker comments.
#include <hip/hip_runtime.h>

#ifdef KWD_NEW
#define KWD_LIVE 40
#define KWD_LDS 8192
#define KWD_SPILL_LIVE 200
#else
#define KWD_LIVE 8
#define KWD_LDS 256
#define KWD_SPILL_LIVE 16
#endif

template <typename T>
__global__ void kdiff_scale(T *p, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * s;
}

// N accumulators live across the loop: each step reads the next one's old value.
template <int N>
__device__ float kdiff_work(const float *__restrict__ in, int n) {
  float acc[N];
#pragma unroll
  for (int i = 0; i < N; i++)
    acc[i] = in[threadIdx.x + i * 64];
  for (int k = 0; k < n; k++) {
#pragma unroll
    for (int i = 0; i < N; i++)
      acc[i] = acc[i] * acc[(i + 1) % N] + in[k * N + i];
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < N; i++)
    s += acc[i] * (float)(i + 1);
  return s;
}

__global__ void kdiff_heavy(const float *__restrict__ in, float *__restrict__ out, int n) {
  __shared__ float tile[KWD_LDS];
  for (int i = threadIdx.x; i < KWD_LDS; i += blockDim.x)
    tile[i] = in[i];
  __syncthreads();
  float s = kdiff_work<KWD_LIVE>(in, n);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s + tile[(threadIdx.x * 7) % KWD_LDS];
}

__global__ void __launch_bounds__(1024) kdiff_spill(const float *__restrict__ in,
                                                    float *__restrict__ out, int n) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = kdiff_work<KWD_SPILL_LIVE>(in, n);
}

static __global__ void kdiff_local(float *p) { p[threadIdx.x] += 1.0f; }

extern "C" void kdiff_run(float *f, double *d, int *x, const float *in, float *out, int n) {
  kdiff_scale<float><<<dim3(n / 256), dim3(256)>>>(f, 2.0f, n); // kwd:launch_scale_float
#ifdef KWD_NEW
  kdiff_scale<int><<<dim3(n / 256), dim3(256)>>>(x, 3, n); // kwd:launch_scale_int
#else
  kdiff_scale<double><<<dim3(n / 256), dim3(256)>>>(d, 2.0, n); // kwd:launch_scale_double
#endif
  kdiff_heavy<<<dim3(n / 256), dim3(256)>>>(in, out, n); // kwd:launch_heavy
  kdiff_spill<<<dim3(n / 1024), dim3(1024)>>>(in, out, n); // kwd:launch_spill
  kdiff_local<<<dim3(1), dim3(64)>>>(f); // kwd:launch_local
}

#ifdef KWD_NEW
// A second entry point reaching kdiff_scale<int> through a helper.
static void kdiff_ints(int *x, int n) {
  kdiff_scale<int><<<dim3(n / 64), dim3(64)>>>(x, 5, n); // kwd:launch_scale_int_helper
}

extern "C" void kdiff_run_ints(int *x, int n) { kdiff_ints(x, n); }
#endif
