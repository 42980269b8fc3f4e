// Dispatch model constants for sm_90: estimates from an earlier calibration, to be replaced by
// `sgemm_autotune --dispatch` on the GPU (docs/rungs/30_auto.md). Do not edit by hand.
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5266.35, 4397.65, 976.691}, {4353.79, 5630.21, 935.129}, {2971.09, 3956.91, 737.655}, {2464.07, 2655.93, 676.398}, {3300, 15000, 0}, {5800, 15000, 0}, {0, 7616.49, 0}, {0, 19311.5, 0}};
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
