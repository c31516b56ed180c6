// kw_ir_xlane.cpp: cross-lane operations and the idioms they form.
// Each DPP / DPP8 / ds_swizzle control is decoded into the assembler's words
// (row_shr:1, row_bcast:15, quad_perm:[1,0,3,2], swizzle(SWAP,16), ...) and,
// where the hardware semantics are known, into a lane map: which lane each
// lane reads. A reduction step is `v' = op(v, move(v))`; chains of steps are
// simulated on the lane maps (every lane's multiset of contributing lanes,
// with row/bank masks, bound_ctrl and the `old` operand), which says whether
// the chain reduces the whole wave, in which lane(s) the result lands, and
// whether a readlane broadcasts it. A wave reduction whose result is stored
// to LDS, followed by a barrier and a load of that LDS variable feeding a
// second wave reduction with the same operation, is a block reduction.
#include "kw_ir_compat.h"
#include "kw_ir_internal.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <map>
#include <cstdarg>
#include <cstdio>
#include <cstring>

using namespace llvm;

namespace kwir {

namespace {

enum : int { OLD = -1, ZERO = -2 };

struct XInfo {
    const CallBase *CB = nullptr;
    const Value *Src = nullptr; // the value moved
    const Value *Old = nullptr; // update.dpp's old; nullptr when undefined
    bool HasMap = false;
    int Map[64] = {};
};

std::string fmt(const char *F, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *F, ...) {
    char Buf[256];
    va_list Ap;
    va_start(Ap, F);
    vsnprintf(Buf, sizeof Buf, F, Ap);
    va_end(Ap);
    return Buf;
}

int64_t constArg(const CallBase *CB, unsigned I) {
    if (I >= CB->arg_size())
        return -1;
    const auto *K = dyn_cast<ConstantInt>(CB->getArgOperand(I));
    return K ? (int64_t)K->getZExtValue() : -1;
}

// DPP control -> assembler text and lane map (GFX9 / GFX90A+ / GFX10+).
std::string decodeDpp(Ctx &C, int64_t Ctrl, int RowMask, int BankMask, bool BoundCtrl, XInfo &X) {
    unsigned W = C.Wave;
    // Src(i): the lane lane i reads, or -1 when out of range
    auto Fill = [&](auto Src) {
        X.HasMap = true;
        for (unsigned I = 0; I < W; I++) {
            unsigned Row = I / 16, Bank = (I % 16) / 4;
            if (!(RowMask >> Row & 1) || !(BankMask >> Bank & 1)) {
                X.Map[I] = OLD; // the write is masked: the lane keeps old
                continue;
            }
            int S = Src((int)I);
            X.Map[I] = S >= 0 ? S : (BoundCtrl ? ZERO : OLD);
        }
    };
    if (Ctrl >= 0 && Ctrl <= 0xff) {
        int Sel[4] = {(int)(Ctrl & 3), (int)(Ctrl >> 2 & 3), (int)(Ctrl >> 4 & 3), (int)(Ctrl >> 6 & 3)};
        Fill([&](int I) { return (I & ~3) | Sel[I & 3]; });
        return fmt("quad_perm:[%d,%d,%d,%d]", Sel[0], Sel[1], Sel[2], Sel[3]);
    }
    int N = (int)(Ctrl & 0xf);
    if (Ctrl >= 0x101 && Ctrl <= 0x10f) {
        Fill([&](int I) { return (I % 16) + N < 16 ? I + N : -1; });
        return fmt("row_shl:%d", N);
    }
    if (Ctrl >= 0x111 && Ctrl <= 0x11f) {
        Fill([&](int I) { return (I % 16) - N >= 0 ? I - N : -1; });
        return fmt("row_shr:%d", N);
    }
    if (Ctrl >= 0x121 && Ctrl <= 0x12f) {
        Fill([&](int I) { return (I & ~15) | (((I % 16) - N + 16) % 16); });
        return fmt("row_ror:%d", N);
    }
    if (Ctrl == 0x140) {
        Fill([&](int I) { return (I & ~15) | (15 - I % 16); });
        return "row_mirror";
    }
    if (Ctrl == 0x141) {
        Fill([&](int I) { return (I & ~7) | (7 - I % 8); });
        return "row_half_mirror";
    }
    if (C.Gfx9) {
        switch (Ctrl) {
        case 0x130: Fill([&](int I) { return I + 1 < (int)W ? I + 1 : -1; }); return "wave_shl:1";
        case 0x134: Fill([&](int I) { return (I + 1) % (int)W; }); return "wave_rol:1";
        case 0x138: Fill([&](int I) { return I - 1; }); return "wave_shr:1";
        case 0x13c: Fill([&](int I) { return (I + (int)W - 1) % (int)W; }); return "wave_ror:1";
        case 0x142: Fill([&](int I) { return I >= 16 ? (I / 16) * 16 - 1 : -1; }); return "row_bcast:15";
        case 0x143: Fill([&](int I) { return I >= 32 ? 31 : -1; }); return "row_bcast:31";
        default: break;
        }
        if (C.NewBcast && Ctrl >= 0x150 && Ctrl <= 0x15f) {
            Fill([&](int I) { return (I & ~15) | N; });
            return fmt("row_newbcast:%d", N);
        }
    } else {
        if (Ctrl >= 0x150 && Ctrl <= 0x15f) {
            Fill([&](int I) { return (I & ~15) | N; });
            return fmt("row_share:%d", N);
        }
        if (Ctrl >= 0x160 && Ctrl <= 0x16f) {
            Fill([&](int I) { return (I & ~15) | ((I % 16) ^ N); });
            return fmt("row_xmask:%d", N);
        }
    }
    return "";
}

// ds_swizzle offset -> the assembler's swizzle(...) text and lane map.
std::string decodeSwizzle(Ctx &C, int64_t Off, XInfo &X) {
    unsigned W = C.Wave;
    if ((Off & 0xff00) == 0x8000) { // QUAD_PERM
        int S[4] = {(int)(Off & 3), (int)(Off >> 2 & 3), (int)(Off >> 4 & 3), (int)(Off >> 6 & 3)};
        X.HasMap = true;
        for (unsigned I = 0; I < W; I++)
            X.Map[I] = (int)(I & ~3u) | S[I & 3];
        return fmt("swizzle(QUAD_PERM,%d,%d,%d,%d)", S[0], S[1], S[2], S[3]);
    }
    if ((Off & 0x8000) == 0) { // BITMASK_PERM over groups of 32 lanes
        int And = (int)(Off & 0x1f), Or = (int)(Off >> 5 & 0x1f), Xor = (int)(Off >> 10 & 0x1f);
        X.HasMap = true;
        for (unsigned I = 0; I < W; I++)
            X.Map[I] = (int)(I & ~31u) | ((((int)I & 31 & And) | Or) ^ Xor);
        if (And == 0x1f && Or == 0 && Xor && !(Xor & (Xor - 1)))
            return fmt("swizzle(SWAP,%d)", Xor);
        if (And == 0x1f && Or == 0 && Xor && !((Xor + 1) & Xor))
            return fmt("swizzle(REVERSE,%d)", Xor + 1);
        int Group = 32;
        while (Group > 1 && (And & (Group - 1)))
            Group >>= 1;
        if (Xor == 0 && Group > 1 && (And | (Group - 1)) == 0x1f && Or < Group)
            return fmt("swizzle(BROADCAST,%d,%d)", Group, Or);
        char Mask[6];
        for (int B = 4; B >= 0; B--) {
            int A = And >> B & 1, O = Or >> B & 1, Xb = Xor >> B & 1;
            Mask[4 - B] = !A ? (O ^ Xb ? '1' : '0') : (O ? (Xb ? '0' : '1') : (Xb ? 'i' : 'p'));
        }
        Mask[5] = 0;
        return fmt("swizzle(BITMASK_PERM,\"%s\")", Mask);
    }
    if ((Off & 0xf000) == 0xe000)
        return fmt("swizzle(FFT,%d)", (int)(Off & 0x1f));
    if ((Off & 0xf000) == 0xc000)
        return fmt("swizzle(ROTATE,%d,%d)", (int)(Off >> 10 & 1), (int)(Off >> 5 & 0x1f));
    return "";
}

// A lane map in words: lane:L, lane^k, lane+k, ...
std::string describeMap(const int *M, unsigned W) {
    bool Const = true;
    for (unsigned I = 1; I < W; I++)
        Const &= M[I] == M[0];
    if (Const)
        return fmt("lane:%d", M[0]);
    int K = M[0] ^ 0;
    bool Xor = true;
    for (unsigned I = 0; I < W; I++)
        Xor &= M[I] == (int)(I ^ (unsigned)K);
    if (Xor)
        return fmt("lane^%d", K);
    int D = M[0];
    bool Rot = true;
    for (unsigned I = 0; I < W; I++)
        Rot &= M[I] == (int)((I + (unsigned)D) % W);
    if (Rot)
        return fmt("lane+%d (mod %u)", D, W);
    for (int Dir : {1, -1})
        for (int S = 1; S < (int)W; S++) {
            bool Ok = true;
            for (int I = 0; I < (int)W && Ok; I++) {
                int T = I + Dir * S;
                Ok = M[I] == (T >= 0 && T < (int)W ? T : I);
            }
            if (Ok)
                return Dir > 0 ? fmt("lane+%d (lanes past the end read their own)", S)
                               : fmt("lane-%d (lanes before 0 read their own)", S);
        }
    std::string S = "map:[";
    for (unsigned I = 0; I < W; I++)
        S += (I ? "," : "") + std::to_string(M[I]);
    return S + "]";
}

// ---- reductions ----------------------------------------------------------------------------

struct Step {
    unsigned X;            // index into Infos / facts.cross_lane
    const Instruction *B;  // the combine
    const Value *In;       // its input (peeled)
    const char *Op;
    bool Idem;
};

const char *combineOp(const Instruction *B, bool &Idem) {
    Idem = false;
    if (const auto *BO = dyn_cast<BinaryOperator>(B)) {
        switch (BO->getOpcode()) {
        case Instruction::FAdd:
        case Instruction::Add: return "add";
        case Instruction::FMul:
        case Instruction::Mul: return "mul";
        case Instruction::And: Idem = true; return "and";
        case Instruction::Or: Idem = true; return "or";
        case Instruction::Xor: return "xor";
        default: return nullptr;
        }
    }
    if (const auto *II = dyn_cast<IntrinsicInst>(B)) {
        Idem = true;
        switch (II->getIntrinsicID()) {
        case Intrinsic::maxnum:
        case Intrinsic::maximum:
        case Intrinsic::smax: return "max";
        case Intrinsic::minnum:
        case Intrinsic::minimum:
        case Intrinsic::smin: return "min";
        case Intrinsic::umax: return "umax";
        case Intrinsic::umin: return "umin";
        default: break;
        }
        StringRef N = II->getCalledFunction()->getName();
        if (N.starts_with("llvm.maximumnum"))
            return "max";
        if (N.starts_with("llvm.minimumnum"))
            return "min";
    }
    Idem = false;
    return nullptr;
}

// Is constant V the identity of Op on values of type Ty?
bool isIdentity(const Value *V, const char *Op, Type *Ty) {
    V = peel(V);
    APInt Bits;
    if (const auto *CI = dyn_cast<ConstantInt>(V))
        Bits = CI->getValue();
    else if (const auto *CF = dyn_cast<ConstantFP>(V))
        Bits = CF->getValueAPF().bitcastToAPInt();
    else
        return false;
    unsigned W = Bits.getBitWidth();
    std::string O = Op;
    if (Ty->isFloatingPointTy()) {
        if (Ty->getPrimitiveSizeInBits() != W)
            return false;
        APFloat F(Ty->getFltSemantics(), Bits);
        if (O == "add")
            return F.isZero();
        if (O == "mul")
            return F.isExactlyValue(1.0);
        if (O == "max")
            return F.isInfinity() && F.isNegative();
        if (O == "min")
            return F.isInfinity() && !F.isNegative();
        return false;
    }
    if (O == "add" || O == "or" || O == "xor" || O == "umax")
        return Bits.isZero();
    if (O == "mul")
        return Bits.isOne();
    if (O == "and" || O == "umin")
        return Bits.isAllOnes();
    if (O == "max")
        return Bits.isMinSignedValue();
    if (O == "min")
        return Bits.isMaxSignedValue();
    return false;
}

// Users of V, looking through bitcasts.
void peeledUsers(const Value *V, SmallVectorImpl<const Instruction *> &Out, int Depth = 0) {
    for (const User *U : V->users()) {
        const auto *I = dyn_cast<Instruction>(U);
        if (!I)
            continue;
        if (isa<BitCastInst>(I) && Depth < 3)
            peeledUsers(I, Out, Depth + 1);
        else
            Out.push_back(I);
    }
}

// Eight lanes' counts (one byte each) as one word.
uint64_t loadWord(const uint8_t *P) {
    uint64_t W;
    std::memcpy(&W, P, 8);
    return W;
}

void storeWord(uint8_t *P, uint64_t W) {
    std::memcpy(P, &W, 8);
}

// Each byte's low seven bits, and its top bit.
constexpr uint64_t ByteLow = 0x7f7f7f7f7f7f7f7full, ByteHigh = 0x8080808080808080ull;

// The bytes of A + B, each saturating at 255.
uint64_t addSaturating(uint64_t A, uint64_t B) {
    uint64_t Sum = ((A & ByteLow) + (B & ByteLow)) ^ ((A ^ B) & ByteHigh); // each byte modulo 256
    uint64_t Carry = ((A & B) | ((A | B) & ~Sum)) & ByteHigh; // the bytes that overflowed
    return Sum | (Carry >> 7) * 0xff;
}

// 0x80 in each nonzero byte of X, 0 in the others.
uint64_t nonzeroBytes(uint64_t X) {
    return (X | ((X & ByteLow) + ByteLow)) & ByteHigh;
}

class Idioms {
  public:
    Idioms(Ctx &C, std::vector<XInfo> &Infos) : C(C), Infos(Infos) {}

    void run() {
        findSteps();
        findVectorSteps();
        buildChains();
        blockReduces();
        broadcasts();
    }

  private:
    void findSteps() {
        for (unsigned XI = 0; XI < Infos.size(); XI++) {
            XInfo &X = Infos[XI];
            if (!X.HasMap || !X.Src)
                continue;
            const Value *In = peel(X.Src);
            SmallVector<const Instruction *, 4> Users;
            peeledUsers(X.CB, Users);
            for (const Instruction *B : Users) {
                bool Idem;
                const char *Op = combineOp(B, Idem);
                if (!Op || B->getNumOperands() < 2)
                    continue;
                const Value *A0 = peel(B->getOperand(0)), *A1 = peel(B->getOperand(1));
                const Value *Moved = X.CB;
                if ((A0 == In && A1 == Moved) || (A1 == In && A0 == Moved))
                    Steps.push_back({XI, B, In, Op, Idem});
            }
        }
    }

    // A vectorized step (SLP after unrolling, as ck_tile's warp reduction of
    // several values becomes): op(v, m) on <N x T> where element i of m is a
    // move of element i of v, every move with the same lane map. The moves of
    // elements 1..N-1 become the step's Extra members.
    void findVectorSteps() {
        for (unsigned XI = 0; XI < Infos.size(); XI++) {
            const XInfo &X = Infos[XI];
            const auto *EE = X.HasMap && X.Src ? dyn_cast<ExtractElementInst>(X.Src) : nullptr;
            const auto *Idx = EE ? dyn_cast<ConstantInt>(EE->getIndexOperand()) : nullptr;
            if (!Idx || !Idx->isZero())
                continue;
            const Value *Vec = peel(EE->getVectorOperand());
            // the insertelement chain that gathers the moves
            const InsertElementInst *IE = nullptr;
            for (const User *U : X.CB->users())
                if (const auto *I = dyn_cast<InsertElementInst>(U))
                    if (I->getOperand(1) == X.CB && isa<UndefValue>(I->getOperand(0)))
                        IE = I;
            auto *VT = IE ? dyn_cast<FixedVectorType>(IE->getType()) : nullptr;
            if (!VT || VT->getNumElements() > 64)
                continue;
            unsigned N = VT->getNumElements();
            std::vector<int> Elem(N, -1);
            bool Ok = true;
            const InsertElementInst *Last = nullptr;
            for (const InsertElementInst *Cur = IE; Cur && Ok;) {
                const auto *CI = dyn_cast<ConstantInt>(Cur->getOperand(2));
                auto It = XIndex.find(Cur->getOperand(1));
                Ok = CI && CI->getZExtValue() < N && It != XIndex.end();
                if (!Ok)
                    break;
                unsigned J = (unsigned)CI->getZExtValue();
                const XInfo &XJ = Infos[It->second];
                const auto *EJ = XJ.Src ? dyn_cast<ExtractElementInst>(XJ.Src) : nullptr;
                const auto *IJ = EJ ? dyn_cast<ConstantInt>(EJ->getIndexOperand()) : nullptr;
                Ok = XJ.HasMap && !memcmp(XJ.Map, X.Map, sizeof X.Map) && IJ &&
                     IJ->getZExtValue() == J && peel(EJ->getVectorOperand()) == Vec;
                Elem[J] = (int)It->second;
                Last = Cur;
                const InsertElementInst *Next = nullptr;
                for (const User *U : Cur->users())
                    if (const auto *I = dyn_cast<InsertElementInst>(U))
                        if (I->getOperand(0) == Cur)
                            Next = I;
                Cur = Next;
            }
            for (unsigned J = 0; J < N && Ok; J++)
                Ok = Elem[J] >= 0;
            if (!Ok || !Last)
                continue;
            SmallVector<const Instruction *, 4> Users;
            peeledUsers(Last, Users);
            for (const Instruction *B : Users) {
                bool Idem;
                const char *Op = combineOp(B, Idem);
                if (!Op || B->getNumOperands() < 2)
                    continue;
                const Value *A0 = peel(B->getOperand(0)), *A1 = peel(B->getOperand(1));
                if (!((A0 == Vec && A1 == Last) || (A1 == Vec && A0 == Last)))
                    continue;
                Steps.push_back({XI, B, Vec, Op, Idem});
                std::vector<unsigned> More;
                for (unsigned J = 1; J < N; J++)
                    More.push_back((unsigned)Elem[J]);
                Extra[(unsigned)Steps.size() - 1] = More;
            }
        }
    }

    // Bad[L]: lane L holds an undefined value (it read the `old` of a DPP
    // move whose old is poison, as a bound_ctrl:0 row_bcast leaves row 0;
    // such lanes are never the result, and whatever reads them is bad too).
    bool simulate(const std::vector<unsigned> &Chain, std::vector<std::array<uint8_t, 64>> &Cnt,
                  bool Idem, std::vector<bool> &Bad) {
        unsigned W = C.Wave;
        Cnt.assign(W, {});
        Bad.assign(W, false);
        for (unsigned L = 0; L < W; L++)
            Cnt[L][L] = 1;
        for (unsigned SI : Chain) {
            const Step &S = Steps[SI];
            const XInfo &X = Infos[S.X];
            Type *Ty = S.B->getType()->getScalarType();
            std::vector<std::array<uint8_t, 64>> Next = Cnt;
            std::vector<bool> NextBad = Bad;
            for (unsigned L = 0; L < W; L++) {
                int M = X.Map[L];
                const std::array<uint8_t, 64> *Moved = nullptr;
                if (M >= 0) {
                    Moved = &Cnt[M];
                    if (Bad[M])
                        NextBad[L] = true;
                } else if (M == OLD) {
                    if (!X.Old)
                        return false;
                    if (isa<UndefValue>(peel(X.Old)) && peel(X.Old) != S.In) {
                        NextBad[L] = true;
                        continue;
                    }
                    if (peel(X.Old) == S.In)
                        Moved = &Cnt[L];
                    else if (!isIdentity(X.Old, S.Op, Ty))
                        return false;
                } else { // reads 0
                    std::string O = S.Op;
                    if (O != "add" && O != "or" && O != "xor" && O != "umax")
                        return false;
                }
                if (!Moved)
                    continue;
                // all 64 entries (those of lanes >= W stay 0): counts saturate
                // at 255, an idempotent operation's are 0 or 1
                uint8_t *To = Next[L].data();
                const uint8_t *From = Moved->data();
                if (Idem) // counts of 0 or 1: a bytewise or
                    for (unsigned J = 0; J < 64; J += 8)
                        storeWord(To + J, loadWord(To + J) | loadWord(From + J));
                else
                    for (unsigned J = 0; J < 64; J += 8)
                        storeWord(To + J, addSaturating(loadWord(To + J), loadWord(From + J)));
            }
            Cnt.swap(Next);
            Bad.swap(NextBad);
        }
        return true;
    }

    void buildChains() {
        std::vector<bool> Used(Steps.size(), false);
        DenseMap<const Value *, unsigned> ByOut;
        for (unsigned I = 0; I < Steps.size(); I++)
            ByOut[Steps[I].B] = I;
        for (unsigned H = 0; H < Steps.size(); H++) {
            if (Used[H] || ByOut.count(Steps[H].In))
                continue; // not a head
            std::vector<unsigned> Chain{H};
            Used[H] = true;
            for (bool More = true; More;) {
                More = false;
                for (unsigned N = 0; N < Steps.size(); N++)
                    if (!Used[N] && Steps[N].In == Steps[Chain.back()].B &&
                        !strcmp(Steps[N].Op, Steps[H].Op)) {
                        Chain.push_back(N);
                        Used[N] = true;
                        More = true;
                        break;
                    }
            }
            record(Chain);
        }
    }

    void record(const std::vector<unsigned> &Chain) {
        const Step &First = Steps[Chain.front()], &Last = Steps[Chain.back()];
        std::vector<std::array<uint8_t, 64>> Cnt;
        std::vector<bool> Bad;
        bool Sim = simulate(Chain, Cnt, First.Idem, Bad);
        unsigned W = C.Wave;
        auto Complete = [&](unsigned L) {
            if (Bad[L])
                return false;
            for (unsigned J = 0; J < W; J++)
                if (Cnt[L][J] != 1)
                    return false;
            return true;
        };
        unsigned BestLanes = 0;
        int ResultLane = -2; // -2 none, -1 all
        bool Uniform = true; // every lane combines the same number of lanes, each once
        if (Sim) {
            bool All = true;
            for (unsigned L = 0; L < W; L++) {
                unsigned Lanes = 0;
                if (Bad[L]) {
                    All = false;
                    continue;
                }
                for (unsigned J = 0; J < 64; J += 8) { // lanes >= W count 0
                    uint64_t X = loadWord(Cnt[L].data() + J);
                    Lanes += (unsigned)__builtin_popcountll(nonzeroBytes(X));
                    Uniform &= (X & 0xfefefefefefefefeull) == 0; // every count <= 1
                }
                BestLanes = std::max(BestLanes, Lanes);
                Uniform &= L == 0 || Lanes == BestLanes;
                All &= Complete(L);
            }
            if (All)
                ResultLane = -1;
        }
        // a readlane of the last step's value broadcasts one lane's result
        int Bcast = -1;
        int BcastX = -1;
        SmallVector<const Instruction *, 4> Users;
        peeledUsers(Last.B, Users);
        for (const Instruction *U : Users) {
            if (amdgcnName(U) != "readlane")
                continue;
            int64_t L = constArg(cast<CallBase>(U), 1);
            auto It = XIndex.find(U);
            if (L < 0 || L >= (int64_t)W || It == XIndex.end())
                continue;
            if (Sim && ResultLane == -2 && Complete((unsigned)L))
                ResultLane = (int)L;
            if (Sim && (ResultLane == (int)L || ResultLane == -1)) {
                Bcast = (int)L;
                BcastX = (int)It->second;
                break;
            }
        }
        if (Sim && ResultLane == -2)
            for (unsigned L = W; L-- > 0;)
                if (Complete(L)) {
                    ResultLane = (int)L;
                    break;
                }
        if (Sim && ResultLane == -2 && !Uniform) {
            C.note("a cross-lane chain combines lanes unevenly (some lanes more than once): its "
                   "steps are listed without an idiom");
            return;
        }
        if (!Sim) { // what the chain computes is not known: no idiom, say so
            C.note("a cross-lane reduction-like chain could not be simulated (a lane map that is "
                   "not known, or an `old` value that is not the operation's identity); its "
                   "steps are listed without an idiom");
            return;
        }
        kw_ir_idiom *D = KW_PUSH(C.A, C.Out->idioms);
        if (!D) {
            C.OOM = true;
            return;
        }
        int Id = (int)C.Out->idioms.n - 1;
        bool Whole = ResultLane != -2;
        D->kind = Whole ? KW_IR_WAVE_REDUCE : KW_IR_PARTIAL_REDUCE;
        D->op = First.Op;
        std::string Ty;
        raw_string_ostream OS(Ty);
        First.B->getType()->print(OS);
        D->type = C.str(OS.str());
        std::string Via;
        for (unsigned SI : Chain) {
            const char *K = kw_ir_xop_name(C.Out->cross_lane.v[Steps[SI].X].op);
            if (Via.find(K) == std::string::npos)
                Via += (Via.empty() ? "" : "+") + std::string(K);
        }
        D->via = C.str(Via);
        D->steps = (unsigned)Chain.size();
        D->lanes = Whole ? W : BestLanes;
        D->result_lane = Whole ? ResultLane : -1;
        D->broadcast_lane = Bcast;
        D->parts[0] = D->parts[1] = -1;
        D->loop = C.loopOf(First.B);
        D->loc = location(C, Infos[First.X].CB);
        for (unsigned SI : Chain) {
            addMember(D, Id, Steps[SI].X);
            auto E = Extra.find(SI);
            if (E != Extra.end())
                for (unsigned XJ : E->second)
                    addMember(D, Id, XJ);
        }
        if (BcastX >= 0)
            addMember(D, Id, (unsigned)BcastX);
        Wave W2{Id, Bcast >= 0 ? (const Value *)Infos[BcastX].CB : (const Value *)Last.B, First.In,
                Whole};
        Waves.push_back(W2);
    }

    void addMember(kw_ir_idiom *D, int Id, unsigned X) {
        unsigned *Slot = KW_PUSH(C.A, D->cross_lane);
        if (!Slot) {
            C.OOM = true;
            return;
        }
        *Slot = X;
        C.Out->cross_lane.v[X].idiom = Id;
    }

    // Does V (a chain's input) come from load L (directly, via a phi or select)?
    static bool fedBy(const Value *V, const Value *L) {
        V = peel(V);
        if (V == L)
            return true;
        if (const auto *P = dyn_cast<PHINode>(V)) {
            for (const Value *In : P->incoming_values())
                if (peel(In) == L)
                    return true;
        }
        if (const auto *S = dyn_cast<SelectInst>(V))
            return peel(S->getTrueValue()) == L || peel(S->getFalseValue()) == L;
        return false;
    }

    void blockReduces() {
        for (size_t WI = 0; WI < Waves.size(); WI++) {
            const Wave &W1 = Waves[WI];
            if (!W1.Whole)
                continue;
            for (const User *U : W1.Result->users()) {
                const auto *St = dyn_cast<StoreInst>(U);
                if (!St && isa<BitCastInst>(U))
                    for (const User *U2 : U->users())
                        if ((St = dyn_cast<StoreInst>(U2)))
                            break;
                if (!St || St->getPointerAddressSpace() != 3)
                    continue;
                const Value *Obj = getUnderlyingObject(St->getPointerOperand(), 8);
                for (size_t WJ = 0; WJ < Waves.size(); WJ++) {
                    if (WJ == WI)
                        continue;
                    const Wave &W2 = Waves[WJ];
                    const kw_ir_idiom &D1 = C.Out->idioms.v[W1.Idiom], &D2 = C.Out->idioms.v[W2.Idiom];
                    if (strcmp(D1.op, D2.op) ||
                        (D2.kind != KW_IR_WAVE_REDUCE && D2.kind != KW_IR_PARTIAL_REDUCE))
                        continue;
                    // an LDS load of the same variable feeding W2
                    const LoadInst *Ld = nullptr;
                    for (const User *OU : Obj->users()) {
                        SmallVector<const Value *, 8> Work{OU};
                        while (!Work.empty() && !Ld) {
                            const Value *P = Work.pop_back_val();
                            if (const auto *L = dyn_cast<LoadInst>(P)) {
                                if (fedBy(W2.Input, L))
                                    Ld = L;
                            } else if (isa<GEPOperator>(P) || isa<BitCastOperator>(P) ||
                                       isa<AddrSpaceCastOperator>(P)) {
                                for (const User *PU : P->users())
                                    Work.push_back(PU);
                            }
                        }
                        if (Ld)
                            break;
                    }
                    if (!Ld)
                        continue;
                    // a partial reduction of the partials (over groups of N lanes)
                    // completes the block when each group loads N different slots
                    if (D2.kind == KW_IR_PARTIAL_REDUCE && !distinctSlots(Ld, D2.lanes))
                        continue;
                    unsigned Barriers = 0;
                    for (const CallBase *B : C.SBarriers)
                        if (C.DT.dominates(cast<Instruction>(B), Ld) &&
                            !C.DT.dominates(cast<Instruction>(B), St) &&
                            isPotentiallyReachable(St, B, nullptr, &C.DT, &C.LI))
                            Barriers++;
                    if (!Barriers)
                        continue;
                    emitBlock(WI, WJ, Barriers, Obj, St);
                    goto next_wave;
                }
            }
        next_wave:;
        }
    }

    // Each group of N consecutive lanes of load Ld reads N different addresses.
    bool distinctSlots(const LoadInst *Ld, unsigned N) {
        if (!N || N > C.Wave)
            return false;
        LaneOffsets LO = laneOffsetsPtr(C, Ld->getPointerOperand(), Ld);
        if (!LO.Ok)
            return false;
        for (unsigned G = 0; G + N <= C.Wave; G += N) {
            std::vector<int64_t> Seen;
            for (unsigned L = G; L < G + N; L++) {
                if (std::find(Seen.begin(), Seen.end(), LO.Off[L]) != Seen.end())
                    return false;
                Seen.push_back(LO.Off[L]);
            }
        }
        return true;
    }

    int64_t objectBytes(const Value *Obj) {
        const auto *GV = dyn_cast<GlobalVariable>(Obj);
        if (!GV || !GV->getValueType()->isSized())
            return -1;
        return (int64_t)C.DL.getTypeAllocSize(GV->getValueType());
    }

    void emitBlock(size_t WI, size_t WJ, unsigned Barriers, const Value *Obj, const Instruction *At) {
        kw_ir_idiom *D = KW_PUSH(C.A, C.Out->idioms);
        if (!D) {
            C.OOM = true;
            return;
        }
        const kw_ir_idiom &D1 = C.Out->idioms.v[Waves[WI].Idiom];
        const kw_ir_idiom &D2 = C.Out->idioms.v[Waves[WJ].Idiom];
        D->kind = KW_IR_BLOCK_REDUCE;
        D->op = D1.op;
        D->type = D1.type;
        D->via = C.str(std::string(D1.via) + "+lds");
        D->steps = D1.steps + D2.steps;
        D->lanes = 0;
        D->result_lane = D2.result_lane;
        D->broadcast_lane = D2.broadcast_lane;
        D->parts[0] = Waves[WI].Idiom;
        D->parts[1] = Waves[WJ].Idiom;
        D->barriers = Barriers;
        D->lds_object = Obj->hasName() ? C.str(demangleSymbol(Obj->getName().str())) : nullptr;
        D->lds_bytes = objectBytes(Obj);
        if (D2.kind == KW_IR_PARTIAL_REDUCE)
            D->lanes = D2.lanes; // partials combined in the second part
        D->loop = C.loopOf(At);
        D->loc = D1.loc;
    }

    void broadcasts() {
        for (unsigned XI = 0; XI < Infos.size(); XI++) {
            kw_ir_xlane &X = C.Out->cross_lane.v[XI];
            if (X.idiom >= 0 || (X.op != KW_IR_X_READLANE && X.op != KW_IR_X_READFIRSTLANE &&
                                 X.op != KW_IR_X_WAVE_REDUCE))
                continue;
            kw_ir_idiom *D = KW_PUSH(C.A, C.Out->idioms);
            if (!D) {
                C.OOM = true;
                return;
            }
            int Id = (int)C.Out->idioms.n - 1;
            D->parts[0] = D->parts[1] = -1;
            D->loop = X.loop;
            D->loc = X.loc;
            D->result_lane = -1;
            D->broadcast_lane = -1;
            if (X.op == KW_IR_X_WAVE_REDUCE) {
                StringRef N = amdgcnName(Infos[XI].CB);
                N.consume_front("wave.reduce.");
                D->kind = KW_IR_WAVE_REDUCE;
                D->op = C.str(N);
                D->via = "intrinsic";
                D->steps = 1;
                D->lanes = C.Wave;
            } else {
                D->kind = KW_IR_BROADCAST;
                D->via = kw_ir_xop_name(X.op);
                D->steps = 1;
                D->lanes = C.Wave;
                int64_t L = X.op == KW_IR_X_READLANE ? constArg(Infos[XI].CB, 1) : -1;
                D->broadcast_lane = (int)L;
            }
            if (Infos[XI].Src) {
                std::string Ty;
                raw_string_ostream OS(Ty);
                Infos[XI].Src->getType()->print(OS);
                D->type = C.str(OS.str());
            }
            addMember(D, Id, XI);
        }
    }

  public:
    DenseMap<const Value *, unsigned> XIndex;

  private:
    struct Wave {
        int Idiom;
        const Value *Result; // what holds the reduced value (the readlane or last combine)
        const Value *Input;
        bool Whole;
    };
    Ctx &C;
    std::vector<XInfo> &Infos;
    std::vector<Step> Steps;
    std::map<unsigned, std::vector<unsigned>> Extra; // a vector step's other moves
    std::vector<Wave> Waves;
};

bool classify(Ctx &C, const CallBase *CB, kw_ir_xlane &X, XInfo &Info) {
    StringRef N = amdgcnName(CB);
    if (N.empty())
        return false;
    X.row_mask = X.bank_mask = X.bound_ctrl = -1;
    X.control_raw = -1;
    std::string Control, Why;
    if (N == "update.dpp" || N == "mov.dpp") {
        bool Upd = N == "update.dpp";
        unsigned B = Upd ? 1 : 0;
        X.op = KW_IR_X_DPP;
        Info.Src = CB->getArgOperand(B);
        Info.Old = Upd ? CB->getArgOperand(0) : nullptr;
        int64_t Ctrl = constArg(CB, B + 1);
        X.row_mask = (int)constArg(CB, B + 2);
        X.bank_mask = (int)constArg(CB, B + 3);
        X.bound_ctrl = (int)constArg(CB, B + 4);
        X.control_raw = Ctrl;
        if (Ctrl >= 0 && X.row_mask >= 0 && X.bank_mask >= 0 && X.bound_ctrl >= 0)
            Control = decodeDpp(C, Ctrl, X.row_mask, X.bank_mask, X.bound_ctrl != 0, Info);
        if (Control.empty())
            Why = Ctrl < 0 ? "the control is not a constant" : "a DPP control this target does not define";
    } else if (N == "mov.dpp8") {
        X.op = KW_IR_X_DPP8;
        Info.Src = CB->getArgOperand(0);
        int64_t Sel = constArg(CB, 1);
        X.control_raw = Sel;
        if (Sel >= 0) {
            int S[8];
            for (int I = 0; I < 8; I++)
                S[I] = (int)(Sel >> (3 * I) & 7);
            Info.HasMap = true;
            for (unsigned I = 0; I < C.Wave; I++)
                Info.Map[I] = (int)(I & ~7u) | S[I & 7];
            Control = fmt("dpp8:[%d,%d,%d,%d,%d,%d,%d,%d]", S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7]);
        }
    } else if (N == "ds.swizzle") {
        X.op = KW_IR_X_SWIZZLE;
        Info.Src = CB->getArgOperand(0);
        int64_t Off = constArg(CB, 1);
        X.control_raw = Off;
        if (Off >= 0)
            Control = decodeSwizzle(C, Off, Info);
        if (Control.empty())
            Why = "a swizzle offset that is not a constant";
    } else if (N == "ds.bpermute" || N == "ds.permute" || N == "ds.bpermute.fi.b32") {
        bool Push = N == "ds.permute";
        X.op = Push ? KW_IR_X_PERMUTE : KW_IR_X_BPERMUTE;
        Info.Src = CB->getArgOperand(1);
        const Value *Addr = CB->getArgOperand(0);
        int M0[64], M1[64];
        bool Ok = true;
        for (unsigned W = 0; W < 2 && Ok; W++)
            for (unsigned L = 0; L < C.Wave && Ok; L++) {
                int64_t V;
                Ok = evalLane(C, Addr, W, L, V);
                (W ? M1 : M0)[L] = (int)((V >> 2) & (C.Wave - 1));
            }
        if (Ok && !memcmp(M0, M1, sizeof(int) * C.Wave)) {
            if (Push) { // lane i sends to M0[i]: invert
                for (unsigned L = 0; L < C.Wave; L++)
                    Info.Map[L] = ZERO;
                for (unsigned L = 0; L < C.Wave; L++)
                    Info.Map[M0[L]] = (int)L;
                Control = "to " + describeMap(M0, C.Wave);
            } else {
                memcpy(Info.Map, M0, sizeof(int) * C.Wave);
                Control = describeMap(M0, C.Wave);
            }
            Info.HasMap = true;
        } else {
            Why = "the lane address is not computable lane by lane";
        }
    } else if (N == "readlane") {
        X.op = KW_IR_X_READLANE;
        Info.Src = CB->getArgOperand(0);
        int64_t L = constArg(CB, 1);
        X.control_raw = L;
        if (L >= 0)
            Control = fmt("lane:%lld", (long long)L);
        else
            Why = "the lane is not a constant";
    } else if (N == "readfirstlane") {
        X.op = KW_IR_X_READFIRSTLANE;
        Info.Src = CB->getArgOperand(0);
        Control = "first active lane";
    } else if (N == "writelane") {
        X.op = KW_IR_X_WRITELANE;
        Info.Src = CB->getArgOperand(0);
        int64_t L = constArg(CB, 1);
        X.control_raw = L;
        if (L >= 0)
            Control = fmt("lane:%lld", (long long)L);
        else
            Why = "the lane is not a constant";
    } else if (N.starts_with("permlane")) {
        X.op = KW_IR_X_PERMLANE;
        Info.Src = CB->arg_size() ? CB->getArgOperand(0) : nullptr;
        if (N == "permlane64") {
            Info.HasMap = C.Wave == 64;
            for (unsigned I = 0; I < C.Wave; I++)
                Info.Map[I] = (int)(I ^ 32);
            Control = "swap halves (lane^32)";
        } else if (N == "permlane16" || N == "permlanex16") {
            Info.Src = CB->getArgOperand(1);
            int64_t Lo = constArg(CB, 2), Hi = constArg(CB, 3);
            if (Lo >= 0 && Hi >= 0)
                Control = fmt("%s sel:0x%08llx,0x%08llx", N == "permlane16" ? "within 16" : "across 16",
                              (unsigned long long)Lo, (unsigned long long)Hi);
            else
                Why = "lane selects that are not constants";
        } else if (N == "permlane16.swap" || N == "permlane32.swap") {
            Control = N == "permlane16.swap" ? "swap odd rows of 16 with the even rows of the other operand"
                                             : "swap the upper 32 lanes of the first operand with the "
                                               "lower 32 of the second";
        } else {
            Control = N.str();
        }
    } else if (N == "ballot" || N == "inverse.ballot") {
        X.op = KW_IR_X_BALLOT;
        Info.Src = CB->getArgOperand(0);
        Control = N.str();
    } else if (N == "icmp" || N == "fcmp") {
        X.op = KW_IR_X_ICMP;
        Info.Src = CB->getArgOperand(0);
        int64_t P = constArg(CB, 2);
        X.control_raw = P;
        if (P >= 0)
            Control = (N + " " + CmpInst::getPredicateName((CmpInst::Predicate)P)).str();
    } else if (N.starts_with("wave.reduce.")) {
        X.op = KW_IR_X_WAVE_REDUCE;
        Info.Src = CB->getArgOperand(0);
        Control = N.drop_front(strlen("wave.reduce.")).str();
    } else if (N == "wwm" || N == "strict.wwm" || N == "set.inactive" || N == "strict.wqm") {
        X.op = KW_IR_X_WWM;
        Info.Src = CB->getArgOperand(0);
        Control = N.str();
    } else {
        return false;
    }
    X.intrinsic = C.str(CB->getCalledFunction()->getName());
    X.control = Control.empty() ? nullptr : C.str(Control);
    X.control_why = Control.empty() ? C.str(Why.empty() ? "not decoded" : Why) : nullptr;
    X.bits = Info.Src && Info.Src->getType()->isSized()
                 ? (unsigned)C.DL.getTypeSizeInBits(Info.Src->getType())
                 : 0;
    X.idiom = -1;
    X.loop = C.loopOf(CB);
    X.loc = location(C, CB);
    return true;
}

} // namespace

const char *reductionOp(const Instruction *B, bool &Idem) {
    return combineOp(B, Idem);
}

void collectCrossLane(Ctx &C) {
    std::vector<XInfo> Infos;
    DenseMap<const Value *, unsigned> Index;
    for (const BasicBlock *BB : C.RPO) {
        for (const Instruction &I : *BB) {
            const auto *CB = dyn_cast<CallBase>(&I);
            if (!CB)
                continue;
            kw_ir_xlane X{};
            XInfo Info;
            Info.CB = CB;
            if (!classify(C, CB, X, Info))
                continue;
            kw_ir_xlane *Slot = KW_PUSH(C.A, C.Out->cross_lane);
            if (!Slot) {
                C.OOM = true;
                return;
            }
            *Slot = X;
            Index[CB] = (unsigned)Infos.size();
            Infos.push_back(Info);
        }
    }
    Idioms D(C, Infos);
    D.XIndex = Index;
    D.run();
    if (!C.OOM)
        collectLdsTrees(C);
}

} // namespace kwir
