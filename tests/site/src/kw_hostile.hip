// kw_hostile.hip: site.hostile's translation unit (tests/site/test_site_hostile.py):
// every string the compiler hands kwalk from this file is hostile HTML. The
// test copies it to a file whose name is hostile too, compiles it with the
// plugin and checks that `kwalk site` and `kwalk render` show each of these as
// text. Each payload calls top.kwHit(N): a payload that ran records N in the
// test's harness page (or, where the frame cannot reach it, throws into the
// page's error list). KWH:<name> markers name the lines the test looks at.
#include <hip/hip_runtime.h>

// Types whose names are HTML tags: kwh_tmpl<script>, kwh_tmpl<img> print as tags.
struct script {};
struct img {};

// A string a template argument carries into the kernel's printed name.
template <int N> struct Str {
  char s[N];
  constexpr Str(const char (&v)[N]) {
    for (int i = 0; i < N; i++) s[i] = v[i];
  }
};

/// Scales <script>top.kwHit(1)</script> and [click](javascript:top.kwHit(2)) <img src=x onerror=top.kwHit(3)>
/// and `<b>code</b>` stays code.
template <class T>
__global__ void kwh_tmpl(float* __restrict__ img, const float* __restrict__ script, int n) {  // KWH:kernel
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const char* note = "</script><script>top.kwHit(5)</script>";  // KWH:source_line
  if (i < n) img[i] = script[i] * 2.0f + (note[0] == '<' ? 0.0f : 1.0f);
}

template <Str S>
__global__ void kwh_str(float* out, int n) {  // KWH:str_kernel
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (float)sizeof(S.s);
}

#define KWH_GRID(n) (((n) + 255) / 256 + 0 * sizeof("<img src=x onerror=top.kwHit(6)>"))

extern "C" int kwh_launch(float* y, const float* x, int n, const char* mode, hipStream_t stream) {
  if (mode[0] == '<' && sizeof("<img src=x onerror=top.kwHit(7)>") > 1) {  // KWH:dispatch
    kwh_tmpl<script><<<KWH_GRID(n), 256, 0, stream>>>(y, x, n);  // KWH:launch_macro
  } else {
    kwh_tmpl<img><<<dim3((n + 255) / 256 + 0 * sizeof("<script>top.kwHit(8)</script>")), 256, 0, stream>>>(y, x, n);  // KWH:launch_expr
  }
  kwh_str<"<img src=x onerror=top.kwHit(9)>"><<<(n + 255) / 256, 256, 0, stream>>>(y, n);  // KWH:launch_str
  return 0;
}

// An ASM kernel launched by a hostile name from a hostile code-object path.
extern "C" int kwh_asm(float* y, int n, hipStream_t stream) {
  hipModule_t module;
  hipFunction_t fn;
  if (hipModuleLoad(&module, "/nonexistent/<img src=x onerror=top.kwHit(10)>.co") != hipSuccess)  // KWH:asm_load
    return -1;
  if (hipModuleGetFunction(&fn, module, "kwh_asm<script>top.kwHit(11)</script>") != hipSuccess)  // KWH:asm_name
    return -1;
  struct {
    float* y;
    int n;
  } args = {y, n};
  size_t size = sizeof(args);
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                    HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, nullptr, config);  // KWH:asm_launch
}
