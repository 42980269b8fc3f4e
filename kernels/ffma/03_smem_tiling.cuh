// =====================================================================================
// Rung 03 — Shared-memory tiling                                         (CUDA-core track)
// BUILDS ON: 02_coalesced. The lesson is the diff:
//   git diff --no-index kernels/ffma/02_coalesced.cuh kernels/ffma/03_smem_tiling.cuh
// WHAT CHANGED: the block walks K in slabs of 64. Each thread copies two elements of the A tile
//   (32 x 64) and two of the B tile (64 x 32) into shared memory, the block synchronises, and
//   every thread then reads its 64 products from shared memory. Edge blocks and the K tail
//   load with bounds checks (zero fill); interior blocks run a main loop with no checks at all.
//   __launch_bounds__(1024, 2): two blocks per SM.
// WHY: rung 02 loads every element of A and B from global memory (L1/L2 at best) for every
//   product: 2 loads per FFMA. A tile is reused by 32 threads, so global traffic drops 32x. The
//   slab is 64 deep, not 32, so that each pair of barriers covers 64 FFMAs per thread.
// PREDICTION: 1.3-1.6x rung 02. The limit moves to shared memory: still 2 LDS per FFMA (one of
//   them a broadcast), so the LSU pipe, not DRAM, becomes the bottleneck.
// SHOW IT: build/release/bench/sgemm_bench --kernel 2,3
//   python3 tools/sass_report.py --diff 2 3 && python3 tools/ncu_profile.py --kernel 3
// PAGE: docs/rungs/03_smem_tiling.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung03 {

constexpr int kTile = 32;                 // BM = BN = 32: the C tile of a block
constexpr int kSlab = 64;                 // BK = 64: the depth of a K slab
constexpr int kThreads = kTile * kTile;   // one thread per element of the C tile
constexpr int kLoads = kSlab / kTile;     // elements of A (and of B) each thread copies per slab
static_assert(kSlab % kTile == 0, "each thread copies whole elements of both tiles");

// One K-slab of the A and B tiles into shared memory. `a` points at this thread's first A
// element of the slab (row, k0 + tx), `b` at its first B element (k0 + ty, col). kGuard: the
// slab may cross the edge of A or B (edge block or K tail): check bounds and fill zeros.
template <bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[kTile][kSlab], float (&sB)[kSlab][kTile], const float* a,
                                          int lda, const float* b, int ldb, int M, int N, int K, int row, int col,
                                          int k0) {
  const int ty = threadIdx.y, tx = threadIdx.x;
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    const int ka = k0 + tx + i * kTile, kb = k0 + ty + i * kTile;  // the k of this A / B element
    sA[ty][tx + i * kTile] = (!kGuard || (row < M && ka < K)) ? a[i * kTile] : 0.0f;
    sB[ty + i * kTile][tx] = (!kGuard || (kb < K && col < N)) ? b[int64_t(i) * kTile * ldb] : 0.0f;
  }
}

__device__ __forceinline__ float dot_slab(const float (&sA)[kTile][kSlab], const float (&sB)[kSlab][kTile],
                                          float acc) {
#pragma unroll
  for (int k = 0; k < kSlab; ++k) acc += sA[threadIdx.y][k] * sB[k][threadIdx.x];
  return acc;
}

template <bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[kTile][kSlab], float (&sB)[kSlab][kTile], int M, int N,
                                           int K, float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  // This thread's elements of slab 0; rows past M and columns past N are never dereferenced.
  const float* a = A + int64_t(kGuard && row >= M ? 0 : row) * lda + threadIdx.x;
  const float* b = B + int64_t(threadIdx.y) * ldb + (kGuard && col >= N ? 0 : col);
  float acc = 0.0f;
  int k0 = 0;
  for (; k0 + kSlab <= K; k0 += kSlab, a += kSlab, b += int64_t(kSlab) * ldb) {  // full slabs
    load_slab<kGuard>(sA, sB, a, lda, b, ldb, M, N, K, row, col, k0);
    __syncthreads();
    acc = dot_slab(sA, sB, acc);
    __syncthreads();
  }
  if (k0 < K) {  // the K tail: always bounds-checked
    load_slab<true>(sA, sB, a, lda, b, ldb, M, N, K, row, col, k0);
    __syncthreads();
    acc = dot_slab(sA, sB, acc);
  }
  if (!kGuard || (row < M && col < N)) {
    float* c = C + int64_t(row) * ldc + col;
    *c = epilogue(alpha, acc, beta, c);
  }
}

__global__ void __launch_bounds__(kThreads, 2)
sgemm_03_smem_tiling(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                     float beta, float* C, int ldc) {
  __shared__ float sA[kTile][kSlab];  // [BM][BK]: a tile of A, row-major
  __shared__ float sB[kSlab][kTile];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * kTile <= M && (blockIdx.x + 1) * kTile <= N;
  if (interior) block_tile<false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung03

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung03 {

std::string tile() { return "32x32x64_1x1"; }

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kTile), ceil_div64(a.M, kTile), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  const dim3 block(kTile, kTile);
  const dim3 grid(ceil_div(a.N, kTile), ceil_div(a.M, kTile));
  sgemm_03_smem_tiling<<<grid, block, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                   a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung03
#endif
