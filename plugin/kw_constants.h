// kw_constants.h: the named constants a launch's configuration or a
// condition is written with (sidecar `constants`), so that `kwalk render
// --shape` evaluates `(n + B - 1) / B` from n alone: const/constexpr
// variables and enumerators with the value clang's constant evaluation gives
// them, and locals never changed after their declaration whose initializer
// is not constant (recorded as that initializer, followed in turn).
#ifndef KW_CONSTANTS_H
#define KW_CONSTANTS_H

#include "kw_context.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <set>
#include <string>
#include <vector>

namespace kwalk {

// A local variable that keeps its initializer's value: const-qualified, or
// only read after its declaration in the function that declares it.
// Enclosing: the function to look in (null: the one that declares V).
// Remembered per (V, Enclosing) in C.
bool neverChanged(CaptureContext &C, const clang::ValueDecl *V,
                  const clang::FunctionDecl *Enclosing);

class ConstantSet {
  public:
    explicit ConstantSet(CaptureContext &C) : C(C) {}
    // The names E is written with (each once, dependencies first).
    void add(const clang::Expr *E) {
        walk(E, 0);
    }
    // Append what was found to a sidecar array (any KW_ARRAY(kw_constant)).
    template <class Array> void store(Array &Out) {
        for (const kw_constant &K : Found) {
            kw_constant *P = KW_PUSH(C.arena(), Out);
            if (!P)
                return;
            *P = K;
        }
    }

  private:
    void walk(const clang::Stmt *S, int Depth);
    void name(const clang::DeclRefExpr *DRE, int Depth);
    CaptureContext &C;
    std::set<std::string> Seen;
    std::vector<kw_constant> Found;
};

} // namespace kwalk

#endif
