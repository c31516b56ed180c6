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
bool isReadOnlyUse(ASTContext &Ctx, const DeclRefExpr *DRE) {
    DynTypedNode Node = DynTypedNode::create(*DRE);
    for (int Steps = 0; Steps < 16; Steps++) {
        DynTypedNodeList Ps = Ctx.getParents(Node);
        if (Ps.empty())
            return false;
        const DynTypedNode &P = Ps[0];
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
    ModificationFinder(ASTContext &Ctx, const ValueDecl *V) : Ctx(Ctx), V(V) {}
    bool Modified = false;
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        if (DRE->getDecl() == V && !isReadOnlyUse(Ctx, DRE)) {
            Modified = true;
            return false;
        }
        return true;
    }

  private:
    ASTContext &Ctx;
    const ValueDecl *V;
};

bool toDecimal(const llvm::APSInt &V, std::string &Out) {
    if (V.isUnsigned() ? V.getActiveBits() > 63 : V.getSignificantBits() > 64)
        return false;
    Out = std::to_string(static_cast<long long>(V.getExtValue()));
    return true;
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
        ModificationFinder F(C.ast(), V);
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
    std::string Name = C.exprString(DRE);
    if (Name.empty() || !Seen.insert(Name).second)
        return;
    kw_constant K = {};
    K.name = C.str(Name);
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
    Expr::EvalResult R;
    if (DRE->EvaluateAsInt(R, C.ast()) && toDecimal(R.Val.getInt(), Value)) {
        K.value = C.str(Value);
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
        std::string Text = C.exprString(Init);
        if (Text.empty())
            return;
        K.init = C.str(Text);
    }
    Found.push_back(K);
}

} // namespace kwalk
