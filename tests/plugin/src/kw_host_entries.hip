// kw_host_entries.hip: host entry points that are neither extern "C" nor
// pybind11, for tests/plugin/test_host_entries.py: a plain C++ function
// that calls a launcher (an outermost function with external linkage), torch
// library registrations (TORCH_LIBRARY m.def, TORCH_LIBRARY_IMPL m.impl), and
// a function with internal linkage that kw_host_entries.entrypoints names
// (an annotated entry). Torch's headers are not installed here: the small
// stand-in below declares torch::Library and the two macros with the shape
// of torch's own (a registration function whose name carries the library
// namespace, dispatch key and a unique number, run by a static object). The
// // KW:... comments mark the lines the test looks for.
#include <hip/hip_runtime.h>

namespace torch {
class Library {
 public:
  enum Kind { DEF, IMPL };
  template <typename Schema, typename Func>
  Library& def(Schema&& schema, Func&& fn) & {
    (void)schema;
    (void)fn;
    return *this;
  }
  template <typename Name, typename Func>
  Library& impl(Name name, Func&& fn) & {
    (void)name;
    (void)fn;
    return *this;
  }
};
namespace detail {
struct LibraryInit {
  LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns, const char* key) {
    (void)kind;
    (void)init;
    (void)ns;
    (void)key;
  }
};
}  // namespace detail
}  // namespace torch

#define KWT_CAT_(a, b) a##b
#define KWT_CAT(a, b) KWT_CAT_(a, b)
#define KWT_REGISTER(kind, ns, key, init, m)                                        \
  static void init(torch::Library&);                                                \
  static const torch::detail::LibraryInit KWT_CAT(init, _static)(kind, &init, ns, key); \
  void init(torch::Library& m)
#define TORCH_LIBRARY(ns, m) KWT_REGISTER(torch::Library::DEF, #ns, nullptr, TORCH_LIBRARY_init_##ns, m)
#define TORCH_LIBRARY_IMPL(ns, k, m) \
  KWT_REGISTER(torch::Library::IMPL, #ns, #k, KWT_CAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, __COUNTER__), m)

namespace kwhe {

template <int Scale>
__global__ void scale_kernel(float* y, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * Scale;
}

template <int Scale>
void launch_scale(float* y, const float* x, int n, hipStream_t stream) {
  scale_kernel<Scale><<<(n + 255) / 256, 256, 0, stream>>>(y, x, n);  // KW:LAUNCH he.scale
}

// Called by run_plain: reaches the launch, but is not outermost.
void scale_twice(float* y, const float* x, int n, hipStream_t stream) {
  launch_scale<2>(y, x, n, stream);
  launch_scale<2>(y, y, n, stream);
}

// (a) a plain C++ host function: nothing in this TU calls it.
int run_plain(float* y, const float* x, int n, hipStream_t stream) {  // KW:ENTRY he.plain
  scale_twice(y, x, n, stream);
  return 0;
}

// (b) functions bound by torch registrations below.
void torch_scale(float* y, const float* x, int n, hipStream_t stream) {
  launch_scale<4>(y, x, n, stream);
}
void torch_scale_impl(float* y, const float* x, int n, hipStream_t stream) {
  launch_scale<8>(y, x, n, stream);
}

// (c) internal linkage (taken by address below, never called): no entry by
// itself; kw_host_entries.entrypoints names it.
static void run_static(float* y, const float* x, int n, hipStream_t stream) {  // KW:ENTRY he.annotated
  launch_scale<16>(y, x, n, stream);
}
void (*const run_static_ptr)(float*, const float*, int, hipStream_t) = &run_static;

}  // namespace kwhe

TORCH_LIBRARY(kwhe_ops, m) {
  m.def("scale4(Tensor(a!) y, Tensor x) -> ()", &kwhe::torch_scale);  // KW:ENTRY he.torch_def
}

TORCH_LIBRARY_IMPL(kwhe_ops, CUDA, m) {
  m.impl("scale8", &kwhe::torch_scale_impl);  // KW:ENTRY he.torch_impl
}
