// kw_type_names.hip: kernels whose template arguments the source spells with
// typedefs (an fp8 storage type that is a _BitInt(8), as opus::fp8_t is in
// aiter) and with templates that have defaulted parameters, for
// tests/plugin/test_type_names.py. Each launch line carries `// KW:LAUNCH id`;
// the test reads the arguments as written from the launch line itself.
#include <hip/hip_runtime.h>

#include <type_traits>

namespace tn {

using fp8_t = _BitInt(8);
typedef unsigned _BitInt(8) bf8_t;

// Rows is defaulted: a printed name must still show it.
template <typename T, int N, int Rows = 1>
struct traits {
  using type = T;
  static constexpr int vec = N;
  static constexpr int rows = Rows;
};
using traits_fp8 = traits<fp8_t, 8>;

// out[i] = in[i] as T, Traits::vec elements per thread; Vec is defaulted.
template <typename T, typename Traits, int Vec = 4>
__global__ void convert(T* out, const float* in, int n) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * Traits::vec;
  for (int k = 0; k < Traits::vec * Vec / 4; k++)
    if (i + k < n)
      out[i + k] = static_cast<T>(in[i + k]);
}

template <typename A, typename B>
struct pick_first {
  using type = A;
};

// A kernel launched inside a function template with that template's own
// parameters, as aiter's launch_quant_t<in_t, out_t> does: the names the
// source used are those of the caller's template arguments (KW:CALL).
template <typename In, typename Out>
void launch_as(Out* out, const float* in, int n, hipStream_t s) {
  tn::convert<Out, tn::traits<In, 2>><<<dim3(1), dim3(64), 0, s>>>(out, in, n);  // KW:LAUNCH tn.chain
}

// A class whose printed name is about 75 KB (tn::wide<int, 0, 1, ...,
// wide_n - 1>) calling a lambda in its member: the lambda's call operator is
// named tn::wide<...>::run(float *)::(lambda)::operator() on every clang
// major, in time linear in the name's length (capture-kernels' CPU time).
template <typename T, T... I>
struct wide {
  __device__ static void run(float* p) {
    auto store = [p](int v) { p[v] = 0.f; };
    store(int(sizeof...(I)) % 64);
  }
};

constexpr int wide_n = 12000;  // KW:WIDE arguments of tn::wide after its type

__global__ void wide_k(float* p) { __make_integer_seq<wide, int, wide_n>::run(p); }

}  // namespace tn

extern "C" void tn_convert_all(void* out, const float* in, int n, int mode, hipStream_t s) {
  const dim3 grid((n + 255) / 256), block(64);
  using local_t = tn::bf8_t;  // a local alias: the name the source means is tn::bf8_t
  if (mode == 0)
    tn::convert<tn::fp8_t, tn::traits_fp8><<<grid, block, 0, s>>>(static_cast<tn::fp8_t*>(out), in, n);  // KW:LAUNCH tn.fp8
  else if (mode == 1)
    tn::convert<local_t, tn::traits<local_t, 4>, 2><<<grid, block, 0, s>>>(static_cast<local_t*>(out), in, n);  // KW:LAUNCH tn.bf8
  else if (mode == 2)
    tn::convert<std::conditional_t<true, tn::fp8_t, float>, tn::traits<float, 2, 2>><<<grid, block, 0, s>>>(static_cast<tn::fp8_t*>(out), in, n);  // KW:LAUNCH tn.cond
  else if (mode == 3)
    tn::launch_as<tn::bf8_t, tn::fp8_t>(static_cast<tn::fp8_t*>(out), in, n, s);  // KW:CALL tn.chain_call
  else
    tn::convert<float, tn::traits<float, 4>><<<grid, block, 0, s>>>(static_cast<float*>(out), in, n);  // KW:LAUNCH tn.float
}
