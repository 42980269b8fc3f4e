// The SM clock while a row runs. With NVML, a background thread samples the clock every few
// milliseconds from the row's first timed launch to its last. Without NVML (this build's toolkit
// had no nvml.h, or the driver's library does not load), a probe kernel measures the clock right
// before and right after the row's launches: SM cycles (clock64) against nanoseconds
// (%globaltimer). The fallback exists so that every row carries its clock range on any machine.
#pragma once

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

namespace sgemm::harness {

struct ClockRange {
  int min_mhz = -1, max_mhz = -1, median_mhz = -1;  // -1: unknown
  int samples = 0;
};

class SmClockSampler {
 public:
  SmClockSampler(int device, cudaStream_t stream);
  ~SmClockSampler();
  SmClockSampler(const SmClockSampler&) = delete;
  SmClockSampler& operator=(const SmClockSampler&) = delete;

  // Call right before the row's first timed launch is queued on `stream`.
  void start();
  // Call right after the row's last launch was queued; waits for the stream.
  ClockRange stop();
  // One reading now (the idle GPU's clock for the probe: it runs alone).
  int now_mhz();
  // "nvml" or "probe kernel (clock64 against %globaltimer)".
  const char* source() const;

  static constexpr int kSampleEveryMs = 5;

 private:
  int probe_mhz(int slot);  // reads the result of the probe queued into `slot`
  void queue_probe(int slot);
  void halt();              // stops the sampling thread, if one runs

  int device_;
  cudaStream_t stream_;
  bool nvml_;
  // NVML mode
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::mutex mu_;
  std::vector<double> mhz_;
  // probe mode: two slots (before, after) of {cycles, nanoseconds}
  unsigned long long* d_probe_ = nullptr;
};

}  // namespace sgemm::harness
