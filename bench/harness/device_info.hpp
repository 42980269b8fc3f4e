// What every result file records about the machine: GPU, clocks, driver, CUDA, cuBLAS.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sgemm::harness {

struct DeviceInfo {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_max_mhz = 0;    // cudaDevAttrClockRate
  int mem_clock_max_mhz = 0;
  int64_t l2_bytes = 0;
  int64_t global_mem_bytes = 0;
  int smem_per_block_optin = 0;
  int driver_version = 0;      // e.g. 13000
  int runtime_version = 0;
  int cublas_version = 0;
  std::string driver_string;   // "580.159.04" from NVML when available
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  // FP32 FFMA peak at the given clock: SMs x 128 lanes x 2 flops x clock.
  double fp32_peak_gflops(int clock_mhz) const;
};

// Why no device is usable ("" when one is): no device, driver too old, etc.
std::string device_problem();

// Reads the current device; call only when device_problem() is empty.
DeviceInfo query_device();

// The SM clock right now, in MHz, from NVML (loaded at run time; -1 when unavailable).
int current_sm_clock_mhz(int device);

// Key/value pairs for the results' context block.
std::vector<std::pair<std::string, std::string>> context_pairs(const DeviceInfo& d);

}  // namespace sgemm::harness
