// =====================================================================================
// Rung 22 — Tensor cores, 3xTF32 (FP32-accurate)                       (tensor-core track)
// BUILDS ON: 21_mma_tf32. The lesson is the diff:
//   git diff --no-index kernels/tensor/21_mma_tf32.cuh kernels/tensor/22_mma_3xtf32.cuh
// WHAT CHANGED: every fragment value x is split into big = tf32(x) and small = tf32(x - big),
//   and each MMA tile runs three mma.sync: small_a*big_b, big_a*small_b, then big_a*big_b (the
//   small terms first); small*small (at most 2^-22 of the product) is dropped. The three MMAs
//   of a k step start from zero and their sum is added to the accumulator with an FADD: the
//   tensor core's FP32 accumulation truncates, and over all of K that error would outgrow
//   FP32's. Warp tiles shrink to 64x32 (8 warps) so the split fragments fit in registers.
// WHY: rung 21's TF32 products lose 13 mantissa bits (operands rounded to 2^-11, not FP32's
//   2^-24). big + small keeps 22 bits of each operand, so the three products together are as
//   accurate as an FP32 product to within 3 * 2^-22, for 3x the tensor-core work.
// PREDICTION: norm-wise error no larger than cuBLAS SGEMM's; speed about a third of rung 21's,
//   less the split and the FADDs: around 1.2-1.5x cuBLAS SGEMM at 4096^3. Its lesson is
//   accuracy, bought with speed: it is slower than rung 21 by design.
// SHOW IT: build/release/bench/sgemm_bench --kernel 21,22 --accuracy-sweep
//   python3 tools/sass_report.py --diff 21 22 && python3 tools/ncu_profile.py --kernel 22
// PAGE: docs/rungs/22_mma_3xtf32.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/tf32.cuh"

namespace sgemm::rung22 {

constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 8;  // the mma.sync.m16n8k8 tile

template <int BM, int BN, int BK, int WM, int WN, int Stages>
struct Tile {
  static constexpr int kWarps = (BM / WM) * (BN / WN);    // one warp per WM x WN warp tile
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kTilesM = WM / kMmaM;              // MMA tiles down a warp tile
  static constexpr int kTilesN = WN / kMmaN;              // and across
  static constexpr int kPadA = kVecWidth;                 // row padding: fragment reads of A hit 32 banks
  static constexpr int kPadB = 2 * kVecWidth;             // and of B
  static constexpr int kLdA = BK + kPadA;                 // floats per row of the A tile
  static constexpr int kLdB = BN + kPadB;                 // floats per row of the B tile
  static constexpr int kVecA = BK / kVecWidth;            // 16-byte chunks per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;            // and of the B tile
  static constexpr int kChunksA = BM * kVecA / kThreads;  // chunks each thread copies per slab
  static constexpr int kChunksB = BK * kVecB / kThreads;
  static constexpr int kStageFloats = BM * kLdA + BK * kLdB;  // one stage: the A and the B tile
  static constexpr int kSmemBytes = Stages * kStageFloats * int(sizeof(float));
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert(WM % kMmaM == 0 && WN % kMmaN == 0 && BK % kMmaK == 0, "MMA tiles must tile the warp tile and the slab");
  static_assert(BM * kVecA % kThreads == 0 && BK * kVecB % kThreads == 0, "the threads must copy each tile in whole passes");
  static_assert(kLdA % kWarpSize == kVecWidth && kLdB % kWarpSize == 2 * kVecWidth,
                "the padding must put the 8 rows (4 rows) of a fragment read on different banks");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
};

// The shared-memory buffers of one pipeline stage.
template <int BM, int BN, int BK, typename T>
struct Stage {
  float (*a)[T::kLdA];  // [BM][BK + kPadA]: a tile of A, row-major
  float (*b)[T::kLdB];  // [BK][BN + kPadB]: a tile of B, row-major
};

template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ Stage<BM, BN, BK, T> stage_at(float* smem, int s) {
  float* base = smem + s * T::kStageFloats;
  return {reinterpret_cast<float (*)[T::kLdA]>(base), reinterpret_cast<float (*)[T::kLdB]>(base + BM * T::kLdA)};
}

// Issue the cp.async copies of the A and B slabs starting at k0 into their stage. kGuard: each
// 16-byte chunk reads only the bytes inside the operand and zero-fills the rest. kVec: one 16-byte
// copy per chunk (rows 16-byte aligned), otherwise four 4-byte copies.
template <bool kVec, typename T, int BM, int BN, int BK, bool kGuard>
__device__ __forceinline__ void load_slab_async(Stage<BM, BN, BK, T> st, const float* A, int lda, const float* B,
                                                int ldb, int M, int N, int K, int m0, int n0, int k0) {
#pragma unroll
  for (int i = 0; i < T::kChunksA; ++i) {
    const int c = threadIdx.x + i * T::kThreads;
    const int row = c / T::kVecA, col = c % T::kVecA * kVecWidth;
    const int gRow = m0 + row, gCol = k0 + col;
    cp_async_16_zfill<kVec>(&st.a[row][col], A + int64_t(gRow) * lda + gCol,
                            kGuard ? floats_inside(gCol, K, gRow < M) : kVecWidth, A);
  }
#pragma unroll
  for (int i = 0; i < T::kChunksB; ++i) {
    const int c = threadIdx.x + i * T::kThreads;
    const int row = c / T::kVecB, col = c % T::kVecB * kVecWidth;
    const int gRow = k0 + row, gCol = n0 + col;
    cp_async_16_zfill<kVec>(&st.b[row][col], B + int64_t(gRow) * ldb + gCol,
                            kGuard ? floats_inside(gCol, N, gRow < K) : kVecWidth, B);
  }
}

// One slab on the tensor cores: for each 8-wide k step, read this lane's A and B fragments,
// split each value into TF32 big and small parts and run the warp tile's kTilesM x kTilesN
// MMA tiles three times: small_a*big_b, big_a*small_b, big_a*big_b.
template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ void compute_slab(Stage<BM, BN, BK, T> st, float (&rAcc)[T::kTilesM][T::kTilesN][4],
                                             int wm0, int wn0, int g, int q) {
#pragma unroll
  for (int kk = 0; kk < BK; kk += kMmaK) {
    float rA[T::kTilesM][4], rAs[T::kTilesM][4];  // [kTilesM][4]: big and small A fragments
#pragma unroll
    for (int i = 0; i < T::kTilesM; ++i) {
      const int r = wm0 + i * kMmaM + g;
      split_tf32(st.a[r][kk + q], rA[i][0], rAs[i][0]);
      split_tf32(st.a[r + kMmaM / 2][kk + q], rA[i][1], rAs[i][1]);
      split_tf32(st.a[r][kk + q + kMmaK / 2], rA[i][2], rAs[i][2]);
      split_tf32(st.a[r + kMmaM / 2][kk + q + kMmaK / 2], rA[i][3], rAs[i][3]);
    }
#pragma unroll
    for (int j = 0; j < T::kTilesN; ++j) {
      const int c = wn0 + j * kMmaN + g;
      float rB[2], rBs[2];  // [2]: big and small B fragments
      split_tf32(st.b[kk + q][c], rB[0], rBs[0]);
      split_tf32(st.b[kk + q + kMmaK / 2][c], rB[1], rBs[1]);
#pragma unroll
      for (int i = 0; i < T::kTilesM; ++i) {
        // The tensor core's FP32 accumulation truncates: let it sum only this k step's three
        // products (from zero), and add that to rAcc with a rounding FADD.
        float rStep[4] = {};  // [4]: this k step's C fragment
        mma_tf32_16x8x8(rStep, rAs[i], rB);
        mma_tf32_16x8x8(rStep, rA[i], rBs);
        mma_tf32_16x8x8(rStep, rA[i], rB);
#pragma unroll
        for (int v = 0; v < 4; ++v) rAcc[i][j][v] += rStep[v];
      }
    }
  }
}

template <bool kVec, int BM, int BN, int BK, int WM, int WN, int Stages, bool kGuard>
__device__ __forceinline__ void block_tile(float* smem, int M, int N, int K, float alpha, const float* A, int lda,
                                           const float* B, int ldb, float beta, float* C, int ldc) {
  using T = Tile<BM, BN, BK, WM, WN, Stages>;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;  // this warp's tile
  const int g = lane / 4, q = lane % 4;  // the lane's group and position in the MMA fragments
  float rAcc[T::kTilesM][T::kTilesN][4] = {};  // [kTilesM][kTilesN][4]: one C fragment per MMA tile
  const int kTiles = ceil_div(K, BK);
  auto stage = [&](int tile) { return stage_at<T, BM, BN, BK>(smem, tile % Stages); };
  // Edge blocks and the K tail check bounds; interior full slabs do not.
  auto issue = [&](int tile) {  // the cp.async of one slab, as one commit group
    if (tile < kTiles) {
      if (kGuard || (tile + 1) * BK > K)
        load_slab_async<kVec, T, BM, BN, BK, true>(stage(tile), A, lda, B, ldb, M, N, K, m0, n0, tile * BK);
      else
        load_slab_async<kVec, T, BM, BN, BK, false>(stage(tile), A, lda, B, ldb, M, N, K, m0, n0, tile * BK);
    }
    cp_async_commit();  // empty groups keep the wait count uniform
  };

  for (int s = 0; s < Stages - 1; ++s) issue(s);
  for (int kt = 0; kt < kTiles; ++kt) {
    cp_async_wait<Stages - 2>();  // slab kt has landed (this thread's copies) ...
    __syncthreads();              // ... everyone's, and everyone is done with slab kt-1's stage
    issue(kt + Stages - 1);       // into the stage slab kt-1 used
    compute_slab<T, BM, BN, BK>(stage(kt), rAcc, wm0, wn0, g, q);
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < T::kTilesM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // fragment rows g and g + 8
      const int row = m0 + wm0 + i * kMmaM + g + h * (kMmaM / 2);
      if (kGuard && row >= M) continue;
#pragma unroll
      for (int j = 0; j < T::kTilesN; ++j) {
        const int col = n0 + wn0 + j * kMmaN + 2 * q;
        store2_epilogue<kVec>(C + int64_t(row) * ldc + col, kGuard ? N - col : 2, alpha, rAcc[i][j][2 * h],
                        rAcc[i][j][2 * h + 1], beta);
      }
    }
}

template <bool kVec, int BM, int BN, int BK, int WM, int WN, int Stages>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, Stages>::kThreads)
sgemm_22_mma_3xtf32(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                  float* C, int ldc) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A tile [BM][BK+4], B tile [BK][BN+8])
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior)
    block_tile<kVec, BM, BN, BK, WM, WN, Stages, false>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    block_tile<kVec, BM, BN, BK, WM, WN, Stages, true>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung22

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung22 {

constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 32, kStages = 3;
using Config = Tile<kBM, kBN, kBK, kWM, kWN, kStages>;

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kWM) +
         "x" + std::to_string(kWN) + "_m16n8k8_s" + std::to_string(kStages);
}

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  // 16-byte copies where every row of A, B and C is 16-byte aligned, 4-byte ones otherwise.
  auto kernel = vec4_ok(a, nullptr) ? sgemm_22_mma_3xtf32<true, kBM, kBN, kBK, kWM, kWN, kStages>
                                    : sgemm_22_mma_3xtf32<false, kBM, kBN, kBK, kWM, kWN, kStages>;
  if (const Status s = prepare(kernel, Config::kThreads, Config::kSmemBytes, nullptr, why); s != Status::kOk) return s;
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM));
  kernel<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                                  a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung22
#endif
