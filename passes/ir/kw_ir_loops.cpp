// kw_ir_loops.cpp: the kernel's loops (LoopInfo, after unrolling: the loops
// that are still loops in the code that runs), numbered in reverse post-order
// of their headers, with their nesting and trip counts: the backedge-taken
// count from ScalarEvolution plus one, printed in the facts grammar
// (`ceil((vocab - threadIdx.x)/1024)`).
#include "kw_ir_internal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/DebugLoc.h"

#include <algorithm>

using namespace llvm;

namespace kwir {

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
        if (isa<SCEVCouldNotCompute>(BTC)) {
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
