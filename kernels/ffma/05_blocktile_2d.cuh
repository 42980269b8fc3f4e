// =====================================================================================
// Rung 05 — 2D block tiling                                              (CUDA-core track)
// BUILDS ON: 04_blocktile_1d. The lesson is the diff:
//   git diff --no-index kernels/ffma/04_blocktile_1d.cuh kernels/ffma/05_blocktile_2d.cuh
// WHAT CHANGED: a 128x128 C tile per block of 256 threads; each thread owns an 8x8 block of C.
//   Per k it loads 8 A values and 8 B values from shared memory into registers and does the 64
//   FFMAs of their outer product. Each thread now copies 4 elements of A and 4 of B per slab.
// WHY: rung 04 still needs 1.125 LDS per FFMA. An outer product of 8 + 8 loaded values gives
//   64 FFMAs: 0.25 LDS per FFMA, and each block reuses every global element 128 times, not 64.
// PREDICTION: ~1.4x rung 04 (shared-memory traffic per FFMA falls 4.5x; what remains is bank
//   conflicts: threads of a warp read sB 8 floats apart, and sA rows 64 floats apart).
// SHOW IT: build/release/bench/sgemm_bench --kernel 4,5
//   python3 tools/sass_report.py --diff 4 5 && python3 tools/ncu_profile.py --kernel 5
// PAGE: docs/rungs/05_blocktile_2d.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung05 {

template <int BM, int BN, int BK, int TM, int TN>
struct Tile {
  static constexpr int kThreads = (BM / TM) * (BN / TN);  // one thread per TM x TN block of C
  static constexpr int kMinBlocks = kThreads <= 256 ? 2 : 1;  // blocks per SM the registers must allow
  static constexpr int kRowsA = kThreads / BK;            // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / BN;            // B-tile rows copied per pass
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must tile the block tile exactly");
  static_assert(kThreads % BK == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % BN == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
};

constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
using Config = Tile<kBM, kBN, kBK, kTM, kTN>;

// One K-slab of the A and B tiles into shared memory. kGuard: check bounds and fill zeros.
template <int BM, int BN, int BK, int TM, int TN, bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[BM][BK], float (&sB)[BK][BN], const float* A, int lda,
                                          const float* B, int ldb, int M, int N, int K, int m0, int n0, int k0) {
  using T = Tile<BM, BN, BK, TM, TN>;
  const int aRow = threadIdx.x / BK, aCol = threadIdx.x % BK;
  const int bRow = threadIdx.x / BN, bCol = threadIdx.x % BN;
#pragma unroll
  for (int r = 0; r < BM; r += T::kRowsA) {
    const int gRow = m0 + aRow + r, gCol = k0 + aCol;
    const float* src = A + int64_t(gRow) * lda + gCol;
    sA[aRow + r][aCol] = (!kGuard || (gRow < M && gCol < K)) ? *src : 0.0f;
  }
#pragma unroll
  for (int r = 0; r < BK; r += T::kRowsB) {
    const int gRow = k0 + bRow + r, gCol = n0 + bCol;
    const float* src = B + int64_t(gRow) * ldb + gCol;
    sB[bRow + r][bCol] = (!kGuard || (gRow < K && gCol < N)) ? *src : 0.0f;
  }
}

template <int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void compute_slab(const float (&sA)[BM][BK], const float (&sB)[BK][BN],
                                             float (&rAcc)[TM][TN], int tRow, int tCol) {
  float rA[TM], rB[TN];  // this k's column of the A tile and row of the B tile
#pragma unroll
  for (int k = 0; k < BK; ++k) {
#pragma unroll
    for (int i = 0; i < TM; ++i) rA[i] = sA[tRow * TM + i][k];
#pragma unroll
    for (int j = 0; j < TN; ++j) rB[j] = sB[k][tCol * TN + j];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
  }
}

template <int BM, int BN, int BK, int TM, int TN, bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[BM][BK], float (&sB)[BK][BN], int M, int N, int K,
                                           float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
  float rAcc[TM][TN] = {};  // [TM][TN]: C[m0 + tRow*TM + i][n0 + tCol*TN + j]
  int k0 = 0;
  for (; k0 + BK <= K; k0 += BK) {
    load_slab<BM, BN, BK, TM, TN, kGuard>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM, TN>(sA, sB, rAcc, tRow, tCol);
    __syncthreads();
  }
  if (k0 < K) {  // the K tail
    load_slab<BM, BN, BK, TM, TN, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM, TN>(sA, sB, rAcc, tRow, tCol);
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + tRow * TM + i;
#if __CUDA_ARCH__ < 900
    // sm_80: an edge tile tests each row once. With the row test in every output's condition,
    // ptxas keeps all TM x TN tests and addresses live at once and spills accumulators (sm_90's
    // does not).
    if (kGuard && row >= M) continue;
#endif
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = n0 + tCol * TN + j;
      if (!kGuard || (row < M && col < N)) {
        float* c = C + int64_t(row) * ldc + col;
        *c = epilogue(alpha, rAcc[i][j], beta, c);
      }
    }
  }
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(Tile<BM, BN, BK, TM, TN>::kThreads, Tile<BM, BN, BK, TM, TN>::kMinBlocks)
sgemm_05_blocktile_2d(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                      float beta, float* C, int ldc) {
  __shared__ float sA[BM][BK];  // [BM][BK]: a tile of A, row-major
  __shared__ float sB[BK][BN];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior) block_tile<BM, BN, BK, TM, TN, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<BM, BN, BK, TM, TN, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung05

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung05 {

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kTM) +
         "x" + std::to_string(kTN);
}

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM));
  sgemm_05_blocktile_2d<kBM, kBN, kBK, kTM, kTN><<<grid, Config::kThreads, 0, stream>>>(
      a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung05
#endif
