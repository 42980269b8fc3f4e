// =====================================================================================
// Rung 14 — The slab end: decided before the loop                        (CUDA-core track)
// BUILDS ON: 13_register_reuse. The lesson is the diff:
//   git diff --no-index kernels/ffma/13_register_reuse.cuh kernels/ffma/14_slab_end.cuh
// WHAT CHANGED: the end of each slab, the only part of the k loop that is not FFMAs and fragment
//   reads, now asks nothing at run time that is known before the loop. (1) Rungs 10-13 ask at
//   every slab whether it runs past K; here a tile inside M and N whose K is a multiple of BK
//   takes the unguarded loop, every other tile the guarded one, decided once per tile. (2) B
//   slab kt+Stages is issued right after the barrier that ends slab kt (into the stage every warp
//   has just left) instead of testing `chunk == 0` at every chunk, (3) behind the read of the
//   next slab's first fragment, so that the fragment's latency hides behind the copies.
// WHY: in rung 13's SASS the runtime K test wraps each A load in a guarded branch region, and
//   the chunk test costs a predicate wait at every chunk of 8 k steps; ncu puts rung 13's extra
//   stalls against cuBLAS in `wait` and `no_instruction`, the slab end's stalls.
// PREDICTION: wait stalls down by a third, +2% at 4096^3; the same gain in the stream-K shares.
// SHOW IT: build/release/bench/sgemm_bench --kernel 13,14
//   python3 tools/sass_report.py --diff 13 14 && python3 tools/ncu_profile.py --kernel 14
// PAGE: docs/rungs/14_slab_end.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/stream_k.cuh"

namespace sgemm::rung14 {

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

// The TM x TN FFMAs of one k step in 2x2 blocks (rows i, i+1 x columns j, j+1), the row pairs
// walked down for one column pair and back up for the next. Consecutive FFMAs share an operand
// of each pair, which ptxas marks .reuse (read from the reuse cache, not the register banks).
template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&rA)[TM], const float (&rB)[TN], float (&rAcc)[TM][TN]) {
  static_assert(TM % 2 == 0 && TN % 2 == 0, "2x2 blocks need even thread tiles");
#pragma unroll
  for (int j = 0; j < TN; j += 2)
#pragma unroll
    for (int ii = 0; ii < TM; ii += 2) {
      const int i = (j / 2) % 2 == 0 ? ii : TM - 2 - ii;
      rAcc[i][j] += rA[i] * rB[j];
      rAcc[i][j + 1] += rA[i] * rB[j + 1];
      rAcc[i + 1][j] += rA[i + 1] * rB[j];
      rAcc[i + 1][j + 1] += rA[i + 1] * rB[j + 1];
    }
}

// One unit of work: slabs [u.kb, u.ke) of the BM x BN tile of C at (u.m0, u.n0), through the
// pipeline; `g` covers just those slabs. kGuard: an edge tile or a K tail (bounds checked in
// every slab); otherwise nothing is checked. The unit ends as u.finish says: stored to C,
// published as a partial tile, or fixed up with the later partials.
template <bool kVec, class Cfg, bool kGuard>
__device__ __forceinline__ void compute_tile(float* smem, const Gemm& g, const stream_k::Unit& u,
                                             const stream_k::Partials& parts) {
  const int m0 = u.m0, n0 = u.n0;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (Cfg::BN / Cfg::WN) * Cfg::WM, wn0 = warp % (Cfg::BN / Cfg::WN) * Cfg::WN;  // this warp's tile
  const int aBase = wm0 + lane / Cfg::kLaneCols * kVecWidth;  // this lane's first row
  const int bBase = wn0 + lane % Cfg::kLaneCols * kVecWidth;  // and first column
  float rAcc[Cfg::TM][Cfg::TN] = {};  // [TM][TN]: rows aBase + i*WM/kGroupsM + v, columns likewise
  const int kTiles = ceil_div(g.K, Cfg::BK);
  auto stage = [&](int slab) { return stage_at<Cfg>(smem, slab % Cfg::Stages); };
  auto issue_b = [&](int slab) {  // the cp.async of one B slab, as one commit group
    if (slab < kTiles) load_b_async<kVec, Cfg, kGuard>(stage(slab), g, n0, slab * Cfg::BK);
    cp_async_commit();  // empty groups keep the wait count uniform
  };
  float4 rStage[Cfg::kLoadsA];  // the next A slab, on its way from global to shared memory
  auto fetch_a = [&](int slab) { load_a<kVec, Cfg, kGuard>(rStage, g, m0, slab * Cfg::BK); };

  // Prologue: B slabs 0 .. Stages-1 in flight (one more than before: the next is issued at the
  // slab-end barrier), A slab 0 stored, A slab 1 in flight.
  for (int s = 0; s < Cfg::Stages; ++s) issue_b(s);
  fetch_a(0);
  store_a<Cfg>(stage(0), rStage);
  if (kTiles > 1) fetch_a(1);
  cp_async_wait<Cfg::Stages - 1>();
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
    const Stage<Cfg> st = stage(kt);
#pragma unroll
    for (int k = 0; k < Cfg::KU; ++k) {
      if (k == Cfg::KU - 1 && c == kChunks - 1) {
        // End of the slab: publish A slab kt+1, wait for B slab kt+1, read its first fragment
        // (its latency hides behind the copies issued next), then start B slab kt+Stages in the
        // stage every warp has now left, and A slab kt+2.
        if (kt + 1 < kTiles) store_a<Cfg>(stage(kt + 1), rStage);
        cp_async_wait<Cfg::Stages - 2>();
        __syncthreads();
        if (kt + 1 < kTiles) load_fragment<Cfg>(rA[(k + 1) % 2], rB[(k + 1) % 2], stage(kt + 1), 0, 0, aBase, bBase);
        issue_b(kt + Cfg::Stages);
        if (kt + 1 < kTiles) {  // (nested as measured: the flat test compiles to another schedule)
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
  if (u.finish == stream_k::Finish::kPublish) return stream_k::publish<Cfg::kThreads>(rAcc, parts, u.block);
  if (u.finish == stream_k::Finish::kFixUp) stream_k::add_partials<Cfg::kThreads>(rAcc, parts, u.block, u.lastHelper);

#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i) {
    const int row = m0 + aBase + i / kVecWidth * (Cfg::WM / Cfg::kGroupsM) + i % kVecWidth;
    if (kGuard && row >= g.M) continue;
#pragma unroll
    for (int j = 0; j < Cfg::TN; j += kVecWidth) {
      const int col = n0 + bBase + j / kVecWidth * (Cfg::WN / Cfg::kGroupsN);
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      store4_epilogue<kVec>(g.C + int64_t(row) * g.ldc + col, kGuard ? g.N - col : kVecWidth, g.alpha, acc,
                            g.beta);
    }
  }
}

// The whole tiles of the full waves: block (x, y) computes tile row y, column x; blocks past the
// full waves return at once (their tiles are the stream-K blocks').
template <bool kVec, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_14_slab_end(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                  float* C, int ldc, stream_k::Schedule sched, stream_k::Partials parts) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
  if (int(blockIdx.y * gridDim.x + blockIdx.x) >= sched.dpTiles) return;
  const Gemm g{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  const stream_k::Unit u = stream_k::whole_tile(blockIdx.y * Cfg::BM, blockIdx.x * Cfg::BN, sched.kTiles);
  const bool inside = (blockIdx.y + 1) * Cfg::BM <= g.M && (blockIdx.x + 1) * Cfg::BN <= g.N && g.K % Cfg::BK == 0;
  if (inside) compute_tile<kVec, Cfg, false>(smem, g, u, parts);
  else compute_tile<kVec, Cfg, true>(smem, g, u, parts);
}

// The stream-K blocks: block b computes its even share of the slabs of the tiles after the full
// waves, unit by unit, each unit a GEMM of its own over its slabs.
template <bool kVec, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_14_slab_end_shares(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                         float beta, float* C, int ldc, stream_k::Schedule sched, stream_k::Partials parts) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
  const Gemm g{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  stream_k::for_each_unit<Cfg::BM, Cfg::BN>(sched, blockIdx.x, gridDim.x, [&](const stream_k::Unit& u) {
    const int k0 = u.kb * Cfg::BK;
    const Gemm slabs = g.k_range(k0, min(g.K - k0, (u.ke - u.kb) * Cfg::BK));
    __syncthreads();  // every warp has left the previous unit's stages
    const bool inside = u.m0 + Cfg::BM <= g.M && u.n0 + Cfg::BN <= g.N && slabs.K % Cfg::BK == 0;
    if (inside) compute_tile<kVec, Cfg, false>(smem, slabs, u, parts);
    else compute_tile<kVec, Cfg, true>(smem, slabs, u, parts);
  });
}

}  // namespace sgemm::rung14

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.cuh"
#include "tuned/tuned.cuh"

namespace sgemm::rung14 {

using T = tuned::Rung10;  // rung 10's tiles
using Tuned = Config<T::BM, T::BN, T::BK, T::WM, T::WN, T::TM, T::TN, T::Stages, T::KU>;

// A slab of a stream-K share costs tuned::kStreamKSlabCost whole-tile slabs.
constexpr stream_k::Model kModel{Tuned::BM, Tuned::BN, Tuned::BK, tuned::kStreamKSlabCost};

std::string tile() { return pipelined_tile_text<Tuned>(); }

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, Tuned::BN), ceil_div64(a.M, Tuned::BM), why);
}

// For the CPU tests: the model, and the blocks per SM the launch bounds ask the registers for.
stream_k::Model model() { return kModel; }
int min_blocks_per_sm() { return Tuned::kMinBlocks; }

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  // 128-bit accesses where every row of A, B and C is 16-byte aligned, 32-bit ones otherwise.
  const bool vec = vec4_ok(a, nullptr);
  auto whole = vec ? sgemm_14_slab_end<true, Tuned> : sgemm_14_slab_end<false, Tuned>;
  auto shares = vec ? sgemm_14_slab_end_shares<true, Tuned> : sgemm_14_slab_end_shares<false, Tuned>;
  KernelInfo info;
  if (const Status s = prepare(whole, Tuned::kThreads, Tuned::kSmemBytes, nullptr, why); s != Status::kOk) return s;
  if (const Status s = prepare(shares, Tuned::kThreads, Tuned::kSmemBytes, &info, why); s != Status::kOk) return s;
  const stream_k::Plan p = stream_k::plan(kModel, a.M, a.N, a.K, int64_t(info.sms) * info.blocks_per_sm);
  return stream_k::launch(p, kModel, whole, shares, Tuned::kThreads, Tuned::kSmemBytes, a, stream);
}

}  // namespace sgemm::rung14
#endif
