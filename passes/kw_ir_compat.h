// kw_ir_compat.h: where LLVM differs between the majors kwalk builds against
// (19 and 22 are tested), on the IR side; the Clang side's shims are in
// plugin/kw_compat.h. One shim each, chosen by what the LLVM at hand does
// rather than by its version number.
#ifndef KW_IR_COMPAT_H
#define KW_IR_COMPAT_H

#include "llvm/Demangle/Demangle.h"

#include <string>

namespace kwir {

// Replace every Old in S by New.
inline std::string replaceAll(std::string S, const std::string &Old, const std::string &New) {
    for (size_t P = S.find(Old); P != std::string::npos; P = S.find(Old, P + New.size()))
        S.replace(P, Old.size(), New);
    return S;
}

// llvm::demangle, also for names with DF16b (__bf16, std::bfloat16_t): LLVM
// 19's demangler does not know it and leaves such a name as it is, where 22
// prints std::bfloat16_t. There the builtin is given the code of another
// builtin that no device code has (Dd, decimal64: not a substitution
// candidate either, so the S_ references stay right), demangled, and named
// back.
inline std::string demangleSymbol(const std::string &Name) {
    std::string D = llvm::demangle(Name);
    if (D != Name || Name.find("DF16b") == std::string::npos ||
        Name.find("Dd") != std::string::npos)
        return D;
    std::string Alt = replaceAll(Name, "DF16b", "Dd");
    std::string T = llvm::demangle(Alt);
    return T == Alt ? D : replaceAll(T, "decimal64", "std::bfloat16_t");
}

} // namespace kwir

#endif
