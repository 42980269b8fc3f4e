// sgemm_autotune --dispatch: measure the dispatch rung's model constants on this GPU and write
// kernels/tuned/dispatch_sm_<arch>.cuh (and, optionally, the measurements as JSON).
#pragma once

#include <string>

#include <cuda_runtime.h>

#include "harness/device_info.hpp"

namespace sgemm::autotune {

// For each candidate of rung 30, two problems a model term apart (a large one that fills the GPU
// and a tiny one): the time per term (a slab; a byte for GEMV) and the launch cost are the slope
// and the intercept of the line through them. Returns 0, or throws with the reason.
int calibrate_dispatch(const harness::DeviceInfo& dev, const std::string& header_path, const std::string& json_path,
                       cudaStream_t stream);

}  // namespace sgemm::autotune
