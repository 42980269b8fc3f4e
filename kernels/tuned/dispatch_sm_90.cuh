// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H200 (2026-11-23).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, gemv.
constexpr DispatchCost kDispatchCosts[] = {{5253.6, 4506.4}, {4353.93, 5534.07}, {2973.47, 3794.53}, {2461.95, 2642.05}, {0, 3801.25}};
// GEMV's bytes per nanosecond read from device memory (also the floor of every prediction).
constexpr double kGemvBytesPerNs = 4263.06;
// GEMV's FLOPs per nanosecond where its arithmetic binds (many rows): not yet measured, an estimate.
constexpr double kGemvFlopsPerNs = 40000;

}  // namespace sgemm::tuned
