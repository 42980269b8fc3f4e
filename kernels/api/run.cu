// The front door: argument validation (as BLAS does it), the preconditions rungs share, the
// degenerate cases, and run(), which every caller (C ABI, bench, tests) goes through.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "common/common.cuh"
#include "common/launch.hpp"

namespace sgemm {

namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

}  // namespace

bool fits_int32(const GemmArgs& a, std::string* why) {
  const int64_t big = std::max({a.M, a.N, a.K, a.lda, a.ldb, a.ldc});
  if (big > INT_MAX)
    return fail(why, "sizes and leading dimensions must be below 2^31 for this rung (largest is " +
                         std::to_string(big) + ")");
  return true;
}

bool vec4_ok(const GemmArgs& a, std::string* why) {
  struct Operand { const char* name; const void* ptr; int64_t ld; const char* ld_name; };
  const Operand ops[] = {{"A", a.A, a.lda, "lda"}, {"B", a.B, a.ldb, "ldb"}, {"C", a.C, a.ldc, "ldc"}};
  for (const Operand& op : ops) {
    if (op.ld % kVecWidth != 0)
      return fail(why, std::string(op.name) + ": " + op.ld_name + "=" + std::to_string(op.ld) +
                           " is not a multiple of 4, so its rows are not 16-byte aligned for "
                           "128-bit loads (pad the leading dimension)");
    if (reinterpret_cast<uintptr_t>(op.ptr) % 16 != 0)
      return fail(why, std::string(op.name) +
                           ": pointer is not 16-byte aligned, which 128-bit loads require");
  }
  return true;
}

bool rows_aligned(const void* p, int64_t ld) { return reinterpret_cast<uintptr_t>(p) % 16 == 0 && ld % kVecWidth == 0; }

bool grid_ok(int64_t blocks_x, int64_t blocks_y, std::string* why) {
  if (blocks_x > INT_MAX || blocks_y > 65535)
    return fail(why, "the grid (" + std::to_string(blocks_x) + " x " + std::to_string(blocks_y) +
                         " blocks) exceeds CUDA's limits (2^31-1 x 65535) for this rung");
  return true;
}

int64_t operand_bytes(int64_t rows, int64_t cols, int64_t ld) {
  if (rows <= 0 || cols <= 0) return 0;
  constexpr int64_t kMax = INT64_MAX / int64_t(sizeof(float));
  // Elements spanned: (rows - 1) * ld + cols.
  if (ld > 0 && rows - 1 > (kMax - cols) / ld) return -1;
  return ((rows - 1) * ld + cols) * int64_t(sizeof(float));
}

Status validate(const GemmArgs& a, std::string* detail) {
  auto bad = [&](Status s, const std::string& msg) {
    if (detail) *detail = msg;
    return s;
  };
  if (a.M < 0) return bad(Status::kInvalidSize, "M=" + std::to_string(a.M) + " is negative");
  if (a.N < 0) return bad(Status::kInvalidSize, "N=" + std::to_string(a.N) + " is negative");
  if (a.K < 0) return bad(Status::kInvalidSize, "K=" + std::to_string(a.K) + " is negative");
  // As the reference BLAS: leading dimensions are checked even when the product is empty.
  if (a.lda < std::max<int64_t>(1, a.K))
    return bad(Status::kInvalidLd, "lda=" + std::to_string(a.lda) + " is smaller than max(1, K=" +
                                       std::to_string(a.K) + ")");
  if (a.ldb < std::max<int64_t>(1, a.N))
    return bad(Status::kInvalidLd, "ldb=" + std::to_string(a.ldb) + " is smaller than max(1, N=" +
                                       std::to_string(a.N) + ")");
  if (a.ldc < std::max<int64_t>(1, a.N))
    return bad(Status::kInvalidLd, "ldc=" + std::to_string(a.ldc) + " is smaller than max(1, N=" +
                                       std::to_string(a.N) + ")");
  if (operand_bytes(a.M, a.K, a.lda) < 0)
    return bad(Status::kSizeOverflow, "A (M x lda) byte count overflows 64 bits");
  if (operand_bytes(a.K, a.N, a.ldb) < 0)
    return bad(Status::kSizeOverflow, "B (K x ldb) byte count overflows 64 bits");
  if (operand_bytes(a.M, a.N, a.ldc) < 0)
    return bad(Status::kSizeOverflow, "C (M x ldc) byte count overflows 64 bits");
  const bool writes_c = a.M > 0 && a.N > 0;
  const bool reads_ab = writes_c && a.K > 0 && a.alpha != 0.0f;
  if (writes_c && a.C == nullptr) return bad(Status::kNullPointer, "C is null");
  if (reads_ab && a.A == nullptr) return bad(Status::kNullPointer, "A is null");
  if (reads_ab && a.B == nullptr) return bad(Status::kNullPointer, "B is null");
  // Any 4-byte-aligned pointer is accepted (a float's own alignment); rungs that move four floats
  // at a time use 128-bit accesses only where the rows allow it.
  struct Operand { const char* name; const void* ptr; };
  for (const Operand& op : {Operand{"A", a.A}, Operand{"B", a.B}, Operand{"C", a.C}})
    if (reinterpret_cast<uintptr_t>(op.ptr) % alignof(float) != 0)
      return bad(Status::kUnsupported, std::string(op.name) + " is not 4-byte aligned, as a float pointer must be");
  return Status::kOk;
}

namespace {

constexpr int kScaleThreads = 256;

// C = beta * C for the degenerate cases (K = 0 or alpha = 0); beta = 0 writes zeros
// without reading C, as BLAS does.
__global__ void scale_c_kernel(int64_t M, int64_t N, float beta, float* C, int64_t ldc) {
  const int64_t total = M * N;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    float* c = C + (i / N) * ldc + i % N;
    *c = beta == 0.0f ? 0.0f : beta * *c;
  }
}

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
  if (!rung->supports(a, &why)) {
    if (detail) *detail = std::string(rung->slug) + ": " + why;
    return Status::kUnsupported;
  }
  if (!device_present()) {
    if (detail) *detail = "no CUDA device is visible";
    return Status::kNoDevice;
  }
  Status s;
  if (a.K == 0 || a.alpha == 0.0f) {
    const int64_t blocks = std::min<int64_t>(ceil_div64(a.M * a.N, kScaleThreads), 65535);
    scale_c_kernel<<<unsigned(blocks), kScaleThreads, 0, stream>>>(a.M, a.N, a.beta, a.C, a.ldc);
    s = launch_status();
  } else {
    s = packs(*rung, a) ? run_packed(*rung, a, stream, &why) : rung->launch(a, stream, &why);
  }
  if (s != Status::kOk && detail && detail->empty())
    *detail = why.empty() ? status_string(s) : std::string(rung->slug) + ": " + why;
  return s;
}

}  // namespace sgemm
