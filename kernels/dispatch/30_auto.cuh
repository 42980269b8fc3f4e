// =====================================================================================
// Rung 30 — Dispatch: the kernel for the shape                             (dispatch track)
// BUILDS ON: nothing: not a copy. It runs the capstone's kernels (rung 17, through the interface
//   it declares: ffma/17_any_layout.hpp) in five tiles and as split-K, GEMVs of its own
//   (dispatch/gemv.cuh) and the library's repack (sgemm::repack, api/pack.cu), and picks per call.
// WHAT CHANGED: callers pass shapes the capstone's 64x256 tile serves badly: decode steps (M of
//   1-32), skinny products, reductions over a long K, small problems, ragged rows. Candidates:
//   (1) GEMV for M <= 32, B read once (128-bit columns where its rows are aligned, 1-8 rows, K
//   whole), K split over warps and blocks (op(B) = B^T, M <= 16: a warp
//   per column, along K; N <= 16 with a tall A: the same for C^T); (2) the capstone's kernel
//   with tiles 64x256, 32x256, 128x64, 64x64, each with its stream-K plan, and 64x64 in
//   16-deep slabs for K <= 16; (3) split-K on the
//   64x64 and 32x256 tiles with a parallel reduction; (4) repack: unaligned operands copied to
//   16-byte-aligned rows, then the best of (2)-(3) on the copies. None is refused; every layout,
//   batch and bias is taken, by the candidates that can (split-K and repack: one product). A cost model
//   picks one (host C++: kernels/dispatch/model.cpp; its constants: `sgemm_autotune --dispatch`).
// WHY: the capstone pads M and N to whole 64x256 tiles (at M = 1 it computes 64 rows to use one);
//   stream-K's fix-up adds a tile's partials one after another; 32-bit accesses and per-slab
//   bounds checks slow every tile. cuBLAS ships many kernels and a heuristic that picks one.
// PREDICTION: decode (1 x 4096 x 4096) within 85% of the time reading B takes at full bandwidth;
//   no suite shape more than 15 percent behind cuBLAS; large shapes exactly the capstone.
// SHOW IT: build/release/bench/sgemm_bench --kernel auto --suite workloads
//   build/release/bench/sgemm_bench --kernel auto --m 1 --n 4096 --k 4096 (the log names the choice)
//   build/release/tools/sgemm_autotune --dispatch-explain 16x128256x4096 (the model's predictions)
// PAGE: docs/rungs/30_auto.md (the choices, the model, the measured table)
// =====================================================================================
#pragma once

#include <algorithm>
#include <string>

#include "common/common.cuh"
#include "common/stream_k.cuh"
#include "common/launch.cuh"
#include "common/cut.cuh"
#include "dispatch/gemv.cuh"
#include "dispatch/model.hpp"
#include "ffma/17_any_layout.hpp"
#include "tuned/tuned.cuh"

// The capstone's kernel templates, instantiated here for the other tiles (its launcher stays in
// rung 17's own translation unit: ffma/17_any_layout.hpp declares what this rung calls).
#define SGEMM_DEVICE_ONLY
#include "ffma/17_any_layout.cuh"
#undef SGEMM_DEVICE_ONLY

namespace sgemm::rung30 {

// Split-K: block (x, y, z) computes slabs [z * slabsPerSplit, (z + 1) * slabsPerSplit) of tile row
// y, column x with the capstone's tile code and stores the raw partial sums (alpha 1, beta 0) as
// partial z of W, row-major with row pitch ldw. The reduction below adds the partials.
template <bool kVec, bool kTransA, bool kTransB, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_30_split_k(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* W, int ldw,
                 int slabsPerSplit) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
  const int k0 = int(blockIdx.z) * slabsPerSplit * Cfg::BK;
  const Gemm whole{M, N, K, 1.0f, A, lda, B, ldb, 0.0f, W + int64_t(blockIdx.z) * M * ldw, ldw};
  const Gemm g = whole.k_range(k0, min(K - k0, slabsPerSplit * Cfg::BK), kTransA, kTransB);
  const stream_k::Unit u = stream_k::whole_tile(blockIdx.y * Cfg::BM, blockIdx.x * Cfg::BN, ceil_div(g.K, Cfg::BK));
  const stream_k::Partials none{nullptr, nullptr};
  if ((blockIdx.y + 1) * Cfg::BM <= M && (blockIdx.x + 1) * Cfg::BN <= N && g.K % Cfg::BK == 0)
    rung17::compute_tile<kVec, kTransA, kTransB, Cfg, false>(smem, g, u, none);
  else rung17::compute_tile<kVec, kTransA, kTransB, Cfg, true>(smem, g, u, none);
}

// C = alpha * (W[0] + ... + W[splits - 1]) + beta * C (+ bias). Lane x of a block owns four columns; warp y
// adds partials y, y + Y, ... (Y = blockDim.y, up to 32), so that many are read at once, and warp 0
// adds the warps' sums in warp order: the same order on every run (bitwise deterministic).
template <bool kVec>
__global__ void __launch_bounds__(kWarpSize * kWarpSize)
sgemm_30_reduce(int M, int N, int splits, const float* W, int ldw, float alpha, float beta, float* C, int ldc,
                const float* bias) {
  __shared__ float4 sSum[kWarpSize][kWarpSize];  // [warp][lane]
  const int groupsPerRow = ldw / kVecWidth;
  const int64_t group = int64_t(blockIdx.x) * kWarpSize + threadIdx.x;
  const int row = int(group / groupsPerRow), col = int(group % groupsPerRow) * kVecWidth;
  const bool mine = row < M && col < N;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (mine) {
    const bool whole = col + kVecWidth <= N;  // else only the columns below N were written
#pragma unroll 4
    for (int z = threadIdx.y; z < splits; z += blockDim.y) {
      const float* w = W + (int64_t(z) * M + row) * ldw;
      const float4 p = whole ? load_f4(w + col) : load4_or_zero<true>(w, col, N, true);  // W: 16-byte rows
      sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
    }
  }
  sSum[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || !mine) return;
  for (int y = 1; y < int(blockDim.y); ++y) {
    const float4 p = sSum[y][threadIdx.x];
    sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
  }
  store4_epilogue<kVec>(C + int64_t(row) * ldc + col, N - col, alpha, sum, beta, bias != nullptr,
                        load4_or_zero<false>(bias, col, N, bias != nullptr));
}

using T = tuned::Rung10;  // the capstone's tile
using Capstone = rung17::Config<T::BM, T::BN, T::BK, T::WM, T::WN, T::TM, T::TN, T::Stages, T::KU>;
// Other tiles for the capstone's kernels: few rows, few columns, small problems (also split-K's).
using FewRows = rung17::Config<32, 256, 32, 32, 64, 8, 8, 2, 8>;  // four warps of 64 accumulators
using FewCols = rung17::Config<128, 64, 32, 32, 64, 8, 8, 2, 8>;
using Small = rung17::Config<64, 64, 32, 32, 32, 4, 8, 2, 8>;
using ShortK = rung17::Config<64, 64, 16, 32, 32, 4, 8, 2, 8>;  // a K of 8-16 in one slab, not half of one
template <class Cfg, size_t kC>
constexpr bool same_tile() {
  return kCandidateList[kC].BM == Cfg::BM && kCandidateList[kC].BN == Cfg::BN && kCandidateList[kC].BK == Cfg::BK;
}

// ---- the capstone's kernel in other tiles, with its stream-K plan --------------------------------

// Its kernels in tile Cfg for an access width and the operands' layouts.
template <class Cfg>
struct Tiles {
  decltype(&rung17::sgemm_17_any_layout<true, false, false, Cfg>) whole, shares;
};
// vecC false with vec (NN only, tiles_vec): 128-bit loads, C stored a float at a time.
template <class Cfg>
Tiles<Cfg> tiles_of(bool vec, bool transA, bool transB, bool vecC = true) {
  if (vec && !vecC)
    return Tiles<Cfg>{rung17::sgemm_17_any_layout<true, false, false, Cfg, false>,
                      rung17::sgemm_17_any_layout_shares<true, false, false, Cfg, false>};
  return by_layout(vec, transA, transB, [](auto v, auto ta, auto tb) {
    return Tiles<Cfg>{rung17::sgemm_17_any_layout<v(), ta(), tb(), Cfg>,
                      rung17::sgemm_17_any_layout_shares<v(), ta(), tb(), Cfg>};
  });
}
template <class Cfg>
Status prepare_tiles(const Tiles<Cfg>& t, bool transB, KernelInfo* info, std::string* why) {
  const int smem = Cfg::smem_bytes(transB);
  const Status s = prepare(t.whole, Cfg::kThreads, smem, nullptr, why);
  return s != Status::kOk ? s : prepare(t.shares, Cfg::kThreads, smem, info, why);
}
template <bool kVec, class Cfg>  // NN's, for the model's occupancy (its constants are NN's)
Status prepare_tiles(KernelInfo* info, std::string* why) {
  return prepare_tiles(tiles_of<Cfg>(kVec, false, false), false, info, why);
}

// A batch runs whole tiles, grid z the product (as the capstone's own launch does).
template <class Cfg>
Status launch_tiles(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  const Tiles<Cfg> t = tiles_of<Cfg>(tiles_vec(a), a.transa, a.transb, vec4_ok_batched(a));
  KernelInfo info;
  if (const Status s = prepare_tiles(t, a.transb, &info, why); s != Status::kOk) return s;
  const Batch batch{a.strideA, a.strideB, a.strideC, a.bias};
  if (a.batch > 1) return cut::launch_batch<Cfg>(t.whole, a, batch, stream);
  const stream_k::Model m{Cfg::BM, Cfg::BN, Cfg::BK, rung17::model().slabCost, rung17::model().minSlabsPerUnit};
  const stream_k::Plan p = stream_k::plan(m, a.M, a.N, a.K, int64_t(info.sms) * info.blocks_per_sm);
  return stream_k::launch(p, m, t.whole, t.shares, Cfg::kThreads, Cfg::smem_bytes(a.transb), a, stream, batch);
}

// ---- split-K with a parallel reduction ----------------------------------------------------------

template <bool kVec, class Cfg, bool kTransA = false, bool kTransB = false>
Status prepare_split_k(KernelInfo* info, std::string* why) {
  const Status s = prepare(sgemm_30_reduce<kVec>, kWarpSize * kWarpSize, 0, nullptr, why);
  auto split = sgemm_30_split_k<kVec, kTransA, kTransB, Cfg>;
  return s != Status::kOk ? s : prepare(split, Cfg::kThreads, Cfg::smem_bytes(kTransB), info, why);
}

// Split-K as the model splits it (candidate kC's costs; or into at most `splits` parts, the
// calibration's chosen residencies): the partials into a workspace, then the reduction into C (and
// the bias). One product: a batch runs as tiles.
template <class Cfg, size_t kC>
Status launch_split_k_into(const GemmArgs& a, int splits, cudaStream_t stream, std::string* why) {
  static_assert(same_tile<Cfg, kC>(), "the model prices the tile that runs");
  if (a.batch > 1) return launch_tiles<Cfg>(a, stream, why);
  const bool vec = loads_vec(a);  // the partials' rows are W's; C is the reduction's
  struct Kernels {
    decltype(&sgemm_30_split_k<true, false, false, Cfg>) split;
    Status (*prepare)(KernelInfo*, std::string*);
  };
  const Kernels kk = by_layout(vec, a.transa, a.transb, [](auto v, auto ta, auto tb) {
    return Kernels{sgemm_30_split_k<v(), ta(), tb(), Cfg>, prepare_split_k<v(), Cfg, ta(), tb()>};
  });
  KernelInfo info;
  if (const Status s = kk.prepare(&info, why); s != Status::kOk) return s;
  const Constants& k = device_constants();
  const Split sp = splits > 0 ? split_into(a, Cfg::BM, Cfg::BN, Cfg::BK, splits, info)
                              : split_of(a, Cfg::BM, Cfg::BN, Cfg::BK, info, k.costs[kC], k.bytesPerNs);
  if (sp.splits < 2) return launch_tiles<Cfg>(a, stream, why);  // nothing to split
  const int ldw = ceil_div(int(a.N), kVecWidth) * kVecWidth;   // rows of whole float4s
  void* ws = nullptr;
  if (workspace_alloc(size_t(sp.splits) * size_t(a.M) * size_t(ldw) * sizeof(float), stream, &ws) != Status::kOk)
    return launch_tiles<Cfg>(a, stream, why);  // no room for the partials: stream-K needs less
  float* W = static_cast<float*>(ws);
  const dim3 grid(ceil_div(int(a.N), Cfg::BN), ceil_div(int(a.M), Cfg::BM), unsigned(sp.splits));
  kk.split<<<grid, Cfg::kThreads, Cfg::smem_bytes(a.transb), stream>>>(int(a.M), int(a.N), int(a.K), a.A, int(a.lda), a.B,
                                                          int(a.ldb), W, ldw, sp.slabsPerSplit);
  Status s = launch_status();
  const dim3 block(kWarpSize, unsigned(std::min(sp.splits, kWarpSize)));
  const int64_t groups = int64_t(a.M) * (ldw / kVecWidth);
  auto reduce = rows_aligned(a.C, a.ldc) ? sgemm_30_reduce<true> : sgemm_30_reduce<false>;
  reduce<<<unsigned(ceil_div64(groups, kWarpSize)), block, 0, stream>>>(int(a.M), int(a.N), sp.splits, W, ldw,
                                                                        a.alpha, a.beta, a.C, int(a.ldc), a.bias);
  s = launch_status_after(s);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}
template <class Cfg, size_t kC>
Status launch_split_k(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return launch_split_k_into<Cfg, kC>(a, 0, stream, why);
}

// ---- GEMV -------------------------------------------------------------------------------------

// The GEMVs launch early from sm_90 on (launch_early): their kernels warm L2, then wait for the
// launch before them before they read (gemv_overlap).
// The grid is the model's (gemv_grid); with K split over blocks, gemv_scratch's partials and tickets.
// V = 4 (128-bit loads) reads 4 columns a lane in rounds of 4 rows at 1-4 rows of C (8 would spill
// at 64 registers a thread) and 8 past that; V = 1 as the kernel's comment above says.
template <int MT, int V>
constexpr int gemv_round_rows() { return V > 1 && MT <= kGemvDeepMaxRows ? kVecWidth : kGemvRound; }
template <int MT, int V>
constexpr int gemv_block_warps() { return gemv_warps<MT, gemv_cols<MT, V>() * V>(); }
template <int MT, int V>
Status gemv_grid_of(const GemmArgs& a, KernelInfo* info, GemvGrid* g, std::string* why) {
  constexpr int CT = gemv_cols<MT, V>(), kWarps = gemv_block_warps<MT, V>();
  if (const Status s = prepare(sgemm_30_gemv<MT, CT, V, gemv_round_rows<MT, V>()>, kWarps * kWarpSize, 0, info, why);
      s != Status::kOk)
    return s;
  *g = gemv_grid(a, *info, kWarps, kWarpSize * CT * V, kGemvChunk);
  return Status::kOk;
}
// K split over at most this many blocks of a column group (sm_90 on): they run as one cluster and
// add their sums through distributed shared memory (gemv.cuh), with no workspace to allocate and no
// tickets to zero on the stream; more parts, or an older GPU, take the workspace.
constexpr int kGemvMaxCluster = 8;  // the portable cluster size
// One row of C takes blocks of kGemvOneRowWarps warps, with 255 registers a thread for deep rounds:
// 128-bit columns in rounds of kGemvOneRowVecRound rows (warming L2 where the grid is one wave), and
// scalar columns, in grids of several waves, two groups of 32 columns a lane (kGemvOneRowGroups: a
// warp's rows 256 bytes, each block twice the columns) in rounds of 32 rows, or of 16 where the
// grid's blocks of deep rounds would all be resident at once (nothing queued behind a block to hide
// the end of its rounds); one group in rounds of 32 where the blocks of two would not outnumber the
// SMs. A one-wave grid of scalar columns keeps its 32-warp blocks: with 8, an SM would hold too few
// loads. Measured hot against the other grids: docs/rungs/30_auto.md.
constexpr int kGemvOneRowWarps = 8;
constexpr int kGemvOneRowVecRound = 16;
constexpr int kGemvOneRowGroups = 2;
constexpr int kGemvOneRowShallowRound = 16;
// The kernel instance for a grid, and how it runs (*plan: its column groups a lane, its rounds,
// whether its parts of K run as clusters); *gg is updated to the column blocks, parts and warps
// taken. A cluster takes fewer parts where every column group's cluster would not be resident at
// once: a GPC whose SMs are not a multiple of the cluster's blocks leaves some out, and a second
// wave of clusters costs more than a part less (measured: docs/rungs/30_auto.md).
template <int MT, int V>
auto gemv_rows_kernel(const GemmArgs& a, const KernelInfo& info, GemvGrid* gg, GemvRowsPlan* plan) {
  constexpr int CT = gemv_cols<MT, V>(), R = gemv_round_rows<MT, V>();
  // Scalar columns: deep rounds where the rows allow them and no SM gets a second block, else R.
  constexpr int kDeep = MT <= kGemvDeepMaxRows && V == 1 ? kGemvDeepRound : R;
  constexpr int kOne = kGemvOneRowWarps;
  using Kernel = decltype(&sgemm_30_gemv<MT, CT, V, R>);
  plan->groups = CT;
  plan->cluster = false;
  if constexpr (MT == 1 && V == 1) {
    if (gg->splits == 1 && gg->colBlocks > info.sms) {  // several waves (K is never split there: gemv_grid)
      constexpr int kCT = kGemvOneRowGroups;
      const Kernel deep = sgemm_30_gemv<1, kCT, 1, kGemvDeepRound, kOne, false>;
      const int64_t blocks = ceil_div64(a.N, kWarpSize * kCT);
      gg->warps = std::min(gg->warps, kOne);
      plan->round = kGemvDeepRound;
      // One group where the blocks of two would not outnumber the SMs: each SM would keep one block
      // of 8 warps, too few loads in flight.
      if (blocks <= info.sms) return Kernel(sgemm_30_gemv<1, 1, 1, kGemvDeepRound, kOne, false>);
      gg->colBlocks = blocks;
      plan->groups = kCT;
      KernelInfo deepInfo;
      if (prepare(deep, kOne * kWarpSize, 0, &deepInfo, nullptr) == Status::kOk &&
          blocks <= int64_t(deepInfo.sms) * deepInfo.blocks_per_sm) {
        plan->round = kGemvOneRowShallowRound;
        return Kernel(sgemm_30_gemv<1, kCT, 1, kGemvOneRowShallowRound, kOne, false>);
      }
      return deep;
    }
  }
  // The instance for `splits` parts of K, its block's most warps (*lb) and its rounds (*round).
  auto kernel_for = [&](int64_t splits, int* lb, int* round) -> Kernel {
    const bool oneWave = gg->colBlocks * splits <= info.sms;
    *lb = gemv_block_warps<MT, V>();
    if constexpr (MT == 1) {
      if constexpr (V == kVecWidth) {
        *lb = kOne;
        *round = kGemvOneRowVecRound;
        return oneWave ? sgemm_30_gemv<1, 1, V, kGemvOneRowVecRound, kOne, true>
                       : sgemm_30_gemv<1, 1, V, kGemvOneRowVecRound, kOne, false>;
      }
    }
    *round = oneWave ? kDeep : R;
    return oneWave ? sgemm_30_gemv<MT, CT, V, kDeep> : sgemm_30_gemv<MT, CT, V, R>;
  };
  int lb = 0;
  if (gemv_cluster_split<MT, CT * V>() && gg->splits > 1 && gg->splits <= kGemvMaxCluster) {
    const int64_t chunks = ceil_div64(a.K, kGemvChunk);
    for (int64_t want = gg->splits; want > 1; --want) {
      const int64_t perBlock = ceil_div64(chunks, want), splits = ceil_div64(chunks, perBlock);
      auto kernel = kernel_for(splits, &lb, &plan->round);
      const int warps = std::min(gg->warps, lb);
      if (splits > 1 && max_clusters(kernel, warps * kWarpSize, 0, int(splits)) >= gg->colBlocks) {
        plan->cluster = true;
        gg->splits = int(splits);
        gg->kPerBlock = int(perBlock * kGemvChunk);
        gg->warps = warps;
        return kernel;
      }
    }
  }
  auto kernel = kernel_for(gg->splits, &lb, &plan->round);  // unsplit, or no cluster fits: the workspace, as planned
  gg->warps = std::min(gg->warps, lb);
  return kernel;
}
template <int MT, int V>
Status launch_gemv_rows_v(const GemmArgs& a, const KernelInfo& info, const GemvGrid& gg, cudaStream_t stream,
                          std::string* why) {
  GemvRowsPlan plan;
  GemvGrid g = gg;
  auto kernel = gemv_rows_kernel<MT, V>(a, info, &g, &plan);
  const bool cluster = plan.cluster;
  const dim3 grid(unsigned(g.colBlocks), unsigned(g.splits)), block(unsigned(g.warps * kWarpSize));
  GemvScratch sc;
  Status s = cluster ? Status::kOk : gemv_scratch(a, grid.x, grid.y, stream, &sc);
  if (s == Status::kOk)
    s = launch_early_cluster(kernel, grid, block, 0, info.cc_major >= 9, cluster ? grid.y : 1u, stream, a.M, a.N,
                             a.K, a.alpha, a.A, a.lda, a.transa, a.B, a.ldb, a.beta, a.C, a.ldc, a.bias, g.kPerBlock,
                             sc.W, sc.tickets);
  if (sc.ws != nullptr)
    if (const Status f = workspace_free(sc.ws, stream); s == Status::kOk) s = f;
  return s;
}
// 128-bit loads of four adjacent columns a lane where B's rows are 16-byte aligned, the column
// blocks alone (4 x fewer) still give every SM its warps (K not split over blocks: a split's partials
// and its last block's sums cost more than wider loads gain), and the 4 x MT accumulators leave an
// SM at least 16 warps (at 16-32 rows they leave one block of 8, too few loads in flight); else
// scalar columns. Measured: docs/rungs/30_auto.md. *V: the columns a lane.
constexpr int kGemvVecMinWarps = 16;
template <int MT>
Status gemv_rows_plan(const GemmArgs& a, int* V, KernelInfo* info, GemvGrid* gg, std::string* why) {
  if (rows_aligned_all(a.B, a.ldb, a.strideB, 1)) {
    if (const Status s = gemv_grid_of<MT, kVecWidth>(a, info, gg, why); s != Status::kOk) return s;
    *V = kVecWidth;
    if (gg->splits == 1 && info->blocks_per_sm * gemv_block_warps<MT, kVecWidth>() >= kGemvVecMinWarps)
      return Status::kOk;
  }
  *V = 1;
  return gemv_grid_of<MT, 1>(a, info, gg, why);
}
template <int MT>
Status launch_gemv_rows(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  KernelInfo info;
  GemvGrid gg;
  int V = 1;
  if (const Status s = gemv_rows_plan<MT>(a, &V, &info, &gg, why); s != Status::kOk) return s;
  return V == kVecWidth ? launch_gemv_rows_v<MT, kVecWidth>(a, info, gg, stream, why)
                        : launch_gemv_rows_v<MT, 1>(a, info, gg, stream, why);
}
template <int MT>
GemvRowsPlan gemv_rows_plan_for(const GemmArgs& a) {
  KernelInfo info;
  GemvGrid gg;
  int V = 0;
  std::string why;
  GemvRowsPlan p;
  if (gemv_rows_plan<MT>(a, &V, &info, &gg, &why) != Status::kOk) return p;
  if (V == kVecWidth) gemv_rows_kernel<MT, kVecWidth>(a, info, &gg, &p);
  else gemv_rows_kernel<MT, 1>(a, info, &gg, &p);
  p.laneColumns = V;
  p.splits = gg.splits;
  return p;
}
GemvRowsPlan gemv_rows_plan_of(const GemmArgs& a) {
  if (gemv_form(a) != GemvForm::kRows) return {};
  constexpr GemvRowsPlan (*kPlans[kGemvGroups])(const GemmArgs&) = {
      &gemv_rows_plan_for<1>, &gemv_rows_plan_for<2>, &gemv_rows_plan_for<4>,
      &gemv_rows_plan_for<8>, &gemv_rows_plan_for<16>, &gemv_rows_plan_for<kGemvMaxRows>};
  return kPlans[gemv_group(a.M)](a);
}

// op(B) = B^T: warps in groups of `split` per CT columns, product blockIdx.y of a batch (at most
// 65535 a launch). kSwap, the narrow-N form (gemv_form): the kernel's few rows are op(B)^T (N of
// them; element (n, k) at B[k ldb + n], K-major, or with op(B) = B^T at B[n ldb + k]) and its many
// rows A's (M of them, along K); it writes C^T's elements into C.
template <int MT, bool kSwap>
Status launch_gemv_t_rows(const GemmArgs& a, cudaStream_t stream, std::string* why);

// The narrow-N form where op(B) = B: B's K x N values are first copied to N rows along K
// (copy_transposed: 8 K N bytes, one launch), so that the kernel reads its few rows as it reads
// nn.Linear's weight. Read K-major in place at 5-16 columns, each of a warp's loads would touch 32
// cache lines for 16 bytes of each: L1, not the memory, would set the pace; at 1-4 columns a float
// at a time or four k steps' values apart, with a check per value, slower than the copy and the
// unchecked walk on it (rung 30's page has the measurements).
template <int MT>
Status launch_gemv_narrow_copied(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  const int64_t ldt = ceil_div64(a.K, kVecWidth) * kVecWidth, per = a.N * ldt;
  void* ws = nullptr;
  if (const Status s = workspace_alloc(size_t(per * a.batch) * sizeof(float), stream, &ws); s != Status::kOk) return s;
  GemmArgs t = a;
  t.B = static_cast<const float*>(ws);
  t.ldb = ldt;
  t.strideB = per;
  t.transb = true;
  Status s = copy_transposed(a.B, a.K, a.N, a.ldb, a.batch > 1 ? a.strideB : 0, static_cast<float*>(ws), ldt, per,
                             a.batch, stream);
  if (s == Status::kOk) s = launch_gemv_t_rows<MT, true>(t, stream, why);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

template <int MT, bool kSwap>
Status launch_gemv_t_rows(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  constexpr int CT = gemv_t_cols<MT>();
  if constexpr (kSwap) {
    if (gemv_narrow_copies_b(a)) return launch_gemv_narrow_copied<MT>(a, stream, why);
    if (!a.transb) {  // one column, contiguous: already a row along K
      GemmArgs t = a;
      t.transb = true, t.ldb = a.K;
      return launch_gemv_t_rows<MT, true>(t, stream, why);
    }
  }
  const int64_t few = kSwap ? a.N : a.M, many = kSwap ? a.M : a.N;
  const float* S = kSwap ? a.B : a.A;            // the few rows
  const int64_t lds = kSwap ? a.ldb : a.lda, strideS = kSwap ? a.strideB : a.strideA;
  const bool kMajor = kSwap ? !a.transb : a.transa;  // S(m, k) at S[k lds + m]
  const float* L = kSwap ? a.A : a.B;            // the many rows, along K
  const int64_t ldl = kSwap ? a.lda : a.ldb, strideL = kSwap ? a.strideA : a.strideB;
  const bool vec = rows_aligned_all(L, ldl, strideL, a.batch);
  const int small = !rows_aligned_all(S, lds, strideS, a.batch) ? kSmallScalar : !kMajor ? kSmallRows : MT >= kVecWidth ? kSmallKMajor
                                                                                                     : kSmallScalar;
  auto kernel = vec ? sgemm_30_gemv_t<MT, CT, true, kSwap> : sgemm_30_gemv_t<MT, CT, false, kSwap>;
  KernelInfo info;
  if (const Status s = prepare(kernel, kGemvTWarps * kWarpSize, 0, &info, why); s != Status::kOk) return s;
  const int split = gemv_t_split(a.K, vec, MT, CT, kGemvTWarps), groups = kGemvTWarps / split;
  Status s = Status::kOk;
  for (int64_t z = 0; z < a.batch && s == Status::kOk; z += 65535) {
    const dim3 grid(unsigned(ceil_div64(many, int64_t(groups) * CT)), unsigned(std::min<int64_t>(a.batch - z, 65535)));
    s = launch_early(kernel, grid, dim3(kGemvTWarps * kWarpSize), 0, info.cc_major >= 9, stream, few, many, a.K,
                     a.alpha, S + z * strideS, lds, kMajor, L + z * strideL, ldl, a.beta, a.C + z * a.strideC, a.ldc,
                     Batch{strideS, strideL, a.strideC, a.bias}, split, small);
  }
  return s;
}

Status launch_gemv(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  static_assert(kGemvMaxRows == 32 && kGemvTMaxRows == 16 && kGemvNarrowMaxCols == 16,
                "the GEMVs' row groups are 1, 2, 4, 8, 16 (and 32) rows");
  constexpr Launch kRows[kGemvGroups] = {&launch_gemv_rows<1>, &launch_gemv_rows<2>, &launch_gemv_rows<4>,
                                         &launch_gemv_rows<8>, &launch_gemv_rows<16>, &launch_gemv_rows<kGemvMaxRows>};
  constexpr Launch kRowsT[kGemvGroups - 1] = {&launch_gemv_t_rows<1, false>, &launch_gemv_t_rows<2, false>,
                                              &launch_gemv_t_rows<4, false>, &launch_gemv_t_rows<8, false>,
                                              &launch_gemv_t_rows<kGemvTMaxRows, false>};
  constexpr Launch kNarrowN[kGemvGroups - 1] = {&launch_gemv_t_rows<1, true>, &launch_gemv_t_rows<2, true>,
                                                &launch_gemv_t_rows<4, true>, &launch_gemv_t_rows<8, true>,
                                                &launch_gemv_t_rows<kGemvNarrowMaxCols, true>};
  switch (gemv_form(a)) {
    case GemvForm::kRows: return kRows[gemv_group(a.M)](a, stream, why);
    case GemvForm::kRowsT: return kRowsT[gemv_group(a.M)](a, stream, why);
    case GemvForm::kNarrowN: return kNarrowN[gemv_group(a.N)](a, stream, why);
    case GemvForm::kNone: break;
  }
  return launch_tiles<FewRows>(a, stream, why);  // (the model never asks)
}

// ---- the candidates -----------------------------------------------------------------------------

// Repack: the library's aligned copies (pack_plan, run_on_copies; K keeps its tail), with the
// direct candidate the model picks for the copies run on them.
Status launch_repack(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  auto direct = [&](const GemmArgs& g) { return launch_candidate(int(choose(g, true)), g, stream, why); };
  if (a.batch > 1) return direct(a);  // the copies are of one product (the model never picks it for more)
  const PackPlan r = repack_plan(a);
  return r.any() ? run_on_copies(a, r, stream, direct) : direct(a);
}

// The capstone: rung 17's own launch, or its tile's NN kernels with 32-bit stores (capstone_own).
Status launch_capstone(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return capstone_own(a) ? rung17::launch(a, stream, why) : launch_tiles<Capstone>(a, stream, why);
}

// In the order of the model's candidates (kCandidateList).
constexpr Launch kLaunches[kCandidates] = {&launch_capstone, &launch_tiles<FewRows>, &launch_tiles<FewCols>,
                                           &launch_tiles<Small>, &launch_split_k<Small, kSplitKSmall>,
                                           &launch_split_k<FewRows, kSplitKRows>, &launch_gemv, &launch_repack,
                                           &launch_tiles<ShortK>};
static_assert(same_tile<Capstone, kCapstone>() && same_tile<FewRows, kFewRows>() && same_tile<FewCols, kFewCols>() &&
                  same_tile<Small, kSmall>() && same_tile<ShortK, kShortK>(), "the model prices the tiles that run");

// What the model knows of this GPU's kernels, their blocks per SM (model.cpp asks its SMs, peaks).
void occupancy_of(Device* d) {
  for (int v = 0; v < 2; ++v) {  // 32-bit, then 128-bit accesses
    d->blocks[kFewRows][v] = blocks_of(v ? prepare_tiles<true, FewRows> : prepare_tiles<false, FewRows>);
    d->blocks[kFewCols][v] = blocks_of(v ? prepare_tiles<true, FewCols> : prepare_tiles<false, FewCols>);
    d->blocks[kSmall][v] = blocks_of(v ? prepare_tiles<true, Small> : prepare_tiles<false, Small>);
    d->blocks[kShortK][v] = blocks_of(v ? prepare_tiles<true, ShortK> : prepare_tiles<false, ShortK>);
    d->blocks[kSplitKSmall][v] = blocks_of(v ? prepare_split_k<true, Small> : prepare_split_k<false, Small>);
    d->blocks[kSplitKRows][v] = blocks_of(v ? prepare_split_k<true, FewRows> : prepare_split_k<false, FewRows>);
    d->blocks[kCapstone][v] = rung17::min_blocks_per_sm();  // as its launch bounds ask
    KernelInfo cut;
    std::string why;
    d->cutBlocks[v] = rung17::prepare_kernels(v == 1, false, false, &cut, &why) == Status::kOk ? cut.blocks_per_sm : 0;
    if (d->cutBlocks[v] > 0) d->overlap = cut.cc_major >= 9;  // the cut's launches overlap from sm_90 on
  }
}

Status launch_candidate(int c, const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return kLaunches[size_t(c)](a, stream, why);
}
Status launch_candidate_split(int c, const GemmArgs& a, int splits, cudaStream_t stream, std::string* why) {
  if (c == int(kSplitKSmall)) return launch_split_k_into<Small, kSplitKSmall>(a, splits, stream, why);
  if (c == int(kSplitKRows)) return launch_split_k_into<FewRows, kSplitKRows>(a, splits, stream, why);
  return launch_candidate(c, a, stream, why);
}

std::string tile() { return "capstone " + pipelined_tile_text<Capstone>() + ", few rows " + pipelined_tile_text<FewRows>() +
                            ", few columns " + pipelined_tile_text<FewCols>() + ", small (and split-K) " +
                            pipelined_tile_text<Small>() + ", short K " + pipelined_tile_text<ShortK>() +
                            ", gemv M<=" + std::to_string(kGemvMaxRows) +
                            ", repack to 16-byte rows"; }

// Never refuses a valid input: the capstone's kernels take any leading dimension and any 4-byte-
// aligned pointer; sizes beyond 32-bit index math are the one limit they share with rung 17.
bool supports(const GemmArgs& a, std::string* why) { return fits_int32(a, why); }

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return launch_candidate(int(choose(a, false)), a, stream, why);
}

}  // namespace sgemm::rung30
