// Tensor-path model constants, one entry per GPU measured by `sgemm_autotune --dispatch-tensor`
// (each run replaces its GPU's entry and keeps the others). Do not edit by hand: rerun it on the GPU
// (docs/rungs/30_auto.md).
#pragma once

namespace sgemm::tuned {

constexpr TensorCalibration kTensorCalibrations[] = {
    {"", 0, 0, {0, 0, 0, 0, 0}, ""},
};

}  // namespace sgemm::tuned
