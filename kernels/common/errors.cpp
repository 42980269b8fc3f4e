// Status codes: their one-line descriptions and the mapping from CUDA runtime errors.
#include "common/launch.hpp"

namespace sgemm {

const char* status_string(Status s) {
  switch (s) {
    case Status::kOk: return "success";
    case Status::kInvalidSize: return "invalid size: M, N and K must be >= 0";
    case Status::kInvalidLd:
      return "invalid leading dimension: lda >= max(1,K) (M for A^T), ldb >= max(1,N) (K for B^T), ldc >= max(1,N)";
    case Status::kNullPointer: return "null pointer for an operand the call must use";
    case Status::kSizeOverflow: return "an operand's byte count overflows 64 bits";
    case Status::kUnknownKernel: return "unknown kernel id";
    case Status::kUnsupported: return "the rung's preconditions do not hold for these arguments";
    case Status::kNoDevice: return "no usable CUDA device";
    case Status::kArch: return "kernel not built for this GPU's architecture";
    case Status::kOutOfMemory: return "out of device memory";
    case Status::kCuda: return "CUDA runtime error";
    case Status::kCublas: return "cuBLAS error";
    case Status::kTf32Override: return "NVIDIA_TF32_OVERRIDE is set: the FP32 baseline refuses to run";
    case Status::kDeviceLimit: return "the GPU's limits (shared memory, registers, threads) are too small for this rung";
    case Status::kInvalidTrans: return "invalid transpose flag: transa and transb must be one of N, n, T, t";
    case Status::kInvalidBatch:
      return "invalid batch: batch >= 1, strides >= 0, and strideC >= M*ldc when batch > 1";
  }
  return "unknown status";
}

Status from_cuda(cudaError_t err) {
  switch (err) {
    case cudaSuccess: return Status::kOk;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorUnsupportedPtxVersion: return Status::kArch;
    case cudaErrorMemoryAllocation: return Status::kOutOfMemory;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return Status::kNoDevice;
    default: return Status::kCuda;
  }
}

Status launch_status() { return from_cuda(cudaGetLastError()); }

}  // namespace sgemm
