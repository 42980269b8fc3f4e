// Dispatch model constants for sm_90, measured by `sgemm_autotune --dispatch` on NVIDIA H200 (2026-11-24).
// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// In the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCost kDispatchCosts[] = {{5255.61, 4680.39, 962.438, 1.14062, 9905.21, 0, 1.19505, 1.14207}, {4243.09, 2860.91, 818.862, 1.1408, 2533.34, 0, 1.30686, 1.35163}, {2975.98, 4224.02, 752.312, 1.01569, 5768.46, 0, 1.17016, 1.08639}, {2477.42, 2802.58, 677.816, 1.1005, 2093.71, 0, 1.1881, 1.21306}, {3240.61, 12875.9, 0, 1, 0, 1055.25, 1.04408, 1.25798}, {4572.23, 11933.1, 0, 1, 0, 1746.92, 1.09012, 1.37014}, {0, 7565.4, 0, 1, 0, 0, 1, 1}, {0, 22174.5, 0, 1, 0, 0, 1, 1}};
// Bytes per nanosecond that GEMV reads from device memory (also the floor of every prediction
// and the rate of split-K's reduction and of repack's copies).
constexpr double kBytesPerNs = 4335.34;
// GEMV's FLOPs per nanosecond, per row group (1, 2, 4, 8, 16, 32 rows), where its arithmetic binds.
constexpr double kGemvFlopsPerNs[] = {2148.13, 4162.48, 8090.12, 14049.6, 24422.8, 22226.8};
// The calibrating GPU's peaks (the FP32 peak in GFLOPs per second, the DRAM peak in GB per second,
// its SMs): on another GPU the dispatch rung scales the constants above by that GPU's peaks
// against these.
constexpr double kCalibratedFp32Gflops = 66908.2;
constexpr double kCalibratedDramGBps = 4814.3;
constexpr int kCalibratedSms = 132;

}  // namespace sgemm::tuned
