// The dispatch rung's tensor path (kernels/dispatch/tensor.hpp): where it takes a call, the result is
// rung 32's, verified by the rung's precision model; inputs the scheme turns back (a row too wide for
// eight moduli, an Inf) and a stream that is capturing a graph are served on the CUDA cores, with no
// refusal; both switches keep every call on the CUDA cores, bitwise the FFMA candidate's result. On
// a GPU without rung 32 (not compute capability 9.0, no sm_90a build) or without a calibration, the
// tests that need the path say so and skip.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "dispatch/model.hpp"
#include "common/ozaki_finite.hpp"
#include "dispatch/tensor.hpp"
#include "gpu_test_util.hpp"
#include "harness/cuda_check.hpp"

namespace sgemm::test {

namespace {

// A problem large enough that the model takes the tensor path on an H100 or H200 (the workload
// suite's prefill projection), or GTEST_SKIP where this GPU has no tensor path.
constexpr int64_t kM = 2048, kN = 6144, kK = 4096;

std::string skip_reason(const GemmArgs& a) {
  if (!rung32::available()) return "rung 32 does not run here (compute capability 9.0 and an sm_90a build)";
  const std::string why = rung30::tensor::declined(a, nullptr, rung30::choose_ns(a, false).second);
  return why.empty() ? "" : "the tensor path does not take " + std::to_string(a.M) + "x" + std::to_string(a.N) + "x" +
                                std::to_string(a.K) + " here: " + why;
}

std::vector<float> result(const harness::Problem& p) {
  const GemmArgs a = p.args(0);
  std::vector<float> c(size_t(a.M) * size_t(a.ldc));
  SGEMM_CUDA(cudaMemcpy(c.data(), a.C, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return c;
}

Status run_auto(harness::Problem& p, cudaStream_t stream = nullptr) {
  p.reset_c(0);
  std::string why;
  const Status s = find_rung(30)->launch(p.args(0), stream, &why);
  EXPECT_EQ(s, Status::kOk) << why;
  SGEMM_CUDA(cudaDeviceSynchronize());
  return s;
}

harness::ProblemSpec spec_of(harness::Shape shape, float beta = 0.0f) {
  harness::ProblemSpec spec;
  spec.shape = shape;
  spec.beta = beta;
  return spec;
}

}  // namespace

// The switches, read and set back (no GPU work).
TEST(DispatchTensor, Switches) {
  const bool before = rung30::tensor::enabled();
  rung30::tensor::set_enabled(false);
  EXPECT_FALSE(rung30::tensor::enabled());
  GemmArgs a{kM, kN, kK};
  EXPECT_NE(rung30::tensor::declined(a, nullptr, 1e12), "");
  rung30::tensor::set_enabled(before);
  {
    const rung30::tensor::CudaCoresOnly cudaCores;
    EXPECT_FALSE(rung30::tensor::this_thread_allows());
    EXPECT_EQ(rung30::tensor::declined(a, nullptr, 1e12), "this call keeps to the CUDA cores");
  }
  EXPECT_TRUE(rung30::tensor::this_thread_allows());
  a.batch = 2;
  EXPECT_EQ(rung30::tensor::declined(a, nullptr, 1e12).empty(), false) << "a batch keeps to the CUDA cores";
}

// Where it takes the call: rung 32's result exactly (its launch_overlapped: the plan for normal
// inputs' spread), within the rung's own bound, with alpha, beta and the bias (the front door's
// pass); the choice says so.
TEST(DispatchTensor, TakesLargeProductsWithRung32sResult) {
  for (const float beta : {0.0f, 0.5f}) {
    harness::ProblemSpec spec = spec_of({kM, kN, kK}, beta);
    spec.alpha = 1.5f;
    harness::Problem p(spec);
    if (const std::string why = skip_reason(p.args(0)); !why.empty()) GTEST_SKIP() << why;
    EXPECT_STREQ(rung30::choice(p.args(0)), rung30::kTensorName);
    run_auto(p);
    const harness::VerifyResult r = harness::verify(p, find_rung(30)->precision);
    EXPECT_TRUE(r.ok) << r.summary();
    const std::vector<float> viaAuto = result(p);
    p.reset_c(0);
    std::string why;
    ASSERT_EQ(rung32::launch_overlapped(p.args(0), nullptr, &why), Status::kOk) << why;
    SGEMM_CUDA(cudaDeviceSynchronize());
    EXPECT_TRUE(result(p) == viaAuto) << "auto's result is rung 32's, bit for bit";
    p.reset_c(0);
    ASSERT_EQ(find_rung(32)->launch(p.args(0), nullptr, &why), Status::kOk) << why;
    SGEMM_CUDA(cudaDeviceSynchronize());
    EXPECT_TRUE(harness::verify(p, find_rung(32)->precision).ok) << "rung 32's own plan";
  }
  harness::Shape biased{kM, kN, kK};
  biased.bias = true;
  biased.transb = true;  // nn.Linear's layout: the weight stored N x K
  harness::Problem p(spec_of(harness::with_default_ld(biased)));
  if (const std::string why = skip_reason(p.args(0)); !why.empty()) GTEST_SKIP() << why;
  run_auto(p);
  const harness::VerifyResult r = harness::verify(p, find_rung(30)->precision);
  EXPECT_TRUE(r.ok) << "NT with a bias: " << r.summary();
}

// Both switches: every call on the CUDA cores, bitwise the FFMA candidate the model picks.
TEST(DispatchTensor, SwitchesKeepToTheFfmaKernelsBitwise) {
  harness::Problem p(spec_of({kM, kN, kK}));
  if (const std::string why = skip_reason(p.args(0)); !why.empty()) GTEST_SKIP() << why;
  const int c = int(rung30::choose(p.args(0), false));
  p.reset_c(0);
  std::string why;
  ASSERT_EQ(rung30::launch_candidate(c, p.args(0), nullptr, &why), Status::kOk) << why;
  SGEMM_CUDA(cudaDeviceSynchronize());
  const std::vector<float> ffma = result(p);
  {
    const rung30::tensor::CudaCoresOnly cudaCores;  // the per-call switch
    EXPECT_STREQ(rung30::choice(p.args(0)), rung30::candidate_name(c));
    run_auto(p);
    EXPECT_TRUE(result(p) == ffma) << "per call";
  }
  const bool before = rung30::tensor::enabled();
  rung30::tensor::set_enabled(false);  // the process-wide switch
  run_auto(p);
  rung30::tensor::set_enabled(before);
  EXPECT_TRUE(result(p) == ffma) << "process-wide";
  EXPECT_TRUE(harness::verify(p, find_rung(17)->precision).ok) << "the FFMA bound";
}

// Inputs the scheme may refuse alone (rung 32 returns kUnsupported) are answered, on the CUDA cores
// where it does (the FFMA bound), else by the scheme with more bits (the rung's own bound): entries
// u 2^e with e in [-40, 40] (served: measured, a spread of a few bits), one column of A 1000x the
// rest (an outlier feature of the activations: every row's largest is 64 times its RMS at K = 4096,
// six more bits than uniform rows, past what eight moduli hold), and an Inf (IEEE: the FP64 result,
// +-Inf, not the scheme's NaN).
TEST(DispatchTensor, InputsTheSchemeRefusesGoToTheCudaCores) {
  struct Case {
    const char* name;
    harness::InputKind kind;
    int exponent;
    bool outlier, inf;
  };
  for (const Case& k : {Case{"wide40", harness::InputKind::kWide, 40, false, false},
                        Case{"outlier column", harness::InputKind::kUniform, 0, true, false},
                        Case{"an Inf", harness::InputKind::kUniform, 0, false, true}}) {
    harness::ProblemSpec spec = spec_of({kM, kN, kK});
    spec.kind = k.kind;
    spec.wide_exponent = k.exponent;
    harness::Problem p(spec);
    if (const std::string why = skip_reason(p.args(0)); !why.empty()) GTEST_SKIP() << why;
    if (k.outlier)
      for (int64_t r = 0; r < kM; ++r) p.set_element('A', r, 9, 1000.0f * (r % 2 ? 1.0f : -0.75f));
    if (k.inf) p.set_element('A', 5, 9, INFINITY);
    std::string why;
    p.reset_c(0);
    Status alone;
    {
      const ozaki::FiniteOnly finite;  // as the dispatch rung asks
      alone = find_rung(32)->launch(p.args(0), nullptr, &why);
    }
    SGEMM_CUDA(cudaDeviceSynchronize());
    // An Inf always; an outlier column of A at K = 4096 asks 26 bits, one more than eight moduli hold.
    if (k.inf || k.outlier) EXPECT_EQ(alone, Status::kUnsupported) << k.name;
    run_auto(p);
    const Precision& bound = alone == Status::kUnsupported ? find_rung(17)->precision : find_rung(30)->precision;
    const harness::VerifyResult r = harness::verify(p, bound);
    EXPECT_TRUE(r.ok) << k.name << (alone == Status::kUnsupported ? ": on the CUDA cores" : ": by the scheme") << ", "
                      << r.summary();
  }
}

// Under stream capture the scheme cannot read its inputs' spread back: the graph holds the CUDA-core
// candidate, and replaying it gives the verified result.
TEST(DispatchTensor, UnderCaptureTheGraphHoldsTheCudaCores) {
  harness::Problem p(spec_of({kM, kN, kK}));
  if (const std::string why = skip_reason(p.args(0)); !why.empty()) GTEST_SKIP() << why;
  cudaStream_t stream;
  SGEMM_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  p.reset_c(0);
  SGEMM_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  EXPECT_NE(rung30::tensor::declined(p.args(0), stream, 1e12), "");
  std::string why;
  const Status s = find_rung(30)->launch(p.args(0), stream, &why);
  cudaGraph_t graph;
  SGEMM_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_EQ(s, Status::kOk) << why;
  cudaGraphExec_t exec;
  SGEMM_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  SGEMM_CUDA(cudaGraphLaunch(exec, stream));
  SGEMM_CUDA(cudaStreamSynchronize(stream));
  EXPECT_TRUE(harness::verify(p, find_rung(17)->precision).ok);
  SGEMM_CUDA(cudaGraphExecDestroy(exec));
  SGEMM_CUDA(cudaGraphDestroy(graph));
  SGEMM_CUDA(cudaStreamDestroy(stream));
}

// A workspace budget below the call's need: the CUDA cores.
TEST(DispatchTensor, WorkspaceBudget) {
  GemmArgs a{kM, kN, kK};
  const size_t before = rung30::tensor::workspace_budget();
  rung30::tensor::set_workspace_budget(rung32::footprint(a).workspace - 1);
  EXPECT_EQ(rung30::tensor::declined(a, nullptr, 1e12).empty(), false);
  rung30::tensor::set_workspace_budget(before);
  EXPECT_GT(rung32::footprint(a).workspace, size_t(8) * (kM + kN) * kK) << "eight moduli of A's and B's residues";
}

}  // namespace sgemm::test
