// The 3xTF32 pre-pass of the wgmma rungs (23, 24): A and B split once into TF32 big and small
// parts (split_fp32, common/tf32.cuh), zero-padded to whole tiles in a workspace, both K-major:
// planes [Mp][Kp] of op(A) and [Np][Kp] of op(B) transposed (wgmma reads TF32 only K-major). The
// operands are read in place in either layout, by one of two kernels: an operand whose stored rows
// run along K (A 'N', B 'T') is read row by row, one whose stored columns do (A 'T', B 'N') is
// transposed through shared memory; both read coalesced and write the same planes. The kernels are
// templates on a tag type of the rung that launches them, so that each rung keeps its own copy,
// named after it (tools/sass_report.py finds a rung's kernels by its namespace).
#pragma once

#include "common/common.cuh"
#include "common/tf32.cuh"
#include "common/transpose_tile.cuh"

namespace sgemm {

// Pre-pass thread blocks: 32 x 8 threads, 32 x 32 tiles for the transposing kernel.
constexpr int kSplitThreadsX = kWarpSize;
constexpr int kSplitThreadsY = 8;
constexpr int kMaxGridY = 65535;  // CUDA's limit on gridDim.y

// X (M x K, ld: A 'N', or B 'T' with M = N) -> Xhi, Xlo (Mp x Kp, row length Kp), zero outside
// M x K. Threads: x across the float4s of a row (coalesced), y across rows, looping over rows
// beyond the grid. kVec: 128-bit loads, where every row of X starts on a 16-byte boundary.
template <typename Rung, bool kVec>
__global__ void __launch_bounds__(kSplitThreadsX* kSplitThreadsY)
split_3xtf32_rows(int M, int K, const float* __restrict__ X, int ld, int64_t Mp, int64_t Kp, float* __restrict__ Xhi,
                  float* __restrict__ Xlo) {
  const int64_t vec = int64_t(blockIdx.x) * kSplitThreadsX + threadIdx.x;  // float4 index in the row
  if (vec >= Kp / kVecWidth) return;
  const int col = int(vec * kVecWidth);
  for (int64_t row = int64_t(blockIdx.y) * kSplitThreadsY + threadIdx.y; row < Mp;
       row += int64_t(gridDim.y) * kSplitThreadsY) {
    const float4 x = load4_or_zero<kVec>(X + row * ld, col, K, row < M);
    float4 hi, lo;
    split_fp32(x.x, hi.x, lo.x);
    split_fp32(x.y, hi.y, lo.y);
    split_fp32(x.z, hi.z, lo.z);
    split_fp32(x.w, hi.w, lo.w);
    store_f4(Xhi + row * Kp + col, hi);
    store_f4(Xlo + row * Kp + col, lo);
  }
}

// X (K x N, ld: B 'N', or A 'T' with N = M) -> Xhi, Xlo transposed (Np x Kp, row length Kp),
// zero outside, through the transposing tile (common/transpose_tile.cuh).
template <typename Rung>
__global__ void __launch_bounds__(kSplitThreadsX* kSplitThreadsY)
split_3xtf32_transpose(int K, int N, const float* __restrict__ X, int ld, int64_t Np, int64_t Kp,
                       float* __restrict__ Xhi, float* __restrict__ Xlo) {
  transpose_tiles<kSplitThreadsY>(K, N, X, ld, Np, [&](int64_t n, int64_t k, float x) {
    float hi, lo;
    split_fp32(x, hi, lo);
    Xhi[n * Kp + k] = hi;
    Xlo[n * Kp + k] = lo;
  });
}

}  // namespace sgemm

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cstdint>
#include "common/launch.hpp"

namespace sgemm {

// One operand's planes hi, lo [Lp][Kp] from X: its L lines (rows of op(A), columns of op(B)), each
// K long, are X's rows (kMajor: A 'N', B 'T'; 128-bit loads where X's rows are 16-byte aligned,
// 32-bit ones otherwise) or its columns (A 'T', B 'N': single floats, any alignment).
template <typename Rung>
Status split_operand(const float* X, int64_t ld, bool kMajor, int64_t L, int64_t K, int64_t Lp, int64_t Kp, float* hi,
                     float* lo, cudaStream_t stream) {
  const dim3 block(kSplitThreadsX, kSplitThreadsY);
  if (kMajor) {
    auto kernel = rows_aligned(X, ld) ? split_3xtf32_rows<Rung, true> : split_3xtf32_rows<Rung, false>;
    const dim3 grid(unsigned(ceil_div64(Kp / kVecWidth, kSplitThreadsX)),
                    unsigned(std::min<int64_t>(ceil_div64(Lp, kSplitThreadsY), kMaxGridY)));
    kernel<<<grid, block, 0, stream>>>(int(L), int(K), X, int(ld), Lp, Kp, hi, lo);
  } else {
    const dim3 grid(unsigned(Kp / kTransposeTile), unsigned(std::min<int64_t>(Lp / kTransposeTile, kMaxGridY)));
    split_3xtf32_transpose<Rung><<<grid, block, 0, stream>>>(int(K), int(L), X, int(ld), Lp, Kp, hi, lo);
  }
  return launch_status();
}

// The pre-pass of rung `Rung` queued on `stream`: op(A) into Ahi, Alo [Mp][Kp] and op(B) into Bhi,
// Blo [Np][Kp], the same planes whatever the layouts (a.transa, a.transb). Mp, Np and Kp are
// multiples of kTransposeTile.
template <typename Rung>
Status split_3xtf32(const GemmArgs& a, int64_t Mp, int64_t Np, int64_t Kp, float* Ahi, float* Alo, float* Bhi,
                    float* Blo, cudaStream_t stream) {
  const Status s = split_operand<Rung>(a.A, a.lda, !a.transa, a.M, a.K, Mp, Kp, Ahi, Alo, stream);
  const Status t = split_operand<Rung>(a.B, a.ldb, a.transb, a.N, a.K, Np, Kp, Bhi, Blo, stream);
  return s != Status::kOk ? s : t;
}

}  // namespace sgemm
#endif
