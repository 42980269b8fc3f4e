// Dispatch model constants for sm_90, one entry per GPU measured by `sgemm_autotune --dispatch`
// (each run replaces its GPU's entry and keeps the others). Do not edit by hand: rerun it on the GPU
// (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

// Costs in the order of the dispatch rung's candidates: capstone, few_rows, few_cols, small, split_k, split_k_rows, gemv, repack.
constexpr DispatchCalibration kDispatchCalibrations[] = {
    {"NVIDIA H100 80GB HBM3", 66908.2, 3352.32, 132,
     {{5149.79, 6274.21, 963.125, 1.14633, 8381.24, 0, 1.1944, 1.16955}, {2784.38, 5023.62, 773.063, 1.07912, 7223.61, 0, 1.2972, 1.37195}, {2940.67, 4579.33, 748, 1.01247, 7198.01, 0, 1.1783, 1.08423}, {2464.2, 3151.8, 690.677, 1.08649, 2398.7, 0, 1.20407, 1.22321}, {3161.12, 13459.8, 0, 1, 0, 1021.06, 1.0353, 1.26067}, {4457.91, 14098.5, 0, 1, 0, 1668.19, 1.0915, 1.41634}, {0, 7894.87, 0, 1, 0, 0, 1, 1}, {0, 5848.74, 0, 1, 0, 0, 1, 1}},
     2977.72, {1501.24, 2915.86, 5956.46, 11214.2, 20970.6, 16260.2}, "2026-11-26"},
};

}  // namespace sgemm::tuned
