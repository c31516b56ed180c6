// kw_asm_configs.h: the corpus's table of precompiled ASM kernels, in the
// shape of a header a code generator writes from a CSV of kernels (one row a
// kernel: its selecting fields, its name in the code object, the code
// object). Rows are keyed by "<arch>_<kernel>". Paths start with KW_ASM_DIR,
// which the corpus build defines as "<corpus out>/hsa/". The capture tests
// read the KW_ASM_ROW lines of this file as the ground truth of which
// (kernel, code object) pairs a launch through the table can run.
#pragma once
#include <string>
#include <unordered_map>

#ifndef KW_ASM_DIR
#define KW_ASM_DIR "hsa/"
#endif

namespace kw {

struct KwAsmConfig {
  std::string kernel;
  std::string code_object;
  std::string arch;
  std::string dtype;
  int relu;
};

#define KW_ASM_ROW(dtype, relu, arch, kernel, code_object) \
  { arch "_" kernel, KwAsmConfig{kernel, KW_ASM_DIR code_object, arch, dtype, relu} }

static const std::unordered_map<std::string, KwAsmConfig> kw_asm_configs = {
    KW_ASM_ROW("fp32", 0, "gfx942", "kw_asm_scale", "gfx942/kw_asm_scale.co"),
    KW_ASM_ROW("fp32", 1, "gfx942", "kw_asm_scale_relu", "gfx942/kw_asm_scale_relu.co"),
};

#undef KW_ASM_ROW

}  // namespace kw
