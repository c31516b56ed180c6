// asm_table_kernels.hip: precompiled ASM kernels launched through a loader
// object that is not a variable of the launching function, the way aiter's
// ASM launchers do: the loader is built inside a lambda handed to a cache
// (kw_loader_cache.h) and launched through the pointer the cache returns,
// its kernel name and code object read from the row of a config table
// (kw_asm_configs.h) that a runtime key selects; and a loader held by a
// std::unique_ptr, set by std::make_unique in another function. The kernels
// are tests/corpus/asm/kw_asm_scale.s and kw_asm_scale_relu.s. Part of the
// kwalk test corpus: the // KW:... comments mark the lines tests look for.
#include <hip/hip_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

#include "kw_asm_configs.h"
#include "kw_asm_loader.h"
#include "kw_loader_cache.h"

namespace kw {

struct __attribute__((packed)) ScaleTableArgs {
  void* out;
  const void* in;
  float scale;
  int n;
};

// The kernel is picked at run time: the key names a row of kw_asm_configs.
int asm_scale_table(void* out, const void* in, float scale, int n, bool relu,
                    hipStream_t stream) {
  static KwLoaderCache<std::string, KwAsmKernel> loaders;
  const std::string key = std::string("gfx942_") + (relu ? "kw_asm_scale_relu" : "kw_asm_scale");
  KwAsmKernel* loader = nullptr;
  auto row = kw_asm_configs.find(key);
  if (row != kw_asm_configs.end()) {
    const KwAsmConfig& cfg = row->second;
    const char* kernel = cfg.kernel.c_str();
    const char* code_object = cfg.code_object.c_str();
    loader = &loaders.get_or_create(key, [&]() { return KwAsmKernel(kernel, code_object); });
  }
  if (loader == nullptr) return -1;  // KW:GUARD asm.table_miss
  ScaleTableArgs args{out, in, scale, n};
  std::size_t arg_size = sizeof(args);
  return loader->launch_kernel({&args, &arg_size, (n + 255) / 256, 1, 1, 256, 1, 1, stream});  // KW:LAUNCH asm.table
}

namespace {
std::unique_ptr<KwAsmKernel> g_relu_loader;
}  // namespace

void asm_relu_load() {
  g_relu_loader = std::make_unique<KwAsmKernel>("kw_asm_scale_relu",
                                                KW_ASM_DIR "gfx942/kw_asm_scale_relu.co");
}

int asm_relu_unique(void* out, const void* in, float scale, int n, hipStream_t stream) {
  if (!g_relu_loader) asm_relu_load();
  ScaleTableArgs args{out, in, scale, n};
  std::size_t arg_size = sizeof(args);
  return g_relu_loader->launch_kernel({&args, &arg_size, (n + 255) / 256, 1, 1, 256, 1, 1,  // KW:LAUNCH asm.unique
                                       stream});
}

}  // namespace kw

extern "C" int kw_asm_scale_table(void* out, const void* in, float scale, int n, int relu,  // KW:ENTRY asm.c_table
                                  hipStream_t stream) {
  return kw::asm_scale_table(out, in, scale, n, relu != 0, stream);
}

extern "C" int kw_asm_relu_unique(void* out, const void* in, float scale, int n,  // KW:ENTRY asm.c_unique
                                  hipStream_t stream) {
  return kw::asm_relu_unique(out, in, scale, n, stream);
}
