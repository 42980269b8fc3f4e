// cuBLAS's other GEMMs as peers of the tensor-core rungs (bench/peers/cublas.hpp).
#include "peers/cublas.hpp"

#include <algorithm>
#include <cstdint>

#include <cublas_v2.h>

#include "common/common.cuh"
#include "common/cublas.hpp"
#include "common/launch.hpp"
#include "common/ozaki.cuh"
#include "common/tf32.cuh"

namespace sgemm::bench::peers {
namespace {

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

}  // namespace

Status cublas_tf32(const GemmArgs& a, cudaStream_t stream) { return cublas_gemm(a, stream, CublasMath::kTf32); }

Status cublas_3xtf32(const GemmArgs& a, cudaStream_t stream) {
  const int64_t aFloats = a.M * a.K, bFloats = a.K * a.N;
  void* ws = nullptr;
  if (const Status s = workspace_alloc(size_t(2 * (aFloats + bFloats)) * sizeof(float), stream, &ws); s != Status::kOk)
    return s;
  float* Ahi = static_cast<float*>(ws);
  float* Alo = Ahi + aFloats;
  float* Bhi = Alo + aFloats;
  float* Blo = Bhi + bFloats;
  auto blocks = [&](int64_t n) { return unsigned(std::min(ceil_div64(n, kSplitThreads), kMaxBlocks)); };
  split_3xtf32<<<blocks(aFloats), kSplitThreads, 0, stream>>>(a.M, a.K, a.A, a.lda, Ahi, Alo);
  Status s = launch_status();
  split_3xtf32<<<blocks(bFloats), kSplitThreads, 0, stream>>>(a.K, a.N, a.B, a.ldb, Bhi, Blo);
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
    s = cublas_gemm(g, stream, CublasMath::kTf32);
  }
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

namespace {

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
  cublasHandle_t h = cublas_handle(CublasMath::kDefault, &s);
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

}  // namespace

Status cublas_ozaki_int8(const GemmArgs& a, cudaStream_t stream, std::string* why) {
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
      return ozaki_moduli<decltype(n)::value>(a, sc, res, planes, Np, Kp, stream);
    });
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm::bench::peers
