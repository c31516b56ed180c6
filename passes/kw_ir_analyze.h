// kw_ir_analyze.h: the C++ entry of the IR analysis (passes/): the one
// function the plugin's OptimizerLast pass (and the kwir-dump test tool) calls
// for each amdgpu_kernel function of the optimized module. It only reads the
// IR; the results are the plain C structs of kw_ir_facts.h.
#ifndef KW_IR_ANALYZE_H
#define KW_IR_ANALYZE_H

#include "passes/kw_ir_facts.h"

#include "llvm/IR/PassManager.h"

namespace llvm {
class Function;
}

// Analyzes one function (normally an amdgpu_kernel) into *out (initialized
// here), allocating from arena. With FAM, the dominator tree, post-dominator
// tree, loop info and scalar evolution come from (and stay cached in) the
// analysis manager; without it the analysis builds its own. Returns KW_ERR
// with a message only for an internal failure (out of memory); facts it cannot
// derive are recorded as unknown instead.
kw_status kw_ir_analyze_function(const llvm::Function &F, llvm::FunctionAnalysisManager &FAM,
                                 kw_arena *arena, kw_ir_kernel_facts *out, kw_err *err);
kw_status kw_ir_analyze_function(const llvm::Function &F, kw_arena *arena,
                                 kw_ir_kernel_facts *out, kw_err *err);

#endif
