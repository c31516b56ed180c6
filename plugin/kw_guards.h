// kw_guards.h: the conditions between a function's entry and a statement in
// it (if/else branches with polarity, switch cases, ternaries, loops), found
// by walking the statement's parents. A launch written inside a lambda sees
// the conditions of the function the lambda is written in as well, because
// that is where a dispatch macro puts its switch.
//
// A condition clang can evaluate at compile time (an `if constexpr` in
// non-template code, whose discarded branch is still compiled; `if (N > 8)`
// in an instantiation) is marked "always" or "never": a statement under a
// "never" guard is dead, compiled but never run.
#ifndef KW_GUARDS_H
#define KW_GUARDS_H

#include "kw_context.h"

#include <cstring>
#include <vector>

namespace kwalk {

struct Guard {
    const char *Kind;
    const char *Condition;
    bool Holds;
    const char *Constant = nullptr; // "always", "never", or null: not a constant
    kw_loc Location;
    // the expressions the condition's text is made of (the condition; a
    // switch's operand and labels), for the constants they name
    std::vector<const clang::Expr *> Exprs;
};

// Outermost first. Fn: the function S is written in (the host traversal's).
std::vector<Guard> collectGuards(CaptureContext &C, const clang::Stmt *S,
                                 const clang::FunctionDecl *Fn);

// True when a guard of Gs is constant "never" (the statement never runs).
template <class GuardArray> bool guardsDead(const GuardArray &Gs) {
    for (size_t I = 0; I < Gs.n; I++)
        if (Gs.v[I].constant && std::strcmp(Gs.v[I].constant, "never") == 0)
            return true;
    return false;
}

// Append guards to a sidecar guard array (any KW_ARRAY(kw_guard)).
template <class GuardArray>
void appendGuards(CaptureContext &C, GuardArray &Out, const std::vector<Guard> &Gs) {
    for (const Guard &G : Gs) {
        kw_guard *K = KW_PUSH(C.arena(), Out);
        if (!K)
            return;
        K->kind = G.Kind;
        K->condition = G.Condition;
        K->holds = G.Holds;
        K->constant = G.Constant;
        K->location = G.Location;
    }
}

} // namespace kwalk

#endif
