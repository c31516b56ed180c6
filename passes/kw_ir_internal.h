// kw_ir_internal.h: what the C++ files of the IR analysis share: the
// per-function context (analyses, the arena, the facts being filled), the
// symbolic expressions (kw_ir_sym.cpp), the derivative of a SCEV with respect
// to a work-item/work-group id (kw_ir_deriv.cpp), lane-by-lane evaluation
// (kw_ir_lanes.cpp), and one entry per kind of fact.
#ifndef KW_IR_INTERNAL_H
#define KW_IR_INTERNAL_H

#include "passes/kw_ir_facts.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace llvm {
class BasicBlock;
class CallBase;
class DataLayout;
class DILocation;
class DominatorTree;
class Function;
class Instruction;
class Loop;
class LoopInfo;
class SCEV;
class ScalarEvolution;
class Value;
} // namespace llvm

namespace kwir {

// ---- symbolic expressions (kw_ir_sym.cpp) ------------------------------------------------

// An expression of the facts grammar, hash-consed by its printed text. Built
// only through ExprPool, which simplifies as it builds (constant folding,
// like terms, floor(a/c)+1 -> ceil((a+1)/c)). nullptr means "not expressible";
// ExprPool::why() says why.
struct Expr {
    enum Kind { Num, Sym, Add, Mul, Div, Floor, Ceil, Min, Max, Log2 } k;
    explicit Expr(Kind K) : k(K) {}
    int64_t num = 0;
    std::string sym;
    std::vector<const Expr *> ops;
    std::string text; // printed form, also the identity
};

class ExprPool {
  public:
    const Expr *num(int64_t v);
    const Expr *sym(llvm::StringRef name);
    const Expr *add(std::vector<const Expr *> ops);
    const Expr *add(const Expr *a, const Expr *b);
    const Expr *sub(const Expr *a, const Expr *b);
    const Expr *mul(std::vector<const Expr *> ops);
    const Expr *mul(const Expr *a, const Expr *b) { return mul(std::vector<const Expr *>{a, b}); }
    const Expr *div(const Expr *a, const Expr *b);
    const Expr *floor(const Expr *a);
    const Expr *ceil(const Expr *a);
    const Expr *min(std::vector<const Expr *> ops);
    const Expr *max(std::vector<const Expr *> ops);
    // log2(a), real-valued; floor(log2(2^k)) folds to k. For halving loops.
    const Expr *log2(const Expr *a);
    // max(a, b) that picks one side when their difference is a constant.
    const Expr *maxOf(const Expr *a, const Expr *b);
    // The same, also picking a side when the difference is a sum of terms of
    // one sign, every symbol and function being taken as >= 0 (work per
    // thread: the terms are loop trip counts).
    const Expr *maxOfNonneg(const Expr *a, const Expr *b);
    // The general ways of add() and maxOfNonneg(), which their short ways
    // (a sum and a constant; the signs of the terms of a - b) must agree with
    // (tests/passes/pool_test.cpp checks it).
    const Expr *addTerms(std::vector<const Expr *> ops);
    const Expr *maxOfNonnegBySub(const Expr *a, const Expr *b);
    const std::string &why() const { return Why; }
    void setWhy(std::string W) { Why = std::move(W); }

  private:
    const Expr *make(Expr E);
    const Expr *minmax(Expr::Kind K, std::vector<const Expr *> ops);
    // add() of a term or sum and a constant, the short way; false where
    // add()'s general pass must decide.
    bool addConst(const Expr *A, int64_t B, const Expr *&R);
    const Expr *sumOf(std::vector<const Expr *> terms, int64_t c); // add()'s last step
    std::deque<Expr> Store;
    llvm::DenseMap<llvm::StringRef, const Expr *> ByText;
    std::unordered_map<int64_t, const Expr *> Nums; // num()'s nodes by value
    std::string Why;
};

// ---- per-function context ------------------------------------------------------------------

// Variables a derivative or a dependence is taken with respect to.
enum Var { TidX = 0, TidY, TidZ, GidX, GidY, GidZ, NumVars };

struct Ctx {
    const llvm::Function &F;
    const llvm::DataLayout &DL;
    llvm::DominatorTree &DT;
    llvm::LoopInfo &LI;
    llvm::ScalarEvolution &SE;
    kw_arena *A;
    kw_ir_kernel_facts *Out;
    unsigned Wave = 64;
    unsigned MaxTidX = 1024; // from !range on workitem.id.x, else 1024
    bool Gfx9 = true;        // DPP controls of GFX9 (row_bcast, wave_shr)
    bool NewBcast = false;   // gfx90a / gfx94x / gfx95x: row_newbcast
    bool OOM = false;
    // The launch's block size when the kernel fixes it (reqd_work_group_size,
    // or amdgpu-flat-work-group-size N,N on a kernel using only x): per
    // dimension, 0 unknown. BlockDimDone: computed (constBlockDim()).
    int64_t BlockDim[3] = {0, 0, 0};
    bool BlockDimDone = false;
    ExprPool Pool;
    llvm::DenseMap<const llvm::Loop *, int> LoopId;
    std::vector<const Expr *> LoopTrips; // per loop id: trip count, nullptr unknown
    // per inline asm call: flops, transcendental (-1 unknown)
    llvm::DenseMap<const llvm::Instruction *, std::pair<int64_t, int64_t>> AsmWork;
    llvm::DenseMap<const llvm::BasicBlock *, unsigned> BlockIndex; // reverse post-order
    std::vector<const llvm::BasicBlock *> RPO;
    std::vector<const llvm::SCEV *> AccessPtr; // per access: address SCEV (nullptr unknown)
    std::vector<const llvm::Instruction *> AccessInst; // per access: its instruction
    std::vector<const llvm::CallBase *> SBarriers;
    std::vector<const llvm::BasicBlock *> Returns; // reachable blocks ending in ret
    // activeLanes() per block: lane mask and wave index
    llvm::DenseMap<const llvm::BasicBlock *, std::pair<uint64_t, unsigned>> ActiveLanes;
    // What the lane evaluator (kw_ir_lanes.cpp) makes of a value, the same in
    // every lane: found once per value, not once per lane.
    llvm::DenseMap<const llvm::Value *, uint8_t> LaneKinds;
    llvm::DenseSet<const llvm::Value *> Dep[NumVars];
    bool DepDone[NumVars] = {};

    Ctx(const llvm::Function &F, const llvm::DataLayout &DL, llvm::DominatorTree &DT,
        llvm::LoopInfo &LI, llvm::ScalarEvolution &SE, kw_arena *A, kw_ir_kernel_facts *Out)
        : F(F), DL(DL), DT(DT), LI(LI), SE(SE), A(A), Out(Out) {}

    const char *str(llvm::StringRef S);  // arena copy (OOM recorded)
    void note(const std::string &S);     // one line in facts.notes (deduplicated)
    int loopOf(const llvm::Instruction *I) const;
    bool conditional(const llvm::Instruction *I) const;
    kw_ir_val val(const Expr *E, const char *WhyIfNull); // Expr -> kw_ir_val
    kw_ir_val unknown(const std::string &Why);
    kw_ir_val number(int64_t N);
};

// ---- intrinsics --------------------------------------------------------------------------

// "update.dpp" for a call of llvm.amdgcn.update.dpp.i32; "" for anything else.
llvm::StringRef amdgcnName(const llvm::CallBase *CB);
llvm::StringRef amdgcnName(const llvm::Value *V);
// The variable a value is (workitem.id.x -> TidX, ...), or -1.
int varOf(const llvm::Value *V);
// mbcnt.hi(-1, mbcnt.lo(-1, 0)) (or mbcnt.lo(-1, 0) on wave32): the lane id.
bool isLaneId(const Ctx &C, const llvm::Value *V);
// Strips bitcasts (and no-op casts) backwards.
const llvm::Value *peel(const llvm::Value *V);

// ---- dependence and derivatives (kw_ir_deriv.cpp) ----------------------------------------

// Does V depend on variable X (data flow through instructions, calls included,
// except results that are wave-uniform by construction: readfirstlane,
// readlane, ballot)? The lane id (mbcnt) counts as workitem.id.x.
bool dependsOn(Ctx &C, const llvm::Value *V, Var X);
bool scevDependsOn(Ctx &C, const llvm::SCEV *S, Var X);
// d S / d X as a SCEV of S's effective integer type; nullptr (and Why) when S
// is not affine in X.
const llvm::SCEV *derive(Ctx &C, const llvm::SCEV *S, Var X, std::string &Why);
// SCEV -> expression over $N, threadIdx, blockIdx, blockDim, gridDim.
const Expr *scevToExpr(Ctx &C, const llvm::SCEV *S, std::string &Why);
// A symbol for a launch quantity the value is, or "" (implicit-argument loads).
std::string launchSymbol(Ctx &C, const llvm::Value *V);
// blockDim.<D> when the kernel fixes it at compile time, else 0.
int64_t constBlockDim(Ctx &C, unsigned D);

// ---- lane-by-lane evaluation (kw_ir_lanes.cpp) -----------------------------------------

// Per-lane byte offsets of one wave's accesses, relative to a base that is the
// same for all its lanes.
struct LaneOffsets {
    bool Ok = false;
    uint64_t Active = 0; // bit i: lane i executes
    int64_t Off[64] = {};
    std::string Why;
};
// The value of V (an integer) in lane `Lane` of wave `WaveIdx` (workitem.id.x =
// WaveIdx*Wave + Lane; y, z shared by the wave). False when not computable.
bool evalLane(Ctx &C, const llvm::Value *V, unsigned WaveIdx, unsigned Lane, int64_t &Out);
// Lanes of the busiest wave that reach I (conditions on the lane id of the
// branches dominating it); Mask and the wave index chosen.
void activeLanes(Ctx &C, const llvm::Instruction *I, uint64_t &Mask, unsigned &WaveIdx);
// Per-lane offsets of address P (pointer) or of an integer offset V.
LaneOffsets laneOffsetsPtr(Ctx &C, const llvm::Value *P, const llvm::Instruction *At);
LaneOffsets laneOffsetsInt(Ctx &C, const llvm::Value *V, const llvm::Instruction *At);
// Footprint of one wave: lanes in Active at offsets Off, each moving Bytes.
void footprint(const LaneOffsets &L, int64_t Bytes, unsigned Wave, int64_t &WaveBytes,
               int64_t &Seg64, int64_t &Seg128);
int ldsConflictDegree(const LaneOffsets &L, int64_t Bytes, unsigned Wave);

// ---- the fact collectors -----------------------------------------------------------------

kw_ir_loc location(Ctx &C, const llvm::Instruction *I);
kw_ir_loc locationOf(Ctx &C, const llvm::DILocation *DL);
void collectLoops(Ctx &C);
void collectAccesses(Ctx &C);
void groupAccesses(Ctx &C);
void collectCrossLane(Ctx &C); // also runs collectLdsTrees
void collectLdsTrees(Ctx &C);  // kw_ir_ldstree.cpp
// The reduction operation ("add", "max", ...) an instruction combines with, or
// nullptr; Idem: the operation is idempotent (max, and, ...).
const char *reductionOp(const llvm::Instruction *B, bool &Idem);
void collectWork(Ctx &C);

} // namespace kwir

#endif
