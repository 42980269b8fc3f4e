// The dispatch rung's GEMV launches (its kernels: dispatch/gemv.cuh, gemv_t.cuh): the grid, the instance and
// the cluster or workspace for a shape. The row forms are compiled in units of their own
// (rungs/30_auto.gemv_rows.cu and rungs/30_auto.gemv_t.cu, the sections at the end).
#pragma once

#include <algorithm>
#include <string>

#include "common/common.cuh"
#include "common/launch.cuh"
#include "dispatch/gemv.cuh"
#include "dispatch/gemv_t.cuh"
#include "dispatch/tiles.hpp"

namespace sgemm::rung30 {

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
// loads. Measured hot against the other grids: docs/rungs/30_auto.lab.md.
constexpr int kGemvOneRowWarps = 8;
constexpr int kGemvOneRowVecRound = 16;
constexpr int kGemvOneRowGroups = 2;
constexpr int kGemvOneRowShallowRound = 16;
// The kernel instance for a grid, and how it runs (*plan: its column groups a lane, its rounds,
// whether its parts of K run as clusters); *gg is updated to the column blocks, parts and warps
// taken. A cluster takes fewer parts where every column group's cluster would not be resident at
// once: a GPC whose SMs are not a multiple of the cluster's blocks leaves some out, and a second
// wave of clusters costs more than a part less (measured: docs/rungs/30_auto.lab.md).
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
// scalar columns. Measured: docs/rungs/30_auto.lab.md. *V: the columns a lane.
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
// unchecked walk on it (measured: docs/rungs/30_auto.lab.md).
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

}  // namespace sgemm::rung30

// The unit of one form (kernels/CMakeLists.txt defines SGEMM_30_GEMV_ROWS or SGEMM_30_GEMV_T).
namespace sgemm::rung30 {
#ifdef SGEMM_30_GEMV_ROWS
// op(B) = B along its rows: the row groups' launches, and the plan the tests read.
Status launch_gemv_rows(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  constexpr Launch kRows[kGemvGroups] = {&launch_gemv_rows<1>, &launch_gemv_rows<2>, &launch_gemv_rows<4>,
                                         &launch_gemv_rows<8>, &launch_gemv_rows<16>, &launch_gemv_rows<kGemvMaxRows>};
  return kRows[gemv_group(a.M)](a, stream, why);
}
GemvRowsPlan gemv_rows_plan_of(const GemmArgs& a) {
  if (gemv_form(a) != GemvForm::kRows) return {};
  constexpr GemvRowsPlan (*kPlans[kGemvGroups])(const GemmArgs&) = {
      &gemv_rows_plan_for<1>, &gemv_rows_plan_for<2>, &gemv_rows_plan_for<4>,
      &gemv_rows_plan_for<8>, &gemv_rows_plan_for<16>, &gemv_rows_plan_for<kGemvMaxRows>};
  return kPlans[gemv_group(a.M)](a);
}
#endif
#ifdef SGEMM_30_GEMV_T
// op(B) = B^T (M <= 16) and the narrow-N form (N <= 16): a warp per column, along K.
Status launch_gemv_t(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  constexpr Launch kRowsT[kGemvGroups - 1] = {&launch_gemv_t_rows<1, false>, &launch_gemv_t_rows<2, false>,
                                              &launch_gemv_t_rows<4, false>, &launch_gemv_t_rows<8, false>,
                                              &launch_gemv_t_rows<kGemvTMaxRows, false>};
  constexpr Launch kNarrowN[kGemvGroups - 1] = {&launch_gemv_t_rows<1, true>, &launch_gemv_t_rows<2, true>,
                                                &launch_gemv_t_rows<4, true>, &launch_gemv_t_rows<8, true>,
                                                &launch_gemv_t_rows<kGemvNarrowMaxCols, true>};
  return gemv_form(a) == GemvForm::kRowsT ? kRowsT[gemv_group(a.M)](a, stream, why)
                                          : kNarrowN[gemv_group(a.N)](a, stream, why);
}
#endif
}  // namespace sgemm::rung30
