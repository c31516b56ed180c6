// kw_asm_tables.cpp: following an ASM loader object back to the
// constructions that made it (kw_asm_tables.h), and reading the constant
// tables the constructor's kernel name and code-object path come from.
//
// Everything is bounded: expressions are followed at most MaxDepth steps,
// each variable or member once per question, tables read up to a row cap.
// A variable is followed to its initializer only when nothing in the TU
// assigns it (the TU-wide assignment index of AsmModules).
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

class TableResolver {
  public:
    TableResolver(CaptureContext &C, AsmModules &M) : C(C), M(M) {}

    TRef resolve(const Expr *E, int Depth) {
        E = strip(E);
        TRef None;
        if (!E || Depth > MaxDepth)
            return None;
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
            const CXXMethodDecl *Md = MC->getMethodDecl();
            if (!Md || !Md->getIdentifier())
                return None;
            StringRef N = Md->getName();
            if ((N == "c_str" || N == "data" || N == "get" || N == "value") &&
                MC->getNumArgs() == 0)
                return resolve(MC->getImplicitObjectArgument(), Depth + 1);
            if ((N == "find" || N == "at") && MC->getNumArgs() == 1) {
                TRef T = resolve(MC->getImplicitObjectArgument(), Depth + 1);
                if (T.K != TK::Table)
                    return None;
                T.K = N == "find" ? TK::Elem : TK::Row;
                T.Lookup = MC->getArg(0);
                return T;
            }
            return None;
        }
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
            // a std::string (or any copy) made from the value
            if (CE->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(CE->getArg(0)) &&
                (CE->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(CE->getArg(1))))
                return resolve(CE->getArg(0), Depth + 1);
            return None;
        }
        if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
            if ((OC->getOperator() == OO_Arrow || OC->getOperator() == OO_Star) &&
                OC->getNumArgs() == 1)
                return resolve(OC->getArg(0), Depth + 1);
            if (OC->getOperator() == OO_Subscript && OC->getNumArgs() == 2) {
                TRef T = resolve(OC->getArg(0), Depth + 1);
                if (T.K != TK::Table)
                    return None;
                T.K = TK::Row;
                T.Lookup = OC->getArg(1);
                return T;
            }
            return None;
        }
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
            TRef T = resolve(AS->getBase(), Depth + 1);
            if (T.K != TK::Table)
                return None;
            T.K = TK::Row;
            T.Lookup = AS->getIdx();
            return T;
        }
        if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
            if (UO->getOpcode() == UO_AddrOf || UO->getOpcode() == UO_Deref)
                return resolve(UO->getSubExpr(), Depth + 1);
            return None;
        }
        if (const auto *ME = dyn_cast<MemberExpr>(E)) {
            const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
            if (!FD || !FD->getIdentifier())
                return None;
            TRef T = resolve(ME->getBase(), Depth + 1);
            if (T.K == TK::Elem && FD->getName() == "second") {
                T.K = TK::Row;
                return T;
            }
            if (T.K == TK::Elem && FD->getName() == "first") {
                T.K = TK::Key;
                return T;
            }
            if (T.K == TK::Row) {
                T.K = TK::Field;
                T.Field = FD->getName().str();
                return T;
            }
            return None;
        }
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
            const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
            if (!VD || isa<ParmVarDecl>(VD))
                return None;
            if (!assignments(C, M, VD->getCanonicalDecl()).empty())
                return None; // set more than once: its initializer is not its value
            if (isTable(VD)) {
                TRef T;
                T.K = TK::Table;
                T.Table = VD->getDefinition() ? VD->getDefinition() : VD;
                return T;
            }
            if (VD->hasLocalStorage() && VD->getInit())
                return resolve(VD->getInit(), Depth + 1);
        }
        return None;
    }

  private:
    CaptureContext &C;
    AsmModules &M;
};

} // namespace

std::vector<LoaderConstruction> loaderConstructions(CaptureContext &C, const Expr *Obj,
                                                    const CXXRecordDecl *Loader, AsmModules &M) {
    Constructions F(C, Loader, M);
    F.follow(Obj, 0);
    return F.Out;
}

bool tableField(CaptureContext &C, const Expr *E, AsmModules &M, TableField &Out) {
    TRef T = TableResolver(C, M).resolve(E, 0);
    if (T.K != TK::Field && T.K != TK::Key)
        return false;
    Out.Table = T.Table;
    Out.Lookup = T.Lookup;
    Out.Key = T.K == TK::Key;
    Out.Field = T.Field;
    return true;
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
