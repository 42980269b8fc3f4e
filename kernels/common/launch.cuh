// Host helpers of the rung launchers that are compiled by nvcc only: the tile text of a
// pipelined Config, the kernel instance for a call's access width and layouts.
#pragma once

#include <string>
#include <type_traits>

#include "common/common.cuh"
#include "common/launch.hpp"

namespace sgemm {

// "64x256x32_32x128_8x16_s2_u8": a pipelined Config (rungs 10-15) as the tuner and --list print it.
template <class C>
std::string pipelined_tile_text() {
  auto x = [](int a, int b) { return std::to_string(a) + "x" + std::to_string(b); };
  return x(C::BM, C::BN) + "x" + std::to_string(C::BK) + "_" + x(C::WM, C::WN) + "_" + x(C::TM, C::TN) + "_s" +
         std::to_string(C::Stages) + "_u" + std::to_string(C::KU);
}

// f(vec, transA, transB) with each flag as a std::bool_constant, so that f can name the kernel
// instance for a call: 128-bit accesses or not, op(A) = A^T or A, op(B) = B^T or B.
template <class F>
decltype(auto) by_layout(bool vec, bool transA, bool transB, F&& f) {
  using Y = std::true_type;
  using N = std::false_type;
  if (vec)
    return transA ? (transB ? f(Y{}, Y{}, Y{}) : f(Y{}, Y{}, N{})) : (transB ? f(Y{}, N{}, Y{}) : f(Y{}, N{}, N{}));
  return transA ? (transB ? f(N{}, Y{}, Y{}) : f(N{}, Y{}, N{})) : (transB ? f(N{}, N{}, Y{}) : f(N{}, N{}, N{}));
}

// One launch of `kernel`, which may start while the launch before it on the stream still runs
// where `early` (programmatic dependent launch, sm_90 on); an ordinary launch otherwise. What the
// kernel may do before that launch has finished is its own to decide (griddepcontrol.wait,
// griddepcontrol.launch_dependents). `clusterY` > 1 (sm_90 on) groups that many blocks along y into a
// cluster (max_clusters says how many the device runs at once).
template <class... Params, class... Args>
Status launch_early_cluster(void (*kernel)(Params...), dim3 grid, dim3 block, int smem_bytes, bool early,
                            unsigned clusterY, cudaStream_t stream, Args... args) {
  cudaLaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (early) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (clusterY > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n].val.clusterDim.x = 1;
    attrs[n].val.clusterDim.y = clusterY;
    attrs[n++].val.clusterDim.z = 1;
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = size_t(smem_bytes);
  cfg.stream = stream;
  cfg.attrs = attrs;
  cfg.numAttrs = n;
  return from_cuda(cudaLaunchKernelEx(&cfg, kernel, Params(args)...));
}
template <class... Params, class... Args>
Status launch_early(void (*kernel)(Params...), dim3 grid, dim3 block, int smem_bytes, bool early, cudaStream_t stream,
                    Args... args) {
  return launch_early_cluster(kernel, grid, block, smem_bytes, early, 1u, stream, args...);
}

}  // namespace sgemm
