// cuBLAS's GEMM on row-major arguments, and its handles per host thread, device and math mode
// (common/cublas.hpp).
#include "common/cublas.hpp"

#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

namespace sgemm {

namespace {

struct ThreadHandles {
  static constexpr int kMaxDevices = 64;
  static constexpr int kModes = 3;
  cublasHandle_t handle[kMaxDevices][kModes] = {};
  ~ThreadHandles() {
    for (auto& modes : handle)
      for (cublasHandle_t h : modes)
        if (h) cublasDestroy(h);
  }
};

}  // namespace

cublasHandle_t cublas_handle(CublasMath math, Status* st) {
  thread_local ThreadHandles handles;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= ThreadHandles::kMaxDevices) {
    *st = Status::kNoDevice;
    return nullptr;
  }
  cublasHandle_t& h = handles.handle[dev][int(math)];
  if (!h) {
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
      h = nullptr;
      *st = Status::kCublas;
      return nullptr;
    }
    const cublasMath_t mode = math == CublasMath::kTf32       ? CUBLAS_TF32_TENSOR_OP_MATH
                              : math == CublasMath::kPedantic ? CUBLAS_PEDANTIC_MATH
                                                              : CUBLAS_DEFAULT_MATH;
    if (cublasSetMathMode(h, mode) != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h);
      h = nullptr;
      *st = Status::kCublas;
      return nullptr;
    }
  }
  *st = Status::kOk;
  return h;
}

Status cublas_status(cublasStatus_t s) {
  if (s == CUBLAS_STATUS_ARCH_MISMATCH) return Status::kArch;
  if (s == CUBLAS_STATUS_ALLOC_FAILED) return Status::kOutOfMemory;
  return s == CUBLAS_STATUS_SUCCESS ? Status::kOk : Status::kCublas;
}

Status cublas_gemm(const GemmArgs& a, cudaStream_t stream, CublasMath math) {
  Status st;
  cublasHandle_t h = cublas_handle(math, &st);
  if (!h) return st;
  if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) return Status::kCublas;
  // Row-major C(MxN) = A(MxK) B(KxN)  <=>  column-major C^T(NxM) = B^T(NxK) A^T(KxM). A row-major
  // operand read column-major is its transpose, so a transposed operand ('T') is cuBLAS's OP_T.
  const cublasOperation_t opB = a.transb ? CUBLAS_OP_T : CUBLAS_OP_N, opA = a.transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasComputeType_t compute =
      math == CublasMath::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F_PEDANTIC;
  const cublasStatus_t s =
      a.batch > 1 ? cublasGemmStridedBatchedEx_64(h, opB, opA, a.N, a.M, a.K, &a.alpha, a.B, CUDA_R_32F, a.ldb,
                                                  a.strideB, a.A, CUDA_R_32F, a.lda, a.strideA, &a.beta, a.C,
                                                  CUDA_R_32F, a.ldc, a.strideC, a.batch, compute, CUBLAS_GEMM_DEFAULT)
                  : cublasGemmEx_64(h, opB, opA, a.N, a.M, a.K, &a.alpha, a.B, CUDA_R_32F, a.ldb, a.A, CUDA_R_32F,
                                    a.lda, &a.beta, a.C, CUDA_R_32F, a.ldc, compute, CUBLAS_GEMM_DEFAULT);
  return cublas_status(s);
}

bool tf32_override_set() {
  const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
  return v != nullptr && std::strcmp(v, "0") != 0;
}

}  // namespace sgemm
