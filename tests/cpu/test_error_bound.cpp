// The error-bound arithmetic behind "verified".
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "harness/verify.hpp"
#include "sgemm_ladder.hpp"

using namespace sgemm::harness;

TEST(ErrorBound, GammaMatchesDefinition) {
  const double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(gamma_n(1, u), u / (1 - u));
  EXPECT_DOUBLE_EQ(gamma_n(4098, u), 4098 * u / (1 - 4098 * u));
  EXPECT_GT(gamma_n(10, u), 10 * u);  // gamma_n is slightly above n*u
}

TEST(ErrorBound, ToleranceGrowsWithK) {
  const sgemm::Precision fp32{"fp32", std::ldexp(1.0, -24), 0.0, true, true};
  const Tolerance t1 = tolerance(fp32, 1, false), t2 = tolerance(fp32, 4096, false);
  EXPECT_DOUBLE_EQ(t1.f_ab, gamma_n(3, fp32.u_acc));
  EXPECT_DOUBLE_EQ(t2.f_ab, gamma_n(4098, fp32.u_acc));
  EXPECT_DOUBLE_EQ(t2.f_c, gamma_n(2, fp32.u_acc));
  EXPECT_LT(t1.f_ab, t2.f_ab);
}

// Gradual underflow: a subnormal result is off by up to FP32's subnormal spacing whatever its
// magnitude, so the bound tier allows that much per rounding; the exact tier allows nothing.
TEST(ErrorBound, UnderflowAllowanceIsOneSubnormalStepPerRounding) {
  const sgemm::Precision fp32{"fp32", std::ldexp(1.0, -24), 0.0, true, true};
  EXPECT_EQ(kFp32SubnormalStep, std::ldexp(1.0, -149));
  EXPECT_EQ(double(std::numeric_limits<float>::denorm_min()), kFp32SubnormalStep);
  EXPECT_EQ(tolerance(fp32, 4096, false).f_under, kFp32SubnormalStep);
  EXPECT_EQ(tolerance(fp32, 4096, true).f_under, 0.0);
}

TEST(ErrorBound, ExactTierHasZeroTolerance) {
  const sgemm::Precision fp32{"fp32", std::ldexp(1.0, -24), 0.0, true, true};
  const Tolerance t = tolerance(fp32, 4096, true);
  EXPECT_EQ(t.f_ab, 0.0);
  EXPECT_EQ(t.f_c, 0.0);
}

TEST(ErrorBound, ProductRoundingIsAdded) {
  const sgemm::Precision tf32{"tf32", std::ldexp(1.0, -23), std::ldexp(1.0, -10), false, true};
  EXPECT_DOUBLE_EQ(tolerance(tf32, 64, false).f_ab, gamma_n(66, tf32.u_acc) + std::ldexp(1.0, -10));
}

TEST(ErrorBound, EveryRegisteredPrecisionIsSane) {
  for (const sgemm::Rung& r : sgemm::registry()) {
    SCOPED_TRACE(r.slug);
    EXPECT_GT(r.precision.u_acc, 0.0);
    EXPECT_LE(r.precision.u_acc, std::ldexp(1.0, -10));
    EXPECT_GE(r.precision.e_prod, 0.0);
    if (r.precision.fp32_accurate) EXPECT_LE(r.precision.e_prod, std::ldexp(1.0, -20));
    // A rung that is not FP32-accurate says so in its title, which the CLI and tables print.
    if (!r.precision.fp32_accurate) EXPECT_NE(std::string(r.title).find("NOT FP32-accurate"), std::string::npos);
  }
}

TEST(ErrorBound, ExactTierOnlyWhereFp32IsExact) {
  ProblemSpec spec;
  spec.kind = InputKind::kSmallInt;
  spec.shape = {61, 72, 4099};
  for (const auto& [alpha, beta] : std::vector<std::pair<float, float>>{{1, 0}, {0.5f, 3}, {0, 1}, {-1.5f, 0}}) {
    spec.alpha = alpha, spec.beta = beta;
    EXPECT_TRUE(exact_tier(spec)) << alpha << "," << beta;
  }
  spec.alpha = 1.35674524f;  // not a multiple of 1/16: alpha * A * B rounds (the soak found this)
  EXPECT_FALSE(exact_tier(spec));
  spec.alpha = 1.0f, spec.beta = -1.96081781f;
  EXPECT_FALSE(exact_tier(spec));
  spec.beta = 0.0f, spec.alpha = 32.0f;  // too large: sums may pass 2^24
  EXPECT_FALSE(exact_tier(spec));
  spec.alpha = 1.0f, spec.shape.K = 16384;
  EXPECT_FALSE(exact_tier(spec));
  spec.shape.K = 64, spec.kind = InputKind::kUniform;
  EXPECT_FALSE(exact_tier(spec));
}

TEST(ErrorBound, ABiasIsOneMoreRounding) {
  const sgemm::Precision fp32{"fp32", std::ldexp(1.0, -24), 0.0, true, true};
  const Tolerance plain = tolerance(fp32, 100, false), bias = tolerance(fp32, 100, false, true);
  EXPECT_EQ(plain.f_bias, 0.0);
  EXPECT_DOUBLE_EQ(bias.f_ab, gamma_n(103, fp32.u_acc));
  EXPECT_DOUBLE_EQ(bias.f_c, gamma_n(3, fp32.u_acc));
  EXPECT_DOUBLE_EQ(bias.f_bias, gamma_n(2, fp32.u_acc));
  EXPECT_EQ(tolerance(fp32, 100, true, true).f_bias, 0.0) << "the exact tier stays exact";
}
