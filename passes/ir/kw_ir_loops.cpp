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
        if (Manual) {
            Out->trip_count = C.val(Manual, nullptr);
            Out->lane_dependent = LaneDep;
            C.LoopTrips.push_back(Manual);
            C.note("a loop with a non-constant step (e.g. i += blockDim.x) is counted assuming its "
                   "induction variable does not wrap");
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
            const Expr *E = C.Pool.add(scevToExpr(C, BTC, W), C.Pool.num(1));
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
