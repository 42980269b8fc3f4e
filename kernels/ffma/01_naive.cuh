// =====================================================================================
// Rung 01 — Naive: one thread per element of C                           (CUDA-core track)
// BUILDS ON: nothing: the first rung. Every later rung of this track is a copy of the one
//   before it, changed in one thing: `git diff --no-index` of two neighbours is the lesson.
// WHAT CHANGED: the starting point. Thread (x, y) of a 32x32 block computes one C[row][col]
//   with row = blockIdx.x*32 + threadIdx.x and col = blockIdx.y*32 + threadIdx.y, as a K-long
//   dot product read directly from global memory.
// WHY: correct and easy to check; everything after this rung is about moving bytes less and
//   better. Every FFMA needs two global loads, so the kernel is bound by memory traffic.
// PREDICTION: a few % of cuBLAS. threadIdx.x walks DOWN a column of C, so the 32 threads of a
//   warp touch 32 different rows: each A load and each C store is a separate 32-byte sector.
// SHOW IT: build/release/bench/sgemm_bench --kernel 1
//   python3 tools/sass_report.py --kernel 1 && python3 tools/ncu_profile.py --kernel 1
// PAGE: docs/rungs/01_naive.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung01 {

constexpr int kBlockEdge = 32;  // threads per block edge: 32 x 32 = 1024 threads

__global__ void sgemm_01_naive(int M, int N, int K, float alpha, const float* A, int lda,
                               const float* B, int ldb, float beta, float* C, int ldc) {
  const int row = blockIdx.x * kBlockEdge + threadIdx.x;  // threadIdx.x walks down a column
  const int col = blockIdx.y * kBlockEdge + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[int64_t(row) * lda + k] * B[int64_t(k) * ldb + col];
  float* c = C + int64_t(row) * ldc + col;
  *c = epilogue(alpha, acc, beta, c);
}

}  // namespace sgemm::rung01

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::rung01 {

std::string tile() { return "32x32x1_1x1"; }

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.M, kBlockEdge), ceil_div64(a.N, kBlockEdge), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  const dim3 block(kBlockEdge, kBlockEdge);
  const dim3 grid(ceil_div(a.M, kBlockEdge), ceil_div(a.N, kBlockEdge));
  sgemm_01_naive<<<grid, block, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta,
                                             a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung01
#endif
