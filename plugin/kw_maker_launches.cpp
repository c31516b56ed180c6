// kw_maker_launches.cpp: launches written through a value instead of a
// kernel's name, the way ck_tile's make_kernel writes them:
//
//   const auto kernel = kentry<MaxThreads, MinBlocks, KernelImpl, Args...>;
//   return [=](const stream_config& s) {
//       kernel<<<grid_dim, block_dim, lds_byte, s.stream_id_>>>(args...);
//   };
//
// The launched kernel is found through the function-pointer variable (a
// local, a lambda's capture of it, or a global, each never changed after its
// initializer); an operand that is a parameter of the function that made the
// lambda (make_kernel's grid_dim, block_dim, lds_byte) is followed to the
// argument that function's one caller passed (the user's `grids`), read in
// the caller's function; where two users' functions launch the same
// instantiation, each launch's to the call in its own user's function.
#include "kw_constants.h"
#include "kw_host_internal.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/Attr.h"

using namespace clang;

namespace kwalk {

namespace {

// The function a variable is declared in (its initializer's scope), or null.
const FunctionDecl *owningFunction(const VarDecl *VD) {
    const DeclContext *DC = VD->getDeclContext();
    while (DC && !isa<FunctionDecl>(DC))
        DC = DC->getParent();
    return DC ? cast<FunctionDecl>(DC) : nullptr;
}

// A variable holding a function pointer that keeps its initializer: const,
// or never written after its declaration in the function that declares it.
const Expr *functionPointerInit(CaptureContext &C, const VarDecl *VD) {
    if (!VD || isa<ParmVarDecl>(VD) || !VD->getInit())
        return nullptr;
    QualType T = VD->getType();
    if (T->isReferenceType())
        T = T->getPointeeType();
    if (!T->isFunctionPointerType() && !T->isFunctionType())
        return nullptr;
    if (T.isConstQualified())
        return VD->getInit();
    if (!VD->hasLocalStorage())
        return nullptr; // a mutable global: any code may have changed it
    const FunctionDecl *Owner = owningFunction(VD);
    const FunctionDecl *Def = nullptr;
    if (!Owner || !Owner->hasBody(Def) || !Def)
        return nullptr;
    return neverChanged(C, VD, Def) ? VD->getInit() : nullptr;
}

} // namespace

const FunctionDecl *kernelThroughValue(CaptureContext &C, const Expr *Callee) {
    const Expr *E = Callee;
    for (int Steps = 0; E && Steps < 16; Steps++) {
        E = E->IgnoreParenCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
            if (UO->getOpcode() != UO_Deref && UO->getOpcode() != UO_AddrOf)
                return nullptr;
            E = UO->getSubExpr();
            continue;
        }
        const auto *DRE = dyn_cast<DeclRefExpr>(E);
        if (!DRE)
            return nullptr;
        if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
            return FD->hasAttr<CUDAGlobalAttr>() ? FD : nullptr;
        E = functionPointerInit(C, dyn_cast<VarDecl>(DRE->getDecl()));
    }
    return nullptr;
}

const Expr *makerArgument(const Expr *E, const FunctionDecl *Enclosing, const HostCallGraph &G,
                          const FunctionDecl *&Caller, const FunctionDecl *User) {
    if (!E || !Enclosing || !isLambdaCallOperator(Enclosing))
        return nullptr;
    const auto *PVD = dyn_cast_or_null<ParmVarDecl>(operandVar(E));
    const auto *Maker = PVD ? dyn_cast<FunctionDecl>(PVD->getDeclContext()) : nullptr;
    if (!Maker || Maker == Enclosing)
        return nullptr;
    // the lambda is written inside the maker (captures its parameter)
    const DeclContext *DC = cast<CXXMethodDecl>(Enclosing)->getParent();
    while (DC && DC != Maker)
        DC = DC->getParent();
    if (!DC)
        return nullptr;
    auto It = G.Callers.find(Maker->getCanonicalDecl());
    if (It == G.Callers.end())
        return nullptr;
    const CallExpr *Call = nullptr;
    for (const CallEdge &Edge : It->second) {
        if (User && Edge.Caller != User)
            continue; // another user's call of the maker
        const auto *CE = dyn_cast_or_null<CallExpr>(Edge.Site);
        if (!CE || (Call && Call != CE))
            return nullptr; // not a call, or called in two places: no one argument
        Call = CE;
        Caller = Edge.Caller;
    }
    if (!Call)
        return nullptr;
    unsigned I = PVD->getFunctionScopeIndex();
    if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Maker))
        I++; // the object is the operator call's first argument
    if (I >= Call->getNumArgs() || isa<CXXDefaultArgExpr>(Call->getArg(I)))
        return nullptr;
    return Call->getArg(I);
}

} // namespace kwalk
