// The Ozaki scheme's plan on the host (kernels/common/ozaki.cuh): how many moduli and bits a K-deep
// product gets from the plan's error model or from a forced count, and the depths at which a count
// holds no bits at all. No GPU needed.
#include <climits>
#include <cstdint>

#include <gtest/gtest.h>

#include "common/ozaki.cuh"
#include "sgemm_ladder.hpp"

namespace {

namespace oz = sgemm::ozaki;

// The counts rung 25's page gives: 7 moduli for uniform inputs from K = 4096 to 16384 (beta 21, 20,
// 20), 8 with the two spread bits of normal inputs at 4096, and every modulus with the bits they
// hold where the need passes them.
TEST(OzakiPlan, TheCountsThePageGives) {
  EXPECT_EQ(oz::plan(4096).moduli, 7);
  EXPECT_EQ(oz::plan(4096).beta, 21);
  EXPECT_EQ(oz::plan(8192).moduli, 7);
  EXPECT_EQ(oz::plan(8192).beta, 20);
  EXPECT_EQ(oz::plan(16384).moduli, 7);
  EXPECT_EQ(oz::plan(16384).beta, 20);
  EXPECT_EQ(oz::plan(4096, 2).moduli, 8);
  const oz::Plan over = oz::plan(8192, 5);  // 25 bits asked, 8 moduli hold 24
  EXPECT_EQ(over.moduli, oz::kMaxModuli);
  EXPECT_EQ(over.beta, 24);
}

TEST(OzakiPlan, AForcedCountTakesEveryBitItHolds) {
  struct Reset {
    ~Reset() { sgemm::set_ozaki_moduli(0); }
  } reset;
  ASSERT_TRUE(sgemm::set_ozaki_moduli(5));
  EXPECT_EQ(oz::least_plan(8192).moduli, 5);
  EXPECT_EQ(oz::least_plan(8192).beta, 12);  // 2 * 8192 * 2^24 < 256*255*253*251*247 < ... * 2^26
  ASSERT_TRUE(sgemm::set_ozaki_moduli(0));
  EXPECT_EQ(oz::least_plan(8192).beta, oz::plan(8192).beta);
}

// Where twice K reaches the moduli's product, not even +-1 integers keep the sum from wrapping: no
// bits (-1), and a forced count that small is refused (ozaki::checked_scales).
TEST(OzakiPlan, NoBitsWhereTheSumCanWrap) {
  EXPECT_EQ(oz::max_beta(4, INT32_MAX), -1);          // 2^32 > 256*255*253*251 = 2^31.9
  EXPECT_EQ(oz::max_beta(4, int64_t(1) << 30), 0);    // 2^31 fits, 2^33 does not
  EXPECT_EQ(oz::max_beta(1, 200), -1);                // 400 > 256
  EXPECT_EQ(oz::max_beta(1, 1), 3);                   // 2 * 2^6 < 256 <= 2 * 2^8
  EXPECT_EQ(oz::max_beta(oz::kMaxModuli, 1), 30);     // the cap
}

}  // namespace
