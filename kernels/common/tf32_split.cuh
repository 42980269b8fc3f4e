// The 3xTF32 pre-pass of the wgmma rungs (23, 24): A and B split once into TF32 big and small
// parts (split_fp32, common/tf32.cuh), zero-padded to whole tiles in a workspace, B transposed to
// N x K (wgmma reads TF32 only K-major). The kernels are templates on a tag type of the rung that
// launches them, so that each rung keeps its own copy, named after it (tools/sass_report.py finds
// a rung's kernels by its namespace).
#pragma once

#include "common/common.cuh"
#include "common/tf32.cuh"

namespace sgemm {

// Pre-pass thread blocks: 32 x 8 threads, 32 x 32 tiles for the transpose of B.
constexpr int kSplitThreadsX = kWarpSize;
constexpr int kSplitThreadsY = 8;
constexpr int kTransposeTile = kWarpSize;
constexpr int kMaxGridY = 65535;  // CUDA's limit on gridDim.y

// A (M x K, lda) -> Ahi, Alo (Mp x Kp, row length Kp), zero outside M x K. Threads: x across
// the float4s of a row (coalesced), y across rows, looping over rows beyond the grid.
template <typename Rung, bool kVec>
__global__ void __launch_bounds__(kSplitThreadsX* kSplitThreadsY)
split_3xtf32_a(int M, int K, const float* __restrict__ A, int lda, int64_t Mp, int64_t Kp, float* __restrict__ Ahi,
               float* __restrict__ Alo) {
  const int64_t vec = int64_t(blockIdx.x) * kSplitThreadsX + threadIdx.x;  // float4 index in the row
  if (vec >= Kp / kVecWidth) return;
  const int col = int(vec * kVecWidth);
  for (int64_t row = int64_t(blockIdx.y) * kSplitThreadsY + threadIdx.y; row < Mp;
       row += int64_t(gridDim.y) * kSplitThreadsY) {
    const float4 x = load4_or_zero<kVec>(A + row * lda, col, K, row < M);
    float4 hi, lo;
    split_fp32(x.x, hi.x, lo.x);
    split_fp32(x.y, hi.y, lo.y);
    split_fp32(x.z, hi.z, lo.z);
    split_fp32(x.w, hi.w, lo.w);
    store_f4(Ahi + row * Kp + col, hi);
    store_f4(Alo + row * Kp + col, lo);
  }
}

// B (K x N, ldb) -> Bhi, Blo transposed (Np x Kp, row length Kp), zero outside. One 32 x 32
// tile per block and step: read along n (coalesced), transpose through shared memory, write
// along k (coalesced). Blocks loop over n-tiles beyond the grid.
template <typename Rung>
__global__ void __launch_bounds__(kSplitThreadsX* kSplitThreadsY)
split_3xtf32_b(int K, int N, const float* __restrict__ B, int ldb, int64_t Np, int64_t Kp, float* __restrict__ Bhi,
               float* __restrict__ Blo) {
  __shared__ float sTile[kTransposeTile][kTransposeTile + 1];  // [k][n], +1: conflict-free columns
  const int64_t k0 = int64_t(blockIdx.x) * kTransposeTile;
  for (int64_t n0 = int64_t(blockIdx.y) * kTransposeTile; n0 < Np; n0 += int64_t(gridDim.y) * kTransposeTile) {
#pragma unroll
    for (int i = 0; i < kTransposeTile / kSplitThreadsY; ++i) {
      const int r = threadIdx.y + i * kSplitThreadsY;
      const int64_t k = k0 + r, n = n0 + threadIdx.x;
      sTile[r][threadIdx.x] = (k < K && n < N) ? B[k * ldb + n] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTransposeTile / kSplitThreadsY; ++i) {
      const int r = threadIdx.y + i * kSplitThreadsY;
      const int64_t n = n0 + r, k = k0 + threadIdx.x;
      float hi, lo;
      split_fp32(sTile[threadIdx.x][r], hi, lo);
      Bhi[n * Kp + k] = hi;
      Blo[n * Kp + k] = lo;
    }
    __syncthreads();  // the tile is refilled by the next n-tile
  }
}

}  // namespace sgemm

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cstdint>
#include "common/launch.hpp"

namespace sgemm {

// The pre-pass of rung `Rung` queued on `stream`: A into Ahi, Alo [Mp][Kp] and B into Bhi, Blo
// [Np][Kp]; Mp is a multiple of kSplitThreadsY, Np and Kp of kTransposeTile. 128-bit loads of A
// where every row of A is 16-byte aligned, 32-bit ones otherwise.
template <typename Rung>
Status split_3xtf32(const GemmArgs& a, int64_t Mp, int64_t Np, int64_t Kp, float* Ahi, float* Alo, float* Bhi,
                    float* Blo, cudaStream_t stream) {
  auto splitA = vec4_ok(a, nullptr) ? split_3xtf32_a<Rung, true> : split_3xtf32_a<Rung, false>;
  const dim3 splitBlock(kSplitThreadsX, kSplitThreadsY);
  const dim3 gridA(unsigned(ceil_div64(Kp / kVecWidth, kSplitThreadsX)),
                   unsigned(std::min<int64_t>(ceil_div64(Mp, kSplitThreadsY), kMaxGridY)));
  splitA<<<gridA, splitBlock, 0, stream>>>(int(a.M), int(a.K), a.A, int(a.lda), Mp, Kp, Ahi, Alo);
  const Status s = launch_status();
  const dim3 gridB(unsigned(Kp / kTransposeTile), unsigned(std::min<int64_t>(Np / kTransposeTile, kMaxGridY)));
  split_3xtf32_b<Rung><<<gridB, splitBlock, 0, stream>>>(int(a.K), int(a.N), a.B, int(a.ldb), Np, Kp, Bhi, Blo);
  return launch_status_after(s);
}

}  // namespace sgemm
#endif
