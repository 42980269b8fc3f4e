// =====================================================================================
// Rung 02 — Global-memory coalescing                                     (CUDA-core track)
// BUILDS ON: 01_naive. The lesson is the diff:
//   git diff --no-index kernels/ffma/01_naive.cuh kernels/ffma/02_coalesced.cuh
// WHAT CHANGED: threadIdx.x now walks ALONG a row of C (col = blockIdx.x*32 + threadIdx.x)
//   instead of down a column; the grid swaps x and y to match. Nothing else.
// WHY: rung 01's warps touch 32 rows at once. Now a warp's 32 threads share one row of A (one
//   broadcast load), read 32 consecutive floats of B and write 32 consecutive floats of C: one
//   128-byte request instead of 32 sectors.
// PREDICTION: global sectors per request for the B loads and C stores drop from ~32 to ~4;
//   several times faster than rung 01, still far from cuBLAS (no data reuse yet).
// SHOW IT: build/release/bench/sgemm_bench --kernel 1,2
//   python3 tools/sass_report.py --diff 1 2 && python3 tools/ncu_profile.py --kernel 2
// PAGE: docs/rungs/02_coalesced.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung02 {

constexpr int kBlockEdge = 32;  // threads per block edge: 32 x 32 = 1024 threads

__global__ void sgemm_02_coalesced(int M, int N, int K, float alpha, const float* A, int lda,
                                   const float* B, int ldb, float beta, float* C, int ldc) {
  const int row = blockIdx.y * kBlockEdge + threadIdx.y;
  const int col = blockIdx.x * kBlockEdge + threadIdx.x;  // threadIdx.x walks along a row
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[int64_t(row) * lda + k] * B[int64_t(k) * ldb + col];
  float* c = C + int64_t(row) * ldc + col;
  *c = epilogue(alpha, acc, beta, c);
}

}  // namespace sgemm::rung02

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung02 {

std::string tile() { return "32x32x1_1x1"; }

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBlockEdge), ceil_div64(a.M, kBlockEdge), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  const dim3 block(kBlockEdge, kBlockEdge);
  const dim3 grid(ceil_div(a.N, kBlockEdge), ceil_div(a.M, kBlockEdge));
  sgemm_02_coalesced<<<grid, block, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                 a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung02
#endif
