// =====================================================================================
// Rung 11 — Split-K against wave quantization                           (CUDA-core track)
// BUILDS ON: 10_double_buffering. The lesson is the diff:
//   git diff --no-index kernels/ffma/10_double_buffering.cuh kernels/ffma/11_split_k.cuh
// WHAT CHANGED: rung 10's kernel with a third grid dimension: block z computes its tile over
//   slabs [z*S_k, (z+1)*S_k) of K only. With a split S > 1 each block writes its raw partial
//   tile to a workspace and a second kernel sums the S partials of every element in a fixed
//   order (deterministic) and applies alpha and beta. The launcher picks S from a model of the
//   run time: waves of blocks (ceil(tiles * S / resident blocks)) times slabs per block, plus the
//   reduction's memory traffic expressed in slab-times.
// WHY: rung 10's large tile gives few blocks on small problems (64 tiles at 1024^3 for two
//   resident blocks on each of the H200's 132 SMs): most SMs idle. From 4096^3 up the grid fills
//   the chip many times over and the model keeps S = 1 (rung 10 exactly).
// PREDICTION: S = 4 at 1024^3, 3 at 1536^3, 1 from 2048^3 up; 1024^3 about 3x faster, 1536^3
//   +50%; unchanged at 4096^3 and 8192^3; geomean over 1024^3-8192^3 +15 points of cuBLAS.
// SHOW IT: build/release/bench/sgemm_bench --kernel 10,11 --sizes 1024,1536,4096
//   python3 tools/sass_report.py --diff 10 11
// PAGE: docs/rungs/11_split_k.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung11 {

// The tile parameters and what follows from them. From this rung on they travel as one type.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int Stages_, int KU_>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile: BM x BN of C, K in BK-deep slabs
  static constexpr int WM = WM_, WN = WN_;            // warp tile
  static constexpr int TM = TM_, TN = TN_;            // thread tile
  static constexpr int Stages = Stages_;              // shared-memory buffers in the ring
  static constexpr int KU = KU_;                      // k steps unrolled per pass of the loop
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
template <class Cfg>
struct Stage {
  float (*a)[Cfg::BM];  // [BK][BM]: a slab of A, transposed and XOR-swizzled
  float (*b)[Cfg::BN];  // [BK][BN]: a slab of B, row-major
};

template <class Cfg>
__device__ __forceinline__ Stage<Cfg> stage_at(float* smem, int s) {
  float* base = smem + s * Cfg::kStageFloats;
  return {reinterpret_cast<float (*)[Cfg::BM]>(base), reinterpret_cast<float (*)[Cfg::BN]>(base + Cfg::BK * Cfg::BM)};
}

// The A slab starting at k0 into registers (128-bit loads). kGuard: check bounds, fill zeros.
template <bool kVec, class Cfg, bool kGuard>
__device__ __forceinline__ void load_a(float4 (&rStage)[Cfg::kLoadsA], const Gemm& g, int m0, int k0) {
  const int aRow = threadIdx.x / Cfg::kVecA, aCol = threadIdx.x % Cfg::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < Cfg::kLoadsA; ++i) {
    const int gRow = m0 + aRow + i * Cfg::kRowsA;
    const float* src = g.A + int64_t(gRow) * g.lda;
    rStage[i] = kGuard ? load4_or_zero<kVec>(src, k0 + aCol, g.K, gRow < g.M)
                       : load4<kVec>(src + k0 + aCol);
  }
}

// The A slab held in registers into its stage, transposed and swizzled.
template <class Cfg>
__device__ __forceinline__ void store_a(Stage<Cfg> st, const float4 (&rStage)[Cfg::kLoadsA]) {
  const int aRow = threadIdx.x / Cfg::kVecA, aCol = threadIdx.x % Cfg::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < Cfg::kLoadsA; ++i) {
    const int m = swizzle_a<Cfg::BK>(aCol, aRow + i * Cfg::kRowsA);  // the same for the 4 k of this float4
    st.a[aCol + 0][m] = rStage[i].x;
    st.a[aCol + 1][m] = rStage[i].y;
    st.a[aCol + 2][m] = rStage[i].z;
    st.a[aCol + 3][m] = rStage[i].w;
  }
}

// Issue the cp.async copies of the B slab starting at k0 into its stage. kGuard: each 16-byte
// chunk reads only the bytes inside B and zero-fills the rest.
template <bool kVec, class Cfg, bool kGuard>
__device__ __forceinline__ void load_b_async(Stage<Cfg> st, const Gemm& g, int n0, int k0) {
  const int bRow = threadIdx.x / Cfg::kVecB, bCol = threadIdx.x % Cfg::kVecB * kVecWidth;
#pragma unroll
  for (int r = 0; r < Cfg::BK; r += Cfg::kRowsB) {
    const int gRow = k0 + bRow + r, gCol = n0 + bCol;
    cp_async_16_zfill<kVec>(&st.b[bRow + r][bCol], g.B + int64_t(gRow) * g.ldb + gCol,
                      kGuard ? floats_inside(gCol, g.N, gRow < g.K) : kVecWidth, g.B);
  }
}

// The register fragments of step k: a lane's TM values of A and TN values of B. quad = k / 4,
// passed apart so that a k made of a runtime chunk plus a constant still swizzles in one XOR.
template <class Cfg>
__device__ __forceinline__ void load_fragment(float (&rA)[Cfg::TM], float (&rB)[Cfg::TN], Stage<Cfg> st, int k, int quad,
                                              int aBase, int bBase) {
#pragma unroll
  for (int i = 0; i < Cfg::kGroupsM; ++i) {
    const float4 v = load_f4(&st.a[k][swizzle_a<Cfg::BK>(quad * kVecWidth, aBase + i * (Cfg::WM / Cfg::kGroupsM))]);
    rA[i * 4] = v.x, rA[i * 4 + 1] = v.y, rA[i * 4 + 2] = v.z, rA[i * 4 + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < Cfg::kGroupsN; ++j) {
    const float4 v = load_f4(&st.b[k][bBase + j * (Cfg::WN / Cfg::kGroupsN)]);
    rB[j * 4] = v.x, rB[j * 4 + 1] = v.y, rB[j * 4 + 2] = v.z, rB[j * 4 + 3] = v.w;
  }
}

template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&rA)[TM], const float (&rB)[TN], float (&rAcc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
}

// One BM x BN tile of C, K in slabs through the pipeline. kGuard: an edge tile (bounds checked).
// kSplit: store the raw partial sums into partial tile `blockIdx.z` of W (row pitch ldw) instead.
template <bool kVec, class Cfg, bool kSplit, bool kGuard>
__device__ __forceinline__ void compute_tile(float* smem, const Gemm& g, float* W, int ldw) {
  const int m0 = blockIdx.y * Cfg::BM, n0 = blockIdx.x * Cfg::BN;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (Cfg::BN / Cfg::WN) * Cfg::WM, wn0 = warp % (Cfg::BN / Cfg::WN) * Cfg::WN;  // this warp's tile
  const int aBase = wm0 + lane / Cfg::kLaneCols * kVecWidth;  // this lane's first row
  const int bBase = wn0 + lane % Cfg::kLaneCols * kVecWidth;  // and first column
  float rAcc[Cfg::TM][Cfg::TN] = {};  // [TM][TN]: rows aBase + i*WM/kGroupsM + v, columns likewise
  const int kTiles = ceil_div(g.K, Cfg::BK);
  auto stage = [&](int slab) { return stage_at<Cfg>(smem, slab % Cfg::Stages); };
  // Edge blocks and the K tail check bounds; interior full slabs do not.
  auto issue_b = [&](int slab) {  // the cp.async of one B slab, as one commit group
    if (slab < kTiles) {
      if (kGuard || (slab + 1) * Cfg::BK > g.K) load_b_async<kVec, Cfg, true>(stage(slab), g, n0, slab * Cfg::BK);
      else load_b_async<kVec, Cfg, false>(stage(slab), g, n0, slab * Cfg::BK);
    }
    cp_async_commit();  // empty groups keep the wait count uniform
  };
  float4 rStage[Cfg::kLoadsA];  // the next A slab, on its way from global to shared memory
  auto fetch_a = [&](int slab) {
    if (kGuard || (slab + 1) * Cfg::BK > g.K) load_a<kVec, Cfg, true>(rStage, g, m0, slab * Cfg::BK);
    else load_a<kVec, Cfg, false>(rStage, g, m0, slab * Cfg::BK);
  };

  // Prologue: B slabs 0 .. Stages-2 in flight, A slab 0 stored, A slab 1 in flight.
  for (int s = 0; s < Cfg::Stages - 1; ++s) issue_b(s);
  fetch_a(0);
  store_a<Cfg>(stage(0), rStage);
  if (kTiles > 1) fetch_a(1);
  cp_async_wait<Cfg::Stages - 2>();
  __syncthreads();
  float rA[2][Cfg::TM], rB[2][Cfg::TN];  // double-buffered register fragments
  load_fragment<Cfg>(rA[0], rB[0], stage(0), 0, 0, aBase, bBase);

  // The k loop runs in chunks of KU steps: only one chunk is unrolled, so the loop body stays
  // small enough for the instruction cache (a whole 32-step slab of 8x16 outer products is 70 KB
  // of SASS). KU == BK unrolls a whole slab.
  constexpr int kChunks = Cfg::BK / Cfg::KU;  // chunks per slab
#pragma unroll 1
  for (int chunk = 0; chunk < kTiles * kChunks; ++chunk) {
    const int kt = chunk / kChunks, c = chunk % kChunks;  // slab, and chunk within the slab
    if (c == 0) issue_b(kt + Cfg::Stages - 1);              // into the stage every warp left at the last barrier
    const Stage<Cfg> st = stage(kt);
#pragma unroll
    for (int k = 0; k < Cfg::KU; ++k) {
      if (k == Cfg::KU - 1 && c == kChunks - 1) {
        // End of the slab: publish A slab kt+1, wait for B slab kt+1, then prefetch its first
        // fragment and start loading A slab kt+2.
        if (kt + 1 < kTiles) store_a<Cfg>(stage(kt + 1), rStage);
        cp_async_wait<Cfg::Stages - 2>();
        __syncthreads();
        if (kt + 1 < kTiles) {
          load_fragment<Cfg>(rA[(k + 1) % 2], rB[(k + 1) % 2], stage(kt + 1), 0, 0, aBase, bBase);
          if (kt + 2 < kTiles) fetch_a(kt + 2);
        }
      } else {  // step c*KU + k + 1 of this slab
        load_fragment<Cfg>(rA[(k + 1) % 2], rB[(k + 1) % 2], st, c * Cfg::KU + k + 1,
                         c * (Cfg::KU / kVecWidth) + (k + 1) / kVecWidth, aBase, bBase);
      }
      outer_product(rA[k % 2], rB[k % 2], rAcc);
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i) {
    const int row = m0 + aBase + i / kVecWidth * (Cfg::WM / Cfg::kGroupsM) + i % kVecWidth;
    if (kGuard && row >= g.M) continue;
#pragma unroll
    for (int j = 0; j < Cfg::TN; j += kVecWidth) {
      const int col = n0 + bBase + j / kVecWidth * (Cfg::WN / Cfg::kGroupsN);
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      if (kSplit)  // this block's raw partial sums, alpha and beta come in the reduction
        store4_epilogue<true>(W + (int64_t(blockIdx.z) * g.M + row) * ldw + col, kGuard ? g.N - col : kVecWidth,
                              1.0f, acc, 0.0f);  // W's rows are 16-byte aligned
      else
        store4_epilogue<kVec>(g.C + int64_t(row) * g.ldc + col, kGuard ? g.N - col : kVecWidth, g.alpha, acc,
                            g.beta);
    }
  }
}

template <bool kVec, class Cfg, bool kSplit>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_11_split_k(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                 float* C, int ldc, float* W, int ldw, int slabsPerSplit) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
  if (kSplit) {  // block z multiplies slabs [z*S_k, (z+1)*S_k) of K: a GEMM of its own over that range
    const int k0 = blockIdx.z * slabsPerSplit * Cfg::BK;
    A += k0, B += int64_t(k0) * ldb, K = min(K - k0, slabsPerSplit * Cfg::BK);
  }
  const Gemm g{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  const bool interior = (blockIdx.y + 1) * Cfg::BM <= g.M && (blockIdx.x + 1) * Cfg::BN <= g.N;
  if (interior) compute_tile<kVec, Cfg, kSplit, false>(smem, g, W, ldw);
  else compute_tile<kVec, Cfg, kSplit, true>(smem, g, W, ldw);
}

// C = alpha * (W[0] + W[1] + ... + W[splits-1]) + beta * C, four columns per thread, the partials
// summed in the same order every time (bitwise deterministic).
template <bool kVec>
__global__ void __launch_bounds__(256)
sgemm_11_split_k_reduce(int M, int N, int splits, const float* W, int ldw, float alpha, float beta, float* C,
                        int ldc) {
  const int64_t groups = int64_t(M) * (ldw / kVecWidth);  // float4 groups of a partial
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < groups; i += int64_t(gridDim.x) * blockDim.x) {
    const int row = int(i / (ldw / kVecWidth)), col = int(i % (ldw / kVecWidth)) * kVecWidth;
    if (col >= N) continue;
    const bool whole = col + kVecWidth <= N;  // else only the columns below N were written
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int z = 0; z < splits; ++z) {
      const float* w = W + (int64_t(z) * M + row) * ldw;
      const float4 p = whole ? load_f4(w + col) : load4_or_zero<true>(w, col, N, true);  // W: 16-byte rows
      sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
    }
    store4_epilogue<kVec>(C + int64_t(row) * ldc + col, N - col, alpha, sum, beta);
  }
}

}  // namespace sgemm::rung11

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>

#include "common/launch.cuh"
#include "tuned/tuned.cuh"

namespace sgemm::rung11 {

using T = tuned::Rung10;  // rung 10's tiles: this rung changes only how the grid covers K
using Tuned = Config<T::BM, T::BN, T::BK, T::WM, T::WN, T::TM, T::TN, T::Stages, T::KU>;

constexpr int kMaxSplit = 8;          // at most 8 partial tiles per output tile
constexpr int kMinSlabsPerSplit = 4;  // each block still runs a pipeline of >= 4 slabs
// The model's exchange rate: bytes the reduction moves in the time one block computes one slab
// (264 resident blocks share the H200's FP32 rate, so one slab-time is the time 264 slabs of ~1
// MFLOP take, in which its DRAM peak moves about 20 MB; 16 MiB keeps the estimate conservative).
constexpr double kReduceBytesPerSlab = 16.0 * 1024 * 1024;
constexpr int kReduceThreads = 256;

std::string tile() { return pipelined_tile_text<Tuned>(); }

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, Tuned::BN), ceil_div64(a.M, Tuned::BM), why);
}

// Blocks per SM the kernel's launch bounds ask the registers to allow (the CPU tests model a
// chip's resident blocks with it; launch() asks the occupancy API).
int min_blocks_per_sm() { return Tuned::kMinBlocks; }

// The split S in 1..kMaxSplit that minimises waves * slabs-per-block + reduction traffic (in
// slab-times), for `slots` resident blocks.
int choose_split(int64_t M, int64_t N, int64_t K, int64_t slots) {
  const int64_t tiles = ceil_div64(M, Tuned::BM) * ceil_div64(N, Tuned::BN), kTiles = ceil_div64(K, Tuned::BK);
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

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  // Two instantiations, so that the unsplit launch pays for nothing (no W test per store); 128-bit
  // accesses where every row of A, B and C is 16-byte aligned, 32-bit ones otherwise.
  const bool vec = vec4_ok(a, nullptr);
  auto whole = vec ? sgemm_11_split_k<true, Tuned, false> : sgemm_11_split_k<false, Tuned, false>;
  auto split = vec ? sgemm_11_split_k<true, Tuned, true> : sgemm_11_split_k<false, Tuned, true>;
  auto reduce = vec ? sgemm_11_split_k_reduce<true> : sgemm_11_split_k_reduce<false>;
  KernelInfo info;
  if (const Status s = prepare(whole, Tuned::kThreads, Tuned::kSmemBytes, nullptr, why); s != Status::kOk) return s;
  if (const Status s = prepare(split, Tuned::kThreads, Tuned::kSmemBytes, &info, why); s != Status::kOk) return s;
  const int splits = choose_split(a.M, a.N, a.K, int64_t(info.sms) * info.blocks_per_sm);
  const int kTiles = ceil_div(int(a.K), Tuned::BK), slabsPerSplit = ceil_div(kTiles, splits);
  const int used = ceil_div(kTiles, slabsPerSplit);  // every z gets at least one slab
  const dim3 grid(ceil_div(int(a.N), Tuned::BN), ceil_div(int(a.M), Tuned::BM), used);
  if (used == 1) {
    whole<<<grid, Tuned::kThreads, Tuned::kSmemBytes, stream>>>(int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda),
                                                                a.B, int(a.ldb), a.beta, a.C, int(a.ldc), nullptr, 0,
                                                                slabsPerSplit);
    return launch_status();
  }
  const int ldw = ceil_div(int(a.N), kVecWidth) * kVecWidth;  // rows of whole float4s
  void* ws = nullptr;
  const size_t bytes = size_t(used) * size_t(a.M) * size_t(ldw) * sizeof(float);
  if (const Status s = workspace_alloc(bytes, stream, &ws); s != Status::kOk) return s;
  float* W = static_cast<float*>(ws);
  split<<<grid, Tuned::kThreads, Tuned::kSmemBytes, stream>>>(int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda),
                                                              a.B, int(a.ldb), a.beta, a.C, int(a.ldc), W, ldw,
                                                              slabsPerSplit);
  Status s = launch_status();
  const int64_t groups = int64_t(a.M) * (ldw / kVecWidth);
  const int blocks = int(std::min<int64_t>(ceil_div64(groups, kReduceThreads), int64_t(info.sms) * 8));
  reduce<<<blocks, kReduceThreads, 0, stream>>>(int(a.M), int(a.N), used, W, ldw, a.alpha, a.beta, a.C, int(a.ldc));
  s = launch_status_after(s);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm::rung11
#endif
