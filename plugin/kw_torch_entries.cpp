// kw_torch_entries.cpp: torch library registrations as entry points:
//   TORCH_LIBRARY(ns, m) { m.def("op(Tensor x) -> Tensor", &fn); }
//   TORCH_LIBRARY_IMPL(ns, CUDA, m) { m.impl("op", &fn); }
// Each def/impl call of torch::Library that binds a C++ function is an entry
// of kind `torch`: name the operator (the schema up to its '('), module the
// library namespace. The macros define a function whose name carries the
// namespace (TORCH_LIBRARY_init_<ns>, TORCH_LIBRARY_FRAGMENT_init_<ns>_<uid>,
// TORCH_LIBRARY_IMPL_init_<ns>_<key>_<uid>); that is where ns is read from.
#include "kw_host_internal.h"

#include "clang/AST/DeclCXX.h"

#include <cctype>
#include <string>

using namespace clang;

namespace kwalk {

namespace {

// The first string literal in E (a schema may come through a helper call:
// TORCH_SELECTIVE_SCHEMA("..."), torch::schema("...", ...)).
const StringLiteral *firstString(const Stmt *S) {
    if (!S)
        return nullptr;
    if (const auto *SL = dyn_cast<StringLiteral>(S))
        return SL;
    for (const Stmt *Child : S->children())
        if (const StringLiteral *SL = firstString(Child))
            return SL;
    return nullptr;
}

// "<ns>[_<key>]_<uid>" -> "<ns>": a trailing all-digit part is the uid, and
// an IMPL block's last remaining part the dispatch key.
std::string torchNamespace(llvm::StringRef Fn) {
    bool Impl = Fn.consume_front("TORCH_LIBRARY_IMPL_init_");
    bool Fragment = !Impl && Fn.consume_front("TORCH_LIBRARY_FRAGMENT_init_");
    if (!Impl && !Fragment && !Fn.consume_front("TORCH_LIBRARY_init_"))
        return std::string();
    auto DropLast = [&Fn]() {
        size_t U = Fn.rfind('_');
        if (U != llvm::StringRef::npos && U > 0)
            Fn = Fn.take_front(U);
    };
    size_t U = Fn.rfind('_');
    if ((Impl || Fragment) && U != llvm::StringRef::npos &&
        llvm::all_of(Fn.drop_front(U + 1), [](char Ch) { return std::isdigit((unsigned char)Ch); }))
        DropLast();
    if (Impl)
        DropLast();
    return Fn.str();
}

} // namespace

void maybeRecordTorch(CaptureContext &C, const CXXMemberCallExpr *CE,
                      const FunctionDecl *Enclosing) {
    const CXXMethodDecl *M = CE->getMethodDecl();
    if (!M || !M->getIdentifier() || (M->getName() != "def" && M->getName() != "impl") ||
        CE->getNumArgs() < 2)
        return;
    const CXXRecordDecl *R = M->getParent();
    if (!R || R->getQualifiedNameAsString() != "torch::Library")
        return;
    const StringLiteral *Schema = firstString(CE->getArg(0));
    const FunctionDecl *Fn = nullptr;
    for (unsigned I = CE->getNumArgs(); I > 1 && !Fn; I--)
        Fn = boundFunction(CE->getArg(I - 1));
    if (!Schema || !Fn)
        return;
    llvm::StringRef Op = Schema->getString();
    Op = Op.take_until([](char Ch) { return Ch == '('; }).trim();
    kw_entry *E = KW_PUSH(C.arena(), C.doc().entries);
    if (!E)
        return;
    E->name = C.str(Op);
    E->kind = "torch";
    E->function = hostFunctionName(C, Fn);
    E->function_symbol = hostSymbol(C, Fn);
    E->location = C.loc(CE->getBeginLoc());
    if (Enclosing && Enclosing->getIdentifier()) {
        std::string Ns = torchNamespace(Enclosing->getName());
        if (!Ns.empty())
            E->module = C.str(Ns);
    }
}

} // namespace kwalk
