// =====================================================================================
// SGEMM Ladder — rung 11: 11_split_k
// TITLE: Split-K against wave quantization
// PREVIOUS: 10_double_buffering   NEXT: 12_mma_tf32
// LESSON: fill the chip: when the tile grid leaves SMs idle, split K across blocks and sum the partial tiles
// TILE: 64x256x32_32x128_8x16_s2_u8
//
// WHAT CHANGED: rung 10's kernel, with a third grid dimension: block z computes its tile over
//   slabs [z*S_k, (z+1)*S_k) of K only. With split S > 1 each block writes its raw partial tile
//   to a workspace (stream-ordered pool) and a second kernel sums the S partials of every
//   element in a fixed order (deterministic) and applies alpha and beta. The launcher picks S
//   from a model of the run time: waves of blocks (ceil(tiles*S / resident blocks)) times
//   slabs per block, plus the reduction's memory traffic expressed in slab-times.
// WHY: rung 10's 64x256 tile gives 64 blocks at 1024^3 and 144 at 1536^3 for 264 resident
//   slots (132 SMs x 2): most SMs idle, 29% and 59% of cuBLAS. From 4096^3 up the grid fills
//   the chip many times over and the model keeps S = 1 (rung 10 exactly).
// PREDICTION: S = 4 at 1024^3, 3 at 1536^3, 4 at 3072^3, 1 from 2048^3 and 4096^3 up;
//   1024^3 about 3x faster, 1536^3 +50%, 3072^3 +15%; unchanged at 4096^3 and 8192^3. The
//   geometric mean over 1024^3-8192^3 rises from ~71% of cuBLAS to ~85%: still short of
//   cuBLAS, whose FFMA kernel is faster per SM.
// MISS (small): 2.7x at 1024^3 rather than 3x, +43% at 1536^3, +22% at 3072^3 (more than
//   predicted); the geometric mean over 1024^3-8192^3 rose from 71% to 89% of cuBLAS (README
//   table). At 4096^3 and above the kernel is rung 10's, so the 95% target is still missed.
// EVIDENCE: <evidence>Measured on NVIDIA H200: 1024^3 59.8% -> 99.9% of cuBLAS; 1536^3 70.2% ->
//   90.4% of cuBLAS; 3072^3 95.0% -> 95.5% of cuBLAS; 49,023 GFLOP/s = 95.5% of cuBLAS at 4096^3;
//   49,276 GFLOP/s = 96.1% at 8192^3. SASS vs rung 10: instruction mix unchanged; FFMA share
//   30.9% (unchanged). ncu vs rung 10: smem_ld_bank_conflicts 75.8k -> 77.9k,
//   smem_st_bank_conflicts 3.66M -> 3.76M, dram_bytes 438M -> 436M. Shown by:
//   python3 tools/sass_report.py --diff 10 11; python3 tools/ncu_profile.py --kernel 11.</evidence>
// PRECONDITIONS: lda, ldb, ldc multiples of 4 and A, B, C 16-byte aligned (cp.async and 128-bit
//   accesses); M, N, K and the leading dimensions below 2^31; M/BM below 2^16 (grid.y). With
//   S > 1, a workspace of S * M * round4(N) floats.
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung11 {

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

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU, bool kSplit, bool kGuard>
__device__ __forceinline__ void block_tile(float* smem, int M, int N, int K, float alpha, const float* A, int lda,
                                           const float* B, int ldb, float beta, float* C, int ldc, float* W,
                                           int ldw) {
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
      if (kSplit)  // this block's raw partial sums, alpha and beta come in the reduction
        store4_epilogue(W + (int64_t(blockIdx.z) * M + row) * ldw + col, kGuard ? N - col : kVecWidth, 1.0f, acc,
                        0.0f);
      else
        store4_epilogue(C + int64_t(row) * ldc + col, kGuard ? N - col : kVecWidth, alpha, acc, beta);
    }
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU, bool kSplit>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>::kMinBlocks)
sgemm_11_split_k(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                 float* C, int ldc, float* W, int ldw, int slabsPerSplit) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A tile [BK][BM], B tile [BK][BN])
  if (kSplit) {  // block z multiplies slabs [z*S_k, (z+1)*S_k) of K: a GEMM of its own over that range
    const int k0 = blockIdx.z * slabsPerSplit * BK;
    A += k0, B += int64_t(k0) * ldb, K = min(K - k0, slabsPerSplit * BK);
  }
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior)
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, kSplit, false>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C,
                                                                  ldc, W, ldw);
  else
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, kSplit, true>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C,
                                                                 ldc, W, ldw);
}

// C = alpha * (W[0] + W[1] + ... + W[splits-1]) + beta * C, four columns per thread, the partials
// summed in the same order every time (bitwise deterministic).
__global__ void __launch_bounds__(256)
sgemm_11_split_k_reduce(int M, int N, int splits, const float* W, int ldw, float alpha, float beta, float* C,
                        int ldc) {
  const int64_t groups = int64_t(M) * (ldw / kVecWidth);  // float4 groups of a partial
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; g < groups; g += int64_t(gridDim.x) * blockDim.x) {
    const int row = int(g / (ldw / kVecWidth)), col = int(g % (ldw / kVecWidth)) * kVecWidth;
    if (col >= N) continue;
    const bool whole = col + kVecWidth <= N;  // else only the columns below N were written
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int z = 0; z < splits; ++z) {
      const float* w = W + (int64_t(z) * M + row) * ldw;
      const float4 p = whole ? load_f4(w + col) : load4_or_zero(w, col, N, true);
      sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
    }
    store4_epilogue(C + int64_t(row) * ldc + col, N - col, alpha, sum, beta);
  }
}

}  // namespace sgemm::rung11

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>

#include "common/launch.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung11 {

using Tuned = tuned::Rung10;  // rung 10's tiles: this rung changes only how the grid covers K
constexpr int kBM = Tuned::BM, kBN = Tuned::BN, kBK = Tuned::BK, kWM = Tuned::WM, kWN = Tuned::WN,
              kTM = Tuned::TM, kTN = Tuned::TN, kStages = Tuned::Stages, kKU = Tuned::KU;
using Config = Tile<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU>;

constexpr int kMaxSplit = 8;        // at most 8 partial tiles per output tile
constexpr int kMinSlabsPerSplit = 4;  // each block still runs a pipeline of >= 4 slabs
// The model's exchange rate: bytes the reduction moves in the time one block computes one slab
// (H200: a 64x256x32 slab is ~1 MFLOP, ~6 us per block at 70% of the FP32 peak shared by 264
// resident blocks; 3.5 TB/s moves ~20 MB in that time; 16 MiB keeps the estimate conservative).
constexpr double kReduceBytesPerSlab = 16.0 * 1024 * 1024;
constexpr int kReduceThreads = 256;

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kWM) +
         "x" + std::to_string(kWN) + "_" + std::to_string(kTM) + "x" + std::to_string(kTN) + "_s" +
         std::to_string(kStages) + "_u" + std::to_string(kKU);
}

bool supports(const GemmArgs& a, std::string* why) {
  return vec4_ok(a, why) && fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

// Blocks per SM the kernel's launch bounds ask the registers to allow (the split tests model the
// chip's resident blocks with it; launch() asks the occupancy API).
int min_blocks_per_sm() { return Config::kMinBlocks; }

// The split S in 1..kMaxSplit that minimises waves * slabs-per-block + reduction traffic (in
// slab-times), for `slots` resident blocks.
int choose_split(int64_t M, int64_t N, int64_t K, int64_t slots) {
  const int64_t tiles = ceil_div64(M, kBM) * ceil_div64(N, kBN), kTiles = ceil_div64(K, kBK);
  int best = 1;
  double bestCost = 0;
  for (int s = 1; s <= kMaxSplit; ++s) {
    if (s > 1 && kTiles < int64_t(s) * kMinSlabsPerSplit) break;
    const double waves = double(ceil_div64(tiles * s, slots)), slabs = double(ceil_div64(kTiles, s));
    const double reduceBytes = s > 1 ? double(M) * double(N) * sizeof(float) * (2.0 * s + 1.0) : 0.0;
    const double cost = waves * slabs + reduceBytes / kReduceBytesPerSlab;
    if (s == 1 || cost < bestCost) best = s, bestCost = cost;
  }
  return best;
}

Status launch(const GemmArgs& a, cudaStream_t stream) {
  // Two instantiations, so that the unsplit launch pays for nothing (no W test per store).
  auto whole = sgemm_11_split_k<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU, false>;
  auto kernel = sgemm_11_split_k<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU, true>;
  if (const Status s = allow_smem(whole, Config::kSmemBytes); s != Status::kOk) return s;
  if (const Status s = allow_smem(kernel, Config::kSmemBytes); s != Status::kOk) return s;
  int device = 0, sms = 0, perSm = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return from_cuda(err);
  if (const cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); err != cudaSuccess)
    return from_cuda(err);
  if (const cudaError_t err =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, Config::kThreads, Config::kSmemBytes);
      err != cudaSuccess)
    return from_cuda(err);
  const int splits = choose_split(a.M, a.N, a.K, int64_t(sms) * std::max(perSm, 1));
  const int kTiles = ceil_div(int(a.K), kBK), slabsPerSplit = ceil_div(kTiles, splits);
  const int used = ceil_div(kTiles, slabsPerSplit);  // every z gets at least one slab
  const dim3 grid(ceil_div(a.N, kBN), ceil_div(a.M, kBM), used);
  if (used == 1) {
    whole<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                                   a.beta, a.C, a.ldc, nullptr, 0, slabsPerSplit);
    return launch_status();
  }
  const int ldw = ceil_div(int(a.N), kVecWidth) * kVecWidth;  // rows of whole float4s
  void* ws = nullptr;
  const size_t bytes = size_t(used) * size_t(a.M) * size_t(ldw) * sizeof(float);
  if (const Status s = workspace_alloc(bytes, stream, &ws); s != Status::kOk) return s;
  float* W = static_cast<float*>(ws);
  kernel<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                                  a.beta, a.C, a.ldc, W, ldw, slabsPerSplit);
  Status s = launch_status_after(Status::kOk);
  const int64_t groups = int64_t(a.M) * (ldw / kVecWidth);
  const int blocks = int(std::min<int64_t>(ceil_div64(groups, kReduceThreads), int64_t(sms) * 8));
  sgemm_11_split_k_reduce<<<blocks, kReduceThreads, 0, stream>>>(int(a.M), int(a.N), used, W, ldw, a.alpha, a.beta,
                                                                  a.C, int(a.ldc));
  s = launch_status_after(s);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm::rung11
#endif
