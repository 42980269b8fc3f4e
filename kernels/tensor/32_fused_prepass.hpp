// Rung 32's interface to the rung above it: the functions of its translation unit
// (kernels/tensor/32_fused_prepass.cuh defines them) that the dispatch rung runs or prices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "sgemm_ladder.hpp"

namespace sgemm::rung32 {

bool supports(const GemmArgs& a, std::string* why);
double scaled_error(int64_t K);  // its precision model's scaled term (the registry's)
Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why);
// The same product as the dispatch rung runs it: the plan for normal inputs' spread, the INT8 GEMMs
// queued before the spread is read back, so that the host waits for the pre-pass alone (a forced
// count of moduli, or rows too long for the fused pre-pass: launch()).
Status launch_overlapped(const GemmArgs& a, cudaStream_t stream, std::string* why);

// What a call costs before its inputs are read: the plan's moduli (the spread of the inputs may
// ask for one more, or refuse them), the padded sizes, the INT8 GEMMs' units (one modulus of one
// tile each) and their slabs, and the workspace launch() takes.
struct Footprint {
  int moduli = 0;
  int64_t Mp = 0, Np = 0, Kp = 0;
  int64_t units = 0;    // moduli x tiles
  int64_t slabs = 0;    // K slabs a unit runs
  size_t workspace = 0;  // bytes
  bool narrow = false;  // its tiles do not fill the SMs once (ozaki::narrow: every modulus)
};
Footprint footprint(const GemmArgs& a);
// Built for sm_90a, and the current device is of compute capability 9.0 (sm_90a code runs there alone).
bool available();

}  // namespace sgemm::rung32
