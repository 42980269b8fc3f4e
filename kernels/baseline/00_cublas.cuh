// =====================================================================================
// Kernel 00 — cuBLAS baseline (pure FP32): the yardstick                     (not a rung)
// Every rung is measured against this one in the same process, on the same inputs.
// WHAT IT IS: cuBLAS SGEMM. cuBLAS is column-major, so the row-major C = A*B is computed as
//   C^T = B^T * A^T (swap the operands, swap M and N, keep the leading dimensions). Compute
//   type CUBLAS_COMPUTE_32F_PEDANTIC and CUBLAS_PEDANTIC_MATH rule out TF32 and other
//   reduced-precision paths; the call refuses to run when NVIDIA_TF32_OVERRIDE is set to
//   anything but 0. sgemm::cublas_tf32() (not a rung) is cuBLAS's TF32 tensor-core GEMM with its
//   own handle (CUBLAS_COMPUTE_32F_FAST_TF32): the fair comparison for the TF32 rung, reported
//   beside it as pct_cublas_tf32, never used as the baseline. sgemm::cublas_3xtf32() (not a rung)
//   is the 3xTF32 method on that same TF32 GEMM: A and B split into TF32 big and small parts, then
//   three cuBLAS TF32 GEMMs (small*big, big*small, big*big) summed in C; the tensor-core rungs that
//   are FP32-accurate are reported against it too, so a page shows what the kernel adds.
// SHOW IT: build/release/bench/sgemm_bench --kernel 0; python3 tools/ncu_profile.py --kernel 0
//   (ncu names the kernel cuBLAS picks for each shape)
// PAGE: docs/rungs/00_cublas.md
// =====================================================================================
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cublas_v2.h>

#include "common/common.cuh"
#include "common/launch.hpp"
#include "common/tf32.cuh"

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

namespace sgemm::rung00 {

constexpr int kSplitThreads = 256;

// X (rows x cols, ld) -> big and small (rows x cols, dense rows): x = big + small, both TF32
// (split_fp32, common/tf32.cuh).
__global__ void __launch_bounds__(kSplitThreads) split_3xtf32(int64_t rows, int64_t cols, const float* __restrict__ x,
                                                              int64_t ld, float* __restrict__ big,
                                                              float* __restrict__ small) {
  const int64_t n = rows * cols;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    split_fp32(x[(i / cols) * ld + i % cols], big[i], small[i]);
}

}  // namespace sgemm::rung00

namespace sgemm {

Status cublas_tf32(const GemmArgs& a, cudaStream_t stream) { return rung00::gemm(a, stream, true); }

Status cublas_3xtf32(const GemmArgs& a, cudaStream_t stream) {
  using rung00::kSplitThreads;
  constexpr int64_t kMaxBlocks = 8192;  // grid-stride loops beyond this
  const int64_t aFloats = a.M * a.K, bFloats = a.K * a.N;
  void* ws = nullptr;
  if (const Status s = workspace_alloc(size_t(2 * (aFloats + bFloats)) * sizeof(float), stream, &ws); s != Status::kOk)
    return s;
  float* Ahi = static_cast<float*>(ws);
  float* Alo = Ahi + aFloats;
  float* Bhi = Alo + aFloats;
  float* Blo = Bhi + bFloats;
  auto blocks = [&](int64_t n) { return unsigned(std::min(ceil_div64(n, kSplitThreads), kMaxBlocks)); };
  rung00::split_3xtf32<<<blocks(aFloats), kSplitThreads, 0, stream>>>(a.M, a.K, a.A, a.lda, Ahi, Alo);
  Status s = launch_status();
  rung00::split_3xtf32<<<blocks(bFloats), kSplitThreads, 0, stream>>>(a.K, a.N, a.B, a.ldb, Bhi, Blo);
  s = launch_status_after(s);
  // Small terms first, into C with the caller's beta; the big*big term last, as the rungs add them.
  GemmArgs g = a;
  g.lda = a.K;
  g.ldb = a.N;
  const float* terms[3][2] = {{Alo, Bhi}, {Ahi, Blo}, {Ahi, Bhi}};
  for (int t = 0; t < 3 && s == Status::kOk; ++t) {
    g.A = terms[t][0];
    g.B = terms[t][1];
    g.beta = t == 0 ? a.beta : 1.0f;
    s = rung00::gemm(g, stream, true);
  }
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm
