// kw_ir_ctx.cpp: the shared context of one function's analysis: arena
// strings, notes, loop membership, values, the AMDGPU intrinsic names, and
// source locations with their inlined-at chains from debug info.
#include "kw_ir_internal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"

#include <cstring>

using namespace llvm;

namespace kwir {

const char *Ctx::str(StringRef S) {
    char *P = kw_arena_strndup(A, S.data(), S.size());
    if (!P)
        OOM = true;
    return P;
}

void Ctx::note(const std::string &S) {
    if (!KW_STRSET_ADD(A, Out->notes, S.data(), S.size()))
        OOM = true;
}

int Ctx::loopOf(const Instruction *I) const {
    const Loop *L = LI.getLoopFor(I->getParent());
    if (!L)
        return -1;
    auto It = LoopId.find(L);
    return It == LoopId.end() ? -1 : It->second;
}

// Executed on every pass through its innermost loop (dominates every latch),
// or, outside loops, on every path to a return (dominates every returning
// block). Otherwise conditional.
bool Ctx::conditional(const Instruction *I) const {
    const BasicBlock *B = I->getParent();
    if (const Loop *L = LI.getLoopFor(B)) {
        SmallVector<BasicBlock *, 4> Latches;
        L->getLoopLatches(Latches);
        for (const BasicBlock *Latch : Latches)
            if (!DT.dominates(B, Latch))
                return true;
        return false;
    }
    for (const BasicBlock *R : Returns)
        if (!DT.dominates(B, R))
            return true;
    return false;
}

kw_ir_val Ctx::unknown(const std::string &Why) {
    kw_ir_val V{};
    V.kind = KW_IR_UNKNOWN;
    V.why = str(Why);
    return V;
}

kw_ir_val Ctx::number(int64_t N) {
    kw_ir_val V{};
    V.kind = KW_IR_NUM;
    V.num = N;
    V.expr = str(std::to_string(N));
    return V;
}

kw_ir_val Ctx::val(const Expr *E, const char *WhyIfNull) {
    if (!E)
        return unknown(WhyIfNull && *WhyIfNull ? WhyIfNull : Pool.why());
    if (E->k == Expr::Num)
        return number(E->num);
    kw_ir_val V{};
    V.kind = KW_IR_EXPR;
    V.expr = str(E->text);
    return V;
}

// ---- intrinsics ------------------------------------------------------------------------------

StringRef amdgcnName(const CallBase *CB) {
    const Function *Fn = CB ? CB->getCalledFunction() : nullptr;
    if (!Fn || !Fn->isIntrinsic())
        return "";
    StringRef Base = Intrinsic::getBaseName(Fn->getIntrinsicID());
    if (!Base.consume_front("llvm.amdgcn."))
        return "";
    return Base;
}

StringRef amdgcnName(const Value *V) { return amdgcnName(dyn_cast_or_null<CallBase>(V)); }

int varOf(const Value *V) {
    StringRef N = amdgcnName(V);
    if (N.empty())
        return -1;
    if (N == "workitem.id.x") return TidX;
    if (N == "workitem.id.y") return TidY;
    if (N == "workitem.id.z") return TidZ;
    if (N == "workgroup.id.x") return GidX;
    if (N == "workgroup.id.y") return GidY;
    if (N == "workgroup.id.z") return GidZ;
    return -1;
}

static bool isAllOnes(const Value *V) {
    const auto *CI = dyn_cast<ConstantInt>(V);
    return CI && CI->isMinusOne();
}

static bool isZero(const Value *V) {
    const auto *CI = dyn_cast<ConstantInt>(V);
    return CI && CI->isZero();
}

bool isLaneId(const Ctx &C, const Value *V) {
    const auto *CB = dyn_cast<CallBase>(V);
    StringRef N = amdgcnName(CB);
    if (C.Wave == 32)
        return N == "mbcnt.lo" && isAllOnes(CB->getArgOperand(0)) && isZero(CB->getArgOperand(1));
    if (N != "mbcnt.hi" || !isAllOnes(CB->getArgOperand(0)))
        return false;
    const auto *Lo = dyn_cast<CallBase>(CB->getArgOperand(1));
    return amdgcnName(Lo) == "mbcnt.lo" && isAllOnes(Lo->getArgOperand(0)) &&
           isZero(Lo->getArgOperand(1));
}

const Value *peel(const Value *V) {
    while (true) {
        if (const auto *BC = dyn_cast<BitCastInst>(V))
            V = BC->getOperand(0);
        else if (const auto *CE = dyn_cast<ConstantExpr>(V); CE && CE->getOpcode() == Instruction::BitCast)
            V = CE->getOperand(0);
        else
            return V;
    }
}

// ---- locations -----------------------------------------------------------------------------

kw_ir_loc locationOf(Ctx &C, const DILocation *DL) {
    kw_ir_loc L{};
    for (; DL; DL = DL->getInlinedAt()) {
        kw_ir_frame *Fr = KW_PUSH(C.A, L.frames);
        if (!Fr) {
            C.OOM = true;
            return L;
        }
        StringRef File = DL->getFilename(), Dir = DL->getDirectory();
        if (!File.empty() && File[0] != '/' && !Dir.empty())
            Fr->file = C.str((Dir + "/" + File).str());
        else
            Fr->file = C.str(File);
        Fr->line = DL->getLine();
        Fr->column = DL->getColumn();
        const DISubprogram *SP = DL->getScope() ? DL->getScope()->getSubprogram() : nullptr;
        Fr->function = SP ? C.str(SP->getName()) : nullptr;
    }
    return L;
}

static const DILocation *ownLoc(const Instruction *I) {
    const DILocation *DL = I->getDebugLoc().get();
    return DL && DL->getLine() ? DL : nullptr;
}

// The pointer operand of a memory access (the first pointer argument of a call).
static const Value *pointerOperand(const Instruction *I) {
    if (const auto *L = dyn_cast<LoadInst>(I))
        return L->getPointerOperand();
    if (const auto *S = dyn_cast<StoreInst>(I))
        return S->getPointerOperand();
    if (const auto *R = dyn_cast<AtomicRMWInst>(I))
        return R->getPointerOperand();
    if (const auto *X = dyn_cast<AtomicCmpXchgInst>(I))
        return X->getPointerOperand();
    if (const auto *CB = dyn_cast<CallBase>(I))
        for (const Value *A : CB->args())
            if (A->getType()->isPointerTy() || A->getType()->isVectorTy())
                return A;
    return nullptr;
}

kw_ir_loc location(Ctx &C, const Instruction *I) {
    if (const DILocation *DL = ownLoc(I))
        return locationOf(C, DL);
    if (!I->getFunction()->getSubprogram())
        return kw_ir_loc{};
    // borrowed: the debug records just before it (the variables of the code
    // it came from, e.g. an inlined helper's), the address computation, the
    // value, the first user
    const Instruction *Cur = I;
    for (int Steps = 0; Cur && Steps < 4; Steps++, Cur = Cur->getPrevNode()) {
        const DILocation *Best = nullptr;
        for (const DbgRecord &R : Cur->getDbgRecordRange())
            if (const DILocation *DL = R.getDebugLoc().get(); DL && DL->getLine())
                Best = DL;
        if (Best) {
            kw_ir_loc L = locationOf(C, Best);
            L.from = "debug_record";
            return L;
        }
        if (Cur != I && ownLoc(Cur))
            break; // records further back belong to other code
    }
    const Value *P = pointerOperand(I);
    for (int Steps = 0; P && Steps < 6; Steps++) {
        const auto *PI = dyn_cast<Instruction>(P);
        if (!PI)
            break;
        if (const DILocation *DL = ownLoc(PI)) {
            kw_ir_loc L = locationOf(C, DL);
            L.from = "address";
            return L;
        }
        P = isa<GetElementPtrInst>(PI) || isa<CastInst>(PI) ? PI->getOperand(0) : nullptr;
    }
    for (const Value *Op : I->operands())
        if (const auto *OI = dyn_cast<Instruction>(Op))
            if (const DILocation *DL = ownLoc(OI)) {
                kw_ir_loc L = locationOf(C, DL);
                L.from = "value";
                return L;
            }
    for (const User *U : I->users())
        if (const auto *UI = dyn_cast<Instruction>(U))
            if (const DILocation *DL = ownLoc(UI)) {
                kw_ir_loc L = locationOf(C, DL);
                L.from = "user";
                return L;
            }
    return kw_ir_loc{};
}

} // namespace kwir
