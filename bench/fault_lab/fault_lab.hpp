// The fault lab: deliberately broken copies of real rungs, to practise finding illegal memory
// accesses and races with compute-sanitizer, a GPU core dump and cuda-gdb (docs/debugging.md).
//
//   sgemm_bench --inject-fault oob-read  [--kernel 3|6] [--size S | --m M --n N --k K]
//   sgemm_bench --inject-fault oob-write [--kernel 3|6] ...
//   sgemm_bench --inject-fault race      [--kernel 3|6] ...
//
// Built only when SGEMM_LADDER_FAULT_LAB is ON (the debug preset), as the library
// sgemm_fault_lab that sgemm_bench links; never in libsgemm_ladder.so, never in the registry.
// tests/fault_lab/ checks both halves of that promise.
#pragma once

#include "harness/options.hpp"

namespace sgemm::fault_lab {

// Run the faulty variant that `o.fault` names on the rung `o.kernels` picks (default: one per
// kind), once, on the harness's problem. Exit codes: 0 the kernel ran and the result verified (the
// fault stayed silent: run it under a sanitizer), 1 a CUDA error (an illegal address is sticky) or a
// wrong result, 2 a usage error (found before any GPU work), 3 no usable GPU / out of memory.
int run(const harness::Options& o);

}  // namespace sgemm::fault_lab
