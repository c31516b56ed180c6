// kw_host_entries.cpp: C++ host functions as entry points. Once the TU's
// launches and host calls are recorded (and `dead` marked): every outermost
// host function of the TU that reaches a live launch along live calls (no
// other host function of the TU calls it) and has external linkage is an
// entry of kind `cxx`, unless it already is one (extern "C", a pybind11 or
// torch binding), and so is `main` when one of its recorded calls may lead to
// a launch in another TU; functions named in annotations/entrypoints/functions.txt
// (or the entrypoints=FILE plugin argument) are entries of kind `annotated`.
#include "kw_host_internal.h"

#include "clang/AST/ASTLambda.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

using namespace clang;

namespace kwalk {

namespace {

bool isEntryFunction(CaptureContext &C, const char *Symbol) {
    const kw_sidecar &Doc = C.doc();
    for (size_t I = 0; I < Doc.entries.n; I++)
        if (Doc.entries.v[I].function_symbol && Symbol &&
            !std::strcmp(Doc.entries.v[I].function_symbol, Symbol))
            return true;
    return false;
}

void pushEntry(CaptureContext &C, const FunctionDecl *FD, const char *Kind) {
    const char *Sym = hostSymbol(C, FD);
    if (isEntryFunction(C, Sym))
        return;
    kw_entry *E = KW_PUSH(C.arena(), C.doc().entries);
    if (!E)
        return;
    E->function = hostFunctionName(C, FD);
    E->name = E->function;
    E->kind = Kind;
    E->function_symbol = Sym;
    E->location = C.loc(FD->getLocation());
}

bool liveEdge(CaptureContext &C, const CallEdge &E) {
    const kw_sidecar &Doc = C.doc();
    return E.Call >= Doc.host_calls.n || !Doc.host_calls.v[E.Call].dead;
}

} // namespace

void recordHostEntries(CaptureContext &C, const HostCallGraph &G,
                       const std::vector<const FunctionDecl *> &Launchers,
                       const std::vector<const FunctionDecl *> &Annotated) {
    for (const FunctionDecl *FD : Annotated)
        pushEntry(C, FD, "annotated");

    // Every function that reaches a live launch, along live calls.
    std::set<const FunctionDecl *> Seen; // canonical declarations
    std::vector<const FunctionDecl *> Order, Work;
    auto Add = [&](const FunctionDecl *FD) {
        if (FD && Seen.insert(FD->getCanonicalDecl()).second) {
            Order.push_back(FD);
            Work.push_back(FD);
        }
    };
    for (const FunctionDecl *FD : Launchers)
        Add(FD);
    while (!Work.empty()) {
        const FunctionDecl *FD = Work.back();
        Work.pop_back();
        auto It = G.Callers.find(FD->getCanonicalDecl());
        if (It == G.Callers.end())
            continue;
        for (const CallEdge &E : It->second)
            if (liveEdge(C, E))
                Add(E.Caller);
    }

    // The outermost ones: no call from another function of the TU. A call in a
    // discarded branch counts: the function is a helper of its TU whose call
    // never runs (its launches are emitted but unreachable), not an API.
    std::vector<const FunctionDecl *> Outer;
    for (const FunctionDecl *FD : Order) {
        const FunctionDecl *Canon = FD->getCanonicalDecl();
        bool Called = false;
        auto It = G.Callers.find(Canon);
        if (It != G.Callers.end())
            for (const CallEdge &E : It->second)
                Called |= E.Caller->getCanonicalDecl() != Canon;
        if (Called || isLambdaCallOperator(FD) || FD->isExternC() || FD->isImplicit() ||
            !FD->isExternallyVisible() || !FD->getDeclName())
            continue;
        Outer.push_back(FD);
    }
    // A program's main is its entry also where its launches are in other TUs
    // (an example's main calling the instance's API): when one of its live
    // calls is recorded, i.e. may lead to a launch.
    const kw_sidecar &Doc = C.doc();
    const FunctionDecl *Main = nullptr;
    for (const auto &KV : G.Callers)
        for (const CallEdge &E : KV.second)
            if (!Main && E.Caller->isMain() && E.Call < Doc.host_calls.n && liveEdge(C, E))
                Main = E.Caller;
    for (const FunctionDecl *FD : Outer)
        if (Main && FD->getCanonicalDecl() == Main->getCanonicalDecl())
            Main = nullptr;
    if (Main)
        Outer.push_back(Main);
    SourceManager &SM = C.sm();
    std::stable_sort(Outer.begin(), Outer.end(), [&](const FunctionDecl *A, const FunctionDecl *B) {
        return SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
    });
    for (const FunctionDecl *FD : Outer)
        pushEntry(C, FD, "cxx");
}

} // namespace kwalk
