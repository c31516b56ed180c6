// kw_functor_entry.hip: kernels that only forward to a functor, in the
// pattern of aiter's opus MoE sorting (one generic __global__ entry template
// whose body runs `Kernel{}.operator()(kargs)`, functor structs with their
// own Kargs and operator()(Kargs), host code launching them under dispatch
// conditions) and a second entry whose one call is a static member of its
// template argument (`Kernel::run(kargs)`). Each kernel must be named,
// grouped and located by the functor it runs: family `FeSort` for
// fe_entry<FeSort<...>, ...>, its device code the functor's operator() line
// (tests/plugin/test_launch_idioms.py, which finds the lines by regex).
#include <hip/hip_runtime.h>

namespace fe {

template <typename Kernel, typename Kargs>
__global__ void __launch_bounds__(256) fe_entry(Kargs kargs) {
  Kernel{}.operator()(kargs);
}

template <typename Kernel, typename Kargs>
__global__ void fe_static_entry(Kargs kargs) {
  Kernel::run(kargs);
}

template <int Unroll>
struct FeSort {
  struct Kargs {
    const int* ids;
    int* out;
    int n;
  };
  __device__ void operator()(Kargs k) const {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
    for (int u = 0; u < Unroll; u++)
      if (i + u < k.n)
        k.out[i + u] = k.ids[i + u] + 1;
  }
};

template <bool Local>
struct FeClear {
  struct Kargs {
    int* ws;
    int n;
  };
  __device__ void operator()(Kargs k) const {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k.n)
      k.ws[i] = Local ? -1 : 0;
  }
};

struct FeCount {
  struct Kargs {
    const int* ids;
    int* counts;
    int n;
  };
  __device__ static void run(Kargs k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k.n)
      atomicAdd(&k.counts[k.ids[i]], 1);
  }
};

}  // namespace fe

extern "C" void fe_moe_sort(const int* ids, int* out, int* ws, int* counts, int n, bool local,
                            hipStream_t s) {
  dim3 block(256);
  dim3 grid((n + 255) / 256);
  if (local) {
    fe::FeClear<true>::Kargs c{ws, n};
    hipLaunchKernelGGL((fe::fe_entry<fe::FeClear<true>, fe::FeClear<true>::Kargs>), grid, block,
                       0, s, c);
  } else {
    fe::FeClear<false>::Kargs c{ws, n};
    fe::fe_entry<fe::FeClear<false>, fe::FeClear<false>::Kargs><<<grid, block, 0, s>>>(c);
  }
  fe::FeCount::Kargs k{ids, counts, n};
  fe::fe_static_entry<fe::FeCount, fe::FeCount::Kargs><<<grid, block, 0, s>>>(k);
  if (n % 4 == 0) {
    fe::FeSort<4>::Kargs a{ids, out, n};
    fe::fe_entry<fe::FeSort<4>, fe::FeSort<4>::Kargs><<<dim3(n / 1024 + 1), block, 0, s>>>(a);
  } else {
    fe::FeSort<1>::Kargs a{ids, out, n};
    fe::fe_entry<fe::FeSort<1>, fe::FeSort<1>::Kargs><<<grid, block, 0, s>>>(a);
  }
}
