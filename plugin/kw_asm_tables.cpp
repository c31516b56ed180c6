// kw_asm_tables.cpp: following an ASM loader object back to the
// constructions that made it (kw_asm_tables.h), through a wrapper that
// builds it from its own parameters to the wrapper's calls, and reading the
// constant tables the constructor's kernel name and code-object path come
// from.
//
// Everything is bounded: expressions are followed at most MaxDepth steps,
// each variable or member once per question, wrappers three calls out, a
// table question at most a step budget however its ways fan out, tables
// read up to a row cap. A table variable is one only when nothing in the TU
// assigns it; a local is each value the TU gives it (the TU-wide assignment
// index of AsmModules), a parameter each argument its calls pass (the call
// index).
#include "kw_asm_tables.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <set>

using namespace clang;

namespace kwalk {

namespace {

constexpr int MaxDepth = 24;

class AssignIndexer : public RecursiveASTVisitor<AssignIndexer> {
  public:
    explicit AssignIndexer(AsmModules &M) : M(M) {}
    bool shouldVisitTemplateInstantiations() const {
        return true;
    }
    bool shouldVisitImplicitCode() const {
        return false;
    }
    bool VisitBinaryOperator(BinaryOperator *BO) {
        if (BO->getOpcode() == BO_Assign)
            add(BO->getLHS(), BO->getRHS());
        return true;
    }
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
        if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2)
            add(OC->getArg(0), OC->getArg(1));
        return true;
    }
    bool VisitCXXConstructorDecl(CXXConstructorDecl *CD) {
        if (!CD->doesThisDeclarationHaveABody())
            return true;
        for (const CXXCtorInitializer *I : CD->inits())
            if (I->isWritten() && I->getMember() && I->getInit())
                M.Assigned[I->getMember()->getCanonicalDecl()].push_back(I->getInit());
        return true;
    }

  private:
    AsmModules &M;
    void add(const Expr *L, const Expr *R) {
        if (const Decl *D = handleDecl(L))
            M.Assigned[D].push_back(R);
    }
};

const std::vector<const Expr *> &assignments(CaptureContext &C, AsmModules &M, const Decl *D) {
    if (!M.AssignBuilt) {
        AssignIndexer(M).TraverseDecl(C.ast().getTranslationUnitDecl());
        M.AssignBuilt = true;
    }
    static const std::vector<const Expr *> None;
    auto It = M.Assigned.find(D);
    return It == M.Assigned.end() ? None : It->second;
}

// The expression a temporary, cleanup or functional cast wraps.
const Expr *strip(const Expr *E) {
    for (int Steps = 0; E && Steps < 16; Steps++) {
        E = E->IgnoreParenImpCasts();
        if (const auto *EW = dyn_cast<ExprWithCleanups>(E))
            E = EW->getSubExpr();
        else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
            E = MT->getSubExpr();
        else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
            E = BT->getSubExpr();
        else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
            E = FC->getSubExpr();
        else
            return E;
    }
    return E;
}

bool sameClass(const CXXRecordDecl *A, const CXXRecordDecl *B) {
    return A && B && A->getCanonicalDecl() == B->getCanonicalDecl();
}

const CXXRecordDecl *classOf(QualType T) {
    return T.isNull() ? nullptr : T->getAsCXXRecordDecl();
}

std::vector<const Expr *> writtenArgs(const CXXConstructExpr *CE) {
    std::vector<const Expr *> A;
    for (unsigned I = 0; I < CE->getNumArgs(); I++)
        if (!isa<CXXDefaultArgExpr>(CE->getArg(I)))
            A.push_back(CE->getArg(I));
    return A;
}

bool isCopyOrMove(const CXXConstructExpr *CE) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    return Ctor && Ctor->isCopyOrMoveConstructor();
}

// std::make_unique<Loader>(args...), std::make_shared<Loader>(args...).
bool isMakeOf(const CallExpr *CE, const CXXRecordDecl *Loader) {
    const FunctionDecl *F = CE->getDirectCallee();
    if (!F || !F->getIdentifier() ||
        (F->getName() != "make_unique" && F->getName() != "make_shared"))
        return false;
    const TemplateArgumentList *TA = F->getTemplateSpecializationArgs();
    return TA && TA->size() >= 1 && TA->get(0).getKind() == TemplateArgument::Type &&
           sameClass(classOf(TA->get(0).getAsType()), Loader);
}

// Constructions of the loader anywhere inside a call (its arguments, the
// bodies of lambdas passed to it).
class InCallFinder : public RecursiveASTVisitor<InCallFinder> {
  public:
    InCallFinder(const CXXRecordDecl *Loader, std::vector<LoaderConstruction> &Out)
        : Loader(Loader), Out(Out) {}
    bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
        if (sameClass(CE->getConstructor() ? CE->getConstructor()->getParent() : nullptr, Loader) &&
            !isCopyOrMove(CE) && Out.size() < 64)
            Out.push_back({CE, writtenArgs(CE)});
        return true;
    }
    bool VisitCallExpr(CallExpr *CE) {
        if (isMakeOf(CE, Loader) && Out.size() < 64)
            Out.push_back({CE, std::vector<const Expr *>(CE->arg_begin(), CE->arg_end())});
        return true;
    }

  private:
    const CXXRecordDecl *Loader;
    std::vector<LoaderConstruction> &Out;
};

class Constructions {
  public:
    Constructions(CaptureContext &C, const CXXRecordDecl *Loader, AsmModules &M)
        : C(C), Loader(Loader), M(M) {}
    std::vector<LoaderConstruction> Out;

    void follow(const Expr *E, int Depth) {
        E = strip(E);
        if (!E || Depth > MaxDepth || Out.size() >= 64)
            return;
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
            if (isCopyOrMove(CE) && CE->getNumArgs() >= 1)
                return follow(CE->getArg(0), Depth + 1);
            if (sameClass(CE->getConstructor() ? CE->getConstructor()->getParent() : nullptr,
                          Loader))
                Out.push_back({CE, writtenArgs(CE)});
            return;
        }
        if (const auto *NE = dyn_cast<CXXNewExpr>(E)) {
            if (const CXXConstructExpr *CE = NE->getConstructExpr())
                follow(CE, Depth + 1);
            return;
        }
        if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
            if (UO->getOpcode() == UO_AddrOf || UO->getOpcode() == UO_Deref)
                follow(UO->getSubExpr(), Depth + 1);
            return;
        }
        if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
            follow(CO->getTrueExpr(), Depth + 1);
            follow(CO->getFalseExpr(), Depth + 1);
            return;
        }
        if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
            // smart pointers: p->, *p
            if ((OC->getOperator() == OO_Arrow || OC->getOperator() == OO_Star) &&
                OC->getNumArgs() == 1)
                return follow(OC->getArg(0), Depth + 1);
        }
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
            const CXXMethodDecl *Md = MC->getMethodDecl();
            if (Md && Md->getIdentifier() && Md->getName() == "get" && MC->getNumArgs() == 0)
                return follow(MC->getImplicitObjectArgument(), Depth + 1);
        }
        if (const auto *CE = dyn_cast<CallExpr>(E)) {
            // a cache's get_or_create(key, lambda), emplace(...), a factory
            // call with the loader built in its arguments
            InCallFinder(Loader, Out).TraverseStmt(const_cast<CallExpr *>(CE));
            return;
        }
        if (const Decl *D = handleDecl(E)) {
            if (!Seen.insert(D).second)
                return;
            if (const auto *VD = dyn_cast<VarDecl>(D)) {
                if (const VarDecl *Def = VD->getDefinition())
                    VD = Def;
                if (const Expr *Init = VD->getInit())
                    follow(Init, Depth + 1);
            }
            for (const Expr *R : assignments(C, M, D))
                follow(R, Depth + 1);
        }
    }

  private:
    CaptureContext &C;
    const CXXRecordDecl *Loader;
    AsmModules &M;
    std::set<const Decl *> Seen;
};

// ---- wrappers: the loader built from its function's parameters ----------------------------

// The constructor std::make_unique<W>(...) / std::make_shared<W>(...) runs:
// the construction of W in the body of the instantiation it calls.
class CtorFinder : public RecursiveASTVisitor<CtorFinder> {
  public:
    explicit CtorFinder(const CXXRecordDecl *W) : W(W) {}
    const CXXConstructorDecl *Found = nullptr;
    bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
        const CXXConstructorDecl *Ctor = CE->getConstructor();
        if (Ctor && !Ctor->isCopyOrMoveConstructor() && sameClass(Ctor->getParent(), W))
            Found = Ctor;
        return !Found;
    }

  private:
    const CXXRecordDecl *W;
};

const CXXConstructorDecl *madeBy(const CallExpr *CE) {
    const FunctionDecl *F = CE->getDirectCallee();
    if (!F || !F->getIdentifier() || !F->isInStdNamespace() ||
        (F->getName() != "make_unique" && F->getName() != "make_shared"))
        return nullptr;
    const TemplateArgumentList *TA = F->getTemplateSpecializationArgs();
    if (!TA || TA->size() < 1 || TA->get(0).getKind() != TemplateArgument::Type)
        return nullptr;
    const CXXRecordDecl *W = classOf(TA->get(0).getAsType());
    const FunctionDecl *Def = nullptr;
    if (!W || !F->hasBody(Def) || !Def)
        return nullptr;
    CtorFinder Find(W);
    Find.TraverseStmt(Def->getBody());
    return Find.Found;
}

// Every call and construction of the TU by callee, with the function it is
// written in (a lambda's body counts as its enclosing function's, whose
// guards collectGuards then walks through).
class CallIndexer : public RecursiveASTVisitor<CallIndexer> {
  public:
    explicit CallIndexer(AsmModules &M) : M(M) {}
    bool shouldVisitTemplateInstantiations() const {
        return true;
    }
    bool TraverseDecl(Decl *D) {
        const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
        if (!FD || !FD->doesThisDeclarationHaveABody())
            return RecursiveASTVisitor<CallIndexer>::TraverseDecl(D);
        const FunctionDecl *Outer = In;
        In = FD;
        bool R = RecursiveASTVisitor<CallIndexer>::TraverseDecl(D);
        In = Outer;
        return R;
    }
    bool VisitCallExpr(CallExpr *CE) {
        // a member operator's first argument is its object: its arguments
        // do not line up with the parameters
        if (isa<CXXOperatorCallExpr>(CE))
            return true;
        if (const FunctionDecl *F = CE->getDirectCallee())
            add(F, CE);
        // std::make_unique<W>(args...) / make_shared: a call of the W
        // constructor its body runs, the arguments forwarded in order
        if (const CXXConstructorDecl *Ctor = madeBy(CE))
            add(Ctor, CE);
        return true;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
        if (const CXXConstructorDecl *F = CE->getConstructor())
            add(F, CE);
        return true;
    }

  private:
    AsmModules &M;
    const FunctionDecl *In = nullptr;
    void add(const FunctionDecl *F, const Expr *At) {
        if (In && In->isDependentContext())
            return; // a template's pattern: its instantiations are visited
        auto &V = M.Calls[F->getCanonicalDecl()];
        if (V.size() < 256)
            V.push_back({At, In});
    }
};

const std::vector<std::pair<const Expr *, const FunctionDecl *>> &
callsOf(CaptureContext &C, AsmModules &M, const FunctionDecl *F) {
    if (!M.CallsBuilt) {
        CallIndexer(M).TraverseDecl(C.ast().getTranslationUnitDecl());
        M.CallsBuilt = true;
    }
    static const std::vector<std::pair<const Expr *, const FunctionDecl *>> None;
    auto It = M.Calls.find(F->getCanonicalDecl());
    return It == M.Calls.end() ? None : It->second;
}

// The parameter an argument passes on as it is: seen through casts and
// temporaries, std::forward / std::move, a string made from it and c_str().
const ParmVarDecl *paramOf(const Expr *E) {
    for (int Steps = 0; E && Steps < 16; Steps++) {
        E = strip(E);
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
            return dyn_cast<ParmVarDecl>(DRE->getDecl());
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() >= 1 &&
                                                             (CE->getNumArgs() == 1 ||
                                                              isa<CXXDefaultArgExpr>(CE->getArg(1)))) {
            E = CE->getArg(0);
            continue;
        }
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
            const CXXMethodDecl *Md = MC->getMethodDecl();
            if (Md && Md->getIdentifier() && (Md->getName() == "c_str" || Md->getName() == "data") &&
                MC->getNumArgs() == 0) {
                E = MC->getImplicitObjectArgument();
                continue;
            }
            return nullptr;
        }
        if (const auto *CE = dyn_cast<CallExpr>(E)) {
            const FunctionDecl *F = CE->getDirectCallee();
            if (F && F->getIdentifier() && F->isInStdNamespace() && CE->getNumArgs() == 1 &&
                (F->getName() == "forward" || F->getName() == "move")) {
                E = CE->getArg(0);
                continue;
            }
        }
        return nullptr;
    }
    return nullptr;
}

// The argument a call passes for parameter P (its default when the call
// leaves it out); null when unknown.
const Expr *argFor(const Expr *Call, const ParmVarDecl *P) {
    unsigned I = P->getFunctionScopeIndex();
    const Expr *A = nullptr;
    if (const auto *CE = dyn_cast<CallExpr>(Call))
        A = I < CE->getNumArgs() ? CE->getArg(I) : nullptr;
    else if (const auto *KE = dyn_cast<CXXConstructExpr>(Call))
        A = I < KE->getNumArgs() ? KE->getArg(I) : nullptr;
    if (const auto *D = dyn_cast_or_null<CXXDefaultArgExpr>(A))
        return D->getExpr();
    return A ? A : (P->hasDefaultArg() && !P->hasUnparsedDefaultArg() &&
                            !P->hasUninstantiatedDefaultArg()
                        ? P->getDefaultArg()
                        : nullptr);
}

void wrapperCalls(CaptureContext &C, const LoaderConstruction &K, const std::vector<unsigned> &Want,
                  AsmModules &M, int Level, std::vector<LoaderConstruction> &Out) {
    const FunctionDecl *F = nullptr;
    for (unsigned W : Want) {
        const ParmVarDecl *P = W < K.Args.size() ? paramOf(K.Args[W]) : nullptr;
        const auto *PF = P ? dyn_cast<FunctionDecl>(P->getDeclContext()) : nullptr;
        if (PF && !F)
            F = PF;
    }
    static const std::vector<std::pair<const Expr *, const FunctionDecl *>> NoCalls;
    const auto &Calls = F && Level < 3 ? callsOf(C, M, F) : NoCalls;
    if (Calls.empty()) {
        if (Out.size() < 64)
            Out.push_back(K);
        return;
    }
    for (const auto &[Call, In] : Calls) {
        LoaderConstruction N = K;
        N.At = Call;
        N.In = In;
        if (!N.Via) {
            N.Via = F;
            N.Inner = K.At;
        }
        for (const Expr *&A : N.Args) {
            const ParmVarDecl *P = paramOf(A);
            if (P && P->getDeclContext() == F)
                A = argFor(Call, P);
        }
        wrapperCalls(C, N, Want, M, Level + 1, Out);
        if (Out.size() >= 64)
            return;
    }
}

// ---- constant tables --------------------------------------------------------------------------

enum class TK { None, Table, Elem, Row, Key, Field };
struct TRef {
    TK K = TK::None;
    const VarDecl *Table = nullptr;
    const Expr *Lookup = nullptr;
    std::string Field;
};

const InitListExpr *semantic(const InitListExpr *IL) {
    if (!IL->isSemanticForm() && IL->getSemanticForm())
        return IL->getSemanticForm();
    return IL;
}

// The struct initializer a row's value is: {..} possibly behind a temporary.
const InitListExpr *structInit(const Expr *E) {
    for (int Steps = 0; E && Steps < 8; Steps++) {
        E = strip(E);
        if (const auto *IL = dyn_cast<InitListExpr>(E))
            return semantic(IL)->getType()->isRecordType() ? semantic(IL) : nullptr;
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
            E = CE->getArg(0);
        else
            return nullptr;
    }
    return nullptr;
}

// The element list of a table's initializer: an initializer_list given to a
// container's constructor, a C array's or std::array's braces.
const InitListExpr *elementList(const Expr *E) {
    for (int Steps = 0; E && Steps < 8; Steps++) {
        E = strip(E);
        if (const auto *IL = dyn_cast<InitListExpr>(E)) {
            IL = semantic(IL);
            if (IL->getType()->isArrayType())
                return IL;
            // std::array: a struct holding one array member
            if (IL->getNumInits() == 1 && IL->getType()->isRecordType()) {
                E = IL->getInit(0);
                continue;
            }
            return nullptr;
        }
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
            const Expr *List = nullptr;
            for (const Expr *A : CE->arguments())
                if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(strip(A)))
                    List = SIL->getSubExpr();
            if (!List)
                return nullptr;
            E = List;
            continue;
        }
        if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(E)) {
            E = SIL->getSubExpr();
            continue;
        }
        return nullptr;
    }
    return nullptr;
}

bool rowOf(const Expr *El, TableRow &R) {
    El = strip(El);
    // a map's element: std::pair<const K, V>(key, value)
    if (const auto *CE = dyn_cast<CXXConstructExpr>(El); CE && CE->getNumArgs() == 2) {
        R.Key = CE->getArg(0);
        R.Value = structInit(CE->getArg(1));
        return R.Value != nullptr;
    }
    if (const auto *IL = dyn_cast<InitListExpr>(El)) {
        R.Key = nullptr;
        R.Value = structInit(IL);
        return R.Value != nullptr;
    }
    return false;
}

bool isTable(const VarDecl *V) {
    if (!V || !V->hasGlobalStorage() || V->getType()->isReferenceType() ||
        V->getType()->isPointerType())
        return false;
    const VarDecl *Def = V->getDefinition() ? V->getDefinition() : V;
    const InitListExpr *L = Def->getInit() ? elementList(Def->getInit()) : nullptr;
    TableRow R;
    return L && L->getNumInits() >= 1 && rowOf(L->getInit(0), R);
}

// The tables a value can come from: a set, because a table may be passed
// in (every call's argument for a parameter) or a local assigned one of
// several (`config_map = &cfg_silu;` / `= &cfg_gelu;`). Any way that does not
// resolve makes the whole set unknown (empty): the rows listed are all the
// launch can run, or none are.
using TRefs = std::vector<TRef>;
constexpr size_t MaxTables = 16;

bool isNullValue(ASTContext &Ctx, const Expr *E) {
    E = strip(E);
    return E && !E->isValueDependent() &&
           E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
}

// Each of In changed by Fn (false: not a table reference of the kind it
// needs: the whole set is unknown).
template <class F> TRefs step(TRefs In, F Fn) {
    for (TRef &T : In)
        if (!Fn(T))
            return {};
    return In;
}

void add(TRefs &Out, const TRefs &More) {
    for (const TRef &T : More) {
        bool Dup = false;
        for (const TRef &O : Out)
            Dup = Dup || (O.K == T.K && O.Table == T.Table && O.Lookup == T.Lookup &&
                          O.Field == T.Field);
        if (!Dup && Out.size() < MaxTables)
            Out.push_back(T);
    }
}

class TableResolver {
  public:
    TableResolver(CaptureContext &C, AsmModules &M) : C(C), M(M) {}

    TRefs resolve(const Expr *E, int Depth) {
        E = strip(E);
        if (!E || Depth > MaxDepth || --Budget < 0)
            return {};
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
            const CXXMethodDecl *Md = MC->getMethodDecl();
            if (!Md || !Md->getIdentifier())
                return {};
            StringRef N = Md->getName();
            if ((N == "c_str" || N == "data" || N == "get" || N == "value") &&
                MC->getNumArgs() == 0)
                return resolve(MC->getImplicitObjectArgument(), Depth + 1);
            if ((N == "find" || N == "at") && MC->getNumArgs() == 1)
                return step(resolve(MC->getImplicitObjectArgument(), Depth + 1), [&](TRef &T) {
                    if (T.K != TK::Table)
                        return false;
                    T.K = N == "find" ? TK::Elem : TK::Row;
                    T.Lookup = MC->getArg(0);
                    return true;
                });
            return {};
        }
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
            // a std::string (or any copy) made from the value
            if (CE->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(CE->getArg(0)) &&
                (CE->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(CE->getArg(1))))
                return resolve(CE->getArg(0), Depth + 1);
            return {};
        }
        if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
            if ((OC->getOperator() == OO_Arrow || OC->getOperator() == OO_Star) &&
                OC->getNumArgs() == 1)
                return resolve(OC->getArg(0), Depth + 1);
            if (OC->getOperator() == OO_Subscript && OC->getNumArgs() == 2)
                return step(resolve(OC->getArg(0), Depth + 1), [&](TRef &T) {
                    if (T.K != TK::Table)
                        return false;
                    T.K = TK::Row;
                    T.Lookup = OC->getArg(1);
                    return true;
                });
            return {};
        }
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
            return step(resolve(AS->getBase(), Depth + 1), [&](TRef &T) {
                if (T.K != TK::Table)
                    return false;
                T.K = TK::Row;
                T.Lookup = AS->getIdx();
                return true;
            });
        if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
            if (UO->getOpcode() == UO_AddrOf || UO->getOpcode() == UO_Deref)
                return resolve(UO->getSubExpr(), Depth + 1);
            return {};
        }
        if (const auto *ME = dyn_cast<MemberExpr>(E)) {
            const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
            if (!FD || !FD->getIdentifier())
                return {};
            return step(resolve(ME->getBase(), Depth + 1), [&](TRef &T) {
                if (T.K == TK::Elem && FD->getName() == "second")
                    T.K = TK::Row;
                else if (T.K == TK::Elem && FD->getName() == "first")
                    T.K = TK::Key;
                else if (T.K == TK::Row) {
                    T.K = TK::Field;
                    T.Field = FD->getName().str();
                } else
                    return false;
                return true;
            });
        }
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
            const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
            if (!VD)
                return {};
            if (const auto *P = dyn_cast<ParmVarDecl>(VD))
                return fromCalls(P, Depth);
            const std::vector<const Expr *> &As = assignments(C, M, VD->getCanonicalDecl());
            if (As.empty() && isTable(VD)) {
                TRef T;
                T.K = TK::Table;
                T.Table = VD->getDefinition() ? VD->getDefinition() : VD;
                return {T};
            }
            if (!VD->hasLocalStorage())
                return {};
            // a local: its initializer and every assignment (null pointers
            // are no table)
            std::vector<const Expr *> Values;
            if (VD->getInit() && !isNullValue(C.ast(), VD->getInit()))
                Values.push_back(VD->getInit());
            for (const Expr *A : As)
                if (!isNullValue(C.ast(), A))
                    Values.push_back(A);
            return union_(Values, Depth);
        }
        return {};
    }

  private:
    CaptureContext &C;
    AsmModules &M;
    int Budget = 4096; // steps for one question, however the ways fan out

    TRefs union_(const std::vector<const Expr *> &Values, int Depth) {
        TRefs Out;
        for (const Expr *V : Values) {
            TRefs R = resolve(V, Depth + 1);
            if (R.empty())
                return {};
            add(Out, R);
        }
        return Out;
    }

    // A parameter: what every call of its function in the TU passes for it.
    TRefs fromCalls(const ParmVarDecl *P, int Depth) {
        const auto *F = dyn_cast<FunctionDecl>(P->getDeclContext());
        if (!F)
            return {};
        std::vector<const Expr *> Values;
        for (const auto &Call : callsOf(C, M, F)) {
            const Expr *A = argFor(Call.first, P);
            if (!A)
                return {};
            Values.push_back(A);
        }
        return union_(Values, Depth + 4); // a call out costs more than a step
    }
};

} // namespace

std::vector<LoaderConstruction> loaderConstructions(CaptureContext &C, const Expr *Obj,
                                                    const CXXRecordDecl *Loader, AsmModules &M) {
    Constructions F(C, Loader, M);
    F.follow(Obj, 0);
    return F.Out;
}

std::vector<LoaderConstruction> throughWrappers(CaptureContext &C, const LoaderConstruction &K,
                                                const std::vector<unsigned> &Want, AsmModules &M) {
    std::vector<LoaderConstruction> Out;
    wrapperCalls(C, K, Want, M, 0, Out);
    return Out;
}

std::vector<TableField> tableFields(CaptureContext &C, const Expr *E, AsmModules &M) {
    std::vector<TableField> Out;
    for (const TRef &T : TableResolver(C, M).resolve(E, 0)) {
        if (T.K != TK::Field && T.K != TK::Key)
            return {};
        TableField F;
        F.Table = T.Table;
        F.Lookup = T.Lookup;
        F.Key = T.K == TK::Key;
        F.Field = T.Field;
        Out.push_back(F);
    }
    return Out;
}

std::vector<TableRow> tableRows(const VarDecl *Table, size_t Max, size_t &Total) {
    std::vector<TableRow> Rows;
    Total = 0;
    const InitListExpr *L = Table && Table->getInit() ? elementList(Table->getInit()) : nullptr;
    if (!L)
        return Rows;
    for (unsigned I = 0; I < L->getNumInits(); I++) {
        TableRow R;
        if (!rowOf(L->getInit(I), R))
            continue;
        Total++;
        if (Rows.size() < Max)
            Rows.push_back(R);
    }
    return Rows;
}

const Expr *rowField(const TableRow &R, const std::string &Field, bool Key) {
    if (Key)
        return R.Key;
    const RecordDecl *RD = R.Value->getType()->getAsRecordDecl();
    if (!RD)
        return nullptr;
    unsigned I = 0;
    for (const FieldDecl *F : RD->fields()) {
        if (F->getName() == Field)
            return I < R.Value->getNumInits() ? R.Value->getInit(I) : nullptr;
        I++;
    }
    return nullptr;
}

} // namespace kwalk
