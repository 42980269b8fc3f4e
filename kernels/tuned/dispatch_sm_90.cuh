// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H200 (2026-11-24).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5257.77, 4886.23, 954.25, 1.13293, 10764.7, 0, 1.05531, 1.14135}, {4239.26, 3056.74, 818.956, 1.1363, 2377.21, 0, 1.05531, 1.14135}, {2972.32, 3971.68, 747.187, 1.01828, 6264.68, 0, 1.05531, 1.14135}, {2482.73, 4413.27, 671.695, 1.10416, 1355.35, 0, 1.05531, 1.14135}, {3236.63, 12923.8, 0, 1, 0, 1052.57, 1.05531, 1.14135}, {4515.43, 12423.4, 0, 1, 0, 1738.64, 1.05531, 1.14135}, {0, 8061.42, 0, 1, 0, 0, 1, 1}, {0, 22566.5, 0, 1, 0, 0, 1, 1}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 4353.34;
// GEMV's FLOPs per nanosecond, per row group (1, 2, 4, 8, 16, 32 rows), where its arithmetic binds.
constexpr double kGemvFlopsPerNs[] = {22249.9, 22249.9, 22249.9, 22249.9, 22249.9, 22249.9};
// The calibrating GPU's peaks (the FP32 peak in GFLOPs per second, the DRAM peak in GB per second,
// its SMs): on another GPU the dispatch rung scales the constants above by that GPU's peaks
// against these.
constexpr double kCalibratedFp32Gflops = 66908.2;
constexpr double kCalibratedDramGBps = 4814.3;
constexpr int kCalibratedSms = 132;

}  // namespace sgemm::tuned
