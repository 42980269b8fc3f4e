// =====================================================================================
// Rung 07 — Bank-conflict-free shared memory                             (CUDA-core track)
// BUILDS ON: 06_vectorized. The lesson is the diff:
//   git diff --no-index kernels/ffma/06_vectorized.cuh kernels/ffma/07_bank_conflict_free.cuh
// WHAT CHANGED: (1) the transposed A tile is stored XOR-swizzled: element (k, m) lives at column
//   m ^ ((k/4) * 128/BK) of row k. (2) A thread's 8 rows (and 8 columns) are no longer
//   contiguous: they are two groups of 4, BM/2 (BN/2) apart, so the 8 threads of one
//   shared-memory phase read 8 consecutive float4s. C is written in the same groups.
// WHY: in rung 06 the 32 threads of a warp store their transposed A values into only 16 banks
//   (two k-rows of 128 floats land on the same bank: 2-way conflicts), and the LDS.128 of B by
//   8 threads 32 bytes apart span 256 bytes (2 wavefronts instead of 1). The swizzle spreads
//   the stores over all 32 banks and, a permutation inside each 128-byte row chunk, keeps
//   every float4 read contiguous.
// PREDICTION: shared-memory bank conflicts (ld and st) drop to zero in ncu; +10-20%.
// SHOW IT: build/release/bench/sgemm_bench --kernel 6,7
//   python3 tools/sass_report.py --diff 6 7 && python3 tools/ncu_profile.py --kernel 7
// PAGE: docs/rungs/07_bank_conflict_free.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung07 {

template <int BM, int BN, int BK, int TM, int TN>
struct Tile {
  static constexpr int kThreads = (BM / TM) * (BN / TN);  // one thread per TM x TN block of C
  static constexpr int kMinBlocks = kThreads <= 256 ? 2 : 1;  // blocks per SM the registers must allow
  static constexpr int kVecA = BK / kVecWidth;           // float4s per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;           // float4s per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;        // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / kVecB;        // B-tile rows copied per pass
  static constexpr int kGroupsM = TM / kVecWidth;        // a thread's rows: groups of 4, BM/kGroupsM apart
  static constexpr int kGroupsN = TN / kVecWidth;        // a thread's columns: groups of 4, BN/kGroupsN apart
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must tile the block tile exactly");
  static_assert(BK % kVecWidth == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "128-bit accesses need BK, TM and TN to be multiples of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % kVecB == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
  static_assert(BM % kWarpSize == 0 && BK <= kWarpSize, "the swizzle permutes within 32-float chunks of a row");
  static_assert(kThreads % kWarpSize == 0, "whole warps only");
};

constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
using Config = Tile<kBM, kBN, kBK, kTM, kTN>;

// Column of element (k, m) in the swizzled, transposed A tile. m and the result are floats;
// multiples of 4 map to multiples of 4, so float4 groups stay whole.
template <int BK>
__device__ __forceinline__ int swizzle_a(int k, int m) {
  return m ^ ((k / kVecWidth) * (kWarpSize * kVecWidth / BK));
}

// One K-slab of the A and B tiles into shared memory, four floats per global load (one 128-bit
// access with kVec); A is stored transposed and swizzled. kGuard: check bounds and fill zeros.
template <bool kVec, int BM, int BN, int BK, int TM, int TN, bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[BK][BM], float (&sB)[BK][BN], const float* A, int lda,
                                          const float* B, int ldb, int M, int N, int K, int m0, int n0, int k0) {
  using T = Tile<BM, BN, BK, TM, TN>;
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

template <int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void compute_slab(const float (&sA)[BK][BM], const float (&sB)[BK][BN],
                                             float (&rAcc)[TM][TN], int tRow, int tCol) {
  using T = Tile<BM, BN, BK, TM, TN>;
  float rA[TM], rB[TN];  // this k's A values (rows g*BM/kGroupsM + tRow*4 + v) and B values
#pragma unroll
  for (int k = 0; k < BK; ++k) {
#pragma unroll
    for (int g = 0; g < T::kGroupsM; ++g) {
      const float4 v = load_f4(&sA[k][swizzle_a<BK>(k, g * (BM / T::kGroupsM) + tRow * kVecWidth)]);
      rA[g * 4] = v.x, rA[g * 4 + 1] = v.y, rA[g * 4 + 2] = v.z, rA[g * 4 + 3] = v.w;
    }
#pragma unroll
    for (int g = 0; g < T::kGroupsN; ++g) {
      const float4 v = load_f4(&sB[k][g * (BN / T::kGroupsN) + tCol * kVecWidth]);
      rB[g * 4] = v.x, rB[g * 4 + 1] = v.y, rB[g * 4 + 2] = v.z, rB[g * 4 + 3] = v.w;
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
  }
}

template <bool kVec, int BM, int BN, int BK, int TM, int TN, bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[BK][BM], float (&sB)[BK][BN], int M, int N, int K,
                                           float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  using T = Tile<BM, BN, BK, TM, TN>;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
  float rAcc[TM][TN] = {};  // [TM][TN]: rows g*BM/kGroupsM + tRow*4 + v, columns likewise
  int k0 = 0;
  for (; k0 + BK <= K; k0 += BK) {
    load_slab<kVec, BM, BN, BK, TM, TN, kGuard>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM, TN>(sA, sB, rAcc, tRow, tCol);
    __syncthreads();
  }
  if (k0 < K) {  // the K tail
    load_slab<kVec, BM, BN, BK, TM, TN, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM, TN>(sA, sB, rAcc, tRow, tCol);
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + i / kVecWidth * (BM / T::kGroupsM) + tRow * kVecWidth + i % kVecWidth;
    if (kGuard && row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const int col = n0 + j / kVecWidth * (BN / T::kGroupsN) + tCol * kVecWidth;
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      store4_epilogue<kVec>(C + int64_t(row) * ldc + col, kGuard ? N - col : kVecWidth, alpha, acc, beta);
    }
  }
}

template <bool kVec, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(Tile<BM, BN, BK, TM, TN>::kThreads, Tile<BM, BN, BK, TM, TN>::kMinBlocks)
sgemm_07_bank_conflict_free(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                            float beta, float* C, int ldc) {
  __shared__ __align__(16) float sA[BK][BM];  // [BK][BM]: a tile of A, transposed and XOR-swizzled
  __shared__ __align__(16) float sB[BK][BN];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior) block_tile<kVec, BM, BN, BK, TM, TN, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<kVec, BM, BN, BK, TM, TN, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung07

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung07 {

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kTM) +
         "x" + std::to_string(kTN);
}

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM));
  // 128-bit accesses where every row of A, B and C is 16-byte aligned, 32-bit ones otherwise.
  auto kernel = vec4_ok(a, nullptr) ? sgemm_07_bank_conflict_free<true, kBM, kBN, kBK, kTM, kTN>
                                    : sgemm_07_bank_conflict_free<false, kBM, kBN, kBK, kTM, kTN>;
  kernel<<<grid, Config::kThreads, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung07
#endif
