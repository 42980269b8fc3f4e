// Rung 16's cut (kernels/common/cut_plan.hpp) on shapes sized to this GPU's slots so that its
// model picks the cut: the registry-wide tests reach the cut only where a shape happens to leave a
// last wave the model cuts, so these make sure every part of it runs: whole rows above, first
// parts, ends into the workspace and the add, with ragged M and N, a K tail, 32-bit accesses and
// every alpha/beta pair, verified against the FP64 reference.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "common/cut_plan.hpp"
#include "gpu_test_util.hpp"

namespace sgemm::rung16 {
Status plan_of(const GemmArgs& a, cut::Plan* p, std::string* why);
stream_k::Model model();
}  // namespace sgemm::rung16

namespace sgemm::test {

namespace {

// The plan rung 16 makes for a shape with dense rows (16-byte-aligned stand-in pointers: planning
// runs no kernel).
cut::Plan plan_for(const harness::Shape& s) {
  float* p = reinterpret_cast<float*>(uintptr_t{256});
  const GemmArgs a{s.M, s.N, s.K, 1.0f, p, s.K, p, s.N, 0.0f, p, s.N};
  cut::Plan plan;
  std::string why;
  EXPECT_EQ(rung16::plan_of(a, &plan, &why), Status::kOk) << why;
  return plan;
}

int sms() {
  int device = 0, n = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device);
  return n;
}

// Shapes whose tiles make 1.5 to 1.9 waves on this GPU (two blocks per SM, as the rung's launch
// bounds ask), `cols` tiles wide, cut by the model. `small`: fewer rows of K, for the sanitizer.
std::vector<harness::Shape> cut_shapes(bool small) {
  const stream_k::Model m = rung16::model();
  const int64_t slots = 2 * int64_t(sms());
  std::vector<harness::Shape> shapes;
  if (small) {
    shapes.push_back({(slots * 3 / 2) * m.BM - 5, m.BN - 56, 29 * m.BK + 7});  // one tile column
  } else {
    shapes.push_back({(slots * 19 / 40) * m.BM - 3, 4 * m.BN - 9, 125 * m.BK + 1});  // 1.9 waves, K tail
    shapes.push_back({(slots * 9 / 25) * m.BM + 1, 4 * m.BN + 3, 128 * m.BK});  // ragged N: 32-bit path
  }
  return shapes;
}

void check_cut(const std::vector<harness::Shape>& shapes, const std::vector<std::pair<float, float>>& scalings) {
  int prop = 0, device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&prop, cudaDevAttrComputeCapabilityMajor, device);
  if (prop < 9) GTEST_SKIP() << "no programmatic dependent launch before sm_90: the model never cuts here";
  for (const harness::Shape& s : shapes) {
    SCOPED_TRACE(s.str());
    const cut::Plan plan = plan_for(s);
    ASSERT_TRUE(plan.cut()) << "the model did not pick the cut: this test would not test it";
    ASSERT_GE(plan.wholeRows, 0);
    for (const auto& [alpha, beta] : scalings) {
      harness::ProblemSpec spec;
      spec.shape = s;
      spec.alpha = alpha;
      spec.beta = beta;
      spec.kind = harness::InputKind::kUniform;
      const harness::VerifyResult r = run_case(16, spec);
      EXPECT_TRUE(r.ok) << describe(16, spec) << ": " << r.summary();
    }
  }
}

}  // namespace

TEST(LastWaveCut, VerifiedWhereTheModelCuts) { check_cut(cut_shapes(false), alpha_betas()); }

// tools/sanitize.sh runs *SanitizerRagged*: a smaller cut shape under compute-sanitizer, with one
// alpha / beta pair (beta reads C; the parts, the workspace and the add are the same for every
// pair), so that racecheck finishes in minutes rather than tens of them.
TEST(LastWaveCut, SanitizerRaggedCutShape) { check_cut(cut_shapes(true), {{0.5f, 3.f}}); }

}  // namespace sgemm::test
