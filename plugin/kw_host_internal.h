// kw_host_internal.h: what the host-job capture files share: the host call
// graph (who calls which function, where) and the per-concept handlers the
// one host traversal calls.
#ifndef KW_HOST_INTERNAL_H
#define KW_HOST_INTERNAL_H

#include "kw_context.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kwalk {

struct CallEdge {
    const clang::FunctionDecl *Caller;
    clang::SourceLocation Loc;
    size_t Call = SIZE_MAX; // its host_calls[] record (for `dead`), SIZE_MAX when none
    const clang::Stmt *Site = nullptr; // the call (or construction) itself
};

// Callers of each host function, in source order of discovery.
struct HostCallGraph {
    std::map<const clang::FunctionDecl *, std::vector<CallEdge>> Callers;
};

// A launch found during the traversal; recorded once the call graph is whole.
struct PendingLaunch {
    const clang::Expr *Site; // the CUDAKernelCallExpr or the hipLaunchKernel call
    const clang::FunctionDecl *Enclosing;
};

// Printed name of a host function; lambdas read "f(...)::(lambda at file:line)".
const char *hostFunctionName(CaptureContext &C, const clang::FunctionDecl *FD);
const char *hostSymbol(CaptureContext &C, const clang::FunctionDecl *FD);

// kw_launches.cpp
bool isLaunchCall(const clang::CallExpr *CE);
void recordLaunch(CaptureContext &C, const PendingLaunch &L, const HostCallGraph &G);
// Shared with kw_asm_launches.cpp: where the user wrote a launch (and the
// macros on the way), its chain of instantiation, its attribution to the user
// when it sits in a library header, and integer constants (following locals
// set once and only read).
void placeLaunch(CaptureContext &C, kw_launch &L, clang::SourceLocation At);
void chainLaunch(CaptureContext &C, kw_launch &L, const clang::FunctionDecl *F,
                 const HostCallGraph &G);
void attributeToUser(kw_launch &L);
bool evalInt(CaptureContext &C, const clang::Expr *E, const clang::FunctionDecl *Enclosing,
             long long &Out);
// The variable an operand is, seen through casts, copies and temporaries
// (a VarDecl, or a BindingDecl of a structured binding); null otherwise.
const clang::ValueDecl *operandVar(const clang::Expr *E);
struct Guard;
// The named constants of a launch's configuration and guards (kw_constants.h).
void launchConstants(CaptureContext &C, kw_launch &L, const clang::Expr *Site,
                     const std::vector<Guard> &Guards);

// kw_maker_launches.cpp: a launch through a function-pointer value and from
// a lambda a maker function returns (ck_tile's make_kernel). The kernel a
// callee expression holds (a kernel's name, or a variable that keeps a
// kernel's address); null when none is seen.
const clang::FunctionDecl *kernelThroughValue(CaptureContext &C, const clang::Expr *Callee);
// An operand of a launch inside a lambda that is a parameter of the function
// the lambda is written in: the argument that function's one call passes
// (Caller: the calling function); null when it is not one, or is called from
// more than one place. With User, the one call made in User (the launch's
// route runs through it: make_kernel called from two users' functions).
const clang::Expr *makerArgument(const clang::Expr *E, const clang::FunctionDecl *Enclosing,
                                 const HostCallGraph &G, const clang::FunctionDecl *&Caller,
                                 const clang::FunctionDecl *User = nullptr);

// kw_inline_expr.cpp: an operand's initializer with its calls to functions
// of one return statement expanded (Kernel::GridSize(args.M, ...) ->
// dim3(((args.M + 256) - 1) / 256, ...)); empty when it makes no such call
// or holds anything else.
std::string inlinedOperand(CaptureContext &C, const clang::Expr *Init);

// kw_asm_launches.cpp: launches of precompiled ASM kernels, through a loader
// class (annotations/loaders/) or hipModuleLaunchKernel.
bool isAsmLaunchCall(const clang::CallExpr *CE);
bool isLoaderMethod(const clang::FunctionDecl *FD);
// The variable or data member an expression names (&x and *x name x); the key
// of the module and assignment indexes.
const clang::Decl *handleDecl(const clang::Expr *E);
// The TU's hipModuleGetFunction / hipModuleLoad calls by the variable or data
// member their first argument assigns; filled by the first module launch.
struct AsmModules {
    bool Built = false;
    std::map<const clang::Decl *, std::vector<const clang::CallExpr *>> GetFunction, Load;
    // Every assignment in the TU (`x = e`, a constructor's `x(e)`) by the
    // variable or data member it sets (kw_asm_tables.cpp, on first use).
    bool AssignBuilt = false;
    std::map<const clang::Decl *, std::vector<const clang::Expr *>> Assigned;
    // Every call and construction in the TU by the function or constructor
    // it calls, with the function it is written in (kw_asm_tables.cpp, on
    // first use: a loader built in a wrapper from its parameters).
    bool CallsBuilt = false;
    std::map<const clang::FunctionDecl *,
             std::vector<std::pair<const clang::Expr *, const clang::FunctionDecl *>>>
        Calls;
};
void recordAsmLaunch(CaptureContext &C, const PendingLaunch &L, const HostCallGraph &G,
                     AsmModules &M);

// kw_entries.cpp
void maybeRecordExternC(CaptureContext &C, const clang::FunctionDecl *FD);
void maybeRecordPybind(CaptureContext &C, const clang::CXXMemberCallExpr *CE,
                       const clang::FunctionDecl *Enclosing);
// kw_torch_entries.cpp: torch::Library def/impl calls in TORCH_LIBRARY blocks.
void maybeRecordTorch(CaptureContext &C, const clang::CXXMemberCallExpr *CE,
                      const clang::FunctionDecl *Enclosing);
// The function a binding's argument names: &f, f, a lambda, TORCH_FN(f),
// torch::dispatch(key, &f).
const clang::FunctionDecl *boundFunction(const clang::Expr *E);

// kw_host_entries.cpp: once launches and calls are recorded (and `dead`
// marked): the TU's outermost visible host functions that reach a live
// launch (kind cxx), and the functions annotations/entrypoints/functions.txt
// or the entrypoints=FILE plugin argument name (kind annotated).
void recordHostEntries(CaptureContext &C, const HostCallGraph &G,
                       const std::vector<const clang::FunctionDecl *> &Launchers,
                       const std::vector<const clang::FunctionDecl *> &Defined);

} // namespace kwalk

#endif
