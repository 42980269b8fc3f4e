// =====================================================================================
// SGEMM Ladder — rung 10: 10_double_buffering
// TITLE: Multi-stage cp.async pipeline
// PREVIOUS: 09_warptiling   NEXT: 11_split_k
// LESSON: double buffering: a multi-stage cp.async shared-memory pipeline plus register-fragment prefetch
// TILE: 64x256x32_32x128_8x16_s2_u8
//
// WHAT CHANGED: rung 09's tiles, now software-pipelined. (1) B slabs are copied global -> shared
//   with cp.async (LDGSTS: no registers, no waiting) into a ring of `Stages` buffers, Stages-1
//   slabs ahead of the compute. (2) A must be transposed on its way into shared memory, which
//   cp.async cannot do, so the next A slab is loaded into registers (LDG.128) while the current
//   slab is computed, and stored transposed into its buffer at the end. (3) The register
//   fragments of step k+1 are read from shared memory while the FFMAs of step k run. (4) One
//   __syncthreads per slab instead of two. (5) The k loop is unrolled KU steps at a time (tuned).
// WHY: rung 09 ran load -> barrier -> compute -> barrier for every slab: each warp waited for
//   the global loads (~600 cycles) and for the shared loads (~30) with nothing to overlap them,
//   which ncu shows as long_scoreboard and barrier stalls.
// PREDICTION: stall_long_scoreboard and stall_barrier mostly disappear, LDGSTS appears in the
//   SASS; +5-15% over rung 09, close to cuBLAS.
// MISS, first try (whole slab unrolled): the stalls went (long_scoreboard 0.26 -> 0.04, barrier
//   0.17 -> 0.02) but the gain was +3% / +14% at 4096^3 / 8192^3, 92-94% of cuBLAS, with issue
//   slots 80% busy. Against cuBLAS, the extra stalls per issue were no_instruction 0.13 (0.02),
//   wait 0.15 (0.01) and dispatch 0.21 (0.10): the 32 unrolled steps of 8x16 outer products are
//   70 KB of SASS, more than the instruction cache holds, so warps wait for their instructions.
// PREDICTION, second try (KU = 8: an 18 KB loop body): no_instruction falls to cuBLAS's level,
//   issue slots ~85% busy, +5%. Measured (exp35): no_instruction 0.13 -> 0.06, wait 0.15 -> 0.10,
//   issue 80% -> 83%, +4% at 4096^3 and +2% at 8192^3; dispatch stalls (0.22) remain. The tuner
//   now searches KU (8, 16, 32) and ranks with nvcc's code: NVRTC built KU = 8 12% slower and
//   KU = 32 6% faster than nvcc did, so an NVRTC ranking picked the wrong kernel for the library.
//   The SASS counts below are static: the loop body is one 8-step chunk, so FFMA is 31% of the
//   instructions in the file but 90% of those executed (ncu: FFMA / inst_executed).
// EVIDENCE: <evidence>Measured on NVIDIA H200: 49,019 GFLOP/s = 95.5% of cuBLAS at 4096^3; 49,279
//   GFLOP/s = 96.1% at 8192^3. SASS vs rung 9: LDGSTS 0 -> 96, STS.128 32 -> 0, FFMA 16736 -> 2400,
//   LDS.128 768 -> 120; FFMA share 75.8% -> 30.9%; registers 246 -> 255; static smem bytes
//   33792 -> 1024. ncu vs rung 9: stall_long_scoreboard 0.20 -> 0.00,
//   stall_mio_throttle 0.04 -> 0.00, stall_barrier 0.05 -> 0.08, issue_active_pct 75.8% -> 83.4%.
//   Autotuned (kernels/tuned/sm_90.cuh): 41472 candidates, 2490 valid, 2490 compiled, 2396
//   verified; winner 64x256x32_32x128_8x16_s2_u8 at 49163 GFLOP/s, runner-up
//   64x256x32_64x64_8x16_s2_u8 at 48669 GFLOP/s (winner +1.0%). Shown by:
//   python3 tools/sass_report.py --diff 9 10; python3 tools/ncu_profile.py --kernel 10.</evidence>
// PRECONDITIONS: lda, ldb, ldc multiples of 4 and A, B, C 16-byte aligned (cp.async and 128-bit
//   accesses); M, N, K and the leading dimensions below 2^31; M/BM below 2^16 (grid.y).
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung10 {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU>
struct Tile {
  static constexpr int kWarps = (BM / WM) * (BN / WN);    // one warp per WM x WN warp tile
  static constexpr int kThreads = kWarps * kWarpSize;
  // Blocks per SM the registers must allow: two, unless two blocks' accumulators alone would
  // fill more than half the register file (then one block of up to 255 registers a thread).
  static constexpr int kMinBlocks = kThreads <= 256 && 2 * kThreads * TM * TN <= kRegsPerSm / 2 ? 2 : 1;
  static constexpr int kLaneCols = WN / TN;               // lanes across a warp tile
  static constexpr int kVecA = BK / kVecWidth;           // float4s per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;           // float4s per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;        // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / kVecB;        // B-tile rows copied per pass
  static constexpr int kLoadsA = BM / kRowsA;            // float4s of A each thread carries per slab
  static constexpr int kGroupsM = TM / kVecWidth;        // a lane's rows: groups of 4, WM/kGroupsM apart
  static constexpr int kGroupsN = TN / kVecWidth;        // a lane's columns: groups of 4, WN/kGroupsN apart
  static constexpr int kStageFloats = BK * BM + BK * BN; // one stage: the A and the B tile
  static constexpr int kSmemBytes = Stages * kStageFloats * int(sizeof(float));
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert(WM % TM == 0 && WN % TN == 0, "thread tiles must tile the warp tile exactly");
  static_assert((WM / TM) * (WN / TN) == kWarpSize, "a warp tile holds exactly 32 thread tiles");
  static_assert(BK % kVecWidth == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "128-bit accesses need BK, TM and TN to be multiples of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % kVecB == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
  static_assert(BM % kWarpSize == 0 && BK <= kWarpSize, "the swizzle permutes within 32-float chunks of a row");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
  static_assert(KU % kVecWidth == 0 && BK % KU == 0, "the k loop is unrolled in whole quads that divide the slab");
};

// Column of element (k, m) in the swizzled, transposed A tile. m and the result are floats;
// multiples of 4 map to multiples of 4, so float4 groups stay whole.
template <int BK>
__device__ __forceinline__ int swizzle_a(int k, int m) {
  return m ^ ((k / kVecWidth) * (kWarpSize * kVecWidth / BK));
}

// The shared-memory buffers of one pipeline stage.
template <int BM, int BN>
struct Stage {
  float (*a)[BM];  // [BK][BM]: a tile of A, transposed and XOR-swizzled
  float (*b)[BN];  // [BK][BN]: a tile of B, row-major
};

template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ Stage<BM, BN> stage_at(float* smem, int s) {
  float* base = smem + s * T::kStageFloats;
  return {reinterpret_cast<float (*)[BM]>(base), reinterpret_cast<float (*)[BN]>(base + BK * BM)};
}

// The A slab starting at k0 into registers (128-bit loads). kGuard: check bounds, fill zeros.
template <typename T, int BM, int BK, bool kGuard>
__device__ __forceinline__ void load_a(float4 (&rStage)[T::kLoadsA], const float* A, int lda, int M, int K, int m0,
                                       int k0) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < T::kLoadsA; ++i) {
    const int gRow = m0 + aRow + i * T::kRowsA;
    const float* src = A + int64_t(gRow) * lda;
    rStage[i] = kGuard ? load4_or_zero(src, k0 + aCol, K, gRow < M) : load_f4(src + k0 + aCol);
  }
}

// The A slab held in registers into its stage, transposed and swizzled.
template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ void store_a(Stage<BM, BN> st, const float4 (&rStage)[T::kLoadsA]) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < T::kLoadsA; ++i) {
    const int m = swizzle_a<BK>(aCol, aRow + i * T::kRowsA);  // the same for the 4 k of this float4
    st.a[aCol + 0][m] = rStage[i].x;
    st.a[aCol + 1][m] = rStage[i].y;
    st.a[aCol + 2][m] = rStage[i].z;
    st.a[aCol + 3][m] = rStage[i].w;
  }
}

// Issue the cp.async copies of the B slab starting at k0 into its stage. kGuard: each 16-byte
// chunk reads only the bytes inside B and zero-fills the rest.
template <typename T, int BM, int BN, int BK, bool kGuard>
__device__ __forceinline__ void load_b_async(Stage<BM, BN> st, const float* B, int ldb, int N, int K, int n0,
                                             int k0) {
  const int bRow = threadIdx.x / T::kVecB, bCol = threadIdx.x % T::kVecB * kVecWidth;
#pragma unroll
  for (int r = 0; r < BK; r += T::kRowsB) {
    const int gRow = k0 + bRow + r, gCol = n0 + bCol;
    const float* src = B + int64_t(gRow) * ldb + gCol;
    int bytes = kVecWidth * int(sizeof(float));
    if (kGuard) {
      const int valid = gRow < K ? min(max(N - gCol, 0), kVecWidth) : 0;
      bytes = valid * int(sizeof(float));
      if (valid == 0) src = B;  // any valid address: nothing is read
    }
    cp_async_16(&st.b[bRow + r][bCol], src, bytes);
  }
}

// The register fragments of step k: a lane's TM values of A and TN values of B. quad = k / 4,
// passed apart so that a k made of a runtime chunk plus a constant still swizzles in one XOR.
template <typename T, int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__device__ __forceinline__ void load_fragment(float (&rA)[TM], float (&rB)[TN], Stage<BM, BN> st, int k, int quad,
                                              int aBase, int bBase) {
#pragma unroll
  for (int g = 0; g < T::kGroupsM; ++g) {
    const float4 v = load_f4(&st.a[k][swizzle_a<BK>(quad * kVecWidth, aBase + g * (WM / T::kGroupsM))]);
    rA[g * 4] = v.x, rA[g * 4 + 1] = v.y, rA[g * 4 + 2] = v.z, rA[g * 4 + 3] = v.w;
  }
#pragma unroll
  for (int g = 0; g < T::kGroupsN; ++g) {
    const float4 v = load_f4(&st.b[k][bBase + g * (WN / T::kGroupsN)]);
    rB[g * 4] = v.x, rB[g * 4 + 1] = v.y, rB[g * 4 + 2] = v.z, rB[g * 4 + 3] = v.w;
  }
}

template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&rA)[TM], const float (&rB)[TN], float (&rAcc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU, bool kGuard>
__device__ __forceinline__ void block_tile(float* smem, int M, int N, int K, float alpha, const float* A, int lda,
                                           const float* B, int ldb, float beta, float* C, int ldc) {
  using T = Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;  // this warp's tile
  const int aBase = wm0 + lane / T::kLaneCols * kVecWidth;              // this lane's first row
  const int bBase = wn0 + lane % T::kLaneCols * kVecWidth;              // and first column
  float rAcc[TM][TN] = {};  // [TM][TN]: rows aBase + g*WM/kGroupsM + v, columns likewise
  const int kTiles = ceil_div(K, BK);
  auto stage = [&](int tile) { return stage_at<T, BM, BN, BK>(smem, tile % Stages); };
  // Edge blocks and the K tail check bounds; interior full slabs do not.
  auto issue_b = [&](int tile) {  // the cp.async of one B slab, as one commit group
    if (tile < kTiles) {
      if (kGuard || (tile + 1) * BK > K) load_b_async<T, BM, BN, BK, true>(stage(tile), B, ldb, N, K, n0, tile * BK);
      else load_b_async<T, BM, BN, BK, false>(stage(tile), B, ldb, N, K, n0, tile * BK);
    }
    cp_async_commit();  // empty groups keep the wait count uniform
  };
  float4 rStage[T::kLoadsA];  // the next A slab, on its way from global to shared memory
  auto fetch_a = [&](int tile) {
    if (kGuard || (tile + 1) * BK > K) load_a<T, BM, BK, true>(rStage, A, lda, M, K, m0, tile * BK);
    else load_a<T, BM, BK, false>(rStage, A, lda, M, K, m0, tile * BK);
  };

  // Prologue: B slabs 0 .. Stages-2 in flight, A slab 0 stored, A slab 1 in flight.
  for (int s = 0; s < Stages - 1; ++s) issue_b(s);
  fetch_a(0);
  store_a<T, BM, BN, BK>(stage(0), rStage);
  if (kTiles > 1) fetch_a(1);
  cp_async_wait<Stages - 2>();
  __syncthreads();
  float rA[2][TM], rB[2][TN];  // double-buffered register fragments
  load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[0], rB[0], stage(0), 0, 0, aBase, bBase);

  // The k loop runs in chunks of KU steps: only one chunk is unrolled, so the loop body stays
  // small enough for the instruction cache (a whole 32-step slab of 8x16 outer products is 70 KB
  // of SASS). KU == BK unrolls a whole slab.
  constexpr int kChunks = BK / KU;  // chunks per slab
#pragma unroll 1
  for (int chunk = 0; chunk < kTiles * kChunks; ++chunk) {
    const int kt = chunk / kChunks, c = chunk % kChunks;  // slab, and chunk within the slab
    if (c == 0) issue_b(kt + Stages - 1);                 // into the stage every warp left at the last barrier
    const Stage<BM, BN> st = stage(kt);
#pragma unroll
    for (int k = 0; k < KU; ++k) {
      if (k == KU - 1 && c == kChunks - 1) {
        // End of the slab: publish A slab kt+1, wait for B slab kt+1, then prefetch its first
        // fragment and start loading A slab kt+2.
        if (kt + 1 < kTiles) store_a<T, BM, BN, BK>(stage(kt + 1), rStage);
        cp_async_wait<Stages - 2>();
        __syncthreads();
        if (kt + 1 < kTiles) {
          load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], stage(kt + 1), 0, 0, aBase,
                                                       bBase);
          if (kt + 2 < kTiles) fetch_a(kt + 2);
        }
      } else {  // step c*KU + k + 1 of this slab
        load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], st, c * KU + k + 1,
                                                     c * (KU / kVecWidth) + (k + 1) / kVecWidth, aBase, bBase);
      }
      outer_product(rA[k % 2], rB[k % 2], rAcc);
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

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>::kMinBlocks)
sgemm_10_double_buffering(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                          float beta, float* C, int ldc) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A tile [BK][BM], B tile [BK][BN])
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior)
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, false>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, true>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace sgemm::rung10

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung10 {

using Tuned = tuned::Rung10;
constexpr int kBM = Tuned::BM, kBN = Tuned::BN, kBK = Tuned::BK, kWM = Tuned::WM, kWN = Tuned::WN,
              kTM = Tuned::TM, kTN = Tuned::TN, kStages = Tuned::Stages, kKU = Tuned::KU;
using Config = Tile<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU>;

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kWM) +
         "x" + std::to_string(kWN) + "_" + std::to_string(kTM) + "x" + std::to_string(kTN) + "_s" +
         std::to_string(kStages) + "_u" + std::to_string(kKU);
}

bool supports(const GemmArgs& a, std::string* why) {
  return vec4_ok(a, why) && fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

Status launch(const GemmArgs& a, cudaStream_t stream) {
  auto kernel = sgemm_10_double_buffering<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU>;
  if (const Status s = allow_smem(kernel, Config::kSmemBytes); s != Status::kOk) return s;
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM));
  kernel<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                                  a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung10
#endif
