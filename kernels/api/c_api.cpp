// The C ABI (sgemm_ladder.h): thin wrappers over sgemm::run and the registry. These are the only
// symbols the shared library exports.
#include <map>
#include <string>

#include "sgemm_ladder.h"
#include "sgemm_ladder.hpp"
#include "dispatch/tensor.hpp"

#define SGEMM_LADDER_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
thread_local std::string g_last_error;

// Both entries end here: run, and keep the detail of a failure for sgemm_ladder_last_error().
int run_and_record(int kernel_id, const sgemm::GemmArgs& a, void* stream) {
  std::string detail;
  sgemm::Status s;
  if (kernel_id >= 0 && (kernel_id & SGEMM_LADDER_CUDA_CORES) != 0) {
    const sgemm::rung30::tensor::CudaCoresOnly cudaCores;  // this call alone
    s = sgemm::run(kernel_id & ~SGEMM_LADDER_CUDA_CORES, a, static_cast<cudaStream_t>(stream), &detail);
  } else {
    s = sgemm::run(kernel_id, a, static_cast<cudaStream_t>(stream), &detail);
  }
  g_last_error = (s == sgemm::Status::kOk) ? std::string() : detail;
  return static_cast<int>(s);
}
}  // namespace

SGEMM_LADDER_EXPORT int sgemm_ladder_run(int kernel_id, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                         int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                                         void* stream) {
  return run_and_record(kernel_id, sgemm::GemmArgs{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream);
}

namespace {

// 'N'/'n' and 'T'/'t' as GemmArgs has them; false for any other flag, with the one-line reason.
bool trans_flag(const char* name, char flag, bool* trans) {
  if (flag == 'N' || flag == 'n' || flag == 'T' || flag == 't') {
    *trans = flag == 'T' || flag == 't';
    return true;
  }
  const unsigned char code = static_cast<unsigned char>(flag);
  const std::string shown = code >= 0x20 && code < 0x7f ? "'" + std::string(1, flag) + "'"
                                                        : "character code " + std::to_string(int(code));
  g_last_error = std::string(name) + "=" + shown + " is not one of 'N', 'n', 'T', 't'";
  return false;
}

}  // namespace

SGEMM_LADDER_EXPORT int sgemm_ladder_gemm(int kernel_id, char transa, char transb, int64_t M, int64_t N, int64_t K,
                                          float alpha, const float* A, int64_t lda, int64_t strideA, const float* B,
                                          int64_t ldb, int64_t strideB, float beta, float* C, int64_t ldc,
                                          int64_t strideC, const float* bias, int64_t batch, void* stream) {
  sgemm::GemmArgs a{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  if (!trans_flag("transa", transa, &a.transa) || !trans_flag("transb", transb, &a.transb))
    return SGEMM_LADDER_ERR_INVALID_TRANS;
  a.batch = batch;
  a.strideA = strideA;
  a.strideB = strideB;
  a.strideC = strideC;
  a.bias = bias;
  return run_and_record(kernel_id, a, stream);
}

SGEMM_LADDER_EXPORT const char* sgemm_ladder_status_string(int status) {
  if (status < SGEMM_LADDER_OK || status > SGEMM_LADDER_ERR_INVALID_BATCH) return "unknown status";
  return sgemm::status_string(static_cast<sgemm::Status>(status));
}

SGEMM_LADDER_EXPORT const char* sgemm_ladder_last_error(void) { return g_last_error.c_str(); }

SGEMM_LADDER_EXPORT const char* sgemm_ladder_version(void) { return SGEMM_LADDER_VERSION; }

SGEMM_LADDER_EXPORT int sgemm_ladder_kernel_count(void) { return int(sgemm::registry().size()); }

SGEMM_LADDER_EXPORT int sgemm_ladder_kernel_id(int index) {
  const auto& table = sgemm::registry();
  return index >= 0 && index < int(table.size()) ? table[size_t(index)].id : -1;
}

SGEMM_LADDER_EXPORT const char* sgemm_ladder_kernel_name(int kernel_id) {
  const sgemm::Rung* r = sgemm::find_rung(kernel_id);
  return r ? r->slug : nullptr;
}

SGEMM_LADDER_EXPORT int sgemm_ladder_kernel_lookup(const char* name) {
  const sgemm::Rung* dispatch = nullptr;  // the last rung of the dispatch track: what "auto" runs
  for (const sgemm::Rung& r : sgemm::registry())
    if (r.track == sgemm::Track::kDispatch) dispatch = &r;
  const std::string key = name ? name : "";
  const sgemm::Rung* r = nullptr;
  int flags = 0;
  if (key == "auto" || key == "auto_cuda_cores") {
    r = dispatch ? dispatch : sgemm::capstone();
    if (dispatch && key == "auto_cuda_cores") flags = SGEMM_LADDER_CUDA_CORES;
  } else if (key == "capstone") {
    r = sgemm::capstone();
  } else {
    r = sgemm::find_rung(key);
  }
  if (r) {
    g_last_error.clear();
    return r->id | flags;
  }
  std::string known;
  for (const sgemm::Rung& k : sgemm::registry())
    known += (known.empty() ? "" : ", ") + std::to_string(k.id) + " (" + k.slug + ")";
  g_last_error =
      "no kernel named '" + key + "': the kernels are " + known + ", or 'auto', 'auto_cuda_cores' or 'capstone'";
  return -1;
}

SGEMM_LADDER_EXPORT int sgemm_ladder_kernel_describe(int kernel_id, sgemm_ladder_kernel_desc* out) {
  // The tile texts, made once: the C ABI hands out pointers that stay valid.
  static const std::map<int, std::string> tiles = [] {
    std::map<int, std::string> t;
    for (const sgemm::Rung& r : sgemm::registry()) t[r.id] = r.tile();
    return t;
  }();
  const sgemm::Rung* r = sgemm::find_rung(kernel_id);
  if (!r) return SGEMM_LADDER_ERR_UNKNOWN_KERNEL;
  if (!out) return SGEMM_LADDER_ERR_NULL_POINTER;
  *out = {r->id,     r->slug,   sgemm::track_name(r->track), r->builds_on, r->title, r->lesson,
          r->precision.fp32_accurate ? 1 : 0, r->source, r->arch, r->kernel, tiles.at(r->id).c_str(),
          r->capstone ? 1 : 0, int(r->takes)};
  return SGEMM_LADDER_OK;
}

SGEMM_LADDER_EXPORT int sgemm_ladder_set_tensor_cores(int on) {
  const int before = sgemm::rung30::tensor::enabled() ? 1 : 0;
  sgemm::rung30::tensor::set_enabled(on != 0);
  return before;
}

SGEMM_LADDER_EXPORT int sgemm_ladder_tensor_cores(void) { return sgemm::rung30::tensor::enabled() ? 1 : 0; }

SGEMM_LADDER_EXPORT int64_t sgemm_ladder_set_tensor_workspace(int64_t bytes) {
  const int64_t before = static_cast<int64_t>(sgemm::rung30::tensor::workspace_budget());
  if (bytes >= 0) sgemm::rung30::tensor::set_workspace_budget(static_cast<size_t>(bytes));
  return before;
}
