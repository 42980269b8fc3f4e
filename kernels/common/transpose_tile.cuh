// The transposing tile of the pre-passes (common/tf32_split.cuh's 3xTF32 split and
// common/ozaki_prepass.cuh's residues), for an operand whose stored columns run along K: X (K x N,
// row pitch ld, read in place) goes through shared memory 32 x 32 floats at a time, read along n (a
// warp reads 32 consecutive floats of a row: coalesced) and handed out transposed, thread x of a
// row taking k0 + x, so that writes along k coalesce too. The tile's extra column puts the 32
// floats of a tile column, which a warp reads at once, in 32 different banks.
#pragma once

#include "common/common.cuh"

namespace sgemm {

constexpr int kTransposeTile = kWarpSize;

// A block of kWarpSize x ThreadsY threads takes the k-tile blockIdx.x and the n-tiles blockIdx.y,
// blockIdx.y + gridDim.y, ... below Np (X outside K x N reads as zero), and calls
// emit(n, k, x) for each element x = X[k][n] of them.
template <int ThreadsY, class Emit>
__device__ __forceinline__ void transpose_tiles(int K, int N, const float* __restrict__ X, int ld, int64_t Np,
                                                Emit&& emit) {
  __shared__ float sTile[kTransposeTile][kTransposeTile + 1];  // [k][n]
  const int64_t k0 = int64_t(blockIdx.x) * kTransposeTile;
  for (int64_t n0 = int64_t(blockIdx.y) * kTransposeTile; n0 < Np; n0 += int64_t(gridDim.y) * kTransposeTile) {
#pragma unroll
    for (int i = 0; i < kTransposeTile / ThreadsY; ++i) {
      const int r = threadIdx.y + i * ThreadsY;
      const int64_t k = k0 + r, n = n0 + threadIdx.x;
      sTile[r][threadIdx.x] = (k < K && n < N) ? X[k * ld + n] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTransposeTile / ThreadsY; ++i) {
      const int r = threadIdx.y + i * ThreadsY;
      emit(n0 + r, k0 + threadIdx.x, sTile[threadIdx.x][r]);
    }
    __syncthreads();  // the tile is refilled by the next n-tile
  }
}

}  // namespace sgemm
