// kw_reduce.h: wave- and block-wide reductions for the kwalk test corpus.
//
// wave_reduce: a wave64 reduction on DPP. Within each row of 16 lanes,
// row_shr:1/2/4/8 steps leave the row's total in its lane 15; row_bcast:15 and
// row_bcast:31 then carry rows 0+1 into row 1 and rows 0..2 into row 3, so
// lane 63 ends with the whole wave's value, which v_readlane broadcasts. Lanes
// a DPP step cannot source from read the operator's identity (bound_ctrl off,
// old = identity), so any associative Op with an identity works.
//
// block_reduce: wave_reduce per wave, one value per wave through LDS, then
// every wave reduces the BlockSize/64 partials again: all threads return the
// block's result.
#pragma once

#include "kw_hip_common.h"

namespace kw {

template <typename T>
struct SumOp {
  static constexpr T identity() { return T(0); }
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

template <typename T>
struct MaxOp;
template <>
struct MaxOp<float> {
  static constexpr float identity() { return -__builtin_inff(); }
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

template <typename T>
struct MinOp;
template <>
struct MinOp<int> {
  static constexpr int identity() { return 0x7fffffff; }
  __device__ __forceinline__ int operator()(int a, int b) const { return a < b ? a : b; }
};

// DPP controls (GFX9 encoding).
enum DppCtrl : int {
  kDppRowShr1 = 0x111,
  kDppRowShr2 = 0x112,
  kDppRowShr4 = 0x114,
  kDppRowShr8 = 0x118,
  kDppRowBcast15 = 0x142,
  kDppRowBcast31 = 0x143,
};

// One DPP step: v op (v moved by Ctrl), with identity where no source lane.
template <int Ctrl, int RowMask, typename T, typename Op>
__device__ __forceinline__ T dpp_step(T v, Op op) {
  static_assert(sizeof(T) == 4, "DPP moves 32-bit values");
  const int moved = __builtin_amdgcn_update_dpp(__builtin_bit_cast(int, Op::identity()),
                                                __builtin_bit_cast(int, v), Ctrl, RowMask,
                                                0xf, false);
  return op(v, __builtin_bit_cast(T, moved));
}

/// Reduces v over the 64 lanes of the wave; every lane gets the result.
template <typename T, typename Op>
__device__ __forceinline__ T wave_reduce(T v, Op op) {
  v = dpp_step<kDppRowShr1, 0xf>(v, op);
  v = dpp_step<kDppRowShr2, 0xf>(v, op);
  v = dpp_step<kDppRowShr4, 0xf>(v, op);
  v = dpp_step<kDppRowShr8, 0xf>(v, op);
  v = dpp_step<kDppRowBcast15, 0xa>(v, op);
  v = dpp_step<kDppRowBcast31, 0xc>(v, op);
  return __builtin_bit_cast(T, __builtin_amdgcn_readlane(__builtin_bit_cast(int, v), 63));
}

/// Reduces v over the BlockSize threads of the block; every thread gets the
/// result. Two levels: wave_reduce, then the per-wave partials through LDS.
template <typename T, typename Op, int BlockSize>
__device__ __forceinline__ T block_reduce(T v, Op op) {
  static_assert(BlockSize % kWaveSize == 0 && BlockSize <= 1024, "whole waves");
  constexpr int kWaves = BlockSize / kWaveSize;
  __shared__ T partial[kWaves];
  const int lane = threadIdx.x % kWaveSize;
  const int wave = threadIdx.x / kWaveSize;
  v = wave_reduce(v, op);
  if constexpr (kWaves == 1) {
    return v;
  } else {
    if (lane == 0) partial[wave] = v;
    __syncthreads();
    T w = lane < kWaves ? partial[lane] : Op::identity();
    w = wave_reduce(w, op);
    __syncthreads();  // partial[] may be reused by the next call
    return w;
  }
}

}  // namespace kw
