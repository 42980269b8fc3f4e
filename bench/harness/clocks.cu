#include "clocks.hpp"

#include <algorithm>
#include <chrono>

#include "cuda_check.hpp"
#include "nvml.hpp"
#include "stats.hpp"

namespace sgemm::harness {

namespace {

// SM cycles the probe spins for: about a millisecond at 2 GHz, long enough that the
// microsecond granularity of %globaltimer costs under 0.1% of the reading.
constexpr long long kProbeCycles = 2'000'000;
constexpr int kProbeSlots = 2;  // before and after the row

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread spins for kProbeCycles SM cycles and records how many cycles and nanoseconds passed.
__global__ void clock_probe(unsigned long long* out) {
  const unsigned long long t0 = global_ns();
  const long long c0 = clock64();
  long long c1 = c0;
  while (c1 - c0 < kProbeCycles) c1 = clock64();
  const unsigned long long t1 = global_ns();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
}

}  // namespace

SmClockSampler::SmClockSampler(int device, cudaStream_t stream)
    : device_(device), stream_(stream), nvml_(nvml::available() && nvml::sm_clock_mhz(device) > 0) {
  if (!nvml_) SGEMM_CUDA(cudaMalloc(&d_probe_, kProbeSlots * 2 * sizeof(unsigned long long)));
}

SmClockSampler::~SmClockSampler() {
  halt();
  if (d_probe_) cudaFree(d_probe_);
}

void SmClockSampler::halt() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
}

const char* SmClockSampler::source() const {
  return nvml_ ? "nvml" : "probe kernel (clock64 against %globaltimer)";
}

void SmClockSampler::queue_probe(int slot) {
  clock_probe<<<1, 1, 0, stream_>>>(d_probe_ + 2 * slot);
  SGEMM_CUDA(cudaGetLastError());
}

int SmClockSampler::probe_mhz(int slot) {
  unsigned long long r[2] = {};
  SGEMM_CUDA(cudaMemcpy(r, d_probe_ + 2 * slot, sizeof r, cudaMemcpyDeviceToHost));
  return r[1] > 0 ? int(double(r[0]) * 1e3 / double(r[1]) + 0.5) : -1;  // cycles per ns x 1000 = MHz
}

int SmClockSampler::now_mhz() {
  if (nvml_) return nvml::sm_clock_mhz(device_);
  queue_probe(0);
  SGEMM_CUDA(cudaStreamSynchronize(stream_));
  return probe_mhz(0);
}

void SmClockSampler::start() {
  halt();  // a row that failed between start() and stop() left its thread running
  mhz_.clear();
  if (!nvml_) {
    queue_probe(0);
    return;
  }
  running_ = true;
  thread_ = std::thread([this] {
    for (;;) {
      const int mhz = nvml::sm_clock_mhz(device_);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (mhz > 0) mhz_.push_back(mhz);
      }
      if (!running_) return;  // the last sample is taken after stop() was asked for
      std::this_thread::sleep_for(std::chrono::milliseconds(kSampleEveryMs));
    }
  });
}

ClockRange SmClockSampler::stop() {
  if (!nvml_) queue_probe(1);
  SGEMM_CUDA(cudaStreamSynchronize(stream_));
  if (nvml_) {
    halt();
  } else {
    for (int slot = 0; slot < kProbeSlots; ++slot)
      if (const int mhz = probe_mhz(slot); mhz > 0) mhz_.push_back(mhz);
  }
  ClockRange r;
  if (mhz_.empty()) return r;
  r.min_mhz = int(*std::min_element(mhz_.begin(), mhz_.end()));
  r.max_mhz = int(*std::max_element(mhz_.begin(), mhz_.end()));
  r.median_mhz = int(median(mhz_) + 0.5);
  r.samples = int(mhz_.size());
  return r;
}

}  // namespace sgemm::harness
