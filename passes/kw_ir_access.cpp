// kw_ir_access.cpp: every memory access of the kernel: loads, stores and
// atomics on plain pointers (global, LDS, flat, scratch, constant), memcpy and
// memset, and the AMDGPU buffer intrinsics ({raw,struct}[.ptr].[t]buffer.*,
// global.load.lds). For each: bytes per lane, the kernel parameter (or LDS
// variable) the address comes from, the lane and work-group strides (the
// derivative of the address SCEV, kw_ir_deriv.cpp), exact per-lane offsets
// where they can be computed (kw_ir_lanes.cpp), a wave's footprint in 64/128 B
// segments, and the LDS bank-conflict degree. groupAccesses() then finds
// accesses that together cover a contiguous run per lane (two 16-byte loads
// at lane stride 32).
#include "kw_ir_compat.h"
#include "kw_ir_internal.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace kwir {

namespace {

kw_ir_space spaceOf(unsigned AS) {
    switch (AS) {
    case 0: return KW_IR_FLAT;
    case 1: return KW_IR_GLOBAL;
    case 3: return KW_IR_LDS;
    case 4: return KW_IR_CONSTANT;
    case 5: return KW_IR_SCRATCH;
    case 7:
    case 8: return KW_IR_BUFFER;
    default: return KW_IR_OTHER_SPACE;
    }
}

std::string typeText(Type *T) {
    std::string S;
    raw_string_ostream OS(S);
    T->print(OS);
    return OS.str();
}

bool isLaunchPointer(const Value *V) {
    StringRef N = amdgcnName(V);
    return N == "implicitarg.ptr" || N == "dispatch.ptr" || N == "kernarg.segment.ptr" ||
           N == "queue.ptr" || N == "dispatch.id" || N == "implicit.buffer.ptr";
}

// A kernel argument in the kernel-argument segment passed by reference
// (`ptr addrspace(4) byref(%struct.Kargs)`): a struct the source passes by
// value. Loads of it are launch data, not memory traffic.
bool isKernargStruct(const Value *V) {
    const auto *A = dyn_cast_or_null<Argument>(V);
    return A && A->getType()->isPointerTy() && A->getType()->getPointerAddressSpace() == 4 &&
           A->hasByRefAttr();
}

// A value loaded from such a struct at a constant offset (one of its fields):
// the argument and the offset.
bool kernargField(const DataLayout &DL, const Value *V, const Argument *&A, int64_t &Off) {
    const auto *L = dyn_cast_or_null<LoadInst>(V);
    if (!L)
        return false;
    APInt O(DL.getIndexTypeSizeInBits(L->getPointerOperandType()), 0);
    const Value *B = L->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, O, true);
    if (!isKernargStruct(B))
        return false;
    A = cast<Argument>(B);
    Off = O.getSExtValue();
    return Off >= 0;
}

// A memory access found in the IR, before analysis.
struct Raw {
    const Instruction *I;
    kw_ir_op Op;
    kw_ir_space Space;
    std::string What;
    Type *Ty = nullptr;   // value moved per lane (nullptr: memcpy/memset)
    int64_t Bytes = -1;   // -1 unknown
    unsigned Align = 0;
    const Value *Ptr = nullptr;    // plain pointer access
    const Value *Rsrc = nullptr;   // buffer access: resource
    const Value *VOff = nullptr;   // buffer: voffset, soffset, vindex
    const Value *SOff = nullptr;
    const Value *VIdx = nullptr;
    int64_t ImmOff = 0;
};

// The pointer a buffer resource was made from, when visible.
const Value *rsrcPointer(const DataLayout &DL, const Value *R) {
    if (!R)
        return nullptr;
    SmallVector<const Value *, 16> Work{R};
    SmallPtrSet<const Value *, 16> Seen;
    while (!Work.empty() && Seen.size() < 64) {
        const Value *V = peel(Work.pop_back_val());
        if (!Seen.insert(V).second)
            continue;
        if (amdgcnName(V) == "make.buffer.rsrc")
            return cast<CallBase>(V)->getArgOperand(0);
        if (const auto *PI = dyn_cast<PtrToIntInst>(V))
            return PI->getPointerOperand();
        // an address: a pointer, or a 64-bit integer; the resource's other
        // words (the size, often computed from integer arguments) are not
        bool Address = V->getType()->isPointerTy() || V->getType()->isIntegerTy(64);
        if (isa<Argument>(V)) {
            if (Address)
                return V;
            continue;
        }
        const Argument *KA;
        int64_t KOff;
        if (kernargField(DL, V, KA, KOff)) {
            if (Address)
                return V; // a field of a struct kernel argument
            continue;
        }
        if (const auto *I = dyn_cast<Instruction>(V)) {
            if (isa<LoadInst>(I) || isa<PHINode>(I))
                continue;
            for (const Value *Op : I->operands())
                if (!isa<Constant>(Op))
                    Work.push_back(Op);
        }
    }
    return nullptr;
}

// Bytes a value of type T takes in memory; -1 when it has no fixed size.
int64_t storeBytes(const Ctx &C, Type *T) {
    if (!T || !T->isSized() || isa<ScalableVectorType>(T))
        return -1;
    return (int64_t)C.DL.getTypeStoreSize(T).getFixedValue();
}

bool isRsrcType(Type *T) {
    if (T->isPointerTy())
        return T->getPointerAddressSpace() == 8;
    auto *VT = dyn_cast<FixedVectorType>(T);
    return VT && VT->getNumElements() == 4 && VT->getElementType()->isIntegerTy(32);
}

// Operand positions of an AMDGPU memory intrinsic, as IntrinsicsAMDGPU.td
// documents them; -1: the intrinsic has no such operand. A load without a
// Data operand returns the data (or, with a Size operand, writes it to LDS).
struct Layout {
    kw_ir_op Op = KW_IR_LOAD;
    int Data = -1, Cmp = -1, Rsrc = -1, VIdx = -1, VOff = -1, SOff = -1, Imm = -1, Size = -1,
        Lds = -1, Ptr = -1;
};

// {raw,struct}[.ptr].NAME, positions of the raw form; the struct form takes
// vindex where the raw form has voffset, and every operand from there on one
// later. The .ptr forms differ only in the resource's type (ptr addrspace(8)).
struct BufferKind {
    const char *Name;
    kw_ir_op Op;
    int Data, Cmp, Rsrc, VOff, SOff, Imm, Size, Lds;
};
const BufferKind BufferKinds[] = {
    // rsrc, voffset, soffset, [format,] aux -> data
    {"buffer.load", KW_IR_LOAD, -1, -1, 0, 1, 2, -1, -1, -1},
    {"buffer.load.format", KW_IR_LOAD, -1, -1, 0, 1, 2, -1, -1, -1},
    {"atomic.buffer.load", KW_IR_LOAD, -1, -1, 0, 1, 2, -1, -1, -1},
    {"tbuffer.load", KW_IR_LOAD, -1, -1, 0, 1, 2, -1, -1, -1},
    // data, rsrc, voffset, soffset, [format,] aux
    {"buffer.store", KW_IR_STORE, 0, -1, 1, 2, 3, -1, -1, -1},
    {"buffer.store.format", KW_IR_STORE, 0, -1, 1, 2, 3, -1, -1, -1},
    {"tbuffer.store", KW_IR_STORE, 0, -1, 1, 2, 3, -1, -1, -1},
    // src, cmp, rsrc, voffset, soffset, aux
    {"buffer.atomic.cmpswap", KW_IR_ATOMIC, 0, 1, 2, 3, 4, -1, -1, -1},
    // rsrc, LDS pointer, size, voffset, soffset, imm offset, aux
    {"buffer.load.lds", KW_IR_LOAD, -1, -1, 0, 3, 4, 5, 2, 1},
};
// Every other buffer.atomic.OP: data, rsrc, voffset, soffset, aux.
const BufferKind BufferAtomic = {"buffer.atomic.", KW_IR_ATOMIC, 0, -1, 1, 2, 3, -1, -1, -1};

// Memory intrinsics on a plain pointer (operand Ptr; the address space is the
// pointer's). Prefix: every intrinsic whose name starts with Name.
struct PtrKind {
    const char *Name;
    bool Prefix;
    kw_ir_op Op;
    int Ptr, Data, Lds, Size, Imm;
};
const PtrKind PtrKinds[] = {
    {"global.load.lds", false, KW_IR_LOAD, 0, -1, 1, 2, 3},   // gptr, LDS ptr, size, imm, aux
    {"load.to.lds", false, KW_IR_LOAD, 0, -1, 1, 2, 3},       // ptr, LDS ptr, size, imm, aux
    {"global.atomic.", true, KW_IR_ATOMIC, 0, 1, -1, -1, -1}, // vaddr, vdata -> old value
    {"flat.atomic.", true, KW_IR_ATOMIC, 0, 1, -1, -1, -1},
    {"atomic.cond.sub.u32", false, KW_IR_ATOMIC, 0, 1, -1, -1, -1},
    {"global.load.tr", true, KW_IR_LOAD, 0, -1, -1, -1, -1}, // ptr -> data (transposed)
    {"ds.load.tr", true, KW_IR_LOAD, 0, -1, -1, -1, -1},
    {"ds.read.tr", true, KW_IR_LOAD, 0, -1, -1, -1, -1},
};

// The layout of intrinsic N (its base name after "llvm.amdgcn."), if it is a
// memory access the analysis decodes.
bool layoutOf(StringRef N, Layout &L) {
    L = Layout();
    if (N == "s.buffer.load") { // rsrc, byte offset, aux -> data
        L.Rsrc = 0;
        L.VOff = 1;
        return true;
    }
    for (const PtrKind &K : PtrKinds)
        if (K.Prefix ? N.starts_with(K.Name) : N == K.Name) {
            L.Op = K.Op;
            L.Ptr = K.Ptr;
            L.Data = K.Data;
            L.Lds = K.Lds;
            L.Size = K.Size;
            L.Imm = K.Imm;
            return true;
        }
    StringRef R = N;
    bool Struct = R.consume_front("struct.");
    if (!Struct && !R.consume_front("raw."))
        return false;
    R.consume_front("ptr.");
    const BufferKind *Kind = nullptr;
    for (const BufferKind &K : BufferKinds)
        if (R == K.Name)
            Kind = &K;
    if (!Kind && R.starts_with(BufferAtomic.Name))
        Kind = &BufferAtomic;
    if (!Kind)
        return false;
    int Shift = Struct ? 1 : 0;
    auto After = [&](int K) { return K >= Kind->VOff ? K + Shift : K; };
    L.Op = Kind->Op;
    L.Data = Kind->Data;
    L.Cmp = Kind->Cmp;
    L.Rsrc = Kind->Rsrc;
    L.Size = Kind->Size;
    L.Lds = Kind->Lds;
    L.VIdx = Struct ? Kind->VOff : -1;
    L.VOff = After(Kind->VOff);
    L.SOff = After(Kind->SOff);
    L.Imm = Kind->Imm >= 0 ? After(Kind->Imm) : -1;
    return true;
}

// One access from call CB by layout L, every operand checked against the
// type the layout says it has; false (and Bad) when one is not.
bool decode(Ctx &C, const CallBase *CB, const Layout &L, const std::string &Full,
            SmallVectorImpl<Raw> &Out, std::string &Bad) {
    unsigned NA = CB->arg_size();
    for (int K : {L.Data, L.Cmp, L.Rsrc, L.VIdx, L.VOff, L.SOff, L.Imm, L.Size, L.Lds, L.Ptr})
        if (K >= (int)NA) {
            Bad = "it has " + std::to_string(NA) + " operands, fewer than documented";
            return false;
        }
    auto Arg = [&](int K) { return CB->getArgOperand((unsigned)K); };
    auto Wrong = [&](int K, const char *Role, const char *Want) {
        Bad = "operand " + std::to_string(K) + " (" + Role + ") is " + typeText(Arg(K)->getType()) +
              ", not " + Want;
        return false;
    };
    Raw R{CB, L.Op, KW_IR_BUFFER, Full};
    if (L.Rsrc >= 0) {
        if (!isRsrcType(Arg(L.Rsrc)->getType()))
            return Wrong(L.Rsrc, "resource", "<4 x i32> or ptr addrspace(8)");
        R.Rsrc = Arg(L.Rsrc);
    }
    if (L.Ptr >= 0) {
        Type *T = Arg(L.Ptr)->getType();
        if (!T->isPointerTy())
            return Wrong(L.Ptr, "address", "a pointer");
        R.Ptr = Arg(L.Ptr);
        R.Space = spaceOf(T->getPointerAddressSpace());
    }
    if (L.Lds >= 0 && !(Arg(L.Lds)->getType()->isPointerTy() &&
                        Arg(L.Lds)->getType()->getPointerAddressSpace() == 3))
        return Wrong(L.Lds, "LDS address", "ptr addrspace(3)");
    struct {
        int K;
        const char *Role;
        const Value **Slot;
    } Ints[] = {
        {L.VIdx, "vindex", &R.VIdx}, {L.VOff, "offset", &R.VOff}, {L.SOff, "soffset", &R.SOff}};
    for (auto &I : Ints) {
        if (I.K < 0)
            continue;
        Type *T = Arg(I.K)->getType();
        if (!T->isIntegerTy() || T->getIntegerBitWidth() > 64)
            return Wrong(I.K, I.Role, "an integer of at most 64 bits");
        *I.Slot = Arg(I.K);
    }
    if (L.Imm >= 0) {
        const auto *Imm = dyn_cast<ConstantInt>(Arg(L.Imm));
        if (Imm && Imm->getBitWidth() <= 64)
            R.ImmOff = Imm->getSExtValue();
    }
    if (L.Size >= 0) {
        const auto *Sz = dyn_cast<ConstantInt>(Arg(L.Size));
        if (Sz && Sz->getBitWidth() <= 64)
            R.Bytes = (int64_t)Sz->getZExtValue();
    } else {
        Type *T = L.Data >= 0 ? Arg(L.Data)->getType() : CB->getType();
        if (T->isVoidTy() || storeBytes(C, T) < 0)
            return L.Data >= 0 ? Wrong(L.Data, "data", "a value of a fixed size")
                               : (Bad = "its result is not a value of a fixed size", false);
        if (L.Cmp >= 0 && Arg(L.Cmp)->getType() != T)
            return Wrong(L.Cmp, "compare value", "of the data's type");
        R.Ty = T;
        R.Bytes = storeBytes(C, T);
    }
    Out.push_back(R);
    return true;
}

bool classifyCall(Ctx &C, const CallBase *CB, SmallVectorImpl<Raw> &Out) {
    if (const auto *MT = dyn_cast<MemTransferInst>(CB)) {
        const auto *Len = dyn_cast<ConstantInt>(MT->getLength());
        int64_t Bytes = Len ? (int64_t)Len->getZExtValue() : -1;
        std::string W = MT->getCalledFunction()->getName().str();
        Raw Ld{CB, KW_IR_LOAD, spaceOf(MT->getSourceAddressSpace()), W};
        Ld.Bytes = Bytes;
        Ld.Ptr = MT->getRawSource();
        Raw St{CB, KW_IR_STORE, spaceOf(MT->getDestAddressSpace()), W};
        St.Bytes = Bytes;
        St.Ptr = MT->getRawDest();
        Out.push_back(Ld);
        Out.push_back(St);
        return true;
    }
    if (const auto *MS = dyn_cast<MemSetInst>(CB)) {
        const auto *Len = dyn_cast<ConstantInt>(MS->getLength());
        Raw St{CB, KW_IR_STORE, spaceOf(MS->getDestAddressSpace()),
               MS->getCalledFunction()->getName().str()};
        St.Bytes = Len ? (int64_t)Len->getZExtValue() : -1;
        St.Ptr = MS->getRawDest();
        Out.push_back(St);
        return true;
    }
    StringRef N = amdgcnName(CB);
    if (N.empty())
        return false;
    Layout L;
    if (!layoutOf(N, L))
        return false;
    std::string Full = ("llvm.amdgcn." + N).str();
    std::string Bad;
    if (!decode(C, CB, L, Full, Out, Bad)) {
        C.note(Full + ": " + Bad + "; the call is not counted as a memory access");
        return false;
    }
    return true;
}

// Bytes one lane moves by a MUBUF mnemonic's suffix (buffer_store_short: 2);
// 0 when not one of the plain forms.
unsigned bufferSuffixBytes(StringRef Sfx) {
    static const struct {
        const char *S;
        unsigned B;
    } T[] = {{"dword", 4},  {"dwordx2", 8}, {"dwordx3", 12}, {"dwordx4", 16}, {"short", 2},
             {"ushort", 2}, {"sshort", 2},  {"byte", 1},     {"ubyte", 1},    {"sbyte", 1},
             {"b32", 4},    {"b64", 8},     {"b96", 12},     {"b128", 16},    {"b16", 2},
             {"u16", 2},    {"i16", 2},     {"b8", 1},       {"u8", 1},       {"i8", 1}};
    for (const auto &E : T)
        if (Sfx == E.S)
            return E.B;
    return 0;
}

// An inline asm statement that is one buffer load or store (ck_tile's
// `buffer_store_short %0, %1, %2, 0 offen offset:%3`): decoded from its text
// as the assembler reads it (vdata, vaddr, srsrc, soffset, then modifiers),
// each `$N` mapped to the call's operand through the constraints (outputs
// that are not indirect are the call's result, not operands).
void classifyAsm(Ctx &C, const CallBase *CB, SmallVectorImpl<Raw> &Out) {
    const auto *IA = dyn_cast<InlineAsm>(CB->getCalledOperand());
    if (!IA)
        return;
    // the one buffer instruction of the statement (others around it, such as
    // ck_tile's exec mask set and restore for a conditional store, move no data)
    SmallVector<StringRef, 8> Lines;
    StringRef(IA->getAsmString()).split(Lines, '\n');
    StringRef Line;
    for (StringRef L : Lines) {
        L = L.take_until([](char Ch) { return Ch == ';'; }).trim();
        if (!L.starts_with("buffer_"))
            continue;
        if (!Line.empty())
            return; // several: not decoded
        Line = L;
    }
    StringRef Mn = Line.take_until([](char Ch) { return std::isspace((unsigned char)Ch); });
    StringRef Rest = Line.drop_front(Mn.size()).trim();
    bool Store = Mn.starts_with("buffer_store_");
    if (!Store && !Mn.starts_with("buffer_load_"))
        return;
    unsigned Bytes = bufferSuffixBytes(Mn.drop_front(Store ? 13 : 12));
    if (!Bytes)
        return;
    // operand number -> call argument (-1: the result)
    std::vector<int> ArgOf;
    int NextArg = 0;
    for (const InlineAsm::ConstraintInfo &CI : IA->ParseConstraints()) {
        if (CI.Type == InlineAsm::isClobber)
            continue;
        if (CI.Type == InlineAsm::isOutput && !CI.isIndirect)
            ArgOf.push_back(-1);
        else
            ArgOf.push_back(NextArg++);
    }
    SmallVector<StringRef, 8> Ops;
    Rest.split(Ops, ',');
    for (StringRef &O : Ops)
        O = O.trim();
    bool Lds = false, OffEn = false, IdxEn = false;
    int64_t Imm = 0;
    const Value *ImmV = nullptr;
    // the modifiers follow the last operand, separated by blanks
    SmallVector<StringRef, 4> Tail;
    if (!Ops.empty())
        Ops.back().split(Tail, ' ', -1, false);
    if (!Tail.empty()) {
        Ops.back() = Tail[0];
        for (size_t I = 1; I < Tail.size(); I++) {
            StringRef M = Tail[I];
            Lds |= M == "lds";
            OffEn |= M == "offen";
            IdxEn |= M == "idxen";
            if (M.consume_front("offset:")) {
                unsigned N;
                if (M.starts_with("$") && !M.drop_front().getAsInteger(10, N) && N < ArgOf.size() &&
                    ArgOf[N] >= 0)
                    ImmV = CB->getArgOperand((unsigned)ArgOf[N]);
                else
                    M.getAsInteger(0, Imm);
            }
        }
    }
    auto Operand = [&](size_t K) -> const Value * {
        unsigned N;
        if (K >= Ops.size() || !Ops[K].starts_with("$") || Ops[K].drop_front().getAsInteger(10, N) ||
            N >= ArgOf.size() || ArgOf[N] < 0 || (unsigned)ArgOf[N] >= CB->arg_size())
            return nullptr;
        return CB->getArgOperand((unsigned)ArgOf[N]);
    };
    // a load to LDS has no vdata: vaddr, srsrc, soffset
    size_t First = Lds && !Store ? 0 : 1;
    if (Ops.size() != First + 3 || IdxEn)
        return;
    std::string What = ("asm " + Mn).str();
    Raw R{CB, Store ? KW_IR_STORE : KW_IR_LOAD, KW_IR_BUFFER, What};
    R.Bytes = Bytes;
    R.Rsrc = Operand(First + 1);
    if (!R.Rsrc || !isRsrcType(R.Rsrc->getType())) {
        C.note(What + ": the resource operand is not a <4 x i32> the IR shows; the statement is "
                      "not counted as a memory access");
        return;
    }
    const Value *VAddr = OffEn ? Operand(First) : nullptr;
    if (OffEn && (!VAddr || !VAddr->getType()->isIntegerTy(32))) {
        C.note(What + ": the offset operand is not an i32 the IR shows; the statement is not "
                      "counted as a memory access");
        return;
    }
    R.VOff = VAddr;
    const Value *SOff = Operand(First + 2);
    if (SOff && SOff->getType()->isIntegerTy() && SOff->getType()->getIntegerBitWidth() <= 64)
        R.SOff = SOff;
    if (const auto *K = dyn_cast_or_null<ConstantInt>(ImmV))
        Imm = K->getBitWidth() <= 64 ? K->getSExtValue() : 0;
    R.ImmOff = Imm;
    R.Bytes = Bytes;
    const Value *Data = Store ? Operand(0) : nullptr;
    R.Ty = Data ? Data->getType() : (!CB->getType()->isVoidTy() ? CB->getType() : nullptr);
    Out.push_back(R);
}

void classify(Ctx &C, const Instruction &I, SmallVectorImpl<Raw> &Out) {
    auto Plain = [&](kw_ir_op Op, const Value *Ptr, Type *Ty, Align Al, std::string What) {
        const Value *Obj = getUnderlyingObject(Ptr, 8);
        if (isLaunchPointer(Obj) || isKernargStruct(Obj))
            return; // kernel arguments and dispatch fields: launch data, not traffic
        Raw R{&I, Op, spaceOf(Ptr->getType()->getPointerAddressSpace()), std::move(What)};
        R.Ptr = Ptr;
        R.Ty = Ty;
        R.Bytes = storeBytes(C, Ty);
        R.Align = (unsigned)Al.value();
        Out.push_back(R);
    };
    if (const auto *L = dyn_cast<LoadInst>(&I))
        Plain(KW_IR_LOAD, L->getPointerOperand(), L->getType(), L->getAlign(), "load");
    else if (const auto *S = dyn_cast<StoreInst>(&I))
        Plain(KW_IR_STORE, S->getPointerOperand(), S->getValueOperand()->getType(), S->getAlign(),
              "store");
    else if (const auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        Plain(KW_IR_ATOMIC, RMW->getPointerOperand(), RMW->getValOperand()->getType(),
              RMW->getAlign(), ("atomicrmw " + AtomicRMWInst::getOperationName(RMW->getOperation())).str());
    else if (const auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
        Plain(KW_IR_ATOMIC, CX->getPointerOperand(), CX->getNewValOperand()->getType(),
              CX->getAlign(), "cmpxchg");
    else if (const auto *CB = dyn_cast<CallBase>(&I))
        CB->isInlineAsm() ? classifyAsm(C, CB, Out) : (void)classifyCall(C, CB, Out);
}

// A pointer that went through an integer and back, inttoptr (ptrtoint P): P.
// Clang 19 passes a HIP kernel's global pointer to a builtin that takes a
// generic one (__builtin_amdgcn_make_buffer_rsrc) that way; 22 uses an
// addrspacecast, which getUnderlyingObjects sees through by itself.
const Value *throughInteger(const Value *V) {
    if (const auto *I2P = dyn_cast<IntToPtrInst>(V))
        if (const auto *P2I = dyn_cast<PtrToIntInst>(I2P->getOperand(0)))
            return P2I->getPointerOperand();
    return nullptr;
}

// Where the address comes from: a parameter, a variable, or why unknown.
void resolveBase(Ctx &C, const Value *Ptr, kw_ir_access &X, const Value *&Key) {
    X.param = -1;
    X.param_offset = -1;
    Key = nullptr;
    const Argument *KA;
    int64_t KOff;
    if (Ptr && kernargField(C.DL, Ptr, KA, KOff)) { // a pointer field of a struct argument
        X.param = (int)KA->getArgNo();
        X.param_offset = KOff;
        Key = Ptr;
        return;
    }
    if (!Ptr) {
        X.base_why = C.str("the buffer resource's pointer is not visible in the IR");
        return;
    }
    if (!Ptr->getType()->isPointerTy()) { // a resource built from an integer
        if (const auto *A = dyn_cast<Argument>(Ptr)) {
            X.param = (int)A->getArgNo();
            Key = A;
        } else {
            X.base_why =
                C.str("the buffer resource is built from an integer computed in the kernel");
        }
        return;
    }
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs, &C.LI, 8);
    const Value *Obj = Objs.size() == 1 ? Objs[0] : nullptr;
    if (!Obj) {
        X.base_why = C.str("one of several objects (select or phi of pointers)");
        return;
    }
    if (amdgcnName(Obj) == "make.buffer.rsrc") {
        resolveBase(C, cast<CallBase>(Obj)->getArgOperand(0), X, Key);
        return;
    }
    if (const Value *P = throughInteger(Obj)) {
        resolveBase(C, P, X, Key);
        return;
    }
    if (const auto *I2P = dyn_cast<IntToPtrInst>(Obj))
        if (kernargField(C.DL, I2P->getOperand(0), KA, KOff)) { // a field read as an integer
            resolveBase(C, I2P->getOperand(0), X, Key);
            return;
        }
    Key = Obj;
    if (const auto *A = dyn_cast<Argument>(Obj)) {
        X.param = (int)A->getArgNo();
    } else if (const auto *GV = dyn_cast<GlobalVariable>(Obj)) {
        X.object = C.str(demangleSymbol(GV->getName().str()));
    } else if (isa<AllocaInst>(Obj)) {
        X.object = C.str(Obj->hasName() ? ("alloca " + Obj->getName()).str() : "alloca");
    } else if (isa<LoadInst>(Obj)) {
        X.base_why = C.str("a pointer loaded from memory");
    } else {
        X.base_why = C.str("a pointer computed by something other than address arithmetic");
    }
}

// An integer operand as an i64 SCEV; nullptr for anything else (a vector, a
// pointer, an integer wider than 64 bits).
const SCEV *asI64(ScalarEvolution &SE, const Value *V) {
    if (!V || !V->getType()->isIntegerTy() || V->getType()->getIntegerBitWidth() > 64)
        return nullptr;
    return SE.getNoopOrZeroExtend(SE.getSCEV(const_cast<Value *>(V)),
                                  Type::getInt64Ty(V->getContext()));
}

// The address (plain) or the byte offset into the resource (buffer) as a SCEV;
// nullptr and Why when it cannot be formed. Every operand handed to SCEV is
// checked first: an integer for the offsets, an integral pointer for a base.
const SCEV *addressSCEV(Ctx &C, const Raw &R, std::string &Why) {
    ScalarEvolution &SE = C.SE;
    if (R.Ptr) {
        if (!SE.isSCEVable(R.Ptr->getType())) {
            Why = "the address type is not analyzable";
            return nullptr;
        }
        return SE.getSCEV(const_cast<Value *>(R.Ptr));
    }
    Type *I64 = Type::getInt64Ty(C.F.getContext());
    const SCEV *S = SE.getConstant(I64, (uint64_t)R.ImmOff, true);
    for (const Value *V : {R.VOff, R.SOff}) {
        if (!V)
            continue;
        const SCEV *X = asI64(SE, V);
        if (!X) {
            Why = "a buffer offset is not an integer of at most 64 bits";
            return nullptr;
        }
        S = SE.getAddExpr(S, X);
    }
    if (R.VIdx) {
        const SCEV *Idx = asI64(SE, R.VIdx);
        if (!Idx) {
            Why = "the struct buffer index is not an integer of at most 64 bits";
            return nullptr;
        }
        if (!Idx->isZero()) {
            // the stride is the resource's (make.buffer.rsrc operand 1)
            const Value *Rs = R.Rsrc ? peel(R.Rsrc) : nullptr;
            const auto *Make = amdgcnName(Rs) == "make.buffer.rsrc" ? cast<CallBase>(Rs) : nullptr;
            const ConstantInt *Stride = Make && Make->arg_size() > 1
                                            ? dyn_cast<ConstantInt>(Make->getArgOperand(1))
                                            : nullptr;
            if (!Stride || Stride->getBitWidth() > 64) {
                Why = "a struct buffer access whose record stride is not a constant";
                return nullptr;
            }
            S = SE.getAddExpr(S, SE.getMulExpr(Idx, SE.getConstant(I64, Stride->getZExtValue())));
        }
    }
    // the base, where the resource's pointer is visible and has an integer value
    if (const Value *P = R.Rsrc ? rsrcPointer(C.DL, R.Rsrc) : nullptr)
        if (P->getType()->isPointerTy() && !C.DL.isNonIntegralPointerType(P->getType())) {
            const SCEV *Base = SE.getPtrToIntExpr(SE.getSCEV(const_cast<Value *>(P)), I64);
            if (!isa<SCEVCouldNotCompute>(Base) && Base->getType() == I64)
                S = SE.getAddExpr(S, Base);
        }
    return S;
}

kw_ir_val strideVal(Ctx &C, const SCEV *D, const std::string &Why) {
    if (!D)
        return C.unknown(Why);
    if (const auto *K = dyn_cast<SCEVConstant>(D))
        if (K->getAPInt().getSignificantBits() <= 63)
            return C.number(K->getAPInt().getSExtValue());
    std::string W;
    const Expr *E = scevToExpr(C, D, W);
    return E ? C.val(E, nullptr) : C.unknown("stride " + W);
}

// Lane offsets from the concrete evaluator, for a plain or buffer access.
LaneOffsets concreteOffsets(Ctx &C, const Raw &R) {
    if (R.Ptr)
        return laneOffsetsPtr(C, R.Ptr, R.I);
    LaneOffsets Sum;
    Sum.Ok = true;
    unsigned W;
    activeLanes(C, R.I, Sum.Active, W);
    for (const Value *V : {R.VOff, R.SOff}) {
        if (!V)
            continue;
        LaneOffsets P = laneOffsetsInt(C, V, R.I);
        if (!P.Ok)
            return P;
        for (unsigned L = 0; L < 64; L++)
            Sum.Off[L] += P.Off[L];
    }
    if (R.VIdx && dependsOn(C, R.VIdx, TidX)) {
        Sum.Ok = false;
        Sum.Why = "the struct buffer index varies per lane";
    }
    return Sum;
}

void analyze(Ctx &C, const Raw &R) {
    kw_ir_access *X = KW_PUSH(C.A, C.Out->accesses);
    if (!X) {
        C.OOM = true;
        return;
    }
    X->op = R.Op;
    X->space = R.Space;
    X->what = C.str(R.What);
    X->type = R.Ty ? C.str(typeText(R.Ty)) : nullptr;
    X->bytes_per_lane = R.Bytes > 0 ? (unsigned)R.Bytes : 0;
    X->align = R.Align;
    X->group = -1;
    X->loop = C.loopOf(R.I);
    X->conditional = C.conditional(R.I);
    X->loc = location(C, R.I);
    X->lds_conflict_degree = 0;
    const Value *Key = nullptr;
    resolveBase(C, R.Ptr ? R.Ptr : rsrcPointer(C.DL, R.Rsrc), *X, Key);
    if (R.Rsrc && !Key) {
        const Value *Rs = peel(R.Rsrc);
        if (const auto *A = dyn_cast<Argument>(Rs)) { // the resource itself is a parameter
            X->param = (int)A->getArgNo();
            X->base_why = nullptr;
            Key = A;
        }
    }

    std::string Why;
    const SCEV *S = addressSCEV(C, R, Why);
    C.AccessPtr.push_back(S);
    C.AccessInst.push_back(R.I);
    const SCEV *D[NumVars] = {};
    for (int V = 0; V < NumVars; V++) {
        std::string W;
        if (S && scevDependsOn(C, S, (Var)V)) {
            if (V < GidX)
                X->tid_dims |= 1u << V;
            else
                X->gid_dims |= 1u << (V - GidX);
        }
        if (V == TidX || V >= GidX) {
            D[V] = S ? derive(C, S, (Var)V, W) : nullptr;
            kw_ir_val Val = strideVal(C, D[V], S ? W : Why);
            if (V == TidX)
                X->lane_stride = Val;
            else
                X->group_stride[V - GidX] = Val;
        }
    }
    for (int V = TidY; V <= TidZ; V++)
        if (X->tid_dims & (1u << V))
            C.note("some addresses depend on workitem.id.y/z: lane strides are along x, and "
                   "footprints assume blockDim.x is a multiple of the wave size");

    // per-lane offsets: exact when computable, else from a numeric lane stride
    LaneOffsets LO = concreteOffsets(C, R);
    if (LO.Ok) {
        X->lanes_exact = 1;
        // a stride the SCEV could not give may still be regular across lanes
        if (X->lane_stride.kind == KW_IR_UNKNOWN) {
            int Prev = -1;
            bool Affine = true, Have = false;
            int64_t Step = 0;
            for (unsigned L = 0; L < C.Wave; L++) {
                if (!(LO.Active >> L & 1))
                    continue;
                if (Prev >= 0) {
                    int64_t St = (LO.Off[L] - LO.Off[Prev]);
                    if ((St % (int64_t)(L - Prev)) != 0 || (Have && St / (int64_t)(L - Prev) != Step))
                        Affine = false;
                    Step = St / (int64_t)(L - Prev);
                    Have = true;
                }
                Prev = (int)L;
            }
            std::string Old = X->lane_stride.why ? X->lane_stride.why : "";
            if (Affine && Have)
                X->lane_stride = C.number(Step);
            else if (!Have)
                X->lane_stride = C.unknown(Old + "; one lane per wave executes it");
            else
                X->lane_stride = C.unknown(Old + "; not a constant stride across lanes (the footprint "
                                                 "uses each lane's exact offset)");
        }
    } else if (X->lane_stride.kind == KW_IR_NUM) {
        unsigned W;
        activeLanes(C, R.I, LO.Active, W);
        for (unsigned L = 0; L < 64; L++)
            LO.Off[L] = (int64_t)L * X->lane_stride.num;
        LO.Ok = true;
    }
    X->active_lanes = __builtin_popcountll(LO.Active);
    X->wave_bytes = X->segments_64 = X->segments_128 = -1;
    X->coalesced = -1;
    if (LO.Ok && R.Bytes > 0) {
        footprint(LO, R.Bytes, C.Wave, X->wave_bytes, X->segments_64, X->segments_128);
        X->coalesced = X->segments_64 == (X->wave_bytes + 63) / 64;
        if (X->space == KW_IR_LDS)
            X->lds_conflict_degree = ldsConflictDegree(LO, R.Bytes, C.Wave);
    } else if (X->space == KW_IR_LDS) {
        X->lds_conflict_degree = -1;
    }
}

} // namespace

void collectAccesses(Ctx &C) {
    SmallVector<Raw, 4> Found;
    for (const BasicBlock *BB : C.RPO) {
        for (const Instruction &I : *BB) {
            Found.clear();
            classify(C, I, Found);
            for (const Raw &R : Found)
                analyze(C, R);
            if (C.OOM)
                return;
        }
    }
    for (size_t I = 0; I < C.Out->accesses.n; I++) {
        int L = C.Out->accesses.v[I].loop;
        for (; L >= 0; L = C.Out->loops.v[L].parent)
            C.Out->loops.v[L].accesses++;
    }
}

// ---- groups: accesses that together cover a contiguous run per lane -----------------------

void groupAccesses(Ctx &C) {
    kw_ir_kernel_facts *F = C.Out;
    std::vector<int> GroupOf(F->accesses.n, -1);
    struct G {
        std::vector<std::pair<int64_t, unsigned>> M; // (offset from the first, access)
    };
    std::vector<G> Groups;
    auto Same = [&](const kw_ir_access &A, const kw_ir_access &B) {
        bool BaseEq = A.param >= 0 ? A.param == B.param && A.param_offset == B.param_offset
                                   : (A.object && B.object && !strcmp(A.object, B.object));
        return A.op == B.op && A.space == B.space && BaseEq && A.loop == B.loop &&
               A.lane_stride.kind == KW_IR_NUM && B.lane_stride.kind == KW_IR_NUM &&
               A.lane_stride.num == B.lane_stride.num && A.active_lanes == B.active_lanes &&
               A.bytes_per_lane && B.bytes_per_lane;
    };
    for (unsigned I = 0; I < F->accesses.n; I++) {
        const kw_ir_access &A = F->accesses.v[I];
        if (A.lane_stride.kind != KW_IR_NUM || A.lane_stride.num <= 0 || !C.AccessPtr[I] ||
            (A.param < 0 && !A.object))
            continue;
        bool Placed = false;
        for (G &Gr : Groups) {
            unsigned First = Gr.M[0].second;
            const kw_ir_access &B = F->accesses.v[First];
            if (!Same(A, B))
                continue;
            const SCEV *PA = C.AccessPtr[I], *PB = C.AccessPtr[First];
            if (PA->getType() != PB->getType() ||
                (PA->getType()->isPointerTy() && C.SE.getPointerBase(PA) != C.SE.getPointerBase(PB)))
                continue;
            const auto *Diff = dyn_cast<SCEVConstant>(C.SE.getMinusSCEV(PA, PB));
            if (!Diff)
                continue;
            int64_t Off = Diff->getAPInt().getSExtValue();
            if (Off == 0 || std::llabs(Off) >= A.lane_stride.num)
                continue;
            bool Dup = false;
            for (auto &M : Gr.M)
                Dup |= M.first == Off;
            if (Dup)
                continue;
            Gr.M.push_back({Off, I});
            Placed = true;
            break;
        }
        if (!Placed)
            Groups.push_back(G{{{0, I}}});
    }
    for (G &Gr : Groups) {
        if (Gr.M.size() < 2)
            continue;
        std::sort(Gr.M.begin(), Gr.M.end());
        kw_ir_group *Out = KW_PUSH(C.A, F->groups);
        if (!Out) {
            C.OOM = true;
            return;
        }
        int GI = (int)F->groups.n - 1;
        const kw_ir_access &A0 = F->accesses.v[Gr.M[0].second];
        int64_t S = A0.lane_stride.num, Sum = 0, End = Gr.M[0].first;
        bool Tiles = true;
        for (auto &M : Gr.M) {
            unsigned *Slot = KW_PUSH(C.A, Out->members);
            if (!Slot) {
                C.OOM = true;
                return;
            }
            *Slot = M.second;
            F->accesses.v[M.second].group = GI;
            const kw_ir_access &X = F->accesses.v[M.second];
            Tiles &= M.first == End;
            End = M.first + X.bytes_per_lane;
            Sum += X.bytes_per_lane;
        }
        Tiles &= End - Gr.M[0].first == S;
        Out->lane_stride = S;
        Out->bytes_per_lane = Sum;
        Out->contiguous = Tiles;
        // the group's wave footprint: each member at its offset in every active lane
        std::vector<std::pair<int64_t, int64_t>> Iv;
        unsigned Lanes = (unsigned)A0.active_lanes;
        for (unsigned L = 0; L < Lanes; L++)
            for (auto &M : Gr.M)
                Iv.push_back({(int64_t)L * S + M.first,
                              (int64_t)L * S + M.first + F->accesses.v[M.second].bytes_per_lane});
        std::sort(Iv.begin(), Iv.end());
        int64_t Base = Iv.empty() ? 0 : Iv[0].first, Bytes = 0, Cur = INT64_MIN;
        int64_t Last64 = INT64_MIN, Last128 = INT64_MIN, S64 = 0, S128 = 0;
        for (auto &P : Iv) {
            int64_t A = std::max(P.first, Cur);
            if (P.second > A)
                Bytes += P.second - A;
            Cur = std::max(Cur, P.second);
            for (int64_t B = (P.first - Base) / 64; B <= (P.second - 1 - Base) / 64; B++)
                if (B > Last64) {
                    S64++;
                    Last64 = B;
                }
            for (int64_t B = (P.first - Base) / 128; B <= (P.second - 1 - Base) / 128; B++)
                if (B > Last128) {
                    S128++;
                    Last128 = B;
                }
        }
        Out->wave_bytes = Bytes;
        Out->segments_64 = S64;
        Out->segments_128 = S128;
    }
}

} // namespace kwir
