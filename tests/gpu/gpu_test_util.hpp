// Shared by the GPU tests: the shape and alpha/beta lists of DESIGN.md, one verified run,
// and the registry as a test parameter.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "harness/problem.hpp"
#include "harness/verify.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::test {

// Ragged shapes: 1x1x1, tile-1 / tile+1 of every tile size in the ladder, primes,
// 127x129x65, non-square and thin shapes, long K with a remainder.
std::vector<harness::Shape> ragged_shapes();
// A handful of small ragged shapes for compute-sanitizer runs (slow under the tools).
std::vector<harness::Shape> sanitizer_shapes();
// {1,0}, {0.5,3}, {0,1}, {-1.5,0}
std::vector<std::pair<float, float>> alpha_betas();
// The same shape with every leading dimension a multiple of 4, 8 to 11 floats longer than its row.
harness::Shape with_padded_ld(harness::Shape s);

// Build the problem, poison C, run the rung through the public API, verify.
harness::VerifyResult run_case(int rung, const harness::ProblemSpec& spec);
harness::VerifyResult run_on(int rung, harness::Problem& problem);
std::string describe(int rung, const harness::ProblemSpec& spec);

std::vector<int> rung_ids();
std::string rung_name(const ::testing::TestParamInfo<int>& info);

// Skip the calling test when the device has less free memory than `bytes`.
bool enough_memory(size_t bytes);

}  // namespace sgemm::test
