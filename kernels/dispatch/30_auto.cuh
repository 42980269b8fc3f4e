// =====================================================================================
// Rung 30 — Dispatch: the kernel for the shape                             (dispatch track)
// BUILDS ON: nothing: not a copy. It runs the capstone's kernels (rung 17, through the interface
//   it declares: ffma/17_any_layout.hpp) in five tiles and as split-K, GEMVs of its own
//   (sgemm_30_gemv, dispatch/gemv.cuh) and the library's repack (sgemm::repack, common/pack.cu), and
//   picks per call. The candidates build in units of their own (dispatch/tiles.hpp).
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

#include <string>

#include "common/common.cuh"
#include "common/launch.cuh"
#include "dispatch/model.hpp"
#include "dispatch/tensor.hpp"
#include "dispatch/tiles.hpp"
#include "ffma/capstone.hpp"

// The candidates' launches are compiled in units of their own, in parallel (dispatch/tiles.hpp
// declares them: the tiles, split-K and the GEMVs); this file picks among them.
namespace sgemm::rung30 {

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
  return capstone_own(a) ? capstone_rung::launch(a, stream, why) : launch_capstone_tiles(a, stream, why);
}

// The GEMV of the call's form (gemv_form; the model offers it for no other).
Status launch_gemv(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  static_assert(kGemvMaxRows == 32 && kGemvTMaxRows == 16 && kGemvNarrowMaxCols == 16,
                "the GEMVs' row groups are 1, 2, 4, 8, 16 (and 32) rows");
  switch (gemv_form(a)) {
    case GemvForm::kRows: return launch_gemv_rows(a, stream, why);
    case GemvForm::kRowsT:
    case GemvForm::kNarrowN: return launch_gemv_t(a, stream, why);
    case GemvForm::kNone: break;
  }
  return launch_tiles<FewRows>(a, stream, why);  // (the model never asks)
}
template <class Cfg, size_t kC>
Status launch_split_k(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return launch_split_k_into<Cfg, kC>(a, 0, stream, why);
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
    d->blocks[kCapstone][v] = capstone_rung::min_blocks_per_sm();  // as its launch bounds ask
    KernelInfo cut;
    std::string why;
    d->cutBlocks[v] = capstone_rung::prepare_kernels(v == 1, false, false, &cut, &why) == Status::kOk ? cut.blocks_per_sm : 0;
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

// The tensor path where it takes the call (dispatch/tensor.hpp), else, or where the inputs or the
// workspace turn it back before C is written, the CUDA-core candidate the model picks.
Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  const auto [c, ns] = choose_ns(a, false);
  if (tensor::declined(a, stream, ns).empty()) {
    const Status s = tensor::run(a, stream, why);
    if (s != Status::kUnsupported && s != Status::kOutOfMemory) return s;
    cudaGetLastError();  // a failed allocation leaves its error behind: not the CUDA cores'
  }
  return launch_candidate(int(c), a, stream, why);
}

}  // namespace sgemm::rung30
