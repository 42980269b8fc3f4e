// Tensor-path model constants, one entry per GPU measured by `sgemm_autotune --dispatch-tensor`
// (each run replaces its GPU's entry and keeps the others). Do not edit by hand: rerun it on the GPU
// (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

constexpr TensorCalibration kTensorCalibrations[] = {
    {"NVIDIA H100 80GB HBM3", 3352.32, 132, {37516, 590.823, 0, 0.000689627, 0.00106951, 0.000425921}, "2026-12-06"},
};

}  // namespace sgemm::tuned
