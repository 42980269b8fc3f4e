// The FP64 CPU reference against hand-computed products.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "harness/problem.hpp"

using namespace sgemm::harness;

TEST(Reference, TwoByTwoByHand) {
  // A = [1 2; 3 4], B = [5 6; 7 8] -> A*B = [19 22; 43 50]
  const std::vector<float> A = {1, 2, 3, 4}, B = {5, 6, 7, 8}, C = {1, 1, 1, 1};
  std::vector<double> ref, mag;
  reference_cpu({2, 2, 2, 2, 2, 2}, 1.0f, 0.0f, A.data(), B.data(), C.data(), &ref, &mag);
  EXPECT_EQ(ref, (std::vector<double>{19, 22, 43, 50}));
  EXPECT_EQ(mag, (std::vector<double>{19, 22, 43, 50}));
}

TEST(Reference, AlphaBetaAndMagnitude) {
  // A = [1 -2], B = [3; 4] -> A*B = -5, |A||B| = 11; C = 10
  const std::vector<float> A = {1, -2}, B = {3, 4}, C = {10};
  std::vector<double> ref, mag;
  reference_cpu({1, 1, 2, 2, 1, 1}, 0.5f, 3.0f, A.data(), B.data(), C.data(), &ref, &mag);
  EXPECT_DOUBLE_EQ(ref[0], 0.5 * -5 + 3.0 * 10);
  EXPECT_DOUBLE_EQ(mag[0], 11.0);
}

TEST(Reference, LeadingDimensionsSkipPadding) {
  // 2x2 A stored with lda = 3 (padding NaN), B 2x1 with ldb = 2, C 2x1 with ldc = 4.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> A = {1, 2, nan, 3, 4, nan}, B = {1, nan, 1, nan};
  const std::vector<float> C = {0, nan, nan, nan, 0, nan, nan, nan};
  std::vector<double> ref, mag;
  reference_cpu({2, 1, 2, 3, 2, 4}, 1.0f, 1.0f, A.data(), B.data(), C.data(), &ref, &mag);
  EXPECT_EQ(ref, (std::vector<double>{3, 7}));
}

TEST(Reference, BetaZeroIgnoresNaNInC) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> A = {2}, B = {3}, C = {nan};
  std::vector<double> ref, mag;
  reference_cpu({1, 1, 1, 1, 1, 1}, 1.0f, 0.0f, A.data(), B.data(), C.data(), &ref, &mag);
  EXPECT_EQ(ref[0], 6.0);
}

TEST(Reference, KZeroIsBetaC) {
  const std::vector<float> C = {2, 4};
  std::vector<double> ref, mag;
  reference_cpu({1, 2, 0, 1, 2, 2}, 1.0f, 0.5f, nullptr, nullptr, C.data(), &ref, &mag);
  EXPECT_EQ(ref, (std::vector<double>{1, 2}));
  EXPECT_EQ(mag, (std::vector<double>{0, 0}));
}

TEST(Reference, NonFiniteInputsPropagate) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> A = {inf, 1}, B = {0, 1}, C = {0};
  std::vector<double> ref, mag;
  reference_cpu({1, 1, 2, 2, 1, 1}, 1.0f, 0.0f, A.data(), B.data(), C.data(), &ref, &mag);
  EXPECT_TRUE(std::isnan(ref[0]));  // inf * 0 = NaN, as IEEE and cuBLAS have it
}

TEST(Reference, DefaultLeadingDimensionsAreDenseRows) {
  // As a caller's contiguous arrays have them: not rounded up to a multiple of 4.
  const Shape s = with_default_ld({5, 6, 7, 0, 0, 0});
  EXPECT_EQ(s.lda, 7);
  EXPECT_EQ(s.ldb, 6);
  EXPECT_EQ(s.ldc, 6);
  EXPECT_EQ(with_default_ld({5, 6, 7, 9, 0, 0}).lda, 9);  // an explicit ld is kept
  EXPECT_EQ(with_default_ld({5, 0, 0, 0, 0, 0}).ldb, 1);  // at least 1, as BLAS requires
}

TEST(Reference, RotationExceedsTwiceL2) {
  const int64_t l2 = 60ll << 20;
  const int sets = rotation_sets(1 << 20, l2, 100ll << 30);
  EXPECT_GE(int64_t(sets) * (1 << 20), 2 * l2);
  EXPECT_EQ(rotation_sets(1ll << 30, l2, 100ll << 30), 1);
  EXPECT_EQ(rotation_sets(1 << 20, l2, 4ll << 20), 2);  // capped by free memory
}

// The wide distribution's mapping from two uniforms in (0, 1] (the same function the device
// generator calls): every exponent of [-E, E] reached, about equally often, none outside, and
// values bounded by 2^E.
TEST(WideInputs, ExponentsCoverTheRangeAndValuesStayWithinIt) {
  for (int E : {0, 1, 20, 60, kMaxWideExponent}) {
    SCOPED_TRACE(E);
    EXPECT_EQ(wide_exponent_of(1.0f, E), E) << "cuRAND's uniforms include 1";
    EXPECT_EQ(wide_exponent_of(std::ldexp(1.0f, -32), E), -E) << "and start just above 0";
    std::vector<int> hits(size_t(2 * E + 1), 0);
    constexpr int kSteps = 1 << 16;
    for (int i = 1; i <= kSteps; ++i) {
      const float v = float(i) / kSteps;
      const int e = wide_exponent_of(v, E);
      ASSERT_GE(e, -E) << v;
      ASSERT_LE(e, E) << v;
      ++hits[size_t(e + E)];
      const float u = float(kSteps + 1 - i) / kSteps;  // another value of u for each v
      const float x = wide_value(u, v, E);
      ASSERT_TRUE(std::isfinite(x)) << u << " " << v;
      EXPECT_LE(std::fabs(x), std::ldexp(1.0f, E)) << u << " " << v;
      EXPECT_EQ(x, std::ldexp(2.0f * u - 1.0f, e)) << "exact scaling of 2u - 1 by 2^e";
    }
    const double even = double(kSteps) / (2 * E + 1);
    for (size_t k = 0; k < hits.size(); ++k) EXPECT_NEAR(hits[k], even, 0.01 * even + 2) << "exponent " << int(k) - E;
  }
}

TEST(WideInputs, LabelNamesTheExponentRange) {
  EXPECT_EQ(input_label(InputKind::kWide, 20), "wide20");
  EXPECT_EQ(input_label(InputKind::kWide, 0), "wide0");
  EXPECT_EQ(input_label(InputKind::kNormal, 20), "normal") << "only the wide distribution has a range";
  EXPECT_STREQ(input_kind_name(InputKind::kWide), "wide");
}

// With entries far apart in magnitude the FP64 reference keeps every product exact (the product
// of two FP32 values has at most 48 significant bits and an exponent within FP64's range), both
// beyond FP32's range and below it: a kernel whose FP32 product overflowed to Inf, or
// underflowed to 0, cannot match it.
TEST(Reference, WideMagnitudesStayExact) {
  const float big = std::ldexp(1.0f, 100), tiny = std::ldexp(1.0f, -100), up = 1.0f + std::ldexp(1.0f, -23),
              down = 1.0f - std::ldexp(1.0f, -23);
  // A is 2x1 = [2^100 up; 2^-100], B is 1x2 = [2^100 down, -2^-100].
  const std::vector<float> A = {big * up, tiny}, B = {big * down, -tiny}, C = {0, 0, 0, 0};
  std::vector<double> ref, mag;
  reference_cpu({2, 2, 1, 1, 2, 2}, 1.0f, 0.0f, A.data(), B.data(), C.data(), &ref, &mag);
  EXPECT_EQ(ref[0], (1.0 - std::ldexp(1.0, -46)) * std::ldexp(1.0, 200));
  EXPECT_GT(ref[0], double(std::numeric_limits<float>::max())) << "finite, and no FP32 value is near it";
  EXPECT_EQ(ref[1], -double(up));
  EXPECT_EQ(ref[2], double(down));
  EXPECT_EQ(ref[3], -std::ldexp(1.0, -200)) << "below FP32's smallest subnormal, still exact";
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(mag[i], std::fabs(ref[i])) << i;
}

TEST(Reference, LayoutsBatchesAndBias) {
  // Two products of op(A) op(B) + bias with A stored transposed (K x M) and B shared (stride 0):
  // the same as the NN reference on the transposed copies, product by product, plus the bias.
  const int64_t M = 3, N = 2, K = 4, batch = 2;
  Shape s{M, N, K};
  s.transa = true;
  s.batch = batch;
  s.strideB = 0;
  s.bias = true;
  s = with_default_ld(s);
  EXPECT_EQ(s.lda, M) << "A stored K x M: rows M long";
  EXPECT_EQ(s.strideA, K * M);
  EXPECT_EQ(s.strideC, M * N);
  EXPECT_EQ(batch_rows(K, s.lda, s.strideA, batch), 2 * K);
  EXPECT_EQ(batch_rows(K, s.ldb, 0, batch), K) << "a shared operand spans one";
  std::vector<float> A(size_t(batch * K * M)), B(size_t(K * N)), C(size_t(batch * M * N)), bias = {0.5f, -2.0f};
  for (size_t i = 0; i < A.size(); ++i) A[i] = float(int(i % 7) - 3);
  for (size_t i = 0; i < B.size(); ++i) B[i] = float(int(i % 5) - 2);
  for (size_t i = 0; i < C.size(); ++i) C[i] = float(i);
  std::vector<double> ref, mag;
  reference_cpu(s, 2.0f, 0.5f, A.data(), B.data(), C.data(), bias.data(), &ref, &mag);
  ASSERT_EQ(ref.size(), size_t(batch * M * N));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<float> At(size_t(M * K));  // op(A) of product b, row-major M x K
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) At[size_t(m * K + k)] = A[size_t(b * K * M + k * M + m)];
    std::vector<double> one, oneMag;
    reference_cpu({M, N, K, K, N, N}, 2.0f, 0.5f, At.data(), B.data(), C.data() + b * M * N, &one, &oneMag);
    for (int64_t i = 0; i < M * N; ++i) {
      EXPECT_EQ(ref[size_t(b * M * N + i)], one[size_t(i)] + bias[size_t(i % N)]) << b << " " << i;
      EXPECT_EQ(mag[size_t(b * M * N + i)], oneMag[size_t(i)]);
    }
  }
  // op(B) = B^T likewise: B stored N x K.
  Shape t{M, N, K};
  t.transb = true;
  t = with_default_ld(t);
  EXPECT_EQ(t.ldb, K);
  std::vector<float> A1(size_t(M * K)), Bt(size_t(N * K)), B1(size_t(K * N));
  for (size_t i = 0; i < A1.size(); ++i) A1[i] = float(int(i % 3) - 1);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) Bt[size_t(n * K + k)] = B1[size_t(k * N + n)] = float(n * 10 + k);
  std::vector<double> r1, m1, r2, m2;
  reference_cpu(t, 1.0f, 0.0f, A1.data(), Bt.data(), C.data(), &r1, &m1);
  reference_cpu({M, N, K, K, N, N}, 1.0f, 0.0f, A1.data(), B1.data(), C.data(), &r2, &m2);
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(layout_name(t), "nt");
  EXPECT_EQ(t.str(), "3x2x4 layout=nt");
}
