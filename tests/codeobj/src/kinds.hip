// kinds.hip: kernels written to exercise the code-object library: every
// instruction class it counts, and every occupancy limiter (VGPRs, AGPRs,
// LDS against the CU's LDS, workgroup size, scratch). Compiled by
// gen_inputs.sh for gfx942 and gfx950; the checks compare what kwco-dump says
// with llvm-readelf, llvm-objdump and clang's resource-usage remarks.
#include "hipmini.h"

typedef float float2v __attribute__((ext_vector_type(2)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
extern "C" __device__ int kw_writelane(int, int, int) __asm("llvm.amdgcn.writelane.i32");

// Plain elementwise: SMEM kernarg loads, global loads/stores, a branch.
extern "C" __global__ void vec_add(float *out, const float *a, const float *b, int n) {
  unsigned i = bid_x() * 256 + tid_x();
  if (i < (unsigned)n)
    out[i] = a[i] + b[i] * __builtin_amdgcn_rcpf(b[i]);
}

// Static LDS of N floats, workgroups of up to WG threads: the LDS and
// workgroup terms of occupancy.
template <int N, int WG>
__global__ void __launch_bounds__(WG) lds_tile(float *out, const float4v *in) {
  __shared__ float4v tile[N / 4];
  unsigned t = tid_x();
  for (unsigned i = t; i < N / 4; i += WG)
    tile[i] = in[bid_x() * (N / 4) + i];
  __builtin_amdgcn_s_barrier();
  float4v v = tile[(t * 7) % (N / 4)];
  out[bid_x() * WG + t] = v.x + v.y + v.z + v.w;
}
template __global__ void lds_tile<512, 64>(float *, const float4v *);
template __global__ void lds_tile<3072, 256>(float *, const float4v *);
template __global__ void lds_tile<6144, 256>(float *, const float4v *);
template __global__ void lds_tile<10000, 1024>(float *, const float4v *);
template __global__ void lds_tile<16384, 1024>(float *, const float4v *);
template __global__ void lds_tile<8192, 64>(float *, const float4v *);
template __global__ void lds_tile<4096, 1024>(float *, const float4v *);
#if defined(__gfx950__) // 80 KiB: more than gfx942's 64 KiB of LDS, fits gfx950's 160 KiB
template __global__ void lds_tile<20480, 256>(float *, const float4v *);
#endif

// K live accumulators: the VGPR term.
template <int K>
__global__ void __launch_bounds__(256) vgpr_heavy(float *out, const float *in, int n) {
  float acc[K];
#pragma unroll
  for (int k = 0; k < K; k++)
    acc[k] = in[k * 256 + tid_x()];
  for (int j = 0; j < n; j++) {
#pragma unroll
    for (int k = 0; k < K; k++)
      acc[k] = acc[k] * acc[(k + 1) % K] + in[j];
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < K; k++)
    s += acc[k] * (float)(k + 1);
  out[tid_x()] = s;
}
template __global__ void vgpr_heavy<24>(float *, const float *, int);
template __global__ void vgpr_heavy<72>(float *, const float *, int);
template __global__ void vgpr_heavy<136>(float *, const float *, int);

// MFMA with several 16-wide accumulators: AGPRs / the unified register file.
template <int M>
__global__ void __launch_bounds__(256) mfma_chain(float16v *out, const half4 *a, int n) {
  float16v acc[M];
  for (int m = 0; m < M; m++)
    acc[m] = out[m * 256 + tid_x()];
  for (int j = 0; j < n; j++) {
    half4 x = a[j * 64 + (tid_x() & 63)];
#pragma unroll
    for (int m = 0; m < M; m++)
      acc[m] = __builtin_amdgcn_mfma_f32_32x32x8f16(x, x, acc[m], 0, 0, 0);
  }
  for (int m = 0; m < M; m++)
    out[m * 256 + tid_x()] = acc[m];
}
template __global__ void mfma_chain<2>(float16v *, const half4 *, int);
template __global__ void mfma_chain<12>(float16v *, const half4 *, int);
template __global__ void mfma_chain<20>(float16v *, const half4 *, int);

// A dynamically indexed private array: scratch.
extern "C" __global__ void __launch_bounds__(128) scratch_array(float *out, const int *idx) {
  float priv[96];
  for (int i = 0; i < 96; i++)
    priv[i] = out[i * 128 + tid_x()];
  out[tid_x()] = priv[idx[tid_x()] % 96] + priv[idx[tid_x() + 1] % 96];
}

// Cross-lane forms, transcendental and packed VALU, MFMA, fp8 conversions,
// LDS permutes, barrier, sleep.
extern "C" __global__ void __launch_bounds__(256) cross_lane(float *out, const float *in,
                                                            const float4v *in4) {
  unsigned t = tid_x();
  float x = in[t];
  float4v v4 = in4[t];
  x += __builtin_amdgcn_rsqf(x) + __builtin_amdgcn_exp2f(x) + __builtin_amdgcn_logf(x) +
       __builtin_amdgcn_sqrtf(x);
  int xi = __builtin_bit_cast(int, x);
  xi = __builtin_amdgcn_update_dpp(0, xi, 0x111, 0xf, 0xf, false);  // row_shr:1
  xi += __builtin_amdgcn_update_dpp(0, xi, 0x1b, 0xf, 0xf, false);  // quad_perm:[3,2,1,0]
  xi += __builtin_amdgcn_update_dpp(0, xi, 0x142, 0xa, 0xf, false); // row_bcast:15
  xi += __builtin_amdgcn_update_dpp(0, xi, 0x143, 0xc, 0xf, false); // row_bcast:31
  xi += __builtin_amdgcn_update_dpp(0, xi, 0x138, 0xf, 0xf, false); // wave_shr:1
  xi += __builtin_amdgcn_update_dpp(0, xi, 0x140, 0xf, 0xf, false); // row_mirror
  xi += __builtin_amdgcn_update_dpp(0, xi, 0x128, 0xf, 0xf, false); // row_ror:8
  xi += __builtin_amdgcn_update_dpp(0, xi, 0x104, 0xf, 0xf, false); // row_shl:4
  xi += __builtin_amdgcn_ds_swizzle(xi, 0x1f);
  xi += __builtin_amdgcn_ds_bpermute(t * 4, xi);
  xi += __builtin_amdgcn_ds_permute(t * 4, xi);
  xi += __builtin_amdgcn_readfirstlane(xi);
  xi += __builtin_amdgcn_readlane(xi, 3);
  xi = kw_writelane(xi, 5, xi);
#if defined(__gfx950__)
  {
    auto r = __builtin_amdgcn_permlane32_swap(xi, xi + 1, false, false);
    xi += r[0] + r[1];
  }
#endif
  float2v a = {x, (float)xi}, b = {v4.x, v4.y};
  a = a * b + b;
  half4 h = {(_Float16)x, (_Float16)v4.y, (_Float16)v4.z, (_Float16)v4.w};
  float4v acc = __builtin_amdgcn_mfma_f32_16x16x16f16(h, h, v4, 0, 0, 0);
  int p = __builtin_amdgcn_cvt_pk_fp8_f32(a.x, a.y, 0, false);
  p = __builtin_amdgcn_cvt_pk_bf8_f32(acc.z, acc.w, p, true);
  float back = __builtin_amdgcn_cvt_f32_fp8(p, 1) + __builtin_amdgcn_cvt_f32_bf8(p, 2);
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_s_sleep(1);
  out[t] = acc.x + acc.y + back + a.x + a.y + (float)xi;
}

// Memory forms: buffer, flat (generic pointer that may be LDS or global),
// global atomics, wide LDS accesses, sub-dword loads.
extern "C" __global__ void __launch_bounds__(256) mem_forms(float *out, const float *in,
                                                           unsigned char *bytes, int sel) {
  __shared__ float4v lds4[256];
  unsigned t = tid_x();
  __amdgpu_buffer_rsrc_t rsrc = __builtin_amdgcn_make_buffer_rsrc((void *)in, 0, 1 << 20, 0x27000);
  float bv = __builtin_amdgcn_raw_buffer_load_b32(rsrc, t * 4, 0, 0);
  lds4[t] = (float4v){bv, bv + 1, bv + 2, bv + 3};
  __builtin_amdgcn_s_barrier();
  float4v w = lds4[(t + 1) & 255];
  float *p = sel ? (float *)&lds4[t] : out + t;
  *p = w.x + w.w; // flat store
  __hip_atomic_fetch_add(out + 1024, w.y, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  bytes[t] = (unsigned char)(bytes[t + 256] + 1);
}

// A workgroup size range with a minimum above 1 (not HIP's __launch_bounds__):
// the code object records only the maximum, so occupancy needs the range
// from the source (kwco-dump --flat-wg); 9 waves per group leave 5 of 32 slots.
extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(576, 576)))
wg_576(float *out) {
  out[bid_x() * 576 + tid_x()] = 1.0f;
}
