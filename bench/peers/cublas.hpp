// cuBLAS's other GEMMs as measured peers of the tensor-core rungs: sgemm_bench times each beside the
// rungs it compares with, interleaved, on the same inputs (bench/session.cu). Not rungs, not part of
// the library: what a rung's kernel adds over the same arithmetic on cuBLAS.
#pragma once

#include <string>

#include "sgemm_ladder.hpp"

namespace sgemm::bench::peers {

// cuBLAS's own TF32 tensor-core GEMM (CUBLAS_COMPUTE_32F_FAST_TF32), the fair comparison for
// rungs that are not FP32-accurate. Same layout and arguments as run(); the arguments must be valid
// (see validate) and plain (GemmArgs::plain()) with M, N, K >= 1.
Status cublas_tf32(const GemmArgs& args, cudaStream_t stream = nullptr);

// The 3xTF32 method on cuBLAS's TF32 GEMM (split A and B into TF32 big and small parts, three
// cuBLAS TF32 GEMMs summed in C), the comparison for the 3xTF32 rungs. Arguments as cublas_tf32.
Status cublas_3xtf32(const GemmArgs& args, cudaStream_t stream = nullptr);

// Rung 25's Ozaki scheme on cuBLAS's INT8 GEMM (the same pre-pass and moduli, one batched cuBLAS
// s8*s8->s32 GEMM over the moduli, then a kernel that rebuilds C from the INT32 planes), the
// comparison for the Ozaki rungs. Arguments as cublas_tf32; like the rung it refuses (kUnsupported,
// `why` says why) wide inputs and stream capture. Its moduli follow set_ozaki_moduli as the rungs'.
Status cublas_ozaki_int8(const GemmArgs& args, cudaStream_t stream = nullptr, std::string* why = nullptr);

}  // namespace sgemm::bench::peers
