// Rung 17's interface to the rung above it: the functions of the capstone's translation unit
// (kernels/ffma/17_any_layout.cuh defines them) that the dispatch rung calls, runs or prices.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "common/cut_plan.hpp"
#include "common/launch.hpp"
#include "common/stream_k_plan.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::rung17 {

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why);
// Its kernels (vec: the 128-bit-access ones; transA, transB: the operands' layouts) prepared on
// the current device: info's SMs and blocks.
Status prepare_kernels(bool vec, bool transA, bool transB, KernelInfo* info, std::string* why);
// The cut plan for `a` on the current device (the launcher's), and on a device of `slots`
// resident blocks with peaks `rates` (`overlap`: launches may overlap) for a model without one.
// Both for one product: a batch runs whole tiles.
Status plan_of(const GemmArgs& a, cut::Plan* p, std::string* why);
cut::Plan plan_on(const GemmArgs& a, int64_t slots, const DeviceRates& rates, bool overlap);
stream_k::Model model();  // the capstone tile's stream-K model
int min_blocks_per_sm();  // the blocks per SM its launch bounds ask the registers for

}  // namespace sgemm::rung17
