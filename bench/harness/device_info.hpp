// What every result file records about the machine: GPU, clocks, driver, CUDA, cuBLAS, and the
// FP32 peak the GPU could reach.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sgemm_ladder.hpp"

namespace sgemm::harness {

// The FP32 lanes per SM and the FP32 peak: the library's one formula (kernels/common/prepare.cpp),
// which the front door's packing rule uses too.
using sgemm::fp32_lanes_per_sm;
using sgemm::fp32_peak_gflops;

struct DeviceInfo {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_max_mhz = 0;    // cudaDevAttrClockRate: the highest SM clock the GPU runs at
  int mem_clock_max_mhz = 0;
  int mem_bus_bits = 0;        // cudaDevAttrGlobalMemoryBusWidth
  int64_t l2_bytes = 0;
  int64_t global_mem_bytes = 0;
  int smem_per_block_optin = 0;
  int driver_version = 0;      // e.g. 13000
  int runtime_version = 0;
  int cublas_version = 0;
  std::string driver_string;   // "580.159.04" from NVML when available
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  double fp32_peak_gflops() const;  // at sm_clock_max_mhz
  // Device-memory bandwidth at the highest memory clock: two transfers per clock (DDR) over the bus.
  double dram_peak_gbps() const { return 2.0 * mem_clock_max_mhz * 1e6 * (mem_bus_bits / 8.0) / 1e9; }
};

// Why no device is usable, in one line ("" when one is): "no NVIDIA driver found" when the
// driver library cannot be loaded, "no CUDA GPU found" when the driver sees no device, a driver
// older than the runtime, or the CUDA error.
std::string device_problem();

// Reads the current device; call only when device_problem() is empty.
DeviceInfo query_device();

// Key/value pairs for the results' context block.
std::vector<std::pair<std::string, std::string>> context_pairs(const DeviceInfo& d);

}  // namespace sgemm::harness
