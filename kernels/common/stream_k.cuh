// The stream-K schedule: which block computes which slabs of which output tile. Rung 12 teaches
// it (read this file with its page); rungs 13-15 use it unchanged. Device side: the units of a
// stream-K block and the partial tiles they exchange. Host side (not under NVRTC): the plan.
//
// The full waves of output tiles run as whole tiles, one block each (the "data-parallel" part).
// The slabs of the tiles left over are laid end to end and dealt out in equal shares to at most
// one wave of stream-K blocks. A share that starts inside a tile publishes its raw partial sums
// and sets a flag (release); the block holding the tile's first slab waits for those flags
// (acquire), adds the partials in block order (bitwise deterministic) and writes C.
#pragma once

#include "common/common.cuh"
#include "common/stream_k_plan.hpp"

namespace sgemm::stream_k {

// How a block ends a work unit (slabs [kb, ke) of one output tile).
enum class Finish {
  kStore,    // the whole tile (kb = 0, ke = all): alpha * acc + beta * C into C
  kPublish,  // not the tile's first slab: the raw partial sums into this block's workspace slot
  kFixUp,    // the tile's first slab but not its last: add the later blocks' partials, then store
};

// One unit of work: slabs [kb, ke) of output tile (m0, n0).
struct Unit {
  int m0, n0;      // the output tile's first row and column
  int kb, ke;      // its slabs
  Finish finish;
  int block;       // the stream-K block computing it (its workspace slot)
  int lastHelper;  // kFixUp: the last stream-K block whose share reaches into this tile
};

// The workspace of partial tiles: one slot of BM x BN floats and one flag per stream-K block.
struct Partials {
  float* W;
  int* flags;
};

// The unit of a whole tile at (m0, n0): every slab, stored straight to C.
__device__ __forceinline__ Unit whole_tile(int m0, int n0, int kTiles) {
  return {m0, n0, 0, kTiles, Finish::kStore, 0, 0};
}

// Calls f(unit) for each unit of stream-K block b (of `blocks`), in order. Output tiles are BM x BN.
template <int BM, int BN, class F>
__device__ __forceinline__ void for_each_unit(const Schedule& s, int b, int blocks, F&& f) {
  const int64_t skEnd = s.sk_begin(b + 1, blocks);
  for (int64_t sk = s.sk_begin(b, blocks); sk < skEnd;) {
    const int tile = s.dpTiles + int(sk / s.kTiles), kb = int(sk % s.kTiles);
    const int ke = int(min(int64_t(s.kTiles), kb + (skEnd - sk)));
    sk += ke - kb;
    const Finish finish = kb > 0 ? Finish::kPublish : ke < s.kTiles ? Finish::kFixUp : Finish::kStore;
    int lastHelper = b;
    if (finish == Finish::kFixUp) {
      const int64_t tileEnd = int64_t(tile - s.dpTiles + 1) * s.kTiles;
      while (lastHelper + 1 < blocks && s.sk_begin(lastHelper + 1, blocks) < tileEnd) ++lastHelper;
    }
    f(Unit{tile / s.tilesN * BM, tile % s.tilesN * BN, kb, ke, finish, b, lastHelper});
  }
}

// Partial tiles travel through a block's slot in the threads' own register order (float4 g of
// thread x at g * Threads + x: coalesced, and read back by the same thread of the fixing block).
template <int Threads, int TM, int TN>
__device__ __forceinline__ void publish(const float (&acc)[TM][TN], const Partials& p, int block) {
  constexpr int kGroups = TM * TN / kVecWidth;  // float4s of accumulators per thread
  float4* slot = reinterpret_cast<float4*>(p.W) + int64_t(block) * kGroups * Threads + threadIdx.x;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth)
      __stcg(slot + (i * TN + j) / kVecWidth * Threads, make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
  __threadfence();
  __syncthreads();  // the whole partial tile is written
  if (threadIdx.x == 0) flag_release(p.flags + block, 1);
}

// Adds the partials of blocks block+1 .. lastHelper, in block order (the sum is bitwise
// deterministic). Their partials are the first thing they compute, so none waits long.
template <int Threads, int TM, int TN>
__device__ __forceinline__ void add_partials(float (&acc)[TM][TN], const Partials& p, int block, int lastHelper) {
  constexpr int kGroups = TM * TN / kVecWidth;
  for (int b = block + 1; b <= lastHelper; ++b) {
    if (threadIdx.x == 0)
      while (flag_acquire(p.flags + b) == 0) {
      }
    __syncthreads();
    const float4* slot = reinterpret_cast<const float4*>(p.W) + int64_t(b) * kGroups * Threads + threadIdx.x;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; j += kVecWidth) {
        const float4 v = __ldcg(slot + (i * TN + j) / kVecWidth * Threads);
        acc[i][j] += v.x, acc[i][j + 1] += v.y, acc[i][j + 2] += v.z, acc[i][j + 3] += v.w;
      }
  }
}

}  // namespace sgemm::stream_k

#ifndef SGEMM_DEVICE_ONLY
#include "common/launch.hpp"

namespace sgemm::stream_k {

// Launches a plan: the whole tiles on a grid of tile columns x tile rows (blocks past dpTiles
// return at once), then the stream-K blocks, with a workspace of one partial tile and one flag
// per stream-K block where tiles are cut. Both kernels take the BLAS arguments, the schedule and
// the workspace, then `extra` (rung 17: the batch's strides and the bias).
template <class Whole, class Shares, class... Extra>
Status launch(const Plan& p, const Model& m, Whole whole, Shares shares, int threads, int smemBytes,
              const GemmArgs& a, cudaStream_t stream, Extra... extra) {
  Partials parts{nullptr, nullptr};
  void* ws = nullptr;
  Status s = Status::kOk;
  if (p.skBlocks > 0) {
    const size_t partialBytes = size_t(p.skBlocks) * size_t(m.BM) * size_t(m.BN) * sizeof(float);
    if (s = workspace_alloc(partialBytes + size_t(p.skBlocks) * sizeof(int), stream, &ws); s != Status::kOk) return s;
    parts = {static_cast<float*>(ws), reinterpret_cast<int*>(static_cast<char*>(ws) + partialBytes)};
    s = from_cuda(cudaMemsetAsync(parts.flags, 0, size_t(p.skBlocks) * sizeof(int), stream));
  }
  if (s == Status::kOk && p.sched.dpTiles > 0) {
    const dim3 grid(p.sched.tilesN, ceil_div(p.sched.dpTiles, p.sched.tilesN));
    whole<<<grid, threads, smemBytes, stream>>>(int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda), a.B,
                                                int(a.ldb), a.beta, a.C, int(a.ldc), p.sched, parts, extra...);
    s = launch_status();
  }
  if (s == Status::kOk && p.skBlocks > 0) {
    shares<<<p.skBlocks, threads, smemBytes, stream>>>(int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda), a.B,
                                                       int(a.ldb), a.beta, a.C, int(a.ldc), p.sched, parts, extra...);
    s = launch_status();
  }
  if (ws != nullptr)
    if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm::stream_k
#endif
