// kw_entries.cpp: host entry points, the two ways aiter exposes them:
// extern "C" functions (loaded through ctypes) and pybind11 m.def("name", &fn)
// calls (with the module name from PYBIND11_MODULE's init function).
#include "kw_host_internal.h"

#include "clang/AST/DeclCXX.h"

using namespace clang;

namespace kwalk {

void maybeRecordExternC(CaptureContext &C, const FunctionDecl *FD) {
    if (!FD->isExternC() || !FD->isThisDeclarationADefinition() || !FD->getIdentifier())
        return;
    // Reserved names, and the module init function PYBIND11_MODULE generates
    // (its m.def calls are the entries).
    if (FD->getName().starts_with("__") || FD->getName().starts_with("PyInit_"))
        return;
    kw_entry *E = KW_PUSH(C.arena(), C.doc().entries);
    if (!E)
        return;
    E->name = C.str(FD->getName());
    E->kind = "extern_c";
    E->function = hostFunctionName(C, FD);
    E->function_symbol = hostSymbol(C, FD);
    E->location = C.loc(FD->getLocation());
}

const FunctionDecl *boundFunction(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
        E = UO->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
        return dyn_cast<FunctionDecl>(DRE->getDecl());
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
        E = MT->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
        E = BT->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
        E = CE->getArg(0)->IgnoreParenImpCasts();
    if (const auto *L = dyn_cast<LambdaExpr>(E))
        return L->getCallOperator();
    // TORCH_FN(f): an object whose class template has f as a template argument.
    if (const CXXRecordDecl *R = E->getType()->getAsCXXRecordDecl())
        if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(R))
            for (const TemplateArgument &A : S->getTemplateArgs().asArray())
                if (A.getKind() == TemplateArgument::Declaration)
                    if (const auto *FD = dyn_cast<FunctionDecl>(A.getAsDecl()))
                        return FD;
    // torch::dispatch(key, &f): the function is the last argument.
    if (const auto *CE = dyn_cast<CallExpr>(E); CE && CE->getNumArgs() > 0)
        return boundFunction(CE->getArg(CE->getNumArgs() - 1));
    return nullptr;
}

void maybeRecordPybind(CaptureContext &C, const CXXMemberCallExpr *CE,
                       const FunctionDecl *Enclosing) {
    const CXXMethodDecl *M = CE->getMethodDecl();
    if (!M || !M->getIdentifier() || M->getName() != "def" || CE->getNumArgs() < 2)
        return;
    const CXXRecordDecl *R = M->getParent();
    std::string Owner = R ? R->getQualifiedNameAsString() : "";
    if (Owner.rfind("pybind11::module", 0) != 0)
        return;
    const auto *Name = dyn_cast<StringLiteral>(CE->getArg(0)->IgnoreParenImpCasts());
    const FunctionDecl *Fn = boundFunction(CE->getArg(1));
    if (!Name || !Fn)
        return;
    kw_entry *E = KW_PUSH(C.arena(), C.doc().entries);
    if (!E)
        return;
    E->name = C.str(Name->getString());
    E->kind = "pybind";
    E->function = hostFunctionName(C, Fn);
    E->function_symbol = hostSymbol(C, Fn);
    E->location = C.loc(CE->getBeginLoc());
    if (Enclosing && Enclosing->getIdentifier()) {
        StringRef Init = Enclosing->getName();
        if (Init.consume_front("pybind11_init_"))
            E->module = C.str(Init);
    }
}

} // namespace kwalk
