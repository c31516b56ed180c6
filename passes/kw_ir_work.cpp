// kw_ir_work.cpp: work per thread as expressions. Each block's instructions
// are counted (flops, transcendental, integer ops, conversions, bytes of
// global and LDS traffic from the accesses); then, loop level by loop level,
// the most expensive path through the acyclic graph of blocks (a loop counts
// as one node weighing trip count x its own most expensive path) gives an
// upper bound for one thread that is exact for straight-line code. Per-metric
// maxima of symbolic weights that do not compare become max(a, b).
#include "kw_ir_internal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <optional>

using namespace llvm;

namespace kwir {

namespace {

enum Metric { Flops, Transc, IntOps, Conv, BytesR, BytesW, LdsR, LdsW, NumMetrics };
using Counts = std::array<int64_t, NumMetrics>;
using Weights = std::array<const Expr *, NumMetrics>;

int64_t elems(Type *T) {
    if (auto *VT = dyn_cast<FixedVectorType>(T))
        return VT->getNumElements();
    return 1;
}

// Elements an amdgcn conversion intrinsic converts: those of its floating-point
// result (cvt.pk.f32.fp8 -> <2 x float>: 2; cvt.scalef32.pk32.f32.fp6: 32), or
// of its floating-point sources when the result is packed into an integer
// (cvt.pk.fp8.f32(a, b, old, hi): 2), the scale of the scalef32 forms left
// out; 1 when neither says (cvt.pk.i16 and other integer packs count 1). A
// result merged into an `old` operand of its own type counts the elements
// written (1, or 2 for a .pk form).
int64_t cvtElements(const CallBase *CB, StringRef A) {
    Type *RT = CB->getType();
    if (auto *ST = dyn_cast<StructType>(RT)) // {result, ...} forms
        RT = ST->getNumElements() ? ST->getElementType(0) : RT;
    int64_t Res = RT->isFPOrFPVectorTy() ? elems(RT) : 0;
    int64_t Src = 0;
    for (const Value *Arg : CB->args()) {
        // an `old` operand the result is merged into: one element is written
        // (cvt.scalef32.f16.fp8(<2 x half> old, ...)), two for a .pk form
        if (Arg->getType() == RT && Res)
            return A.contains(".pk") ? 2 : 1;
        Src += Arg->getType()->isFPOrFPVectorTy() ? elems(Arg->getType()) : 0;
    }
    if (A.starts_with("cvt.scalef32.") && Src > 0)
        Src--; // the scale
    int64_t N = std::max(Res, Src);
    return N ? N : 1;
}

// The work of one lane of a matrix instruction (mfma, smfmac, wmma): a
// wave computes M x N x K (times the blocks) multiply-adds, 2 operations
// each, and each lane holds M x N x blocks / wave elements of the result, so
// one lane's share is 2 x K x its result elements. K is the third number of
// the name's MxNxK shape (mfma.f32.32x32x8f16: 8; mfma.scale.f32.16x16x128.f8f6f4:
// 128); 0 when the name has no shape. smfmac counts the dense equivalent.
int64_t matrixOps(const CallBase *CB, StringRef A) {
    for (size_t I = 0; I < A.size(); I++) {
        if (!std::isdigit((unsigned char)A[I]) || (I && std::isdigit((unsigned char)A[I - 1])))
            continue;
        unsigned Dims[3], D = 0;
        size_t J = I;
        while (D < 3) {
            size_t S = J;
            while (J < A.size() && std::isdigit((unsigned char)A[J]))
                J++;
            if (S == J || A.substr(S, J - S).getAsInteger(10, Dims[D]))
                break;
            D++;
            if (D < 3 && (J >= A.size() || A[J] != 'x'))
                break;
            J += D < 3;
        }
        if (D == 3 && Dims[2] > 0) {
            Type *RT = CB->getType();
            return 2 * (int64_t)Dims[2] * elems(RT);
        }
    }
    return 0;
}

void countCall(Ctx &C, const CallBase *CB, Counts &K) {
    if (CB->isInlineAsm()) {
        auto It = C.AsmWork.find(CB);
        if (It != C.AsmWork.end() && It->second.first >= 0) {
            K[Flops] += It->second.first;
            K[Transc] += It->second.second;
        }
        return;
    }
    const Function *Fn = CB->getCalledFunction();
    if (!Fn || !Fn->isIntrinsic())
        return;
    int64_t N = elems(CB->getType());
    switch (Fn->getIntrinsicID()) {
    case Intrinsic::fma:
    case Intrinsic::fmuladd: K[Flops] += 2 * N; return;
    case Intrinsic::maxnum:
    case Intrinsic::minnum:
    case Intrinsic::maximum:
    case Intrinsic::minimum: K[Flops] += N; return;
    case Intrinsic::smax:
    case Intrinsic::smin:
    case Intrinsic::umax:
    case Intrinsic::umin:
    case Intrinsic::abs: K[IntOps] += N; return;
    case Intrinsic::sqrt:
    case Intrinsic::exp:
    case Intrinsic::exp2:
    case Intrinsic::exp10:
    case Intrinsic::log:
    case Intrinsic::log2:
    case Intrinsic::log10:
    case Intrinsic::sin:
    case Intrinsic::cos:
    case Intrinsic::tan:
    case Intrinsic::pow:
    case Intrinsic::powi: K[Transc] += N; return;
    default: break;
    }
    StringRef Name = Fn->getName();
    if (Name.starts_with("llvm.maximumnum") || Name.starts_with("llvm.minimumnum")) {
        K[Flops] += N;
        return;
    }
    StringRef A = amdgcnName(CB);
    if (A == "rsq" || A == "rcp" || A == "sqrt" || A == "exp2" || A == "log" || A == "sin" ||
        A == "cos" || A == "rsq.clamp" || A == "rcp.legacy" || A == "log.clamp" || A == "exp" ||
        A == "rsq.legacy") {
        K[Transc] += N;
        return;
    }
    if (A.starts_with("cvt.")) {
        K[Conv] += cvtElements(CB, A);
        return;
    }
    if (A.starts_with("mfma") || A.starts_with("smfmac") || A.starts_with("wmma")) {
        // integer forms (mfma.i32.32x32x16.i8) are integer operations
        bool Int = CB->getType()->isIntOrIntVectorTy();
        K[Int ? IntOps : Flops] += matrixOps(CB, A);
        return;
    }
    if (A.starts_with("fdot2")) {
        K[Flops] += 4;
        return;
    }
}

// Is E >= 0 for every value of its symbols (each taken as >= 0)? Trip counts
// like ceil((n - threadIdx.x)/blockDim.x) are not: for a thread that does not
// enter the loop they are <= 0, so the work weighs max(trips, 0).
bool nonneg(const Expr *E) {
    switch (E->k) {
    case Expr::Num:
        return E->num >= 0;
    case Expr::Sym:
    case Expr::Log2:
        return true; // a halving loop runs only for arguments >= 1
    case Expr::Mul:
        if (E->ops[0]->k == Expr::Num && E->ops[0]->num < 0)
            return false;
        [[fallthrough]];
    case Expr::Add:
    case Expr::Div:
    case Expr::Floor:
    case Expr::Ceil:
    case Expr::Min:
        for (const Expr *O : E->ops)
            if (!nonneg(O))
                return false;
        return true;
    case Expr::Max:
        for (const Expr *O : E->ops)
            if (nonneg(O))
                return true;
        return false;
    }
    return false;
}

// Integer arithmetic that computes only an address (every user a GEP) is not counted.
bool addressOnly(const Instruction &I) {
    if (I.use_empty())
        return false;
    for (const User *U : I.users())
        if (!isa<GetElementPtrInst>(U))
            return false;
    return true;
}

class Work {
  public:
    explicit Work(Ctx &C) : C(C) {
        for (size_t I = 0; I < C.Out->accesses.n; I++) {
            const kw_ir_access &X = C.Out->accesses.v[I];
            Counts &K = Bytes[C.AccessInst[I]->getParent()];
            int64_t B = X.bytes_per_lane;
            bool Lds = X.space == KW_IR_LDS;
            if (X.space == KW_IR_SCRATCH)
                continue;
            if (X.op == KW_IR_LOAD || X.op == KW_IR_ATOMIC)
                K[Lds ? LdsR : BytesR] += B;
            if (X.op == KW_IR_STORE || X.op == KW_IR_ATOMIC)
                K[Lds ? LdsW : BytesW] += B;
        }
    }

    Weights zero() {
        Weights W;
        W.fill(C.Pool.num(0));
        return W;
    }

    Weights blockWeight(const BasicBlock *B) {
        Counts K{};
        auto It = Bytes.find(B);
        if (It != Bytes.end())
            K = It->second;
        for (const Instruction &I : *B) {
            if (const auto *CB = dyn_cast<CallBase>(&I)) {
                countCall(C, CB, K);
                continue;
            }
            int64_t N = elems(I.getType());
            switch (I.getOpcode()) {
            case Instruction::FAdd:
            case Instruction::FSub:
            case Instruction::FMul:
            case Instruction::FDiv:
            case Instruction::FRem: K[Flops] += N; break;
            case Instruction::Add:
            case Instruction::Sub:
            case Instruction::Mul:
            case Instruction::UDiv:
            case Instruction::SDiv:
            case Instruction::URem:
            case Instruction::SRem:
            case Instruction::Shl:
            case Instruction::LShr:
            case Instruction::AShr:
            case Instruction::And:
            case Instruction::Or:
            case Instruction::Xor:
                if (!I.getType()->isIntOrIntVectorTy(1) && !addressOnly(I))
                    K[IntOps] += N;
                break;
            case Instruction::SIToFP:
            case Instruction::UIToFP:
            case Instruction::FPToSI:
            case Instruction::FPToUI:
            case Instruction::FPTrunc:
            case Instruction::FPExt: K[Conv] += N; break;
            default: break;
            }
        }
        Weights W;
        for (int M = 0; M < NumMetrics; M++)
            W[M] = C.Pool.num(K[M]);
        return W;
    }

    Weights add(const Weights &A, const Weights &B) {
        Weights W;
        for (int M = 0; M < NumMetrics; M++)
            W[M] = C.Pool.add(A[M], B[M]);
        return W;
    }

    Weights max(const Weights &A, const Weights &B) {
        Weights W;
        for (int M = 0; M < NumMetrics; M++) {
            W[M] = C.Pool.maxOfNonneg(A[M], B[M]);
            if (!W[M] && A[M] && B[M]) // too large to keep apart: the sum still bounds it
                W[M] = C.Pool.add(A[M], B[M]);
        }
        return W;
    }

    // The node of region L that block S belongs to: S itself, or the header of
    // the child loop of L that contains it.
    const BasicBlock *repOf(const BasicBlock *S, const Loop *L) {
        const Loop *SL = C.LI.getLoopFor(S);
        if (SL == L)
            return S;
        while (SL && SL->getParentLoop() != L)
            SL = SL->getParentLoop();
        return SL ? SL->getHeader() : S;
    }

    Weights nodeWeight(const BasicBlock *B, const Loop *L) {
        const Loop *BL = C.LI.getLoopFor(B);
        if (BL == L)
            return blockWeight(B);
        // a child loop: trip count x its most expensive iteration
        Weights Body = region(BL);
        int Id = C.LoopId.lookup(BL);
        const Expr *Trip = Id < (int)C.LoopTrips.size() ? C.LoopTrips[Id] : nullptr;
        if (!Trip)
            Trip = C.Pool.sym("loop" + std::to_string(Id) + ".trips");
        else if (!nonneg(Trip))
            Trip = C.Pool.max({Trip, C.Pool.num(0)});
        Weights W;
        for (int M = 0; M < NumMetrics; M++)
            W[M] = C.Pool.mul(Trip, Body[M]);
        return W;
    }

    Weights region(const Loop *L) {
        const BasicBlock *Entry = L ? L->getHeader() : &C.F.getEntryBlock();
        DenseMap<const BasicBlock *, Weights> Dp, NodeW;
        bool HaveResult = false;
        Weights Result = zero();
        std::optional<Weights> AnyNode;
        auto W = [&](const BasicBlock *B) -> const Weights & {
            auto It = NodeW.find(B);
            if (It == NodeW.end())
                It = NodeW.insert({B, nodeWeight(B, L)}).first;
            return It->second;
        };
        Dp[Entry] = W(Entry);
        for (const BasicBlock *B : C.RPO) {
            if (L && !L->contains(B))
                continue;
            if (repOf(B, L) != B)
                continue; // inside a child loop: its header stands for it
            auto It = Dp.find(B);
            if (It == Dp.end())
                continue;
            Weights Here = It->second;
            SmallVector<const BasicBlock *, 4> Succs;
            const Loop *BL = C.LI.getLoopFor(B);
            if (BL != L) {
                SmallVector<BasicBlock *, 4> Exits;
                BL->getExitBlocks(Exits);
                Succs.append(Exits.begin(), Exits.end());
            } else {
                Succs.append(succ_begin(B), succ_end(B));
            }
            bool Exits = Succs.empty();
            for (const BasicBlock *S : Succs) {
                if (L && !L->contains(S)) {
                    Exits = true;
                    continue;
                }
                if (S == Entry)
                    continue; // the back edge
                const BasicBlock *R = repOf(S, L);
                if (C.BlockIndex.lookup(R) <= C.BlockIndex.lookup(B))
                    continue; // an irreducible edge: ignored
                Weights Cand = add(Here, W(R));
                auto D = Dp.find(R);
                if (D == Dp.end())
                    Dp[R] = Cand;
                else
                    D->second = max(D->second, Cand);
            }
            if (Exits) {
                Result = HaveResult ? max(Result, Here) : Here;
                HaveResult = true;
            }
            AnyNode = AnyNode ? max(*AnyNode, Here) : Here;
        }
        // no way out (a loop without exits): the most expensive path anywhere
        if (!HaveResult && AnyNode)
            return *AnyNode;
        return Result;
    }

  private:
    Ctx &C;
    DenseMap<const BasicBlock *, Counts> Bytes;
};

} // namespace

void collectWork(Ctx &C) {
    Work W(C);
    Weights T = W.region(nullptr);
    kw_ir_work &O = C.Out->work;
    kw_ir_val *Out[NumMetrics] = {&O.flops,      &O.transcendental, &O.int_ops,        &O.conversions,
                                  &O.bytes_read, &O.bytes_written,  &O.lds_bytes_read, &O.lds_bytes_written};
    for (int M = 0; M < NumMetrics; M++)
        *Out[M] = C.val(T[M], nullptr);
    unsigned Unsized = 0;
    for (size_t I = 0; I < C.Out->accesses.n; I++)
        Unsized += !C.Out->accesses.v[I].bytes_per_lane && C.Out->accesses.v[I].space != KW_IR_SCRATCH;
    if (Unsized)
        C.note("work_per_thread's bytes leave out " + std::to_string(Unsized) +
               " access(es) whose size is not a constant (memcpy/memset of a variable length)");
    for (const BasicBlock &BB : C.F)
        for (const Instruction &I : BB)
            if (const auto *CB = dyn_cast<CallBase>(&I)) {
                StringRef A = amdgcnName(CB);
                if (A.starts_with("mfma") || A.starts_with("smfmac") || A.starts_with("wmma"))
                    O.mfma++;
                if (CB->isInlineAsm()) {
                    auto It = C.AsmWork.find(CB);
                    if (It == C.AsmWork.end() || It->second.first < 0)
                        O.asm_uncounted++;
                }
            }
}

} // namespace kwir
