// =====================================================================================
// Rung 06 — 128-bit vectorized loads                                     (CUDA-core track)
// BUILDS ON: 05_blocktile_2d. The lesson is the diff:
//   git diff --no-index kernels/ffma/05_blocktile_2d.cuh kernels/ffma/06_vectorized.cuh
// WHAT CHANGED: global loads of A and B are float4 (LDG.E.128); the B tile is stored with
//   STS.128; the A tile is stored TRANSPOSED (sA[k][m]) so that a thread's 8 A values for one k
//   are contiguous. Both register fragments are then read with two LDS.128 each, and C is
//   written with 128-bit stores. Edge tiles fall back to element-wise loads and stores; operands
//   whose rows are not 16-byte aligned (a leading dimension that is not a multiple of 4, an offset
//   pointer) run the same kernel with 32-bit accesses (kVec = false), chosen at launch.
// WHY: rung 05 issues 16 scalar LDS per 64 FFMA, and its sA reads (8 rows, 64 floats apart)
//   are bank-conflicted. Four floats per instruction means 4x fewer load instructions in the
//   issue slots and in the LSU pipe, and the transposed sA turns strided reads contiguous.
// PREDICTION: +20-30% over rung 05: fewer load instructions per FFMA.
// SHOW IT: build/release/bench/sgemm_bench --kernel 5,6
//   python3 tools/sass_report.py --diff 5 6 && python3 tools/ncu_profile.py --kernel 6
// PAGE: docs/rungs/06_vectorized.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung06 {

template <int BM, int BN, int BK, int TM, int TN>
struct Tile {
  static constexpr int kThreads = (BM / TM) * (BN / TN);  // one thread per TM x TN block of C
  static constexpr int kMinBlocks = kThreads <= 256 ? 2 : 1;  // blocks per SM the registers must allow
  static constexpr int kVecA = BK / kVecWidth;           // float4s per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;           // float4s per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;        // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / kVecB;        // B-tile rows copied per pass
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must tile the block tile exactly");
  static_assert(BK % kVecWidth == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "128-bit accesses need BK, TM and TN to be multiples of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % kVecB == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
};

constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
using Config = Tile<kBM, kBN, kBK, kTM, kTN>;

// One K-slab of the A and B tiles into shared memory, four floats per global load (one 128-bit
// access with kVec); A is stored transposed. kGuard: check bounds and fill zeros (element-wise at
// the ragged edges).
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
    sA[aCol + 0][aRow + r] = v.x;  // transpose: four scalar stores
    sA[aCol + 1][aRow + r] = v.y;
    sA[aCol + 2][aRow + r] = v.z;
    sA[aCol + 3][aRow + r] = v.w;
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
  float rA[TM], rB[TN];  // this k's column of the A tile and row of the B tile
#pragma unroll
  for (int k = 0; k < BK; ++k) {
#pragma unroll
    for (int i = 0; i < TM; i += kVecWidth) {
      const float4 v = load_f4(&sA[k][tRow * TM + i]);
      rA[i] = v.x, rA[i + 1] = v.y, rA[i + 2] = v.z, rA[i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const float4 v = load_f4(&sB[k][tCol * TN + j]);
      rB[j] = v.x, rB[j + 1] = v.y, rB[j + 2] = v.z, rB[j + 3] = v.w;
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
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
  float rAcc[TM][TN] = {};  // [TM][TN]: C[m0 + tRow*TM + i][n0 + tCol*TN + j]
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
    const int row = m0 + tRow * TM + i;
    if (kGuard && row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const int col = n0 + tCol * TN + j;
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      store4_epilogue<kVec>(C + int64_t(row) * ldc + col, kGuard ? N - col : kVecWidth, alpha, acc, beta);
    }
  }
}

template <bool kVec, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(Tile<BM, BN, BK, TM, TN>::kThreads, Tile<BM, BN, BK, TM, TN>::kMinBlocks)
sgemm_06_vectorized(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                    float beta, float* C, int ldc) {
  __shared__ __align__(16) float sA[BK][BM];  // [BK][BM]: a tile of A, TRANSPOSED (k-major)
  __shared__ __align__(16) float sB[BK][BN];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior) block_tile<kVec, BM, BN, BK, TM, TN, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<kVec, BM, BN, BK, TM, TN, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung06

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung06 {

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
  auto kernel = vec4_ok(a, nullptr) ? sgemm_06_vectorized<true, kBM, kBN, kBK, kTM, kTN>
                                    : sgemm_06_vectorized<false, kBM, kBN, kBK, kTM, kTN>;
  kernel<<<grid, Config::kThreads, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung06
#endif
