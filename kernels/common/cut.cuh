// The cut's launches: the parts of a cut plan (kernels/common/cut_plan.hpp) as launches of a rung's
// whole-tile kernel, then the add. Rung 16 teaches the cut (read this file with its page); rung 17
// runs it unchanged, and runs a batch's whole tiles through the same launch (launch_batch). Host
// code of the launchers, compiled by nvcc.
#pragma once

#include <algorithm>
#include <tuple>
#include <type_traits>

#include "common/common.cuh"
#include "common/cut_plan.hpp"
#include "common/launch.cuh"
#include "common/launch.hpp"
#include "common/stream_k.cuh"

namespace sgemm::cut {

// The cut's last step: C += W over M rows of N columns. Rows go to grid rows, columns to threads.
// (Templated on the rung's tile so that each rung's translation unit has its own.)
template <class Cfg>
__global__ void add_workspace(int M, int N, float* C, int ldc, const float* W, int ldw) {
  for (int row = blockIdx.y; row < M; row += gridDim.y)
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < N; col += gridDim.x * blockDim.x)
      C[int64_t(row) * ldc + col] += W[int64_t(row) * ldw + col];
}

// One launch of the whole-tile kernel of tile Cfg on GEMM `g`: grid.x tile columns x grid.y tile
// rows (x grid.z products), `extra` after the kernel's usual arguments. `early`: it may start while
// the launch before it still runs (programmatic dependent launch).
// The dynamic shared memory of tile Cfg's kernels in a layout: a tile whose kernels stage a
// transposed B's slab (rung 17's: Cfg::smem_bytes) asks for that area only where op(B) = B^T.
template <class Cfg, class = void>
struct SmemOf {
  static int bytes(bool) { return Cfg::kSmemBytes; }
};
template <class Cfg>
struct SmemOf<Cfg, std::void_t<decltype(Cfg::smem_bytes(true))>> {
  static int bytes(bool transB) { return Cfg::smem_bytes(transB); }
};

template <class Cfg, class Kernel, class... Extra>
Status launch_part(Kernel kernel, const Gemm& g, dim3 grid, bool early, bool transB, cudaStream_t stream,
                   Extra... extra) {
  const stream_k::Schedule sched{int(grid.x), ceil_div(g.K, Cfg::BK), int(grid.x * grid.y), 0};
  return launch_early(kernel, grid, dim3(Cfg::kThreads), SmemOf<Cfg>::bytes(transB), early, stream, g.M, g.N, g.K,
                      g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, sched, stream_k::Partials{nullptr, nullptr},
                      extra...);
}

// The cut: the plan's launches of the whole-tile kernel, the ends into a workspace W, then C += W.
// The add is an ordinary launch: it starts when all before it in the stream, the early launches
// included, have ended. extra(intoWorkspace): the tuple of arguments the kernel takes after the
// usual ones for a part into C or into W (rung 17: the bias, into C only).
template <class Cfg, class Kernel, class Extra>
Status launch(const Plan& p, const stream_k::Model& m, Kernel whole, const GemmArgs& a, cudaStream_t stream,
              Extra extra) {
  const int tilesN = ceil_div(int(a.N), Cfg::BN), m0 = p.wholeRows * Cfg::BM, cutM = int(a.M) - m0;
  const int ldw = ceil_div(int(a.N), kVecWidth) * kVecWidth;  // W's rows 16-byte aligned
  void* ws = nullptr;
  if (const Status s = workspace_alloc(size_t(cutM) * size_t(ldw) * sizeof(float), stream, &ws); s != Status::kOk)
    return s;
  float* W = static_cast<float*>(ws);
  const Gemm all{int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda), a.B, int(a.ldb), a.beta, a.C, int(a.ldc)};
  Status s = Status::kOk;
  bool first = true;
  for (const Part& part : parts(p, a.M, m)) {
    const int r0 = part.row0 * Cfg::BM, k0 = part.kb * Cfg::BK;
    Gemm g = all.k_range(k0, std::min(int(a.K), part.ke * Cfg::BK) - k0, a.transa, a.transb);
    g.M = std::min(int(a.M), part.row1 * Cfg::BM) - r0;
    g.A += a.transa ? r0 : int64_t(r0) * g.lda;  // op(A) = A^T: its rows are columns of A
    g.C += int64_t(r0) * g.ldc;
    if (part.intoWorkspace) g.C = W, g.ldc = ldw, g.beta = 0.0f;
    const dim3 grid(tilesN, part.row1 - part.row0);
    auto launch_with = [&](auto... e) { return launch_part<Cfg>(whole, g, grid, !first, a.transb, stream, e...); };
    if (s == Status::kOk) s = std::apply(launch_with, extra(part.intoWorkspace));
    first = false;
  }
  if (s == Status::kOk) {
    const dim3 grid(unsigned(ceil_div(int(a.N), 256)), unsigned(std::min(cutM, 1024)));
    add_workspace<Cfg><<<grid, 256, 0, stream>>>(cutM, int(a.N), a.C + int64_t(m0) * a.ldc, int(a.ldc), W, ldw);
    s = launch_status();
  }
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

// The whole tiles of every product of a batch (no cut, no stream-K: the products fill the waves),
// grid z the product, up to 65535 (CUDA's limit on grid z) a launch.
template <class Cfg, class Kernel>
Status launch_batch(Kernel whole, const GemmArgs& a, const Batch& batch, cudaStream_t stream) {
  Status s = Status::kOk;
  for (int64_t z = 0; z < a.batch && s == Status::kOk; z += 65535) {
    const Gemm g{int(a.M), int(a.N), int(a.K), a.alpha, a.A + z * a.strideA, int(a.lda), a.B + z * a.strideB,
                 int(a.ldb), a.beta, a.C + z * a.strideC, int(a.ldc)};
    const dim3 grid(ceil_div(g.N, Cfg::BN), ceil_div(g.M, Cfg::BM), unsigned(std::min<int64_t>(a.batch - z, 65535)));
    s = launch_part<Cfg>(whole, g, grid, false, a.transb, stream, batch);
  }
  return s;
}

}  // namespace sgemm::cut
