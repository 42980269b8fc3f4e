// GEMMul8 as a peer (gemmul8.hpp says when it is built). Only the call lives here: its inputs,
// timing and verification are sgemm_bench's, the same as for the rungs it is compared with.
#include "peers/gemmul8.hpp"

#ifdef SGEMM_HAVE_GEMMUL8
#include <cublas_v2.h>
#include <gemmul8.hpp>
#endif

namespace sgemm::bench::peers {

namespace {
int g_moduli = 7;
bool g_fast = true;
}  // namespace

void set_gemmul8_moduli(int moduli) { g_moduli = moduli; }
void set_gemmul8_fast(bool fast) { g_fast = fast; }

#ifndef SGEMM_HAVE_GEMMUL8

bool gemmul8_available() { return false; }
std::string gemmul8_commit() { return ""; }
Status gemmul8_sgemm(const GemmArgs&, cudaStream_t) { return Status::kUnsupported; }

#else

bool gemmul8_available() { return true; }
std::string gemmul8_commit() { return SGEMM_GEMMUL8_COMMIT; }

namespace {
// One handle and one workspace for the process (sgemm_bench runs on one device), grown as needed.
struct State {
  cublasHandle_t handle = nullptr;
  void* work = nullptr;
  size_t bytes = 0;
  ~State() {
    if (work) cudaFree(work);
    if (handle) cublasDestroy(handle);
  }
};
State& state() {
  static State s;
  return s;
}
}  // namespace

Status gemmul8_sgemm(const GemmArgs& a, cudaStream_t stream) {
  if (!a.plain()) return Status::kUnsupported;
  State& s = state();
  if (!s.handle && cublasCreate(&s.handle) != CUBLAS_STATUS_SUCCESS) return Status::kCublas;
  if (cublasSetStream(s.handle, stream) != CUBLAS_STATUS_SUCCESS) return Status::kCublas;
  const unsigned moduli = unsigned(g_moduli);
  // Row-major C (M x N) = A B is column-major C^T = B^T A^T: GEMMul8 (column-major, like cuBLAS)
  // gets m = N, n = M and B before A.
  const size_t m = size_t(a.N), n = size_t(a.M), k = size_t(a.K);
  const size_t need = gemmul8::workSize<false, gemmul8::Backend::INT8>(m, n, k, moduli);
  if (need > s.bytes) {
    if (s.work) cudaFree(s.work);
    s.work = nullptr;
    s.bytes = 0;
    if (cudaMalloc(&s.work, need) != cudaSuccess) {
      cudaGetLastError();
      return Status::kOutOfMemory;
    }
    s.bytes = need;
  }
  gemmul8::gemm<float, gemmul8::Backend::INT8>(s.handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a.alpha, a.B,
                                               size_t(a.ldb), a.A, size_t(a.lda), &a.beta, a.C, size_t(a.ldc),
                                               moduli, /*fastmode=*/g_fast, s.work);
  return cudaPeekAtLastError() == cudaSuccess ? Status::kOk : Status::kCuda;
}

#endif

}  // namespace sgemm::bench::peers
