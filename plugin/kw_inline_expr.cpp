// kw_inline_expr.cpp: a launch operand's initializer with the calls it makes
// expanded, so that `kwalk render --shape` can evaluate it: a call to a
// function whose body is a few initialized locals and one `return` (ck_tile's
// Kernel::GridSize(args.M, args.N, args.kbatch), its TilePartitioner's
// GridSize, integer_divide_ceil) becomes that return expression with the
// parameters replaced by the caller's arguments, locals by their
// initializers and compile-time constants by their values:
//   dim3(((args.M + 256) - 1) / 256, ((args.N + 128) - 1) / 128, args.kbatch)
// Anything else (a loop, a branch, a call through a pointer) leaves the
// operand as written.
#include "kw_host_internal.h"

#include "clang/AST/StmtCXX.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace clang;

namespace kwalk {

namespace {

struct Scope {
    const Scope *Outer = nullptr; // the caller's scope (arguments are read there)
    std::map<const ParmVarDecl *, const Expr *> Params;
    std::map<const VarDecl *, const Expr *> Locals;
};

class Inliner {
  public:
    explicit Inliner(CaptureContext &C) : C(C) {}
    bool Expanded = false; // a call was expanded

    bool text(const Expr *E, const Scope *S, int Depth, std::string &Out) {
        if (!E || Depth > 24 || E->isValueDependent() || E->isTypeDependent())
            return false;
        // a compile-time constant: its value
        if (E->getType()->isIntegralOrEnumerationType()) {
            Expr::EvalResult R;
            if (E->EvaluateAsInt(R, C.ast())) {
                llvm::SmallString<24> V;
                R.Val.getInt().toString(V);
                Out = std::string(V);
                Expanded |= hasCall(E); // a constexpr call folded: BlockTile::at(number<0>{})
                return true;
            }
        }
        // the caller's own text, where nothing in it is a call to expand
        if (!S->Outer && !hasCall(E)) {
            const char *T = C.exprText(E);
            if (!T)
                return false;
            const Expr *X = E->IgnoreParenImpCasts();
            bool Name = isa<DeclRefExpr>(X) || isa<MemberExpr>(X) || isa<IntegerLiteral>(X);
            Out = Name ? std::string(T) : std::string("(") + T + ")";
            return true;
        }
        E = E->IgnoreParens();
        if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E))
            return text(ICE->getSubExpr(), S, Depth + 1, Out);
        if (const auto *EC = dyn_cast<ExplicitCastExpr>(E))
            return E->getType()->isIntegralOrEnumerationType() &&
                   text(EC->getSubExpr(), S, Depth + 1, Out);
        if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
            return text(MT->getSubExpr(), S, Depth + 1, Out);
        if (const auto *EW = dyn_cast<ExprWithCleanups>(E))
            return text(EW->getSubExpr(), S, Depth + 1, Out);
        if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
            return text(BT->getSubExpr(), S, Depth + 1, Out);
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
            return name(DRE->getDecl(), S, Depth, Out);
        if (const auto *ME = dyn_cast<MemberExpr>(E)) {
            // a field of a parameter: hargs.m -> (a).m
            std::string Base;
            if (ME->isArrow() || !text(ME->getBase(), S, Depth + 1, Base))
                return false;
            Out = Base + "." + ME->getMemberDecl()->getNameAsString();
            return true;
        }
        if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
            std::string L, R;
            if (BO->isAssignmentOp() || BO->isCommaOp() || !text(BO->getLHS(), S, Depth + 1, L) ||
                !text(BO->getRHS(), S, Depth + 1, R))
                return false;
            Out = "(" + L + " " + BO->getOpcodeStr().str() + " " + R + ")";
            return true;
        }
        if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
            std::string Sub;
            UnaryOperatorKind K = UO->getOpcode();
            if ((K != UO_Minus && K != UO_Plus && K != UO_LNot) ||
                !text(UO->getSubExpr(), S, Depth + 1, Sub))
                return false;
            Out = UnaryOperator::getOpcodeStr(K).str() + Sub;
            return true;
        }
        if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
            std::string A, B, D;
            if (!text(CO->getCond(), S, Depth + 1, A) || !text(CO->getTrueExpr(), S, Depth + 1, B) ||
                !text(CO->getFalseExpr(), S, Depth + 1, D))
                return false;
            Out = "(" + A + " ? " + B + " : " + D + ")";
            return true;
        }
        if (const auto *CC = dyn_cast<CXXConstructExpr>(E))
            return construct(CC, S, Depth, Out);
        if (const auto *CE = dyn_cast<CallExpr>(E))
            return call(CE, S, Depth, Out);
        return false;
    }

  private:
    CaptureContext &C;

    static bool hasCall(const Stmt *S) {
        if (!S)
            return false;
        if (isa<CallExpr>(S) || isa<CXXConstructExpr>(S))
            return true;
        for (const Stmt *Child : S->children())
            if (hasCall(Child))
                return true;
        return false;
    }

    bool name(const ValueDecl *D, const Scope *S, int Depth, std::string &Out) {
        if (const auto *P = dyn_cast<ParmVarDecl>(D)) {
            auto It = S->Params.find(P);
            return It != S->Params.end() && S->Outer && text(It->second, S->Outer, Depth + 1, Out);
        }
        if (const auto *V = dyn_cast<VarDecl>(D)) {
            auto It = S->Locals.find(V);
            if (It != S->Locals.end())
                return text(It->second, S, Depth + 1, Out);
        }
        return false;
    }

    // dim3(x, y, z) and the like: a class built from up to three integers.
    bool construct(const CXXConstructExpr *CC, const Scope *S, int Depth, std::string &Out) {
        const CXXConstructorDecl *Ctor = CC->getConstructor();
        if (Ctor && Ctor->isCopyOrMoveConstructor() && CC->getNumArgs() >= 1)
            return text(CC->getArg(0), S, Depth + 1, Out);
        const CXXRecordDecl *RD = CC->getType()->getAsCXXRecordDecl();
        if (!RD || RD->getName() != "dim3" || CC->getNumArgs() > 3)
            return false;
        Out = "dim3(";
        for (unsigned I = 0; I < CC->getNumArgs(); I++) {
            if (isa<CXXDefaultArgExpr>(CC->getArg(I)))
                break;
            std::string A;
            if (!text(CC->getArg(I), S, Depth + 1, A))
                return false;
            Out += (I ? ", " : "") + A;
        }
        Out += ")";
        return true;
    }

    // A call to a function whose body is initialized locals and one return.
    bool call(const CallExpr *CE, const Scope *S, int Depth, std::string &Out) {
        const FunctionDecl *F = CE->getDirectCallee();
        const FunctionDecl *Def = nullptr;
        if (!F || !F->hasBody(Def) || !Def || isa<CXXMemberCallExpr>(CE))
            return false;
        const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
        if (!Body || Body->size() == 0 || Body->size() > 8)
            return false;
        Scope In;
        In.Outer = S;
        unsigned First = isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(Def) ? 1 : 0;
        if (CE->getNumArgs() != Def->getNumParams() + First)
            return false;
        for (unsigned I = 0; I < Def->getNumParams(); I++)
            In.Params[Def->getParamDecl(I)] = CE->getArg(I + First);
        const ReturnStmt *Ret = nullptr;
        for (const Stmt *St : Body->body()) {
            if (Ret)
                return false; // code after the return
            if (const auto *DS = dyn_cast<DeclStmt>(St)) {
                for (const Decl *D : DS->decls()) {
                    const auto *V = dyn_cast<VarDecl>(D);
                    if (!V || !V->getInit())
                        return false;
                    In.Locals[V] = V->getInit();
                }
            } else if (const auto *R = dyn_cast<ReturnStmt>(St)) {
                Ret = R;
            } else if (!isa<NullStmt>(St)) {
                return false;
            }
        }
        if (!Ret || !Ret->getRetValue() || !text(Ret->getRetValue(), &In, Depth + 1, Out))
            return false;
        Expanded = true;
        return true;
    }
};

} // namespace

std::string inlinedOperand(CaptureContext &C, const Expr *Init) {
    Inliner I(C);
    Scope Top;
    std::string Out;
    if (!Init || !I.text(Init, &Top, 0, Out) || !I.Expanded)
        return std::string();
    return Out;
}

} // namespace kwalk
