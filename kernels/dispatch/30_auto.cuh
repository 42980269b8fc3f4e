// =====================================================================================
// Rung 30 — Dispatch: the kernel for the shape                             (dispatch track)
// BUILDS ON: nothing: not a copy. It runs the capstone's kernels (rung 15, included) in four
//   tile configurations, plus a GEMV kernel of its own, and picks one per call.
// WHAT CHANGED: callers pass shapes the capstone's 64x256 tile serves badly: decode steps (M of
//   1-32), skinny products (M or N of 16-64), small problems. (1) A GEMV kernel for M <= 32: one
//   lane per column of C, A staged in shared memory, K split over warps (and over blocks when
//   there are few columns), B read once, coalesced. (2) The capstone's
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

constexpr int kGemvWarps = 8;                         // warps of a GEMV block, splitting its K range
constexpr int kGemvThreads = kGemvWarps * kWarpSize;  // a block covers kWarpSize columns of C
constexpr int kGemvChunk = kWarpSize;                 // k steps whose A values a warp stages at once
constexpr int kGemvUnroll = 8;                        // loads of B in flight per thread
constexpr int kGemvMaxRows = 32;                      // GEMV serves M <= 32

// One chunk of k steps [kc, kc + steps) for the lane's column: B read once, A's values for the
// chunk staged by the warp in shared memory (read back as broadcasts). kFull: a whole chunk.
template <int MT, bool kFull>
__device__ __forceinline__ void gemv_chunk(float (&acc)[MT], const float (&sA)[MT][kGemvChunk], const float* b,
                                           int ldb, int steps) {
#pragma unroll
  for (int j = 0; j < kGemvChunk; j += kGemvUnroll) {
    if (!kFull && j >= steps) break;
    float v[kGemvUnroll];  // the loads first, so that kGemvUnroll of them are in flight
#pragma unroll
    for (int u = 0; u < kGemvUnroll; ++u) v[u] = (kFull || j + u < steps) ? b[int64_t(j + u) * ldb] : 0.0f;
#pragma unroll
    for (int u = 0; u < kGemvUnroll; ++u)
#pragma unroll
      for (int m = 0; m < MT; ++m) acc[m] += sA[m][j + u] * v[u];
  }
}

// C (M x N, M <= MT) = alpha * A * B + beta * C, one lane per column of C. Block (x, y) covers 32
// columns and K range y of gridDim.y; its warps split that range and stage A's values for 32 k
// steps at a time in shared memory, so that B is read once and A's reads are broadcasts. The
// warps' sums meet in shared memory and are added in warp order. With K split over blocks
// (gridDim.y > 1), each block writes its partial sums to W, and the last block of a column group
// to arrive (a ticket) adds them in block order and writes C: deterministic either way. Scalar
// accesses throughout: any leading dimension and any 4-byte-aligned pointer.
template <int MT>
__global__ void __launch_bounds__(kGemvThreads)
sgemm_30_gemv(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
              float* C, int ldc, int kPerBlock, float* W, unsigned* tickets) {
  __shared__ float sWarp[kGemvWarps][MT][kGemvChunk];  // per warp: staged A values, then its partial sums
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int col = blockIdx.x * kWarpSize + lane;
  const int kb0 = blockIdx.y * kPerBlock, kb1 = min(K, kb0 + kPerBlock);
  const int per = ceil_div(ceil_div(max(kb1 - kb0, 0), kGemvWarps), kGemvChunk) * kGemvChunk;
  const int k0 = kb0 + warp * per, k1 = min(kb1, k0 + per);
  float(&sA)[MT][kGemvChunk] = sWarp[warp];
  float acc[MT] = {};
  for (int kc = k0; kc < k1; kc += kGemvChunk) {
#pragma unroll
    for (int m = 0; m < MT; ++m)
      sA[m][lane] = (m < M && kc + lane < k1) ? A[int64_t(m) * lda + kc + lane] : 0.0f;
    __syncwarp();
    const float* b = B + int64_t(kc) * ldb + col;
    if (col < N) {
      if (kc + kGemvChunk <= k1) gemv_chunk<MT, true>(acc, sA, b, ldb, kGemvChunk);
      else gemv_chunk<MT, false>(acc, sA, b, ldb, k1 - kc);
    }
    __syncwarp();  // the next chunk overwrites sA
  }
#pragma unroll
  for (int m = 0; m < MT; ++m) sA[m][lane] = acc[m];
  __syncthreads();
  const int m = threadIdx.x / kWarpSize;  // the rows this thread adds up (and writes), if any
  const bool mine = threadIdx.x < MT * kWarpSize && m < M && col < N;
  float sum = 0.0f;
  if (mine)
    for (int w = 0; w < kGemvWarps; ++w) sum += sWarp[w][m][lane];
  if (gridDim.y > 1) {  // K split over blocks: partials through W, the last block adds them
    if (mine) __stcg(W + (int64_t(blockIdx.y) * M + m) * N + col, sum);
    __threadfence();
    __syncthreads();
    __shared__ bool last;
    if (threadIdx.x == 0) last = atomicAdd(tickets + blockIdx.x, 1u) == gridDim.y - 1;
    __syncthreads();
    if (!last || !mine) return;
    sum = 0.0f;
    for (unsigned y = 0; y < gridDim.y; ++y) sum += __ldcg(W + (int64_t(y) * M + m) * N + col);
  }
  if (!mine) return;
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

// GEMV's split of K over blocks: enough blocks for several per SM (so that enough loads are in
// flight to keep memory busy), each warp still at least one chunk of k steps.
int gemv_splits(const GemmArgs& a, int sms) {
  constexpr int kBlocksPerSm = 4;
  const int64_t colBlocks = ceil_div64(a.N, kWarpSize);
  const int64_t wanted = ceil_div64(int64_t(kBlocksPerSm) * sms, colBlocks);
  const int64_t most = std::max<int64_t>(1, a.K / (int64_t(kGemvWarps) * kGemvChunk));
  return int(std::min<int64_t>({wanted, most, 65535}));
}

int device_sms() {
  int device = 0, sms = 1;
  if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

Status launch_gemv(const GemmArgs& a, cudaStream_t stream, std::string*) {
  auto kernel = a.M <= 1 ? sgemm_30_gemv<1> : a.M <= 2 ? sgemm_30_gemv<2> : a.M <= 4 ? sgemm_30_gemv<4>
              : a.M <= 8 ? sgemm_30_gemv<8> : a.M <= 16 ? sgemm_30_gemv<16> : sgemm_30_gemv<kGemvMaxRows>;
  const int splits = gemv_splits(a, device_sms()), kPerBlock = ceil_div(int(a.K), splits);
  const dim3 grid(unsigned(ceil_div64(a.N, kWarpSize)), unsigned(splits));
  // With K split: one partial sum per block and element, then one ticket per column group (zeroed).
  void* ws = nullptr;
  float* W = nullptr;
  unsigned* tickets = nullptr;
  Status s = Status::kOk;
  if (splits > 1) {
    const size_t partialBytes = size_t(splits) * size_t(a.M) * size_t(a.N) * sizeof(float);
    if (s = workspace_alloc(partialBytes + grid.x * sizeof(unsigned), stream, &ws); s != Status::kOk) return s;
    W = static_cast<float*>(ws);
    tickets = reinterpret_cast<unsigned*>(static_cast<char*>(ws) + partialBytes);
    s = from_cuda(cudaMemsetAsync(tickets, 0, grid.x * sizeof(unsigned), stream));
  }
  if (s == Status::kOk) {
    kernel<<<grid, kGemvThreads, 0, stream>>>(int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda), a.B, int(a.ldb),
                                               a.beta, a.C, int(a.ldc), kPerBlock, W, tickets);
    s = launch_status();
  }
  if (ws != nullptr)
    if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
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
    if (a.M > kGemvMaxRows) return t;
    t.gemvBytes = t.minBytes;
    t.gemvFlops = 2.0 * double(a.M) * double(a.N) * double(a.K);
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
  const double gemv = std::max(t.gemvBytes / tuned::kGemvBytesPerNs, t.gemvFlops / tuned::kGemvFlopsPerNs);
  return std::max(t.minBytes / tuned::kGemvBytesPerNs, t.slabs * cost.slab_ns + gemv) + cost.launch_ns;
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
                            pipelined_tile_text<Small>() + ", gemv M<=" + std::to_string(kGemvMaxRows); }

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
