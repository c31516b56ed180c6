// kw_launches.cpp: one sidecar launch per kernel launch site in host code:
// <<<>>> (and hipLaunchKernelGGL, which expands to it) and the
// hipLaunchKernel family; the launched kernel's device symbol, where the user
// wrote the launch and through which macros, the configuration with its
// constant value in this instantiation (following dim3/int locals that are
// initialized once and never modified), the arguments by parameter name, the
// guards, and the chain of instantiation up to non-template code.
#include "kw_constants.h"
#include "kw_guards.h"
#include "kw_host_internal.h"
#include "kw_kernels.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <fnmatch.h>

using namespace clang;

namespace kwalk {

namespace {

const char *const LaunchFunctions[] = {"hipLaunchKernel", "hipLaunchCooperativeKernel",
                                       "hipExtLaunchKernel"};

// The initializer of a local variable that is set once and only read after.
const Expr *stableInit(CaptureContext &C, const Expr *E, const FunctionDecl *Enclosing) {
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || !VD->getInit())
        return nullptr;
    const FunctionDecl *Def = nullptr;
    if (!Enclosing || !Enclosing->hasBody(Def))
        return nullptr;
    return neverChanged(C, VD, Def) ? VD->getInit() : nullptr;
}

bool evalIntImpl(CaptureContext &C, const Expr *E, const FunctionDecl *Enclosing, long long &Out,
                 int Depth) {
    if (!E || Depth > 8 || E->isValueDependent() || E->isTypeDependent())
        return false;
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, C.ast())) {
        Out = R.Val.getInt().getExtValue();
        return true;
    }
    const Expr *Inner = E->IgnoreParenImpCasts();
    if (const Expr *Init = stableInit(C, Inner, Enclosing))
        return evalIntImpl(C, Init, Enclosing, Out, Depth + 1);
    return false;
}


// A dim3 (or an integer converted to one) as three constants.
// The expression a temporary or cleanup wrapper holds, or null for anything else.
const Expr *unwrapTemporary(const Expr *E) {
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
        return EWC->getSubExpr();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
        return MT->getSubExpr();
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
        return BT->getSubExpr();
    return nullptr;
}

// A class value of up to three integer fields that clang evaluates as a
// constant (a constexpr dim3, Kernel::BlockSize()).
bool constantDim3(CaptureContext &C, const Expr *E, long long Out[3]) {
    const CXXRecordDecl *RD = E->getType()->getAsCXXRecordDecl();
    if (!RD || RD->getName() != "dim3")
        return false;
    Expr::EvalResult R;
    if (!E->EvaluateAsRValue(R, C.ast()) || !R.Val.isStruct() || R.Val.getStructNumFields() > 3)
        return false;
    long long V[3] = {1, 1, 1};
    for (unsigned I = 0; I < R.Val.getStructNumFields(); I++) {
        const APValue &F = R.Val.getStructField(I);
        if (!F.isInt())
            return false;
        V[I] = F.getInt().getExtValue();
    }
    Out[0] = V[0], Out[1] = V[1], Out[2] = V[2];
    return true;
}

bool evalDim3(CaptureContext &C, const Expr *E, const FunctionDecl *Enclosing, long long Out[3],
              int Depth = 0) {
    for (int Steps = 0; E && Steps < 32 && Depth < 8; Steps++) {
        if (E->isValueDependent() || E->isTypeDependent())
            return false;
        if (constantDim3(C, E, Out))
            return true;
        if (E->getType()->isIntegralOrEnumerationType()) {
            Out[1] = Out[2] = 1;
            return evalIntImpl(C, E, Enclosing, Out[0], 0);
        }
        if (const Expr *Sub = unwrapTemporary(E)) {
            E = Sub;
        } else if (const auto *PE = dyn_cast<ParenExpr>(E)) {
            E = PE->getSubExpr();
        } else if (const auto *CE = dyn_cast<CastExpr>(E)) {
            E = CE->getSubExpr();
        } else if (const auto *CC = dyn_cast<CXXConstructExpr>(E)) {
            const CXXConstructorDecl *Ctor = CC->getConstructor();
            if (Ctor && Ctor->isCopyOrMoveConstructor() && CC->getNumArgs() >= 1) {
                E = CC->getArg(0);
                continue;
            }
            if (CC->getNumArgs() > 3)
                return false;
            long long V[3] = {1, 1, 1};
            for (unsigned I = 0; I < CC->getNumArgs(); I++)
                if (!evalIntImpl(C, CC->getArg(I), Enclosing, V[I], 0))
                    return false;
            Out[0] = V[0], Out[1] = V[1], Out[2] = V[2];
            return true;
        } else if (const Expr *Init = stableInit(C, E, Enclosing)) {
            E = Init;
            Depth++;
        } else {
            return false;
        }
    }
    return false;
}

} // namespace

// The variable an operand is, seen through implicit casts, copies and
// temporaries (a VarDecl, or a BindingDecl of a structured binding); null
// when the operand is not a variable.
const ValueDecl *operandVar(const Expr *E) {
    for (int Steps = 0; E && Steps < 16; Steps++) {
        E = E->IgnoreParens();
        if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
            // an int operand made a dim3: the converting constructor's argument
            const auto *CC = dyn_cast<CXXConstructExpr>(ICE->getSubExpr()->IgnoreParens());
            if (ICE->getCastKind() == CK_ConstructorConversion && CC && CC->getNumArgs() >= 1)
                E = CC->getArg(0);
            else
                E = ICE->getSubExpr();
        } else if (const Expr *Sub = unwrapTemporary(E)) {
            E = Sub;
        } else if (const auto *CC = dyn_cast<CXXConstructExpr>(E)) {
            // a copy; not a construction the user wrote (dim3(x, y))
            const CXXConstructorDecl *Ctor = CC->getConstructor();
            if (!Ctor || !Ctor->isCopyOrMoveConstructor() || CC->getNumArgs() < 1)
                return nullptr;
            E = CC->getArg(0);
        } else {
            const auto *DRE = dyn_cast<DeclRefExpr>(E);
            const ValueDecl *D = DRE ? DRE->getDecl() : nullptr;
            return D && (isa<VarDecl>(D) || isa<BindingDecl>(D)) ? D : nullptr;
        }
    }
    return nullptr;
}

namespace {

// A variable's initializer as one expression: "dim3(x, y)" for a direct or
// list initialization of a class, else the initializer as written (or, inside
// a macro body, pretty-printed).
std::string initString(CaptureContext &C, const VarDecl *VD) {
    const Expr *Init = VD->getInit();
    if (!Init)
        return std::string();
    const Expr *I = Init->IgnoreImplicit();
    if (const auto *CC = dyn_cast<CXXConstructExpr>(I);
        CC && !isa<CXXTemporaryObjectExpr>(CC) && VD->getInitStyle() != VarDecl::CInit) {
        std::string Type = C.typeString(VD->getType().getUnqualifiedType());
        SourceRange PR = CC->getParenOrBraceRange();
        std::string Inner = PR.isValid() ? C.rangeString(PR) : std::string(); // "(x, y)"
        if (Inner.size() >= 2)
            return Type + "(" + Inner.substr(1, Inner.size() - 2) + ")";
        // not one file region (declared inside a macro): the arguments printed
        std::string Args;
        for (const Expr *A : CC->arguments()) {
            if (isa<CXXDefaultArgExpr>(A))
                break;
            Args += (Args.empty() ? "" : ", ") + C.exprString(A);
        }
        return CC->getNumArgs() && Args.empty() ? std::string() : Type + "(" + Args + ")";
    }
    return C.exprString(Init);
}

// A declaration on one line: as written, or (inside a macro body) printed
// from its type, name and initializer.
std::string declString(CaptureContext &C, const VarDecl *VD, const std::string &Init) {
    std::string Text = C.rangeString(VD->getSourceRange());
    if (!Text.empty())
        return Text;
    Text = C.typeString(VD->getType()) + " " + VD->getNameAsString();
    // a direct initialization "T(args)" reads "T name(args)"
    std::string Type = C.typeString(VD->getType().getUnqualifiedType()) + "(";
    if (VD->getInitStyle() != VarDecl::CInit && Init.compare(0, Type.size(), Type) == 0)
        return Text + Init.substr(Type.size() - 1);
    return Init.empty() ? Text : Text + " = " + Init;
}

// The declaration of the variable an operand names, if it is one. A name a
// structured binding introduces (`auto [block, grid] = pick(...)`) is a
// "binding": its text is the whole declaration, its init the initializer of
// the object it is a part of.
void operandDecl(CaptureContext &C, kw_launch &L, const char *Operand, const Expr *E,
                 const FunctionDecl *Enclosing) {
    const ValueDecl *V = E && !isa<CXXDefaultArgExpr>(E) ? operandVar(E) : nullptr;
    const auto *BD = dyn_cast_or_null<BindingDecl>(V);
    const VarDecl *VD =
        BD ? dyn_cast_or_null<VarDecl>(BD->getDecomposedDecl()) : dyn_cast_or_null<VarDecl>(V);
    if (!VD)
        return;
    kw_operand_decl *D = KW_PUSH(C.arena(), L.operand_decls);
    if (!D)
        return;
    D->operand = Operand;
    D->name = C.str(V->getName());
    D->kind = BD                      ? "binding"
              : isa<ParmVarDecl>(VD)  ? "parameter"
              : VD->hasLocalStorage() ? "local"
                                      : "global";
    std::string Init = BD ? C.exprString(VD->getInit()) : initString(C, VD);
    D->init = Init.empty() ? nullptr : C.str(Init);
    if (!BD && VD->getInit()) // Kernel::GridSize(...) expanded, for --shape
        if (std::string In = inlinedOperand(C, VD->getInit()); !In.empty())
            D->inlined = C.str(In);
    std::string Text = declString(C, VD, Init);
    D->text = Text.empty() ? nullptr : C.str(Text);
    D->location = C.loc(V->getLocation());
    if (!VD->hasLocalStorage()) {
        D->modified = !VD->getType().isConstQualified();
        return;
    }
    // a const local never changes; another one unless only read in the
    // function (not seen: not known to stay)
    D->modified = !neverChanged(C, V, Enclosing);
}

void configItem(CaptureContext &C, kw_launch &L, const char *Operand, kw_config_item &Item,
                const Expr *E, int Dims, const FunctionDecl *Enclosing) {
    Item.dims = Dims;
    if (!E)
        return;
    operandDecl(C, L, Operand, E, Enclosing);
    bool Defaulted = isa<CXXDefaultArgExpr>(E);
    if (!Defaulted)
        Item.expr = C.exprText(E);
    if (Dims == 3) {
        Item.has_value = evalDim3(C, E, Enclosing, Item.value);
    } else if (Dims == 1) {
        long long V = 0;
        Item.has_value = evalIntImpl(C, E, Enclosing, V, 0);
        Item.value[0] = V;
    } else if (!E->isValueDependent()) {
        // a stream written `0` / `nullptr` (or not written): the default stream, value 0
        Item.has_value = E->IgnoreParenImpCasts()->isNullPointerConstant(
                             C.ast(), Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
        Item.value[0] = 0;
    }
}

const FunctionDecl *kernelIn(const Expr *E) {
    for (int Steps = 0; E && Steps < 16; Steps++) {
        E = E->IgnoreParenCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
            E = UO->getSubExpr();
            continue;
        }
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
            const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl());
            return FD && FD->hasAttr<CUDAGlobalAttr>() ? FD : nullptr;
        }
        return nullptr;
    }
    return nullptr;
}

} // namespace
bool evalInt(CaptureContext &C, const Expr *E, const FunctionDecl *Enclosing, long long &Out) {
    return evalIntImpl(C, E, Enclosing, Out, 0);
}

// Where the user wrote the launch, and the macros it came through.
void placeLaunch(CaptureContext &C, kw_launch &L, SourceLocation At) {
    SourceManager &SM = C.sm();
    const LangOptions &LO = C.ast().getLangOpts();
    L.location = C.loc(At);
    SourceLocation Cur = At;
    const char *Prev = nullptr;
    for (int Steps = 0; Cur.isMacroID() && Steps < 64; Steps++) {
        SourceLocation Body = Cur;
        while (SM.isMacroArgExpansion(Body))
            Body = SM.getImmediateExpansionRange(Body).getBegin();
        StringRef Name = Lexer::getImmediateMacroName(Cur, SM, LO);
        SourceLocation Inv = SM.getImmediateExpansionRange(Body).getBegin();
        if (!Name.empty() && (!Prev || Name != Prev)) {
            kw_macro_expansion *M = KW_PUSH(C.arena(), L.macro_expansions);
            if (!M)
                return;
            M->macro = C.str(Name);
            M->location = C.loc(Inv);
            Prev = M->macro;
            if (Name == "hipLaunchKernelGGL" || Name == "hipLaunchKernelGGLInternal")
                L.kind = "hipLaunchKernelGGL";
        }
        Cur = SM.isMacroArgExpansion(Cur) ? SM.getImmediateSpellingLoc(Cur)
                                           : SM.getImmediateExpansionRange(Cur).getBegin();
    }
}

namespace {

// The name of a kernel's parameter I from the first of its declarations that
// names it: a kernel declared with names and defined, for the host pass, as
// a stub with unnamed parameters (aiter's opus kernels) has its names only in
// the declaration.
StringRef paramName(const FunctionDecl *Kernel, unsigned I) {
    auto Named = [I](const FunctionDecl *F) {
        return F && I < F->getNumParams() ? F->getParamDecl(I)->getName() : StringRef();
    };
    if (StringRef N = Named(Kernel); !N.empty())
        return N;
    for (const FunctionDecl *R : Kernel->redecls())
        if (StringRef N = Named(R); !N.empty())
            return N;
    if (const FunctionTemplateDecl *T = Kernel->getPrimaryTemplate())
        for (const RedeclarableTemplateDecl *R : T->redecls())
            if (StringRef N = Named(dyn_cast_or_null<FunctionDecl>(R->getTemplatedDecl()));
                !N.empty())
                return N;
    return StringRef();
}

void kernelArgs(CaptureContext &C, kw_launch &L, const FunctionDecl *Kernel,
                llvm::ArrayRef<const Expr *> Args) {
    for (unsigned I = 0; I < Args.size(); I++) {
        if (isa<CXXDefaultArgExpr>(Args[I]))
            continue;
        kw_launch_arg *A = KW_PUSH(C.arena(), L.args);
        if (!A)
            return;
        StringRef Name = Kernel ? paramName(Kernel, I) : StringRef();
        if (!Name.empty())
            A->param = C.str(Name);
        A->expr = C.exprText(Args[I]);
    }
}

// hipLaunchKernel's void** args: a local array {&a, &b, ...} gives the arguments.
std::vector<const Expr *> argsArray(const Expr *E) {
    std::vector<const Expr *> Out;
    // The array decays to the void** hipLaunchKernel reads: its initializer
    // lists the addresses of the arguments.
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    const Expr *Init = VD && VD->hasLocalStorage() ? VD->getInit() : nullptr;
    const auto *IL = dyn_cast_or_null<InitListExpr>(Init);
    if (!IL)
        return Out;
    for (const Expr *A : IL->inits()) {
        const Expr *X = A->IgnoreParenCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(X); UO && UO->getOpcode() == UO_AddrOf)
            X = UO->getSubExpr();
        Out.push_back(X);
    }
    return Out;
}

} // namespace

// The constants of the configuration operands, of the initializers of the
// operands that are variables, and of the guards.
namespace {

void operandConstants(CaptureContext &C, kw_launch &L, const std::vector<const Expr *> &Ops,
                      const std::vector<Guard> &Guards) {
    ConstantSet K(C);
    for (const Expr *E : Ops) {
        if (!E || isa<CXXDefaultArgExpr>(E))
            continue;
        const ValueDecl *V = operandVar(E);
        const auto *BD = dyn_cast_or_null<BindingDecl>(V);
        const auto *VD =
            BD ? dyn_cast_or_null<VarDecl>(BD->getDecomposedDecl()) : dyn_cast_or_null<VarDecl>(V);
        if (VD && VD->getInit() && !isa<ParmVarDecl>(VD))
            K.add(VD->getInit());
        else
            K.add(E);
    }
    for (const Guard &G : Guards)
        for (const Expr *E : G.Exprs)
            K.add(E);
    K.store(L.constants);
}

} // namespace

void launchConstants(CaptureContext &C, kw_launch &L, const Expr *Site,
                     const std::vector<Guard> &Guards) {
    std::vector<const Expr *> Ops;
    if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(Site)) {
        if (const CallExpr *Cfg = KC->getConfig())
            Ops.assign(Cfg->arg_begin(), Cfg->arg_end());
    } else if (const auto *CE = dyn_cast<CallExpr>(Site)) {
        for (unsigned I : {1u, 2u, 4u, 5u})
            if (I < CE->getNumArgs())
                Ops.push_back(CE->getArg(I));
    }
    operandConstants(C, L, Ops, Guards);
}

void chainLaunch(CaptureContext &C, kw_launch &L, const FunctionDecl *F, const HostCallGraph &G) {
    std::set<const FunctionDecl *> Seen;
    for (int Steps = 0; F && Steps < 32 && Seen.insert(F).second; Steps++) {
        if (!F->getTemplateInstantiationPattern() && !isLambdaCallOperator(F))
            return;
        auto It = G.Callers.find(F->getCanonicalDecl());
        if (It == G.Callers.end() || It->second.empty())
            return;
        const CallEdge *Pick = &It->second.front();
        SourceLocation POI = F->getPointOfInstantiation();
        if (POI.isValid())
            for (const CallEdge &E : It->second)
                if (C.sm().getFileLoc(E.Loc) == C.sm().getFileLoc(POI))
                    Pick = &E;
        kw_chain_link *Link = KW_PUSH(C.arena(), L.instantiation_chain);
        if (!Link)
            return;
        Link->function = hostFunctionName(C, Pick->Caller);
        Link->symbol = hostSymbol(C, Pick->Caller);
        Link->location = C.loc(Pick->Loc);
        F = Pick->Caller;
    }
}

namespace {

struct LibraryPattern {
    const char *Name;
    const char *Glob;
};
const LibraryPattern Libraries[] = {
#include "kw_libraries.inc"
};

const char *libraryOf(const char *File) {
    if (!File)
        return nullptr;
    for (const LibraryPattern &L : Libraries)
        if (fnmatch(L.Glob, File, 0) == 0)
            return L.Name;
    return nullptr;
}

} // namespace

// A launch inside a kernel library's header is the library's business; the
// user asked for it at the first call outside the library.
void attributeToUser(kw_launch &L) {
    const char *Lib = libraryOf(L.location.file);
    if (!Lib)
        return;
    for (size_t I = 0; I < L.instantiation_chain.n; I++) {
        const kw_loc &At = L.instantiation_chain.v[I].location;
        if (At.file && !libraryOf(At.file)) {
            L.library = Lib;
            L.site = L.location;
            L.location = At;
            return;
        }
    }
}

bool isLaunchCall(const CallExpr *CE) {
    const FunctionDecl *F = CE->getDirectCallee();
    if (!F || !F->getIdentifier() || CE->getNumArgs() < 6)
        return false;
    for (const char *N : LaunchFunctions)
        if (F->getName() == N)
            return kernelIn(CE->getArg(0)) != nullptr;
    return false;
}

namespace {

using Route = std::vector<const CallEdge *>;

// The routes from F up its callers to the first call written outside the
// kernel library (the user's launch_kernel(...) line), one per distinct such
// call: a library function (launch_kernel<lambda>) that two users' functions
// call forks there. Only through instantiations and lambdas, as chainLaunch.
void userRoutes(CaptureContext &C, const FunctionDecl *F, const HostCallGraph &G, Route &Path,
                std::vector<Route> &Out, int &Budget) {
    enum { MaxRoutes = 16, MaxDepth = 16 };
    if (!F || --Budget < 0 || Out.size() >= MaxRoutes || Path.size() >= MaxDepth ||
        (!F->getTemplateInstantiationPattern() && !isLambdaCallOperator(F)))
        return;
    auto It = G.Callers.find(F->getCanonicalDecl());
    if (It == G.Callers.end())
        return;
    for (const CallEdge &E : It->second) {
        bool Loop = false;
        for (const CallEdge *P : Path)
            Loop |= P->Caller == E.Caller;
        if (Loop || !E.Caller || Out.size() >= MaxRoutes)
            continue;
        Path.push_back(&E);
        if (!libraryOf(C.loc(E.Loc).file)) {
            bool Seen = false; // another call edge at the same user line and function
            for (const Route &R : Out)
                Seen |= R.back()->Caller == E.Caller && R.back()->Loc == E.Loc;
            if (!Seen)
                Out.push_back(Path);
        } else {
            userRoutes(C, E.Caller, G, Path, Out, Budget);
        }
        Path.pop_back();
    }
}

void recordLaunchVia(CaptureContext &C, const PendingLaunch &P, const HostCallGraph &G,
                     const Route *Via);

} // namespace

// A launch in a kernel library's header that users' functions reach along
// different routes (one make_kernel instantiation launched from two callers'
// launch_kernel lines) is recorded once per route, each cited at its own
// user's line with its own operands; any other launch once.
void recordLaunch(CaptureContext &C, const PendingLaunch &P, const HostCallGraph &G) {
    std::vector<Route> Routes;
    if (libraryOf(C.loc(C.sm().getFileLoc(P.Site->getBeginLoc())).file)) {
        Route Path;
        int Budget = 512; // functions visited
        userRoutes(C, P.Enclosing, G, Path, Routes, Budget);
    }
    if (Routes.size() < 2) {
        recordLaunchVia(C, P, G, nullptr);
        return;
    }
    for (const Route &R : Routes)
        recordLaunchVia(C, P, G, &R);
}

namespace {

void recordLaunchVia(CaptureContext &C, const PendingLaunch &P, const HostCallGraph &G,
                     const Route *Via) {
    const FunctionDecl *User = Via ? Via->back()->Caller : nullptr;
    kw_launch *L = KW_PUSH(C.arena(), C.doc().launches);
    if (!L)
        return;
    const FunctionDecl *Enclosing = P.Enclosing;
    const FunctionDecl *Kernel = nullptr;
    std::vector<const Expr *> Ops; // the operands, as followed to the maker's caller
    if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(P.Site)) {
        Kernel = KC->getDirectCallee();
        if (!Kernel) // through a variable (ck_tile's make_kernel)
            Kernel = kernelThroughValue(C, KC->getCallee());
        L->kind = "triple_chevron";
        const CallExpr *Cfg = KC->getConfig();
        placeLaunch(C, *L, Cfg ? Cfg->getBeginLoc() : KC->getBeginLoc());
        if (Cfg) {
            unsigned N = Cfg->getNumArgs();
            kw_config_item *Items[] = {&L->grid, &L->block, &L->shared_mem, &L->stream};
            const char *Names[] = {"grid", "block", "shared_mem", "stream"};
            const int Dims[] = {3, 3, 1, 0};
            for (unsigned I = 0; I < 4; I++) {
                const Expr *E = I < N ? Cfg->getArg(I) : nullptr;
                const FunctionDecl *In = Enclosing, *Caller = nullptr;
                // make_kernel's grid_dim: the caller's argument, in the caller
                if (const Expr *A = makerArgument(E, Enclosing, G, Caller, User))
                    E = A, In = Caller;
                configItem(C, *L, Names[I], *Items[I], E, Dims[I], In);
                Ops.push_back(E);
            }
        }
        std::vector<const Expr *> Args(KC->arg_begin(), KC->arg_end());
        kernelArgs(C, *L, Kernel, Args);
    } else {
        const auto *CE = cast<CallExpr>(P.Site);
        Kernel = kernelIn(CE->getArg(0));
        L->kind = "hipLaunchKernel";
        placeLaunch(C, *L, CE->getBeginLoc());
        configItem(C, *L, "grid", L->grid, CE->getArg(1), 3, Enclosing);
        configItem(C, *L, "block", L->block, CE->getArg(2), 3, Enclosing);
        configItem(C, *L, "shared_mem", L->shared_mem, CE->getArg(4), 1, Enclosing);
        configItem(C, *L, "stream", L->stream, CE->getArg(5), 0, Enclosing);
        kernelArgs(C, *L, Kernel, argsArray(CE->getArg(3)));
        for (unsigned I : {1u, 2u, 4u, 5u})
            Ops.push_back(CE->getArg(I));
    }
    if (Kernel) {
        L->kernel = kernelSymbolText(C, Kernel);
        L->kernel_name = C.printedName(Kernel);
    }
    L->function = hostFunctionName(C, Enclosing);
    L->function_symbol = hostSymbol(C, Enclosing);
    if (Via) {
        for (const CallEdge *E : *Via) {
            kw_chain_link *Link = KW_PUSH(C.arena(), L->instantiation_chain);
            if (!Link)
                return;
            Link->function = hostFunctionName(C, E->Caller);
            Link->symbol = hostSymbol(C, E->Caller);
            Link->location = C.loc(E->Loc);
        }
        chainLaunch(C, *L, User, G);
    } else {
        chainLaunch(C, *L, Enclosing, G);
    }
    attributeToUser(*L);
    std::vector<Guard> Guards = collectGuards(C, P.Site, P.Enclosing);
    appendGuards(C, L->guards, Guards);
    operandConstants(C, *L, Ops, Guards);
}

} // namespace

} // namespace kwalk
