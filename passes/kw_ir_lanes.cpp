// kw_ir_lanes.cpp: lane-by-lane evaluation of lane-dependent integers and
// addresses. A value is computed for each lane of one wave (workitem.id.x =
// wave*W + lane; workitem.id.y/z and everything that does not depend on the
// lane are one unknown shared by the wave), which gives exact per-lane offsets
// for XOR-swizzled LDS indices, `tid >> 4`, quad patterns, bpermute
// addresses and lane-id guards where an affine stride cannot describe them.
// Also: which lanes the guards let through, a wave's footprint in 64/128-byte
// segments, and the LDS bank-conflict degree.
#include "kw_ir_internal.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"

#include <algorithm>

using namespace llvm;

namespace kwir {

namespace {

// A lane's value: V, or (Uni) an unknown wave-uniform U plus V.
struct LV {
    bool Ok = false;
    bool Uni = false;
    int64_t V = 0;
};

uint64_t maskOf(unsigned W) { return W >= 64 ? ~0ull : ((1ull << W) - 1); }
int64_t norm(int64_t X, unsigned W) {
    if (W >= 64)
        return X;
    uint64_t U = (uint64_t)X & maskOf(W);
    if (U >> (W - 1))
        U |= ~maskOf(W);
    return (int64_t)U;
}
uint64_t uns(int64_t X, unsigned W) { return (uint64_t)X & maskOf(W); }

// How a value is evaluated, lane by lane; the same for every lane.
enum LaneKind : uint8_t {
    KFail,    // not computable lane by lane
    KConst,   // an integer constant
    KTid,     // workitem.id.x
    KLane,    // the lane id
    KUniform, // does not depend on the lane: one unknown for the wave
    KMbcntLo, // mbcnt.lo(-1, acc)
    KMbcntHi, // mbcnt.hi(-1, acc)
    KBinary,
    KCompare,
    KSelect,
    KCast,
    KFreeze,
};

LaneKind classify(Ctx &C, const Value *V) {
    if (const auto *CI = dyn_cast<ConstantInt>(V))
        return CI->getBitWidth() > 64 ? KFail : KConst;
    auto *ITy = dyn_cast<IntegerType>(V->getType());
    if (!ITy || ITy->getBitWidth() > 64)
        return KFail;
    if (varOf(V) == TidX)
        return KTid;
    if (isLaneId(C, V))
        return KLane;
    if (!dependsOn(C, V, TidX))
        return KUniform;
    const auto *I = dyn_cast<Instruction>(V);
    if (!I)
        return KFail;
    StringRef N = amdgcnName(I);
    if ((N == "mbcnt.lo" || N == "mbcnt.hi") && isa<ConstantInt>(I->getOperand(0)) &&
        cast<ConstantInt>(I->getOperand(0))->isMinusOne())
        return N == "mbcnt.lo" ? KMbcntLo : KMbcntHi;
    if (isa<BinaryOperator>(I))
        return KBinary;
    if (isa<ICmpInst>(I))
        return KCompare;
    if (isa<SelectInst>(I))
        return KSelect;
    if (isa<CastInst>(I))
        return KCast;
    if (isa<FreezeInst>(I))
        return KFreeze;
    return KFail;
}

LaneKind kindOf(Ctx &C, const Value *V) {
    auto It = C.LaneKinds.find(V);
    if (It != C.LaneKinds.end())
        return (LaneKind)It->second;
    LaneKind K = classify(C, V);
    C.LaneKinds[V] = K;
    return K;
}

class LaneEval {
  public:
    LaneEval(Ctx &C, unsigned WaveIdx, unsigned Lane) : C(C), WaveIdx(WaveIdx), Lane(Lane) {}

    // The same evaluator for another lane: one memo serves every lane of a
    // wave, its entries of earlier lanes told apart by their generation (a
    // new map per lane, then clearing one per lane, were most of the
    // analysis's time).
    void reset(unsigned NewWave, unsigned NewLane) {
        WaveIdx = NewWave;
        Lane = NewLane;
        Budget = 4000;
        Depth = 0;
        Gen++;
    }

    LV eval(const Value *V) {
        auto It = Memo.find(V);
        LaneKind K;
        if (It != Memo.end()) {
            if (It->second.Gen == Gen)
                return It->second.R;
            K = It->second.Kind; // an earlier lane's entry
        } else {
            K = kindOf(C, V);
        }
        if (Depth >= 128) // bounded recursion: the analysis runs on clang's stack
            return {};
        Depth++;
        LV R = compute(V, K);
        Depth--;
        Memo[V] = {Gen, K, R};
        return R;
    }

    // Offset of pointer P from a base shared by the wave.
    LV evalPtr(const Value *P) {
        if (Budget-- == 0)
            return {};
        if (!dependsOn(C, P, TidX))
            return {true, false, 0};
        if (const auto *GEP = dyn_cast<GEPOperator>(P)) {
            LV Base = evalPtr(GEP->getPointerOperand());
            if (!Base.Ok)
                return {};
            // the offset index by index (collectOffset's signature differs between
            // LLVM versions)
            LV R = Base;
            for (gep_type_iterator GTI = gep_type_begin(GEP), E = gep_type_end(GEP); GTI != E; ++GTI) {
                const Value *Idx = GTI.getOperand();
                if (StructType *STy = GTI.getStructTypeOrNull()) {
                    const auto *F = dyn_cast<ConstantInt>(Idx);
                    if (!F)
                        return {};
                    TypeSize Off = C.DL.getStructLayout(STy)->getElementOffset((unsigned)F->getZExtValue());
                    if (Off.isScalable())
                        return {};
                    R.V += (int64_t)Off.getFixedValue();
                    continue;
                }
                TypeSize Stride = GTI.getSequentialElementStride(C.DL);
                if (Stride.isScalable())
                    return {};
                LV I = eval(Idx);
                if (!I.Ok)
                    return {};
                R.Uni |= I.Uni;
                R.V += I.V * (int64_t)Stride.getFixedValue();
            }
            return R;
        }
        if (const auto *Op = dyn_cast<Operator>(P))
            if (Op->getOpcode() == Instruction::BitCast || Op->getOpcode() == Instruction::AddrSpaceCast)
                return evalPtr(Op->getOperand(0));
        return {}; // a pointer chosen per lane (phi, select, load)
    }

  private:
    struct Entry {
        unsigned Gen;
        LaneKind Kind;
        LV R;
    };

    LV known(int64_t V, unsigned W) { return {true, false, norm(V, W)}; }

    static unsigned widthOf(const Value *V) {
        return cast<IntegerType>(V->getType())->getBitWidth();
    }

    LV compute(const Value *V, LaneKind K) {
        if (Budget-- == 0)
            return {};
        switch (K) {
        case KFail:
            return {};
        case KConst:
            return {true, false, cast<ConstantInt>(V)->getSExtValue()};
        case KTid:
            return known((int64_t)(WaveIdx * C.Wave + Lane), widthOf(V));
        case KLane:
            return known(Lane, widthOf(V));
        case KUniform:
            return {true, true, 0};
        case KMbcntLo:
        case KMbcntHi: {
            const auto *I = cast<Instruction>(V);
            LV Acc = eval(I->getOperand(1));
            if (!Acc.Ok || Acc.Uni)
                return {};
            unsigned Below = K == KMbcntLo ? std::min(Lane, 32u) : (Lane >= 32 ? Lane - 32 : 0);
            return known(Acc.V + Below, widthOf(V));
        }
        case KBinary:
            return binary(cast<BinaryOperator>(V), widthOf(V));
        case KCompare: {
            const auto *Cmp = cast<ICmpInst>(V);
            LV A = eval(Cmp->getOperand(0)), B = eval(Cmp->getOperand(1));
            if (!A.Ok || !B.Ok || A.Uni || B.Uni)
                return {};
            auto *OTy = dyn_cast<IntegerType>(Cmp->getOperand(0)->getType());
            if (!OTy)
                return {};
            unsigned OW = OTy->getBitWidth();
            APInt AA(OW, uns(A.V, OW)), BB(OW, uns(B.V, OW));
            return {true, false, ICmpInst::compare(AA, BB, Cmp->getPredicate()) ? 1 : 0};
        }
        case KSelect: {
            const auto *Sel = cast<SelectInst>(V);
            LV Cond = eval(Sel->getCondition());
            if (!Cond.Ok || Cond.Uni)
                return {};
            return eval(Cond.V ? Sel->getTrueValue() : Sel->getFalseValue());
        }
        case KCast: {
            const auto *Cast = cast<CastInst>(V);
            LV A = eval(Cast->getOperand(0));
            if (!A.Ok)
                return {};
            auto *STy = dyn_cast<IntegerType>(Cast->getSrcTy());
            if (!STy)
                return {};
            if (A.Uni) // no wrap assumed, as in address arithmetic
                return A;
            unsigned W = widthOf(V);
            switch (Cast->getOpcode()) {
            case Instruction::ZExt: return known((int64_t)uns(A.V, STy->getBitWidth()), W);
            case Instruction::SExt:
            case Instruction::Trunc: return known(A.V, W);
            default: return {};
            }
        }
        case KFreeze:
            return eval(cast<FreezeInst>(V)->getOperand(0));
        }
        return {};
    }

    LV binary(const BinaryOperator *BO, unsigned W) {
        LV A = eval(BO->getOperand(0)), B = eval(BO->getOperand(1));
        if (!A.Ok || !B.Ok)
            return {};
        bool AnyUni = A.Uni || B.Uni;
        switch (BO->getOpcode()) {
        case Instruction::Add:
            return AnyUni ? LV{true, true, A.V + B.V} : known(A.V + B.V, W);
        case Instruction::Sub:
            return AnyUni ? LV{true, true, A.V - B.V} : known(A.V - B.V, W);
        case Instruction::Mul:
            if (!AnyUni)
                return known((int64_t)((uint64_t)A.V * (uint64_t)B.V), W);
            if (A.Uni && B.Uni)
                return {};
            // (U + a) * b is U*b + a*b only when b is the same in every lane
            if (dependsOn(C, A.Uni ? BO->getOperand(1) : BO->getOperand(0), TidX))
                return {};
            return {true, true, A.V * B.V};
        case Instruction::Shl:
            if (B.Uni || B.V < 0 || B.V >= (int64_t)W)
                return {};
            if (A.Uni) {
                if (dependsOn(C, BO->getOperand(1), TidX))
                    return {};
                return {true, true, (int64_t)((uint64_t)A.V << B.V)};
            }
            return known((int64_t)((uint64_t)A.V << B.V), W);
        case Instruction::Or:
            if (AnyUni) {
                if (const auto *PD = dyn_cast<PossiblyDisjointInst>(BO); PD && PD->isDisjoint())
                    return {true, true, A.V + B.V};
                return {};
            }
            return known(A.V | B.V, W);
        default:
            break;
        }
        if (AnyUni)
            return {};
        uint64_t UA = uns(A.V, W), UB = uns(B.V, W);
        switch (BO->getOpcode()) {
        case Instruction::And:
            return known(A.V & B.V, W);
        case Instruction::Xor:
            return known(A.V ^ B.V, W);
        case Instruction::LShr:
            return UB >= W ? LV{} : known((int64_t)(UA >> UB), W);
        case Instruction::AShr:
            return UB >= W ? LV{} : known(A.V >> UB, W);
        case Instruction::UDiv:
            return UB == 0 ? LV{} : known((int64_t)(UA / UB), W);
        case Instruction::URem:
            return UB == 0 ? LV{} : known((int64_t)(UA % UB), W);
        case Instruction::SDiv: // INT64_MIN / -1 overflows (and traps, as its remainder does)
            return B.V == 0 || (B.V == -1 && A.V == INT64_MIN) ? LV{} : known(A.V / B.V, W);
        case Instruction::SRem:
            return B.V == 0 || (B.V == -1 && A.V == INT64_MIN) ? LV{} : known(A.V % B.V, W);
        default:
            return {};
        }
    }

    Ctx &C;
    unsigned WaveIdx, Lane;
    unsigned Budget = 4000;
    unsigned Depth = 0;
    unsigned Gen = 0;
    DenseMap<const Value *, Entry> Memo;
};

unsigned wavesToTry(const Ctx &C) {
    unsigned N = (C.MaxTidX + C.Wave - 1) / C.Wave;
    return std::max(1u, std::min(N, 16u));
}

} // namespace

bool evalLane(Ctx &C, const Value *V, unsigned WaveIdx, unsigned Lane, int64_t &Out) {
    LaneEval E(C, WaveIdx, Lane);
    LV R = E.eval(V);
    if (!R.Ok || R.Uni)
        return false;
    Out = R.V;
    return true;
}

void activeLanes(Ctx &C, const Instruction *I, uint64_t &Mask, unsigned &WaveIdx) {
    uint64_t All = C.Wave >= 64 ? ~0ull : ((1ull << C.Wave) - 1);
    Mask = All;
    WaveIdx = 0;
    const BasicBlock *BB = I->getParent();
    auto Cached = C.ActiveLanes.find(BB);
    if (Cached != C.ActiveLanes.end()) {
        Mask = Cached->second.first;
        WaveIdx = Cached->second.second;
        return;
    }
    struct Store {
        Ctx &C;
        const BasicBlock *BB;
        uint64_t &Mask;
        unsigned &WaveIdx;
        ~Store() { C.ActiveLanes[BB] = {Mask, WaveIdx}; }
    } Save{C, BB, Mask, WaveIdx};
    SmallVector<std::pair<const Value *, bool>, 4> Conds;
    DomTreeNode *Node = C.DT.getNode(BB);
    for (DomTreeNode *D = Node ? Node->getIDom() : nullptr; D; D = D->getIDom()) {
        const auto *Br = dyn_cast<BranchInst>(D->getBlock()->getTerminator());
        if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
            continue;
        int64_t Probe;
        if (!dependsOn(C, Br->getCondition(), TidX) || !evalLane(C, Br->getCondition(), 0, 0, Probe))
            continue; // says nothing about lanes, or not a function of the lane alone
        if (C.DT.dominates(BasicBlockEdge(D->getBlock(), Br->getSuccessor(0)), BB))
            Conds.push_back({Br->getCondition(), true});
        else if (C.DT.dominates(BasicBlockEdge(D->getBlock(), Br->getSuccessor(1)), BB))
            Conds.push_back({Br->getCondition(), false});
        if (Conds.size() >= 8)
            break;
    }
    if (Conds.empty())
        return;
    int Best = -1;
    LaneEval E(C, 0, 0);
    for (unsigned W = 0; W < wavesToTry(C); W++) {
        uint64_t M = All;
        for (auto &Cd : Conds) {
            uint64_t CM = 0;
            bool Known = true;
            for (unsigned L = 0; L < C.Wave && Known; L++) {
                E.reset(W, L);
                LV V = E.eval(Cd.first);
                if (!V.Ok || V.Uni)
                    Known = false;
                else if ((V.V != 0) == Cd.second)
                    CM |= 1ull << L;
            }
            if (Known) // a condition that is not a function of the lane says nothing
                M &= CM;
        }
        int Pop = __builtin_popcountll(M);
        if (Pop > Best) {
            Best = Pop;
            Mask = M;
            WaveIdx = W;
        }
        if (M == All)
            break;
    }
}

static LaneOffsets laneOffsets(Ctx &C, const Value *V, bool IsPtr, const Instruction *At) {
    LaneOffsets R;
    unsigned W;
    activeLanes(C, At, R.Active, W);
    if (!dependsOn(C, V, TidX)) {
        R.Ok = true; // the same address in every lane
        return R;
    }
    LaneEval E(C, W, 0);
    for (unsigned L = 0; L < C.Wave; L++) {
        if (!(R.Active >> L & 1))
            continue;
        E.reset(W, L);
        LV X = IsPtr ? E.evalPtr(V) : E.eval(V);
        if (!X.Ok) {
            R.Why = "the per-lane address is not computable lane by lane";
            return R;
        }
        R.Off[L] = X.V;
    }
    R.Ok = true;
    return R;
}

LaneOffsets laneOffsetsPtr(Ctx &C, const Value *P, const Instruction *At) {
    return laneOffsets(C, P, true, At);
}

LaneOffsets laneOffsetsInt(Ctx &C, const Value *V, const Instruction *At) {
    return laneOffsets(C, V, false, At);
}

void footprint(const LaneOffsets &L, int64_t Bytes, unsigned Wave, int64_t &WaveBytes,
               int64_t &Seg64, int64_t &Seg128) {
    std::vector<std::pair<int64_t, int64_t>> Iv;
    for (unsigned I = 0; I < Wave; I++)
        if (L.Active >> I & 1)
            Iv.push_back({L.Off[I], L.Off[I] + Bytes});
    WaveBytes = Seg64 = Seg128 = 0;
    if (Iv.empty() || Bytes <= 0)
        return;
    std::sort(Iv.begin(), Iv.end());
    int64_t Base = Iv[0].first; // the wave's lowest address starts a segment
    std::vector<std::pair<int64_t, int64_t>> Merged;
    for (auto &P : Iv) {
        if (!Merged.empty() && P.first <= Merged.back().second)
            Merged.back().second = std::max(Merged.back().second, P.second);
        else
            Merged.push_back(P);
    }
    for (int Size : {64, 128}) {
        int64_t Count = 0, Last = INT64_MIN;
        for (auto &M : Merged) {
            int64_t A = (M.first - Base) / Size, B = (M.second - 1 - Base) / Size;
            if (A <= Last)
                A = Last + 1;
            if (B >= A)
                Count += B - A + 1;
            Last = std::max(Last, B);
        }
        (Size == 64 ? Seg64 : Seg128) = Count;
    }
    for (auto &M : Merged)
        WaveBytes += M.second - M.first;
}

int ldsConflictDegree(const LaneOffsets &L, int64_t Bytes, unsigned Wave) {
    int64_t Dwords = std::max<int64_t>(1, (Bytes + 3) / 4);
    unsigned PerPass = (unsigned)std::max<int64_t>(1, 32 / Dwords);
    int Degree = 0;
    for (unsigned First = 0; First < Wave; First += PerPass) {
        std::vector<int64_t> ByBank[32];
        for (unsigned I = First; I < First + PerPass && I < Wave; I++) {
            if (!(L.Active >> I & 1))
                continue;
            int64_t Lo = L.Off[I] >> 2, Hi = (L.Off[I] + Bytes - 1) >> 2;
            for (int64_t D = Lo; D <= Hi; D++) {
                std::vector<int64_t> &B = ByBank[((D % 32) + 32) % 32];
                if (std::find(B.begin(), B.end(), D) == B.end())
                    B.push_back(D);
            }
        }
        for (auto &B : ByBank)
            Degree = std::max(Degree, (int)B.size());
    }
    return Degree;
}

} // namespace kwir
