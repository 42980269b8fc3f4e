// The C ABI on a real device: every rung callable through sgemm_ladder_run, and bad inputs
// leave C untouched.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "gpu_test_util.hpp"
#include "harness/cuda_check.hpp"
#include "peers/cublas.hpp"
#include "sgemm_ladder.h"

namespace sgemm::test {

using harness::ProblemSpec;

class CAbi : public ::testing::TestWithParam<int> {};

TEST_P(CAbi, RunsAndVerifies) {
  ProblemSpec spec;
  spec.shape = {129, 65, 257};
  spec.alpha = 0.5f;
  spec.beta = 3.0f;
  harness::Problem p(spec);
  p.reset_c(0);
  const GemmArgs a = p.args(0);
  ASSERT_EQ(sgemm_ladder_run(GetParam(), a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc, nullptr),
            SGEMM_LADDER_OK)
      << sgemm_ladder_last_error();
  SGEMM_CUDA(cudaDeviceSynchronize());
  const harness::VerifyResult r = harness::verify(p, find_rung(GetParam())->precision);
  EXPECT_TRUE(r.ok) << r.summary();
}

// The comparison for the TF32 rungs: cuBLAS's TF32 GEMM runs and is within the TF32 bound.
TEST(CublasTf32, RunsWithinTheTf32Bound) {
  ProblemSpec spec;
  spec.shape = {300, 257, 1000};
  spec.beta = 0.5f;
  harness::Problem p(spec);
  p.reset_c(0);
  ASSERT_EQ(bench::peers::cublas_tf32(p.args(0)), Status::kOk);
  SGEMM_CUDA(cudaDeviceSynchronize());
  const Precision tf32{"tf32", std::ldexp(1.0, -23), std::ldexp(1.0, -10) + std::ldexp(1.0, -22), false, true};
  const harness::VerifyResult r = harness::verify(p, tf32);
  EXPECT_TRUE(r.ok) << r.summary();
  EXPECT_GT(r.rel_err, 1e-6) << "TF32 should be visibly less accurate than FP32";
}

// The comparison for the 3xTF32 rungs: the 3xTF32 method on cuBLAS's TF32 GEMM keeps their bound.
TEST(Cublas3xTf32, RunsWithinThe3xTf32Bound) {
  ProblemSpec spec;
  spec.shape = {300, 257, 1000, 1003, 258, 260};
  spec.beta = 0.5f;
  harness::Problem p(spec);
  p.reset_c(0);
  ASSERT_EQ(bench::peers::cublas_3xtf32(p.args(0)), Status::kOk);
  SGEMM_CUDA(cudaDeviceSynchronize());
  const harness::VerifyResult r = harness::verify(p, find_rung(24)->precision);
  EXPECT_TRUE(r.ok) << r.summary();
}

// The comparison for the Ozaki rung: the same scheme on cuBLAS's INT8 GEMM keeps the rung's bound
// on ragged shapes and unaligned leading dimensions, on both input kinds, and past K = 2^16 (the
// INT32 planes are reduced between K chunks); it refuses wide inputs with a reason, as the rung does.
struct OzakiCase {
  harness::Shape shape;
  harness::InputKind kind;
};
std::string ozaki_case_name(const ::testing::TestParamInfo<OzakiCase>& info) {
  const harness::Shape& s = info.param.shape;
  return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K) + (s.lda ? "_unaligned" : "") +
         "_" + harness::input_label(info.param.kind, 0);
}
class CublasOzakiInt8 : public ::testing::TestWithParam<OzakiCase> {};

TEST_P(CublasOzakiInt8, RunsWithinTheRungsBound) {
  ProblemSpec spec;
  spec.shape = GetParam().shape;
  spec.kind = GetParam().kind;
  spec.alpha = -1.5f;
  spec.beta = 0.5f;
  harness::Problem p(spec);
  p.reset_c(0);
  std::string why;
  ASSERT_EQ(bench::peers::cublas_ozaki_int8(p.args(0), nullptr, &why), Status::kOk) << why;
  SGEMM_CUDA(cudaDeviceSynchronize());
  const harness::VerifyResult r = harness::verify(p, find_rung(25)->precision);
  EXPECT_TRUE(r.ok) << r.summary();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CublasOzakiInt8,
    ::testing::Values(OzakiCase{{300, 257, 1000}, harness::InputKind::kUniform},
                      OzakiCase{{129, 67, 333, 335, 69, 70}, harness::InputKind::kNormal},
                      OzakiCase{{1, 5, 7}, harness::InputKind::kUniform},
                      OzakiCase{{40, 33, 70000}, harness::InputKind::kNormal}),
    ozaki_case_name);

// One row of A with an entry far above the others (1e15, past even wide inputs' 2^30): its largest
// magnitude over its RMS is about sqrt(K) = 45, five bits past uniform inputs' ratio, and eight
// moduli hold 25 bits at K = 2000 against the 21 + 5 needed, so the plan refuses with a reason
// (wide inputs u 2^e no longer do: their ratio is about 12 at E = 30).
static void spike_row(harness::Problem& p) { p.set_element('A', 0, 0, 1.0e15f); }

TEST(CublasOzakiInt8Spike, RefusesWithAReason) {
  ProblemSpec spec;
  spec.shape = {64, 64, 2000};
  harness::Problem p(spec);
  spike_row(p);
  std::string why;
  EXPECT_EQ(bench::peers::cublas_ozaki_int8(p.args(0), nullptr, &why), Status::kUnsupported);
  EXPECT_NE(why.find("largest magnitude"), std::string::npos) << why;
}

TEST_P(CAbi, BadInputWritesNothing) {
  ProblemSpec spec;
  spec.shape = {64, 64, 64};
  spec.beta = 1.0f;
  harness::Problem p(spec);
  p.reset_c(0);
  const GemmArgs a = p.args(0);
  const size_t n = size_t(a.M * a.ldc);
  std::vector<float> before(n), after(n);
  SGEMM_CUDA(cudaMemcpy(before.data(), a.C, n * 4, cudaMemcpyDeviceToHost));
  struct Bad { const char* what; GemmArgs args; int status; };
  auto with = [&](auto edit) { GemmArgs b = a; edit(b); return b; };
  const Bad cases[] = {
      {"M<0", with([](GemmArgs& b) { b.M = -1; }), SGEMM_LADDER_ERR_INVALID_SIZE},
      {"K<0", with([](GemmArgs& b) { b.K = -7; }), SGEMM_LADDER_ERR_INVALID_SIZE},
      {"lda<K", with([](GemmArgs& b) { b.lda = b.K - 1; }), SGEMM_LADDER_ERR_INVALID_LD},
      {"ldb<N", with([](GemmArgs& b) { b.ldb = b.N - 1; }), SGEMM_LADDER_ERR_INVALID_LD},
      {"ldc<N", with([](GemmArgs& b) { b.ldc = 1; }), SGEMM_LADDER_ERR_INVALID_LD},
      {"A null", with([](GemmArgs& b) { b.A = nullptr; }), SGEMM_LADDER_ERR_NULL_POINTER},
      {"B null", with([](GemmArgs& b) { b.B = nullptr; }), SGEMM_LADDER_ERR_NULL_POINTER},
      {"overflow", with([](GemmArgs& b) { b.lda = INT64_MAX / 8; }), SGEMM_LADDER_ERR_SIZE_OVERFLOW},
  };
  for (const Bad& c : cases) {
    const GemmArgs& b = c.args;
    EXPECT_EQ(sgemm_ladder_run(GetParam(), b.M, b.N, b.K, b.alpha, b.A, b.lda, b.B, b.ldb, b.beta, b.C, b.ldc,
                               nullptr),
              c.status)
        << c.what;
    EXPECT_STRNE(sgemm_ladder_last_error(), "") << c.what;
  }
  EXPECT_EQ(sgemm_ladder_run(100, a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta,
                             a.C, a.ldc, nullptr),
            SGEMM_LADDER_ERR_UNKNOWN_KERNEL);
  // A float pointer that is not even 4-byte aligned is refused, naming the operand.
  const float* odd = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.A) + 2);
  EXPECT_EQ(sgemm_ladder_run(GetParam(), a.M, a.N, a.K - 1, a.alpha, odd, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc,
                             nullptr),
            SGEMM_LADDER_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(sgemm_ladder_last_error()).find("A is not 4-byte aligned"), std::string::npos)
      << sgemm_ladder_last_error();
  SGEMM_CUDA(cudaDeviceSynchronize());
  SGEMM_CUDA(cudaMemcpy(after.data(), a.C, n * 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(before.data(), after.data(), n * 4), 0) << "C changed after rejected calls";
  EXPECT_TRUE(p.guards_intact());
}

// Operands that start one float past a 16-byte boundary (views A + 1, B + ldb + 1, C + 1 of a
// larger problem): every rung runs them (rungs that move four floats at a time take their 32-bit
// path), and on small integers, where FP32 is exact, agrees with cuBLAS bit for bit.
TEST_P(CAbi, AnyFourByteAlignedPointer) {
  ProblemSpec spec;
  spec.shape = {130, 67, 261};
  spec.kind = harness::InputKind::kSmallInt;
  harness::Problem p(spec);
  const GemmArgs a = p.args(0);
  const int64_t M = a.M, N = a.N - 1, K = a.K - 1;
  const float* A = a.A + 1;
  const float* B = a.B + a.ldb + 1;
  float* C = a.C + 1;
  const size_t n = size_t(a.M * a.ldc);
  auto run_into = [&](int id, std::vector<float>* out) {
    p.reset_c(0);
    ASSERT_EQ(sgemm_ladder_run(id, M, N, K, a.alpha, A, a.lda, B, a.ldb, a.beta, C, a.ldc, nullptr), SGEMM_LADDER_OK)
        << sgemm_ladder_last_error();
    SGEMM_CUDA(cudaDeviceSynchronize());
    out->resize(n);
    SGEMM_CUDA(cudaMemcpy(out->data(), a.C, n * 4, cudaMemcpyDeviceToHost));
  };
  std::vector<float> want, got;
  run_into(0, &want);
  run_into(GetParam(), &got);
  if (!find_rung(GetParam())->precision.fp32_accurate) return;  // TF32 rounds the operands
  EXPECT_EQ(std::memcmp(want.data(), got.data(), n * 4), 0) << "differs from cuBLAS on exact inputs";
  EXPECT_TRUE(p.guards_intact());
}

INSTANTIATE_TEST_SUITE_P(Registry, CAbi, ::testing::ValuesIn(rung_ids()), rung_name);


// The scheme's error stays at or below cuBLAS SGEMM's on the same inputs, normal ones included:
// their largest entries are about five times their mean magnitude (uniform: two), and the plan
// keeps more bits for them; narrow products, where cuBLAS splits K, take every modulus
// (ozaki::checked_scales). Every rung of the scheme and the method on cuBLAS's INT8 GEMM.
class OzakiErrorBelowCublas : public ::testing::TestWithParam<OzakiCase> {};

TEST_P(OzakiErrorBelowCublas, RungAndMethod) {
  ProblemSpec spec;
  spec.shape = GetParam().shape;
  spec.kind = GetParam().kind;
  harness::Problem p(spec);
  const double cublas_err = run_on(0, p).rel_err;
  std::string why;
  for (const Rung& r : registry()) {  // every rung of the scheme
    if (std::string(r.precision.name) != find_rung(25)->precision.name) continue;
    p.reset_c(0);
    const Status s = run(r.id, p.args(0), nullptr, &why);
    if (s == Status::kArch) GTEST_SKIP() << why;
    ASSERT_EQ(s, Status::kOk) << r.slug << ": " << why;
    SGEMM_CUDA(cudaDeviceSynchronize());
    const harness::VerifyResult rung = harness::verify(p, r.precision);
    EXPECT_TRUE(rung.ok) << r.slug << ": " << rung.summary();
    EXPECT_LE(rung.rel_err, cublas_err) << r.slug << " against cuBLAS SGEMM";
  }
  p.reset_c(0);
  ASSERT_EQ(bench::peers::cublas_ozaki_int8(p.args(0), nullptr, &why), Status::kOk) << why;
  SGEMM_CUDA(cudaDeviceSynchronize());
  const harness::VerifyResult method = harness::verify(p, find_rung(25)->precision);
  EXPECT_TRUE(method.ok) << method.summary();
  EXPECT_LE(method.rel_err, cublas_err) << "the scheme on cuBLAS's INT8 GEMM against cuBLAS SGEMM";
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, OzakiErrorBelowCublas,
    ::testing::Values(OzakiCase{{2048, 2048, 4096}, harness::InputKind::kNormal},
                      OzakiCase{{2048, 2048, 4096}, harness::InputKind::kUniform},
                      OzakiCase{{2048, 2048, 8192}, harness::InputKind::kUniform},  // 7 moduli (beta 20)
                      OzakiCase{{256, 256, 4096}, harness::InputKind::kNormal},
                      OzakiCase{{256, 256, 4096}, harness::InputKind::kUniform},
                      OzakiCase{{128, 128, 16384}, harness::InputKind::kNormal},
                      OzakiCase{{128, 128, 16384}, harness::InputKind::kUniform}),
    ozaki_case_name);

// A forced number of moduli (set_ozaki_moduli): every rung with instances for 4-8 moduli (31 and
// the rungs above it in its track) and the method on cuBLAS's INT8 GEMM run every count within the
// bound of the bits it holds, the error falling as moduli are added, on uniform inputs and on wide
// ones (E = 30), which the plan also runs, below cuBLAS's error; a row with a spike the plan
// refuses; a rung with instances for 7 and 8 only refuses 5 with a reason.
static std::vector<int> rungs_from_four_moduli() {
  std::vector<int> ids;
  for (const Rung& r : registry())
    if (std::string(r.precision.name) == find_rung(25)->precision.name && r.id >= 31) ids.push_back(r.id);
  return ids;
}

TEST(OzakiForcedModuli, EachCountWithinItsBoundAndTheErrorFallsWithMore) {
  struct Reset {
    ~Reset() { set_ozaki_moduli(0); }
  } reset;
  const std::vector<int> ids = rungs_from_four_moduli();
  ASSERT_FALSE(ids.empty());
  for (const harness::InputKind kind : {harness::InputKind::kUniform, harness::InputKind::kWide}) {
    ProblemSpec spec;
    spec.shape = {300, 260, 2000};
    spec.kind = kind;
    spec.wide_exponent = 30;
    harness::Problem p(spec);
    std::string why;
    std::vector<double> last_rung(ids.size(), 1.0);
    double last_method = 1;
    for (int n = 4; n <= 8; ++n) {
      ASSERT_TRUE(set_ozaki_moduli(n));
      for (size_t i = 0; i < ids.size(); ++i) {
        p.reset_c(0);
        const Status s = run(ids[i], p.args(0), nullptr, &why);
        if (s == Status::kArch) GTEST_SKIP() << why;
        ASSERT_EQ(s, Status::kOk) << n << " moduli, rung " << ids[i] << ": " << why;
        SGEMM_CUDA(cudaDeviceSynchronize());
        const harness::VerifyResult rung = harness::verify(p, find_rung(ids[i])->precision);
        EXPECT_TRUE(rung.ok) << n << " moduli, rung " << ids[i] << ": " << rung.summary();
        EXPECT_LT(rung.rel_err, last_rung[i]) << n << " moduli, rung " << ids[i];
        last_rung[i] = rung.rel_err;
      }
      p.reset_c(0);
      ASSERT_EQ(bench::peers::cublas_ozaki_int8(p.args(0), nullptr, &why), Status::kOk) << n << " moduli: " << why;
      SGEMM_CUDA(cudaDeviceSynchronize());
      const harness::VerifyResult method = harness::verify(p, find_rung(25)->precision);
      EXPECT_TRUE(method.ok) << n << " moduli, cuBLAS INT8: " << method.summary();
      EXPECT_LT(method.rel_err, last_method) << n << " moduli, cuBLAS INT8";
      last_method = method.rel_err;
    }
    ASSERT_TRUE(set_ozaki_moduli(5));
    EXPECT_EQ(run(27, p.args(0), nullptr, &why), Status::kUnsupported);
    EXPECT_NE(why.find("instances for 7 to 8"), std::string::npos) << why;
    ASSERT_TRUE(set_ozaki_moduli(0));
    if (kind == harness::InputKind::kWide) {  // the plan takes E = 30 with the moduli it needs
      const double cublas_err = run_on(0, p).rel_err;
      for (const int id : ids) {
        p.reset_c(0);
        ASSERT_EQ(run(id, p.args(0), nullptr, &why), Status::kOk) << "rung " << id << ", the plan at E = 30: " << why;
        SGEMM_CUDA(cudaDeviceSynchronize());
        const harness::VerifyResult planned = harness::verify(p, find_rung(id)->precision);
        EXPECT_TRUE(planned.ok) << "rung " << id << ": " << planned.summary();
        EXPECT_LE(planned.rel_err, cublas_err) << "rung " << id << ", the plan at E = 30 against cuBLAS SGEMM";
      }
      spike_row(p);  // and refuses a row whose largest magnitude its moduli cannot hold
      for (const int id : ids) {
        why.clear();  // sgemm::run writes its reason only where the caller's string is empty
        EXPECT_EQ(run(id, p.args(0), nullptr, &why), Status::kUnsupported) << "rung " << id << ", a spiked row";
        EXPECT_NE(why.find("largest magnitude"), std::string::npos) << why;
      }
      SGEMM_CUDA(cudaDeviceSynchronize());
    }
  }
}

// Rung 32's fused pre-pass writes the residues and scales rung 31's two passes write, so the two
// rungs return the same C bit for bit (the plan, the scales and the integer products are the same,
// and exact): in every layout (lines read along rows and down columns), with rows that are not
// 16-byte aligned, on wide inputs (whose spread asks for more moduli than the fused pass started
// with: the residues written again), past the fused pass's reach in K (rung 31's passes), with an
// infinite entry, and under a forced count.
TEST(FusedPrepass, SameResultAsRung31BitForBit) {
  struct Reset {
    ~Reset() { set_ozaki_moduli(0); }
  } reset;
  struct Case {
    harness::Shape shape;
    harness::InputKind kind;
    bool inf;
    int moduli;
  };
  auto laid = [](harness::Shape s, bool ta, bool tb) {
    s.transa = ta;
    s.transb = tb;
    return s;
  };
  const harness::Shape base{300, 260, 2000};
  const std::vector<Case> cases = {
      {base, harness::InputKind::kUniform, false, 0},
      {laid(base, true, false), harness::InputKind::kUniform, false, 0},
      {laid(base, false, true), harness::InputKind::kNormal, false, 0},
      {laid(base, true, true), harness::InputKind::kUniform, false, 0},
      {{129, 67, 333, 335, 69, 70}, harness::InputKind::kNormal, false, 0},
      {{1, 5, 7}, harness::InputKind::kUniform, false, 0},
      {base, harness::InputKind::kWide, false, 0},
      {laid(base, true, false), harness::InputKind::kWide, false, 0},
      {{300, 260, 8192}, harness::InputKind::kUniform, false, 0},
      {{64, 48, 30000}, harness::InputKind::kUniform, false, 0},
      {base, harness::InputKind::kUniform, true, 0},
      {laid(base, false, true), harness::InputKind::kUniform, false, 5},
  };
  for (const Case& c : cases) {
    ProblemSpec spec;
    spec.shape = c.shape;
    spec.kind = c.kind;
    spec.wide_exponent = 30;
    harness::Problem p(spec);
    if (c.inf) p.set_element('A', 7, 11, INFINITY);
    ASSERT_TRUE(set_ozaki_moduli(c.moduli));
    const std::string what = c.shape.str() + " " + harness::input_label(c.kind, spec.wide_exponent) +
                             (c.inf ? " with an Inf" : "") + (c.moduli ? ", moduli forced" : "");
    const GemmArgs a = p.args(0);
    std::vector<std::vector<float>> out;
    for (const int id : {31, 32}) {
      p.reset_c(0);
      std::string why;
      const Status s = run(id, a, nullptr, &why);
      if (s == Status::kArch) GTEST_SKIP() << why;
      ASSERT_EQ(s, Status::kOk) << what << ", rung " << id << ": " << why;
      out.emplace_back(size_t(a.ldc * a.M));
      SGEMM_CUDA(cudaMemcpy(out.back().data(), a.C, out.back().size() * sizeof(float), cudaMemcpyDeviceToHost));
    }
    EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * sizeof(float)), 0) << what;
    if (!c.inf) {  // and the result is verified (an Inf in A makes its row NaN for both)
      const harness::VerifyResult v = harness::verify(p, find_rung(32)->precision);
      EXPECT_TRUE(v.ok) << what << ": " << v.summary();
    }
  }
}

}  // namespace sgemm::test
