// kw_compat.h: the few places where Clang's API differs between the majors
// kwalk builds against (19 for ROCm 6.4, 20 for ROCm 7.0/7.1, 22 for ROCm 7.2
// and Debian), each behind one small shim so the rest of the plugin reads the
// same everywhere. Shims pick by overload or by the member that exists, not
// by version numbers, where they can. The IR side (passes/, also built
// without Clang) has its own: passes/kw_ir_compat.h (LLVM 19's demangler).
// Loading into another major is refused before any of this: kw_loader.cpp.
#ifndef KW_COMPAT_H
#define KW_COMPAT_H

#include "clang/AST/PrettyPrinter.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/SmallString.h"

#include <string>

namespace kwalk {

// PrintingPolicy: "PrintCanonicalTypes" became "PrintAsCanonical" (clang 21).
template <class P>
auto setPrintCanonical(P &Policy, bool On, int) -> decltype(Policy.PrintAsCanonical = On, void()) {
    Policy.PrintAsCanonical = On;
}
template <class P> void setPrintCanonical(P &Policy, bool On, long) {
    Policy.PrintCanonicalTypes = On;
}
inline void setPrintCanonical(clang::PrintingPolicy &Policy, bool On) {
    setPrintCanonical(Policy, On, 0);
}

// GCCAsmStmt::getAsmString(): a StringLiteral* until clang 20, a std::string
// (constant-expression asm strings) from 21.
inline std::string asmText(const clang::StringLiteral *S) {
    return S ? S->getString().str() : std::string();
}
inline std::string asmText(const std::string &S) {
    return S;
}

// An APSInt in decimal (llvm::toString(APSInt, Radix) is newer than 19).
inline std::string decimal(const llvm::APSInt &V) {
    llvm::SmallString<32> S;
    V.toString(S, 10);
    return std::string(S);
}

} // namespace kwalk

#endif
