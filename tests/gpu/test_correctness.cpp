// Every registered rung x the shapes and alpha/beta pairs of DESIGN.md, both verification tiers.
#include <cmath>

#include "gpu_test_util.hpp"

namespace sgemm::test {

using harness::InputKind;
using harness::ProblemSpec;

class RungTest : public ::testing::TestWithParam<int> {};

namespace {

void check_all(int rung, const std::vector<harness::Shape>& shapes, InputKind kind) {
  for (const harness::Shape& shape : shapes)
    for (const auto& [alpha, beta] : alpha_betas()) {
      ProblemSpec spec;
      spec.shape = shape;
      spec.alpha = alpha;
      spec.beta = beta;
      spec.kind = kind;
      const harness::VerifyResult r = run_case(rung, spec);
      EXPECT_TRUE(r.ok) << describe(rung, spec) << ": " << r.summary();
    }
}

}  // namespace

TEST_P(RungTest, ExactOnSmallIntegers) { check_all(GetParam(), ragged_shapes(), InputKind::kSmallInt); }

TEST_P(RungTest, WithinBoundOnUniformInputs) { check_all(GetParam(), ragged_shapes(), InputKind::kUniform); }

TEST_P(RungTest, WithinBoundOnNormalInputsAtLargerShapes) {
  // 2117x4100x300: more than two waves of tiles for the largest tiles on an H200, ragged in M and
  // N (the stream-K rungs compute whole tiles first, then cut the rest into shares).
  check_all(GetParam(),
            {{1024, 1024, 1024}, {1000, 1030, 1100}, {2048, 512, 4100}, {520, 2056, 136}, {2117, 4100, 300}},
            InputKind::kNormal);
}

TEST_P(RungTest, LeadingDimensionsLargerThanTheRows) {
  std::vector<harness::Shape> padded;
  for (const harness::Shape& s : ragged_shapes()) padded.push_back(with_padded_ld(s));
  check_all(GetParam(), padded, InputKind::kSmallInt);
  check_all(GetParam(), padded, InputKind::kUniform);
}

TEST_P(RungTest, AnyLeadingDimension) {
  // Leading dimensions that are not multiples of 4: dense rows (as a contiguous tensor has) and
  // rows a few floats longer. Rows then start off 16-byte boundaries, and the rungs that move four
  // floats at a time take their 32-bit-access path.
  std::vector<harness::Shape> shapes;
  for (const harness::Shape& s : ragged_shapes()) {
    shapes.push_back({s.M, s.N, s.K, s.K, s.N, s.N});
    shapes.push_back({s.M, s.N, s.K, s.K + 1, s.N + 3, s.N + 1});
  }
  check_all(GetParam(), shapes, InputKind::kSmallInt);
  check_all(GetParam(), {{1023, 1023, 1023, 1023, 1023, 1023}, {2117, 4099, 301, 301, 4099, 4099}},
            InputKind::kNormal);
}

TEST_P(RungTest, BetaZeroNeverReadsC) {
  // reset_c fills C with NaN when beta == 0: any read of C would poison the result.
  for (const harness::Shape& shape : ragged_shapes()) {
    ProblemSpec spec;
    spec.shape = shape;
    spec.alpha = 1.0f;
    spec.beta = 0.0f;
    const harness::VerifyResult r = run_case(GetParam(), spec);
    EXPECT_TRUE(r.ok) << describe(GetParam(), spec) << ": " << r.summary();
  }
}

// The compute-sanitizer runs (tools/sanitize.sh) use only this test: small ragged shapes.
TEST_P(RungTest, SanitizerRagged) { check_all(GetParam(), sanitizer_shapes(), InputKind::kUniform); }

INSTANTIATE_TEST_SUITE_P(Registry, RungTest, ::testing::ValuesIn(rung_ids()), rung_name);

TEST(Reference, GpuMatchesCpu) {
  for (const harness::Shape shape : {harness::Shape{300, 200, 150}, harness::Shape{67, 129, 1000}}) {
    ProblemSpec spec;
    spec.shape = shape;
    spec.alpha = -1.5f;
    spec.beta = 0.5f;
    harness::Problem p(spec);
    const harness::Shape s = p.spec().shape;
    const auto A = p.host_a(), B = p.host_b(), C = p.host_c0();
    std::vector<double> ref, mag;
    harness::reference_cpu(s, spec.alpha, spec.beta, A.data(), B.data(), C.data(), &ref, &mag);
    const size_t n = size_t(s.M * s.N);
    double *d_ref = nullptr, *d_mag = nullptr;
    ASSERT_EQ(cudaMalloc(&d_ref, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_mag, n * sizeof(double)), cudaSuccess);
    harness::reference_gpu(s, spec.alpha, spec.beta, p.args(0).A, p.args(0).B, p.pristine_c(), d_ref, d_mag);
    std::vector<double> gref(n), gmag(n);
    cudaMemcpy(gref.data(), d_ref, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(gmag.data(), d_mag, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d_ref);
    cudaFree(d_mag);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(gref[i], ref[i], 1e-12 * (1 + mag[i])) << i;
      ASSERT_NEAR(gmag[i], mag[i], 1e-12 * (1 + mag[i])) << i;
    }
  }
}

TEST(Verifier, CatchesAWrongResult) {
  // The verifier itself must fail a result that is off by one ulp-scale error in one element,
  // a NaN, an unwritten element and a clobbered padding column.
  ProblemSpec spec;
  spec.shape = with_padded_ld({37, 41, 29});
  harness::Problem p(spec);
  ASSERT_TRUE(run_on(0, p).ok);
  const Precision& fp32 = find_rung(0)->precision;
  const GemmArgs a = p.args(0);
  auto poke = [&](int64_t off, float v) { cudaMemcpy(a.C + off, &v, sizeof v, cudaMemcpyHostToDevice); };
  float c;
  cudaMemcpy(&c, a.C + 5 * a.ldc + 7, sizeof c, cudaMemcpyDeviceToHost);
  poke(5 * a.ldc + 7, c + 1e-3f);
  harness::VerifyResult r = harness::verify(p, fp32);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failures, 1u);
  EXPECT_EQ(r.first_bad_row, 5);
  EXPECT_EQ(r.first_bad_col, 7);
  ASSERT_TRUE(run_on(0, p).ok);
  poke(3, std::nanf(""));
  EXPECT_FALSE(harness::verify(p, fp32).ok);
  ASSERT_TRUE(run_on(0, p).ok);
  poke(a.N + 1, 0.0f);  // a padding column of row 0
  r = harness::verify(p, fp32);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.padding_clobbered, 1u);
}

}  // namespace sgemm::test
