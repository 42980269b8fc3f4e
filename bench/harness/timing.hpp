// Timing with CUDA events: each launch sits between its own pair of events, the launches are
// queued back to back (the GPU never waits for the host between them) and rotate through the
// input sets so that no launch finds its operands in L2. Figures are medians.
#pragma once

#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "sgemm_ladder.hpp"

namespace sgemm::harness {

using LaunchFn = std::function<Status(int set)>;

struct TimingPlan {
  int warmup = 5;               // launches before timing (capped by warmup_seconds)
  double warmup_seconds = 0.2;  // stop warming up after this long (slow rungs at large sizes)
};

// Warm up, then time `count` launches; returns milliseconds per launch in launch order.
// Throws CudaError on a CUDA failure and std::runtime_error when a launch returns non-OK.
std::vector<double> time_launches(const LaunchFn& launch, int sets, int count, const TimingPlan& plan,
                                  cudaStream_t stream);

double median(std::vector<double> v);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second): the median
// of several cudaMemcpyAsync of `bytes`. The memory ceiling of the roofline.
double copy_bandwidth_gbs(cudaStream_t stream, size_t bytes = size_t(1) << 31);

// GFLOP/s of one M x N x K product taking `ms` milliseconds (2*M*N*K flops).
double gflops(int64_t M, int64_t N, int64_t K, double ms);

}  // namespace sgemm::harness
