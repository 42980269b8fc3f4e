// cuBLAS's GEMM on the ladder's row-major arguments, its handles and statuses: shared by rung 0 (the
// yardstick, pedantic FP32) and the benchmark's cuBLAS peers (bench/peers/cublas.hpp: TF32
// tensor-op math, and default math for the INT8 GEMMs). Not a lesson.
#pragma once

#include <cublas_v2.h>

#include "sgemm_ladder.hpp"

namespace sgemm {

// The math mode a handle is created with.
enum class CublasMath : int { kPedantic = 0, kTf32 = 1, kDefault = 2 };

// This host thread's handle for the current device and `math`, created on first use and destroyed
// when the thread exits (for the main thread: at exit(), before the CUDA runtime tears down).
// nullptr, with *st the reason (kNoDevice, kCublas), when there is none; else *st = kOk.
cublasHandle_t cublas_handle(CublasMath math, Status* st);

// cuBLAS status -> Status (architecture -> kArch, allocation -> kOutOfMemory, else kCublas).
Status cublas_status(cublasStatus_t s);

// C = alpha op(A) op(B) + beta C, row-major as GemmArgs has it (batched where a.batch > 1; no bias),
// on cuBLAS with `math`'s handle and compute type: kPedantic (CUBLAS_COMPUTE_32F_PEDANTIC) or kTf32
// (CUBLAS_COMPUTE_32F_FAST_TF32); kDefault's handle is for GEMMs the caller makes itself (INT8). cuBLAS is column-major: a row-major C = A B is C^T = B^T A^T there.
Status cublas_gemm(const GemmArgs& a, cudaStream_t stream, CublasMath math);

// NVIDIA_TF32_OVERRIDE set to anything but 0: cuBLAS would run FP32 GEMMs on TF32 tensor cores.
bool tf32_override_set();

}  // namespace sgemm
