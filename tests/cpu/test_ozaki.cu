// The Ozaki rungs' number machinery on the host (kernels/common/ozaki.cuh): both rebuilds, Garner's
// digits (rungs 25-26) and the floating-point Chinese remainder theorem (rung 27 on), return the
// integer whose residues they are given, over the whole range [-P/2, P/2): the CRT correctly
// rounded to FP64, Garner within a few units in the last place. And rung 28's run-time reduction
// keeps every sum's residue in a byte. No GPU needed.
#define SGEMM_DEVICE_ONLY  // the helpers alone, not the launchers
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "common/ozaki.cuh"

namespace {

using sgemm::ozaki::modulus;

template <int N>
__int128 product() {
  __int128 p = 1;
  for (int l = 0; l < N; ++l) p *= modulus(l);
  return p;
}

// x's balanced residues, as the INT8 GEMMs would leave them.
template <int N>
void residues(__int128 x, int (&r)[N]) {
  for (int l = 0; l < N; ++l) r[l] = sgemm::ozaki::balance(int(x % modulus(l)), modulus(l));
}

template <int N>
void check_range() {
  const __int128 P = product<N>(), half = P / 2;
  std::mt19937_64 rng(20261124 + N);
  std::vector<__int128> xs = {0, 1, -1, half - 1, -half, half - 2, -half + 1, P / 4, -P / 4, 12345678901234567};
  for (int i = 0; i < 20000; ++i) {
    const unsigned __int128 u = (unsigned __int128)(rng()) << 64 | rng();
    xs.push_back(__int128(u % (unsigned __int128)P) - half);  // uniform over [-P/2, P/2)
  }
  for (int i = 0; i < 2000; ++i) xs.push_back(__int128(rng() % (1u << 30)) - (1 << 29));  // small sums too
  for (int i = 0; i < 2000; ++i) {  // within 2^-20 P of +-P/2, where the rounded quotient can be one off
    const __int128 d = __int128(rng() % (unsigned long long)(P >> 20));
    xs.push_back(half - 1 - d);
    xs.push_back(-half + d);
  }
  for (const __int128 x : xs) {
    int r[N];
    residues<N>(x, r);
    const double want = double(x);  // rounded to nearest
    const double crt = sgemm::ozaki::reconstruct_crt<N>(r), garner = sgemm::ozaki::reconstruct<N>(r);
    // Garner's Horner sum rounds at each step once x passes 2^53: a few units in the last place.
    EXPECT_LE(std::fabs(garner - want), std::ldexp(std::fabs(want), -50)) << "Garner, x = " << double(x);
    EXPECT_EQ(crt, want) << "CRT, x = " << double(x);
  }
}

TEST(OzakiRebuild, GarnerAndCrtReturnTheIntegerWithSevenModuli) { check_range<7>(); }
TEST(OzakiRebuild, GarnerAndCrtReturnTheIntegerWithEightModuli) { check_range<8>(); }

// The spread bits of rows like the inputs the moduli sweep measured (8192 long): none for uniform
// ones, two for normal ones and for u 2^e with e in [-4, 4], three at E = 20, where 8 moduli
// (24 bits at K = 8192, 20 + 3 needed) measured 1.9e-7 against cuBLAS's 6.9e-7.
int worst_spread(const std::function<float(std::mt19937_64&)>& draw) {
  std::mt19937_64 rng(20261126);
  int worst = 0;
  for (int row = 0; row < 256; ++row) {
    double mx = 0, sq = 0;
    int nnz = 0;
    for (int k = 0; k < 8192; ++k) {
      const double x = std::fabs(double(draw(rng)));
      mx = std::max(mx, x);
      sq += x * x;
      nnz += x != 0;
    }
    worst = std::max(worst, sgemm::ozaki::spread_bits(mx, nnz, sq));
  }
  return worst;
}

TEST(OzakiSpread, BitsFollowTheLargestMagnitudeOverTheRms) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::normal_distribution<float> n(0.0f, 1.0f);
  auto wide = [&](int E) {
    return [&u, E](std::mt19937_64& r) {
      return std::ldexp(u(r), int(r() % uint64_t(2 * E + 1)) - E);
    };
  };
  EXPECT_EQ(worst_spread([&](std::mt19937_64& r) { return u(r); }), 0);
  EXPECT_EQ(worst_spread([&](std::mt19937_64& r) { return n(r); }), 2);
  EXPECT_EQ(worst_spread(wide(4)), 2);
  EXPECT_EQ(worst_spread(wide(20)), 3);
  EXPECT_EQ(sgemm::ozaki::spread_bits(1.0, 1, 1.0), 0) << "a row of one entry";
  EXPECT_EQ(sgemm::ozaki::spread_bits(1e30, 1 << 20, 1e30 * 1e30), sgemm::ozaki::kMaxSpread + 1) << "wide";
}

// The pre-pass or-s every line's spread bit and a flag for a NaN or an Inf into one word: the spread
// is its largest bit, and neither fact hides the other.
TEST(Ozaki, SpreadWordKeepsTheLargestBitAndTheNonFiniteFlag) {
  using sgemm::ozaki::kNonFiniteFlag;
  using sgemm::ozaki::spread_of;
  EXPECT_EQ(spread_of(0), 0);
  EXPECT_EQ(spread_of(1 << 3), 3);
  EXPECT_EQ(spread_of(1 << 2 | 1 << 7 | 1 << 1), 7);
  EXPECT_EQ(spread_of(1 << (sgemm::ozaki::kMaxSpread + 1)), sgemm::ozaki::kMaxSpread + 1) << "wide";
  EXPECT_EQ(spread_of(kNonFiniteFlag | 1 << 5), 5) << "an Inf elsewhere does not hide a line's spread";
  EXPECT_EQ(spread_of(kNonFiniteFlag), 0);
}

// The split keeps every product and partial sum exact: the weights' high parts have few enough
// bits that 8 * 128 times any of them stays on the 2^kCrtSplit grid below 2^75.
TEST(OzakiRebuild, SplitWeightsAreExact) {
  using C = sgemm::ozaki::Crt<8>;
  for (int l = 0; l < 8; ++l) {
    const unsigned long long w = C::weight(l);
    EXPECT_EQ(w % unsigned(modulus(l)), 1u) << "W_l is 1 modulo m_l";
    for (int j = 0; j < 8; ++j)
      if (j != l) EXPECT_EQ(w % unsigned(modulus(j)), 0u) << "W_l is 0 modulo the other moduli";
    EXPECT_EQ((unsigned long long)C::high(w) + (unsigned long long)C::low(w), w);
    EXPECT_LT(C::low(w), std::ldexp(1.0, sgemm::ozaki::kCrtSplit));
  }
}

// Rung 28's run-time reduction: a residue of x in [-128, 127] for every modulus and |x| <= 2^30.
TEST(OzakiRebuild, RuntimeModulusKeepsTheResidueInAByte) {
  std::mt19937 rng(28);
  std::vector<int> xs = {0, 1, -1, 127, 128, -128, -129, 1 << 30, -(1 << 30), (1 << 30) - 1, -(1 << 30) + 1};
  for (int i = 0; i < 200000; ++i) xs.push_back(int(rng() % (2u << 30)) - (1 << 30));
  for (int i = -70000; i <= 70000; ++i) xs.push_back(i);
  for (int l = 0; l < sgemm::ozaki::kMaxModuli; ++l) {
    const int m = modulus(l);
    const sgemm::ozaki::RuntimeModulus rm(m);
    for (const int x : xs) {
      const int r = rm.reduce(x);
      ASSERT_GE(r, -128) << "x = " << x << ", m = " << m;
      ASSERT_LE(r, 127) << "x = " << x << ", m = " << m;
      ASSERT_EQ(((int64_t(x) - r) % m + m) % m, 0) << "x = " << x << ", m = " << m;
    }
  }
}

}  // namespace
