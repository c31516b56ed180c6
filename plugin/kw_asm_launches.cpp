// kw_asm_launches.cpp: launches of precompiled ASM kernels (.co code objects
// with no source), the two ways aiter writes them: a loader class
// (annotations/loaders/: constructed with the kernel's name and code-object
// path, then obj.launch_kernel({args, sizes, gdx, gdy, gdz, bdx, bdy, bdz,
// stream})) and hipModuleLoad / hipModuleGetFunction / hipModuleLaunchKernel.
// The kernel name and code object are recorded when they are literals or
// built from literals; grid and block with their constant values.
//
// A module launch's hipFunction_t may be set anywhere in the TU: a local of
// the launching function, a static local set inside a lambda (call_once), a
// global set by a static initializer, a class member set by the constructor.
// Every hipModuleGetFunction / hipModuleLoad call of the TU is indexed by the
// variable or member it assigns (AsmModules, built on first use); the launch
// follows its handle to the GetFunction calls assigning it, and their module
// to the Load calls assigning that. When they disagree (the same handle set
// to two kernels), nothing is recorded.
#include "kw_guards.h"
#include "kw_host_internal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <cstring>
#include <string>

using namespace clang;

namespace kwalk {

namespace {

struct LoaderSpec {
    const char *Class;
    const char *NameArg, *PathArg;
    const char *Method;
    const char *ArgsArg;
    const char *GridFields, *BlockFields;
    const char *StreamField; // "-": the struct has none
};
const LoaderSpec Loaders[] = {
#include "kw_loaders.inc"
};

const LoaderSpec *loaderFor(const CXXRecordDecl *R) {
    if (!R || !R->getIdentifier())
        return nullptr;
    for (const LoaderSpec &L : Loaders)
        if (R->getName() == L.Class)
            return &L;
    return nullptr;
}

const LoaderSpec *loaderCall(const CallExpr *CE) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
    const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
    if (!M || !M->getIdentifier())
        return nullptr;
    const LoaderSpec *L = loaderFor(M->getParent());
    return L && M->getName() == L->Method ? L : nullptr;
}

bool isModuleLaunch(const CallExpr *CE) {
    const FunctionDecl *F = CE->getDirectCallee();
    return F && F->getIdentifier() && F->getName() == "hipModuleLaunchKernel" &&
           CE->getNumArgs() >= 9;
}

// The text of a string built from literals: literal pieces joined, any other
// piece as ${expr}; NULL when nothing in it is a literal.
void stringPieces(CaptureContext &C, const Expr *E, std::string &Out, bool &AnyLiteral,
                  int Depth = 0) {
    if (!E || Depth > 16)
        return;
    E = E->IgnoreParenImpCasts();
    if (const auto *SL = dyn_cast<StringLiteral>(E)) {
        if (SL->getCharByteWidth() == 1) {
            Out += SL->getString().str();
            AnyLiteral = true;
            return;
        }
    }
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
        return stringPieces(C, BT->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
        return stringPieces(C, MT->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
        return stringPieces(C, FC->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *CC = dyn_cast<CXXConstructExpr>(E); CC && CC->getNumArgs() >= 1 &&
                                                          !isa<CXXDefaultArgExpr>(CC->getArg(0)))
        return stringPieces(C, CC->getArg(0), Out, AnyLiteral, Depth + 1);
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
        OC && OC->getOperator() == OO_Plus && OC->getNumArgs() == 2) {
        stringPieces(C, OC->getArg(0), Out, AnyLiteral, Depth + 1);
        stringPieces(C, OC->getArg(1), Out, AnyLiteral, Depth + 1);
        return;
    }
    if (const auto *EW = dyn_cast<ExprWithCleanups>(E))
        return stringPieces(C, EW->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) // s.c_str(), s.data()
        if (const CXXMethodDecl *M = MC->getMethodDecl();
            M && M->getIdentifier() && (M->getName() == "c_str" || M->getName() == "data"))
            return stringPieces(C, MC->getImplicitObjectArgument(), Out, AnyLiteral, Depth + 1);
    // a constant named for it: `constexpr char kName[] = "k";`,
    // `const std::string path = std::string(DIR) + "k.co";`
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
            VD && !isa<ParmVarDecl>(VD) && (VD->isConstexpr() || VD->getType().isConstQualified()))
            if (const Expr *Init = VD->getAnyInitializer())
                return stringPieces(C, Init, Out, AnyLiteral, Depth + 1);
    Out += "${" + C.exprString(E) + "}";
}

const char *stringText(CaptureContext &C, const Expr *E) {
    std::string S;
    bool Any = false;
    stringPieces(C, E, S, Any);
    return Any ? C.str(S) : nullptr;
}

const VarDecl *varOf(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
        E = UO->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref)
        E = UO->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
        return dyn_cast<VarDecl>(DRE->getDecl());
    return nullptr;
}

// The constructor call that made the loader object a launch is called on:
// the variable's initializer (by value, or a pointer from new), or a
// "p = new Loader(...)" in the enclosing function.
class NewAssignFinder : public RecursiveASTVisitor<NewAssignFinder> {
  public:
    explicit NewAssignFinder(const VarDecl *V) : V(V) {}
    const CXXConstructExpr *Found = nullptr;
    bool VisitBinaryOperator(BinaryOperator *BO) {
        if (BO->getOpcode() == BO_Assign && varOf(BO->getLHS()) == V)
            if (const auto *NE = dyn_cast<CXXNewExpr>(BO->getRHS()->IgnoreParenImpCasts()))
                if (!Found)
                    Found = NE->getConstructExpr();
        return true;
    }

  private:
    const VarDecl *V;
};

const CXXConstructExpr *constructionOf(const Expr *Obj, const FunctionDecl *Enclosing) {
    const VarDecl *V = varOf(Obj);
    if (!V)
        return nullptr;
    if (const Expr *Init = V->getInit()) {
        Init = Init->IgnoreImplicit();
        if (const auto *CE = dyn_cast<CXXConstructExpr>(Init))
            return CE;
        if (const auto *NE = dyn_cast<CXXNewExpr>(Init->IgnoreParenImpCasts()))
            return NE->getConstructExpr();
    }
    const FunctionDecl *Def = nullptr;
    if (Enclosing && Enclosing->hasBody(Def)) {
        NewAssignFinder F(V);
        F.TraverseStmt(Def->getBody());
        return F.Found;
    }
    return nullptr;
}

// The field initializers of the launch's argument struct, by field name.
const InitListExpr *argsInit(const Expr *E) {
    for (int Steps = 0; E && Steps < 8; Steps++) {
        E = E->IgnoreImplicit();
        if (const auto *IL = dyn_cast<InitListExpr>(E))
            return IL->isSemanticForm() ? IL : IL->getSemanticForm();
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
            E = CE->getArg(0);
        else
            return nullptr;
    }
    return nullptr;
}

const Expr *fieldInit(const InitListExpr *IL, llvm::StringRef Name) {
    const RecordDecl *RD = IL->getType()->getAsRecordDecl();
    if (!RD)
        return nullptr;
    unsigned I = 0;
    for (const FieldDecl *F : RD->fields()) {
        if (F->getName() == Name)
            return I < IL->getNumInits() ? IL->getInit(I) : nullptr;
        I++;
    }
    return nullptr;
}

void dims(CaptureContext &C, kw_config_item &Item, const Expr *X, const Expr *Y, const Expr *Z,
          const FunctionDecl *Enclosing) {
    Item.dims = 3;
    const Expr *E[3] = {X, Y, Z};
    std::string Text;
    bool All = true;
    for (int I = 0; I < 3; I++) {
        if (I)
            Text += ", ";
        Text += E[I] ? C.exprString(E[I]) : "?";
        All = All && E[I] && evalInt(C, E[I], Enclosing, Item.value[I]);
    }
    Item.expr = C.str(Text);
    Item.has_value = All;
}

std::vector<std::string> splitFields(const char *S) {
    std::vector<std::string> Out;
    std::string Cur;
    for (const char *P = S; *P; P++) {
        if (*P == ',') {
            Out.push_back(Cur);
            Cur.clear();
        } else {
            Cur += *P;
        }
    }
    Out.push_back(Cur);
    return Out;
}

// The declaration a module or function handle expression names: a variable
// (local, static local, global, static member) or a data member (of any
// object: the member is the key, not the object). &x and *x name x.
const Decl *handleDecl(const Expr *E) {
    for (int Steps = 0; E && Steps < 8; Steps++) {
        E = E->IgnoreParenImpCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(E);
            UO && (UO->getOpcode() == UO_AddrOf || UO->getOpcode() == UO_Deref)) {
            E = UO->getSubExpr();
            continue;
        }
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
            if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
                return VD->getCanonicalDecl();
        if (const auto *ME = dyn_cast<MemberExpr>(E))
            if (isa<FieldDecl>(ME->getMemberDecl()) || isa<VarDecl>(ME->getMemberDecl()))
                return ME->getMemberDecl()->getCanonicalDecl();
        return nullptr;
    }
    return nullptr;
}

// Every hipModuleGetFunction(&f, module, "name") and hipModuleLoad(&module,
// "x.co") call of the TU (function bodies, lambdas, constructors, variable
// initializers), by the handle its first argument assigns.
class ModuleIndexer : public RecursiveASTVisitor<ModuleIndexer> {
  public:
    explicit ModuleIndexer(AsmModules &M) : M(M) {}
    bool shouldVisitTemplateInstantiations() const {
        return true;
    }
    bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *F = CE->getDirectCallee();
        if (!F || !F->getIdentifier() || CE->getNumArgs() < 2)
            return true;
        const Decl *D = handleDecl(CE->getArg(0));
        if (!D)
            return true;
        if (F->getName() == "hipModuleGetFunction" && CE->getNumArgs() >= 3)
            M.GetFunction[D].push_back(CE);
        else if (F->getName() == "hipModuleLoad")
            M.Load[D].push_back(CE);
        return true;
    }

  private:
    AsmModules &M;
};

// Fold one more assignment's text into the agreed one: Agree stays true while
// every assignment gives the same text (a literal or built from literals).
void agree(const char *&Text, bool &Agree, const char *Next) {
    if (!Next || (Text && strcmp(Text, Next)))
        Agree = false;
    else
        Text = Next;
}

void recordModuleLaunch(CaptureContext &C, kw_launch &L, const CallExpr *CE,
                        const FunctionDecl *Enclosing, AsmModules &M) {
    L.kind = "hipModuleLaunchKernel";
    dims(C, L.grid, CE->getArg(1), CE->getArg(2), CE->getArg(3), Enclosing);
    dims(C, L.block, CE->getArg(4), CE->getArg(5), CE->getArg(6), Enclosing);
    L.shared_mem.dims = 1;
    L.shared_mem.expr = C.exprText(CE->getArg(7));
    L.shared_mem.has_value = evalInt(C, CE->getArg(7), Enclosing, L.shared_mem.value[0]);
    L.stream.expr = C.exprText(CE->getArg(8));
    const Decl *Fn = handleDecl(CE->getArg(0));
    if (!Fn)
        return;
    if (!M.Built) {
        ModuleIndexer(M).TraverseDecl(C.ast().getTranslationUnitDecl());
        M.Built = true;
    }
    auto G = M.GetFunction.find(Fn);
    if (G == M.GetFunction.end())
        return;
    const char *Kernel = nullptr, *Path = nullptr;
    bool KernelAgrees = true, PathAgrees = true, AnyLoad = false;
    for (const CallExpr *Get : G->second) {
        agree(Kernel, KernelAgrees, stringText(C, Get->getArg(2)));
        auto Loads = M.Load.find(handleDecl(Get->getArg(1)));
        if (Loads == M.Load.end()) {
            PathAgrees = false;
            continue;
        }
        for (const CallExpr *Load : Loads->second) {
            agree(Path, PathAgrees, stringText(C, Load->getArg(1)));
            AnyLoad = true;
        }
    }
    if (KernelAgrees)
        L.asm_kernel = Kernel;
    if (PathAgrees && AnyLoad)
        L.code_object = Path;
}

void recordLoaderLaunch(CaptureContext &C, kw_launch &L, const CXXMemberCallExpr *MC,
                        const LoaderSpec &Spec, const FunctionDecl *Enclosing) {
    L.kind = "asm_loader";
    L.loader = Spec.Class;
    if (const CXXConstructExpr *Ctor =
            constructionOf(MC->getImplicitObjectArgument(), Enclosing)) {
        unsigned NameArg = (unsigned)atoi(Spec.NameArg), PathArg = (unsigned)atoi(Spec.PathArg);
        if (NameArg < Ctor->getNumArgs())
            L.asm_kernel = stringText(C, Ctor->getArg(NameArg));
        if (PathArg < Ctor->getNumArgs())
            L.code_object = stringText(C, Ctor->getArg(PathArg));
    }
    unsigned ArgsArg = (unsigned)atoi(Spec.ArgsArg);
    const InitListExpr *IL = ArgsArg < MC->getNumArgs() ? argsInit(MC->getArg(ArgsArg)) : nullptr;
    if (!IL)
        return;
    std::vector<std::string> G = splitFields(Spec.GridFields), B = splitFields(Spec.BlockFields);
    if (G.size() == 3)
        dims(C, L.grid, fieldInit(IL, G[0]), fieldInit(IL, G[1]), fieldInit(IL, G[2]), Enclosing);
    if (B.size() == 3)
        dims(C, L.block, fieldInit(IL, B[0]), fieldInit(IL, B[1]), fieldInit(IL, B[2]),
             Enclosing);
    if (strcmp(Spec.StreamField, "-"))
        if (const Expr *S = fieldInit(IL, Spec.StreamField))
            L.stream.expr = C.exprText(S);
}

} // namespace

bool isAsmLaunchCall(const CallExpr *CE) {
    return loaderCall(CE) || isModuleLaunch(CE);
}

bool isLoaderMethod(const FunctionDecl *FD) {
    const auto *M = dyn_cast<CXXMethodDecl>(FD);
    return M && loaderFor(M->getParent());
}

void recordAsmLaunch(CaptureContext &C, const PendingLaunch &P, const HostCallGraph &G,
                     AsmModules &M) {
    const auto *CE = cast<CallExpr>(P.Site);
    kw_launch *L = KW_PUSH(C.arena(), C.doc().launches);
    if (!L)
        return;
    placeLaunch(C, *L, CE->getBeginLoc());
    if (const LoaderSpec *Spec = loaderCall(CE))
        recordLoaderLaunch(C, *L, cast<CXXMemberCallExpr>(CE), *Spec, P.Enclosing);
    else
        recordModuleLaunch(C, *L, CE, P.Enclosing, M);
    L->function = hostFunctionName(C, P.Enclosing);
    L->function_symbol = hostSymbol(C, P.Enclosing);
    chainLaunch(C, *L, P.Enclosing, G);
    attributeToUser(*L);
    appendGuards(C, L->guards, collectGuards(C, P.Site));
}

} // namespace kwalk
