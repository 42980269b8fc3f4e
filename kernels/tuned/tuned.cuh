// The autotuned tile parameters of the build's GPU architecture. CMake defines
// SGEMM_TUNED_HEADER as tuned/sm_<arch>.cuh for the first architecture that has one
// (falling back to sm_90); tools/autotune writes those files.
#pragma once

#ifndef SGEMM_TUNED_HEADER
#define SGEMM_TUNED_HEADER "tuned/sm_90.cuh"
#endif
#include SGEMM_TUNED_HEADER

namespace sgemm::tuned {

// What a slab of a stream-K share costs, in whole-tile slabs, to the planner of the stream-K rungs
// (12-16): a share runs a short pipeline from a scattered k and ends with the fix-up. Its one home;
// rung 15's page says how it was measured. The dispatch rung calibrates its own per-tile value on
// each GPU (DispatchCost::share in tuned/dispatch_sm_<arch>.cuh), for its cost model, not for the
// rungs' plans.
constexpr double kStreamKSlabCost = 1.35;

}  // namespace sgemm::tuned
