// Timing with CUDA events: each launch sits between its own pair of events, the launches are
// queued back to back (the GPU never waits for the host between them) and rotate through the
// input sets so that no launch finds its operands in L2.
//
// A results row times its rung interleaved with cuBLAS: in each of R rounds the rung's launches
// and cuBLAS's launches follow each other on the same rotated inputs (the order alternates from
// round to round), so that a change of clock or temperature during the row reaches both alike.
// Each round gives one ratio of medians; the row reports the median ratio and its interval.
#pragma once

#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "clocks.hpp"
#include "sgemm_ladder.hpp"
#include "stats.hpp"

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

struct RoundsPlan {
  TimingPlan warm;
  int rounds = 9;            // R
  int per_round = 0;         // launches of each contender per round; 0: from min_seconds
  double min_seconds = 0.25; // timed seconds of the first contender per row, when per_round == 0
  int max_per_round = 2000;  // bound on launches (and events) per round for tiny shapes
};

// Launch times of an interleaved measurement: ms[contender][round] lists that round's launches.
struct Rounds {
  std::vector<std::vector<std::vector<double>>> ms;
  ClockRange clock;  // over the timed launches (not the warm-up)

  std::vector<double> all(size_t contender) const;          // every launch time, pooled
  std::vector<double> round_medians(size_t contender) const;
  // Per round: 100 x median time of `baseline` / median time of `contender`.
  std::vector<double> pct_per_round(size_t contender, size_t baseline) const;
};

// Warm up every contender, then time `plan.rounds` rounds: in each, `per_round` launches of
// every contender (in order on even rounds, reversed on odd ones), one set of the rotation after
// the other across all of them. `clocks` (may be null) samples the SM clock over the timed part.
Rounds time_interleaved(const std::vector<LaunchFn>& contenders, int sets, const RoundsPlan& plan,
                        cudaStream_t stream, SmClockSampler* clocks);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second): the median
// of several cudaMemcpyAsync of `bytes`. The memory ceiling of the roofline.
double copy_bandwidth_gbs(cudaStream_t stream, size_t bytes = size_t(1) << 31);

// GFLOP/s of one M x N x K product taking `ms` milliseconds (2*M*N*K flops).
double gflops(int64_t M, int64_t N, int64_t K, double ms);

}  // namespace sgemm::harness
