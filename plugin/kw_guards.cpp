// kw_guards.cpp: walking up from a statement to its function's entry and
// recording every condition on the way.
#include "kw_guards.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <optional>

using namespace clang;

namespace kwalk {

namespace {

// The value of a condition that is a compile-time constant here (in this
// instantiation), or nothing. Remembered per condition in C: every call and
// launch under it asks again.
std::optional<bool> constantBool(CaptureContext &C, const Expr *E) {
    if (!E || E->isValueDependent() || E->isTypeDependent() || E->containsErrors())
        return std::nullopt;
    auto [It, New] = C.Bools.try_emplace(E, -1);
    if (New) {
        bool V = false;
        if (E->EvaluateAsBooleanCondition(V, C.ast()))
            It->second = V ? 1 : 0;
    }
    if (It->second < 0)
        return std::nullopt;
    return It->second == 1;
}

std::optional<llvm::APSInt> constantInt(ASTContext &Ctx, const Expr *E) {
    if (!E || E->isValueDependent() || E->isTypeDependent() || E->containsErrors())
        return std::nullopt;
    Expr::EvalResult R;
    if (!E->EvaluateAsInt(R, Ctx))
        return std::nullopt;
    return R.Val.getInt();
}

// "always" when a constant condition's value is the one the guard needs,
// "never" when it is the other; null when the condition is not a constant.
const char *constantOf(std::optional<bool> Value, bool Holds) {
    if (!Value)
        return nullptr;
    return *Value == Holds ? "always" : "never";
}

// Does a constant switch operand V select label L (a case, or a GNU range)?
std::optional<bool> labelMatches(ASTContext &Ctx, const llvm::APSInt &V, const CaseStmt *L) {
    std::optional<llvm::APSInt> Lo = constantInt(Ctx, L->getLHS());
    if (!Lo)
        return std::nullopt;
    if (!L->getRHS())
        return llvm::APSInt::isSameValue(V, *Lo);
    std::optional<llvm::APSInt> Hi = constantInt(Ctx, L->getRHS());
    if (!Hi)
        return std::nullopt;
    return llvm::APSInt::compareValues(V, *Lo) >= 0 && llvm::APSInt::compareValues(V, *Hi) <= 0;
}

// Whether a switch with a constant operand comes to Labels: one of them
// selects it, or a `default` among them does and no case of the switch does.
std::optional<bool> switchTaken(ASTContext &Ctx, const SwitchStmt *SW,
                                const std::vector<const SwitchCase *> &Labels) {
    std::optional<llvm::APSInt> V = constantInt(Ctx, SW->getCond());
    if (!V)
        return std::nullopt;
    bool HasDefault = false;
    for (const SwitchCase *L : Labels) {
        const auto *CS = dyn_cast<CaseStmt>(L);
        if (!CS) {
            HasDefault = true;
            continue;
        }
        std::optional<bool> M = labelMatches(Ctx, *V, CS);
        if (!M)
            return std::nullopt;
        if (*M)
            return true;
    }
    if (!HasDefault)
        return false;
    for (const SwitchCase *L = SW->getSwitchCaseList(); L; L = L->getNextSwitchCase())
        if (const auto *CS = dyn_cast<CaseStmt>(L)) {
            std::optional<bool> M = labelMatches(Ctx, *V, CS);
            if (!M)
                return std::nullopt;
            if (*M)
                return false; // a case takes it: the default does not
        }
    return true;
}

// The case labels a statement sits under inside a switch body: either the
// labels wrapping it directly, or the last labels before it in the body.
std::vector<const SwitchCase *> labelsBefore(const CompoundStmt *Body, const Stmt *Child) {
    std::vector<const SwitchCase *> Labels;
    for (const Stmt *S : Body->body()) {
        if (auto *SC = dyn_cast<SwitchCase>(S)) {
            Labels.clear();
            const Stmt *Cur = SC;
            while (auto *L = dyn_cast_or_null<SwitchCase>(Cur)) {
                Labels.push_back(L);
                Cur = L->getSubStmt();
            }
        }
        if (S == Child)
            return Labels;
    }
    return {};
}

Guard switchGuard(CaptureContext &C, const SwitchStmt *SW,
                  const std::vector<const SwitchCase *> &Labels) {
    std::string Cond = C.exprString(SW->getCond());
    std::string Text;
    bool IsDefault = false;
    for (const SwitchCase *L : Labels) {
        if (auto *CS = dyn_cast<CaseStmt>(L)) {
            if (!Text.empty())
                Text += " || ";
            Text += Cond + " == " + C.exprString(CS->getLHS());
            if (CS->getRHS())
                Text += " ... " + C.exprString(CS->getRHS());
        } else {
            IsDefault = true;
        }
    }
    Guard G;
    G.Exprs.push_back(SW->getCond());
    for (const SwitchCase *L : Labels)
        if (auto *CS = dyn_cast<CaseStmt>(L)) {
            G.Exprs.push_back(CS->getLHS());
            if (CS->getRHS())
                G.Exprs.push_back(CS->getRHS());
        }
    if (IsDefault && Text.empty()) {
        G.Kind = "default";
        G.Condition = C.str(Cond + " matches no case");
    } else {
        G.Kind = "case";
        G.Condition = C.str(Text);
    }
    G.Holds = true;
    G.Constant = constantOf(switchTaken(C.ast(), SW, Labels), true);
    G.Location = C.loc(Labels.empty() ? SW->getBeginLoc() : Labels.front()->getBeginLoc());
    return G;
}

// True when control never falls out of S: a return, a throw, or a block (or
// if/else) every way through which ends in one.
bool alwaysExits(const Stmt *S) {
    if (!S)
        return false;
    if (isa<ReturnStmt>(S) || isa<CXXThrowExpr>(S))
        return true;
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
        return !CS->body_empty() && alwaysExits(CS->body_back());
    if (const auto *If = dyn_cast<IfStmt>(S))
        return If->getElse() && alwaysExits(If->getThen()) && alwaysExits(If->getElse());
    if (const auto *E = dyn_cast<ExprWithCleanups>(S))
        return alwaysExits(E->getSubExpr());
    if (const auto *A = dyn_cast<AttributedStmt>(S)) // if (c) [[unlikely]] { ... }
        return alwaysExits(A->getSubStmt());
    if (const auto *CE = dyn_cast<CallExpr>(S))
        if (const FunctionDecl *F = CE->getDirectCallee())
            return F->isNoReturn();
    return false;
}

// "do { ... } while (0)": how a macro makes one statement of several.
const Stmt *onceBody(CaptureContext &C, const Stmt *S) {
    const auto *D = dyn_cast<DoStmt>(S);
    std::optional<bool> Cond = D ? constantBool(C, D->getCond()) : std::nullopt;
    return Cond && !*Cond ? D->getBody() : nullptr;
}

// The `if (bad) exit` statements S is: S itself, or, for a check macro
// (`do { if (!(c)) fail(...); } while (0)` with a [[noreturn]] fail), those
// at the top of its body.
std::vector<const IfStmt *> exitIfs(CaptureContext &C, const Stmt *S) {
    std::vector<const IfStmt *> Out;
    std::vector<const Stmt *> Cands{S};
    if (const Stmt *Body = onceBody(C, S)) {
        Cands = {Body};
        if (const auto *CS = dyn_cast<CompoundStmt>(Body))
            Cands.assign(CS->body_begin(), CS->body_end());
    }
    for (const Stmt *X : Cands) {
        const auto *If = dyn_cast<IfStmt>(X);
        if (If && !If->getElse() && If->getCond() && alwaysExits(If->getThen()))
            Out.push_back(If);
    }
    return Out;
}

// Early exits before Child in a block: "if (bad) return ...;" means the
// statements after it run only where the condition does not hold. A check
// macro's `if (!(c))` is recorded as the condition it checks, `c`, holding.
void earlyExits(CaptureContext &C, const CompoundStmt *CS, const Stmt *Child,
                std::vector<Guard> &Out) {
    std::vector<Guard> Found;
    for (const Stmt *S : CS->body()) {
        if (S == Child)
            break;
        if (isa<SwitchCase>(S)) // another case's exits do not guard this one
            Found.clear();
        bool Macro = onceBody(C, S) != nullptr;
        for (const IfStmt *If : exitIfs(C, S)) {
            const Expr *Cond = If->getCond();
            bool Holds = false;
            const auto *Not = dyn_cast<UnaryOperator>(Cond->IgnoreParenImpCasts());
            if (Macro && Not && Not->getOpcode() == UO_LNot) {
                Cond = Not->getSubExpr();
                Holds = true;
            }
            Guard G;
            G.Kind = "early_exit";
            G.Condition = C.exprText(Cond);
            G.Exprs.push_back(Cond);
            G.Holds = Holds;
            G.Constant = constantOf(constantBool(C, Cond), Holds);
            G.Location = C.loc(If->getCond()->getBeginLoc());
            Found.push_back(G);
        }
    }
    // Out is built innermost first and reversed at the end.
    Out.insert(Out.end(), Found.rbegin(), Found.rend());
}

} // namespace

std::vector<Guard> collectGuards(CaptureContext &C, const Stmt *S, const FunctionDecl *Fn) {
    std::vector<Guard> Out;
    ASTContext &Ctx = C.ast();
    C.Parents.index(Fn);
    DynTypedNode Node = DynTypedNode::create(*S);
    const Stmt *Child = S;
    std::vector<const SwitchCase *> PendingLabels;
    for (int Steps = 0; Steps < 4096; Steps++) {
        const DynTypedNode P = C.Parents.parentOf(Ctx, Node);
        if (P.getNodeKind().isNone())
            break;
        if (const auto *If = P.get<IfStmt>()) {
            bool InThen = Child == If->getThen(), InElse = Child == If->getElse();
            if ((InThen || InElse) && If->getCond()) {
                Guard G;
                G.Kind = If->isConstexpr() ? "if constexpr" : "if";
                G.Condition = C.exprText(If->getCond());
                G.Exprs.push_back(If->getCond());
                G.Holds = InThen;
                G.Constant = constantOf(constantBool(C, If->getCond()), InThen);
                G.Location = C.loc(If->getCond()->getBeginLoc());
                Out.push_back(G);
            }
        } else if (const auto *CO = P.get<ConditionalOperator>()) {
            bool InTrue = Child == CO->getTrueExpr(), InFalse = Child == CO->getFalseExpr();
            if (InTrue || InFalse) {
                Guard G;
                G.Kind = "ternary";
                G.Condition = C.exprText(CO->getCond());
                G.Exprs.push_back(CO->getCond());
                G.Holds = InTrue;
                G.Constant = constantOf(constantBool(C, CO->getCond()), InTrue);
                G.Location = C.loc(CO->getCond()->getBeginLoc());
                Out.push_back(G);
            }
        } else if (const auto *SC = P.get<SwitchCase>()) {
            if (Child == SC->getSubStmt())
                PendingLabels.insert(PendingLabels.begin(), SC);
        } else if (const auto *SW = P.get<SwitchStmt>()) {
            if (Child == SW->getBody()) {
                if (!PendingLabels.empty())
                    Out.push_back(switchGuard(C, SW, PendingLabels));
            }
            PendingLabels.clear();
        } else if (const auto *CS = P.get<CompoundStmt>()) {
            const SwitchStmt *SW = C.Parents.parentOf(Ctx, P).get<SwitchStmt>();
            if (SW && SW->getBody() == CS && PendingLabels.empty())
                PendingLabels = labelsBefore(CS, Child);
            earlyExits(C, CS, Child, Out);
        } else if (const auto *For = P.get<ForStmt>()) {
            if (Child == For->getBody()) {
                Guard G;
                G.Kind = "for";
                G.Condition = For->getCond() ? C.exprText(For->getCond()) : C.str("true");
                if (For->getCond())
                    G.Exprs.push_back(For->getCond());
                G.Holds = true;
                G.Constant =
                    For->getCond() ? constantOf(constantBool(C, For->getCond()), true) : "always";
                G.Location = C.loc(For->getBeginLoc());
                Out.push_back(G);
            }
        } else if (const auto *RF = P.get<CXXForRangeStmt>()) {
            if (Child == RF->getBody()) {
                Guard G;
                G.Kind = "range_for";
                G.Condition = C.exprText(RF->getRangeInit());
                G.Holds = true;
                G.Location = C.loc(RF->getBeginLoc());
                Out.push_back(G);
            }
        } else if (const auto *W = P.get<WhileStmt>()) {
            if (Child == W->getBody()) {
                Guard G;
                G.Kind = "while";
                G.Condition = C.exprText(W->getCond());
                G.Exprs.push_back(W->getCond());
                G.Holds = true;
                G.Constant = constantOf(constantBool(C, W->getCond()), true);
                G.Location = C.loc(W->getCond()->getBeginLoc());
                Out.push_back(G);
            }
        } else if (const auto *D = P.get<DoStmt>()) {
            // "do { ... } while (0)" is how macros wrap statements, not a loop.
            const Expr *Cond = D->getCond();
            Expr::EvalResult R;
            bool Once = Cond && !Cond->isValueDependent() &&
                        Cond->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 0;
            if (Child == D->getBody() && !Once) {
                Guard G;
                G.Kind = "do";
                G.Condition = C.exprText(Cond);
                G.Holds = true;
                G.Location = C.loc(D->getBeginLoc());
                Out.push_back(G);
            }
        } else if (const auto *FD = P.get<FunctionDecl>()) {
            // The lambda's call operator is a step on the way out; any other
            // function is the end of the walk.
            if (!isLambdaCallOperator(FD))
                break;
        }
        Node = P;
        Child = P.get<Stmt>();
    }
    std::reverse(Out.begin(), Out.end());
    return Out;
}

} // namespace kwalk
