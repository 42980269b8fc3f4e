// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H100 80GB HBM3 (2026-11-26).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5149.79, 6274.21, 963.125, 1.14633, 8381.24, 0, 1.1944, 1.16955}, {2784.38, 5023.62, 773.063, 1.07912, 7223.61, 0, 1.2972, 1.37195}, {2940.67, 4579.33, 748, 1.01247, 7198.01, 0, 1.1783, 1.08423}, {2464.2, 3151.8, 690.677, 1.08649, 2398.7, 0, 1.20407, 1.22321}, {3161.12, 13459.8, 0, 1, 0, 1021.06, 1.0353, 1.26067}, {4457.91, 14098.5, 0, 1, 0, 1668.19, 1.0915, 1.41634}, {0, 7894.87, 0, 1, 0, 0, 1, 1}, {0, 5848.74, 0, 1, 0, 0, 1, 1}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 2977.72;
// GEMV's FLOPs per nanosecond, per row group (1, 2, 4, 8, 16, 32 rows), where its arithmetic binds.
constexpr double kGemvFlopsPerNs[] = {1501.24, 2915.86, 5956.46, 11214.2, 20970.6, 16260.2};
// The calibrating GPU's peaks (the FP32 peak in GFLOPs per second, the DRAM peak in GB per second,
// its SMs): on another GPU the dispatch rung scales the constants above by that GPU's peaks
// against these.
constexpr double kCalibratedFp32Gflops = 66908.2;
constexpr double kCalibratedDramGBps = 3352.32;
constexpr int kCalibratedSms = 132;

}  // namespace sgemm::tuned
