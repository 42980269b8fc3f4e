// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H200 (2026-11-24).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5255.01, 4184.99, 958.125, 1.14215, 10804.1, 0, 1.19481, 1.14452}, {4243.73, 2876.27, 808.802, 1.11022, 3634.26, 0, 1.30774, 1.34493}, {2971.43, 3844.57, 749, 1.02891, 6277.77, 0, 1.17475, 1.08912}, {2478.35, 6625.65, 676.05, 1.10095, 251.249, 0, 1.18874, 1.20564}, {3238.08, 13430.6, 0, 1, 0, 1057.55, 1.04531, 1.25787}, {4505.59, 12547.5, 0, 1, 0, 1741.01, 1.09624, 1.3853}, {0, 7310.04, 0, 1, 0, 0, 1, 1}, {0, 23046.9, 0, 1, 0, 0, 1, 1}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 4465.14;
// GEMV's FLOPs per nanosecond, per row group (1, 2, 4, 8, 16, 32 rows), where its arithmetic binds.
constexpr double kGemvFlopsPerNs[] = {2208.95, 4252.71, 8240.16, 14129.5, 24442.9, 22147.1};
// The calibrating GPU's peaks (the FP32 peak in GFLOPs per second, the DRAM peak in GB per second,
// its SMs): on another GPU the dispatch rung scales the constants above by that GPU's peaks
// against these.
constexpr double kCalibratedFp32Gflops = 66908.2;
constexpr double kCalibratedDramGBps = 4814.3;
constexpr int kCalibratedSms = 132;

}  // namespace sgemm::tuned
