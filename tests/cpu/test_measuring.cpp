// What the figures of a row are made of, on the CPU: the median, quartiles and interval of the
// median, the verdict, the FP32 peak by compute capability, and the order in which rows run.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bad_inputs.hpp"  // parse()
#include "harness/cli.hpp"
#include "harness/device_info.hpp"
#include "harness/rows.hpp"
#include "harness/stats.hpp"

using namespace sgemm::harness;

TEST(Stats, MedianAndQuartiles) {
  EXPECT_EQ(median({}), 0.0);
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 3.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.75), 7.0);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.25), 1.75);  // NumPy's default interpolation
  EXPECT_DOUBLE_EQ(quantile({5}, 0.75), 5.0);
}

// The interval of the median from order statistics: [x(k), x(n+1-k)] with confidence
// 1 - 2 P(Binomial(n, 1/2) < k) >= 95%.
TEST(Stats, OrderStatisticIntervalOfTheMedian) {
  const Interval seven = median_interval({7, 1, 6, 2, 5, 3, 4});
  EXPECT_EQ(seven.lo, 1.0);  // n = 7: only [min, max] reaches 95% (98.4%)
  EXPECT_EQ(seven.hi, 7.0);
  EXPECT_NEAR(seven.confidence, 1.0 - 2.0 / 128, 1e-12);
  const Interval nine = median_interval({9, 1, 8, 2, 7, 3, 6, 4, 5});
  EXPECT_EQ(nine.lo, 2.0);  // n = 9: the second smallest and second largest, 96.1%
  EXPECT_EQ(nine.hi, 8.0);
  EXPECT_NEAR(nine.confidence, 1.0 - 2.0 * 10 / 512, 1e-12);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  const Interval h = median_interval(hundred);
  EXPECT_EQ(h.lo, 40.0);  // the textbook ranks for n = 100: 40th and 61st
  EXPECT_EQ(h.hi, 61.0);
  EXPECT_GE(h.confidence, 0.95);
  const Interval three = median_interval({3, 1, 2});
  EXPECT_EQ(three.lo, 1.0);  // too few values for 95%: [min, max] at the confidence it has
  EXPECT_EQ(three.hi, 3.0);
  EXPECT_NEAR(three.confidence, 0.75, 1e-12);
  EXPECT_NEAR(median_interval_confidence(5), 0.9375, 1e-12);
  EXPECT_GE(median_interval_confidence(6), 0.95) << "six values are the fewest for a 95% interval";
  EXPECT_EQ(median_interval({}).confidence, 0.0);
}

TEST(Stats, VerdictNeedsTheWholeIntervalOnOneSide) {
  EXPECT_STREQ(verdict(100.2, 102.4), "faster");
  EXPECT_STREQ(verdict(97.0, 99.9), "slower");
  EXPECT_STREQ(verdict(99.5, 100.5), "level");
  EXPECT_STREQ(verdict(100.0, 101.0), "level") << "a lower bound of exactly 100% is not faster";
}

TEST(DeviceInfo, Fp32LanesPerSmByComputeCapability) {
  for (auto [major, minor] : {std::pair{6, 0}, {7, 0}, {7, 5}, {8, 0}}) EXPECT_EQ(fp32_lanes_per_sm(major, minor), 64);
  for (auto [major, minor] : {std::pair{6, 1}, {6, 2}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0}})
    EXPECT_EQ(fp32_lanes_per_sm(major, minor), 128) << major << "." << minor;
  EXPECT_EQ(fp32_lanes_per_sm(15, 0), 128) << "an unknown newer GPU";
  // H200: 132 SMs at 1980 MHz.
  EXPECT_NEAR(fp32_peak_gflops(9, 0, 132, 1980), 66908.16, 1e-6);
  DeviceInfo a100;
  a100.cc_major = 8, a100.sm_count = 108, a100.sm_clock_max_mhz = 1410;
  EXPECT_NEAR(a100.fp32_peak_gflops(), 19491.84, 1e-6);
}

TEST(Rows, RepetitionsRunTheWholeSweepPassAfterPass) {
  const ParseResult r = parse({"--kernel", "1", "--sizes", "64,128", "--repetitions", "3", "--accuracy-sweep",
                               "--accuracy-ks", "32"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  const std::vector<RowPlan> rows = plan_rows(r.options);
  std::vector<std::string> order;
  for (const RowPlan& row : rows) order.push_back(row.name + "@" + std::to_string(row.pass));
  const std::vector<std::string> pass = {"rung00_cublas/64x64x64", "rung01_naive/64x64x64",
                                         "rung00_cublas/128x128x128", "rung01_naive/128x128x128"};
  std::vector<std::string> want;
  for (int p = 0; p < 3; ++p)
    for (const std::string& name : pass) want.push_back(name + "@" + std::to_string(p));
  for (const char* kind : {"uniform", "normal", "wide20", "wide40", "wide60"})
    for (const char* slug : {"00_cublas", "01_naive"})
      want.push_back(std::string("accuracy/") + slug + "/" + kind + "/1024x1024x32@0");
  EXPECT_EQ(order, want);
  const std::map<std::string, int> passes = passes_per_row(r.options);
  EXPECT_EQ(passes.at("rung01_naive/128x128x128"), 3);
  EXPECT_EQ(passes.at("accuracy/01_naive/normal/1024x1024x32"), 1);
}

// For each K: uniform, normal, then the wide distribution at each exponent range asked for, in
// that order; a wide row carries its range in its name and its plan.
TEST(Rows, AccuracySweepHasAWideRowForEachExponentRange) {
  const ParseResult r = parse({"--kernel", "22", "--size", "64", "--accuracy-sweep", "--accuracy-ks", "256,4096",
                               "--accuracy-mn", "512", "--accuracy-exponents", "30,0"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  std::vector<std::string> names;
  for (const RowPlan& row : plan_rows(r.options)) {
    if (!row.accuracy || row.rung->id != 22) continue;
    names.push_back(row.name);
    EXPECT_EQ(row.kind == InputKind::kWide, row.name.find("/wide") != std::string::npos) << row.name;
    EXPECT_EQ(row.wide_exponent, row.name.find("/wide30/") != std::string::npos ? 30 : 0) << row.name;
    EXPECT_EQ(row.shape.K, row.name.find("x4096") != std::string::npos ? 4096 : 256) << row.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "accuracy/22_mma_3xtf32/uniform/512x512x256", "accuracy/22_mma_3xtf32/normal/512x512x256",
                       "accuracy/22_mma_3xtf32/wide30/512x512x256", "accuracy/22_mma_3xtf32/wide0/512x512x256",
                       "accuracy/22_mma_3xtf32/uniform/512x512x4096", "accuracy/22_mma_3xtf32/normal/512x512x4096",
                       "accuracy/22_mma_3xtf32/wide30/512x512x4096", "accuracy/22_mma_3xtf32/wide0/512x512x4096"}));
  EXPECT_EQ(accuracy_row_name(*sgemm::find_rung(7), InputKind::kWide, 20, 1024, 4096),
            "accuracy/07_bank_conflict_free/wide20/1024x1024x4096");
  EXPECT_EQ(accuracy_row_name(*sgemm::find_rung(7), InputKind::kNormal, 20, 1024, 4096),
            "accuracy/07_bank_conflict_free/normal/1024x1024x4096")
      << "uniform and normal rows keep their names";
  // --benchmark_filter selects them by distribution.
  const std::vector<std::string> wide = selected_row_names(r.options, "wide30/512x512x4096");
  EXPECT_EQ(wide, (std::vector<std::string>{std::string("accuracy/00_cublas/wide30/512x512x4096") + kRowNameSuffix,
                                            std::string("accuracy/22_mma_3xtf32/wide30/512x512x4096") + kRowNameSuffix}));
}

TEST(Rows, CublasIsAlwaysTimedFirst) {
  ParseResult r = parse({"--kernel", "7,1"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(timed_kernels(r.options), (std::vector<int>{0, 7, 1}));
  r = parse({"--kernel", "1,0"});
  EXPECT_EQ(timed_kernels(r.options), (std::vector<int>{1, 0}));
}

TEST(Rows, NamesCarryNonDefaultLeadingDimensions) {
  const ParseResult r = parse({"--kernel", "1", "--m", "100", "--n", "30", "--k", "7", "--lda", "12"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(timing_row_name(*sgemm::find_rung(1), r.options.shapes.at(0)), "rung01_naive/100x30x7/ld12_30_30");
}
