// Degenerate shapes and scalars: M or N = 0 launches nothing; K = 0 or alpha = 0 gives beta*C
// without reading A or B; beta = 0 writes alpha*A*B without reading C.
#include <cmath>
#include <vector>

#include <cuda_runtime.h>

#include "gpu_test_util.hpp"
#include "harness/cuda_check.hpp"

namespace sgemm::test {

using harness::ProblemSpec;

class Degenerate : public ::testing::TestWithParam<int> {};

TEST_P(Degenerate, EmptyProductLaunchesNothing) {
  // Capture the call into a CUDA graph: an empty product must add no node at all.
  cudaStream_t s;
  SGEMM_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{0, 16}, {16, 0}, {0, 0}}) {
    SGEMM_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    GemmArgs a{m, n, 16, 1.0f, nullptr, 16, nullptr, std::max<int64_t>(n, 1), 0.0f, nullptr, std::max<int64_t>(n, 1)};
    EXPECT_EQ(run(GetParam(), a, s), Status::kOk);
    cudaGraph_t g;
    SGEMM_CUDA(cudaStreamEndCapture(s, &g));
    size_t nodes = 99;
    SGEMM_CUDA(cudaGraphGetNodes(g, nullptr, &nodes));
    EXPECT_EQ(nodes, 0u) << "M=" << m << " N=" << n;
    cudaGraphDestroy(g);
  }
  cudaStreamDestroy(s);
}

TEST_P(Degenerate, KZeroGivesBetaC) {
  for (float beta : {0.5f, 0.0f, 1.0f}) {
    ProblemSpec spec;
    spec.shape = {33, 17, 0};
    spec.beta = beta;
    spec.kind = harness::InputKind::kSmallInt;
    harness::Problem p(spec);
    const harness::VerifyResult r = run_on(GetParam(), p);
    EXPECT_TRUE(r.ok) << "beta=" << beta << ": " << r.summary();
  }
}

TEST_P(Degenerate, AlphaZeroDoesNotReadAOrB) {
  ProblemSpec spec;
  spec.shape = {65, 70, 33};
  spec.alpha = 0.0f;
  spec.beta = 3.0f;
  spec.kind = harness::InputKind::kSmallInt;
  harness::Problem p(spec);
  // NaN in A and B: C = 0*A*B + 3*C must not see them (BLAS: alpha = 0 skips A*B).
  p.set_element('A', 0, 0, std::nanf(""));
  p.set_element('B', 3, 4, std::nanf(""));
  p.reset_c(0);
  GemmArgs a = p.args(0);
  ASSERT_EQ(run(GetParam(), a), Status::kOk);
  SGEMM_CUDA(cudaDeviceSynchronize());
  std::vector<float> c(size_t(a.M * a.ldc)), c0(c.size());
  SGEMM_CUDA(cudaMemcpy(c.data(), a.C, c.size() * 4, cudaMemcpyDeviceToHost));
  SGEMM_CUDA(cudaMemcpy(c0.data(), p.pristine_c(), c.size() * 4, cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < a.M; ++i)
    for (int64_t j = 0; j < a.N; ++j) ASSERT_EQ(c[i * a.ldc + j], 3.0f * c0[i * a.ldc + j]) << i << "," << j;
  // And with null A and B it is still a valid call.
  a.A = a.B = nullptr;
  EXPECT_EQ(run(GetParam(), a), Status::kOk);
  SGEMM_CUDA(cudaDeviceSynchronize());
}

INSTANTIATE_TEST_SUITE_P(Registry, Degenerate, ::testing::ValuesIn(rung_ids()), rung_name);

}  // namespace sgemm::test
