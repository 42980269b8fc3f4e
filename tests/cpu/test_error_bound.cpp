// The error-bound arithmetic behind "verified".
#include <cmath>

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
  const sgemm::Precision fp32{"fp32", std::ldexp(1.0, -24), 0.0, true};
  const Tolerance t1 = tolerance(fp32, 1, false), t2 = tolerance(fp32, 4096, false);
  EXPECT_DOUBLE_EQ(t1.f_ab, gamma_n(3, fp32.u_acc));
  EXPECT_DOUBLE_EQ(t2.f_ab, gamma_n(4098, fp32.u_acc));
  EXPECT_DOUBLE_EQ(t2.f_c, gamma_n(2, fp32.u_acc));
  EXPECT_LT(t1.f_ab, t2.f_ab);
}

TEST(ErrorBound, ExactTierHasZeroTolerance) {
  const sgemm::Precision fp32{"fp32", std::ldexp(1.0, -24), 0.0, true};
  const Tolerance t = tolerance(fp32, 4096, true);
  EXPECT_EQ(t.f_ab, 0.0);
  EXPECT_EQ(t.f_c, 0.0);
}

TEST(ErrorBound, ProductRoundingIsAdded) {
  const sgemm::Precision tf32{"tf32", std::ldexp(1.0, -23), std::ldexp(1.0, -10), false};
  EXPECT_DOUBLE_EQ(tolerance(tf32, 64, false).f_ab, gamma_n(66, tf32.u_acc) + std::ldexp(1.0, -10));
}

TEST(ErrorBound, EveryRegisteredPrecisionIsSane) {
  for (const sgemm::Rung& r : sgemm::registry()) {
    SCOPED_TRACE(r.slug);
    EXPECT_GT(r.precision.u_acc, 0.0);
    EXPECT_LE(r.precision.u_acc, std::ldexp(1.0, -10));
    EXPECT_GE(r.precision.e_prod, 0.0);
    if (r.precision.fp32_accurate) EXPECT_LE(r.precision.e_prod, std::ldexp(1.0, -20));
  }
}
