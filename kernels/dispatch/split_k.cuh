// The dispatch rung's split-K candidates: the capstone's tile code over parts of K into a
// workspace, then a parallel reduction into C. Each tile's instances are compiled in a unit of their
// own (rungs/30_auto.split_k_<Cfg>.cu, the section at the end).
#pragma once

#include <algorithm>
#include <string>

#include "common/common.cuh"
#include "common/launch.cuh"
#include "common/stream_k.cuh"
#include "dispatch/tiles.hpp"

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
    capstone_rung::compute_tile<kVec, kTransA, kTransB, Cfg, false>(smem, g, u, none);
  else capstone_rung::compute_tile<kVec, kTransA, kTransB, Cfg, true>(smem, g, u, none);
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


template <bool kVec, class Cfg, bool kTransA, bool kTransB>
Status prepare_split_k_layout(KernelInfo* info, std::string* why) {
  const Status s = prepare(sgemm_30_reduce<kVec>, kWarpSize * kWarpSize, 0, nullptr, why);
  auto split = sgemm_30_split_k<kVec, kTransA, kTransB, Cfg>;
  return s != Status::kOk ? s : prepare(split, Cfg::kThreads, Cfg::smem_bytes(kTransB), info, why);
}
template <bool kVec, class Cfg>  // NN's, for the model's occupancy
Status prepare_split_k(KernelInfo* info, std::string* why) {
  return prepare_split_k_layout<kVec, Cfg, false, false>(info, why);
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
    return Kernels{sgemm_30_split_k<v(), ta(), tb(), Cfg>, prepare_split_k_layout<v(), Cfg, ta(), tb()>};
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

}  // namespace sgemm::rung30

// The instances of split-K on one tile, priced as candidate SGEMM_30_SPLIT_K_COST, in its unit
// (kernels/CMakeLists.txt defines both).
#ifdef SGEMM_30_SPLIT_K
namespace sgemm::rung30 {
template Status launch_split_k_into<SGEMM_30_SPLIT_K, SGEMM_30_SPLIT_K_COST>(const GemmArgs& a, int splits,
                                                                             cudaStream_t stream, std::string* why);
template Status prepare_split_k<true, SGEMM_30_SPLIT_K>(KernelInfo* info, std::string* why);
template Status prepare_split_k<false, SGEMM_30_SPLIT_K>(KernelInfo* info, std::string* why);
}  // namespace sgemm::rung30
#endif
