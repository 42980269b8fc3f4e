// Every registered rung x the shapes and alpha/beta pairs of DESIGN.md, both verification tiers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "harness/cuda_check.hpp"

namespace sgemm::test {

using harness::InputKind;
using harness::ProblemSpec;

class RungTest : public ::testing::TestWithParam<int> {};

namespace {

// Every shape with every alpha/beta pair, on inputs of `kind`.
std::vector<ProblemSpec> cases(const std::vector<harness::Shape>& shapes, InputKind kind, int wide_exponent = 20) {
  std::vector<ProblemSpec> specs;
  for (const harness::Shape& shape : shapes)
    for (const auto& [alpha, beta] : alpha_betas()) {
      ProblemSpec spec;
      spec.shape = shape;
      spec.alpha = alpha;
      spec.beta = beta;
      spec.kind = kind;
      spec.wide_exponent = wide_exponent;
      specs.push_back(spec);
    }
  return specs;
}

void check_all(int rung, const std::vector<harness::Shape>& shapes, InputKind kind) {
  for (const ProblemSpec& spec : cases(shapes, kind)) {
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

// Entries u * 2^e with e in [-20, 20] (the wide exponent range): an FP32-accurate rung
// meets the FP32 bound there or refuses the inputs with a status and a reason; what it must never
// do is return OK with a result outside the bound. Rungs that are not FP32-accurate promise
// nothing here beyond their own bound.
TEST_P(RungTest, WideExponentRangeWithinBoundOrRefused) {
  const Rung& rung = *find_rung(GetParam());
  if (!rung.precision.fp32_accurate) GTEST_SKIP() << rung.slug << " is not FP32-accurate";
  const std::vector<harness::Shape> shapes = {{1, 1, 1},       {7, 5, 3},     {127, 129, 65}, {129, 127, 257},
                                              {257, 255, 300}, {1, 1, 4099},  {3, 517, 129},  {1000, 1030, 1100}};
  for (const ProblemSpec& spec : cases(shapes, InputKind::kWide, 20)) {
    harness::Problem p(spec);
    p.reset_c(0);
    std::string detail;
    const Status s = run(rung.id, p.args(0), nullptr, &detail);
    if (s != Status::kOk) {
      // A refusal, not a failure: it must say so, and a CUDA error is neither.
      EXPECT_NE(s, Status::kCuda) << describe(rung.id, spec) << ": " << detail;
      EXPECT_FALSE(detail.empty()) << describe(rung.id, spec) << ": " << status_string(s) << " without a reason";
      continue;
    }
    SGEMM_CUDA(cudaDeviceSynchronize());
    const harness::VerifyResult r = harness::verify(p, rung.precision);
    EXPECT_TRUE(r.ok) << describe(rung.id, spec) << " wide_exponent=20: " << r.summary();
  }
}

namespace {

// The packing policy for one scope, restored after it.
struct PackingScope {
  Packing saved = packing();
  explicit PackingScope(Packing p) { set_packing(p); }
  ~PackingScope() { set_packing(saved); }
};

// The shapes with leading dimensions that are not multiples of 4, run with the front door's
// packing forced on (for the rungs that allow it): the copies, the rung on them, C copied back.
void check_packed(int rung_id, const std::vector<harness::Shape>& shapes, InputKind kind) {
  const Rung& rung = *find_rung(rung_id);
  if (!rung.packs_unaligned) return;
  const PackingScope always(Packing::kAlways);
  std::vector<harness::Shape> unaligned;
  for (const harness::Shape& s : shapes) unaligned.push_back({s.M, s.N, s.K, s.K + 1, s.N + 3, s.N + 1});
  for (const ProblemSpec& spec : cases(unaligned, kind)) {
    harness::Problem p(spec);
    EXPECT_EQ(packs(rung, p.args(0)), spec.alpha != 0.0f) << describe(rung_id, spec);  // alpha = 0: C = beta C
    const harness::VerifyResult r = run_case(rung_id, spec);
    EXPECT_TRUE(r.ok) << describe(rung_id, spec) << " packed: " << r.summary();
  }
}

}  // namespace

TEST_P(RungTest, PackedUnalignedOperands) {
  if (!find_rung(GetParam())->packs_unaligned) GTEST_SKIP() << "the rung does not pack unaligned operands";
  check_packed(GetParam(), ragged_shapes(), InputKind::kSmallInt);
  check_packed(GetParam(), {{1023, 1023, 1023}, {2117, 4099, 301}}, InputKind::kNormal);
}

// The compute-sanitizer runs (tools/sanitize.sh) use only this test: small ragged shapes, and for
// the rungs that pack, the same shapes unaligned and packed.
TEST_P(RungTest, SanitizerRagged) {
  check_all(GetParam(), sanitizer_shapes(), InputKind::kUniform);
  check_packed(GetParam(), sanitizer_shapes(), InputKind::kUniform);
}

// The policy: aligned operands are never packed; unaligned ones always under kAlways, never under
// kNever, and under kAuto not for a product too small to repay the copies.
TEST(Packing, FollowsThePolicy) {
  const Rung& rung = *find_rung(15);
  ASSERT_TRUE(rung.packs_unaligned);
  ASSERT_FALSE(find_rung(0)->packs_unaligned) << "cuBLAS, the yardstick, is never packed";
  alignas(16) static float buffer[16];
  GemmArgs aligned{64, 64, 64, 1.0f, buffer, 64, buffer, 64, 0.0f, buffer, 64};
  GemmArgs unaligned = aligned;
  unaligned.lda = 65;
  for (Packing policy : {Packing::kAuto, Packing::kAlways, Packing::kNever}) {
    const PackingScope scope(policy);
    EXPECT_FALSE(packs(rung, aligned)) << int(policy);
    EXPECT_EQ(packs(rung, unaligned), policy == Packing::kAlways) << int(policy);
  }
  GemmArgs offset = aligned;
  offset.B = buffer + 1;  // 4-byte aligned only
  const PackingScope always(Packing::kAlways);
  EXPECT_TRUE(packs(rung, offset));
  EXPECT_FALSE(packs(*find_rung(25), offset)) << "rung 25 converts its operands anyway";
}

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

// An FP32 product that overflows must fail verification even where the exact result is small:
// the FP64 reference stays finite, the kernel's Inf - Inf is NaN, and the bound (which scales
// with |A||B|, here about 2^201) would pass any finite value.
TEST(Verifier, FailsAProductThatOverflowsFp32) {
  ProblemSpec spec;
  spec.shape = with_padded_ld({37, 41, 29});
  harness::Problem p(spec);
  const float big = std::ldexp(1.0f, 100);
  p.set_element('A', 0, 0, big);
  p.set_element('A', 0, 1, -big);
  p.set_element('B', 0, 0, big);
  p.set_element('B', 1, 0, big);
  const harness::VerifyResult r = run_on(0, p);  // cuBLAS, pure FP32
  EXPECT_FALSE(r.ok) << r.summary();
  EXPECT_EQ(r.failures, 1u) << r.summary();
  EXPECT_EQ(r.first_bad_row, 0);
  EXPECT_EQ(r.first_bad_col, 0);
  EXPECT_TRUE(std::isfinite(r.first_bad_ref)) << "the FP64 reference of 2^200 - 2^200 + ... is finite";
  EXPECT_TRUE(std::isinf(r.rel_err)) << "an overflowed element makes the norm-wise error infinite, not small";
}

// A product in FP32's subnormal range, correctly rounded, is off by a fraction of 2^-149: far
// more than the relative terms of the bound allow for so small a magnitude, and still right.
TEST(Verifier, AllowsGradualUnderflow) {
  ProblemSpec spec;
  spec.shape = {1, 1, 1};
  harness::Problem p(spec);
  const float a = 1.5f * std::ldexp(1.0f, -75);  // a * a = 1.125 * 2^-149: rounds to 2^-149
  p.set_element('A', 0, 0, a);
  p.set_element('B', 0, 0, a);
  const harness::VerifyResult r = run_on(1, p);  // the naive rung: one FFMA
  EXPECT_TRUE(r.ok) << r.summary();
  EXPECT_GT(r.max_abs_err, 0.0) << "the product did round";
}

// The wide distribution: finite entries within [-2^E, 2^E] whose magnitudes span the range, NaN
// in the padding, and the same inputs for the same seed.
TEST(Inputs, WideSpansItsExponentRange) {
  for (int E : {0, 20, 60}) {
    SCOPED_TRACE(E);
    ProblemSpec spec;
    spec.shape = with_padded_ld({200, 300, 100});
    spec.kind = InputKind::kWide;
    spec.wide_exponent = E;
    harness::Problem p(spec);
    const harness::Shape s = p.spec().shape;
    const std::vector<float> a = p.host_a();
    double lo = INFINITY, hi = 0;
    for (int64_t row = 0; row < s.M; ++row)
      for (int64_t col = 0; col < s.lda; ++col) {
        const float x = a[size_t(row * s.lda + col)];
        if (col >= s.K) {
          ASSERT_TRUE(std::isnan(x)) << "padding " << row << "," << col;
          continue;
        }
        ASSERT_TRUE(std::isfinite(x)) << row << "," << col;
        ASSERT_LE(std::fabs(x), std::ldexp(1.0, E)) << row << "," << col;
        if (x != 0) lo = std::min(lo, double(std::fabs(x))), hi = std::max(hi, double(std::fabs(x)));
      }
    // 20,000 entries: the exponents -E and E each come up, so the magnitudes reach both ends.
    EXPECT_GT(hi, std::ldexp(1.0, E - 1));
    EXPECT_LT(lo, std::ldexp(1.0, -E + 1));
    // Compared bit for bit: the padding's NaN never equals itself.
    auto same_bits = [](const std::vector<float>& x, const std::vector<float>& y) {
      return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
    };
    EXPECT_TRUE(same_bits(harness::Problem(spec).host_a(), a)) << "deterministic for a seed";
    spec.seed += 1;
    EXPECT_FALSE(same_bits(harness::Problem(spec).host_b(), p.host_b())) << "and different for another";
  }
}

}  // namespace sgemm::test
