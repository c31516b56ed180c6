// kw_guards.h: the conditions between a function's entry and a statement in
// it (if/else branches with polarity, switch cases, ternaries, loops), found
// by walking the statement's parents. A launch written inside a lambda sees
// the conditions of the function the lambda is written in as well, because
// that is where a dispatch macro puts its switch.
#ifndef KW_GUARDS_H
#define KW_GUARDS_H

#include "kw_context.h"

#include <vector>

namespace kwalk {

struct Guard {
    const char *Kind;
    const char *Condition;
    bool Holds;
    kw_loc Location;
};

// Outermost first.
std::vector<Guard> collectGuards(CaptureContext &C, const clang::Stmt *S);

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
        K->location = G.Location;
    }
}

} // namespace kwalk

#endif
