// =====================================================================================
// SGEMM Ladder — rung 01: 01_naive
// TITLE: Naive: one thread per element of C
// PREVIOUS: 00_cublas   NEXT: 02_coalesced
// LESSON: one thread per element of C, reading A and B straight from global memory
// TILE: 32x32x1_1x1
//
// WHAT CHANGED: the starting point. Thread (x, y) of a 32x32 block computes one C[row][col]
//   with row = blockIdx.x*32 + threadIdx.x and col = blockIdx.y*32 + threadIdx.y, as a
//   K-long dot product read directly from global memory.
// WHY: correct and easy to check; everything after this rung is about moving bytes less and
//   better. Every FFMA needs two global loads, so the kernel is bound by memory traffic.
// PREDICTION: a few % of cuBLAS. threadIdx.x walks DOWN a column of C, so the 32 threads of a
//   warp touch 32 different rows: each A load and each C store is a separate 32-byte sector.
// EVIDENCE: <evidence>Measured on NVIDIA H200: 498 GFLOP/s = 1.0% of cuBLAS at 4096^3; 501 GFLOP/s
//   = 1.0% at 8192^3. SASS: 270 instructions, LDG.E 59, FFMA 30, FMUL 1, STG.E 1; FFMA share 11.1%;
//   32 registers. ncu: global_ld_sectors_per_request 16.5, global_st_sectors_per_request 32,
//   dram_bytes 8.52G. Shown by: python3 tools/sass_report.py --kernel 1;
//   python3 tools/ncu_profile.py --kernel 1.</evidence>
// PRECONDITIONS: M, N, K and the leading dimensions below 2^31; N/32 below 2^16 (grid.y).
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

Status launch(const GemmArgs& a, cudaStream_t stream) {
  const dim3 block(kBlockEdge, kBlockEdge);
  const dim3 grid(ceil_div(a.M, kBlockEdge), ceil_div(a.N, kBlockEdge));
  sgemm_01_naive<<<grid, block, 0, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta,
                                             a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung01
#endif
