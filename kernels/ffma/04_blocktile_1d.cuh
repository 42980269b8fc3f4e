// =====================================================================================
// Rung 04 — 1D block tiling                                              (CUDA-core track)
// BUILDS ON: 03_smem_tiling. The lesson is the diff:
//   git diff --no-index kernels/ffma/03_smem_tiling.cuh kernels/ffma/04_blocktile_1d.cuh
// WHAT CHANGED: a 64x128 C tile per block of 512 threads; each thread keeps TM = 16
//   accumulators for 16 consecutive rows of one column. Per k it loads one B value into a
//   register and multiplies it with 16 A values from shared memory. The K slab shrinks to
//   BK = 8; the threads copy the A and B tiles in whole passes.
// WHY: rung 03 issues 2 shared-memory loads per FFMA; the LSU pipe, not the FMA units, is the
//   limit. Keeping the B value in a register cuts that to (1 + 16) / 16 per FFMA (and the
//   compiler reads the 16 A values 4 k at a time with LDS.128: their row of sA is contiguous).
// PREDICTION: ~2x rung 03.
// SHOW IT: build/release/bench/sgemm_bench --kernel 3,4
//   python3 tools/sass_report.py --diff 3 4 && python3 tools/ncu_profile.py --kernel 4
// PAGE: docs/rungs/04_blocktile_1d.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung04 {

template <int BM, int BN, int BK, int TM>
struct Tile {
  static constexpr int kThreads = BM * BN / TM;  // one thread per TM-long column segment
  static constexpr int kRowsA = kThreads / BK;   // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / BN;   // B-tile rows copied per pass
  static_assert(BM % TM == 0, "a thread's TM rows must tile BM exactly");
  static_assert(kThreads % BK == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % BN == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
};

constexpr int kBM = 64, kBN = 128, kBK = 8, kTM = 16;
using Config = Tile<kBM, kBN, kBK, kTM>;

// One K-slab of the A and B tiles into shared memory. kGuard: the slab may cross the edge of
// A or B (edge block or K tail): check bounds and fill zeros.
template <int BM, int BN, int BK, int TM, bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[BM][BK], float (&sB)[BK][BN], const float* A, int lda,
                                          const float* B, int ldb, int M, int N, int K, int m0, int n0, int k0) {
  using T = Tile<BM, BN, BK, TM>;
  const int aRow = threadIdx.x / BK, aCol = threadIdx.x % BK;  // A: BK threads per row of the tile
  const int bRow = threadIdx.x / BN, bCol = threadIdx.x % BN;  // B: BN threads per row of the tile
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

template <int BM, int BN, int BK, int TM>
__device__ __forceinline__ void compute_slab(const float (&sA)[BM][BK], const float (&sB)[BK][BN],
                                             float (&rAcc)[TM], int tRow, int tCol) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    const float rB = sB[k][tCol];  // reused TM times
#pragma unroll
    for (int i = 0; i < TM; ++i) rAcc[i] += sA[tRow * TM + i][k] * rB;
  }
}

template <int BM, int BN, int BK, int TM, bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[BM][BK], float (&sB)[BK][BN], int M, int N, int K,
                                           float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tRow = threadIdx.x / BN, tCol = threadIdx.x % BN;  // this thread: rows tRow*TM.., column tCol
  float rAcc[TM] = {};  // [TM]: C[m0 + tRow*TM + i][n0 + tCol]
  int k0 = 0;
  for (; k0 + BK <= K; k0 += BK) {
    load_slab<BM, BN, BK, TM, kGuard>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM>(sA, sB, rAcc, tRow, tCol);
    __syncthreads();
  }
  if (k0 < K) {  // the K tail
    load_slab<BM, BN, BK, TM, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM>(sA, sB, rAcc, tRow, tCol);
  }
  const int col = n0 + tCol;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + tRow * TM + i;
    if (!kGuard || (row < M && col < N)) {
      float* c = C + int64_t(row) * ldc + col;
      *c = epilogue(alpha, rAcc[i], beta, c);
    }
  }
}

template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(Tile<BM, BN, BK, TM>::kThreads)
sgemm_04_blocktile_1d(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                      float beta, float* C, int ldc) {
  __shared__ float sA[BM][BK];  // [BM][BK]: a tile of A, row-major
  __shared__ float sB[BK][BN];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior) block_tile<BM, BN, BK, TM, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<BM, BN, BK, TM, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung04

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung04 {

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kTM) + "x1";
}

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM));
  sgemm_04_blocktile_1d<kBM, kBN, kBK, kTM><<<grid, Config::kThreads, 0, stream>>>(
      a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung04
#endif
