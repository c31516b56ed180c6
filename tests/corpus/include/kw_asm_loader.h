// kw_asm_loader.h: how the corpus launches precompiled ASM kernels, in the
// style of aiter's loader for hsa/<arch>/ code objects: a class constructed
// with the kernel's name and its .co path (hipModuleLoad +
// hipModuleGetFunction), and launch_kernel() taking the kernel arguments and
// the grid (in workgroups) and block sizes (hipModuleLaunchKernel).
#pragma once
#include <hip/hip_runtime.h>

#include <cstddef>

namespace kw {

struct KwAsmKernelArgs {
  void* args_ptr;
  std::size_t* arg_size;
  int gdx, gdy, gdz;
  int bdx, bdy, bdz;
  hipStream_t stream;
};

class KwAsmKernel {
 public:
  KwAsmKernel(const char* name, const char* hsaco_path) {
    ok_ = hipModuleLoad(&module_, hsaco_path) == hipSuccess &&
          hipModuleGetFunction(&function_, module_, name) == hipSuccess;
  }
  int launch_kernel(const KwAsmKernelArgs& k) {
    if (!ok_) return -1;
    void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, k.args_ptr, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                      k.arg_size, HIP_LAUNCH_PARAM_END};
    return hipModuleLaunchKernel(function_, k.gdx, k.gdy, k.gdz, k.bdx, k.bdy, k.bdz, 0, k.stream,
                                 nullptr, config) == hipSuccess ? 0 : -1;
  }

 private:
  hipModule_t module_{};
  hipFunction_t function_{};
  bool ok_ = false;
};

}  // namespace kw
