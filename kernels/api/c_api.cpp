// The C ABI (sgemm_ladder.h): thin wrappers over sgemm::run and the registry. These are the only
// symbols the shared library exports.
#include <map>
#include <string>

#include "sgemm_ladder.h"
#include "sgemm_ladder.hpp"

#define SGEMM_LADDER_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
thread_local std::string g_last_error;
}

SGEMM_LADDER_EXPORT int sgemm_ladder_run(int kernel_id, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                         int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                                         void* stream) {
  sgemm::GemmArgs a{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  std::string detail;
  const sgemm::Status s = sgemm::run(kernel_id, a, static_cast<cudaStream_t>(stream), &detail);
  g_last_error = (s == sgemm::Status::kOk) ? std::string() : detail;
  return static_cast<int>(s);
}

SGEMM_LADDER_EXPORT const char* sgemm_ladder_status_string(int status) {
  if (status < SGEMM_LADDER_OK || status > SGEMM_LADDER_ERR_DEVICE_LIMIT) return "unknown status";
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
          r->capstone ? 1 : 0};
  return SGEMM_LADDER_OK;
}
