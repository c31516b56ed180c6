// kw_asm_wrapper.hip: precompiled ASM kernels launched through a wrapper class
// that holds the loader as a member built from its constructor's arguments,
// the way aiter's asm_fmoe.cu does (its FMoeKernel holds an AiterAsmKernel):
// the only launch statement is inside the wrapper; which kernel and code
// object it runs is said where the wrapper is constructed: static objects
// with literal arguments, each under the branch that picks it, a
// std::make_unique of it from the row of a config table a runtime key
// selects, and one from the row of a table passed in by the caller. test_asm_wrapper.py copies this file into csrc/ of a folder whose
// hsa/<arch>/wrap/ holds the code objects (the loader below looks there, as
// aiter's does), assembled from tests/corpus/asm/*.s with the kernel renamed
// to the mangled names written here. The // KW:... comments mark the lines
// the test looks for.
#include <hip/hip_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

namespace kw_wrap {

struct LaunchArgs {
  void* args_ptr;
  std::size_t* arg_size;
  int gdx, gdy, gdz;
  int bdx, bdy, bdz;
  hipStream_t stream;
};

// The loader as aiter names it (annotations/loaders: AiterAsmKernel, code
// objects under hsa/<arch>/); its bodies do not matter here.
class AiterAsmKernel {
 public:
  AiterAsmKernel(const char* name, const char* hsaco) : name_(name), hsaco_(hsaco) {}
  void launch_kernel(const LaunchArgs& a) { (void)a; }

 private:
  const char* name_;
  const char* hsaco_;
};

struct __attribute__((packed)) ScaleArgs {
  void* out;
  const void* in;
  float scale;
  int n;
};

// The wrapper: the loader is its member, built from the constructor's name
// and code object.
class ScaleKernel {
 public:
  ScaleKernel(const char* name, const char* hsaco, int tile = 256)
      : kernel(name, hsaco), tile_(tile) {}  // KW:SITE wrap.member

  void run(void* out, const void* in, float scale, int n, hipStream_t stream) {
    ScaleArgs args{out, in, scale, n};
    std::size_t arg_size = sizeof(args);
    kernel.launch_kernel({&args, &arg_size, (n + tile_ - 1) / tile_, 1, 1, 256, 1, 1,  // KW:LAUNCH wrap.run
                          stream});
  }

 private:
  AiterAsmKernel kernel;
  int tile_;
};

// By a runtime flag: one static wrapper per kernel, constructed from literals.
void scale_by_flag(void* out, const void* in, float scale, int n, bool relu,
                   hipStream_t stream) {
  ScaleKernel* impl = nullptr;
  if (relu) {
    static ScaleKernel impl_relu("_ZN2kw4wrap10scale_reluE", "wrap/scale_relu.co", 512);  // KW:CALL wrap.relu
    impl = &impl_relu;
  } else {
    static ScaleKernel impl_plain("_ZN2kw4wrap5scaleE", "wrap/scale.co");  // KW:CALL wrap.plain
    impl = &impl_plain;
  }
  impl->run(out, in, scale, n, stream);
}

// By a config table's row (as aiter's generated config headers, with the
// row's arch): the wrapper made with std::make_unique from the row's fields,
// kept in a cache by kernel name.
struct TileConfig {
  std::string arch;
  std::string knl_name;
  std::string co_name;
  int tile;
};

static const std::unordered_map<int, TileConfig> tile_configs = {  // KW:DECL wrap.table
    {256, {"gfx942", "_ZN2kw4wrap5scaleE", "wrap/scale.co", 256}},
    {512, {"gfx942", "_ZN2kw4wrap10scale_reluE", "wrap/scale_relu.co", 512}},
};

void scale_by_tile(void* out, const void* in, float scale, int n, int tile,
                   hipStream_t stream) {
  static std::unordered_map<std::string, std::unique_ptr<ScaleKernel>> cache;
  auto it = tile_configs.find(tile);
  if (it == tile_configs.end()) return;
  const TileConfig& cfg = it->second;
  const char* name = cfg.knl_name.c_str();
  const char* co_name = cfg.co_name.c_str();
  auto slot = cache.emplace(name, nullptr);
  if (slot.second)
    slot.first->second = std::make_unique<ScaleKernel>(name, co_name, cfg.tile);  // KW:CALL wrap.row
  slot.first->second->run(out, in, scale, n, stream);
}

// By a table passed in (as aiter's get_heuristic_kernel(..., CFG* cfgs)),
// which its caller picks by a runtime flag: a local pointer set to one of two
// tables.
using TileTable = std::unordered_map<int, TileConfig>;

static const TileTable relu_configs = {  // KW:DECL wrap.relu_table
    {256, {"gfx942", "_ZN2kw4wrap10scale_reluE", "wrap/scale_relu.co", 256}},
};

ScaleKernel* pick_kernel(const TileTable* cfgs, int tile) {
  static std::unordered_map<std::string, std::unique_ptr<ScaleKernel>> cache;
  auto it = cfgs->find(tile);
  if (it == cfgs->end()) return nullptr;
  const auto& cfg = it->second;
  auto slot = cache.emplace(cfg.knl_name, nullptr);
  if (slot.second)
    slot.first->second = std::make_unique<ScaleKernel>(cfg.knl_name.c_str(),  // KW:CALL wrap.param
                                                       cfg.co_name.c_str(), cfg.tile);
  return slot.first->second.get();
}

void scale_by_table(void* out, const void* in, float scale, int n, bool relu, int tile,
                    hipStream_t stream) {
  const TileTable* table = nullptr;
  if (relu)
    table = &relu_configs;
  else
    table = &tile_configs;
  ScaleKernel* impl = pick_kernel(table, tile);
  if (impl) impl->run(out, in, scale, n, stream);
}

}  // namespace kw_wrap

extern "C" void kw_wrap_scale(void* out, const void* in, float scale, int n, int relu,
                              hipStream_t stream) {
  kw_wrap::scale_by_flag(out, in, scale, n, relu != 0, stream);
}

extern "C" void kw_wrap_scale_tile(void* out, const void* in, float scale, int n, int tile,
                                   hipStream_t stream) {
  kw_wrap::scale_by_tile(out, in, scale, n, tile, stream);
}

extern "C" void kw_wrap_scale_table(void* out, const void* in, float scale, int n, int relu,
                                    int tile, hipStream_t stream) {
  kw_wrap::scale_by_table(out, in, scale, n, relu != 0, tile, stream);
}
