// The dispatch rung's GEMV kernels (kernels/dispatch/gemv_launch.cuh launches them; its page explains
// them): rung 30's own device code beside its file, not a rung. Here op(B) = B, read along its rows;
// op(B) = B^T (nn.Linear's weight), read along K, is dispatch/gemv_t.cuh.
#pragma once

#include <cooperative_groups.h>

#include <type_traits>

#include "common/common.cuh"

namespace sgemm::rung30 {

constexpr int kGemvChunk = kWarpSize;  // k steps whose A values a warp stages at once (one per lane)
// Rows of B a lane loads before it uses them (a round): 8, or a whole chunk of 32 (deep rounds:
// more bytes in flight) at 1-4 rows of C where the grid leaves every SM one block at most, whose
// waits no other block's loads cover. Where SMs hold two blocks deep rounds lose: their 64
// registers a thread leave room for one block of 1024 threads (docs/rungs/30_auto.md). With
// 128-bit columns (V = 4, below) a round is 4 rows at 1-4 rows of C (8 would spill at 64 registers)
// and 8 past that (gemv_launch.cuh: gemv_round_rows).
constexpr int kGemvRound = 8;
constexpr int kGemvDeepRound = kGemvChunk;
constexpr int kGemvDeepMaxRows = 4;
static_assert(kGemvRound % kVecWidth == 0 && kGemvChunk % kGemvRound == 0 && kGemvChunk % kGemvDeepRound == 0,
              "rounds of whole float4 A reads, a whole number of them a chunk");
// Groups of V adjacent columns of C a lane computes, 32 V apart (coalesced rows): with scalar
// accesses (V = 1, any alignment) two at 9-16 rows, where one shared-memory read of A feeds 8 FFMAs,
// not 4 (fewer rows want warps, more registers); with 128-bit loads (V = 4) one, already 4 columns.
template <int MT, int V>
constexpr int gemv_cols() { return V > 1 ? 1 : MT > 8 && MT <= 16 ? 2 : 1; }
// Warps of a GEMV block (splitting its K range): as many as MT x CT accumulators (CT: a lane's
// columns, V included; registers: 64, 128 or 255 a thread) and a warp's staged A values (at most
// 32 KiB of shared memory a block) allow.
template <int MT, int CT>
constexpr int gemv_warps() { return MT * CT <= 8 ? 32 : MT * CT <= 16 ? 16 : 8; }
// A cluster's blocks can split K (sm_90 on): each keeps its MT x CT sums a lane in shared memory
// beside its warps' staging area; not at 32 rows with 128-bit columns, where the two would pass the
// 48 KiB of static shared memory a block (those never split: gemv_launch.cuh, gemv_rows_plan).
template <int MT, int CT>
constexpr bool gemv_cluster_split() { return MT * CT <= 64; }

// Programmatic dependent launch (gemv_launch.cuh launches the GEMVs with it from sm_90 on): while the
// launch before this one still runs, warm L2 with a line this thread will read first of the
// operand that streams (`first`; a prefetch never returns a stale value: every write lands in L2),
// wait until that launch has finished and its writes are visible, then let the launch after this
// one start its blocks as slots free up. Without the launch attribute the wait returns at once.
__device__ __forceinline__ void gemv_overlap(const float* first) {
#if __CUDA_ARCH__ >= 900
  if (first != nullptr) asm volatile("prefetch.global.L2 [%0];" ::"l"(first));
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// One round of B: rows j .. j + R - 1 of the chunk at `b` in the lane's CT x V columns (zero past
// `steps` unless kFull, zero in a column outside C). V = 4: a lane's columns four adjacent ones, one
// 128-bit load (B's rows 16-byte aligned), `left[c]` the columns of C from the lane's c-th group on;
// V = 1: `col_ok[c]`, the column lies in C (a predicate: an int kept for the test costs the one-row
// kernel more registers, and with them its second block of 1024 threads an SM; docs/rungs/30_auto.lab.md).
template <int CT, int V, int R, bool kFull>
__device__ __forceinline__ void gemv_round(float (&v)[CT * V][R], const float* b, int ldb, int j, int steps,
                                           const int (&left)[CT], const bool (&col_ok)[CT]) {
#pragma unroll
  for (int u = 0; u < R; ++u)
#pragma unroll
    for (int c = 0; c < CT; ++c) {
      const float* p = b + int64_t(j + u) * ldb + c * kWarpSize * V;
      const bool row = kFull || j + u < steps;
      if constexpr (V == kVecWidth) {
        float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (row && left[c] >= kVecWidth) x = load_f4(p);
        else if (row && left[c] > 0) {
          x.x = p[0];
          if (left[c] > 1) x.y = p[1];
          if (left[c] > 2) x.z = p[2];
        }
        v[c * V][u] = x.x, v[c * V + 1][u] = x.y, v[c * V + 2][u] = x.z, v[c * V + 3][u] = x.w;
      } else {
        v[c][u] = (col_ok[c] && row) ? b[int64_t(j + u) * ldb + c * kWarpSize] : 0.0f;
      }
    }
}

// One chunk of a warp: k steps [kc, kc + steps) of the lane's columns into acc (kFull: steps = 32).
// op(A)'s values (element (m, k) at A + m sm + k sk) are staged in sA (one k per lane), loaded beside
// B's first round; then B is read in rounds of R rows and A as float4 broadcasts: one shared-memory
// read feeds 4 x CT FFMAs.
template <int MT, int CT, int V, int R, bool kFull>
__device__ __forceinline__ void gemv_chunk(float (&acc)[MT][CT * V], float (&sA)[MT][kGemvChunk], const float* A,
                                           int sm, int sk, int M, int kc, int steps, const float* b, int ldb,
                                           const int (&left)[CT], const bool (&col_ok)[CT]) {
  const int lane = threadIdx.x % kWarpSize;
  float v[CT * V][R];
  gemv_round<CT, V, R, kFull>(v, b, ldb, 0, steps, left, col_ok);
  float a[MT];
#pragma unroll
  for (int m = 0; m < MT; ++m)
    a[m] = (m < M && (kFull || lane < steps)) ? A[int64_t(m) * sm + int64_t(kc + lane) * sk] : 0.0f;
#pragma unroll
  for (int m = 0; m < MT; ++m) sA[m][lane] = a[m];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < kGemvChunk; j += R) {
    if (!kFull && j >= steps) break;
    if (j > 0) gemv_round<CT, V, R, kFull>(v, b, ldb, j, steps, left, col_ok);
#pragma unroll
    for (int u = 0; u < R; u += kVecWidth)
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const float4 a4 = load_f4(&sA[m][j + u]);
#pragma unroll
        for (int c = 0; c < CT * V; ++c) {
          acc[m][c] += a4.x * v[c][u];
          acc[m][c] += a4.y * v[c][u + 1];
          acc[m][c] += a4.z * v[c][u + 2];
          acc[m][c] += a4.w * v[c][u + 3];
        }
      }
  }
  __syncwarp();  // the next chunk overwrites sA
}

// The column of C in accumulator slot `slot` of the lane whose first column is col0: the slot's
// group of V adjacent columns lies 32 V columns past the one before.
template <int V>
__device__ __forceinline__ int gemv_column(int col0, int slot) { return col0 + (slot / V) * kWarpSize * V + slot % V; }

// The end of a K split over the blocks of a cluster (sm_90 on), one part a block, its rank its
// blockIdx.y: each block's sums of its part are in its shared memory, slot j of lane l of row m at
// sSum[m][j][l] (columns from blockCol0 as in the kernel below). Once every block's are there, each
// block adds a contiguous share of the column group's outputs over the cluster's blocks in rank
// order and writes them; the last barrier keeps each block's sums readable until all are read.
// Not inlined, so that its registers do not add to the main loop's: inlined, they take the one-row
// scalar kernel past the 32 a thread its two 1024-thread blocks an SM leave (docs/rungs/30_auto.lab.md).
template <int MT, int kSlots, int V>
__device__ __noinline__ void gemv_cluster_sums(const float (&sSum)[MT][kSlots][kWarpSize], int M, int N, int blockCol0,
                                               float alpha, float beta, float* C, int ldc, const float* bias) {
#if __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  const int parts = int(cluster.num_blocks()), rank = int(cluster.block_rank());
  const int total = M * kSlots * kWarpSize, share = ceil_div(total, parts), end = min(total, (rank + 1) * share);
  for (int i = rank * share + int(threadIdx.x); i < end; i += int(blockDim.x)) {
    const int m = i / (kSlots * kWarpSize), j = i / kWarpSize % kSlots, l = i % kWarpSize;
    const int col = gemv_column<V>(blockCol0 + l * V, j);  // lane l's slot j
    if (col >= N) continue;
    float sum = 0.0f;
    for (int q = 0; q < parts; ++q) sum += *cluster.map_shared_rank(&sSum[m][j][l], q);
    float* out = C + int64_t(m) * ldc + col;
    *out = epilogue(alpha, sum, beta, out, bias, col);
  }
  cluster.sync();
#endif
}

// C (M x N, M <= MT) = alpha * op(A) * B + beta * C (+ bias), CT groups of V adjacent columns of C a
// lane, the groups 32 V apart (op(A) = A^T: transa, A is K x M): V = 1, scalar accesses (any leading
// dimension, any 4-byte-aligned pointer); V = 4, 128-bit loads of B (rows 16-byte aligned). Block
// (x, y) covers 32 x CT x V columns and K range y of gridDim.y, split among its warps, each walking
// its part in chunks of 32 k steps (gemv_chunk): B is read once. The warps' sums are added in warp
// order. With K split over blocks (gridDim.y > 1) the column group's blocks are either one cluster
// (W null; sm_90 on, gemv_launch.cuh launches them so): each keeps its sums in its shared memory and
// each adds a share of the group's outputs from all of them in block order through distributed
// shared memory, with no workspace; or each writes its partials to W, and the last block of a column
// group to arrive (a ticket) adds them in block order, writes C and zeroes the ticket for the next
// launch. Both deterministic, and the same sums in the same order.
// LB: the block's most warps (its launch bounds: 8 leave ptxas 255 registers a thread for deep rounds
// of 128-bit columns); kWarm: warm L2 before the wait (below).
// Blocks an SM the registers must allow (launch bounds): 0, ptxas's choice, but two for one row of
// scalar columns in rounds of kGemvRound with 32 warps, the one-row kernel whose two blocks of 1024
// threads an SM take 32 registers a thread (gemv_round): left free, ptxas aims at two blocks anyway
// and, from sm_90 on, spills blockDim.x to get there; asked for them, it fits 32 without a spill.
template <int MT, int CT, int V, int R, int LB>
constexpr int gemv_min_blocks() {
  return MT == 1 && CT * V == 1 && R == kGemvRound && LB == gemv_warps<1, 1>() ? 2 : 0;
}
template <int MT, int CT, int V, int R, int LB = gemv_warps<MT, CT * V>(), bool kWarm = R == kGemvDeepRound>
__global__ void __launch_bounds__(LB * kWarpSize, gemv_min_blocks<MT, CT, V, R, LB>())
sgemm_30_gemv(int M, int N, int K, float alpha, const float* A, int lda, bool transa, const float* B, int ldb,
              float beta, float* C, int ldc, const float* bias, int kPerBlock, float* W, unsigned* tickets) {
  constexpr int kSlots = CT * V;  // accumulators a row
  __shared__ __align__(16) float sWarp[LB][MT][kGemvChunk];  // per warp: A's values, then its sums
  const int warps = int(blockDim.x) / kWarpSize, warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int blockCol0 = blockIdx.x * kWarpSize * kSlots;  // the block's first column (lane 0's)
  const int col0 = blockCol0 + lane * V;  // the lane's columns: col0 + 32 V c + e, e < V
  int left[CT];
#pragma unroll
  for (int c = 0; c < CT; ++c) left[c] = N - (col0 + c * kWarpSize * V);
  bool col_ok[CT];  // the group's first column lies in C
#pragma unroll
  for (int c = 0; c < CT; ++c) col_ok[c] = left[c] > 0;
  auto column = [col0](int slot) { return gemv_column<V>(col0, slot); };
  auto slot_ok = [&](int slot) { return V == 1 ? col_ok[slot] : left[slot / V] > slot % V; };  // its column lies in C
  const int kb0 = blockIdx.y * kPerBlock, kb1 = min(K, kb0 + kPerBlock);
  const int per = ceil_div(ceil_div(max(kb1 - kb0, 0), warps), kGemvChunk) * kGemvChunk;
  const int k0 = kb0 + warp * per, k1 = min(kb1, k0 + per);
  // Warming (kWarm: deep rounds, and one row's 128-bit kernel) runs where the grid is one wave:
  // every block starts at once, while the launch before ends. There lane j warms L2 with the first
  // line of the warp's row k0 + j, so that the first chunk streams in that launch's tail. Not in
  // grids of several waves, whose later blocks have no launch to overlap and pay for the prefetches
  // (docs/rungs/30_auto.md); nor with K split over blocks, whose workspace is allocated on the
  // stream between the launch before and this one (no overlap there either; a cluster's split needs
  // none); nor at 3-4 rows, where the address alone makes ptxas spill at 64 registers.
  if constexpr (kWarm && MT < kGemvDeepMaxRows) {
    const bool warm = W == nullptr && k0 + lane < k1 && blockCol0 < N;
    gemv_overlap(warm ? B + int64_t(k0 + lane) * ldb + blockCol0 : nullptr);
  } else {
    gemv_overlap(nullptr);
  }
  float(&sA)[MT][kGemvChunk] = sWarp[warp];
  float acc[MT][kSlots] = {};
  for (int kc = k0; kc < k1; kc += kGemvChunk) {
    const int steps = min(kGemvChunk, k1 - kc);
    const float* b = B + int64_t(kc) * ldb + col0;
    const int sm = transa ? 1 : lda, sk = transa ? lda : 1;  // op(A)'s element (m, k) at A + m sm + k sk
    if (steps == kGemvChunk) gemv_chunk<MT, CT, V, R, true>(acc, sA, A, sm, sk, M, kc, steps, b, ldb, left, col_ok);
    else gemv_chunk<MT, CT, V, R, false>(acc, sA, A, sm, sk, M, kc, steps, b, ldb, left, col_ok);
  }
  auto warp_sum = [&](int m) {
    float sum = 0.0f;
    for (int w = 0; w < warps; ++w) sum += sWarp[w][m][lane];
    return sum;
  };
  // The block's sums, one accumulator slot of each lane's at a time: use(slot, m, sum) for this
  // thread's rows m. A warp's slice of sWarp is its own until the first __syncthreads (its chunks end
  // in __syncwarp).
  auto column_sums = [&](auto&& use) {
#pragma unroll
    for (int j = 0; j < kSlots; ++j) {
#pragma unroll
      for (int m = 0; m < MT; ++m) sA[m][lane] = acc[m][j];
      __syncthreads();
      if (slot_ok(j))
        for (int m = warp; m < M; m += warps) use(j, m, warp_sum(m));
      if (j + 1 < kSlots) __syncthreads();  // before the next slot's sums overwrite these
    }
  };
  if (gridDim.y == 1) {
    column_sums([&](int j, int m, float sum) {
      float* out = C + int64_t(m) * ldc + column(j);
      *out = epilogue(alpha, sum, beta, out, bias, column(j));
    });
    return;
  }
#if __CUDA_ARCH__ >= 900
  if constexpr (gemv_cluster_split<MT, kSlots>()) {
    if (W == nullptr) {
      // K split over the blocks of a cluster, one a part (its rank is blockIdx.y): every block's sums
      // stay in its shared memory for the cluster's blocks to add (gemv_cluster_sums).
      __shared__ float sSum[MT][kSlots][kWarpSize];
      column_sums([&](int j, int m, float sum) { sSum[m][j][lane] = sum; });
      gemv_cluster_sums<MT, kSlots, V>(sSum, M, N, blockCol0, alpha, beta, C, ldc, bias);
      return;
    }
  }
#endif
  // K split over blocks: partials through W, the last block of the column group adds them.
  column_sums([&](int j, int m, float sum) { __stcg(W + (int64_t(blockIdx.y) * M + m) * N + column(j), sum); });
  __threadfence();
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) last = atomicAdd(tickets + blockIdx.x, 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last) return;
  if (threadIdx.x == 0) tickets[blockIdx.x] = 0;  // every block has taken its ticket: zero for the next launch
#pragma unroll
  for (int j = 0; j < kSlots; ++j) {
    if (!slot_ok(j)) continue;
    const int col = column(j);
    for (int m = warp; m < M; m += warps) {
      float sum = 0.0f;
#pragma unroll 8
      for (unsigned y = 0; y < gridDim.y; ++y) sum += __ldcg(W + (int64_t(y) * M + m) * N + col);
      float* out = C + int64_t(m) * ldc + col;
      *out = epilogue(alpha, sum, beta, out, bias, col);
    }
  }
}

}  // namespace sgemm::rung30
