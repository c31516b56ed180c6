// kw_ir_analyze.cpp: the entry of the IR analysis. Sets up the per-function
// context (target, wave size, block order), records the kernel's parameters,
// barriers and fences, and inline asm, then runs the collectors in order:
// loops (their ids are used by everything else), memory accesses and their
// groups, cross-lane operations and idioms, work per thread. Reads only: no
// instruction, metadata or analysis result is changed.
#include "passes/kw_ir_analyze.h"
#include "kw_ir_internal.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace llvm;

namespace kwir {

namespace {

// Work of the mnemonics inline asm in HIP kernels commonly uses; anything else
// makes the statement "uncounted".
struct AsmOp {
    const char *Mnemonic;
    int Flops;
    int Transc;
};
const AsmOp AsmOps[] = {
    {"v_pk_mul_f32", 2, 0},  {"v_pk_add_f32", 2, 0},  {"v_pk_fma_f32", 4, 0},
    {"v_pk_mul_f16", 2, 0},  {"v_pk_add_f16", 2, 0},  {"v_pk_fma_f16", 4, 0},
    {"v_pk_max_f16", 2, 0},  {"v_pk_min_f16", 2, 0},  {"v_fma_f32", 2, 0},
    {"v_fmac_f32", 2, 0},    {"v_mac_f32", 2, 0},     {"v_mad_f32", 2, 0},
    {"v_fma_f16", 2, 0},     {"v_fmac_f16", 2, 0},    {"v_mul_f32", 1, 0},
    {"v_add_f32", 1, 0},     {"v_sub_f32", 1, 0},     {"v_subrev_f32", 1, 0},
    {"v_max_f32", 1, 0},     {"v_min_f32", 1, 0},     {"v_mul_f16", 1, 0},
    {"v_add_f16", 1, 0},     {"v_sub_f16", 1, 0},     {"v_max_f16", 1, 0},
    {"v_min_f16", 1, 0},     {"v_dot2_f32_f16", 4, 0}, {"v_dot2c_f32_f16", 4, 0},
    {"v_exp_f32", 0, 1},     {"v_log_f32", 0, 1},     {"v_rcp_f32", 0, 1},
    {"v_rsq_f32", 0, 1},     {"v_sqrt_f32", 0, 1},    {"v_sin_f32", 0, 1},
    {"v_cos_f32", 0, 1},     {"v_exp_f16", 0, 1},     {"v_log_f16", 0, 1},
    {"v_rcp_f16", 0, 1},     {"v_rsq_f16", 0, 1},     {"v_sqrt_f16", 0, 1},
    {"v_mov_b32", 0, 0},     {"v_mov_b64", 0, 0},     {"s_mov_b32", 0, 0},
    {"s_nop", 0, 0},         {"s_waitcnt", 0, 0},     {"s_setprio", 0, 0},
    {"v_readfirstlane_b32", 0, 0}, {"v_readlane_b32", 0, 0},
};

// Flops/transcendental of an asm string; false when a mnemonic is not known.
bool asmWork(StringRef Text, int64_t &Flops, int64_t &Transc) {
    Flops = Transc = 0;
    SmallVector<StringRef, 8> Lines;
    Text.split(Lines, '\n');
    for (StringRef L : Lines) {
        L = L.trim();
        size_t Cm = L.find(';');
        if (Cm != StringRef::npos)
            L = L.take_front(Cm).trim();
        if (L.empty() || L.starts_with("//") || L.ends_with(":"))
            continue;
        StringRef M = L.take_until([](char Ch) { return std::isspace((unsigned char)Ch); });
        for (StringRef Suffix : {"_e32", "_e64", "_sdwa", "_dpp"})
            M.consume_back(Suffix);
        bool Known = false;
        for (const AsmOp &Op : AsmOps)
            if (M.equals_insensitive(Op.Mnemonic)) {
                Flops += Op.Flops;
                Transc += Op.Transc;
                Known = true;
                break;
            }
        if (!Known)
            return false;
    }
    return true;
}

// LLVM's inline asm operand syntax back to the source's (GCC) syntax: $N and
// ${N} -> %N, ${N:m} -> %mN, $$ -> $.
std::string gccAsm(StringRef T) {
    std::string Out;
    for (size_t I = 0; I < T.size(); I++) {
        char Ch = T[I];
        if (Ch != '$' || I + 1 == T.size()) {
            Out += Ch;
            continue;
        }
        char Next = T[I + 1];
        if (Next == '$') {
            Out += '$';
            I++;
        } else if (std::isdigit((unsigned char)Next)) {
            size_t J = I + 1;
            while (J < T.size() && std::isdigit((unsigned char)T[J]))
                J++;
            Out += "%" + T.substr(I + 1, J - I - 1).str();
            I = J - 1;
        } else if (Next == '{') {
            size_t Close = T.find('}', I);
            if (Close == StringRef::npos) {
                Out += Ch;
                continue;
            }
            StringRef In = T.substr(I + 2, Close - I - 2);
            auto [Num, Mod] = In.split(':');
            Out += "%" + Mod.str() + Num.str();
            I = Close;
        } else {
            Out += Ch;
        }
    }
    return Out;
}

void setTarget(Ctx &C, const Function &F) {
    kw_ir_kernel_facts *O = C.Out;
    StringRef Cpu = F.getFnAttribute("target-cpu").getValueAsString();
    StringRef Feat = F.getFnAttribute("target-features").getValueAsString();
    O->arch = Cpu.empty() ? nullptr : C.str(Cpu);
    C.Gfx9 = Cpu.starts_with("gfx9") || Cpu.empty();
    C.NewBcast = Cpu == "gfx90a" || Cpu.starts_with("gfx94") || Cpu.starts_with("gfx95");
    if (Feat.contains("+wavefrontsize32"))
        C.Wave = 32;
    else if (Feat.contains("+wavefrontsize64"))
        C.Wave = 64;
    else
        C.Wave = C.Gfx9 ? 64 : 32;
    O->wave_size = C.Wave;
    // the largest workitem.id.x: flat work-group size attribute, else !range
    StringRef FW = F.getFnAttribute("amdgpu-flat-work-group-size").getValueAsString();
    unsigned Lo = 0, Hi = 0;
    if (!FW.empty() && !FW.split(',').first.getAsInteger(10, Lo) &&
        !FW.split(',').second.getAsInteger(10, Hi) && Hi)
        C.MaxTidX = Hi;
}

void collectParams(Ctx &C, const Function &F) {
    // names: the IR's, else debug info's parameter variables
    std::vector<std::string> Names(F.arg_size());
    if (const DISubprogram *SP = F.getSubprogram()) {
        for (const DINode *N : SP->getRetainedNodes())
            if (const auto *V = dyn_cast<DILocalVariable>(N))
                if (V->isParameter() && V->getArg() >= 1 && V->getArg() <= Names.size())
                    Names[V->getArg() - 1] = V->getName().str();
        for (const BasicBlock &BB : F)
            for (const Instruction &I : BB)
                for (const DbgVariableRecord &R : filterDbgVars(I.getDbgRecordRange())) {
                    const DILocalVariable *V = R.getVariable();
                    if (V && V->isParameter() && V->getScope() && V->getScope()->getSubprogram() == SP &&
                        V->getArg() >= 1 && V->getArg() <= Names.size() && Names[V->getArg() - 1].empty())
                        Names[V->getArg() - 1] = V->getName().str();
                }
    }
    for (const Argument &A : F.args()) {
        kw_ir_param *P = KW_PUSH(C.A, C.Out->params);
        if (!P) {
            C.OOM = true;
            return;
        }
        std::string T;
        raw_string_ostream OS(T);
        A.getType()->print(OS);
        P->type = C.str(OS.str());
        if (A.hasName())
            P->name = C.str(A.getName());
        else if (!Names[A.getArgNo()].empty())
            P->name = C.str(Names[A.getArgNo()]);
        if (A.getType()->isPointerTy()) {
            P->is_pointer = 1;
            P->addrspace = A.getType()->getPointerAddressSpace();
            P->readonly = A.hasAttribute(Attribute::ReadOnly);
            P->writeonly = A.hasAttribute(Attribute::WriteOnly);
            P->noalias = A.hasNoAliasAttr();
        }
    }
}

void collectBarriersAndAsm(Ctx &C, const Function &F) {
    for (const BasicBlock *BB : C.RPO) {
        for (const Instruction &I : *BB) {
            kw_ir_barrier B{};
            bool IsBarrier = false;
            if (const auto *Fe = dyn_cast<FenceInst>(&I)) {
                B.kind = KW_IR_FENCE;
                // getSyncScopeNames (in ID order) exists in every LLVM kwalk builds with.
                SmallVector<StringRef, 8> Names;
                F.getContext().getSyncScopeNames(Names);
                unsigned Id = Fe->getSyncScopeID();
                StringRef S = Id < Names.size() ? Names[Id] : StringRef();
                B.scope = C.str(!S.empty() ? S : StringRef("system"));
                B.ordering = C.str(toIRString(Fe->getOrdering()));
                IsBarrier = true;
            } else if (const auto *CB = dyn_cast<CallBase>(&I)) {
                StringRef N = amdgcnName(CB);
                if (N == "s.barrier") {
                    B.kind = KW_IR_S_BARRIER;
                    C.SBarriers.push_back(CB);
                    C.Out->barrier_count++;
                    IsBarrier = true;
                } else if (N.starts_with("s.barrier.signal")) {
                    B.kind = KW_IR_BARRIER_SIGNAL;
                    C.SBarriers.push_back(CB);
                    C.Out->barrier_count++;
                    IsBarrier = true;
                } else if (N == "s.barrier.wait") {
                    B.kind = KW_IR_BARRIER_WAIT;
                    IsBarrier = true;
                } else if (N == "wave.barrier") {
                    B.kind = KW_IR_WAVE_BARRIER;
                    IsBarrier = true;
                } else if (CB->isInlineAsm()) {
                    const auto *IA = cast<InlineAsm>(CB->getCalledOperand());
                    kw_ir_asm *S = KW_PUSH(C.A, C.Out->inline_asm);
                    if (!S) {
                        C.OOM = true;
                        return;
                    }
                    S->text = C.str(gccAsm(IA->getAsmString()));
                    S->constraints = C.str(IA->getConstraintString());
                    S->side_effects = IA->hasSideEffects();
                    if (const MDNode *MD = CB->getMetadata("srcloc"))
                        if (MD->getNumOperands())
                            if (const auto *CI = mdconst::dyn_extract<ConstantInt>(MD->getOperand(0)))
                                S->srcloc = (unsigned)CI->getZExtValue();
                    int64_t Fl, Tr;
                    if (asmWork(IA->getAsmString(), Fl, Tr)) {
                        S->flops = Fl;
                        S->transcendental = Tr;
                    } else {
                        S->flops = S->transcendental = -1;
                    }
                    C.AsmWork[CB] = {S->flops, S->transcendental};
                    S->loop = -1; // set after the loops are known
                    S->loc = location(C, CB);
                }
            }
            if (!IsBarrier)
                continue;
            B.loop = -1;
            B.conditional = C.conditional(&I);
            B.loc = location(C, &I);
            kw_ir_barrier *Slot = KW_PUSH(C.A, C.Out->barriers);
            if (!Slot) {
                C.OOM = true;
                return;
            }
            *Slot = B;
        }
    }
}

// Loop ids of barriers and asm, once loops are numbered (same walk order).
void placeInLoops(Ctx &C, const Function &F) {
    size_t Bi = 0, Ai = 0;
    for (const BasicBlock *BB : C.RPO) {
        for (const Instruction &I : *BB) {
            const auto *CB = dyn_cast<CallBase>(&I);
            StringRef N = amdgcnName(CB);
            bool IsBarrier = isa<FenceInst>(I) || N == "s.barrier" || N.starts_with("s.barrier.signal") ||
                             N == "s.barrier.wait" || N == "wave.barrier";
            if (IsBarrier && Bi < C.Out->barriers.n)
                C.Out->barriers.v[Bi++].loop = C.loopOf(&I);
            else if (CB && CB->isInlineAsm() && Ai < C.Out->inline_asm.n)
                C.Out->inline_asm.v[Ai++].loop = C.loopOf(&I);
        }
    }
}

// KWALK_FAULT=ir-crash (a test hook): the analysis stores through a null
// pointer, as a bug in it would, so that the plugin's recovery can be tested.
void injectedFault() {
    const char *F = std::getenv("KWALK_FAULT");
    if (!F || std::strcmp(F, "ir-crash") != 0)
        return;
    static volatile uintptr_t Zero = 0;
    *reinterpret_cast<volatile int *>(Zero) = 1;
}

kw_status run(const Function &F, DominatorTree &DT, LoopInfo &LI, ScalarEvolution &SE, kw_arena *A,
              kw_ir_kernel_facts *Out, kw_err *Err) {
    injectedFault();
    kw_ir_facts_init(Out);
    Ctx C(F, F.getParent()->getDataLayout(), DT, LI, SE, A, Out);
    Out->symbol = C.str(F.getName());
    Out->has_debug_info = F.getSubprogram() != nullptr;
    setTarget(C, F);
    for (const BasicBlock *BB : ReversePostOrderTraversal<const Function *>(&F)) {
        C.BlockIndex[BB] = (unsigned)C.RPO.size();
        C.RPO.push_back(BB);
        if (isa<ReturnInst>(BB->getTerminator()))
            C.Returns.push_back(BB);
    }
    collectParams(C, F);
    collectBarriersAndAsm(C, F);
    if (!C.OOM)
        collectLoops(C);
    if (!C.OOM)
        placeInLoops(C, F);
    if (!C.OOM)
        collectAccesses(C);
    if (!C.OOM)
        groupAccesses(C);
    if (!C.OOM)
        collectCrossLane(C);
    if (!C.OOM)
        collectWork(C);
    if (C.OOM)
        return kw_fail(Err, "out of memory analyzing %s", F.getName().str().c_str());
    return KW_OK;
}

} // namespace

} // namespace kwir

kw_status kw_ir_analyze_function(const llvm::Function &F, llvm::FunctionAnalysisManager &FAM,
                                 kw_arena *arena, kw_ir_kernel_facts *out, kw_err *err) {
    if (F.isDeclaration())
        return kw_fail(err, "%s has no body", F.getName().str().c_str());
    Function &MF = const_cast<Function &>(F); // analyses take a non-const function; nothing is changed
    DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(MF);
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(MF);
    ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(MF);
    return kwir::run(F, DT, LI, SE, arena, out, err);
}

namespace {

// The analyses the second form builds for itself, on the heap: when the
// analysis is run under a crash recovery context and faults, the frames are
// unwound without destructors, and these (scalar evolution and the assumption
// cache register value handles with the function's values) must stay valid
// memory for as long as the values live. They are then leaked on purpose.
struct OwnAnalyses {
    DominatorTree DT;
    LoopInfo LI;
    TargetLibraryInfoImpl TLII;
    TargetLibraryInfo TLI;
    AssumptionCache AC;
    ScalarEvolution SE;
    explicit OwnAnalyses(Function &F)
        : DT(F), LI(DT), TLII{Triple(F.getParent()->getTargetTriple())}, TLI(TLII, &F), AC(F),
          SE(F, TLI, AC, DT, LI) {}
};

} // namespace

kw_status kw_ir_analyze_function(const llvm::Function &F, kw_arena *arena, kw_ir_kernel_facts *out,
                                 kw_err *err) {
    if (F.isDeclaration())
        return kw_fail(err, "%s has no body", F.getName().str().c_str());
    Function &MF = const_cast<Function &>(F);
    auto A = std::make_unique<OwnAnalyses>(MF);
    return kwir::run(F, A->DT, A->LI, A->SE, arena, out, err);
}
