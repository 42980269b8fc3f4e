// The front door: argument validation (as BLAS does it), the degenerate cases, and run(), which
// every caller (C ABI, bench, tests) goes through (the preconditions rungs share: common/launch.cu). A call that
// is not plain (layouts, batch, bias) gets what its rung does not take in common/general.cu.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "common/general.hpp"
#include "common/common.cuh"
#include "common/launch.hpp"

namespace sgemm {

int64_t operand_bytes(int64_t rows, int64_t cols, int64_t ld) {
  if (rows <= 0 || cols <= 0) return 0;
  constexpr int64_t kMax = INT64_MAX / int64_t(sizeof(float));
  // Elements spanned: (rows - 1) * ld + cols.
  if (ld > 0 && rows - 1 > (kMax - cols) / ld) return -1;
  return ((rows - 1) * ld + cols) * int64_t(sizeof(float));
}

namespace {

// "lda=5 is smaller than max(1, M=8) for transa='T'": the flag is named only for a transposed operand,
// so a plain call's messages read as before.
std::string ld_message(const char* ld_name, int64_t ld, const char* dim_name, int64_t dim, const char* flag, bool trans) {
  return std::string(ld_name) + "=" + std::to_string(ld) + " is smaller than max(1, " + dim_name + "=" +
         std::to_string(dim) + ")" + (trans ? std::string(" for ") + flag + "='T'" : "");
}

// Bytes from the first product's first element to the last product's last: (batch - 1) strides
// and one operand of `span` bytes, or -1 when that overflows 64 bits. An empty operand spans nothing.
int64_t batch_bytes(int64_t span, int64_t stride, int64_t batch) {
  if (span <= 0 || batch <= 1 || stride == 0) return span;
  constexpr int64_t kFloat = int64_t(sizeof(float));
  if (batch - 1 > (INT64_MAX - span) / kFloat / stride) return -1;
  return (batch - 1) * stride * kFloat + span;
}

}  // namespace

Status validate(const GemmArgs& a, std::string* detail) {
  auto bad = [&](Status s, const std::string& msg) {
    if (detail) *detail = msg;
    return s;
  };
  if (a.M < 0) return bad(Status::kInvalidSize, "M=" + std::to_string(a.M) + " is negative");
  if (a.N < 0) return bad(Status::kInvalidSize, "N=" + std::to_string(a.N) + " is negative");
  if (a.K < 0) return bad(Status::kInvalidSize, "K=" + std::to_string(a.K) + " is negative");
  if (a.batch < 1) return bad(Status::kInvalidBatch, "batch=" + std::to_string(a.batch) + " is smaller than 1");
  // As the reference BLAS: leading dimensions are checked even when the product is empty. A is
  // stored K x M for transa, B N x K for transb.
  if (a.lda < std::max<int64_t>(1, a.colsA()))
    return bad(Status::kInvalidLd, ld_message("lda", a.lda, a.transa ? "M" : "K", a.colsA(), "transa", a.transa));
  if (a.ldb < std::max<int64_t>(1, a.colsB()))
    return bad(Status::kInvalidLd, ld_message("ldb", a.ldb, a.transb ? "K" : "N", a.colsB(), "transb", a.transb));
  if (a.ldc < std::max<int64_t>(1, a.N)) return bad(Status::kInvalidLd, ld_message("ldc", a.ldc, "N", a.N, "", false));
  // The strides of a batch (any value is ignored for one product): none negative, and C's products
  // apart by a whole product at least, so that no two write the same element.
  if (a.batch > 1) {
    for (auto [name, stride] : {std::pair{"strideA", a.strideA}, std::pair{"strideB", a.strideB},
                                std::pair{"strideC", a.strideC}})
      if (stride < 0)
        return bad(Status::kInvalidBatch, std::string(name) + "=" + std::to_string(stride) + " is negative (batch=" +
                                              std::to_string(a.batch) + ")");
    if (a.M > 0 && a.strideC / a.M < a.ldc)  // strideC < M * ldc, without forming M * ldc
      return bad(Status::kInvalidBatch, "strideC=" + std::to_string(a.strideC) + " is smaller than M*ldc (M=" +
                                            std::to_string(a.M) + ", ldc=" + std::to_string(a.ldc) +
                                            "): the products of the batch would write the same elements");
  }
  const std::string nA = a.transa ? "K" : "M", nB = a.transb ? "N" : "K";
  const int64_t bytesA = operand_bytes(a.rowsA(), a.colsA(), a.lda);
  if (bytesA < 0) return bad(Status::kSizeOverflow, "A (" + nA + " x lda) byte count overflows 64 bits");
  const int64_t bytesB = operand_bytes(a.rowsB(), a.colsB(), a.ldb);
  if (bytesB < 0) return bad(Status::kSizeOverflow, "B (" + nB + " x ldb) byte count overflows 64 bits");
  const int64_t bytesC = operand_bytes(a.M, a.N, a.ldc);
  if (bytesC < 0) return bad(Status::kSizeOverflow, "C (M x ldc) byte count overflows 64 bits");
  if (a.batch > 1) {
    auto span_message = [&](const char* op, const char* stride) {
      return std::string(op) + "'s batch span (batch-1 = " + std::to_string(a.batch - 1) + " times " + stride +
             ", plus one " + op + ") overflows 64 bits";
    };
    if (batch_bytes(bytesA, a.strideA, a.batch) < 0) return bad(Status::kSizeOverflow, span_message("A", "strideA"));
    if (batch_bytes(bytesB, a.strideB, a.batch) < 0) return bad(Status::kSizeOverflow, span_message("B", "strideB"));
    if (batch_bytes(bytesC, a.strideC, a.batch) < 0) return bad(Status::kSizeOverflow, span_message("C", "strideC"));
  }
  const bool writes_c = a.M > 0 && a.N > 0;
  const bool reads_ab = writes_c && a.K > 0 && a.alpha != 0.0f;
  if (writes_c && a.C == nullptr) return bad(Status::kNullPointer, "C is null");
  if (reads_ab && a.A == nullptr) return bad(Status::kNullPointer, "A is null");
  if (reads_ab && a.B == nullptr) return bad(Status::kNullPointer, "B is null");
  // Any 4-byte-aligned pointer is accepted (a float's own alignment); rungs that move four floats
  // at a time use 128-bit accesses only where the rows allow it. The bias may be null (none).
  struct Operand { const char* name; const void* ptr; };
  for (const Operand& op : {Operand{"A", a.A}, Operand{"B", a.B}, Operand{"C", a.C}, Operand{"bias", a.bias}})
    if (reinterpret_cast<uintptr_t>(op.ptr) % alignof(float) != 0)
      return bad(Status::kUnsupported, std::string(op.name) + " is not 4-byte aligned, as a float pointer must be");
  return Status::kOk;
}

namespace {

bool device_present() {
  static const bool present = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  }();
  return present;
}

}  // namespace

Status run(int kernel_id, const GemmArgs& a, cudaStream_t stream, std::string* detail) {
  const Rung* rung = find_rung(kernel_id);
  if (!rung) {
    if (detail) *detail = "unknown kernel id " + std::to_string(kernel_id) + " (sgemm_bench --list shows them)";
    return Status::kUnknownKernel;
  }
  if (Status s = validate(a, detail); s != Status::kOk) return s;
  if (a.M == 0 || a.N == 0) return Status::kOk;  // empty C: nothing to do, nothing launched
  std::string why;
  if (!can_run(*rung, a, &why)) {
    if (detail) *detail = std::string(rung->slug) + ": " + why;
    return Status::kUnsupported;
  }
  if (!device_present()) {
    if (detail) *detail = "no CUDA device is visible";
    return Status::kNoDevice;
  }
  Status s;
  if (a.K == 0 || a.alpha == 0.0f) {
    s = update_c(a, true, stream);  // C = beta * C (+ bias) of every product
  } else if (a.plain()) {
    s = packs(*rung, a) ? run_packed(*rung, a, stream, &why) : rung->launch(a, stream, &why);
  } else {
    s = run_general(*rung, a, stream, &why);  // the copies, launches and bias pass the rung needs
  }
  if (s != Status::kOk && detail && detail->empty())
    *detail = why.empty() ? status_string(s) : std::string(rung->slug) + ": " + why;
  return s;
}

}  // namespace sgemm
