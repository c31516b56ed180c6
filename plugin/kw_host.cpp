// kw_host.cpp: the one traversal of the host job's AST. It keeps the stack of
// enclosing functions (lambdas included), gathers the host call graph, and
// hands launches and entry points to kw_launches.cpp and kw_entries.cpp. Of
// the call edges, only those whose callee can lead to a launch become
// host_calls[] records (with their guards): the callee reaches a launch of
// the TU, or a function the TU declares without defining it (which may
// launch in another TU). The rest (a header library's host-and-device
// helpers calling each other) cannot be on an entry's path to a launch.
#include "kw_host.h"

#include "kw_constants.h"
#include "kw_guards.h"
#include "kw_host_internal.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace clang;

namespace kwalk {

namespace {

const char *hostFunctionNameOf(CaptureContext &C, const FunctionDecl *FD) {
    if (isLambdaCallOperator(FD)) {
        const CXXRecordDecl *Closure = cast<CXXMethodDecl>(FD)->getParent();
        std::string Outer;
        if (const auto *P = dyn_cast_or_null<FunctionDecl>(Closure->getParent()))
            Outer = std::string(hostFunctionName(C, P)) + "::";
        kw_loc L = C.loc(Closure->getLocation());
        std::string S;
        llvm::raw_string_ostream OS(S);
        OS << Outer << "(lambda at " << (L.file ? L.file : "?") << ":" << L.line << ":"
           << L.column << ")";
        // a generic lambda's call operator: one function per argument types
        if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs()) {
            OS << "::operator()";
            printTemplateArgumentList(OS, Args->asArray(), C.policy());
        }
        return C.str(OS.str());
    }
    return C.printedName(FD);
}

} // namespace

const char *hostFunctionName(CaptureContext &C, const FunctionDecl *FD) {
    auto Known = C.HostNames.find(FD);
    if (Known != C.HostNames.end())
        return Known->second;
    // Not a reference into the map: naming a lambda names its enclosing
    // function first, which may grow the map.
    const char *Name = hostFunctionNameOf(C, FD);
    C.HostNames[FD] = Name;
    return Name;
}

const char *hostSymbol(CaptureContext &C, const FunctionDecl *FD) {
    return C.symbol(FD);
}

namespace {

bool isDeviceOnly(const FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>())
        return true;
    return FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>();
}

class HostVisitor : public RecursiveASTVisitor<HostVisitor> {
    using Base = RecursiveASTVisitor<HostVisitor>;

  public:
    HostVisitor(CaptureContext &C, const std::set<std::string> &EntryNames)
        : C(C), EntryNames(EntryNames) {}

    HostCallGraph Graph;
    // Every edge of Graph, in discovery order; a host_calls[] record is made
    // for the kept ones only (keepCalls).
    struct RawEdge {
        const FunctionDecl *Caller, *Callee, *Canon; // Canon: the callee's canonical declaration
        const Stmt *S;
        SourceLocation Loc;
        size_t Slot; // its position in Graph.Callers[Canon]
    };
    std::vector<RawEdge> Raw;
    std::vector<PendingLaunch> Launches;
    std::vector<PendingLaunch> AsmLaunches;
    std::vector<const FunctionDecl *> Annotated; // definitions EntryNames name

    bool shouldVisitTemplateInstantiations() const { return true; }

    bool TraverseDecl(Decl *D) {
        auto *FD = dyn_cast_or_null<FunctionDecl>(D);
        if (FD)
            Stack.push_back(FD);
        bool R = Base::TraverseDecl(D);
        if (FD)
            Stack.pop_back();
        return R;
    }

    bool TraverseLambdaExpr(LambdaExpr *L) {
        C.Parents.noteLambda(L, Stack.empty() ? nullptr : Stack.back());
        Stack.push_back(L->getCallOperator());
        bool R = Base::TraverseLambdaExpr(L);
        Stack.pop_back();
        // A generic lambda's body above is its pattern; each call with other
        // argument types instantiates the call operator, with launches of its
        // own (the traversal of a lambda does not reach them).
        if (FunctionTemplateDecl *FT = L->getDependentCallOperator())
            for (FunctionDecl *Spec : FT->specializations())
                if (R && Spec->isThisDeclarationADefinition())
                    R = TraverseDecl(Spec);
        return R;
    }

    bool VisitFunctionDecl(FunctionDecl *FD) {
        if (!relevant(FD))
            return true;
        maybeRecordExternC(C, FD);
        if (!EntryNames.empty() && FD->isThisDeclarationADefinition() && FD->getDeclName() &&
            EntryNames.count(FD->getQualifiedNameAsString()))
            Annotated.push_back(FD);
        return true;
    }

    bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *Caller = current();
        if (!Caller)
            return true;
        if (isa<CUDAKernelCallExpr>(CE) || isLaunchCall(CE)) {
            Launches.push_back({CE, Caller});
            return true;
        }
        if (isAsmLaunchCall(CE)) {
            // The loader's own hipModuleLaunchKernel is its business: its
            // callers' launch_kernel calls are the launches.
            if (!isLoaderMethod(Caller))
                AsmLaunches.push_back({CE, Caller});
            if (!isa<CXXMemberCallExpr>(CE))
                return true;
        }
        if (auto *MC = dyn_cast<CXXMemberCallExpr>(CE)) {
            maybeRecordPybind(C, MC, Caller);
            maybeRecordTorch(C, MC, Caller);
        }
        edge(Caller, CE->getDirectCallee(), CE, CE->getBeginLoc());
        return true;
    }

    bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
        const FunctionDecl *Caller = current();
        const CXXConstructorDecl *Ctor = CE->getConstructor();
        if (Caller && Ctor && Ctor->isUserProvided())
            edge(Caller, Ctor, CE, CE->getBeginLoc());
        return true;
    }

  private:
    CaptureContext &C;
    const std::set<std::string> &EntryNames;
    std::vector<const FunctionDecl *> Stack;
    std::map<const FunctionDecl *, bool> Relevant;

    bool relevant(const FunctionDecl *FD) {
        auto It = Relevant.find(FD);
        if (It != Relevant.end())
            return It->second;
        bool R = !FD->isDependentContext() && !isDeviceOnly(FD) &&
                 !C.inSystemHeader(FD->getLocation());
        Relevant[FD] = R;
        return R;
    }

    const FunctionDecl *current() {
        if (Stack.empty())
            return nullptr;
        const FunctionDecl *FD = Stack.back();
        return relevant(FD) ? FD : nullptr;
    }

    void edge(const FunctionDecl *Caller, const FunctionDecl *Callee, const Stmt *S,
              SourceLocation Loc) {
        if (!Callee || Callee->getBuiltinID() != 0 || isDeviceOnly(Callee))
            return;
        if (C.inSystemHeader(Callee->getLocation()))
            return;
        const FunctionDecl *Canon = Callee->getCanonicalDecl();
        std::vector<CallEdge> &In = Graph.Callers[Canon];
        Raw.push_back({Caller, Callee, Canon, S, Loc, In.size()});
        In.push_back({Caller, Loc, SIZE_MAX, S});
    }

  public:
    // The host_calls[] record of every edge whose callee may lead to a launch
    // (header comment), in discovery order; its index goes into the graph.
    void keepCalls(const std::vector<const FunctionDecl *> &Launchers) {
        std::set<const FunctionDecl *> Reach; // canonical declarations
        std::vector<const FunctionDecl *> Work;
        auto Add = [&](const FunctionDecl *FD) {
            if (FD && Reach.insert(FD->getCanonicalDecl()).second)
                Work.push_back(FD->getCanonicalDecl());
        };
        for (const FunctionDecl *FD : Launchers)
            Add(FD);
        for (const RawEdge &E : Raw)
            if (!E.Canon->isDefined())
                Add(E.Canon);
        while (!Work.empty()) {
            const FunctionDecl *FD = Work.back();
            Work.pop_back();
            auto It = Graph.Callers.find(FD);
            if (It != Graph.Callers.end())
                for (const CallEdge &E : It->second)
                    Add(E.Caller);
        }
        for (const RawEdge &E : Raw)
            if (Reach.count(E.Canon))
                record(E);
    }

  private:
    void record(const RawEdge &E) {
        kw_host_call *HC = KW_PUSH(C.arena(), C.doc().host_calls);
        if (!HC)
            return;
        Graph.Callers[E.Canon][E.Slot].Call = C.doc().host_calls.n - 1;
        HC->caller = hostSymbol(C, E.Caller);
        HC->callee = hostSymbol(C, E.Callee);
        HC->caller_name = hostFunctionName(C, E.Caller);
        HC->callee_name = hostFunctionName(C, E.Callee);
        HC->location = C.loc(E.Loc);
        std::vector<Guard> Guards = collectGuards(C, E.S, E.Caller);
        appendGuards(C, HC->guards, Guards);
        ConstantSet K(C);
        for (const Guard &G : Guards)
            for (const clang::Expr *X : G.Exprs)
                K.add(X);
        K.store(HC->constants);
    }
};

} // namespace

void captureHost(CaptureContext &C, const std::set<std::string> &EntryNames) {
    HostVisitor V(C, EntryNames);
    V.TraverseDecl(C.ast().getTranslationUnitDecl());
    std::vector<const FunctionDecl *> Launchers;
    for (const PendingLaunch &L : V.Launches)
        Launchers.push_back(L.Enclosing);
    for (const PendingLaunch &L : V.AsmLaunches)
        Launchers.push_back(L.Enclosing);
    V.keepCalls(Launchers);
    kw_sidecar &Doc = C.doc();
    // Each recorded launch's enclosing function, by launch index.
    std::vector<const FunctionDecl *> LaunchFn;
    for (const PendingLaunch &L : V.Launches) {
        recordLaunch(C, L, V.Graph);
        LaunchFn.resize(Doc.launches.n, L.Enclosing);
    }
    AsmModules Modules;
    for (const PendingLaunch &L : V.AsmLaunches) {
        recordAsmLaunch(C, L, V.Graph, Modules);
        LaunchFn.resize(Doc.launches.n, L.Enclosing);
    }
    // A launch or call under a condition that is constant false never runs.
    std::vector<const FunctionDecl *> Live;
    for (size_t I = 0; I < Doc.launches.n; I++) {
        Doc.launches.v[I].dead = guardsDead(Doc.launches.v[I].guards);
        if (!Doc.launches.v[I].dead && I < LaunchFn.size())
            Live.push_back(LaunchFn[I]);
    }
    for (size_t I = 0; I < Doc.host_calls.n; I++)
        Doc.host_calls.v[I].dead = guardsDead(Doc.host_calls.v[I].guards);
    recordHostEntries(C, V.Graph, Live, V.Annotated);
}

} // namespace kwalk
