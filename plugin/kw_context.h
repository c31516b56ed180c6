// kw_context.h: the one object the capture visitors share: the Clang
// ASTContext and SourceManager, the sidecar document being filled (plain C
// structs from sidecar/kw_sidecar.h), and the helpers that turn Clang's
// locations, names and expressions into strings in the document's arena.
// Nothing of Clang leaves the plugin/ directory.
#ifndef KW_CONTEXT_H
#define KW_CONTEXT_H

#include "kw_parents.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Mangle.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

extern "C" {
#include "sidecar/kw_sidecar.h"
}

#include <map>
#include <memory>
#include <set>
#include <string>

namespace kwalk {

class CaptureContext {
  public:
    CaptureContext(clang::ASTContext &Ctx, kw_sidecar &Doc);

    clang::ASTContext &ast() { return Ctx; }
    clang::SourceManager &sm() { return Ctx.getSourceManager(); }
    kw_sidecar &doc() { return Doc; }
    kw_arena *arena() { return &Doc.arena; }

    // A copy of S in the document's arena.
    const char *str(llvm::StringRef S);
    // The file location the user wrote (SourceManager::getFileLoc), absolute path.
    kw_loc loc(clang::SourceLocation L);
    // Mangled name as the object file spells it (device name for kernels).
    const char *symbol(const clang::NamedDecl *D);
    // Qualified name with template arguments: "ns::k<float, 256>".
    const char *printedName(const clang::NamedDecl *D);
    // The source text of E when it lies in one file region, else E pretty-printed.
    const char *exprText(const clang::Expr *E);
    std::string exprString(const clang::Expr *E);
    // The source text of R (a token range) when it lies in one file region,
    // blanks and line breaks folded; empty otherwise.
    std::string rangeString(clang::SourceRange R);
    std::string typeString(clang::QualType T);
    // True for locations in system headers (HIP runtime, libc++, pybind11).
    bool inSystemHeader(clang::SourceLocation L);
    const clang::PrintingPolicy &policy() const { return Policy; }
    // Memo of neverChanged (kw_constants.h) per variable and function: each
    // answer walks a function body, and one local is asked about by every
    // launch and host call written with it.
    std::map<std::pair<const clang::ValueDecl *, const clang::FunctionDecl *>, bool> NeverChanged;
    // Memo of hostFunctionName (kw_host.cpp) per function: every host call
    // edge names its caller and its callee.
    llvm::DenseMap<const clang::FunctionDecl *, const char *> HostNames;
    // Parents of statements in the host functions walked up from.
    ParentIndex Parents;
    // Memo of kernelSymbolText (kw_kernels.h): a device function's symbol is
    // asked for by every call edge of every kernel that reaches it.
    llvm::DenseMap<const clang::FunctionDecl *, const char *> KernelSymbols;
    // Memo of kw_guards.cpp's constant conditions: -1 not constant, else 0/1.
    llvm::DenseMap<const clang::Expr *, signed char> Bools;
    // Memo of kw_constants.cpp's integer values per expression: its decimal
    // text, or null where clang's evaluation gives none.
    llvm::DenseMap<const clang::Expr *, const char *> IntTexts;

  private:
    clang::ASTContext &Ctx;
    kw_sidecar &Doc;
    clang::PrintingPolicy Policy;
    // The main file is preprocessed output (-save-temps: NAME.hipi): its line
    // markers lead back to the user's files, so locations follow them.
    bool LineDirectives = false;
    std::unique_ptr<clang::ASTNameGenerator> Names;
    // Memos: the same location, declaration or expression is asked for by
    // every guard, launch and call edge under it (a dispatch macro's nested
    // conditions, thousands of times in one aiter TU). The strings live in
    // the document's arena, so sharing them is safe.
    llvm::DenseMap<clang::SourceLocation::UIntTy, kw_loc> Locs;
    llvm::DenseMap<const char *, const char *> Paths; // presumed name -> absolute
    llvm::DenseMap<const clang::NamedDecl *, const char *> Symbols, Printed;
    llvm::DenseMap<const clang::Expr *, const char *> Texts;
};

} // namespace kwalk

#endif
