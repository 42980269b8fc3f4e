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

// Hot timing, as nvbench's: each contender's launches are captured into one CUDA graph (launches
// `launches` of them, taking the rotated input sets in turn), and each round replays every
// contender's graph once between two events (the order alternating from round to round, as in
// time_interleaved). A round's time per launch is its replay's time over the graph's launches: no
// host between launches, no gap the events themselves add, operands still cold in L2 (the
// rotation), the next launch queued behind the last as a model's layers are.
struct HotPlan {
  int rounds = 9;
  double min_seconds = 0.1;  // replayed seconds of the first contender per row (sizes the graph)
  int max_launches = 1000;   // bound on a graph's launches (tiny shapes)
};
struct HotRounds {
  std::vector<std::vector<double>> ms;  // [contender][round]: ms per launch of that round's replay
  int launches = 0;                     // launches in each graph
  ClockRange clock;
  std::vector<double> pct_per_round(size_t contender, size_t baseline) const;
};
// `launch_ms`: a cold time per launch of the first contender (sizes the graphs). Throws
// CudaError or std::runtime_error as time_interleaved, also where a launch cannot be captured.
HotRounds time_hot(const std::vector<LaunchFn>& contenders, int sets, const HotPlan& plan, double launch_ms,
                   cudaStream_t stream, SmClockSampler* clocks);
// How many launches a hot graph holds: enough for plan.min_seconds over the rounds at `launch_ms`
// each, at least two and every input set once (so no launch finds its operands in L2), at most
// plan.max_launches.
int hot_launches(const HotPlan& plan, int sets, double launch_ms);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second): the median
// of several cudaMemcpyAsync of `bytes`. The memory ceiling of the roofline.
double copy_bandwidth_gbs(cudaStream_t stream, size_t bytes = size_t(1) << 31);

// GFLOP/s of one M x N x K product taking `ms` milliseconds (2*M*N*K flops).
double gflops(int64_t M, int64_t N, int64_t K, double ms);

}  // namespace sgemm::harness
