// The dispatch rung (30, "auto") picks by shape with the model of kernels/dispatch/30_auto.cuh: the
// choice depends on measured constants, but a few are structural on any GPU: a GEMV for one row of
// a wide product, the capstone where its tiles fill the chip many times, and a candidate for every
// valid shape (correctness on every shape is the registry-wide tests' job).
#include <cstdint>
#include <string>

#include "common/dispatch.hpp"
#include "gpu_test_util.hpp"

namespace sgemm::test {

namespace {
// Arguments of a shape with dense rows; the pointers are 16-byte-aligned stand-ins: choosing runs
// no kernel.
GemmArgs shape(int64_t M, int64_t N, int64_t K) {
  float* p = reinterpret_cast<float*>(uintptr_t{256});
  return {M, N, K, 1.0f, p, K, p, N, 0.0f, p, N};
}
}  // namespace

TEST(Dispatch, PicksByShape) {
  const Rung* r = find_rung("auto");
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->choice, nullptr);
  EXPECT_EQ(std::string(r->choice(shape(1, 8192, 4096))), "gemv");
  EXPECT_EQ(std::string(r->choice(shape(8192, 8192, 8192))), "capstone");
  for (const GemmArgs& a : {shape(1, 1, 1), shape(65536, 64, 1024), shape(3001, 2999, 997), shape(64, 64, 65536)})
    EXPECT_FALSE(std::string(r->choice(a)).empty());
}

TEST(Dispatch, EveryPredictionIsFiniteWhereTheCandidateRuns) {
  const GemmArgs a = shape(2048, 50257, 768);
  for (int c = 0; c < rung30::candidate_count(); ++c) {
    const rung30::Terms t = rung30::model_terms(c, a);
    if (!t.runs) continue;
    EXPECT_GT(rung30::predict_ns(c, a), 0.0) << rung30::candidate_name(c);
    EXPECT_LT(rung30::predict_ns(c, a), 1e12) << rung30::candidate_name(c);
  }
}

}  // namespace sgemm::test
