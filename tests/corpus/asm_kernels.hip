// asm_kernels.hip: host code launching a precompiled ASM kernel (no source),
// both ways aiter does: through a loader object, and with the HIP module API
// directly. The kernel itself is tests/corpus/asm/kw_asm_scale.s, assembled
// into hsa/gfx942/kw_asm_scale.co by the build (tests/corpus/CMakeLists.txt,
// which defines KW_ASM_DIR as the corpus output's hsa/ directory). Part of the
// kwalk test corpus: the // KW:... comments mark the lines tests look for.
#include <hip/hip_runtime.h>

#include <cstddef>
#include <mutex>
#include <string>

#include "kw_asm_loader.h"

#ifndef KW_ASM_DIR
#define KW_ASM_DIR "hsa/"
#endif

namespace kw {

struct __attribute__((packed)) ScaleAsmArgs {
  void* out;
  const void* in;
  float scale;
  int n;
};

int asm_scale(void* out, const void* in, float scale, int n, hipStream_t stream) {
  ScaleAsmArgs args{out, in, scale, n};
  std::size_t arg_size = sizeof(args);
  static KwAsmKernel impl("kw_asm_scale", KW_ASM_DIR "gfx942/kw_asm_scale.co");
  int gdx = (n + 255) / 256;
  return impl.launch_kernel({&args, &arg_size, gdx, 1, 1, 256, 1, 1, stream});  // KW:LAUNCH asm.loader
}

int asm_scale_module(void* out, const void* in, float scale, int n, hipStream_t stream) {
  hipModule_t module;
  hipFunction_t fn;
  if (hipModuleLoad(&module, KW_ASM_DIR "gfx942/kw_asm_scale.co") != hipSuccess) return -1;  // KW:GUARD asm.load_failed
  if (hipModuleGetFunction(&fn, module, "kw_asm_scale") != hipSuccess) return -1;  // KW:GUARD asm.get_function_failed
  ScaleAsmArgs args{out, in, scale, n};
  std::size_t arg_size = sizeof(args);
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &arg_size,
                    HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, nullptr,  // KW:LAUNCH asm.module
                               config) == hipSuccess ? 0 : -1;
}

}  // namespace kw

extern "C" int kw_asm_scale(void* out, const void* in, float scale, int n, int use_module,  // KW:ENTRY asm.c_scale
                            hipStream_t stream) {
  if (use_module)  // KW:GUARD asm.use_module
    return kw::asm_scale_module(out, in, scale, n, stream);
  return kw::asm_scale(out, in, scale, n, stream);
}

// ---- Module launches whose hipFunction_t is set elsewhere in the TU ----

namespace kw {

namespace {

// A global pair set once by a static initializer, before any launch.
hipModule_t g_scale_module;
hipFunction_t g_scale_fn;

struct ScaleModuleInit {
  ScaleModuleInit() {
    ok = hipModuleLoad(&g_scale_module, KW_ASM_DIR "gfx942/kw_asm_scale.co") == hipSuccess &&
         hipModuleGetFunction(&g_scale_fn, g_scale_module, "kw_asm_scale") == hipSuccess;
  }
  bool ok = false;
};
const ScaleModuleInit g_scale_module_init;

constexpr char kScaleKernelName[] = "kw_asm_scale";
constexpr int kScaleFixedN = 1 << 20;

}  // namespace

int asm_scale_global(void* out, const void* in, float scale, int n, hipStream_t stream) {
  ScaleAsmArgs args{out, in, scale, n};
  std::size_t arg_size = sizeof(args);
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &arg_size,
                    HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(g_scale_fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, nullptr,  // KW:LAUNCH asm.global
                               config) == hipSuccess ? 0 : -1;
}

// A static local handle, loaded on the first call inside std::call_once.
int asm_scale_fixed(void* out, const void* in, float scale, hipStream_t stream) {
  static hipFunction_t fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    hipModule_t module;
    if (hipModuleLoad(&module, KW_ASM_DIR "gfx942/kw_asm_scale.co") != hipSuccess ||
        hipModuleGetFunction(&fn, module, kScaleKernelName) != hipSuccess)
      fn = nullptr;
  });
  ScaleAsmArgs args{out, in, scale, kScaleFixedN};
  std::size_t arg_size = sizeof(args);
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &arg_size,
                    HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(fn, kScaleFixedN / 256, 1, 1, 256, 1, 1, 0, stream, nullptr,  // KW:LAUNCH asm.static_local
                               config) == hipSuccess ? 0 : -1;
}

// Members set by the constructor (the path built from literals), launched by
// another member function.
class ScaleModule {
 public:
  ScaleModule();
  int run(void* out, const void* in, float scale, int n, hipStream_t stream);

 private:
  hipModule_t module_{};
  hipFunction_t fn_{};
  bool ok_ = false;
};

ScaleModule::ScaleModule() {
  const std::string co = std::string(KW_ASM_DIR) + "gfx942/" + "kw_asm_scale.co";
  ok_ = hipModuleLoad(&module_, co.c_str()) == hipSuccess &&
        hipModuleGetFunction(&fn_, module_, kScaleKernelName) == hipSuccess;
}

int ScaleModule::run(void* out, const void* in, float scale, int n, hipStream_t stream) {
  ScaleAsmArgs args{out, in, scale, n};
  std::size_t arg_size = sizeof(args);
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &arg_size,
                    HIP_LAUNCH_PARAM_END};
  const int blocks = (n + 255) / 256;
  return hipModuleLaunchKernel(fn_, blocks, 1, 1, 256, 1, 1, 0, stream, nullptr, config) ==  // KW:LAUNCH asm.member
                 hipSuccess ? 0 : -1;
}

}  // namespace kw

extern "C" int kw_asm_scale_global(void* out, const void* in, float scale, int n,  // KW:ENTRY asm.c_global
                                   hipStream_t stream) {
  return kw::asm_scale_global(out, in, scale, n, stream);
}

extern "C" int kw_asm_scale_fixed(void* out, const void* in, float scale,  // KW:ENTRY asm.c_fixed
                                  hipStream_t stream) {
  return kw::asm_scale_fixed(out, in, scale, stream);
}

extern "C" int kw_asm_scale_member(void* out, const void* in, float scale, int n,  // KW:ENTRY asm.c_member
                                   hipStream_t stream) {
  static kw::ScaleModule module;
  return module.run(out, in, scale, n, stream);
}
