// CUDA error handling for the harness: every runtime call is checked and a failure becomes an
// exception carrying the call, the file/line and the CUDA error name.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

namespace sgemm::harness {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

// Thrown when a device allocation fails; says how many bytes were asked for.
// A rung returned Status::kUnsupported for valid inputs, with its reason (what()).
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OutOfMemory : std::runtime_error {
  size_t bytes;
  OutOfMemory(size_t b, const std::string& what) : std::runtime_error(what), bytes(b) {}
};

[[noreturn]] void throw_cuda(cudaError_t err, const char* call, const char* file, int line);

}  // namespace sgemm::harness

#define SGEMM_CUDA(call)                                                              \
  do {                                                                                \
    const cudaError_t sgemm_err_ = (call);                                            \
    if (sgemm_err_ != cudaSuccess)                                                    \
      ::sgemm::harness::throw_cuda(sgemm_err_, #call, __FILE__, __LINE__);            \
  } while (0)
