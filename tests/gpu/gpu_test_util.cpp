#include "gpu_test_util.hpp"

#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"

namespace sgemm::test {

using harness::Shape;

std::vector<Shape> ragged_shapes() {
  return {
      {1, 1, 1},       {2, 3, 4},       {7, 5, 3},        {31, 33, 17},     {63, 65, 9},
      {127, 129, 65},  {128, 128, 128}, {129, 127, 257},  {255, 257, 31},   {257, 255, 300},
      {97, 89, 83},    {251, 241, 239}, {1, 300, 5},      {300, 1, 5},      {1, 1, 4099},
      {64, 1000, 3},   {1000, 64, 300}, {513, 515, 1031}, {130, 258, 8},    {3, 517, 129},
  };
}

std::vector<Shape> sanitizer_shapes() {
  // {67, 45, 33} with dense rows: leading dimensions that are not multiples of 4 (32-bit-access
  // paths). The last two are cut into stream-K shares with fix-ups on a GPU with 16 or more
  // resident blocks (8 tiles of 8-9 slabs): one with a K tail and ragged edges, one whose tiles
  // need no checks. Small, because racecheck's cost grows with every shared-memory access.
  return {{1, 1, 1},    {127, 129, 65},  {129, 127, 257},          {257, 255, 31},
          {33, 300, 7}, {200, 300, 264}, {256, 512, 256},          {67, 45, 33, 33, 45, 45}};
}

std::vector<std::pair<float, float>> alpha_betas() { return {{1.f, 0.f}, {0.5f, 3.f}, {0.f, 1.f}, {-1.5f, 0.f}}; }

Shape with_padded_ld(Shape s) {
  // Rounded up to a multiple of 4, then 8 more: rows start on 16-byte boundaries, so the rungs
  // that move four floats at a time take their 128-bit path on these ragged shapes.
  auto padded = [](int64_t row) { return (row + 3) / 4 * 4 + 8; };
  return {s.M, s.N, s.K, padded(s.K), padded(s.N), padded(s.N)};
}

harness::VerifyResult run_on(int rung, harness::Problem& p) {
  p.reset_c(0);
  std::string detail;
  const Status s = run(rung, p.args(0), nullptr, &detail);
  if (s != Status::kOk) {
    harness::VerifyResult r;
    r.ok = false;
    r.first_bad_row = -1;
    ADD_FAILURE() << "sgemm::run returned " << status_string(s) << ": " << detail;
    return r;
  }
  SGEMM_CUDA(cudaDeviceSynchronize());
  return harness::verify(p, find_rung(rung)->precision);
}

harness::VerifyResult run_case(int rung, const harness::ProblemSpec& spec) {
  harness::Problem p(spec);
  return run_on(rung, p);
}

std::string describe(int rung, const harness::ProblemSpec& spec) {
  const Shape s = harness::with_default_ld(spec.shape);
  return std::string(find_rung(rung)->slug) + " " + s.str() + " lda=" + std::to_string(s.lda) +
         " ldb=" + std::to_string(s.ldb) + " ldc=" + std::to_string(s.ldc) + " alpha=" +
         std::to_string(spec.alpha) + " beta=" + std::to_string(spec.beta) + " input=" +
         harness::input_kind_name(spec.kind);
}

std::vector<int> rung_ids() {
  std::vector<int> ids;
  for (const Rung& r : registry()) ids.push_back(r.id);
  return ids;
}

std::string rung_name(const ::testing::TestParamInfo<int>& info) { return find_rung(info.param)->slug; }

bool enough_memory(size_t bytes) {
  size_t free_b = 0, total_b = 0;
  SGEMM_CUDA(cudaMemGetInfo(&free_b, &total_b));
  return free_b >= bytes;
}

}  // namespace sgemm::test
