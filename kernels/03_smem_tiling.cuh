// =====================================================================================
// SGEMM Ladder — rung 03: 03_smem_tiling
// TITLE: Shared-memory tiling
// PREVIOUS: 02_coalesced   NEXT: 04_blocktile_1d
// LESSON: shared-memory tiling: each block caches 32x32 tiles of A and B and reuses them 32 times
// TILE: 32x32x32_1x1
//
// WHAT CHANGED: the block walks K in slabs of 32. Each thread copies one element of the A tile
//   and one of the B tile into shared memory, the block synchronises, and every thread then
//   reads its 32 products from shared memory. Edge blocks and the K tail load with bounds
//   checks (zero fill); interior blocks run a main loop with no checks at all.
// WHY: rung 02 loaded every element of A and B from global memory (L1/L2 at best) for every
//   product: 2 loads per FFMA. A 32x32 tile is reused by 32 threads, so global traffic drops 32x.
// PREDICTION: 1.3-1.6x rung 02. The limit moves to shared memory: still 2 LDS per FFMA (one of
//   them a broadcast), so the LSU pipe, not DRAM, is the new bottleneck.
// MISS: 1.36x as predicted, but 17% of cuBLAS, short of the 18% the ladder aims for. ncu shows
//   mio_throttle and barrier stalls dominating (1024-thread blocks, two barriers per 32 FFMAs).
//   Pointer bumping plus __launch_bounds__(1024, 2) measured +4% (17.7%) in a side sweep: not
//   adopted, it would still miss, and it is not this rung's lesson.
// EVIDENCE: <evidence>Measured on NVIDIA H200: 8,688 GFLOP/s = 17.0% of cuBLAS at 4096^3; 8,732
//   GFLOP/s = 17.1% at 8192^3. SASS vs rung 2: LDS 0 -> 128, LDS.128 0 -> 32, STS 0 -> 8,
//   BAR 0 -> 6; FFMA share 11.1% -> 25.1%; static smem bytes 0 -> 9216. ncu vs rung 2:
//   stall_barrier 0.00 -> 7.84, smem_ld_bank_conflicts 0 -> 718k, stall_mio_throttle 0.01 -> 16.02.
//   Shown by: python3 tools/sass_report.py --diff 2 3;
//   python3 tools/ncu_profile.py --kernel 3.</evidence>
// PRECONDITIONS: M, N, K and the leading dimensions below 2^31; M/32 below 2^16 (grid.y).
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung03 {

constexpr int kTile = 32;                 // BM = BN = BK = 32
constexpr int kThreads = kTile * kTile;   // one thread per element of the C tile

// One K-slab of the A and B tiles into shared memory. kGuard: the slab may cross the edge of
// A or B (edge block or K tail): check bounds and fill zeros.
template <bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[kTile][kTile], float (&sB)[kTile][kTile],
                                          const float* A, int lda, const float* B, int ldb, int M, int N,
                                          int K, int row, int col, int k0) {
  const int ty = threadIdx.y, tx = threadIdx.x;
  if (!kGuard) {
    sA[ty][tx] = A[int64_t(row) * lda + k0 + tx];
    sB[ty][tx] = B[int64_t(k0 + ty) * ldb + col];
  } else {
    sA[ty][tx] = (row < M && k0 + tx < K) ? A[int64_t(row) * lda + k0 + tx] : 0.0f;
    sB[ty][tx] = (k0 + ty < K && col < N) ? B[int64_t(k0 + ty) * ldb + col] : 0.0f;
  }
}

__device__ __forceinline__ float dot_slab(const float (&sA)[kTile][kTile], const float (&sB)[kTile][kTile],
                                          float acc) {
#pragma unroll
  for (int k = 0; k < kTile; ++k) acc += sA[threadIdx.y][k] * sB[k][threadIdx.x];
  return acc;
}

template <bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[kTile][kTile], float (&sB)[kTile][kTile], int M, int N,
                                           int K, float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  int k0 = 0;
  for (; k0 + kTile <= K; k0 += kTile) {  // full slabs
    load_slab<kGuard>(sA, sB, A, lda, B, ldb, M, N, K, row, col, k0);
    __syncthreads();
    acc = dot_slab(sA, sB, acc);
    __syncthreads();
  }
  if (k0 < K) {  // the K tail: always bounds-checked
    load_slab<true>(sA, sB, A, lda, B, ldb, M, N, K, row, col, k0);
    __syncthreads();
    acc = dot_slab(sA, sB, acc);
  }
  if (!kGuard || (row < M && col < N)) {
    float* c = C + int64_t(row) * ldc + col;
    *c = epilogue(alpha, acc, beta, c);
  }
}

__global__ void __launch_bounds__(kThreads)
sgemm_03_smem_tiling(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                     float beta, float* C, int ldc) {
  __shared__ float sA[kTile][kTile];  // [BM][BK]: a tile of A, row-major
  __shared__ float sB[kTile][kTile];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * kTile <= M && (blockIdx.x + 1) * kTile <= N;
  if (interior) block_tile<false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung03

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung03 {

std::string tile() { return "32x32x32_1x1"; }

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kTile), ceil_div64(a.M, kTile), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid(ceil_div(a.N, kTile), ceil_div(a.M, kTile));
  sgemm_03_smem_tiling<<<grid, block, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                   a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung03
#endif
