// kw_constants.cpp: the named constants of an expression (kw_constants.h).
#include "kw_constants.h"
#include "kw_host_internal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <string>

using namespace clang;

namespace kwalk {

namespace {

const int MaxDepth = 8;     // initializers followed through at most this many locals
const size_t MaxNames = 64; // per launch or call

// True when a use of a variable only reads it.
bool isReadOnlyUse(CaptureContext &C, const DeclRefExpr *DRE) {
    DynTypedNode Node = DynTypedNode::create(*DRE);
    for (int Steps = 0; Steps < 16; Steps++) {
        const DynTypedNode P = C.Parents.parentOf(C.ast(), Node);
        if (P.getNodeKind().isNone())
            return false;
        if (const auto *ICE = P.get<ImplicitCastExpr>()) {
            if (ICE->getCastKind() == CK_LValueToRValue)
                return true;
            if (ICE->getCastKind() != CK_NoOp)
                return false;
        } else if (const auto *CE = P.get<CXXConstructExpr>()) {
            const CXXConstructorDecl *Ctor = CE->getConstructor();
            return Ctor && Ctor->isCopyConstructor() &&
                   Ctor->getParamDecl(0)->getType().getNonReferenceType().isConstQualified();
        } else if (const auto *MC = P.get<CXXMemberCallExpr>()) {
            const CXXMethodDecl *M = MC->getMethodDecl();
            return M && M->isConst();
        } else if (!P.get<ParenExpr>() && !P.get<MemberExpr>()) {
            return false;
        }
        Node = P;
    }
    return false;
}

class ModificationFinder : public RecursiveASTVisitor<ModificationFinder> {
  public:
    ModificationFinder(CaptureContext &C, const ValueDecl *V) : C(C), V(V) {}
    bool Modified = false;
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        if (DRE->getDecl() == V && !isReadOnlyUse(C, DRE)) {
            Modified = true;
            return false;
        }
        return true;
    }

  private:
    CaptureContext &C;
    const ValueDecl *V;
};

bool toDecimal(const llvm::APSInt &V, std::string &Out) {
    if (V.isUnsigned() ? V.getActiveBits() > 63 : V.getSignificantBits() > 64)
        return false;
    Out = std::to_string(static_cast<long long>(V.getExtValue()));
    return true;
}

// The decimal value clang's constant evaluation gives E, or null; remembered
// per expression (a name in a dispatch macro's conditions is asked about by
// every call and launch under them).
const char *intText(CaptureContext &C, const Expr *E) {
    auto Known = C.IntTexts.find(E);
    if (Known != C.IntTexts.end())
        return Known->second;
    const char *Text = nullptr;
    Expr::EvalResult R;
    std::string Value;
    if (E->EvaluateAsInt(R, C.ast()) && toDecimal(R.Val.getInt(), Value))
        Text = C.str(Value);
    C.IntTexts[E] = Text;
    return Text;
}

} // namespace

bool neverChanged(CaptureContext &C, const ValueDecl *V, const FunctionDecl *Enclosing) {
    const auto *VD = dyn_cast<VarDecl>(V);
    if (VD && !VD->getType()->isReferenceType() && VD->getType().isConstQualified())
        return true; // const: never changed (a const_cast write is undefined)
    if (!Enclosing)
        if (const auto *DC = V->getDeclContext())
            Enclosing = dyn_cast<FunctionDecl>(DC);
    const FunctionDecl *Def = nullptr;
    if (!Enclosing || !Enclosing->hasBody(Def))
        return false; // not seen: not known to stay
    auto [It, New] = C.NeverChanged.try_emplace({V, Def}, false);
    if (New) {
        C.Parents.index(Def);
        ModificationFinder F(C, V);
        F.TraverseStmt(Def->getBody());
        It->second = !F.Modified;
    }
    return It->second;
}

void ConstantSet::walk(const Stmt *S, int Depth) {
    if (!S || Found.size() >= MaxNames || isa<LambdaExpr>(S))
        return;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
        name(DRE, Depth);
    for (const Stmt *Child : S->children())
        walk(Child, Depth);
}

void ConstantSet::name(const DeclRefExpr *DRE, int Depth) {
    if (DRE->isValueDependent() || DRE->isTypeDependent())
        return;
    const ValueDecl *D = DRE->getDecl();
    const auto *VD = dyn_cast<VarDecl>(D);
    const auto *ECD = dyn_cast<EnumConstantDecl>(D);
    if (!ECD && (!VD || isa<ParmVarDecl>(VD) || !VD->getType()->isIntegralOrEnumerationType()))
        return;
    const char *Name = C.exprText(DRE);
    if (!Name || !*Name || !Seen.insert(Name).second)
        return;
    kw_constant K = {};
    K.name = Name;
    std::string Value;
    if (ECD) {
        K.kind = "enumerator";
        if (!toDecimal(ECD->getInitVal(), Value))
            return;
        K.value = C.str(Value);
        Found.push_back(K);
        return;
    }
    K.kind = VD->isStaticDataMember() ? "member" : VD->hasLocalStorage() ? "local" : "global";
    if (const char *Known = intText(C, DRE)) {
        K.value = Known;
        Found.push_back(K);
        return;
    }
    // a local set once: its initializer, itself written with other names
    const Expr *Init = VD->getInit();
    if (!VD->hasLocalStorage() || !Init || Depth >= MaxDepth || !neverChanged(C, VD, nullptr))
        return;
    long long V = 0;
    if (evalInt(C, Init, dyn_cast_or_null<FunctionDecl>(VD->getDeclContext()), V)) {
        K.value = C.str(std::to_string(V));
    } else {
        walk(Init, Depth + 1);
        const char *Text = C.exprText(Init);
        if (!Text || !*Text)
            return;
        K.init = Text;
    }
    Found.push_back(K);
}

} // namespace kwalk
