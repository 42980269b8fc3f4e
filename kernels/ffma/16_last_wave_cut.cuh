// =====================================================================================
// Rung 16 — The last wave cut along K                                    (CUDA-core track)
// BUILDS ON: 15_copy_instructions. The lesson is the diff:
//   git diff --no-index kernels/ffma/15_copy_instructions.cuh kernels/ffma/16_last_wave_cut.cuh
// WHAT CHANGED: where the tiles leave the last wave partly empty, the tile rows from the end of
//   the full waves down are cut along K at one slab: the unchanged whole-tile kernel runs three
//   times (the rows above, whole; the cut rows' first slabs into C; their last slabs into a
//   workspace), each launch taking slots while the one before still runs (programmatic
//   dependent launch: griddepcontrol.launch_dependents at the kernel's start), then an add puts
//   the workspace into C. A model hands the blocks to slots as the hardware does and picks the
//   cut slab, or rung 15's stream-K or whole tiles where they are faster
//   (kernels/common/cut_plan.hpp; the launches: kernels/common/cut.cuh).
// WHY: rung 15 runs a last wave that is mostly full as a whole wave of whole tiles (4096^3: 1024
//   tiles on 264 slots, 3.88 waves), because its stream-K shares run each slab slower than the
//   whole-tile kernel does (the model's slabCost). The cut gives the free slots of the last wave
//   the tiles' last slabs, and every slab still runs in the whole-tile kernel's loop.
// PREDICTION: 4096^3 on 264 slots: the model's time falls from 512 slab-times (4 waves of 128)
//   to about 500: +2%. Shapes whose tiles fill whole waves, or where stream-K wins: unchanged.
// SHOW IT: build/release/bench/sgemm_bench --kernel 15,16
//   python3 tools/sass_report.py --diff 15 16 && python3 tools/ncu_profile.py --kernel 16
// PAGE: docs/rungs/16_last_wave_cut.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/stream_k.cuh"

namespace sgemm::rung16 {

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
  static constexpr int kLanesB = kWarpSize / 2;          // lanes along a B row in one copy instruction
  static constexpr int kRowsPerWarpB = BK / kWarps;      // B-tile rows each warp copies
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
  static_assert(kVecB % kLanesB == 0 && BK % (2 * kWarps) == 0, "the warps must copy the B tile in whole row pairs");
  static_assert(kLoadsA % 2 == 0, "A rows are loaded and stored in pairs");
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
// A thread's rows come in pairs (2p, 2p+1, then the pair 2 * kRowsA below), so that store_a can
// write each k's two values side by side.
template <bool kVec, class Cfg, bool kGuard>
__device__ __forceinline__ void load_a(float4 (&rStage)[Cfg::kLoadsA], const Gemm& g, int m0, int k0) {
  const int aRow = threadIdx.x / Cfg::kVecA, aCol = threadIdx.x % Cfg::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < Cfg::kLoadsA; ++i) {
    const int gRow = m0 + 2 * aRow + i % 2 + i / 2 * 2 * Cfg::kRowsA;
    const float* src = g.A + int64_t(gRow) * g.lda;
    rStage[i] = kGuard ? load4_or_zero<kVec>(src, k0 + aCol, g.K, gRow < g.M)
                       : load4<kVec>(src + k0 + aCol);
  }
}

// The A slab held in registers into its stage, transposed and swizzled. Rows m and m+1 (m even,
// as load_a read them) stay side by side through the swizzle: one 64-bit store per k.
template <class Cfg>
__device__ __forceinline__ void store_a(Stage<Cfg> st, const float4 (&rStage)[Cfg::kLoadsA]) {
  const int aRow = threadIdx.x / Cfg::kVecA, aCol = threadIdx.x % Cfg::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < Cfg::kLoadsA; i += 2) {
    const int m = swizzle_a<Cfg::BK>(aCol, 2 * aRow + i / 2 * 2 * Cfg::kRowsA);  // the same for the 4 k
    *reinterpret_cast<float2*>(&st.a[aCol + 0][m]) = make_float2(rStage[i].x, rStage[i + 1].x);
    *reinterpret_cast<float2*>(&st.a[aCol + 1][m]) = make_float2(rStage[i].y, rStage[i + 1].y);
    *reinterpret_cast<float2*>(&st.a[aCol + 2][m]) = make_float2(rStage[i].z, rStage[i + 1].z);
    *reinterpret_cast<float2*>(&st.a[aCol + 3][m]) = make_float2(rStage[i].w, rStage[i + 1].w);
  }
}

// Issue the cp.async copies of the B slab starting at k0 into its stage. A warp instruction
// copies two row segments of 16 float4s (256 contiguous bytes each); a thread's copies lie in
// BK / kWarps / 2 rows, kLanesB float4s apart along each: one address per row, the columns are
// constant offsets from it. kGuard: each 16-byte chunk reads only the bytes inside B and
// zero-fills the rest.
template <bool kVec, class Cfg, bool kGuard>
__device__ __forceinline__ void load_b_async(Stage<Cfg> st, const Gemm& g, int n0, int k0) {
  const int lane = threadIdx.x % kWarpSize;
  const int bRow = threadIdx.x / kWarpSize * Cfg::kRowsPerWarpB + lane / Cfg::kLanesB;
  const int bCol = lane % Cfg::kLanesB * kVecWidth;
#pragma unroll
  for (int r = 0; r < Cfg::kRowsPerWarpB; r += 2) {
    const int gRow = k0 + bRow + r;
    const float* src = g.B + int64_t(gRow) * g.ldb + n0 + bCol;
#pragma unroll
    for (int c = 0; c < Cfg::BN; c += Cfg::kLanesB * kVecWidth)
      cp_async_16_zfill<kVec>(&st.b[bRow + r][bCol + c], src + c,
                        kGuard ? floats_inside(n0 + bCol + c, g.N, gRow < g.K) : kVecWidth, g.B);
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
// full waves return at once (their tiles are the stream-K blocks'). The cut launches it three
// times, on parts of the rows and of K.
template <bool kVec, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_16_last_wave_cut(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                  float* C, int ldc, stream_k::Schedule sched, stream_k::Partials parts) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
#if __CUDA_ARCH__ >= 900
  // Every block has started: the next launch of the cut may take free slots now (programmatic
  // dependent launch). It reads nothing this one writes, so it never waits for it (no
  // griddepcontrol.wait); without that launch attribute this does nothing.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
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
sgemm_16_last_wave_cut_shares(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                         float beta, float* C, int ldc, stream_k::Schedule sched, stream_k::Partials parts) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
  const Gemm g{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  stream_k::for_each_unit<Cfg::BM, Cfg::BN>(sched, blockIdx.x, gridDim.x, [&](const stream_k::Unit& u) {
    const int k0 = u.kb * Cfg::BK;
    const Gemm slabs = g.k_range(k0, min(g.K - k0, (u.ke - u.kb) * Cfg::BK));
    __syncthreads();  // every warp has left the previous unit's stages
    if (u.m0 + Cfg::BM <= g.M && u.n0 + Cfg::BN <= g.N && slabs.K % Cfg::BK == 0)
      compute_tile<kVec, Cfg, false>(smem, slabs, u, parts);
    else compute_tile<kVec, Cfg, true>(smem, slabs, u, parts);
  });
}

}  // namespace sgemm::rung16

#ifndef SGEMM_DEVICE_ONLY
#include "common/cut.cuh"
#include "common/launch.cuh"
#include "ffma/16_last_wave_cut.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung16 {

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

// What the add costs per tile of the cut rows, in slab-times of one block: 12 bytes per element
// (W and C read, C written) at the DRAM peak, against a slab's 2 BM BN BK flops at one slot's
// share of the FP32 peak. Negative (no cut) where the device's peaks are unknown.
double add_slabs_per_tile(int64_t slots, const DeviceRates& r) {
  if (!(r.fp32_flops > 0 && r.dram_bytes > 0)) return -1;
  return 12.0 * r.fp32_flops / (r.dram_bytes * 2.0 * Tuned::BK * double(slots));
}

// The plan on a device of `slots` resident blocks with peaks `r`.
cut::Plan plan_on(const GemmArgs& a, int64_t slots, const DeviceRates& r, bool overlap) {
  return cut::plan(kModel, a.M, a.N, a.K, slots, add_slabs_per_tile(slots, r), overlap);
}

// The launch's kernels (128-bit accesses or 32-bit ones) prepared on the current device.
Status prepare_kernels(bool vec, KernelInfo* info, std::string* why) {
  auto whole = vec ? sgemm_16_last_wave_cut<true, Tuned> : sgemm_16_last_wave_cut<false, Tuned>;
  auto shares = vec ? sgemm_16_last_wave_cut_shares<true, Tuned> : sgemm_16_last_wave_cut_shares<false, Tuned>;
  if (const Status s = prepare(whole, Tuned::kThreads, Tuned::kSmemBytes, nullptr, why); s != Status::kOk) return s;
  return prepare(shares, Tuned::kThreads, Tuned::kSmemBytes, info, why);
}

// The plan for `a` on the current device (the launcher's, and the GPU tests').
Status plan_of(const GemmArgs& a, cut::Plan* p, std::string* why) {
  KernelInfo info;
  if (const Status s = prepare_kernels(vec4_ok(a, nullptr), &info, why); s != Status::kOk) return s;
  DeviceRates r;
  if (device_rates(&r) != Status::kOk) r = DeviceRates{};
  // Launches overlap only where programmatic dependent launch exists (sm_90 and newer).
  *p = plan_on(a, int64_t(info.sms) * info.blocks_per_sm, r, info.cc_major >= 9);
  return Status::kOk;
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  // 128-bit accesses where every row of A, B and C is 16-byte aligned, 32-bit ones otherwise.
  const bool vec = vec4_ok(a, nullptr);
  auto whole = vec ? sgemm_16_last_wave_cut<true, Tuned> : sgemm_16_last_wave_cut<false, Tuned>;
  auto shares = vec ? sgemm_16_last_wave_cut_shares<true, Tuned> : sgemm_16_last_wave_cut_shares<false, Tuned>;
  cut::Plan p;
  if (const Status s = plan_of(a, &p, why); s != Status::kOk) return s;
  if (p.cut()) return cut::launch<Tuned>(p, kModel, whole, a, stream, [](bool) { return std::tuple<>{}; });
  return stream_k::launch(p.streamK, kModel, whole, shares, Tuned::kThreads, Tuned::kSmemBytes, a, stream);
}

}  // namespace sgemm::rung16
#endif
