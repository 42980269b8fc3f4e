// Host-side launch helpers shared by every rung's launcher: precondition checks that produce
// a one-line reason, and the mapping from CUDA errors to sgemm::Status.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "../sgemm_ladder.hpp"

namespace sgemm {

// CUDA runtime error -> Status (no kernel image for this GPU -> kArch, allocation -> kOutOfMemory).
Status from_cuda(cudaError_t err);

// The status of the launch just made (cudaGetLastError), mapped by from_cuda.
Status launch_status();

// M, N, K and the leading dimensions fit the rung's 32-bit index math.
bool fits_int32(const GemmArgs& a, std::string* why);

// 128-bit rungs: lda, ldb, ldc multiples of 4 and A, B, C 16-byte aligned (null pointers
// are not checked, so the CLI can ask before it allocates).
bool vec4_ok(const GemmArgs& a, std::string* why);

// The grid fits CUDA's limits (x < 2^31, y and z < 2^16).
bool grid_ok(int64_t blocks_x, int64_t blocks_y, std::string* why);

// After one of several launches: the first failure so far (`sofar`, else this launch's status).
inline Status launch_status_after(Status sofar) {
  const Status now = launch_status();
  return sofar != Status::kOk ? sofar : now;
}

// Scratch memory for a rung that needs it (split-K partial sums, pre-split operands), taken
// stream-ordered from a memory pool per device that keeps freed memory for the next launch:
// `*ptr` is valid for work queued on `stream` until workspace_free(*ptr, stream).
// kOutOfMemory when the device cannot hold `bytes` more.
Status workspace_alloc(size_t bytes, cudaStream_t stream, void** ptr);
Status workspace_free(void* ptr, cudaStream_t stream);

// Allow `bytes` of dynamic shared memory for `kernel` (needed above 48 KiB).
template <typename Kernel>
Status allow_smem(Kernel kernel, int bytes) {
  return from_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

}  // namespace sgemm
