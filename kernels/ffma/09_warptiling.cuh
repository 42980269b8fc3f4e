// =====================================================================================
// Rung 09 — Warp tiling                                                  (CUDA-core track)
// BUILDS ON: 08_autotuned. The lesson is the diff:
//   git diff --no-index kernels/ffma/08_autotuned.cuh kernels/ffma/09_warptiling.cuh
// WHAT CHANGED: the block tile is split into warp tiles of WM x WN; inside a warp tile the 32
//   lanes form a (WM/TM) x (WN/TN) grid and each lane owns TM x TN outputs in groups of 4
//   spaced WM/(TM/4) rows and WN/(TN/4) columns apart. Rung 08 spreads a warp over 2 rows x 16
//   columns of thread tiles, a 16 x 128 strip of C. The tiles are tuned again.
// WHY: per k, a warp reads the A values of its rows and the B values of its columns from shared
//   memory. A 16 x 128 strip needs 16 + 128 = 144 distinct floats per k for 2048 FFMAs; a
//   32 x 64 warp tile needs 96 for the same FFMAs, and the warp's loads become broadcasts
//   within each 8-lane phase: fewer shared-memory wavefronts for the same work.
// PREDICTION: shared-memory wavefronts per FFMA fall ~1/3 (ncu); +5% over rung 08 once tuned.
// SHOW IT: build/release/bench/sgemm_bench --kernel 8,9 --sizes 1024,4096
//   python3 tools/sass_report.py --diff 8 9 && python3 tools/ncu_profile.py --kernel 9
// PAGE: docs/rungs/09_warptiling.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung09 {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
struct Tile {
  static constexpr int kWarps = (BM / WM) * (BN / WN);    // one warp per WM x WN warp tile
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kMinBlocks = kThreads <= 256 ? 2 : 1;  // blocks per SM the registers must allow
  static constexpr int kLaneCols = WN / TN;               // lanes across a warp tile
  static constexpr int kVecA = BK / kVecWidth;           // float4s per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;           // float4s per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;        // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / kVecB;        // B-tile rows copied per pass
  static constexpr int kGroupsM = TM / kVecWidth;        // a lane's rows: groups of 4, WM/kGroupsM apart
  static constexpr int kGroupsN = TN / kVecWidth;        // a lane's columns: groups of 4, WN/kGroupsN apart
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert(WM % TM == 0 && WN % TN == 0, "thread tiles must tile the warp tile exactly");
  static_assert((WM / TM) * (WN / TN) == kWarpSize, "a warp tile holds exactly 32 thread tiles");
  static_assert(BK % kVecWidth == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "128-bit accesses need BK, TM and TN to be multiples of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % kVecB == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
  static_assert(BM % kWarpSize == 0 && BK <= kWarpSize, "the swizzle permutes within 32-float chunks of a row");
};

// Column of element (k, m) in the swizzled, transposed A tile. m and the result are floats;
// multiples of 4 map to multiples of 4, so float4 groups stay whole.
template <int BK>
__device__ __forceinline__ int swizzle_a(int k, int m) {
  return m ^ ((k / kVecWidth) * (kWarpSize * kVecWidth / BK));
}

// One K-slab of the A and B tiles into shared memory, four floats per global load (one 128-bit
// access with kVec); A is stored transposed and swizzled. kGuard: check bounds and fill zeros.
template <bool kVec, int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[BK][BM], float (&sB)[BK][BN], const float* A, int lda,
                                          const float* B, int ldb, int M, int N, int K, int m0, int n0, int k0) {
  using T = Tile<BM, BN, BK, WM, WN, TM, TN>;
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
  const int bRow = threadIdx.x / T::kVecB, bCol = threadIdx.x % T::kVecB * kVecWidth;
#pragma unroll
  for (int r = 0; r < BM; r += T::kRowsA) {
    const int gRow = m0 + aRow + r;
    const float* src = A + int64_t(gRow) * lda;
    const float4 v = kGuard ? load4_or_zero<kVec>(src, k0 + aCol, K, gRow < M) : load4<kVec>(src + k0 + aCol);
    const int m = swizzle_a<BK>(aCol, aRow + r);  // the same for the 4 k of this float4
    sA[aCol + 0][m] = v.x;
    sA[aCol + 1][m] = v.y;
    sA[aCol + 2][m] = v.z;
    sA[aCol + 3][m] = v.w;
  }
#pragma unroll
  for (int r = 0; r < BK; r += T::kRowsB) {
    const int gRow = k0 + bRow + r;
    const float* src = B + int64_t(gRow) * ldb;
    store_f4(&sB[bRow + r][bCol],
             kGuard ? load4_or_zero<kVec>(src, n0 + bCol, N, gRow < K) : load4<kVec>(src + n0 + bCol));
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__device__ __forceinline__ void compute_slab(const float (&sA)[BK][BM], const float (&sB)[BK][BN],
                                             float (&rAcc)[TM][TN], int aBase, int bBase) {
  using T = Tile<BM, BN, BK, WM, WN, TM, TN>;
  float rA[TM], rB[TN];  // this k's A values (rows aBase + g*WM/kGroupsM + v) and B values
#pragma unroll
  for (int k = 0; k < BK; ++k) {
#pragma unroll
    for (int g = 0; g < T::kGroupsM; ++g) {
      const float4 v = load_f4(&sA[k][swizzle_a<BK>(k, aBase + g * (WM / T::kGroupsM))]);
      rA[g * 4] = v.x, rA[g * 4 + 1] = v.y, rA[g * 4 + 2] = v.z, rA[g * 4 + 3] = v.w;
    }
#pragma unroll
    for (int g = 0; g < T::kGroupsN; ++g) {
      const float4 v = load_f4(&sB[k][bBase + g * (WN / T::kGroupsN)]);
      rB[g * 4] = v.x, rB[g * 4 + 1] = v.y, rB[g * 4 + 2] = v.z, rB[g * 4 + 3] = v.w;
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
  }
}

template <bool kVec, int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[BK][BM], float (&sB)[BK][BN], int M, int N, int K,
                                           float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  using T = Tile<BM, BN, BK, WM, WN, TM, TN>;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;  // this warp's tile
  const int aBase = wm0 + lane / T::kLaneCols * kVecWidth;              // this lane's first row
  const int bBase = wn0 + lane % T::kLaneCols * kVecWidth;              // and first column
  float rAcc[TM][TN] = {};  // [TM][TN]: rows aBase + g*WM/kGroupsM + v, columns likewise
  int k0 = 0;
  for (; k0 + BK <= K; k0 += BK) {
    load_slab<kVec, BM, BN, BK, WM, WN, TM, TN, kGuard>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, WM, WN, TM, TN>(sA, sB, rAcc, aBase, bBase);
    __syncthreads();
  }
  if (k0 < K) {  // the K tail
    load_slab<kVec, BM, BN, BK, WM, WN, TM, TN, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, WM, WN, TM, TN>(sA, sB, rAcc, aBase, bBase);
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + aBase + i / kVecWidth * (WM / T::kGroupsM) + i % kVecWidth;
    if (kGuard && row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const int col = n0 + bBase + j / kVecWidth * (WN / T::kGroupsN);
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      store4_epilogue<kVec>(C + int64_t(row) * ldc + col, kGuard ? N - col : kVecWidth, alpha, acc, beta);
    }
  }
}

template <bool kVec, int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, TM, TN>::kThreads, Tile<BM, BN, BK, WM, WN, TM, TN>::kMinBlocks)
sgemm_09_warptiling(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                            float beta, float* C, int ldc) {
  __shared__ __align__(16) float sA[BK][BM];  // [BK][BM]: a tile of A, transposed and XOR-swizzled
  __shared__ __align__(16) float sB[BK][BN];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior) block_tile<kVec, BM, BN, BK, WM, WN, TM, TN, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<kVec, BM, BN, BK, WM, WN, TM, TN, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung09

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung09 {

using Tuned = tuned::Rung09;
constexpr int kBM = Tuned::BM, kBN = Tuned::BN, kBK = Tuned::BK, kWM = Tuned::WM, kWN = Tuned::WN,
              kTM = Tuned::TM, kTN = Tuned::TN;
using Config = Tile<kBM, kBN, kBK, kWM, kWN, kTM, kTN>;

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kWM) +
         "x" + std::to_string(kWN) + "_" + std::to_string(kTM) + "x" + std::to_string(kTN);
}

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM));
  // 128-bit accesses where every row of A, B and C is 16-byte aligned, 32-bit ones otherwise.
  auto kernel = vec4_ok(a, nullptr) ? sgemm_09_warptiling<true, kBM, kBN, kBK, kWM, kWN, kTM, kTN>
                                    : sgemm_09_warptiling<false, kBM, kBN, kBK, kWM, kWN, kTM, kTN>;
  kernel<<<grid, Config::kThreads, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung09
#endif
