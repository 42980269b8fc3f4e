// Reliability across the registry: special values, determinism, operands past 2^31 elements.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/wait.h>
#include <limits>
#include <vector>

#include <cuda_runtime.h>

#include "gpu_test_util.hpp"
#include "harness/cuda_check.hpp"

namespace sgemm::test {

using harness::ProblemSpec;

class Reliability : public ::testing::TestWithParam<int> {};

TEST_P(Reliability, SpecialValuesPropagateLikeFp64) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  for (float beta : {0.0f, 0.5f}) {
    ProblemSpec spec;
    spec.shape = {70, 90, 50};
    spec.beta = beta;
    harness::Problem p(spec);
    p.set_element('A', 3, 5, inf);    // row 3 of C: +-Inf
    p.set_element('A', 10, 0, -inf);  // row 10: -Inf and +Inf terms -> NaN or Inf by signs
    p.set_element('A', 10, 1, inf);
    p.set_element('B', 7, 11, nan);   // column 11: NaN
    p.set_element('B', 20, 40, -inf); // column 40: Inf, NaN where it meets row 3 or 10
    p.set_element('C', 20, 30, inf);  // beta * Inf (ignored when beta == 0)
    p.set_element('C', 21, 31, nan);
    const harness::VerifyResult r = run_on(GetParam(), p);
    EXPECT_TRUE(r.ok) << "beta=" << beta << ": " << r.summary();
  }
}

TEST_P(Reliability, BitwiseDeterministic) {
  ProblemSpec spec;
  spec.shape = {1000, 1030, 2050};
  spec.beta = 0.5f;
  harness::Problem p(spec);
  const GemmArgs a = p.args(0);
  const size_t n = size_t(a.M * a.ldc);
  std::vector<float> first(n), again(n);
  for (int rep = 0; rep < 3; ++rep) {
    p.reset_c(0);
    ASSERT_EQ(run(GetParam(), a), Status::kOk);
    SGEMM_CUDA(cudaDeviceSynchronize());
    SGEMM_CUDA(cudaMemcpy(rep ? again.data() : first.data(), a.C, n * 4, cudaMemcpyDeviceToHost));
    if (rep) EXPECT_EQ(std::memcmp(first.data(), again.data(), n * 4), 0) << "run " << rep << " differs";
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, Reliability, ::testing::ValuesIn(rung_ids()), rung_name);

// C = 65536 x 40000 has 2.6e9 elements (> 2^31): every rung computes it correctly or refuses
// it through supports(). One problem (and one FP64 reference) serves every rung.
TEST(Huge, OperandPast2To31ElementsIsCorrectOrRefused) {
  ProblemSpec spec;
  spec.shape = {65536, 40000, 16};
  spec.kind = harness::InputKind::kSmallInt;
  const double c_bytes = 65536.0 * 40000.0 * 4;
  const size_t need = size_t(c_bytes * 2 + c_bytes * 4 + (1 << 30));  // C, C0, ref+mag (FP64)
  if (!enough_memory(need)) GTEST_SKIP() << "needs " << (need >> 30) << " GiB of free device memory";
  harness::Problem p(spec);
  for (const Rung& r : registry()) {
    SCOPED_TRACE(r.slug);
    std::string why;
    if (!r.supports(p.args(0), &why)) {
      EXPECT_FALSE(why.empty());
      EXPECT_EQ(run(r.id, p.args(0)), Status::kUnsupported);
      std::printf("[  HUGE    ] %s refuses: %s\n", r.slug, why.c_str());
      continue;
    }
    const harness::VerifyResult v = run_on(r.id, p);
    EXPECT_TRUE(v.ok) << v.summary();
    std::printf("[  HUGE    ] %s computes 65536x40000x16 correctly: %s\n", r.slug, v.summary().c_str());
  }
}

}  // namespace sgemm::test

namespace sgemm::test {

// Out of device memory: the error says how many bytes were needed, and the device stays usable.
TEST(OutOfMemory, SaysHowManyBytesWereNeeded) {
  size_t free_b = 0, total_b = 0;
  SGEMM_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const size_t count = total_b / sizeof(float) * 2;  // twice the card
  const size_t bytes = count * sizeof(float) + 2 * harness::DeviceBuffer::kGuardBytes;
  try {
    harness::DeviceBuffer b(count);
    FAIL() << "allocating twice the device's memory succeeded";
  } catch (const harness::OutOfMemory& e) {
    EXPECT_EQ(e.bytes, bytes);
    EXPECT_NE(std::string(e.what()).find("needed " + std::to_string(bytes) + " bytes"), std::string::npos) << e.what();
  }
  harness::DeviceBuffer still_fine(1024);
  EXPECT_TRUE(still_fine.guards_intact());
}

#ifdef SGEMM_BENCH_PATH
// The same through the front door: sgemm_bench exits 3 and names the bytes.
TEST(OutOfMemory, SgemmBenchExitsThreeWithTheByteCount) {
  const std::string out = ::testing::TempDir() + "/oom.txt";
  const std::string cmd = std::string(SGEMM_BENCH_PATH) + " --kernel 1 --size 300000 --repeat 1 > " + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 3);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("out of device memory: needed "), std::string::npos) << text;
}
#endif

}  // namespace sgemm::test
