// kw_ir_loops.cpp: the kernel's loops (LoopInfo, after unrolling: the loops
// that are still loops in the code that runs), numbered in reverse post-order
// of their headers, with their nesting and trip counts: the backedge-taken
// count from ScalarEvolution plus one, printed in the facts grammar
// (`ceil((vocab - threadIdx.x)/1024)`).
#include "kw_ir_internal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/DebugLoc.h"

#include <algorithm>

using namespace llvm;

namespace kwir {

namespace {

// When ScalarEvolution will not count a loop because its step is not a
// constant (a grid- or block-stride loop: i += blockDim.x) it still knows the
// induction variable. For a loop whose only exit is a latch compare of an
// affine add-recurrence against a loop-invariant bound, the header runs
// ceil((bound - first)/step) times (strict compare; bound + 1 for <=),
// provided the variable does not wrap.
const Expr *strideTrip(Ctx &C, Loop *L, bool &LaneDep) {
    ScalarEvolution &SE = C.SE;
    BasicBlock *Latch = L->getLoopLatch();
    if (!Latch || L->getExitingBlock() != Latch)
        return nullptr;
    const auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
    const auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
    // integers only: a compare of pointers would reach SE.getOne(pointer type)
    if (!Cmp || !Cmp->getOperand(0)->getType()->isIntegerTy())
        return nullptr;
    CmpInst::Predicate P = Cmp->getPredicate();
    if (!L->contains(Br->getSuccessor(0)))
        P = CmpInst::getInversePredicate(P); // the condition to go on
    const SCEV *A = SE.getSCEV(Cmp->getOperand(0)), *B = SE.getSCEV(Cmp->getOperand(1));
    if (!isa<SCEVAddRecExpr>(A)) {
        std::swap(A, B);
        P = CmpInst::getSwappedPredicate(P);
    }
    const auto *AR = dyn_cast<SCEVAddRecExpr>(A);
    if (!AR || AR->getLoop() != L || !AR->isAffine() || !SE.isLoopInvariant(B, L))
        return nullptr;
    const SCEV *Step = AR->getStepRecurrence(SE);
    // the value the variable has at the first latch compare, minus one step:
    // the first value for a compare of the incremented variable
    const SCEV *First = SE.getMinusSCEV(AR->getStart(), Step);
    const SCEV *Num = nullptr;
    const SCEV *One = SE.getOne(B->getType());
    switch (P) {
    case CmpInst::ICMP_SLT:
    case CmpInst::ICMP_ULT: Num = SE.getMinusSCEV(B, First); break;
    case CmpInst::ICMP_SLE:
    case CmpInst::ICMP_ULE: Num = SE.getAddExpr(SE.getMinusSCEV(B, First), One); break;
    case CmpInst::ICMP_SGT:
    case CmpInst::ICMP_UGT:
        Num = SE.getMinusSCEV(First, B);
        Step = SE.getNegativeSCEV(Step);
        break;
    case CmpInst::ICMP_SGE:
    case CmpInst::ICMP_UGE:
        Num = SE.getAddExpr(SE.getMinusSCEV(First, B), One);
        Step = SE.getNegativeSCEV(Step);
        break;
    default: return nullptr;
    }
    if (!SE.isKnownNonNegative(Step) || Step->isZero())
        return nullptr;
    std::string W;
    const Expr *N = scevToExpr(C, Num, W);
    const Expr *D = N ? scevToExpr(C, Step, W) : nullptr;
    if (!D)
        return nullptr;
    for (int V = TidX; V <= TidZ; V++)
        LaneDep |= scevDependsOn(C, Num, (Var)V);
    return C.Pool.ceil(C.Pool.div(N, D));
}

// ScalarEvolution counts `do { i += s; } while (i < n)` with a step s that is
// not a constant (i += blockDim.x) as
//   umin(1, D) + (D - umin(1, D)) /u s,   D = max(i0 + s, n) - (i0 + s)
// which is ceil(D/s) for D >= 0. For a loop that is entered, its header runs
// ceil((n - i0)/s) times: that is the trip count printed (the entry guard is
// the condition i0 < n; docs/ir-facts.md). nullptr when BTC is not that form.
const Expr *unknownStepTrip(Ctx &C, const SCEV *BTC) {
    ScalarEvolution &SE = C.SE;
    const auto *Sum = dyn_cast<SCEVAddExpr>(BTC);
    if (!Sum || Sum->getNumOperands() != 2)
        return nullptr;
    const SCEVUMinExpr *U = nullptr;
    const SCEVUDivExpr *Q = nullptr;
    for (const SCEV *Op : Sum->operands()) {
        if (const auto *M = dyn_cast<SCEVUMinExpr>(Op))
            U = M;
        else if (const auto *Dv = dyn_cast<SCEVUDivExpr>(Op))
            Q = Dv;
    }
    if (!U || !Q || U->getNumOperands() != 2 || !U->getOperand(0)->isOne())
        return nullptr;
    const SCEV *D = U->getOperand(1);
    if (Q->getLHS() != SE.getMinusSCEV(D, U))
        return nullptr;
    const SCEV *Step = Q->getRHS();
    // D = max(A, n) - A with A = i0 + s
    const auto *DS = dyn_cast<SCEVAddExpr>(D);
    if (!DS)
        return nullptr;
    for (const SCEV *Op : DS->operands()) {
        const auto *Mx = dyn_cast<SCEVMinMaxExpr>(Op);
        if (!Mx || Mx->getNumOperands() != 2 ||
            (Mx->getSCEVType() != scSMaxExpr && Mx->getSCEVType() != scUMaxExpr))
            continue;
        for (unsigned I = 0; I < 2; I++) {
            const SCEV *A = Mx->getOperand(I), *N = Mx->getOperand(1 - I);
            if (SE.getAddExpr(D, A) != Mx)
                continue;
            // trips = ceil((n - i0)/s) = ceil((n - A + s)/s)
            std::string W;
            const SCEV *Num = SE.getAddExpr(SE.getMinusSCEV(N, A), Step);
            const Expr *NE = scevToExpr(C, Num, W);
            const Expr *SE2 = NE ? scevToExpr(C, Step, W) : nullptr;
            if (!SE2)
                return nullptr;
            return C.Pool.ceil(C.Pool.div(NE, SE2));
        }
    }
    return nullptr;
}

// The variable a halving (or doubling) loop steps: `s = s >> k` (lshr,
// ashr, udiv by 2^k) or `s = s << k`, with the header phi P, its start S from
// outside the loop and the shift k (negative: doubling).
struct Shift {
    const PHINode *P = nullptr;
    const Value *S = nullptr;
    const Value *Next = nullptr;
    int K = 0;
};

bool shiftStep(const Loop *L, const Value *Next, Shift &Out) {
    const auto *BO = dyn_cast<BinaryOperator>(Next);
    const auto *P = BO ? dyn_cast<PHINode>(BO->getOperand(0)) : nullptr;
    const auto *Amt = BO ? dyn_cast<ConstantInt>(BO->getOperand(1)) : nullptr;
    if (!P || !Amt || P->getParent() != L->getHeader() || P->getNumIncomingValues() != 2 ||
        Amt->getValue().getActiveBits() > 6)
        return false;
    int64_t A = (int64_t)Amt->getZExtValue();
    switch (BO->getOpcode()) {
    case Instruction::LShr:
    case Instruction::AShr:
        Out.K = (int)A;
        break;
    case Instruction::UDiv:
        if (A < 2 || (A & (A - 1)))
            return false;
        Out.K = 63 - __builtin_clzll((uint64_t)A);
        break;
    case Instruction::Shl:
        Out.K = -(int)A;
        break;
    default:
        return false;
    }
    if (!Out.K)
        return false;
    const Value *Start = nullptr;
    for (unsigned I = 0; I < 2; I++) {
        if (L->contains(P->getIncomingBlock(I))) {
            if (P->getIncomingValue(I) != Next)
                return false;
        } else {
            Start = P->getIncomingValue(I);
        }
    }
    if (!Start)
        return false;
    Out.P = P;
    Out.S = Start;
    Out.Next = Next;
    return true;
}

// A loop that halves its variable until it is 0 (`for (s = n/2; s > 0; s >>= 1)`,
// an LDS tree reduction's stride) or doubles it up to a bound (`for (s = 1; s < n;
// s <<= 1)`): ScalarEvolution does not count these. Halving from S by k bits
// while the next value is not 0 runs the header floor(log2(S)/k) + 1 times
// (S >= 1, as the entry guard ensures); doubling from S while the next value is
// below B, ceil(log2(B/S)/k) times.
const Expr *shiftTrip(Ctx &C, Loop *L, bool &LaneDep) {
    BasicBlock *Latch = L->getLoopLatch();
    if (!Latch || L->getExitingBlock() != Latch)
        return nullptr;
    const auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
    const auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
    if (!Cmp)
        return nullptr;
    CmpInst::Predicate Pr = Cmp->getPredicate();
    if (!L->contains(Br->getSuccessor(0)))
        Pr = CmpInst::getInversePredicate(Pr); // the condition to go on
    const Value *X = Cmp->getOperand(0), *Y = Cmp->getOperand(1);
    if (isa<Constant>(X)) {
        std::swap(X, Y);
        Pr = CmpInst::getSwappedPredicate(Pr);
    }
    Shift Sh;
    // the compare is of the next value, or of the phi (`s > 1`: the next is not 0)
    bool OfPhi = false;
    if (!shiftStep(L, X, Sh)) {
        const auto *P = dyn_cast<PHINode>(X);
        if (!P || P->getParent() != L->getHeader())
            return nullptr;
        const Value *N = nullptr;
        for (unsigned I = 0; I < P->getNumIncomingValues(); I++)
            if (L->contains(P->getIncomingBlock(I)))
                N = P->getIncomingValue(I);
        if (!N || !shiftStep(L, N, Sh) || Sh.P != P)
            return nullptr;
        OfPhi = true;
    }
    std::string W;
    ExprPool &Pool = C.Pool;
    const SCEV *SS =
        C.SE.isSCEVable(Sh.S->getType()) ? C.SE.getSCEV(const_cast<Value *>(Sh.S)) : nullptr;
    const Expr *S = SS ? scevToExpr(C, SS, W) : nullptr;
    if (!S)
        return nullptr;
    for (int V = TidX; V <= TidZ; V++)
        LaneDep |= scevDependsOn(C, SS, (Var)V);
    const auto *K = dyn_cast<ConstantInt>(Y);
    if (Sh.K > 0) {
        // go on while next != 0: `ne 0`, `ugt 0`, `sgt 0`; of the phi: `ugt/sgt 2^k - 1`, `uge 2^k`
        if (!K)
            return nullptr;
        int64_t Kv = K->getSExtValue(), Lim = ((int64_t)1 << Sh.K) - 1;
        bool Ok =
            !OfPhi
                ? ((Pr == CmpInst::ICMP_NE || Pr == CmpInst::ICMP_UGT || Pr == CmpInst::ICMP_SGT) &&
                   Kv == 0)
                : (((Pr == CmpInst::ICMP_UGT || Pr == CmpInst::ICMP_SGT) && Kv == Lim) ||
                   ((Pr == CmpInst::ICMP_UGE || Pr == CmpInst::ICMP_SGE) && Kv == Lim + 1));
        if (!Ok)
            return nullptr;
        // floor(log2(floor(x/2^j))) = floor(log2(x)) - j for x >= 2^j
        const Expr *Lg = nullptr;
        if (S->k == Expr::Floor && S->ops[0]->k == Expr::Div && S->ops[0]->ops[1]->k == Expr::Num) {
            int64_t D = S->ops[0]->ops[1]->num;
            if (D > 1 && (D & (D - 1)) == 0)
                Lg = Pool.sub(Pool.floor(Pool.log2(S->ops[0]->ops[0])),
                              Pool.num(63 - __builtin_clzll((uint64_t)D)));
        }
        if (!Lg)
            Lg = Pool.floor(Pool.log2(S));
        if (Sh.K > 1)
            Lg = Pool.floor(Pool.div(Lg, Pool.num(Sh.K)));
        return Pool.add(Lg, Pool.num(1));
    }
    // doubling: go on while next < B (`ult`, `slt`); of the phi, while phi < B/2^k is
    // not matched
    if (OfPhi || (Pr != CmpInst::ICMP_ULT && Pr != CmpInst::ICMP_SLT) ||
        !C.SE.isSCEVable(Y->getType()) ||
        !C.SE.isLoopInvariant(C.SE.getSCEV(const_cast<Value *>(Y)), L))
        return nullptr;
    const SCEV *BS = C.SE.getSCEV(const_cast<Value *>(Y));
    const Expr *B = scevToExpr(C, BS, W);
    if (!B)
        return nullptr;
    for (int V = TidX; V <= TidZ; V++)
        LaneDep |= scevDependsOn(C, BS, (Var)V);
    const Expr *Lg = Pool.log2(Pool.div(B, S));
    if (-Sh.K > 1)
        Lg = Pool.div(Lg, Pool.num(-Sh.K));
    return Pool.ceil(Lg);
}

} // namespace

void collectLoops(Ctx &C) {
    SmallVector<Loop *, 8> All = C.LI.getLoopsInPreorder();
    std::vector<const Loop *> Order(All.begin(), All.end());
    std::stable_sort(Order.begin(), Order.end(), [&](const Loop *A, const Loop *B) {
        return C.BlockIndex.lookup(A->getHeader()) < C.BlockIndex.lookup(B->getHeader());
    });
    for (size_t I = 0; I < Order.size(); I++)
        C.LoopId[Order[I]] = (int)I;
    for (const Loop *L : Order) {
        kw_ir_loop *Out = KW_PUSH(C.A, C.Out->loops);
        if (!Out) {
            C.OOM = true;
            return;
        }
        Out->parent = L->getParentLoop() ? C.LoopId.lookup(L->getParentLoop()) : -1;
        Out->depth = L->getLoopDepth();
        Loop *ML = const_cast<Loop *>(L);
        const SCEV *BTC = C.SE.getBackedgeTakenCount(ML);
        bool LaneDep = false;
        const Expr *Manual = isa<SCEVCouldNotCompute>(BTC) ? strideTrip(C, ML, LaneDep) : nullptr;
        const Expr *Shifted =
            isa<SCEVCouldNotCompute>(BTC) && !Manual ? shiftTrip(C, ML, LaneDep) : nullptr;
        if (Manual) {
            Out->trip_count = C.val(Manual, nullptr);
            Out->lane_dependent = LaneDep;
            C.LoopTrips.push_back(Manual);
            C.note("a loop with a non-constant step (e.g. i += blockDim.x) is counted assuming its "
                   "induction variable does not wrap");
        } else if (Shifted) {
            Out->trip_count = C.val(Shifted, nullptr);
            Out->lane_dependent = LaneDep;
            C.LoopTrips.push_back(Shifted);
        } else if (isa<SCEVCouldNotCompute>(BTC)) {
            std::string Why = "scalar evolution cannot count the iterations (the exit depends on "
                              "values computed in the loop)";
            const SCEV *Max = C.SE.getSymbolicMaxBackedgeTakenCount(ML);
            std::string W;
            const Expr *M = isa<SCEVCouldNotCompute>(Max) ? nullptr
                                                           : C.Pool.add(scevToExpr(C, Max, W), C.Pool.num(1));
            if (M)
                Why += "; at most " + M->text;
            Out->trip_count = C.unknown(Why);
            C.LoopTrips.push_back(nullptr);
        } else {
            std::string W;
            const Expr *E = unknownStepTrip(C, BTC);
            if (!E)
                E = C.Pool.add(scevToExpr(C, BTC, W), C.Pool.num(1));
            Out->trip_count = E ? C.val(E, nullptr) : C.unknown("the trip count " + W);
            C.LoopTrips.push_back(E);
            for (int V = TidX; V <= TidZ; V++)
                Out->lane_dependent |= scevDependsOn(C, BTC, (Var)V);
        }
        DebugLoc DL = L->getStartLoc();
        Out->loc = locationOf(C, DL.get());
    }
}

} // namespace kwir
