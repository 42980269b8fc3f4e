// Soak: random shapes, leading dimensions, alpha/beta, inputs and rungs for a given time, every
// result verified; stops at the first failure and prints the command that reproduces it.
#pragma once

#include "harness/options.hpp"

namespace sgemm::bench {

// Returns the process exit code: 0 when every GEMM verified, 1 at the first failure.
int soak(const harness::Options& options, double minutes);

}  // namespace sgemm::bench
