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

// The namespace-scope typedef or alias a type argument was spelled with
// (ck_tile::bf16_t for unsigned short), through local and member aliases and
// substituted template parameters; empty when none.
// Calls (may be null): the types the references to function template
// specializations wrote, to follow a substituted parameter to its caller.
struct CallArgs;
std::string writtenTypeName(clang::ASTContext &Ctx, clang::QualType T,
                            const clang::PrintingPolicy &Policy, const CallArgs *Calls = nullptr);
// The type a caller wrote (or a call's argument had, for a deduced
// parameter) for the template parameter ST stands for, sugar kept; null
// when no reference recorded one.
clang::QualType callerWritten(clang::ASTContext &Ctx, const CallArgs *Calls,
                              const clang::SubstTemplateTypeParmType *ST);
// kw_functor_args.cpp: a trampoline kernel's functor (the kernel struct it
// runs) broken out into K.functor_args; Sugared: the type as a reference
// wrote it (may be null), followed through Calls to the callers' spellings
// (ck_tile::make_kernel's deduced KernelImpl to the caller's `Kernel{}`).
void functorArgs(CaptureContext &C, kw_kernel &K, clang::QualType Functor,
                 clang::QualType Sugared, const CallArgs *Calls = nullptr);

} // namespace kwalk

#endif
