// kw_kernels.h: device-job capture: one sidecar kernel per __global__
// instantiation the device compile emits, with its template arguments,
// parameters, attributes, doc comment, __shared__ variables, inline asm and
// device call tree.
#ifndef KW_KERNELS_H
#define KW_KERNELS_H

#include "kw_context.h"

#include <set>
#include <string>

namespace kwalk {

// Emitted: the kernel symbols the optimized IR defines; if HaveEmitted is
// false (the IR pass did not run, e.g. -fsyntax-only) every kernel
// instantiation in the AST is taken.
void captureKernels(CaptureContext &C, const char *Arch, const std::set<std::string> &Emitted,
                    bool HaveEmitted);

// The device-side mangled name of a kernel (never the host __device_stub__).
std::string kernelSymbol(clang::ASTContext &Ctx, const clang::FunctionDecl *FD);
// The same, in the document's arena, mangled once per function and job.
const char *kernelSymbolText(CaptureContext &C, const clang::FunctionDecl *FD);

} // namespace kwalk

#endif
