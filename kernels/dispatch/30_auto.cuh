// =====================================================================================
// Rung 30 — Dispatch: the kernel for the shape                             (dispatch track)
// BUILDS ON: nothing: not a copy. It runs the capstone's kernels (rung 16, included) in four
//   tile configurations and as split-K, plus a GEMV of its own and the library's repack
//   (sgemm::repack, api/pack.cu), and picks per call.
// WHAT CHANGED: callers pass shapes the capstone's 64x256 tile serves badly: decode steps (M of
//   1-32), skinny products, reductions over a long K, small problems, ragged rows. Candidates:
//   (1) GEMV for M <= 32, B read once, K split over warps and blocks; (2) the capstone's kernel
//   with tiles 64x256, 32x256, 128x64, 64x64, each with its stream-K plan; (3) split-K on the
//   64x64 and 32x256 tiles with a parallel reduction; (4) repack: unaligned operands copied to
//   16-byte-aligned rows, then the best of (2)-(3) on the copies. A model predicts each
//   one's time from the shape and constants measured per architecture by `sgemm_autotune
//   --dispatch` (kernels/tuned/dispatch_sm_<arch>.cuh) and picks the fastest. None is refused.
// WHY: the capstone pads M and N to whole 64x256 tiles (at M = 1 it computes 64 rows to use one);
//   stream-K's fix-up adds a tile's partials one after another; 32-bit accesses and per-slab
//   bounds checks slow every tile. cuBLAS ships many kernels and a heuristic that picks one.
// PREDICTION: decode (1 x 4096 x 4096) within 85% of the time reading B takes at full bandwidth;
//   no suite shape more than 15 percent behind cuBLAS; large shapes exactly the capstone.
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

// The capstone's kernels, without its launcher (rung 16's own translation unit has that).
#ifndef SGEMM_DEVICE_ONLY
#define SGEMM_DEVICE_ONLY
#include "ffma/16_last_wave_cut.cuh"
#undef SGEMM_DEVICE_ONLY
#else
#include "ffma/16_last_wave_cut.cuh"
#endif

namespace sgemm::rung30 {

constexpr int kGemvChunk = kWarpSize;  // k steps whose A values a warp stages at once (one per lane)
constexpr int kGemvMaxRows = 32;       // GEMV serves M <= 32
// Rows of B a lane loads before it uses them (a round): 8, or a whole chunk of 32 (deep rounds)
// at 1-4 rows of C where the grid leaves every SM one block at most. With few rows the GEMV only
// waits on B, and a SM's bytes in flight set its bandwidth: 32 warps of 8 loads of 128 bytes
// are 32 KiB, about what one microsecond of DRAM latency at a SM's share of the bandwidth takes.
// A block alone on its SM has nothing else to cover its latency, and deep rounds help it; where
// SMs hold two blocks, one block's loads cover the other's waits, and deep rounds lose: their 64
// registers a thread leave room for one block of 1024 threads (measured: docs/rungs/30_auto.md).
constexpr int kGemvRound = 8;
constexpr int kGemvDeepRound = kGemvChunk;
constexpr int kGemvDeepMaxRows = 4;
static_assert(kGemvRound % kVecWidth == 0 && kGemvChunk % kGemvRound == 0 && kGemvChunk % kGemvDeepRound == 0,
              "rounds of whole float4 A reads, a whole number of them a chunk");
// Columns of C a lane computes (32 apart, so every load stays one coalesced 128-byte row per warp
// and needs no alignment): two at 9-16 rows, where one shared-memory read of A then feeds 8 FFMAs
// instead of 4 (measured on the H200: 16 x 128256 x 4096 from 87 to 126 percent of cuBLAS, 16 x
// 4096 x 4096 from 217 to 250). With fewer rows the GEMV waits on memory and wants every warp it
// can have; at 17-32 rows the 64 accumulators that two columns need leave too few warps.
template <int MT>
constexpr int gemv_cols() { return MT > 8 && MT <= 16 ? 2 : 1; }
// Warps of a GEMV block (splitting its K range): as many as MT x CT accumulators (registers: 64,
// 128 or 255 a thread) and a warp's staged A values (at most 32 KiB of shared memory a block) allow.
template <int MT, int CT>
constexpr int gemv_warps() { return MT * CT <= 8 ? 32 : MT * CT <= 16 ? 16 : 8; }

// One round of B: rows j .. j + R - 1 of the chunk at `b` in the lane's CT columns (zero past
// `steps` unless kFull, zero in a column outside C).
template <int CT, int R, bool kFull>
__device__ __forceinline__ void gemv_round(float (&v)[CT][R], const float* b, int ldb, int j, int steps,
                                           const bool (&col_ok)[CT]) {
#pragma unroll
  for (int u = 0; u < R; ++u)
#pragma unroll
    for (int c = 0; c < CT; ++c)
      v[c][u] = (col_ok[c] && (kFull || j + u < steps)) ? b[int64_t(j + u) * ldb + c * kWarpSize] : 0.0f;
}

// One chunk of a warp: k steps [kc, kc + steps) of the lane's columns into acc (kFull: steps = 32).
// A's values for the chunk are staged in sA (one k per lane), their loads in flight together with
// B's first round; B is then read in rounds of R rows and A's values as float4 broadcasts of 4 k
// steps (every lane reads the same address), so one shared-memory read feeds 4 x CT FFMAs.
template <int MT, int CT, int R, bool kFull>
__device__ __forceinline__ void gemv_chunk(float (&acc)[MT][CT], float (&sA)[MT][kGemvChunk], const float* A, int lda,
                                           int M, int kc, int steps, const float* b, int ldb, const bool (&col_ok)[CT]) {
  const int lane = threadIdx.x % kWarpSize;
  float v[CT][R];
  gemv_round<CT, R, kFull>(v, b, ldb, 0, steps, col_ok);
  float a[MT];
#pragma unroll
  for (int m = 0; m < MT; ++m) a[m] = (m < M && (kFull || lane < steps)) ? A[int64_t(m) * lda + kc + lane] : 0.0f;
#pragma unroll
  for (int m = 0; m < MT; ++m) sA[m][lane] = a[m];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < kGemvChunk; j += R) {
    if (!kFull && j >= steps) break;
    if (j > 0) gemv_round<CT, R, kFull>(v, b, ldb, j, steps, col_ok);
#pragma unroll
    for (int u = 0; u < R; u += kVecWidth)
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const float4 a4 = load_f4(&sA[m][j + u]);
#pragma unroll
        for (int c = 0; c < CT; ++c) {
          acc[m][c] += a4.x * v[c][u];
          acc[m][c] += a4.y * v[c][u + 1];
          acc[m][c] += a4.z * v[c][u + 2];
          acc[m][c] += a4.w * v[c][u + 3];
        }
      }
  }
  __syncwarp();  // the next chunk overwrites sA
}

// C (M x N, M <= MT) = alpha * A * B + beta * C, CT columns of C a lane, 32 apart. Block (x, y)
// covers 32 x CT columns and K range y of gridDim.y, split among its warps, each walking its part
// in chunks of 32 k steps (gemv_chunk), so that B is read once. The warps' sums meet in shared
// memory, a column of the lane's at a time, and are added in warp order; thread (w, lane) adds and
// writes rows w, w + warps, ... With K split over blocks (gridDim.y > 1), each block writes its
// partial sums to W, and the last block of a column group to arrive (a ticket) adds them in block
// order, writes C and sets the ticket back to zero: deterministic either way, and the tickets are
// zero again after every launch. Scalar accesses throughout: any leading dimension and any
// 4-byte-aligned pointer.
template <int MT, int CT, int R>
__global__ void __launch_bounds__(gemv_warps<MT, CT>() * kWarpSize)
sgemm_30_gemv(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
              float* C, int ldc, int kPerBlock, float* W, unsigned* tickets) {
  __shared__ __align__(16) float sWarp[gemv_warps<MT, CT>()][MT][kGemvChunk];  // per warp: A's values, then its sums
  const int warps = int(blockDim.x) / kWarpSize, warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int col0 = blockIdx.x * kWarpSize * CT + lane;  // the lane's columns: col0 + 32 c
  bool col_ok[CT];
#pragma unroll
  for (int c = 0; c < CT; ++c) col_ok[c] = col0 + c * kWarpSize < N;
  const int kb0 = blockIdx.y * kPerBlock, kb1 = min(K, kb0 + kPerBlock);
  const int per = ceil_div(ceil_div(max(kb1 - kb0, 0), warps), kGemvChunk) * kGemvChunk;
  const int k0 = kb0 + warp * per, k1 = min(kb1, k0 + per);
  float(&sA)[MT][kGemvChunk] = sWarp[warp];
  float acc[MT][CT] = {};
  for (int kc = k0; kc < k1; kc += kGemvChunk) {
    const int steps = min(kGemvChunk, k1 - kc);
    const float* b = B + int64_t(kc) * ldb + col0;
    if (steps == kGemvChunk) gemv_chunk<MT, CT, R, true>(acc, sA, A, lda, M, kc, steps, b, ldb, col_ok);
    else gemv_chunk<MT, CT, R, false>(acc, sA, A, lda, M, kc, steps, b, ldb, col_ok);
  }
  auto warp_sum = [&](int m) {
    float sum = 0.0f;
    for (int w = 0; w < warps; ++w) sum += sWarp[w][m][lane];
    return sum;
  };
  // The block's sums, a column of each lane's at a time: use(col, m, sum) for the rows m of this
  // thread. A warp's slice of sWarp is its own until the first __syncthreads (its chunks end in
  // __syncwarp).
  auto column_sums = [&](auto&& use) {
#pragma unroll
    for (int c = 0; c < CT; ++c) {
#pragma unroll
      for (int m = 0; m < MT; ++m) sA[m][lane] = acc[m][c];
      __syncthreads();
      if (col_ok[c])
        for (int m = warp; m < M; m += warps) use(col0 + c * kWarpSize, m, warp_sum(m));
      if (c + 1 < CT) __syncthreads();  // before the next column's sums overwrite these
    }
  };
  if (gridDim.y == 1) {
    column_sums([&](int col, int m, float sum) {
      float* out = C + int64_t(m) * ldc + col;
      *out = epilogue(alpha, sum, beta, out);
    });
    return;
  }
  // K split over blocks: partials through W, the last block of the column group adds them.
  column_sums([&](int col, int m, float sum) { __stcg(W + (int64_t(blockIdx.y) * M + m) * N + col, sum); });
  __threadfence();
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) last = atomicAdd(tickets + blockIdx.x, 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last) return;
  if (threadIdx.x == 0) tickets[blockIdx.x] = 0;  // every block has taken its ticket: zero for the next launch
#pragma unroll
  for (int c = 0; c < CT; ++c) {
    if (!col_ok[c]) continue;
    const int col = col0 + c * kWarpSize;
    for (int m = warp; m < M; m += warps) {
      float sum = 0.0f;
#pragma unroll 8
      for (unsigned y = 0; y < gridDim.y; ++y) sum += __ldcg(W + (int64_t(y) * M + m) * N + col);
      float* out = C + int64_t(m) * ldc + col;
      *out = epilogue(alpha, sum, beta, out);
    }
  }
}

// Split-K: block (x, y, z) computes slabs [z * slabsPerSplit, (z + 1) * slabsPerSplit) of tile row
// y, column x with the capstone's tile code and stores the raw partial sums (alpha 1, beta 0) as
// partial z of W, row-major with row pitch ldw. The reduction below adds the partials.
template <bool kVec, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_30_split_k(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* W, int ldw,
                 int slabsPerSplit) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
  const int k0 = int(blockIdx.z) * slabsPerSplit * Cfg::BK;
  const Gemm whole{M, N, K, 1.0f, A, lda, B, ldb, 0.0f, W + int64_t(blockIdx.z) * M * ldw, ldw};
  const Gemm g = whole.k_range(k0, min(K - k0, slabsPerSplit * Cfg::BK));
  const stream_k::Unit u = stream_k::whole_tile(blockIdx.y * Cfg::BM, blockIdx.x * Cfg::BN, ceil_div(g.K, Cfg::BK));
  const stream_k::Partials none{nullptr, nullptr};
  if ((blockIdx.y + 1) * Cfg::BM <= M && (blockIdx.x + 1) * Cfg::BN <= N && g.K % Cfg::BK == 0)
    rung16::compute_tile<kVec, Cfg, false>(smem, g, u, none);
  else rung16::compute_tile<kVec, Cfg, true>(smem, g, u, none);
}

// C = alpha * (W[0] + ... + W[splits - 1]) + beta * C. Lane x of a block owns one group of four
// columns; warp y adds partials y, y + Y, y + 2Y, ... (Y = blockDim.y, up to 32), so that many
// partials are read at once, and warp 0 adds the warps' sums in warp order: the same order on
// every run (bitwise deterministic).
template <bool kVec>
__global__ void __launch_bounds__(kWarpSize * kWarpSize)
sgemm_30_reduce(int M, int N, int splits, const float* W, int ldw, float alpha, float beta, float* C, int ldc) {
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
  store4_epilogue<kVec>(C + int64_t(row) * ldc + col, N - col, alpha, sum, beta);
}

}  // namespace sgemm::rung30

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/cut_plan.hpp"
#include "common/dispatch.hpp"
#include "tuned/dispatch.cuh"

namespace sgemm::rung16 {  // the capstone's launcher and model, from its own translation unit
Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why);
Status plan_of(const GemmArgs& a, cut::Plan* p, std::string* why);
stream_k::Model model();
int min_blocks_per_sm();
}  // namespace sgemm::rung16

namespace sgemm::rung30 {

using T = tuned::Rung10;  // the capstone's tile
using Capstone = rung16::Config<T::BM, T::BN, T::BK, T::WM, T::WN, T::TM, T::TN, T::Stages, T::KU>;
// Other tiles for the capstone's kernels: few rows, few columns, small problems (also split-K's).
using FewRows = rung16::Config<32, 256, 32, 32, 64, 8, 8, 2, 8>;  // four warps of 64 accumulators
using FewCols = rung16::Config<128, 64, 32, 32, 64, 8, 8, 2, 8>;
using Small = rung16::Config<64, 64, 32, 32, 32, 4, 8, 2, 8>;
constexpr int kMinSlabsPerSplit = 4;  // a split-K block still runs a pipeline of >= 4 slabs

enum class Kind { kTiles, kSplitK, kGemv, kRepack };
// The candidates, in the order of candidates() and of tuned::kDispatchCosts.
enum : size_t { kCapstone, kFewRows, kFewCols, kSmall, kSplitKSmall, kSplitKRows, kGemv, kRepack, kCandidates };

const Constants& device_constants();  // the model's constants on the current device (below)

// One way to run the GEMM. The candidates' order is the order of tuned::kDispatchCosts.
struct Candidate {
  const char* name;
  Kind kind;
  int BM, BN, BK;  // its tile (GEMV, repack: 0)
  // The SMs and the blocks resident on each, on this device (tiles and split-K), and the launch.
  Status (*prepare)(const GemmArgs& a, KernelInfo* info, std::string* why);
  Status (*launch)(const GemmArgs& a, cudaStream_t stream, std::string* why);
  // Split-K: the launch with K cut into (at most) a given number of parts.
  Status (*launch_split)(const GemmArgs& a, int splits, cudaStream_t stream, std::string* why);
};
const std::vector<Candidate>& candidates();

// The capstone's kernels are instantiated in rung 16's own translation unit, not here: its
// residency comes from its launch bounds.
Status prepare_capstone(const GemmArgs&, KernelInfo* info, std::string*) {
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return from_cuda(err);
  if (const cudaError_t err = cudaDeviceGetAttribute(&info->sms, cudaDevAttrMultiProcessorCount, device);
      err != cudaSuccess)
    return from_cuda(err);
  info->blocks_per_sm = rung16::min_blocks_per_sm();
  return Status::kOk;
}

template <class Cfg>
Status prepare_tiles(const GemmArgs& a, KernelInfo* info, std::string* why) {
  const bool vec = vec4_ok(a, nullptr);
  auto shares = vec ? rung16::sgemm_16_last_wave_cut_shares<true, Cfg>
                    : rung16::sgemm_16_last_wave_cut_shares<false, Cfg>;
  auto whole = vec ? rung16::sgemm_16_last_wave_cut<true, Cfg> : rung16::sgemm_16_last_wave_cut<false, Cfg>;
  if (const Status s = prepare(whole, Cfg::kThreads, Cfg::kSmemBytes, nullptr, why); s != Status::kOk) return s;
  return prepare(shares, Cfg::kThreads, Cfg::kSmemBytes, info, why);
}

// The stream-K model of a tile: rung 16's, for its tile.
template <class Cfg>
stream_k::Model model_of() {
  return {Cfg::BM, Cfg::BN, Cfg::BK, rung16::model().slabCost, rung16::model().minSlabsPerUnit};
}

template <class Cfg>
Status launch_tiles(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  KernelInfo info;
  if (const Status s = prepare_tiles<Cfg>(a, &info, why); s != Status::kOk) return s;
  const bool vec = vec4_ok(a, nullptr);
  auto whole = vec ? rung16::sgemm_16_last_wave_cut<true, Cfg> : rung16::sgemm_16_last_wave_cut<false, Cfg>;
  auto shares = vec ? rung16::sgemm_16_last_wave_cut_shares<true, Cfg>
                    : rung16::sgemm_16_last_wave_cut_shares<false, Cfg>;
  const stream_k::Plan p = stream_k::plan(model_of<Cfg>(), a.M, a.N, a.K, int64_t(info.sms) * info.blocks_per_sm);
  return stream_k::launch(p, model_of<Cfg>(), whole, shares, Cfg::kThreads, Cfg::kSmemBytes, a, stream);
}

// The partial tiles the busiest stream-K block adds in its fix-ups, one after another: for each
// tile cut between blocks, the block holding its first slab adds one partial per later block
// whose share reaches into the tile.
double fixups_of(const stream_k::Plan& p) {
  if (p.skBlocks == 0) return 0;
  const stream_k::Schedule& s = p.sched;
  const int blocks = p.skBlocks;
  auto block_of = [&](int64_t slab) {  // the block whose share holds `slab`
    int b = int(std::min<int64_t>(blocks - 1, slab * blocks / s.skSlabs));
    while (b + 1 < blocks && s.sk_begin(b + 1, blocks) <= slab) ++b;
    while (b > 0 && s.sk_begin(b, blocks) > slab) --b;
    return b;
  };
  std::vector<double> added(size_t(blocks), 0.0);
  for (int64_t begin = 0; begin < s.skSlabs; begin += s.kTiles) {
    const int first = block_of(begin), last = block_of(begin + s.kTiles - 1);
    added[size_t(first)] += last - first;
  }
  return *std::max_element(added.begin(), added.end());
}

// ---- split-K with a parallel reduction ----------------------------------------------------------

template <bool kVec, class Cfg>
Status prepare_split_kernels(KernelInfo* info, std::string* why) {
  if (const Status s = prepare(sgemm_30_reduce<kVec>, kWarpSize * kWarpSize, 0, nullptr, why); s != Status::kOk)
    return s;
  return prepare(sgemm_30_split_k<kVec, Cfg>, Cfg::kThreads, Cfg::kSmemBytes, info, why);
}

template <class Cfg>
Status prepare_split_k(const GemmArgs& a, KernelInfo* info, std::string* why) {
  return vec4_ok(a, nullptr) ? prepare_split_kernels<true, Cfg>(info, why) : prepare_split_kernels<false, Cfg>(info, why);
}

// K cut into at most `wanted` parts of BK-deep slabs, every part with slabs, for BM x BN tiles.
Split split_into(const GemmArgs& a, int BM, int BN, int BK, int64_t wanted, const KernelInfo& info) {
  const int64_t tiles = ceil_div64(a.M, BM) * ceil_div64(a.N, BN), kTiles = ceil_div64(a.K, BK);
  const int64_t per = ceil_div64(kTiles, std::max<int64_t>(1, wanted)), used = ceil_div64(kTiles, per);
  Split sp{int(used), int(per)};
  sp.residency = double(ceil_div64(tiles * used, std::max(info.sms, 1))) / double(std::max(info.blocks_per_sm, 1));
  return sp;
}

// What one slab of a split-K block costs at `residency`: the full SM's slab scaled by the SM's
// share of blocks, but never less than a block's slab alone on its SM (one block cannot fill
// an SM's issue slots). Whole tiles run with every SM full: residency 1, lone_ns 0.
double slab_ns_at(const Cost& c, double residency) { return std::max(c.lone_ns, c.slab_ns * residency); }

// The split of K among those that keep every block in one wave (split-K is for tile grids that
// leave SMs idle) with at least kMinSlabsPerSplit slabs each: the one with the least predicted
// time, slabs per block times their cost at the split's residency, plus the partials' bytes
// written and read over the bandwidth (`bytesPerNs`). splits < 2: no split helps.
Split split_of(const GemmArgs& a, int BM, int BN, int BK, const KernelInfo& info, const Cost& cost, double bytesPerNs) {
  const int64_t tiles = ceil_div64(a.M, BM) * ceil_div64(a.N, BN), kTiles = ceil_div64(a.K, BK);
  const int64_t slots = int64_t(info.sms) * info.blocks_per_sm;
  const double rowBytes = 4.0 * double(ceil_div64(a.N, kVecWidth) * kVecWidth);
  Split best;
  double bestNs = std::numeric_limits<double>::infinity();
  for (int64_t s = 2; s * kMinSlabsPerSplit <= kTiles && tiles * s <= slots && s <= 65535; ++s) {
    const Split sp = split_into(a, BM, BN, BK, s, info);
    const double ns = double(sp.slabsPerSplit) * slab_ns_at(cost, sp.residency) +
                      2.0 * double(sp.splits) * double(a.M) * rowBytes / bytesPerNs;
    if (ns < bestNs) best = sp, bestNs = ns;
  }
  return best;
}

// Split-K as split by `sp`: the partials into a workspace, then the reduction into C.
template <class Cfg>
Status run_split_k(const GemmArgs& a, const Split& sp, cudaStream_t stream, std::string* why) {
  if (sp.splits < 2) return launch_tiles<Cfg>(a, stream, why);  // nothing to split
  const bool vec = vec4_ok(a, nullptr);
  const int ldw = ceil_div(int(a.N), kVecWidth) * kVecWidth;   // rows of whole float4s
  void* ws = nullptr;
  if (workspace_alloc(size_t(sp.splits) * size_t(a.M) * size_t(ldw) * sizeof(float), stream, &ws) != Status::kOk)
    return launch_tiles<Cfg>(a, stream, why);  // no room for the partials: stream-K needs less
  float* W = static_cast<float*>(ws);
  const dim3 grid(ceil_div(int(a.N), Cfg::BN), ceil_div(int(a.M), Cfg::BM), unsigned(sp.splits));
  auto split = vec ? sgemm_30_split_k<true, Cfg> : sgemm_30_split_k<false, Cfg>;
  split<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(int(a.M), int(a.N), int(a.K), a.A, int(a.lda), a.B,
                                                          int(a.ldb), W, ldw, sp.slabsPerSplit);
  Status s = launch_status();
  const dim3 block(kWarpSize, unsigned(std::min(sp.splits, kWarpSize)));
  const int64_t groups = int64_t(a.M) * (ldw / kVecWidth);
  auto reduce = vec ? sgemm_30_reduce<true> : sgemm_30_reduce<false>;
  reduce<<<unsigned(ceil_div64(groups, kWarpSize)), block, 0, stream>>>(int(a.M), int(a.N), sp.splits, W, ldw,
                                                                        a.alpha, a.beta, a.C, int(a.ldc));
  s = launch_status_after(s);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

// Split-K with the model's split (candidate kIndex's measured costs).
template <class Cfg, size_t kIndex>
Status launch_split_k(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  KernelInfo info;
  if (const Status s = prepare_split_k<Cfg>(a, &info, why); s != Status::kOk) return s;
  const Constants& k = device_constants();
  return run_split_k<Cfg>(a, split_of(a, Cfg::BM, Cfg::BN, Cfg::BK, info, k.costs[kIndex], k.bytesPerNs), stream, why);
}

// Split-K with K cut into at most `splits` parts (the calibration's chosen residencies).
template <class Cfg>
Status launch_split_k_into(const GemmArgs& a, int splits, cudaStream_t stream, std::string* why) {
  KernelInfo info;
  if (const Status s = prepare_split_k<Cfg>(a, &info, why); s != Status::kOk) return s;
  return run_split_k<Cfg>(a, split_into(a, Cfg::BM, Cfg::BN, Cfg::BK, splits, info), stream, why);
}

// ---- GEMV -------------------------------------------------------------------------------------

// GEMV's launch: warps per block (each at least one chunk of k steps, up to gemv_warps), and
// K split over blocks until 32 warps a SM have work (a few column groups alone would leave SMs
// without loads in flight), each warp keeping at least one chunk. 32, not every warp an SM can
// hold: past that, a split adds more than its loads gain (measured: docs/rungs/30_auto.md).
struct GemvGrid {
  int warps = 1, splits = 1, kPerBlock = 0, sms = 0;
  unsigned colBlocks = 0;
};
template <int MT>
Status gemv_grid(const GemmArgs& a, GemvGrid* g, std::string* why) {
  constexpr int kWarpsPerSm = 32;
  KernelInfo info;
  constexpr int CT = gemv_cols<MT>(), kWarps = gemv_warps<MT, CT>();
  if (const Status s = prepare(sgemm_30_gemv<MT, CT, kGemvRound>, kWarps * kWarpSize, 0, &info, why);
      s != Status::kOk)
    return s;
  const int64_t chunks = ceil_div64(a.K, kGemvChunk), colBlocks = ceil_div64(a.N, kWarpSize * CT);
  g->warps = int(std::clamp<int64_t>(chunks, 1, kWarps));
  const int64_t resident = int64_t(info.sms) * std::min(kWarpsPerSm, info.blocks_per_sm * kWarps);
  const int64_t wanted = std::max<int64_t>(1, resident / (int64_t(g->warps) * colBlocks));
  const int64_t most = std::max<int64_t>(1, chunks / g->warps);
  const int64_t chunksPerBlock = ceil_div64(chunks, std::min<int64_t>({wanted, most, 65535}));
  g->kPerBlock = int(chunksPerBlock * kGemvChunk);
  g->splits = int(ceil_div64(chunks, chunksPerBlock));  // every block gets k steps
  g->colBlocks = unsigned(colBlocks);
  g->sms = info.sms;
  return Status::kOk;
}

// GEMV's tickets (one per column group, zero before a launch) without a memset launch: the last
// block of a column group sets its ticket back to zero, so a buffer kept per device and per stream
// (by the stream's unique id: launches on one stream never overlap) stays zero from one launch to
// the next. Zeroed once, by a memset on the stream itself. nullptr (then the caller zeroes tickets in
// the workspace with a memset) for a stream being captured into a graph, whose replays may run
// beside other work on the same stream's buffer, and for grids wider than the kept buffer.
constexpr unsigned kKeptTickets = 4096;
unsigned* kept_tickets(cudaStream_t stream, unsigned needed) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  int device = 0;
  if (needed > kKeptTickets || cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
      capture != cudaStreamCaptureStatusNone || cudaStreamGetId(stream, &id) != cudaSuccess ||
      cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  // Freed when the program ends: the holder is made after the CUDA runtime, so it goes before it.
  struct Kept {
    std::mutex mutex;
    std::map<std::pair<int, unsigned long long>, unsigned*> buffers;
    ~Kept() {
      for (const auto& entry : buffers) cudaFree(entry.second);
    }
  };
  static Kept kept;
  const std::lock_guard<std::mutex> lock(kept.mutex);
  if (const auto it = kept.buffers.find({device, id}); it != kept.buffers.end()) return it->second;
  void* p = nullptr;
  if (cudaMalloc(&p, kKeptTickets * sizeof(unsigned)) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  if (cudaMemsetAsync(p, 0, kKeptTickets * sizeof(unsigned), stream) != cudaSuccess) {
    cudaGetLastError();
    cudaFree(p);
    return nullptr;
  }
  kept.buffers.emplace(std::make_pair(device, id), static_cast<unsigned*>(p));
  return static_cast<unsigned*>(p);
}

template <int MT>
Status launch_gemv_rows(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  GemvGrid gg;
  if (const Status s = gemv_grid<MT>(a, &gg, why); s != Status::kOk) return s;
  const dim3 grid(gg.colBlocks, unsigned(gg.splits));
  // With K split: one partial sum per block and element, and one ticket per column group.
  void* ws = nullptr;
  float* W = nullptr;
  unsigned* tickets = nullptr;
  Status s = Status::kOk;
  if (gg.splits > 1) {
    const size_t partialBytes = size_t(gg.splits) * size_t(a.M) * size_t(a.N) * sizeof(float);
    tickets = kept_tickets(stream, grid.x);
    const size_t ticketBytes = tickets == nullptr ? grid.x * sizeof(unsigned) : 0;
    if (s = workspace_alloc(partialBytes + ticketBytes, stream, &ws); s != Status::kOk) return s;
    W = static_cast<float*>(ws);
    if (tickets == nullptr) {
      tickets = reinterpret_cast<unsigned*>(static_cast<char*>(ws) + partialBytes);
      s = from_cuda(cudaMemsetAsync(tickets, 0, ticketBytes, stream));
    }
  }
  if (s == Status::kOk) {
    // Deep rounds where the rows allow them and no SM gets a second block (above), 8-row rounds
    // otherwise.
    constexpr int CT = gemv_cols<MT>(), kDeep = MT <= kGemvDeepMaxRows ? kGemvDeepRound : kGemvRound;
    const bool deep = int64_t(grid.x) * grid.y <= gg.sms;
    auto kernel = deep ? sgemm_30_gemv<MT, CT, kDeep> : sgemm_30_gemv<MT, CT, kGemvRound>;
    kernel<<<grid, gg.warps * kWarpSize, 0, stream>>>(int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda), a.B,
                                                      int(a.ldb), a.beta, a.C, int(a.ldc), gg.kPerBlock, W, tickets);
    s = launch_status();
  }
  if (ws != nullptr)
    if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

// The GEMV's row group for M <= 32: its kernel computes 1, 2, 4, 8, 16 or 32 rows (group 0-5).
int gemv_group(int64_t M) {
  int g = 0;
  while (g + 1 < kGemvGroups && (int64_t(1) << g) < M) ++g;
  return g;
}
static_assert(kGemvMaxRows == 1 << (kGemvGroups - 1), "the last row group is the GEMV's most rows");

Status launch_gemv(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  switch (gemv_group(a.M)) {
    case 0: return launch_gemv_rows<1>(a, stream, why);
    case 1: return launch_gemv_rows<2>(a, stream, why);
    case 2: return launch_gemv_rows<4>(a, stream, why);
    case 3: return launch_gemv_rows<8>(a, stream, why);
    case 4: return launch_gemv_rows<16>(a, stream, why);
    default: return launch_gemv_rows<kGemvMaxRows>(a, stream, why);
  }
}

// ---- repack: aligned copies, then a direct candidate on them -----------------------------------

// The library's aligned copies (pack_plan, run_on_copies; K keeps its tail), with the direct
// candidate the model picks for the copies run on them.
Status launch_repack(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  auto direct = [&](const GemmArgs& g) { return candidates()[choose(g, true)].launch(g, stream, why); };
  const PackPlan r = pack_plan(a);
  if (!r.any()) return direct(a);  // nothing to repack
  return run_on_copies(a, r, stream, direct);
}

// ---- the candidates and the model ---------------------------------------------------------------

const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> list = {  // in the order of the enum above
      {"capstone", Kind::kTiles, Capstone::BM, Capstone::BN, Capstone::BK, &prepare_capstone, &rung16::launch},
      {"few_rows", Kind::kTiles, FewRows::BM, FewRows::BN, FewRows::BK, &prepare_tiles<FewRows>, &launch_tiles<FewRows>},
      {"few_cols", Kind::kTiles, FewCols::BM, FewCols::BN, FewCols::BK, &prepare_tiles<FewCols>, &launch_tiles<FewCols>},
      {"small", Kind::kTiles, Small::BM, Small::BN, Small::BK, &prepare_tiles<Small>, &launch_tiles<Small>},
      {"split_k", Kind::kSplitK, Small::BM, Small::BN, Small::BK, &prepare_split_k<Small>, &launch_split_k<Small, kSplitKSmall>,
       &launch_split_k_into<Small>},
      {"split_k_rows", Kind::kSplitK, FewRows::BM, FewRows::BN, FewRows::BK, &prepare_split_k<FewRows>,
       &launch_split_k<FewRows, kSplitKRows>, &launch_split_k_into<FewRows>},
      {"gemv", Kind::kGemv, 0, 0, 0, nullptr, &launch_gemv},
      {"repack", Kind::kRepack, 0, 0, 0, nullptr, &launch_repack},
  };
  static_assert(sizeof(tuned::kDispatchCosts) / sizeof(tuned::kDispatchCosts[0]) == kCandidates,
                "one measured cost per candidate, in the candidates' order");
  return list;
}

// Split-K's terms for split `sp` (the last split's K tail alone checks bounds): its slabs per
// block at its residency, the partials written and read back, C written (and read, with beta).
Terms with_split(Terms t, const GemmArgs& a, const Split& sp) {
  if (sp.splits < 2) return t;
  t.slabs = sp.slabsPerSplit;
  t.residency = sp.residency;
  const double rowBytes = 4.0 * double(ceil_div64(a.N, kVecWidth) * kVecWidth), mn = double(a.M) * double(a.N);
  t.moveBytes = 2.0 * double(sp.splits) * double(a.M) * rowBytes + 4.0 * mn * (a.beta != 0 ? 2 : 1);
  t.runs = true;
  return t;
}

// The fraction of BM x BN tiles that check bounds in every slab (the kernels' kGuard path): all
// with a K tail (BK > 0: K not a whole number of slabs; split-K passes 0, its last split alone
// has the tail), else those of the last tile row past M or the last tile column past N.
double guarded_fraction(const GemmArgs& a, int BM, int BN, int BK) {
  if (BK > 0 && a.K % BK != 0) return 1.0;
  const double rows = double(ceil_div64(a.M, BM)), cols = double(ceil_div64(a.N, BN));
  return 1.0 - double(a.M / BM) * double(a.N / BN) / (rows * cols);
}

Terms model_terms(int c, const GemmArgs& a) {
  const Candidate& cand = candidates()[size_t(c)];
  Terms t;
  t.minBytes = 4.0 * (double(a.M) * a.K + double(a.K) * a.N + double(a.M) * a.N * (a.beta != 0 ? 2 : 1));
  KernelInfo info;
  std::string why;
  switch (cand.kind) {
    case Kind::kGemv:
      if (a.M > kGemvMaxRows) return t;
      t.gemvBytes = t.minBytes;
      t.gemvGroup = gemv_group(a.M);
      t.gemvFlops = 2.0 * double(int64_t(1) << t.gemvGroup) * double(a.N) * double(a.K);
      t.runs = true;
      return t;
    case Kind::kRepack: {
      const PackPlan r = pack_plan(a);
      if (!r.any()) return t;  // nothing to repack: the direct candidates say it all
      t.inner = int(choose(r.args, true));
      t.repacked = r.args;
      t.moveBytes = r.moveBytes;
      t.runs = true;
      return t;
    }
    case Kind::kTiles:
    case Kind::kSplitK:
      break;
  }
  if (cand.prepare(a, &info, &why) != Status::kOk || !grid_ok(ceil_div64(a.N, cand.BN), ceil_div64(a.M, cand.BM), &why))
    return t;
  const int64_t slots = int64_t(info.sms) * info.blocks_per_sm;
  t.unaligned = !vec4_ok(a, nullptr);
  t.guarded = guarded_fraction(a, cand.BM, cand.BN, cand.kind == Kind::kSplitK ? 0 : cand.BK);
  if (cand.kind == Kind::kSplitK) {
    const Constants& k = device_constants();
    return with_split(t, a, split_of(a, cand.BM, cand.BN, cand.BK, info, k.costs[size_t(c)], k.bytesPerNs));
  }
  cut::Plan cp;
  if (c == int(kCapstone) && rung16::plan_of(a, &cp, &why) == Status::kOk && cp.cut()) {
    // The capstone cuts the last wave: the cut plan's time, less what it charges every block
    // besides its slabs (the whole-tile terms here charge none).
    t.slabs = cp.slabTimes - cp.blockSlabs;
    t.runs = true;
    return t;
  }
  const stream_k::Model m{cand.BM, cand.BN, cand.BK, rung16::model().slabCost, rung16::model().minSlabsPerUnit};
  const stream_k::Plan p = stream_k::plan(m, a.M, a.N, a.K, slots);
  if (p.skBlocks > 0) {  // the whole tiles' waves, then the busiest share
    t.slabs = double(p.sched.dpTiles / slots * p.sched.kTiles);
    t.shareSlabs = double(stream_k::div_up(p.sched.skSlabs, p.skBlocks));
    for (int b = 0; b < p.skBlocks; ++b) {  // units: the tiles a share touches
      const int64_t first = p.sched.sk_begin(b, p.skBlocks), end = p.sched.sk_begin(b + 1, p.skBlocks);
      if (end > first) t.shareUnits = std::max(t.shareUnits, double((end - 1) / p.sched.kTiles - first / p.sched.kTiles + 1));
    }
  } else {
    t.slabs = p.slabTimes;
  }
  t.fixups = fixups_of(p);
  t.runs = true;
  return t;
}

// Constants measured on a GPU with peaks `calibrated`, scaled to one with peaks `here`: bandwidth
// by the DRAM peak, the GEMV's FLOP rate by the FP32 peak, the per-SM times (a slab, a fix-up, a
// share's start) by the FP32 peak per SM (lanes x clock). What is bound by memory scales with the
// memory, what is bound by the SMs with the SMs: the first-order correction for another GPU of
// the architecture (an H100 on an H200's constants) or one without a header of its own. Launch
// costs stay as measured. Unchanged where a peak is unknown.
Constants scale_constants(Constants k, const DeviceRates& here, const DeviceRates& calibrated) {
  for (const DeviceRates& r : {here, calibrated})
    if (!(r.fp32_flops > 0 && r.dram_bytes > 0 && r.sms > 0)) return k;
  const double chip = here.fp32_flops / calibrated.fp32_flops;
  const double perSm = chip * double(calibrated.sms) / double(here.sms);
  k.bytesPerNs *= here.dram_bytes / calibrated.dram_bytes;
  for (double& f : k.gemvFlopsPerNs) f *= chip;
  for (Cost& c : k.costs) {
    c.slab_ns /= perSm;
    c.fixup_ns /= perSm;
    c.unit_ns /= perSm;
    c.lone_ns /= perSm;
  }
  return k;
}

// Every candidate's slab factors are spelled out (a header that leaves them out would price
// checked and unaligned slabs at nothing).
constexpr bool slab_factors_measured() {
  for (const tuned::DispatchCost& c : tuned::kDispatchCosts)
    if (!(c.guard > 0 && c.unaligned > 0)) return false;
  return true;
}
static_assert(slab_factors_measured(), "the dispatch header gives every candidate its guard and unaligned factors");

// The tuned header's constants, scaled to the current device (scale_constants).
Constants measured_constants() {
  Constants k;
  for (const tuned::DispatchCost& c : tuned::kDispatchCosts)
    k.costs.push_back({c.slab_ns, c.launch_ns, c.fixup_ns, c.share, c.unit_ns, c.lone_ns, c.guard, c.unaligned});
  static_assert(sizeof(tuned::kGemvFlopsPerNs) / sizeof(tuned::kGemvFlopsPerNs[0]) == kGemvGroups,
                "one GEMV FLOP rate per row group");
  k.gemvFlopsPerNs.assign(std::begin(tuned::kGemvFlopsPerNs), std::end(tuned::kGemvFlopsPerNs));
  k.bytesPerNs = tuned::kBytesPerNs;
  DeviceRates here;
  if (device_rates(&here) != Status::kOk) return k;
  DeviceRates calibrated;
  calibrated.fp32_flops = tuned::kCalibratedFp32Gflops * 1e9;
  calibrated.dram_bytes = tuned::kCalibratedDramGBps * 1e9;
  calibrated.sms = tuned::kCalibratedSms;
  return scale_constants(k, here, calibrated);
}

// The model's prediction, in nanoseconds, of candidate `c` on these arguments: its terms times
// the constants, plus its fixed cost; the GEMM kernel never faster than the bytes it must move
// over the measured bandwidth. Repack: its copies, plus the prediction for the candidate that runs
// on them.
double predict_ns(int c, const GemmArgs& a, const Constants& k) {
  const Terms t = model_terms(c, a);
  if (!t.runs) return std::numeric_limits<double>::infinity();
  const Cost& cost = k.costs[size_t(c)];
  const double moved = t.moveBytes / k.bytesPerNs + cost.launch_ns;
  if (t.inner >= 0) return predict_ns(t.inner, t.repacked, k) + moved;
  const double slab =
      slab_ns_at(cost, t.residency) * (t.unaligned ? cost.unaligned : 1.0) * (1.0 + (cost.guard - 1.0) * t.guarded);
  const double gemv =
      t.gemvFlops > 0 ? std::max(t.gemvBytes / k.bytesPerNs, t.gemvFlops / k.gemvFlopsPerNs[size_t(t.gemvGroup)]) : 0.0;
  const double kernel = (t.slabs + t.shareSlabs * cost.share) * slab + t.shareUnits * cost.unit_ns + t.fixups * cost.fixup_ns;
  return std::max(t.minBytes / k.bytesPerNs, kernel + gemv) + moved;
}

// measured_constants() of the current device, made once per device.
const Constants& device_constants() {
  static std::mutex mutex;
  static std::map<int, Constants> perDevice;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = perDevice.find(device);
  if (it == perDevice.end()) it = perDevice.emplace(device, measured_constants()).first;
  return it->second;  // map nodes stay put
}

double predict_ns(int c, const GemmArgs& a) { return predict_ns(c, a, device_constants()); }

// The candidate the model picks for these arguments (direct_only: not repack), without a cache.
size_t choose_uncached(const GemmArgs& a, bool direct_only) {
  size_t best = 0;
  double bestNs = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < candidates().size(); ++c) {
    if (direct_only && candidates()[c].kind == Kind::kRepack) continue;
    if (const double ns = predict_ns(int(c), a); ns < bestNs) best = c, bestNs = ns;
  }
  return best;
}

// The same, remembered per device and per everything the model reads (sizes, leading dimensions,
// which operands are 16-byte aligned, beta == 0): the model evaluates every candidate's plan, tens
// of microseconds of host time that a GEMV of 20 microseconds must not pay at every call.
size_t choose(const GemmArgs& a, bool direct_only) {
  using Key = std::array<int64_t, 9>;
  static std::mutex mutex;
  static std::map<Key, size_t> cache;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return choose_uncached(a, direct_only);
  auto aligned = [](const void* p) { return int64_t(reinterpret_cast<uintptr_t>(p) % 16 == 0); };
  const Key key{a.M, a.N, a.K, a.lda, a.ldb, a.ldc,
                aligned(a.A) | aligned(a.B) << 1 | aligned(a.C) << 2 | int64_t(a.beta == 0) << 3,
                int64_t(direct_only), int64_t(device)};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const size_t c = choose_uncached(a, direct_only);
  const std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 4096) cache.clear();  // bounded: a long-running caller with ever new shapes
  cache.emplace(key, c);
  return c;
}

std::string tile() { return "capstone " + pipelined_tile_text<Capstone>() + ", few rows " + pipelined_tile_text<FewRows>() +
                            ", few columns " + pipelined_tile_text<FewCols>() + ", small (and split-K) " +
                            pipelined_tile_text<Small>() + ", gemv M<=" + std::to_string(kGemvMaxRows) +
                            ", repack to 16-byte rows"; }

// Never refuses a valid input: the capstone's kernels take any leading dimension and any 4-byte-
// aligned pointer; sizes beyond 32-bit index math are the one limit they share with rung 16.
bool supports(const GemmArgs& a, std::string* why) { return fits_int32(a, why); }

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return candidates()[choose(a, false)].launch(a, stream, why);
}

// What the rung runs on these arguments: a candidate's name, "repack+<candidate>" for repack.
const char* choice(const GemmArgs& a) {
  static const std::vector<std::string> repacked = [] {
    std::vector<std::string> names;
    for (const Candidate& c : candidates()) names.push_back(std::string("repack+") + c.name);
    return names;
  }();
  const size_t c = choose(a, false);
  if (candidates()[c].kind != Kind::kRepack) return candidates()[c].name;
  return repacked[size_t(model_terms(int(c), a).inner)].c_str();
}

// For the autotuner's calibration (sgemm_autotune --dispatch) and the tests.
int candidate_count() { return int(candidates().size()); }
const char* candidate_name(int c) { return candidates()[size_t(c)].name; }
std::pair<int, int> candidate_tile(int c) { return {candidates()[size_t(c)].BM, candidates()[size_t(c)].BN}; }
Status launch_candidate(int c, const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return candidates()[size_t(c)].launch(a, stream, why);
}
Terms split_terms(int c, const GemmArgs& a, int splits) {
  const Candidate& cand = candidates()[size_t(c)];
  Terms t = model_terms(c, a);  // the bytes every kernel moves, the alignment
  if (cand.kind != Kind::kSplitK) return t;
  KernelInfo info;
  std::string why;
  t.runs = false;
  if (cand.prepare(a, &info, &why) != Status::kOk) return t;
  return with_split(t, a, split_into(a, cand.BM, cand.BN, cand.BK, splits, info));
}
Status launch_candidate_split(int c, const GemmArgs& a, int splits, cudaStream_t stream, std::string* why) {
  const Candidate& cand = candidates()[size_t(c)];
  if (cand.kind != Kind::kSplitK) return cand.launch(a, stream, why);
  return cand.launch_split(a, splits, stream, why);
}

}  // namespace sgemm::rung30
#endif
