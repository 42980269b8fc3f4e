// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H200 (2026-11-24).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5256.58, 4439.42, 967.188, 1.14371, 10918.3}, {4319.17, 5568.83, 916.834, 1.50844, 726.565}, {2971.68, 3956.32, 754.75, 1.01962, 6376.44}, {2478.92, 2641.08, 681.323, 1.10284, 2137.26}, {3277.75, 12911.7, 0, 1, 0}, {5816, 15404.8, 0, 1, 0}, {0, 8021.81, 0, 1, 0}, {0, 21847.7, 0, 1, 0}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 4493.53;
// GEMV's FLOPs per nanosecond where its arithmetic binds (many rows).
constexpr double kGemvFlopsPerNs = 22187.8;
// What a slab costs on the 32-bit-access path, and with bounds checked in every slab (a K tail),
// as multiples of an aligned whole-tile slab.
constexpr double kUnalignedSlabFactor = 1.14477;
constexpr double kKTailSlabFactor = 1.0557;
// The calibrating GPU's peaks (the FP32 peak in GFLOPs per second, the DRAM peak in GB per second,
// its SMs): on another GPU the dispatch rung scales the constants above by that GPU's peaks
// against these.
constexpr double kCalibratedFp32Gflops = 66908.2;
constexpr double kCalibratedDramGBps = 4814.4;
constexpr int kCalibratedSms = 132;

}  // namespace sgemm::tuned
