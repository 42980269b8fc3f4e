// =====================================================================================
// Rung 30 — Dispatch: the kernel for the shape                             (dispatch track)
// BUILDS ON: nothing: not a copy. It runs the capstone's kernels (rung 15, included) in four
//   tile configurations, plus a GEMV kernel of its own, and picks one per call.
// WHAT CHANGED: callers pass shapes the capstone's 64x256 tile serves badly: decode steps (M of
//   1-8), skinny products (M or N of 16-64), small problems. (1) A GEMV kernel for M <= 8: one
//   thread per column of C, 32 warps splitting K, B read once, coalesced. (2) The capstone's
//   kernel template with tiles for few rows (32x256), few columns (128x64) and small problems
//   (64x64), each with its stream-K plan. (3) A model picks the fastest: for a tile, the stream-K
//   plan's run time in slabs times the measured time of one slab, plus a launch cost; for GEMV,
//   the bytes over the measured bandwidth; never less than the bytes over that bandwidth. The
//   constants are measured per architecture by `sgemm_autotune --dispatch` into
//   kernels/tuned/dispatch_sm_<arch>.cuh. Any valid input runs; none is refused.
// WHY: the capstone pads M and N to whole 64x256 tiles: at M = 1 it computes 64 rows to use one,
//   and its 64 tiles per 4096 columns leave SMs idle until stream-K splits K, at the price of a
//   fix-up. cuBLAS ships many kernels and a heuristic that picks one per shape.
// PREDICTION: decode (1 x 4096 x 4096) near the time it takes to read B from memory; skinny
//   shapes no more than 15 percent behind cuBLAS; large shapes exactly the capstone.
// SHOW IT: build/release/bench/sgemm_bench --kernel auto --suite workloads
//   build/release/bench/sgemm_bench --kernel auto --m 1 --n 4096 --k 4096 (the log names the choice)
// PAGE: docs/rungs/30_auto.md (the choices, the model, the measured table)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/stream_k.cuh"
#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.cuh"
#include "tuned/tuned.cuh"
#endif

// The capstone's kernels, without its launcher (rung 15's own translation unit has that).
#ifndef SGEMM_DEVICE_ONLY
#define SGEMM_DEVICE_ONLY
#include "ffma/15_copy_instructions.cuh"
#undef SGEMM_DEVICE_ONLY
#else
#include "ffma/15_copy_instructions.cuh"
#endif

namespace sgemm::rung30 {

constexpr int kGemvWarps = 32;                        // warps of a GEMV block, splitting K
constexpr int kGemvThreads = kGemvWarps * kWarpSize;  // a block covers kWarpSize columns of C
constexpr int kGemvUnroll = 8;                        // loads of B in flight per thread
constexpr int kGemvMaxRows = 8;                       // GEMV serves M <= 8

// C (M x N, M <= MT) = alpha * A * B + beta * C, one lane per column of C. Warp w sums its
// K range [w*kc, (w+1)*kc) for the block's 32 columns (one coalesced 128-byte row of B per
// step); the warps' sums meet in shared memory and are added in warp order (deterministic).
// Scalar accesses throughout: any leading dimension and any 4-byte-aligned pointer.
template <int MT>
__global__ void __launch_bounds__(kGemvThreads)
sgemm_30_gemv(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
              float* C, int ldc) {
  __shared__ float sSum[kGemvWarps][MT][kWarpSize];  // [warp][row][lane]: each warp's partial sums
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int col = blockIdx.x * kWarpSize + lane;
  const int kc = ceil_div(K, kGemvWarps), k0 = warp * kc, k1 = min(K, k0 + kc);
  float acc[MT] = {};
  if (col < N) {
    const float* b = B + int64_t(k0) * ldb + col;
    int k = k0;
    for (; k + kGemvUnroll <= k1; k += kGemvUnroll, b += int64_t(kGemvUnroll) * ldb) {
      float v[kGemvUnroll];  // the loads first, so that kGemvUnroll of them are in flight
#pragma unroll
      for (int u = 0; u < kGemvUnroll; ++u) v[u] = b[int64_t(u) * ldb];
#pragma unroll
      for (int u = 0; u < kGemvUnroll; ++u)
#pragma unroll
        for (int m = 0; m < MT; ++m) acc[m] += (m < M ? A[int64_t(m) * lda + k + u] : 0.0f) * v[u];
    }
    for (; k < k1; ++k, b += ldb)  // the warp's K tail
#pragma unroll
      for (int m = 0; m < MT; ++m) acc[m] += (m < M ? A[int64_t(m) * lda + k] : 0.0f) * *b;
  }
#pragma unroll
  for (int m = 0; m < MT; ++m) sSum[warp][m][lane] = acc[m];
  __syncthreads();
  if (threadIdx.x >= MT * kWarpSize) return;
  const int m = threadIdx.x / kWarpSize;
  if (m >= M || col >= N) return;
  float sum = 0.0f;
  for (int w = 0; w < kGemvWarps; ++w) sum += sSum[w][m][lane];
  float* c = C + int64_t(m) * ldc + col;
  *c = epilogue(alpha, sum, beta, c);
}

}  // namespace sgemm::rung30

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <limits>
#include <vector>

#include "common/dispatch.hpp"
#include "tuned/dispatch.cuh"

namespace sgemm::rung15 {  // the capstone's launcher and model, from its own translation unit
Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why);
stream_k::Model model();
int min_blocks_per_sm();
}  // namespace sgemm::rung15

namespace sgemm::rung30 {

using T = tuned::Rung10;  // the capstone's tile
using Capstone = rung15::Config<T::BM, T::BN, T::BK, T::WM, T::WN, T::TM, T::TN, T::Stages, T::KU>;
// Other tiles for the capstone's kernels: few rows, few columns, small problems.
using FewRows = rung15::Config<32, 256, 32, 32, 128, 8, 16, 2, 8>;
using FewCols = rung15::Config<128, 64, 32, 32, 64, 8, 8, 2, 8>;
using Small = rung15::Config<64, 64, 32, 32, 32, 4, 8, 2, 8>;

// One way to run the GEMM. The candidates' order is the order of tuned::kDispatchCosts.
struct Candidate {
  const char* name;
  int BM, BN, BK;  // its tile (GEMV: 0)
  // The SMs and the blocks resident on each, on this device (GEMV: nullptr), and the launch.
  Status (*prepare)(const GemmArgs& a, KernelInfo* info, std::string* why);
  Status (*launch)(const GemmArgs& a, cudaStream_t stream, std::string* why);
};

// The capstone's kernels are instantiated in rung 15's own translation unit, not here: its
// residency comes from its launch bounds.
Status prepare_capstone(const GemmArgs&, KernelInfo* info, std::string*) {
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return from_cuda(err);
  if (const cudaError_t err = cudaDeviceGetAttribute(&info->sms, cudaDevAttrMultiProcessorCount, device);
      err != cudaSuccess)
    return from_cuda(err);
  info->blocks_per_sm = rung15::min_blocks_per_sm();
  return Status::kOk;
}

template <class Cfg>
Status prepare_tiles(const GemmArgs& a, KernelInfo* info, std::string* why) {
  const bool vec = vec4_ok(a, nullptr);
  auto shares = vec ? rung15::sgemm_15_copy_instructions_shares<true, Cfg>
                    : rung15::sgemm_15_copy_instructions_shares<false, Cfg>;
  auto whole = vec ? rung15::sgemm_15_copy_instructions<true, Cfg> : rung15::sgemm_15_copy_instructions<false, Cfg>;
  if (const Status s = prepare(whole, Cfg::kThreads, Cfg::kSmemBytes, nullptr, why); s != Status::kOk) return s;
  return prepare(shares, Cfg::kThreads, Cfg::kSmemBytes, info, why);
}

// The stream-K model of a tile: rung 15's, for its tile.
template <class Cfg>
stream_k::Model model_of() {
  return {Cfg::BM, Cfg::BN, Cfg::BK, rung15::model().slabCost, rung15::model().minSlabsPerUnit};
}

template <class Cfg>
Status launch_tiles(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  KernelInfo info;
  if (const Status s = prepare_tiles<Cfg>(a, &info, why); s != Status::kOk) return s;
  const bool vec = vec4_ok(a, nullptr);
  auto whole = vec ? rung15::sgemm_15_copy_instructions<true, Cfg> : rung15::sgemm_15_copy_instructions<false, Cfg>;
  auto shares = vec ? rung15::sgemm_15_copy_instructions_shares<true, Cfg>
                    : rung15::sgemm_15_copy_instructions_shares<false, Cfg>;
  const stream_k::Plan p = stream_k::plan(model_of<Cfg>(), a.M, a.N, a.K, int64_t(info.sms) * info.blocks_per_sm);
  return stream_k::launch(p, model_of<Cfg>(), whole, shares, Cfg::kThreads, Cfg::kSmemBytes, a, stream);
}

Status launch_gemv(const GemmArgs& a, cudaStream_t stream, std::string*) {
  auto kernel = a.M <= 1 ? sgemm_30_gemv<1> : a.M <= 2 ? sgemm_30_gemv<2> : a.M <= 4 ? sgemm_30_gemv<4>
                                                                                   : sgemm_30_gemv<kGemvMaxRows>;
  kernel<<<unsigned(ceil_div64(a.N, kWarpSize)), kGemvThreads, 0, stream>>>(
      int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda), a.B, int(a.ldb), a.beta, a.C, int(a.ldc));
  return launch_status();
}

const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> list = {
      {"capstone", Capstone::BM, Capstone::BN, Capstone::BK, &prepare_capstone, &rung15::launch},
      {"few_rows", FewRows::BM, FewRows::BN, FewRows::BK, &prepare_tiles<FewRows>, &launch_tiles<FewRows>},
      {"few_cols", FewCols::BM, FewCols::BN, FewCols::BK, &prepare_tiles<FewCols>, &launch_tiles<FewCols>},
      {"small", Small::BM, Small::BN, Small::BK, &prepare_tiles<Small>, &launch_tiles<Small>},
      {"gemv", 0, 0, 0, nullptr, &launch_gemv},
  };
  static_assert(sizeof(tuned::kDispatchCosts) / sizeof(tuned::kDispatchCosts[0]) == 5,
                "one measured cost per candidate, in the candidates' order");
  return list;
}

Terms model_terms(int c, const GemmArgs& a) {
  const Candidate& cand = candidates()[size_t(c)];
  Terms t;
  t.minBytes = 4.0 * (double(a.M) * a.K + double(a.K) * a.N + double(a.M) * a.N * (a.beta != 0 ? 2 : 1));
  KernelInfo info;
  std::string why;
  if (cand.prepare == nullptr) {  // GEMV
    int device = 0, sms = 1;
    if (a.M > kGemvMaxRows || cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return t;
    t.gemvBytes = t.minBytes * std::max(1.0, double(sms) / double(ceil_div64(a.N, kWarpSize)));
    t.runs = true;
    return t;
  }
  if (cand.prepare(a, &info, &why) != Status::kOk || !grid_ok(ceil_div64(a.N, cand.BN), ceil_div64(a.M, cand.BM), &why))
    return t;
  const stream_k::Model m{cand.BM, cand.BN, cand.BK, rung15::model().slabCost, rung15::model().minSlabsPerUnit};
  t.slabs = stream_k::plan(m, a.M, a.N, a.K, int64_t(info.sms) * info.blocks_per_sm).slabTimes;
  t.runs = true;
  return t;
}

// The model's prediction, in nanoseconds, of candidate `c` on these arguments: its terms times
// the constants measured on this architecture, plus its launch; never less than the bytes every
// kernel must move over the measured bandwidth.
double predict_ns(int c, const GemmArgs& a) {
  const Terms t = model_terms(c, a);
  if (!t.runs) return std::numeric_limits<double>::infinity();
  const tuned::DispatchCost& cost = tuned::kDispatchCosts[c];
  const double work = t.slabs * cost.slab_ns + t.gemvBytes / tuned::kGemvBytesPerNs;
  return std::max(t.minBytes / tuned::kGemvBytesPerNs, work) + cost.launch_ns;
}

// The candidate the model picks for these arguments.
size_t choose(const GemmArgs& a) {
  size_t best = 0;
  double bestNs = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < candidates().size(); ++c)
    if (const double ns = predict_ns(int(c), a); ns < bestNs) best = c, bestNs = ns;
  return best;
}

std::string tile() { return "capstone " + pipelined_tile_text<Capstone>() + ", few rows " + pipelined_tile_text<FewRows>() +
                            ", few columns " + pipelined_tile_text<FewCols>() + ", small " +
                            pipelined_tile_text<Small>() + ", gemv M<=8"; }

// Never refuses a valid input: the capstone's kernels take any leading dimension and any 4-byte-
// aligned pointer; sizes beyond 32-bit index math are the one limit they share with rung 15.
bool supports(const GemmArgs& a, std::string* why) { return fits_int32(a, why); }

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return candidates()[choose(a)].launch(a, stream, why);
}

const char* choice(const GemmArgs& a) { return candidates()[choose(a)].name; }

// For the autotuner's calibration (sgemm_autotune --dispatch) and the tests.
int candidate_count() { return int(candidates().size()); }
const char* candidate_name(int c) { return candidates()[size_t(c)].name; }
Status launch_candidate(int c, const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return candidates()[size_t(c)].launch(a, stream, why);
}

}  // namespace sgemm::rung30
#endif
