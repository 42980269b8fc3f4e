// NVML, the driver's management library: the SM clock right now and the driver's version.
// Compiled in where CMake found the toolkit's nvml.h (SGEMM_HAVE_NVML); used where the driver's
// libnvidia-ml.so.1 loads. Elsewhere every call answers "unknown" and the SM clock comes from the
// probe kernel of clocks.hpp.
#pragma once

#include <string>

namespace sgemm::harness::nvml {

// True when this build has NVML and the library loaded and initialised.
bool available();

// The SM clock of a CUDA device (its runtime index), in MHz; -1 when unknown.
int sm_clock_mhz(int cuda_device);

// The driver version, e.g. "580.159.04"; "" when unknown.
std::string driver_version();

// The energy the GPU has used since the driver loaded, in millijoules (NVML's total energy
// counter, Volta and later); -1 when unknown.
long long energy_mj(int cuda_device);

}  // namespace sgemm::harness::nvml
