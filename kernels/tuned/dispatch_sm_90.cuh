// Dispatch model constants for sm_90. Not yet measured: first estimates from the H200's FP32 rate
// and memory bandwidth, to be replaced by `sgemm_autotune --dispatch` on the GPU.
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, gemv.
constexpr DispatchCost kDispatchCosts[] = {{5250, 3000}, {3500, 3000}, {3200, 3000}, {1800, 3000}, {0, 3000}};
// GEMV's bytes per nanosecond read from device memory (also the floor of every prediction).
constexpr double kGemvBytesPerNs = 4.0;

}  // namespace sgemm::tuned
