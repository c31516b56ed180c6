// kw_ir_ldstree.cpp: LDS tree reductions, the block reduction that uses no
// cross-lane operation: each step a thread combines its LDS slot with the slot
// `stride` elements away and stores the result back, then all threads wait at
// a barrier; the stride halves (or doubles) from step to step:
//
//   for (s = blockDim.x / 2; s > 0; s >>= 1) {
//     if (t < s) sm[t] = sm[t] + sm[t + s];
//     __syncthreads();
//   }
//
// Found as a store to LDS of op(x, load(same object, store address + delta)):
// with delta a halving/doubling loop variable times the element size (the
// loop form: steps = that loop's trip count) or, unrolled, a run of such
// stores with constant deltas halving (doubling) and a barrier between each.
#include "kw_ir_compat.h"
#include "kw_ir_internal.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace kwir {

namespace {

struct TStep {
    const StoreInst *St;
    const Instruction *B; // the combine
    const char *Op;
    const Value *Obj;
    int64_t Elt;                  // bytes of one slot
    int64_t ConstDelta = 0;       // bytes to the partner when constant
    const PHINode *Var = nullptr; // else: the loop variable the delta is
    bool Halving = true;
};

// The loop variable a delta is (elt * ext(phi)), when the phi halves or
// doubles in its loop: `p = p >> k`, `p = p / 2^k`, `p = p << k`.
const PHINode *shiftVar(Ctx &C, const SCEV *Delta, bool &Halving) {
    const PHINode *Found = nullptr;
    SCEVExprContains(Delta, [&](const SCEV *E) {
        const auto *U = dyn_cast<SCEVUnknown>(E);
        if (U && !Found)
            Found = dyn_cast<PHINode>(U->getValue());
        return false;
    });
    if (!Found)
        return nullptr;
    const Loop *L = C.LI.getLoopFor(Found->getParent());
    if (!L || L->getHeader() != Found->getParent() || Found->getNumIncomingValues() != 2)
        return nullptr;
    for (unsigned I = 0; I < 2; I++) {
        if (!L->contains(Found->getIncomingBlock(I)))
            continue;
        const auto *BO = dyn_cast<BinaryOperator>(Found->getIncomingValue(I));
        if (!BO || BO->getOperand(0) != Found || !isa<ConstantInt>(BO->getOperand(1)))
            return nullptr;
        switch (BO->getOpcode()) {
        case Instruction::LShr:
        case Instruction::AShr:
        case Instruction::UDiv:
        case Instruction::SDiv:
            Halving = true;
            return Found;
        case Instruction::Shl:
        case Instruction::Mul:
            Halving = false;
            return Found;
        default:
            return nullptr;
        }
    }
    return nullptr;
}

class Trees {
  public:
    explicit Trees(Ctx &C) : C(C) {}

    void run() {
        for (const BasicBlock *BB : C.RPO)
            for (const Instruction &I : *BB)
                if (const auto *St = dyn_cast<StoreInst>(&I))
                    step(St);
        loopTrees();
        unrolledTrees();
    }

  private:
    void step(const StoreInst *St) {
        if (St->getPointerAddressSpace() != 3)
            return;
        const auto *B = dyn_cast<Instruction>(peel(St->getValueOperand()));
        bool Idem;
        const char *Op = B ? reductionOp(B, Idem) : nullptr;
        if (!Op || B->getNumOperands() < 2)
            return;
        const Value *Ptr = St->getPointerOperand();
        const Value *Obj = getUnderlyingObject(Ptr, 12);
        if (!isa<GlobalVariable>(Obj) || !C.SE.isSCEVable(Ptr->getType()))
            return;
        const SCEV *SP = C.SE.getSCEV(const_cast<Value *>(Ptr));
        for (unsigned K = 0; K < 2; K++) {
            const auto *Ld = dyn_cast<LoadInst>(peel(B->getOperand(K)));
            if (!Ld || Ld->getPointerAddressSpace() != 3 ||
                getUnderlyingObject(Ld->getPointerOperand(), 12) != Obj)
                continue;
            const SCEV *D =
                C.SE.getMinusSCEV(C.SE.getSCEV(const_cast<Value *>(Ld->getPointerOperand())), SP);
            if (isa<SCEVCouldNotCompute>(D) || D->isZero())
                continue;
            TStep S{St, B, Op, Obj,
                    (int64_t)C.DL.getTypeStoreSize(St->getValueOperand()->getType())};
            if (!isa<SCEVConstant>(D))
                D = oneLaneDelta(D, St);
            if (const auto *CD = dyn_cast<SCEVConstant>(D)) {
                if (CD->getAPInt().getSignificantBits() > 40)
                    continue;
                S.ConstDelta = CD->getAPInt().getSExtValue();
            } else if (!(S.Var = shiftVar(C, D, S.Halving))) {
                continue;
            }
            Steps.push_back(S);
            return;
        }
    }

    // The last step of an unrolled tree often runs in one thread (`t == 0`:
    // part[0] = op(part[0], part[1])): the store is at part + 4*t, the
    // partner at part + 4, the delta 4 - 4*t. For a store only one lane
    // executes, the delta at that lane when it is affine in workitem.id.x.
    const SCEV *oneLaneDelta(const SCEV *D, const Instruction *At) {
        ScalarEvolution &SE = C.SE;
        uint64_t Mask = 0;
        unsigned WaveIdx = 0;
        activeLanes(C, At, Mask, WaveIdx);
        if (!Mask || (Mask & (Mask - 1)))
            return D;
        std::string W;
        const SCEV *D1 = derive(C, D, TidX, W);
        const SCEVUnknown *Tid = nullptr;
        SCEVExprContains(D, [&](const SCEV *E) {
            const auto *U = dyn_cast<SCEVUnknown>(E);
            if (U && varOf(U->getValue()) == TidX)
                Tid = U;
            return false;
        });
        if (!D1 || !isa<SCEVConstant>(D1) || !Tid)
            return D;
        Type *Ty = SE.getEffectiveSCEVType(D->getType());
        const SCEV *Rest = SE.getMinusSCEV(D, SE.getMulExpr(D1, SE.getNoopOrZeroExtend(Tid, Ty)));
        if (!isa<SCEVConstant>(Rest))
            return D;
        int64_t Lane = (int64_t)WaveIdx * C.Wave + __builtin_ctzll(Mask);
        return SE.getAddExpr(Rest, SE.getMulExpr(D1, SE.getConstant(Ty, (uint64_t)Lane)));
    }

    // barriers inside loop L (its own blocks and nested ones)
    unsigned barriersIn(const Loop *L) {
        unsigned N = 0;
        for (const CallBase *B : C.SBarriers)
            N += L->contains(B->getParent());
        return N;
    }

    int64_t objectBytes(const Value *Obj) {
        const auto *GV = dyn_cast<GlobalVariable>(Obj);
        if (!GV || !GV->getValueType()->isSized())
            return -1;
        return (int64_t)C.DL.getTypeAllocSize(GV->getValueType());
    }

    kw_ir_idiom *emit(const TStep &S) {
        kw_ir_idiom *D = KW_PUSH(C.A, C.Out->idioms);
        if (!D) {
            C.OOM = true;
            return nullptr;
        }
        D->kind = KW_IR_LDS_TREE_REDUCE;
        D->op = S.Op;
        std::string Ty;
        raw_string_ostream OS(Ty);
        S.B->getType()->print(OS);
        D->type = C.str(OS.str());
        D->via = "lds";
        D->result_lane = 0; // the first slot ends with the total
        D->broadcast_lane = -1;
        D->parts[0] = D->parts[1] = -1;
        D->stride = S.Halving ? "halving" : "doubling";
        D->lds_object = S.Obj->hasName() ? C.str(demangleSymbol(S.Obj->getName().str())) : nullptr;
        D->lds_bytes = objectBytes(S.Obj);
        D->loc = location(C, S.St);
        return D;
    }

    void loopTrees() {
        std::vector<std::pair<const Loop *, const Value *>> Done;
        for (const TStep &S : Steps) {
            if (!S.Var)
                continue;
            const Loop *L = C.LI.getLoopFor(S.Var->getParent());
            if (!L->contains(S.St) ||
                std::find(Done.begin(), Done.end(), std::make_pair(L, S.Obj)) != Done.end())
                continue;
            unsigned Bars = barriersIn(L);
            if (!Bars)
                continue; // not synchronized: not a block-wide tree
            Done.push_back({L, S.Obj});
            kw_ir_idiom *D = emit(S);
            if (!D)
                return;
            int Id = C.LoopId.count(L) ? C.LoopId.lookup(L) : -1;
            const Expr *Trip = Id >= 0 && Id < (int)C.LoopTrips.size() ? C.LoopTrips[Id] : nullptr;
            D->tree_steps = Trip ? C.val(Trip, nullptr)
                                 : C.unknown("the trip count of its loop (loop " +
                                             std::to_string(Id) + ") is unknown");
            if (Trip && Trip->k == Expr::Num && Trip->num > 0 && Trip->num < 32)
                D->lanes = 1u << Trip->num;
            D->steps = 0;
            D->barriers = Bars;
            D->loop = Id;
            std::string W;
            for (unsigned I = 0; I < 2; I++)
                if (!L->contains(S.Var->getIncomingBlock(I)) && C.SE.isSCEVable(S.Var->getType()))
                    if (const Expr *E = scevToExpr(C, C.SE.getSCEV(S.Var->getIncomingValue(I)), W))
                        D->first_stride = C.str(E->text);
        }
    }

    bool barrierBetween(const Instruction *From, const Instruction *To) {
        for (const CallBase *B : C.SBarriers)
            if (C.DT.dominates(cast<Instruction>(B), To) &&
                !C.DT.dominates(cast<Instruction>(B), From) &&
                isPotentiallyReachable(From, B, nullptr, &C.DT, &C.LI))
                return true;
        return false;
    }

    void unrolledTrees() {
        std::vector<bool> Used(Steps.size(), false);
        for (size_t H = 0; H < Steps.size(); H++) {
            if (Used[H] || Steps[H].Var || Steps[H].ConstDelta <= 0)
                continue;
            std::vector<size_t> Run{H};
            for (size_t N = H + 1; N < Steps.size(); N++) {
                const TStep &P = Steps[Run.back()], &Q = Steps[N];
                if (Used[N] || Q.Var || Q.Obj != P.Obj || strcmp(Q.Op, P.Op) ||
                    C.loopOf(Q.St) != C.loopOf(P.St))
                    continue;
                bool Halves = Q.ConstDelta * 2 == P.ConstDelta,
                     Doubles = Q.ConstDelta == P.ConstDelta * 2;
                bool Dir =
                    Run.size() == 1
                        ? (Halves || Doubles)
                        : (Steps[Run[1]].ConstDelta < Steps[Run[0]].ConstDelta ? Halves : Doubles);
                if (!Dir || !barrierBetween(P.St, Q.St))
                    continue;
                Run.push_back(N);
            }
            if (Run.size() < 2)
                continue;
            unsigned Bars = 0;
            for (const CallBase *B : C.SBarriers)
                for (size_t I = 0; I + 1 < Run.size(); I++) {
                    const Instruction *BI = cast<Instruction>(B);
                    if (C.DT.dominates(BI, Steps[Run[I + 1]].St) &&
                        !C.DT.dominates(BI, Steps[Run[I]].St) &&
                        isPotentiallyReachable(Steps[Run[I]].St, BI, nullptr, &C.DT, &C.LI)) {
                        Bars++;
                        break;
                    }
                }
            for (size_t I : Run)
                Used[I] = true;
            TStep S = Steps[H];
            S.Halving = Steps[Run[1]].ConstDelta < S.ConstDelta;
            kw_ir_idiom *D = emit(S);
            if (!D)
                return;
            D->tree_steps = C.number((int64_t)Run.size());
            D->steps = 0;
            D->lanes = Run.size() < 32 ? 1u << Run.size() : 0;
            D->barriers = Bars / (unsigned)(Run.size() - 1); // per step, as for the loop form
            D->loop = C.loopOf(S.St);
            D->first_stride = C.str(std::to_string(S.ConstDelta / (S.Elt ? S.Elt : 1)));
        }
    }

    Ctx &C;
    std::vector<TStep> Steps;
};

} // namespace

void collectLdsTrees(Ctx &C) {
    Trees T(C);
    T.run();
}

} // namespace kwir
