#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "buffer.hpp"
#include "cuda_check.hpp"

namespace sgemm::harness {

namespace {

void launch_or_throw(const LaunchFn& launch, int set) {
  const Status s = launch(set);
  if (s != Status::kOk) throw std::runtime_error(std::string("launch failed: ") + status_string(s));
}

// A pool of CUDA events, destroyed with the pool.
class Events {
 public:
  explicit Events(size_t count) : e_(count) {
    for (cudaEvent_t& e : e_) SGEMM_CUDA(cudaEventCreate(&e));
  }
  ~Events() {
    for (cudaEvent_t e : e_) cudaEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  cudaEvent_t operator[](size_t i) const { return e_[i]; }

 private:
  std::vector<cudaEvent_t> e_;
};

// Queue `count` launches, each between events 2i and 2i+1 of `ev` (from `first_event` on),
// taking sets `*next_set`, `*next_set` + 1, ... of the rotation.
void queue_timed(const LaunchFn& launch, int count, int sets, int* next_set, const Events& ev,
                 size_t first_event, cudaStream_t stream) {
  for (int i = 0; i < count; ++i) {
    SGEMM_CUDA(cudaEventRecord(ev[first_event + 2 * i], stream));
    launch_or_throw(launch, *next_set);
    *next_set = (*next_set + 1) % sets;
    SGEMM_CUDA(cudaEventRecord(ev[first_event + 2 * i + 1], stream));
  }
}

std::vector<double> elapsed_ms(const Events& ev, size_t first_event, int count) {
  std::vector<double> ms(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    float t = 0;
    SGEMM_CUDA(cudaEventElapsedTime(&t, ev[first_event + 2 * i], ev[first_event + 2 * i + 1]));
    ms[size_t(i)] = t;
  }
  return ms;
}

// Warm-up: module load, clocks ramping, instruction cache. At least one launch, each timed;
// returns the median warm-up time (what the plan sizes its rounds by).
double warm_up(const LaunchFn& launch, int sets, const TimingPlan& plan, cudaStream_t stream) {
  const Events ev(2);
  std::vector<double> ms;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < std::max(plan.warmup, 1); ++i) {
    int set = i % sets;
    queue_timed(launch, 1, sets, &set, ev, 0, stream);
    SGEMM_CUDA(cudaStreamSynchronize(stream));
    ms.push_back(elapsed_ms(ev, 0, 1)[0]);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    if (dt.count() > plan.warmup_seconds) break;
  }
  return median(ms);
}

}  // namespace

std::vector<double> time_launches(const LaunchFn& launch, int sets, int count, const TimingPlan& plan,
                                  cudaStream_t stream) {
  sets = std::max(sets, 1);
  warm_up(launch, sets, plan, stream);
  const Events ev(2 * size_t(count));
  int set = 0;
  queue_timed(launch, count, sets, &set, ev, 0, stream);
  SGEMM_CUDA(cudaStreamSynchronize(stream));
  return elapsed_ms(ev, 0, count);
}

Rounds time_interleaved(const std::vector<LaunchFn>& contenders, int sets, const RoundsPlan& plan,
                        cudaStream_t stream, SmClockSampler* clocks) {
  sets = std::max(sets, 1);
  const size_t n = contenders.size();
  std::vector<double> warm_ms;
  for (const LaunchFn& launch : contenders) warm_ms.push_back(warm_up(launch, sets, plan.warm, stream));
  int per_round = plan.per_round;
  if (per_round <= 0) {
    const double wanted = std::ceil(plan.min_seconds * 1e3 / (plan.rounds * std::max(warm_ms.front(), 1e-3)));
    per_round = int(std::clamp(wanted, 1.0, double(plan.max_per_round)));
  }
  const Events ev(2 * n * size_t(per_round));
  Rounds out;
  out.ms.assign(n, std::vector<std::vector<double>>(size_t(plan.rounds)));
  int set = 0;
  if (clocks) clocks->start();
  for (int r = 0; r < plan.rounds; ++r) {
    for (size_t i = 0; i < n; ++i) {
      const size_t c = r % 2 == 0 ? i : n - 1 - i;  // alternate the order: no contender always goes first
      queue_timed(contenders[c], per_round, sets, &set, ev, 2 * c * size_t(per_round), stream);
    }
    SGEMM_CUDA(cudaStreamSynchronize(stream));
    for (size_t c = 0; c < n; ++c) out.ms[c][size_t(r)] = elapsed_ms(ev, 2 * c * size_t(per_round), per_round);
  }
  if (clocks) out.clock = clocks->stop();
  return out;
}

int hot_launches(const HotPlan& plan, int sets, double launch_ms) {
  const double wanted = std::ceil(plan.min_seconds * 1e3 / (std::max(plan.rounds, 1) * std::max(launch_ms, 1e-3)));
  const int floor = std::max(2, sets);
  return int(std::clamp(wanted, double(floor), double(std::max(floor, plan.max_launches))));
}

namespace {

// A CUDA graph of `launches` launches over the rotated sets, instantiated; destroyed with it.
class LaunchGraph {
 public:
  LaunchGraph(const LaunchFn& launch, int sets, int launches, cudaStream_t stream) {
    SGEMM_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      for (int i = 0; i < launches; ++i) launch_or_throw(launch, i % sets);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream, &broken);
      if (broken) cudaGraphDestroy(broken);
      cudaGetLastError();  // a capture error is not sticky: clear it for the rows after
      throw;
    }
    cudaGraph_t graph = nullptr;
    SGEMM_CUDA(cudaStreamEndCapture(stream, &graph));
    const cudaError_t err = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    SGEMM_CUDA(err);
  }
  ~LaunchGraph() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;
  void replay(cudaStream_t stream) const { SGEMM_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

HotRounds time_hot(const std::vector<LaunchFn>& contenders, int sets, const HotPlan& plan, double launch_ms,
                   cudaStream_t stream, SmClockSampler* clocks) {
  sets = std::max(sets, 1);
  const size_t n = contenders.size();
  HotRounds out;
  out.launches = hot_launches(plan, sets, launch_ms);
  std::vector<std::unique_ptr<LaunchGraph>> graphs;
  for (const LaunchFn& launch : contenders) {
    graphs.push_back(std::make_unique<LaunchGraph>(launch, sets, out.launches, stream));
    graphs.back()->replay(stream);  // the first replay uploads the graph: not timed
  }
  SGEMM_CUDA(cudaStreamSynchronize(stream));
  const Events ev(2 * n);
  out.ms.assign(n, std::vector<double>(size_t(plan.rounds)));
  if (clocks) clocks->start();
  for (int r = 0; r < plan.rounds; ++r) {
    for (size_t i = 0; i < n; ++i) {
      const size_t c = r % 2 == 0 ? i : n - 1 - i;
      SGEMM_CUDA(cudaEventRecord(ev[2 * c], stream));
      graphs[c]->replay(stream);
      SGEMM_CUDA(cudaEventRecord(ev[2 * c + 1], stream));
    }
    SGEMM_CUDA(cudaStreamSynchronize(stream));
    for (size_t c = 0; c < n; ++c) out.ms[c][size_t(r)] = elapsed_ms(ev, 2 * c, 1)[0] / out.launches;
  }
  if (clocks) out.clock = clocks->stop();
  return out;
}

std::vector<double> HotRounds::pct_per_round(size_t contender, size_t baseline) const {
  std::vector<double> pct;
  for (size_t r = 0; r < ms[contender].size(); ++r)
    if (ms[contender][r] > 0) pct.push_back(100.0 * ms[baseline][r] / ms[contender][r]);
  return pct;
}

std::vector<double> Rounds::all(size_t contender) const {
  std::vector<double> v;
  for (const auto& round : ms[contender]) v.insert(v.end(), round.begin(), round.end());
  return v;
}

std::vector<double> Rounds::round_medians(size_t contender) const {
  std::vector<double> v;
  for (const auto& round : ms[contender]) v.push_back(median(round));
  return v;
}

std::vector<double> Rounds::pct_per_round(size_t contender, size_t baseline) const {
  const std::vector<double> mine = round_medians(contender), base = round_medians(baseline);
  std::vector<double> pct;
  for (size_t r = 0; r < mine.size(); ++r)
    if (mine[r] > 0) pct.push_back(100.0 * base[r] / mine[r]);
  return pct;
}

double copy_bandwidth_gbs(cudaStream_t stream, size_t bytes) {
  constexpr int kCopies = 10;
  void* src = device_alloc(bytes);
  void* dst = nullptr;
  try {
    dst = device_alloc(bytes);
  } catch (...) {
    cudaFree(src);
    throw;
  }
  SGEMM_CUDA(cudaMemsetAsync(src, 0x3F, bytes, stream));
  const auto ms = time_launches(
      [&](int) { return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess
                            ? Status::kOk : Status::kCuda; },
      1, kCopies, {2}, stream);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * double(bytes) / (median(ms) * 1e6);
}

double gflops(int64_t M, int64_t N, int64_t K, double ms) {
  return ms > 0 ? 2.0 * double(M) * double(N) * double(K) / (ms * 1e6) : 0.0;
}

}  // namespace sgemm::harness
