// kw_ir_deriv.cpp: how an address moves with the work-item and work-group
// ids. dependsOn() follows data flow forward from workitem.id / workgroup.id
// (the lane id from mbcnt counts as workitem.id.x; readlane, readfirstlane and
// ballot results are wave-uniform and stop it). derive() differentiates a SCEV
// with respect to one id: sums term by term, products with one dependent
// factor, zext/sext/trunc as identities (no wrap, as inbounds addressing
// implies), add-recurrences by their start (the lane's offset within an
// iteration), a division by a constant only when exact or when whole waves
// share the quotient. scevToExpr() prints a lane-independent SCEV in the
// facts grammar.
#include "kw_ir_internal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace kwir {

namespace {

bool cutsLaneDependence(const Value *V) {
    StringRef N = amdgcnName(V);
    return N == "readfirstlane" || N == "readlane" || N == "ballot" || N == "icmp" || N == "fcmp" ||
           N.starts_with("wave.reduce.");
}

void computeDeps(Ctx &C, Var X) {
    DenseSet<const Value *> &D = C.Dep[X];
    SmallVector<const Value *, 64> Work;
    for (const BasicBlock &BB : C.F)
        for (const Instruction &I : BB) {
            bool Seed = varOf(&I) == X;
            if (X == TidX) {
                StringRef N = amdgcnName(&I);
                Seed |= N == "mbcnt.lo" || N == "mbcnt.hi";
            }
            if (Seed && D.insert(&I).second)
                Work.push_back(&I);
        }
    bool IsTid = X == TidX || X == TidY || X == TidZ;
    while (!Work.empty()) {
        const Value *V = Work.pop_back_val();
        for (const User *U : V->users()) {
            if (!isa<Instruction>(U))
                continue;
            if (IsTid && cutsLaneDependence(U))
                continue;
            if (D.insert(U).second)
                Work.push_back(U);
        }
    }
    C.DepDone[X] = true;
}

bool isVarValue(Ctx &C, const Value *V, Var X) {
    return varOf(V) == X || (X == TidX && isLaneId(C, V));
}

const char *varName(Var X) {
    static const char *const N[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                    "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};
    return N[X];
}

std::string describe(const Value *V) {
    if (const auto *I = dyn_cast<Instruction>(V)) {
        if (isa<PHINode>(I))
            return "a phi (a value carried around a loop or merged from branches)";
        if (isa<LoadInst>(I))
            return "a value loaded from memory";
        if (isa<ExtractElementInst>(I))
            return "an element of a vector the analysis cannot follow (vectorized code)";
        if (isa<SelectInst>(I))
            return "a select";
        if (const auto *CB = dyn_cast<CallBase>(I)) {
            if (const Function *Fn = CB->getCalledFunction())
                return "a call of " + Fn->getName().str();
            return "an indirect call";
        }
        return std::string("'") + I->getOpcodeName() + "'";
    }
    return "a value";
}

// Element K of an integer vector value as a scalar SCEV: constants, splats
// (insertelement + shufflevector), element-wise add/sub/mul/shl/or disjoint,
// casts, and the vector induction variables the loop vectorizer creates
// (a header phi stepping by a loop-invariant vector) as add-recurrences. This
// is how a vectorized loop's `extractelement` addresses become affine again.
const SCEV *vecElem(Ctx &C, const Value *V, unsigned K, unsigned Depth = 0) {
    ScalarEvolution &SE = C.SE;
    if (Depth > 16)
        return nullptr;
    auto *VT = dyn_cast<FixedVectorType>(V->getType());
    if (!VT || K >= VT->getNumElements() || !VT->getElementType()->isIntegerTy())
        return nullptr;
    if (const auto *CV = dyn_cast<Constant>(V)) {
        Constant *E = CV->getAggregateElement(K);
        if (auto *CI = dyn_cast_or_null<ConstantInt>(E))
            return SE.getConstant(CI);
        return nullptr;
    }
    if (const auto *IE = dyn_cast<InsertElementInst>(V)) {
        const auto *Idx = dyn_cast<ConstantInt>(IE->getOperand(2));
        if (!Idx)
            return nullptr;
        if (Idx->getZExtValue() == K)
            return SE.getSCEV(const_cast<Value *>(IE->getOperand(1)));
        return vecElem(C, IE->getOperand(0), K, Depth + 1);
    }
    if (const auto *SV = dyn_cast<ShuffleVectorInst>(V)) {
        int M = SV->getMaskValue(K);
        if (M < 0)
            return nullptr;
        unsigned N0 = cast<FixedVectorType>(SV->getOperand(0)->getType())->getNumElements();
        return (unsigned)M < N0 ? vecElem(C, SV->getOperand(0), (unsigned)M, Depth + 1)
                                : vecElem(C, SV->getOperand(1), (unsigned)M - N0, Depth + 1);
    }
    if (const auto *CI = dyn_cast<CastInst>(V)) {
        const SCEV *E = vecElem(C, CI->getOperand(0), K, Depth + 1);
        if (!E)
            return nullptr;
        Type *Ty = VT->getElementType();
        switch (CI->getOpcode()) {
        case Instruction::ZExt: return SE.getZeroExtendExpr(E, Ty);
        case Instruction::SExt: return SE.getSignExtendExpr(E, Ty);
        case Instruction::Trunc: return SE.getTruncateExpr(E, Ty);
        default: return nullptr;
        }
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(V)) {
        const SCEV *A = vecElem(C, BO->getOperand(0), K, Depth + 1);
        const SCEV *B = A ? vecElem(C, BO->getOperand(1), K, Depth + 1) : nullptr;
        if (!B)
            return nullptr;
        switch (BO->getOpcode()) {
        case Instruction::Add: return SE.getAddExpr(A, B);
        case Instruction::Sub: return SE.getMinusSCEV(A, B);
        case Instruction::Mul: return SE.getMulExpr(A, B);
        case Instruction::Shl:
            if (const auto *Sh = dyn_cast<SCEVConstant>(B))
                if (Sh->getAPInt().ult(SE.getTypeSizeInBits(A->getType())) &&
                    Sh->getAPInt().ult(64))
                    return SE.getMulExpr(A, SE.getConstant(A->getType(), 1ull << Sh->getAPInt().getZExtValue()));
            return nullptr;
        case Instruction::Or:
            if (cast<PossiblyDisjointInst>(BO)->isDisjoint())
                return SE.getAddExpr(A, B);
            return nullptr;
        default: return nullptr;
        }
    }
    if (const auto *P = dyn_cast<PHINode>(V)) {
        Loop *L = C.LI.getLoopFor(P->getParent());
        if (!L || L->getHeader() != P->getParent() || P->getNumIncomingValues() != 2)
            return nullptr;
        const Value *Start = nullptr, *Next = nullptr;
        for (unsigned I = 0; I < 2; I++)
            (L->contains(P->getIncomingBlock(I)) ? Next : Start) = P->getIncomingValue(I);
        const auto *Add = Next ? dyn_cast<BinaryOperator>(Next) : nullptr;
        if (!Start || !Add || Add->getOpcode() != Instruction::Add)
            return nullptr;
        const Value *StepV = Add->getOperand(0) == P ? Add->getOperand(1)
                             : Add->getOperand(1) == P ? Add->getOperand(0) : nullptr;
        if (!StepV)
            return nullptr;
        const SCEV *S0 = vecElem(C, Start, K, Depth + 1);
        const SCEV *St = S0 ? vecElem(C, StepV, K, Depth + 1) : nullptr;
        if (!St || !SE.isLoopInvariant(S0, L) || !SE.isLoopInvariant(St, L) ||
            S0->getType() != St->getType())
            return nullptr;
        return SE.getAddRecExpr(S0, St, L, SCEV::FlagAnyWrap);
    }
    return nullptr;
}

// What a SCEVUnknown stands for, when it is something we can see through: an
// element of a vectorized value, or a freeze.
const SCEV *lookThrough(Ctx &C, const Value *V) {
    if (const auto *EE = dyn_cast<ExtractElementInst>(V)) {
        const auto *Idx = dyn_cast<ConstantInt>(EE->getIndexOperand());
        return Idx ? vecElem(C, EE->getVectorOperand(), (unsigned)Idx->getZExtValue()) : nullptr;
    }
    if (const auto *Fr = dyn_cast<FreezeInst>(V))
        if (C.SE.isSCEVable(Fr->getType()))
            return C.SE.getSCEV(const_cast<Value *>(Fr->getOperand(0)));
    return nullptr;
}

const Expr *scevOf(Ctx &C, const Value *V, std::string &Why) {
    if (!C.SE.isSCEVable(V->getType()))
        return nullptr;
    return scevToExpr(C, C.SE.getSCEV(const_cast<Value *>(V)), Why);
}

// Integer operations by a constant that ScalarEvolution leaves opaque
// (`sdiv i32 %hidden, 8`, `lshr i32 %n, 1`, `ashr`, `srem`): floor(a/c),
// a - c*floor(a/c). The signed forms equal these for a >= 0 (sizes, counts),
// which is assumed and noted.
const Expr *binaryByConstant(Ctx &C, const Value *V, std::string &Why) {
    const auto *BO = dyn_cast<BinaryOperator>(V);
    if (!BO || !BO->getType()->isIntegerTy() || BO->getType()->getIntegerBitWidth() > 64)
        return nullptr;
    const auto *K = dyn_cast<ConstantInt>(BO->getOperand(1));
    if (!K || K->getValue().getActiveBits() > 62 || K->isNegative() || K->isZero())
        return nullptr;
    int64_t N = (int64_t)K->getZExtValue();
    bool Signed = false;
    int64_t Den = 0;
    bool Rem = false;
    switch (BO->getOpcode()) {
    case Instruction::SDiv:
        Signed = true;
        Den = N;
        break;
    case Instruction::SRem:
        Signed = true;
        Den = N;
        Rem = true;
        break;
    case Instruction::AShr:
        Signed = true;
        [[fallthrough]];
    case Instruction::LShr:
        if (N >= 62)
            return nullptr;
        Den = (int64_t)1 << N;
        break;
    default:
        return nullptr; // udiv, urem, shl, and: SCEV models them itself
    }
    std::string W;
    const Expr *A = scevOf(C, BO->getOperand(0), W);
    if (!A)
        return nullptr;
    if (Signed && !C.SE.isKnownNonNegative(C.SE.getSCEV(BO->getOperand(0))))
        C.note(
            "a signed division or shift of a kernel value by a constant is printed as floor(a/c), "
            "which assumes the value is not negative");
    ExprPool &P = C.Pool;
    const Expr *Q = P.floor(P.div(A, P.num(Den)));
    const Expr *E = Rem ? P.sub(A, P.mul(P.num(Den), Q)) : Q;
    if (!E && Why.empty())
        Why = P.why();
    return E;
}

class Deriver {
  public:
    Deriver(Ctx &C, Var X, std::string &Why) : C(C), SE(C.SE), X(X), Why(Why) {}

    bool dep(const SCEV *S) { return scevDependsOn(C, S, X); }

    const SCEV *conv(const SCEV *S, Type *Ty) {
        Type *STy = SE.getEffectiveSCEVType(S->getType());
        if (STy == Ty)
            return S;
        return SE.getTruncateOrSignExtend(S, Ty);
    }

    const SCEV *fail(const std::string &W) {
        if (Why.empty())
            Why = W;
        return nullptr;
    }

    const SCEV *d(const SCEV *S) {
        Type *Ty = SE.getEffectiveSCEVType(S->getType());
        if (!dep(S))
            return SE.getZero(Ty);
        switch (S->getSCEVType()) {
        case scConstant:
        case scVScale: return SE.getZero(Ty);
        case scUnknown: {
            const Value *V = cast<SCEVUnknown>(S)->getValue();
            if (isVarValue(C, V, X))
                return SE.getOne(Ty);
            if (const SCEV *Inner = lookThrough(C, V)) {
                if (++Looks > 32)
                    return fail("too deep");
                const SCEV *D = d(Inner);
                return D ? conv(D, Ty) : nullptr;
            }
            return fail(std::string("depends on ") + varName(X) + " through " + describe(V));
        }
        case scPtrToInt:
        case scZeroExtend:
        case scSignExtend:
        case scTruncate: {
            const auto *Cast = cast<SCEVCastExpr>(S);
            const SCEV *Op = Cast->getOperand(0);
            if (S->getSCEVType() == scTruncate && X == TidX) {
                unsigned Bits = SE.getTypeSizeInBits(Ty);
                if (Bits < 64 && (1ull << Bits) < C.Wave)
                    return fail("truncated to fewer bits than a wave's lane ids");
            }
            const SCEV *D = d(Op);
            return D ? conv(D, Ty) : nullptr;
        }
        case scAddExpr: {
            const SCEV *Sum = SE.getZero(Ty);
            for (const SCEV *Op : cast<SCEVAddExpr>(S)->operands()) {
                const SCEV *D = d(Op);
                if (!D)
                    return nullptr;
                Sum = SE.getAddExpr(Sum, conv(D, Ty));
            }
            return Sum;
        }
        case scMulExpr: {
            const auto *M = cast<SCEVMulExpr>(S);
            int DepIdx = -1;
            for (unsigned I = 0; I < M->getNumOperands(); I++)
                if (dep(M->getOperand(I))) {
                    if (DepIdx >= 0)
                        return fail(std::string("not linear in ") + varName(X) +
                                    " (a product of two dependent terms)");
                    DepIdx = (int)I;
                }
            const SCEV *P = d(M->getOperand(DepIdx));
            if (!P)
                return nullptr;
            P = conv(P, Ty);
            for (unsigned I = 0; I < M->getNumOperands(); I++)
                if ((int)I != DepIdx)
                    P = SE.getMulExpr(P, conv(M->getOperand(I), Ty));
            return P;
        }
        case scUDivExpr: {
            const auto *U = cast<SCEVUDivExpr>(S);
            if (dep(U->getRHS()))
                return fail(std::string("divides by a value depending on ") + varName(X));
            const auto *CD = dyn_cast<SCEVConstant>(U->getRHS());
            if (!CD || CD->getAPInt().getActiveBits() > 62)
                return fail(std::string("divides a ") + varName(X) + "-dependent value by a non-constant");
            int64_t Den = (int64_t)CD->getAPInt().getZExtValue();
            const SCEV *DL = d(U->getLHS());
            if (!DL)
                return nullptr;
            const auto *DC = dyn_cast<SCEVConstant>(DL);
            if (!DC)
                return fail(std::string("divides a non-affine function of ") + varName(X));
            int64_t Num = DC->getAPInt().getSExtValue();
            if (Den > 0 && Num % Den == 0)
                return SE.getConstant(Ty, (uint64_t)(Num / Den), true);
            // whole waves share the quotient: (Num*tid + rest) / Den with Den a
            // multiple of Wave*Num and rest a multiple of Den
            if (X == TidX && Num > 0 && Den % ((int64_t)C.Wave * Num) == 0 &&
                (Den & (Den - 1)) == 0) {
                const SCEV *Tid = nullptr;
                SCEVExprContains(U->getLHS(), [&](const SCEV *E) {
                    const auto *UU = dyn_cast<SCEVUnknown>(E);
                    if (UU && varOf(UU->getValue()) == TidX)
                        Tid = UU;
                    return false;
                });
                if (Tid) {
                    Type *LTy = SE.getEffectiveSCEVType(U->getLHS()->getType());
                    const SCEV *Rest = SE.getMinusSCEV(
                        U->getLHS(), SE.getMulExpr(SE.getConstant(LTy, (uint64_t)Num),
                                                   SE.getNoopOrZeroExtend(Tid, LTy)));
                    unsigned Log2 = 63 - __builtin_clzll((unsigned long long)Den);
                    if (!dep(Rest) && SE.getMinTrailingZeros(Rest) >= Log2)
                        return SE.getZero(Ty);
                }
            }
            return fail(std::string("divides ") + varName(X) + " by " + std::to_string(Den) +
                        " (lanes do not move by a constant stride)");
        }
        case scAddRecExpr: {
            const auto *AR = cast<SCEVAddRecExpr>(S);
            for (unsigned I = 1; I < AR->getNumOperands(); I++)
                if (dep(AR->getOperand(I)))
                    return fail(std::string("a loop step depends on ") + varName(X));
            const SCEV *D = d(AR->getStart());
            return D ? conv(D, Ty) : nullptr;
        }
        default:
            return fail(std::string("a min/max or other non-affine function of ") + varName(X));
        }
    }

  private:
    Ctx &C;
    ScalarEvolution &SE;
    Var X;
    std::string &Why;
    unsigned Looks = 0;
};

} // namespace

bool dependsOn(Ctx &C, const Value *V, Var X) {
    if (!C.DepDone[X])
        computeDeps(C, X);
    return C.Dep[X].count(V) != 0;
}

bool scevDependsOn(Ctx &C, const SCEV *S, Var X) {
    return SCEVExprContains(S, [&](const SCEV *E) {
        const auto *U = dyn_cast<SCEVUnknown>(E);
        return U && dependsOn(C, U->getValue(), X);
    });
}

const SCEV *derive(Ctx &C, const SCEV *S, Var X, std::string &Why) {
    if (isa<SCEVCouldNotCompute>(S)) {
        Why = "scalar evolution could not analyze the address";
        return nullptr;
    }
    Deriver D(C, X, Why);
    return D.d(S);
}

std::string launchSymbol(Ctx &C, const Value *V) {
    const auto *LI = dyn_cast<LoadInst>(V);
    if (!LI)
        return "";
    int64_t Off = 0;
    const Value *Base = GetPointerBaseWithConstantOffset(LI->getPointerOperand(), Off, C.DL);
    StringRef N = amdgcnName(Base);
    // a phi of the same intrinsic's results (the optimizer merges the calls
    // of two paths: `phi [implicitarg.ptr(), implicitarg.ptr()]`)
    if (N.empty())
        if (const auto *P = dyn_cast<PHINode>(Base)) {
            for (const Value *In : P->incoming_values()) {
                StringRef M = amdgcnName(In->stripPointerCasts());
                if (M.empty() || (!N.empty() && M != N))
                    return "";
                N = M;
            }
        }
    unsigned Bytes = (unsigned)C.DL.getTypeStoreSize(LI->getType());
    if (N == "implicitarg.ptr") { // code object v5 hidden arguments
        if (Bytes == 4 && Off >= 0 && Off <= 8 && Off % 4 == 0)
            return std::string("gridDim.") + "xyz"[Off / 4];
        if (Bytes == 2 && Off >= 12 && Off <= 16 && Off % 2 == 0)
            return std::string("blockDim.") + "xyz"[(Off - 12) / 2];
    }
    if (N == "dispatch.ptr") { // hsa_kernel_dispatch_packet_t
        if (Bytes == 2 && Off >= 4 && Off <= 8 && Off % 2 == 0)
            return std::string("blockDim.") + "xyz"[(Off - 4) / 2];
        if (Bytes == 4 && Off >= 12 && Off <= 20 && Off % 4 == 0)
            return std::string("globalSize.") + "xyz"[(Off - 12) / 4];
    }
    return "";
}

int64_t constBlockDim(Ctx &C, unsigned D) {
    if (D > 2)
        return 0;
    if (!C.BlockDimDone) {
        C.BlockDimDone = true;
        if (const MDNode *MD = C.F.getMetadata("reqd_work_group_size")) {
            if (MD->getNumOperands() == 3)
                for (unsigned I = 0; I < 3; I++)
                    if (auto *CI = mdconst::dyn_extract<ConstantInt>(MD->getOperand(I)))
                        C.BlockDim[I] = CI->getSExtValue() > 0 ? CI->getSExtValue() : 0;
        } else {
            // a flat work-group size with min == max fixes blockDim.x when the
            // kernel uses no y/z ids (then blockDim.y/z > 1 could only repeat
            // the same work, which is taken not to happen)
            StringRef FW = C.F.getFnAttribute("amdgpu-flat-work-group-size").getValueAsString();
            unsigned Lo = 0, Hi = 0;
            if (!FW.empty() && !FW.split(',').first.getAsInteger(10, Lo) &&
                !FW.split(',').second.getAsInteger(10, Hi) && Lo == Hi && Hi &&
                C.F.hasFnAttribute("amdgpu-no-workitem-id-y") &&
                C.F.hasFnAttribute("amdgpu-no-workitem-id-z")) {
                C.BlockDim[0] = Hi;
                C.BlockDim[1] = C.BlockDim[2] = 1;
            }
        }
    }
    return C.BlockDim[D];
}

const Expr *scevToExpr(Ctx &C, const SCEV *S, std::string &Why) {
    ExprPool &P = C.Pool;
    auto Fail = [&](const std::string &W) -> const Expr * {
        if (Why.empty())
            Why = W;
        return nullptr;
    };
    auto All = [&](ArrayRef<const SCEV *> Ops, std::vector<const Expr *> &Out) {
        for (const SCEV *Op : Ops) {
            const Expr *E = scevToExpr(C, Op, Why);
            if (!E)
                return false;
            Out.push_back(E);
        }
        return true;
    };
    switch (S->getSCEVType()) {
    case scConstant: {
        const APInt &V = cast<SCEVConstant>(S)->getAPInt();
        if (V.getSignificantBits() > 63)
            return Fail("a constant too large");
        return P.num(V.getBitWidth() == 1 ? (int64_t)V.getZExtValue() : V.getSExtValue());
    }
    case scUnknown: {
        const Value *V = cast<SCEVUnknown>(S)->getValue();
        if (const auto *A = dyn_cast<Argument>(V))
            return P.sym("$" + std::to_string(A->getArgNo()));
        int X = varOf(V);
        if (X >= 0) {
            static const char *const N[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                            "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};
            return P.sym(N[X]);
        }
        if (const SCEV *Inner = lookThrough(C, V))
            return scevToExpr(C, Inner, Why);
        if (const Expr *E = binaryByConstant(C, V, Why))
            return E;
        std::string L = launchSymbol(C, V);
        if (L.rfind("globalSize.", 0) == 0) {
            char D = L.back();
            return P.mul(P.sym(std::string("gridDim.") + D), P.sym(std::string("blockDim.") + D));
        }
        if (L.rfind("blockDim.", 0) == 0)
            if (int64_t N = constBlockDim(C, (unsigned)(L.back() - 'x')))
                return P.num(N);
        if (!L.empty())
            return P.sym(L);
        return Fail("depends on " + describe(V));
    }
    case scPtrToInt:
    case scZeroExtend:
    case scSignExtend:
    case scTruncate: return scevToExpr(C, cast<SCEVCastExpr>(S)->getOperand(0), Why);
    case scAddExpr: {
        std::vector<const Expr *> Ops;
        if (!All(cast<SCEVNAryExpr>(S)->operands(), Ops))
            return nullptr;
        const Expr *E = P.add(std::move(Ops));
        return E ? E : Fail(P.why());
    }
    case scMulExpr: {
        std::vector<const Expr *> Ops;
        if (!All(cast<SCEVNAryExpr>(S)->operands(), Ops))
            return nullptr;
        const Expr *E = P.mul(std::move(Ops));
        return E ? E : Fail(P.why());
    }
    case scUDivExpr: {
        const auto *U = cast<SCEVUDivExpr>(S);
        const Expr *L = scevToExpr(C, U->getLHS(), Why);
        const Expr *R = L ? scevToExpr(C, U->getRHS(), Why) : nullptr;
        if (!R)
            return nullptr;
        const Expr *E = P.floor(P.div(L, R));
        return E ? E : Fail(P.why());
    }
    case scAddRecExpr: return Fail("changes with the iterations of a loop");
    case scSMaxExpr:
    case scUMaxExpr:
    case scSMinExpr:
    case scUMinExpr:
    case scSequentialUMinExpr: {
        std::vector<const Expr *> Ops;
        if (!All(cast<SCEVNAryExpr>(S)->operands(), Ops))
            return nullptr;
        bool IsMax = S->getSCEVType() == scSMaxExpr || S->getSCEVType() == scUMaxExpr;
        const Expr *E = IsMax ? P.max(std::move(Ops)) : P.min(std::move(Ops));
        return E ? E : Fail(P.why());
    }
    default: return Fail("scalar evolution could not compute it");
    }
}

} // namespace kwir
