// Dispatch model constants for sm_90: estimates from an earlier calibration, to be replaced by
// `sgemm_autotune --dispatch` on the GPU (docs/rungs/30_auto.md). Do not edit by hand.
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5253.6, 4506.4, 1500}, {4353.93, 5534.07, 900}, {2973.47, 3794.53, 1100}, {2461.95, 2642.05, 600}, {2461.95, 3000, 0}, {0, 3801.25, 0}, {0, 3000, 0}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 4263.06;
// GEMV's FLOPs per nanosecond where its arithmetic binds (many rows).
constexpr double kGemvFlopsPerNs = 40000;
// What a slab costs on the 32-bit-access path, and with bounds checked in every slab (a K tail),
// as multiples of an aligned whole-tile slab.
constexpr double kUnalignedSlabFactor = 1.06;
constexpr double kKTailSlabFactor = 1.1;

}  // namespace sgemm::tuned
