// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H200 (2026-11-24).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5254.17, 4633.83, 953.125, 1.1422, 10731.6}, {4318.43, 5665.57, 904.721, 1.50697, 643.328}, {2975.34, 4128.66, 744.812, 1.01075, 6774.99}, {2475.57, 3076.43, 673.263, 1.12286, 1970.38}, {3292.02, 12577.9, 0, 1, 0}, {5858.62, 14747.6, 0, 1, 0}, {0, 7585.02, 0, 1, 0}, {0, 22595.9, 0, 1, 0}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 4339.39;
// GEMV's FLOPs per nanosecond where its arithmetic binds (many rows).
constexpr double kGemvFlopsPerNs = 22223.4;
// What a slab costs on the 32-bit-access path, and with bounds checked in every slab (a K tail),
// as multiples of an aligned whole-tile slab.
constexpr double kUnalignedSlabFactor = 1.14421;
constexpr double kKTailSlabFactor = 1.0572;
// The calibrating GPU's peaks (the FP32 peak in GFLOPs per second, the DRAM peak in GB per second,
// its SMs): on another GPU the dispatch rung scales the constants above by that GPU's peaks
// against these.
constexpr double kCalibratedFp32Gflops = 66908.2;
constexpr double kCalibratedDramGBps = 4814.3;
constexpr int kCalibratedSms = 132;

}  // namespace sgemm::tuned
