// sgemm_autotune --dispatch: measure the dispatch rung's model constants on this GPU and write
// kernels/tuned/dispatch_sm_<arch>.cuh (and, optionally, the measurements as JSON).
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "harness/device_info.hpp"
#include "harness/problem.hpp"

namespace sgemm::autotune {

// Measures rung 30's model constants on a few problems per candidate (GEMV's bandwidth and FLOP
// rate; each tile's slab, launch and fix-up cost; what split-K's and repack's extra launches add;
// the slab cost on unaligned rows and with a K tail) and writes them as a header. Returns 0, or
// throws with the reason.
int calibrate_dispatch(const harness::DeviceInfo& dev, const std::string& header_path, const std::string& json_path,
                       cudaStream_t stream);

// For each shape: every candidate's predicted time (the build's constants, scaled to this GPU)
// beside its measured median, and the one the model picks: where the model is wrong, and by how much.
// Rung 32's times on problems that move each term of the dispatch rung's tensor-path model
// (dispatch/tensor.hpp), its constants fitted to them, written as kernels/tuned/tensor_sm_90.cuh.
int calibrate_tensor(const harness::DeviceInfo& dev, const std::string& header_path, const std::string& json_path,
                     cudaStream_t stream);

// The x of m x = b (Gaussian elimination with partial pivoting; m square, not singular).
std::vector<double> solve_linear(std::vector<std::vector<double>> m, std::vector<double> b);

int explain_dispatch(const harness::DeviceInfo& dev, const std::vector<harness::Shape>& shapes, cudaStream_t stream);

}  // namespace sgemm::autotune
