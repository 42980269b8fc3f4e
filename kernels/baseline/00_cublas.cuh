// =====================================================================================
// Kernel 00 — cuBLAS baseline (pure FP32): the yardstick                     (not a rung)
// Every rung is measured against this one in the same process, on the same inputs.
// WHAT IT IS: cuBLAS SGEMM. cuBLAS is column-major, so the row-major C = A*B is computed as
//   C^T = B^T * A^T (swap the operands, swap M and N, keep the leading dimensions); a transposed
//   operand is cuBLAS's OP_T, a batch its strided-batched GEMM (the bias comes from the front door).
//   That call is common/cublas.hpp's cublas_gemm, which the benchmark's other cuBLAS comparisons
//   share (bench/peers/cublas.hpp: cuBLAS's TF32 GEMM, 3xTF32 and the Ozaki scheme on its INT8
//   GEMM; not part of the library). Compute type CUBLAS_COMPUTE_32F_PEDANTIC and
//   CUBLAS_PEDANTIC_MATH rule out TF32 and other reduced-precision paths; the call refuses to run
//   when NVIDIA_TF32_OVERRIDE is set to anything but 0.
// SHOW IT: build/release/bench/sgemm_bench --kernel 0; python3 tools/ncu_profile.py --kernel 0
//   (ncu names the kernel cuBLAS picks for each shape)
// PAGE: docs/rungs/00_cublas.md
// =====================================================================================
#pragma once

#include <string>

#include "common/cublas.hpp"

namespace sgemm::rung00 {

std::string tile() { return "cublas"; }

bool supports(const GemmArgs&, std::string*) { return true; }

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  if (tf32_override_set()) return Status::kTf32Override;
  return cublas_gemm(a, stream, CublasMath::kPedantic);
}

}  // namespace sgemm::rung00
