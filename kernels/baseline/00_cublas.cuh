// =====================================================================================
// Kernel 00 — cuBLAS baseline (pure FP32): the yardstick                     (not a rung)
// Every rung is measured against this one in the same process, on the same inputs.
// WHAT IT IS: cuBLAS SGEMM. cuBLAS is column-major, so the row-major C = A*B is computed as
//   C^T = B^T * A^T (swap the operands, swap M and N, keep the leading dimensions). Compute
//   type CUBLAS_COMPUTE_32F_PEDANTIC and CUBLAS_PEDANTIC_MATH rule out TF32 and other
//   reduced-precision paths; the call refuses to run when NVIDIA_TF32_OVERRIDE is set to
//   anything but 0. sgemm::cublas_tf32() (not a rung) is cuBLAS's TF32 tensor-core GEMM with its
//   own handle (CUBLAS_COMPUTE_32F_FAST_TF32): the fair comparison for the TF32 rung, reported
//   beside it as pct_cublas_tf32, never used as the baseline.
// SHOW IT: build/release/bench/sgemm_bench --kernel 0; python3 tools/ncu_profile.py --kernel 0
//   (ncu names the kernel cuBLAS picks for each shape)
// PAGE: docs/rungs/00_cublas.md
// =====================================================================================
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

#include <cublas_v2.h>

#include "common/launch.hpp"

namespace sgemm::rung00 {

std::string tile() { return "cublas"; }

bool supports(const GemmArgs&, std::string*) { return true; }

// One cuBLAS handle per host thread and device, created on first use and destroyed when the
// thread exits (for the main thread: at exit(), before the CUDA runtime tears down).
// Two handles per device: [0] pedantic FP32 (the baseline), [1] TF32 tensor-op math (the
// comparison for the TF32 rungs, never the baseline).
struct ThreadHandles {
  static constexpr int kMaxDevices = 64;
  cublasHandle_t handle[kMaxDevices][2] = {};
  ~ThreadHandles() {
    for (auto& pair : handle)
      for (cublasHandle_t h : pair)
        if (h) cublasDestroy(h);
  }
};

static cublasHandle_t handle_for_current_device(Status* st, bool tf32 = false) {
  thread_local ThreadHandles handles;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= ThreadHandles::kMaxDevices) {
    *st = Status::kNoDevice;
    return nullptr;
  }
  cublasHandle_t& h = handles.handle[dev][tf32 ? 1 : 0];
  if (!h) {
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
      h = nullptr;
      *st = Status::kCublas;
      return nullptr;
    }
    if (cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h);
      h = nullptr;
      *st = Status::kCublas;
      return nullptr;
    }
  }
  *st = Status::kOk;
  return h;
}

static bool tf32_override_set() {
  const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
  return v != nullptr && std::strcmp(v, "0") != 0;
}

static Status gemm(const GemmArgs& a, cudaStream_t stream, bool tf32) {
  Status st;
  cublasHandle_t h = handle_for_current_device(&st, tf32);
  if (!h) return st;
  if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) return Status::kCublas;
  // Row-major C(MxN) = A(MxK) B(KxN)  <=>  column-major C^T(NxM) = B^T(NxK) A^T(KxM).
  const cublasStatus_t s = cublasGemmEx_64(
      h, CUBLAS_OP_N, CUBLAS_OP_N, a.N, a.M, a.K, &a.alpha, a.B, CUDA_R_32F, a.ldb, a.A, CUDA_R_32F,
      a.lda, &a.beta, a.C, CUDA_R_32F, a.ldc, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F_PEDANTIC,
      CUBLAS_GEMM_DEFAULT);
  if (s == CUBLAS_STATUS_ARCH_MISMATCH) return Status::kArch;
  if (s == CUBLAS_STATUS_ALLOC_FAILED) return Status::kOutOfMemory;
  return s == CUBLAS_STATUS_SUCCESS ? Status::kOk : Status::kCublas;
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  if (tf32_override_set()) return Status::kTf32Override;
  return gemm(a, stream, false);
}

}  // namespace sgemm::rung00

namespace sgemm {

Status cublas_tf32(const GemmArgs& a, cudaStream_t stream) { return rung00::gemm(a, stream, true); }

}  // namespace sgemm
