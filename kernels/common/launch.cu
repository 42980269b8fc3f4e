// The preconditions the rungs share (common/launch.hpp declares them): sizes within 32-bit index
// math, rows aligned for 128-bit accesses, a grid within CUDA's limits.
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

}  // namespace sgemm
