// =====================================================================================
// Kernel 00 — cuBLAS baseline (pure FP32): the yardstick                     (not a rung)
// Every rung is measured against this one in the same process, on the same inputs.
// WHAT IT IS: cuBLAS SGEMM. cuBLAS is column-major, so the row-major C = A*B is computed as
//   C^T = B^T * A^T (swap the operands, swap M and N, keep the leading dimensions); a transposed
//   operand is cuBLAS's OP_T, a batch its strided-batched GEMM (the bias comes from the front door). Compute
//   type CUBLAS_COMPUTE_32F_PEDANTIC and CUBLAS_PEDANTIC_MATH rule out TF32 and other
//   reduced-precision paths; the call refuses to run when NVIDIA_TF32_OVERRIDE is set to
//   anything but 0. sgemm::cublas_tf32() (not a rung) is cuBLAS's TF32 tensor-core GEMM with its
//   own handle (CUBLAS_COMPUTE_32F_FAST_TF32): the fair comparison for the TF32 rung, reported
//   beside it as pct_cublas_tf32, never used as the baseline. sgemm::cublas_3xtf32() (not a rung)
//   is the 3xTF32 method on that same TF32 GEMM: A and B split into TF32 big and small parts, then
//   three cuBLAS TF32 GEMMs (small*big, big*small, big*big) summed in C; the tensor-core rungs that
//   are FP32-accurate are reported against it too, so a page shows what the kernel adds.
//   sgemm::cublas_ozaki_int8() (not a rung) is rung 25's Ozaki scheme on cuBLAS's INT8 GEMM: the
//   same pre-pass (common/ozaki.cuh), one batched cuBLAS s8*s8->s32 GEMM over the moduli into
//   INT32 planes, and a kernel that rebuilds each output from its planes (Garner) and scales it.
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
#include "common/ozaki.cuh"
#include "common/tf32.cuh"

namespace sgemm::rung00 {

std::string tile() { return "cublas"; }

bool supports(const GemmArgs&, std::string*) { return true; }

// One cuBLAS handle per host thread and device, created on first use and destroyed when the
// thread exits (for the main thread: at exit(), before the CUDA runtime tears down).
// A handle per device and math mode: pedantic FP32 (the baseline), TF32 tensor-op math (the
// comparison for the TF32 rungs, never the baseline), default math (the INT8 GEMMs).
enum class Math : int { kPedantic = 0, kTf32 = 1, kDefault = 2 };
struct ThreadHandles {
  static constexpr int kMaxDevices = 64;
  cublasHandle_t handle[kMaxDevices][3] = {};
  ~ThreadHandles() {
    for (auto& pair : handle)
      for (cublasHandle_t h : pair)
        if (h) cublasDestroy(h);
  }
};

static cublasHandle_t handle_for_current_device(Status* st, Math math) {
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
    const cublasMath_t mode = math == Math::kTf32       ? CUBLAS_TF32_TENSOR_OP_MATH
                              : math == Math::kPedantic ? CUBLAS_PEDANTIC_MATH
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

static bool tf32_override_set() {
  const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
  return v != nullptr && std::strcmp(v, "0") != 0;
}

static Status cublas_status(cublasStatus_t s) {
  if (s == CUBLAS_STATUS_ARCH_MISMATCH) return Status::kArch;
  if (s == CUBLAS_STATUS_ALLOC_FAILED) return Status::kOutOfMemory;
  return s == CUBLAS_STATUS_SUCCESS ? Status::kOk : Status::kCublas;
}

static Status gemm(const GemmArgs& a, cudaStream_t stream, bool tf32) {
  Status st;
  cublasHandle_t h = handle_for_current_device(&st, tf32 ? Math::kTf32 : Math::kPedantic);
  if (!h) return st;
  if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) return Status::kCublas;
  // Row-major C(MxN) = A(MxK) B(KxN)  <=>  column-major C^T(NxM) = B^T(NxK) A^T(KxM). A row-major
  // operand read column-major is its transpose, so a transposed operand ('T') is cuBLAS's OP_T.
  const cublasOperation_t opB = a.transb ? CUBLAS_OP_T : CUBLAS_OP_N, opA = a.transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasComputeType_t compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F_PEDANTIC;
  const cublasStatus_t s =
      a.batch > 1 ? cublasGemmStridedBatchedEx_64(h, opB, opA, a.N, a.M, a.K, &a.alpha, a.B, CUDA_R_32F, a.ldb,
                                                  a.strideB, a.A, CUDA_R_32F, a.lda, a.strideA, &a.beta, a.C,
                                                  CUDA_R_32F, a.ldc, a.strideC, a.batch, compute, CUBLAS_GEMM_DEFAULT)
                  : cublasGemmEx_64(h, opB, opA, a.N, a.M, a.K, &a.alpha, a.B, CUDA_R_32F, a.ldb, a.A, CUDA_R_32F,
                                    a.lda, &a.beta, a.C, CUDA_R_32F, a.ldc, compute, CUBLAS_GEMM_DEFAULT);
  return cublas_status(s);
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string*) {
  if (tf32_override_set()) return Status::kTf32Override;
  return gemm(a, stream, false);
}

}  // namespace sgemm::rung00

namespace sgemm::rung00 {

constexpr int kSplitThreads = 256;
constexpr int64_t kMaxBlocks = 8192;  // the helper kernels' grids: grid-stride loops beyond this

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
  using rung00::kMaxBlocks;
  using rung00::kSplitThreads;
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

namespace sgemm::rung00 {

// The Ozaki scheme on cuBLAS's INT8 GEMM. Residues as rung 25 lays them out (K-major rows of A and
// of B transposed), so that each modulus is one column-major "TN" GEMM, C^T = B^T A^T, the layout
// cuBLAS's INT8 GEMMs prefer. Its INT32 output is a plane per modulus: [l][M][Np].
constexpr int kOzakiPad = kTransposeTile;  // residues_b's tiles: Np and Kp are multiples of 32
constexpr int kOzakiThreads = 256;
// K is multiplied in chunks whose INT32 sums cannot overflow: |sum| <= 2^16 * 128 * 128 = 2^30;
// between chunks each plane is brought back to its balanced residue.
constexpr int64_t kOzakiChunkK = int64_t(1) << 16;

template <int N>
__global__ void __launch_bounds__(kOzakiThreads) ozaki_reduce_planes(int64_t plane, int* __restrict__ planes) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < plane; i += int64_t(gridDim.x) * blockDim.x) {
#pragma unroll
    for (int l = 0; l < N; ++l) planes[l * plane + i] = ozaki::balance(planes[l * plane + i], ozaki::modulus(l));
  }
}

// C = alpha * (each output rebuilt from its N residues and scaled back) + beta * C.
template <int N>
__global__ void __launch_bounds__(kOzakiThreads)
ozaki_reconstruct(int64_t M, int64_t Ncols, const int* __restrict__ planes, int64_t ldp, const int* __restrict__ shiftA,
                  const int* __restrict__ shiftB, float alpha, float beta, float* __restrict__ C, int64_t ldc) {
  const int64_t plane = M * ldp;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < M * Ncols; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = i / Ncols, col = i % Ncols;
    int r[N];
#pragma unroll
    for (int l = 0; l < N; ++l) r[l] = planes[l * plane + row * ldp + col];
    float* c = C + row * ldc + col;
    *c = epilogue(alpha, ozaki::unscale(ozaki::reconstruct<N>(r), shiftA[row], shiftB[col]), beta, c);
  }
}

template <int N>
Status ozaki_moduli(const GemmArgs& a, const ozaki::Scales& sc, signed char* res, int* planes, int64_t Np, int64_t Kp,
                    cudaStream_t stream) {
  signed char* resA = res;                  // [N][M][Kp]
  signed char* resB = res + N * a.M * Kp;   // [N][Np][Kp]
  Status s = ozaki::residues<N>(a, sc, resA, a.M, resB, Np, Kp, stream);
  if (s != Status::kOk) return s;
  cublasHandle_t h = handle_for_current_device(&s, Math::kDefault);
  if (!h) return s;
  if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) return Status::kCublas;
  const int64_t plane = a.M * Np;
  const unsigned blocks = unsigned(std::min(ceil_div64(plane, kOzakiThreads), kMaxBlocks));
  const int32_t one = 1;
  for (int64_t k0 = 0; k0 < Kp && s == Status::kOk; k0 += kOzakiChunkK) {
    const int64_t kc = std::min(kOzakiChunkK, Kp - k0);
    const int32_t beta = k0 == 0 ? 0 : 1;  // later chunks add to the reduced planes
    s = cublas_status(cublasGemmStridedBatchedEx_64(
        h, CUBLAS_OP_T, CUBLAS_OP_N, a.N, a.M, kc, &one, resB + k0, CUDA_R_8I, Kp, Np * Kp, resA + k0, CUDA_R_8I, Kp,
        a.M * Kp, &beta, planes, CUDA_R_32I, Np, plane, N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    if (s == Status::kOk && k0 + kOzakiChunkK < Kp) {
      ozaki_reduce_planes<N><<<blocks, kOzakiThreads, 0, stream>>>(plane, planes);
      s = launch_status();
    }
  }
  if (s != Status::kOk) return s;
  const unsigned outBlocks = unsigned(std::min(ceil_div64(a.M * a.N, kOzakiThreads), kMaxBlocks));
  ozaki_reconstruct<N><<<outBlocks, kOzakiThreads, 0, stream>>>(a.M, a.N, planes, Np, sc.shiftA, sc.shiftB, a.alpha,
                                                               a.beta, a.C, a.ldc);
  return launch_status();
}

}  // namespace sgemm::rung00

namespace sgemm {

Status cublas_ozaki_int8(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  using rung00::kOzakiPad;
  if (const Status s = ozaki::refuse_capture(stream, why); s != Status::kOk) return s;
  if (a.M > INT32_MAX || a.N > INT32_MAX || a.K > INT32_MAX || a.lda > INT32_MAX || a.ldb > INT32_MAX) {
    if (why) *why = "the residue kernels index rows and columns with 32-bit integers";
    return Status::kUnsupported;
  }
  // Workspace: the scales' statistics, the residues [n][M][Kp] of A and [n][Np][Kp] of B, the
  // INT32 planes [n][M][Np]; each part 256-byte aligned, with room for kMaxModuli (n is known once
  // the inputs' spread is).
  const int64_t Np = ceil_div64(a.N, kOzakiPad) * kOzakiPad, Kp = ceil_div64(a.K, kOzakiPad) * kOzakiPad;
  constexpr int64_t kAlign = 256;
  auto aligned = [](int64_t bytes) { return ceil_div64(bytes, kAlign) * kAlign; };
  const int64_t n = ozaki::kMaxModuli;
  if (a.M + Np > INT64_MAX / 8 / n / Kp || a.M > INT64_MAX / 8 / n / Np) return Status::kOutOfMemory;
  const int64_t statBytes = aligned(int64_t(ozaki::stats_bytes(a.M, a.N)));
  const int64_t resBytes = aligned(n * (a.M + Np) * Kp);
  const int64_t planeBytes = n * a.M * Np * int64_t(sizeof(int));
  void* ws = nullptr;
  if (const Status s = workspace_alloc(size_t(statBytes + resBytes + planeBytes), stream, &ws); s != Status::kOk) return s;
  ozaki::Scales sc;
  ozaki::Plan plan;
  // Instances for 4 moduli and up, like rung 31's: the same method beside it at a forced count.
  constexpr int kFewestModuli = 4;
  Status s = ozaki::checked_scales(a, ws, stream, &sc, &plan, why, kFewestModuli);
  signed char* res = static_cast<signed char*>(ws) + statBytes;
  int* planes = reinterpret_cast<int*>(res + resBytes);
  if (s == Status::kOk)
    s = ozaki::with_moduli<kFewestModuli>(plan.moduli, [&](auto n) {
      return rung00::ozaki_moduli<decltype(n)::value>(a, sc, res, planes, Np, Kp, stream);
    });
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm
