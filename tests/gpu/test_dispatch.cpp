// The dispatch rung (30, "auto") picks by shape with the model of kernels/dispatch/30_auto.cuh: the
// choice depends on measured constants, but a few are structural on any GPU: a GEMV for one row of
// a wide product, the capstone where its tiles fill the chip many times, and a candidate for every
// valid shape. The registry-wide tests check the candidate it picks; these check every candidate
// on ragged shapes, forced, since a shape's choice can change with the next calibration.
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "dispatch/model.hpp"
#include "dispatch/tensor.hpp"
#include "gpu_test_util.hpp"
#include "harness/cuda_check.hpp"

namespace sgemm::test {

namespace {
// Arguments of a shape with dense rows; the pointers are 16-byte-aligned stand-ins: choosing runs
// no kernel.
GemmArgs shape(int64_t M, int64_t N, int64_t K) {
  float* p = reinterpret_cast<float*>(uintptr_t{256});
  return {M, N, K, 1.0f, p, K, p, N, 0.0f, p, N};
}

int candidate(const std::string& name) {
  for (int c = 0; c < rung30::candidate_count(); ++c)
    if (name == rung30::candidate_name(c)) return c;
  ADD_FAILURE() << "no candidate " << name;
  return 0;
}

// Candidate c, forced, on every shape and alpha/beta pair, verified against the FP64 reference.
void check_candidate(int c, const std::vector<harness::Shape>& shapes) {
  for (const harness::Shape& s : shapes)
    for (const auto& [alpha, beta] : alpha_betas()) {
      harness::ProblemSpec spec;
      spec.shape = s;
      spec.alpha = alpha;
      spec.beta = beta;
      harness::Problem p(spec);
      if (!rung30::model_terms(c, p.args(0)).runs && std::string(rung30::candidate_name(c)) == "gemv") continue;
      p.reset_c(0);
      std::string why;
      const Status st = rung30::launch_candidate(c, p.args(0), nullptr, &why);
      ASSERT_EQ(st, Status::kOk) << rung30::candidate_name(c) << " " << describe(30, spec) << ": " << why;
      SGEMM_CUDA(cudaDeviceSynchronize());
      const harness::VerifyResult r = harness::verify(p, find_rung(30)->precision);
      EXPECT_TRUE(r.ok) << rung30::candidate_name(c) << " " << describe(30, spec) << ": " << r.summary();
    }
}

// Ragged shapes that make each candidate do its own work: split-K splits, repack copies (dense
// rows whose length is not a multiple of 4, and K tails), stream-K cuts tiles, GEMV splits K (column
// blocks cut by N, K tails, every row count of its instances).
std::vector<harness::Shape> candidate_shapes() {
  return {{1, 1, 1},    {3, 517, 129}, {31, 33, 4099}, {64, 64, 4096}, {67, 45, 33, 33, 45, 45},
          {70, 130, 1000, 1003, 133, 131}, {257, 255, 31}, {200, 300, 264}, {17, 70, 2000},
          {5, 148, 1000}, {3, 130, 300, 300, 132, 130}, {32, 256, 333}, {8, 512, 4100},
          // A's and B's rows aligned, C's not: 128-bit loads, C stored a float at a time (and repack
          // copies A alone, leaving C where it is)
          {200, 300, 264, 264, 300, 301}, {70, 520, 1000, 1003, 520, 523}};
}
}  // namespace

TEST(Dispatch, PicksByShape) {
  const Rung* r = find_rung("auto");
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->choice, nullptr);
  EXPECT_EQ(std::string(r->choice(shape(1, 8192, 4096))), "gemv");
  {
    const rung30::tensor::CudaCoresOnly cudaCores;  // else the tensor path where a GPU has one
    EXPECT_EQ(std::string(r->choice(shape(8192, 8192, 8192))), "capstone");
  }
  EXPECT_EQ(std::string(r->choice(shape(65536, 4, 4096))), "gemv") << "the narrow-N form: C^T as a GEMV";
  for (const GemmArgs& a : {shape(1, 1, 1), shape(65536, 64, 1024), shape(3001, 2999, 997), shape(64, 64, 65536)})
    EXPECT_FALSE(std::string(r->choice(a)).empty());
}

TEST(Dispatch, EveryPredictionIsFiniteWhereTheCandidateRuns) {
  for (const GemmArgs& a : {shape(2048, 50257, 768), shape(64, 64, 65536), shape(1023, 1023, 1023)})
    for (int c = 0; c < rung30::candidate_count(); ++c) {
      const rung30::Terms t = rung30::model_terms(c, a);
      if (!t.runs || !rung30::offered(c, a, rung30::device_constants())) continue;  // or not offered here
      EXPECT_GT(rung30::predict_ns(c, a), 0.0) << rung30::candidate_name(c);
      EXPECT_LT(rung30::predict_ns(c, a), 1e12) << rung30::candidate_name(c);
    }
}

TEST(Dispatch, SplitKAndRepackApplyWhereTheyShould) {
  // One tile over a long K: split-K splits it; a square problem that fills the GPU: it does not.
  const rung30::Terms split = rung30::model_terms(candidate("split_k"), shape(64, 64, 65536));
  EXPECT_TRUE(split.runs);
  EXPECT_GT(split.moveBytes, 0.0);
  EXPECT_FALSE(rung30::model_terms(candidate("split_k"), shape(8192, 8192, 1024)).runs);
  EXPECT_TRUE(rung30::model_terms(candidate("split_k_rows"), shape(32, 4096, 4096)).runs);
  // Rows that are not 16-byte aligned: repack copies A and B to aligned rows and keeps K (its tail
  // too); C stays where it is (the NN tiles store an unaligned C); aligned rows, with or without a
  // K tail: nothing to do.
  const rung30::Terms odd = rung30::model_terms(candidate("repack"), shape(1023, 1023, 1023));
  ASSERT_TRUE(odd.runs);
  EXPECT_GE(odd.inner, 0);
  EXPECT_EQ(odd.repacked.K, 1023);
  EXPECT_EQ(odd.repacked.lda % 4, 0);
  EXPECT_EQ(odd.repacked.ldb % 4, 0);
  EXPECT_EQ(odd.repacked.ldc, 1023) << "C is not copied";
  EXPECT_DOUBLE_EQ(odd.moveBytes, 8.0 * 2 * 1023 * 1023) << "A's and B's copies, each read and written once";
  EXPECT_FALSE(rung30::model_terms(candidate("repack"), shape(1024, 1024, 1024)).runs);
  EXPECT_FALSE(rung30::model_terms(candidate("repack"), shape(1024, 1024, 1000)).runs);
}

// What the model counts: tiles that check bounds (past M, or all with a K tail: in its last slab, or
// every slab for the capstone's tile; split-K's last split alone has the tail), and the GEMV's FLOPs over the rows its kernel computes.
TEST(Dispatch, TermsCountEdgeTilesAndTheGemvsRows) {
  EXPECT_DOUBLE_EQ(rung30::model_terms(candidate("few_rows"), shape(16, 4096, 4096)).guarded, 1.0);
  EXPECT_DOUBLE_EQ(rung30::model_terms(candidate("few_rows"), shape(32, 4096, 4096)).guarded, 0.0);
  // A K tail: the tiles with registers to spare check its last slab, the capstone's every slab.
  EXPECT_DOUBLE_EQ(rung30::model_terms(candidate("few_cols"), shape(4096, 4096, 4095)).guarded, 1.0 / 128);
  EXPECT_DOUBLE_EQ(rung30::model_terms(candidate("capstone"), shape(4096, 4096, 4095)).guarded, 1.0);
  EXPECT_DOUBLE_EQ(rung30::model_terms(candidate("split_k_rows"), shape(32, 4096, 4095)).guarded, 0.0);
  EXPECT_DOUBLE_EQ(rung30::model_terms(candidate("split_k_rows"), shape(24, 4096, 4096)).guarded, 1.0);
  const rung30::Terms g = rung30::model_terms(candidate("gemv"), shape(12, 4096, 1000));
  ASSERT_TRUE(g.runs);
  EXPECT_EQ(g.gemvGroup, 4);
  EXPECT_DOUBLE_EQ(g.gemvFlops, 2.0 * 16 * 4096 * 1000);
  // The narrow-N form: C's columns are the kernel's rows (N = 3: its 4-row group), C's rows its many.
  const rung30::Terms n = rung30::model_terms(candidate("gemv"), shape(8192, 3, 4096));
  ASSERT_TRUE(n.runs);
  EXPECT_EQ(n.gemvGroup, 2);
  EXPECT_DOUBLE_EQ(n.gemvFlops, 2.0 * 4 * 8192 * 4096);
  EXPECT_EQ(rung30::gemv_form(shape(8192, 3, 4096)), rung30::GemvForm::kNarrowN);
  EXPECT_EQ(rung30::gemv_form(shape(8, 3, 4096)), rung30::GemvForm::kRows) << "few rows: the row form first";
  EXPECT_EQ(rung30::gemv_form(shape(8192, 17, 4096)), rung30::GemvForm::kNone);
  GemmArgs ta = shape(8192, 3, 4096);
  ta.transa = true;
  EXPECT_EQ(rung30::gemv_form(ta), rung30::GemvForm::kNone) << "A stored K x M: its rows do not run along K";
}

// Split-K with K cut where the calibration cuts it (one block per SM, every SM full, and splits in
// between), not where the model would: every split is correct, and its terms say what runs.
TEST(Dispatch, SplitKAtEverySplitTheCalibrationTimes) {
  for (const std::string name : {"split_k", "split_k_rows"}) {
    const int c = candidate(name);
    for (const harness::Shape& s : std::vector<harness::Shape>{{31, 33, 4099}, {70, 130, 1000, 1003, 133, 131}, {32, 256, 8192}})
      for (const int splits : {2, 3, 7, 40, 1000}) {
        harness::ProblemSpec spec;
        spec.shape = s;
        spec.beta = 0.5f;
        harness::Problem p(spec);
        const GemmArgs a = p.args(0);
        const rung30::Terms t = rung30::split_terms(c, a, splits);
        if (t.runs) {  // split: its partials move, and its blocks share SMs
          EXPECT_GT(t.residency, 0.0) << name;
          EXPECT_GT(t.moveBytes, 0.0) << name;
        }
        p.reset_c(0);
        std::string why;
        ASSERT_EQ(rung30::launch_candidate_split(c, a, splits, nullptr, &why), Status::kOk) << name << ": " << why;
        SGEMM_CUDA(cudaDeviceSynchronize());
        const harness::VerifyResult r = harness::verify(p, find_rung(30)->precision);
        EXPECT_TRUE(r.ok) << name << " in " << splits << " splits, " << describe(30, spec) << ": " << r.summary();
      }
  }
}

TEST(Dispatch, EveryCandidateOnRaggedShapes) {
  for (int c = 0; c < rung30::candidate_count(); ++c) check_candidate(c, candidate_shapes());
}

// tools/sanitize.sh runs *SanitizerRagged*: every candidate, forced, under compute-sanitizer.
TEST(Dispatch, SanitizerRaggedEveryCandidate) {
  for (int c = 0; c < rung30::candidate_count(); ++c)
    check_candidate(c, {{64, 64, 4096}, {67, 45, 33, 33, 45, 45}, {31, 33, 300}, {257, 255, 31}, {5, 148, 1000},
                        {3, 130, 300, 300, 132, 130}, {200, 300, 264, 264, 300, 301}, {70, 520, 131, 131, 520, 523}});
}

// The rows GEMV (op(B) = B) under compute-sanitizer in every row group, with B's rows 16-byte aligned
// (128-bit loads of four adjacent columns a lane; N not a multiple of 4: the last lane's group cut
// short) and not (a float at a time), K in one block and split over blocks (in a cluster and
// through the workspace), with a bias.
TEST(Dispatch, SanitizerRaggedGemvRows) {
  std::vector<harness::Shape> shapes;
  for (const int64_t M : {1, 2, 3, 4, 7, 9, 16, 17, 32})
    for (harness::Shape s : std::vector<harness::Shape>{{M, 133, 70, 0, 136, 0}, {M, 1030, 2100, 0, 1032, 0},
                                                         {M, 4095, 900, 0, 4096, 0}, {M, 258, 1500},
                                                         {M, 131, 333, 0, 0, 135}, {M, 33001, 1100, 0, 33004, 0},
                                                         {M, 300, 9000, 0, 0, 301}, {M, 40, 20000}}) {
      s.bias = M % 2 == 1;
      shapes.push_back(harness::with_default_ld(s));
    }
  // The wide one takes 128-bit loads at 1-8 rows (its column blocks fill the GPU unsplit), scalar
  // ones past that (30_auto.cuh), an unaligned B scalar ones. A long K over few columns is split
  // over blocks: on sm_90 in clusters where the parts are 8 or fewer, through the workspace past
  // that (and on older GPUs always).
  int clustered = 0, workspace = 0;
  for (const harness::Shape& s : shapes) {
    harness::ProblemSpec spec;
    spec.shape = s;
    harness::Problem p(spec);
    const rung30::GemvRowsPlan plan = rung30::gemv_rows_plan_of(p.args(0));
    if (s.N == 33001) EXPECT_EQ(plan.laneColumns, s.M <= 8 ? 4 : 1) << s.str();
    if (s.ldb == 258) EXPECT_EQ(plan.laneColumns, 1) << s.str();
    if (plan.cluster) EXPECT_TRUE(plan.splits > 1 && plan.splits <= 8) << s.str() << ": " << plan.splits << " parts";
    clustered += plan.cluster;
    workspace += plan.splits > 1 && !plan.cluster;
  }
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  if (major >= 9) EXPECT_GT(clustered, 0) << "no shape split K over a cluster";
  else EXPECT_EQ(clustered, 0);
  EXPECT_GT(workspace, 0) << "no shape split K through the workspace";
  check_candidate(candidate("gemv"), shapes);
}

// One row of C in 8-warp blocks under compute-sanitizer (a test of its own, so that racecheck gets
// through it): B's rows unaligned over grids of several waves, two groups of 32 columns a lane in
// rounds of 32 rows (more blocks than the GPU keeps at once) and of 16 (fewer), and one group where
// the blocks of two would not outnumber the SMs; K ragged and cut short of a warp's chunk; B's rows
// aligned, 128-bit loads; with a bias and without.
TEST(Dispatch, SanitizerRaggedGemvOneRow) {
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  // Odd N (so odd rows: scalar columns) of 1.5, 3 and 8 times 32 columns an SM: the blocks of two
  // groups (64 columns) are then 0.75, 1.5 and 4 an SM, and the 32-row instance keeps 2 an SM.
  const int64_t wide = 256 * int64_t(sms) + 1, mid = 96 * int64_t(sms) + 1, narrow = 48 * int64_t(sms) + 1;
  std::vector<harness::Shape> shapes;
  for (harness::Shape s : std::vector<harness::Shape>{{1, wide, 70}, {1, mid, 70}, {1, mid, 333, 0, mid + 2, 0},
                                                       {1, narrow, 100}, {1, 33001, 45, 0, 33004, 0}}) {
    for (const bool bias : {false, true}) {
      s.bias = bias;
      shapes.push_back(harness::with_default_ld(s));
    }
  }
  std::set<int> rounds;  // the several-wave instances that ran: 100 x groups + rounds
  for (const harness::Shape& s : shapes) {
    harness::ProblemSpec spec;
    spec.shape = s;
    harness::Problem p(spec);
    const rung30::GemvRowsPlan plan = rung30::gemv_rows_plan_of(p.args(0));
    if (s.ldb % 4 == 0) {
      EXPECT_EQ(plan.laneColumns, 4) << s.str();
      continue;
    }
    EXPECT_EQ(plan.laneColumns, 1) << s.str();
    if ((s.N + 31) / 32 > sms) {  // the 32-warp grid would take several waves
      const int groups = (s.N + 63) / 64 > sms ? 2 : 1;
      EXPECT_EQ(plan.groups, groups) << s.str();
      EXPECT_TRUE(plan.round == 32 || (groups == 2 && plan.round == 16)) << s.str() << ": rounds of " << plan.round;
      rounds.insert(groups * 100 + plan.round);
    }
  }
  EXPECT_EQ(rounds, (std::set<int>{132, 216, 232})) << "one group in rounds of 32, two in rounds of 16 and of 32";
  check_candidate(candidate("gemv"), shapes);
}

// The same under compute-sanitizer in the transposed layouts, batched, with a bias: the tiles' staged
// pieces of a transposed B, and the transposed-B GEMV with K split over 1, 2, 4 and 8 warps (and, at
// 5x40x1029 on rows of 1032 floats, aligned rows whose K ends inside a float4). One test per
// candidate, so that tools/sanitize.sh's shards run them at once (racecheck over all of them in one
// process ran past 300 seconds) and one can be checked alone.
class DispatchTransposed : public ::testing::TestWithParam<int> {};

TEST_P(DispatchTransposed, SanitizerRaggedCandidate) {
  std::vector<harness::Shape> shapes;
  for (const auto& [transa, transb] : {std::pair{false, true}, std::pair{true, true}, std::pair{true, false}})
    for (harness::Shape s : std::vector<harness::Shape>{{8, 77, 4500}, {3, 130, 2100}, {16, 45, 1030}, {1, 33, 700},
                                                         {67, 45, 97}, {130, 260, 70}, {5, 40, 1029, 1032, 1032, 0}}) {
      for (const int64_t batch : {1, 2}) {  // one product: repack copies B^T; two: it runs the tiles
        harness::Shape b = s;
        b.transa = transa, b.transb = transb, b.batch = batch, b.bias = true;
        shapes.push_back(harness::with_default_ld(b));
      }
    }
  check_candidate(GetParam(), shapes);
}

INSTANTIATE_TEST_SUITE_P(Candidates, DispatchTransposed, ::testing::Range(0, rung30::candidate_count()),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(rung30::candidate_name(info.param));
                         });

// The narrow-N GEMV (N <= 16, op(A) = A) under compute-sanitizer: op(B) = B (copied to rows along K
// first, but one contiguous column read in place) and op(B) = B^T (rows along K), every row group
// of its kernel (N = 1-16), ragged K, leading dimensions that break 16-byte rows, aligned rows whose K
// ends inside a float4 (the unchecked walk, then its checked last step), batches and a bias.
TEST(Dispatch, SanitizerRaggedNarrowN) {
  std::vector<harness::Shape> shapes;
  for (const bool transb : {false, true})
    for (harness::Shape s : std::vector<harness::Shape>{{2053, 1, 1030}, {777, 3, 129}, {300, 8, 2100}, {1500, 12, 333},
                                                         {4100, 16, 700}, {1031, 7, 517, 519, 0, 9},
                                                         {2049, 5, 1029, 1032, 0, 0}, {1500, 16, 1027, 1028, 0, 0}})
      for (const int64_t batch : {1, 3}) {
        harness::Shape b = s;
        b.transb = transb, b.batch = batch, b.bias = batch > 1;
        if (transb && b.ldb != 0) b.ldb = b.K + 3;  // B stored N x K: rows of K + 3 floats
        shapes.push_back(harness::with_default_ld(b));
      }
  check_candidate(candidate("gemv"), shapes);
}

// The candidates that add partial sums across blocks do it in a fixed order: the same bits on every run.
TEST(Dispatch, SplitSumsAreBitwiseDeterministic) {
  for (const auto& [name, shape] : {std::pair<std::string, harness::Shape>{"split_k", {64, 70, 8192}},
                                    {"gemv", {4, 260, 8192}}, {"gemv", {3, 130, 8000, 8000, 132, 130}}}) {
    harness::ProblemSpec spec;
    spec.shape = shape;
    spec.beta = 0.5f;
    harness::Problem p(spec);
    const GemmArgs a = p.args(0);
    ASSERT_TRUE(rung30::model_terms(candidate(name), a).runs) << name;
    const size_t n = size_t(a.M * a.ldc);
    std::vector<float> first(n), again(n);
    for (int rep = 0; rep < 3; ++rep) {
      p.reset_c(0);
      std::string why;
      ASSERT_EQ(rung30::launch_candidate(candidate(name), a, nullptr, &why), Status::kOk) << name << ": " << why;
      SGEMM_CUDA(cudaDeviceSynchronize());
      SGEMM_CUDA(cudaMemcpy(rep ? again.data() : first.data(), a.C, n * 4, cudaMemcpyDeviceToHost));
      if (rep) EXPECT_EQ(std::memcmp(first.data(), again.data(), n * 4), 0) << name << ": run " << rep << " differs";
    }
  }
}

}  // namespace sgemm::test
