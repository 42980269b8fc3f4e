// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H200 (2026-11-24).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5254.76, 4793.24, 957.125, 1.14182, 9786.88}, {4316.62, 5539.38, 911.184, 1.5076, 696.413}, {2970.53, 4341.47, 750.375, 1.01755, 5968.57}, {2475.75, 2676.25, 675.578, 1.10943, 2198.62}, {3284.99, 13321.4, 0, 1, 0}, {5855.26, 15530, 0, 1, 0}, {0, 8492.47, 0, 1, 0}, {0, 22361.9, 0, 1, 0}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 4444.39;
// GEMV's FLOPs per nanosecond where its arithmetic binds (many rows).
constexpr double kGemvFlopsPerNs = 17158.9;
// What a slab costs on the 32-bit-access path, and with bounds checked in every slab (a K tail),
// as multiples of an aligned whole-tile slab.
constexpr double kUnalignedSlabFactor = 1.14228;
constexpr double kKTailSlabFactor = 1.05513;

}  // namespace sgemm::tuned
