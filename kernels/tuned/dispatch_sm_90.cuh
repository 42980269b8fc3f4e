// Dispatch model constants for sm_90: estimates from an earlier calibration, to be replaced by
// `sgemm_autotune --dispatch` on the GPU (docs/rungs/30_auto.md). Do not edit by hand.
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5257.33, 4918.67, 971.004, 1.35, 0}, {4342.37, 6025.63, 909.897, 1.35, 0}, {2973.75, 4466.25, 742.058, 1.35, 0}, {2461.3, 2706.7, 674.746, 1.35, 0}, {3305.77, 12996.8, 0, 1, 0}, {5826.1, 15879.1, 0, 1, 0}, {0, 8362.97, 0, 1, 0}, {0, 27100.6, 0, 1, 0}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 3846.06;
// GEMV's FLOPs per nanosecond where its arithmetic binds (many rows).
constexpr double kGemvFlopsPerNs = 11868.2;
// What a slab costs on the 32-bit-access path, and with bounds checked in every slab (a K tail),
// as multiples of an aligned whole-tile slab.
constexpr double kUnalignedSlabFactor = 1.14169;
constexpr double kKTailSlabFactor = 1.05367;

}  // namespace sgemm::tuned
