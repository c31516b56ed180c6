// asm_kernels.hip: host code launching a precompiled ASM kernel (no source),
// both ways aiter does: through a loader object, and with the HIP module API
// directly. The kernel itself is tests/corpus/asm/kw_asm_scale.s, assembled
// into hsa/gfx942/kw_asm_scale.co by the build (tests/corpus/CMakeLists.txt,
// which defines KW_ASM_DIR as the corpus output's hsa/ directory). Part of the
// kwalk test corpus: the // KW:... comments mark the lines tests look for.
#include <hip/hip_runtime.h>

#include <cstddef>

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
