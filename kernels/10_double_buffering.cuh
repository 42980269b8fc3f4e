// =====================================================================================
// SGEMM Ladder — rung 10: 10_double_buffering
// TITLE: Multi-stage cp.async pipeline
// PREVIOUS: 09_warptiling   NEXT: none
// LESSON: double buffering: a multi-stage cp.async shared-memory pipeline plus register-fragment prefetch
// TILE: 128x128x8_64x32_8x8_s3
//
// WHAT CHANGED: (1) the A and B tiles are copied global -> shared with cp.async (LDGSTS: no
//   registers, no wait) into `Stages` shared-memory buffers; while the warps compute on slab k,
//   the copies of slabs k+1 .. k+Stages-1 are in flight, and one __syncthreads per slab
//   replaces two. Ragged edges use cp.async's zero fill. (2) cp.async copies bytes as they lie,
//   so A is no longer transposed: it keeps K-contiguous rows (padded by 4 floats against bank
//   conflicts) and a lane reads 4 k at once per row with LDS.128. (3) The register fragments
//   of the next 4-k group are loaded from shared memory while the FFMAs of the current group run.
// WHY: in rung 09 every slab was load -> barrier -> compute -> barrier: the global-load latency
//   (~600 cycles) and the shared-load latency (~30) sat on the critical path, visible as
//   long_scoreboard and barrier stalls. Overlapping them with FFMAs leaves the FMA pipe busy.
// PREDICTION: stall_long_scoreboard and stall_barrier mostly disappear; +15-25% over rung 09,
//   near or above cuBLAS.
// EVIDENCE: <evidence>(not yet measured)</evidence>
// PRECONDITIONS: lda, ldb, ldc multiples of 4 and A, B, C 16-byte aligned (cp.async and 128-bit
//   accesses); M, N, K and the leading dimensions below 2^31; M/BM below 2^16 (grid.y).
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung10 {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages>
struct Tile {
  static constexpr int kWarps = (BM / WM) * (BN / WN);    // one warp per WM x WN warp tile
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kLaneCols = WN / TN;               // lanes across a warp tile
  static constexpr int kPadA = kVecWidth;                 // floats of padding per row of the A tile
  static constexpr int kStrideA = BK + kPadA;             // floats per row of the A tile in shared memory
  static constexpr int kVecA = BK / kVecWidth;            // 16-byte chunks per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;            // 16-byte chunks per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;         // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / kVecB;         // B-tile rows copied per pass
  static constexpr int kGroupsM = TM / kVecWidth;         // a lane's rows: groups of 4, WM/kGroupsM apart
  static constexpr int kGroupsN = TN / kVecWidth;         // a lane's columns: groups of 4, WN/kGroupsN apart
  static constexpr int kKGroups = BK / kVecWidth;         // 4-k groups per slab (fragment steps)
  static constexpr int kStageFloats = BM * kStrideA + BK * BN;
  static constexpr int kSmemBytes = Stages * kStageFloats * int(sizeof(float));
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert(WM % TM == 0 && WN % TN == 0, "thread tiles must tile the warp tile exactly");
  static_assert((WM / TM) * (WN / TN) == kWarpSize, "a warp tile holds exactly 32 thread tiles");
  static_assert(BK % (2 * kVecWidth) == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "BK must be a multiple of 8 (padding keeps LDS.128 of A conflict-free), TM and TN of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % kVecB == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
};

// The shared-memory buffers of one stage.
template <int BM, int BN, int BK, int kStrideA>
struct Stage {
  float (*a)[kStrideA];  // [BM][BK + pad]: a tile of A, row-major (K-contiguous)
  float (*b)[BN];        // [BK][BN]: a tile of B, row-major
};

template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ Stage<BM, BN, BK, T::kStrideA> stage_at(float* smem, int s) {
  float* base = smem + s * T::kStageFloats;
  return {reinterpret_cast<float (*)[T::kStrideA]>(base), reinterpret_cast<float (*)[BN]>(base + BM * T::kStrideA)};
}

// Issue the cp.async copies of one K-slab into `st`. kGuard (edge block) or a K tail: each
// 16-byte chunk reads only the bytes inside the matrix and zero-fills the rest.
template <typename T, int BM, int BN, int BK, bool kGuard>
__device__ __forceinline__ void load_slab(Stage<BM, BN, BK, T::kStrideA> st, const float* A, int lda, const float* B,
                                          int ldb, int M, int N, int K, int m0, int n0, int k0) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
  const int bRow = threadIdx.x / T::kVecB, bCol = threadIdx.x % T::kVecB * kVecWidth;
#pragma unroll
  for (int r = 0; r < BM; r += T::kRowsA) {
    const int gRow = m0 + aRow + r, gCol = k0 + aCol;
    const float* src = A + int64_t(gRow) * lda + gCol;
    int bytes = 16;
    if (kGuard) {
      const int valid = gRow < M ? min(max(K - gCol, 0), kVecWidth) : 0;
      bytes = valid * int(sizeof(float));
      if (valid == 0) src = A;  // any valid address; nothing is read
    }
    cp_async_16(&st.a[aRow + r][aCol], src, bytes);
  }
#pragma unroll
  for (int r = 0; r < BK; r += T::kRowsB) {
    const int gRow = k0 + bRow + r, gCol = n0 + bCol;
    const float* src = B + int64_t(gRow) * ldb + gCol;
    int bytes = 16;
    if (kGuard) {
      const int valid = gRow < K ? min(max(N - gCol, 0), kVecWidth) : 0;
      bytes = valid * int(sizeof(float));
      if (valid == 0) src = B;
    }
    cp_async_16(&st.b[bRow + r][bCol], src, bytes);
  }
}

// The register fragments of one 4-k group: TM rows x 4 k of A, 4 k x TN columns of B.
template <int TM, int TN>
struct Fragment {
  float a[TM][kVecWidth];
  float b[kVecWidth][TN];
};

template <typename T, int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__device__ __forceinline__ void load_fragment(Fragment<TM, TN>& f, Stage<BM, BN, BK, T::kStrideA> st, int kq,
                                              int aBase, int bBase) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const float4 v = load_f4(&st.a[aBase + i / kVecWidth * (WM / T::kGroupsM) + i % kVecWidth][kq * kVecWidth]);
    f.a[i][0] = v.x, f.a[i][1] = v.y, f.a[i][2] = v.z, f.a[i][3] = v.w;
  }
#pragma unroll
  for (int kk = 0; kk < kVecWidth; ++kk)
#pragma unroll
    for (int g = 0; g < T::kGroupsN; ++g) {
      const float4 v = load_f4(&st.b[kq * kVecWidth + kk][bBase + g * (WN / T::kGroupsN)]);
      f.b[kk][g * 4] = v.x, f.b[kk][g * 4 + 1] = v.y, f.b[kk][g * 4 + 2] = v.z, f.b[kk][g * 4 + 3] = v.w;
    }
}

template <int TM, int TN>
__device__ __forceinline__ void mma_fragment(const Fragment<TM, TN>& f, float (&rAcc)[TM][TN]) {
#pragma unroll
  for (int kk = 0; kk < kVecWidth; ++kk)
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) rAcc[i][j] += f.a[i][kk] * f.b[kk][j];
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, bool kGuard>
__device__ __forceinline__ void block_tile(float* smem, int M, int N, int K, float alpha, const float* A, int lda,
                                           const float* B, int ldb, float beta, float* C, int ldc) {
  using T = Tile<BM, BN, BK, WM, WN, TM, TN, Stages>;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;  // this warp's tile
  const int aBase = wm0 + lane / T::kLaneCols * kVecWidth;              // this lane's first row
  const int bBase = wn0 + lane % T::kLaneCols * kVecWidth;              // and first column
  float rAcc[TM][TN] = {};  // [TM][TN]: rows aBase + g*WM/kGroupsM + v, columns likewise
  const int kTiles = ceil_div(K, BK);

  auto issue = [&](int tile) {  // copies of slab `tile` into its stage, as one commit group
    if (tile < kTiles) {
      const int k0 = tile * BK;
      const auto st = stage_at<T, BM, BN, BK>(smem, tile % Stages);
      if (kGuard || k0 + BK > K) load_slab<T, BM, BN, BK, true>(st, A, lda, B, ldb, M, N, K, m0, n0, k0);
      else load_slab<T, BM, BN, BK, false>(st, A, lda, B, ldb, M, N, K, m0, n0, k0);
    }
    cp_async_commit();  // empty groups keep the wait count uniform
  };

  for (int s = 0; s < Stages - 1; ++s) issue(s);  // prologue: Stages-1 slabs in flight
  cp_async_wait<Stages - 2>();
  __syncthreads();
  Fragment<TM, TN> frag[2];  // double-buffered register fragments
  load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(frag[0], stage_at<T, BM, BN, BK>(smem, 0), 0, aBase, bBase);

  for (int kt = 0; kt < kTiles; ++kt) {
    const auto st = stage_at<T, BM, BN, BK>(smem, kt % Stages);
#pragma unroll
    for (int kq = 0; kq < T::kKGroups; ++kq) {
      if (kq == 0) issue(kt + Stages - 1);  // refill the stage every warp left at the last barrier
      if (kq == T::kKGroups - 1) {
        // Last group of this slab: wait for the next slab, then prefetch its first fragment.
        cp_async_wait<Stages - 2>();
        __syncthreads();
        if (kt + 1 < kTiles)
          load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(frag[(kq + 1) % 2],
                                                       stage_at<T, BM, BN, BK>(smem, (kt + 1) % Stages), 0, aBase,
                                                       bBase);
      } else {
        load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(frag[(kq + 1) % 2], st, kq + 1, aBase, bBase);
      }
      mma_fragment(frag[kq % 2], rAcc);
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + aBase + i / kVecWidth * (WM / T::kGroupsM) + i % kVecWidth;
    if (kGuard && row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const int col = n0 + bBase + j / kVecWidth * (WN / T::kGroupsN);
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      store4_epilogue(C + int64_t(row) * ldc + col, kGuard ? N - col : kVecWidth, alpha, acc, beta);
    }
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, TM, TN, Stages>::kThreads, 1)
sgemm_10_double_buffering(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                          float beta, float* C, int ldc) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A tile [BM][BK+4], B tile [BK][BN])
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior)
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, false>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, true>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung10

#ifndef __CUDACC_RTC__
#include "common/launch.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung10 {

using Tuned = tuned::Rung10;
constexpr int kBM = Tuned::BM, kBN = Tuned::BN, kBK = Tuned::BK, kWM = Tuned::WM, kWN = Tuned::WN,
              kTM = Tuned::TM, kTN = Tuned::TN, kStages = Tuned::Stages;
using Config = Tile<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages>;

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kWM) +
         "x" + std::to_string(kWN) + "_" + std::to_string(kTM) + "x" + std::to_string(kTN) + "_s" +
         std::to_string(kStages);
}

bool supports(const GemmArgs& a, std::string* why) {
  return vec4_ok(a, why) && fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream) {
  auto kernel = sgemm_10_double_buffering<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages>;
  if (const Status s = allow_smem(kernel, Config::kSmemBytes); s != Status::kOk) return s;
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM));
  kernel<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                                  a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung10
#endif
