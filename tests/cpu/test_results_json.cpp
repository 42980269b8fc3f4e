// The results file: Google Benchmark JSON whose rows carry exactly the counter names the tools
// and notebooks read, plus the context block; and the console table's row format.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include "harness/report.hpp"

using namespace sgemm::harness;

namespace {

RowCounters sample_row() {
  RowCounters c;
  c.rung = 7;
  c.M = 4096;
  c.N = 2048;
  c.K = 1024;
  c.gflops = 12345.5;
  c.pct_cublas = 87.25;
  c.rel_err = 1.5e-7;
  c.verified = true;
  c.ms = 1.25;
  c.samples = 3;
  c.sm_clock_mhz = 1980;
  return c;
}

// The number after the first `"key": ` in the JSON text (NaN when absent).
double json_number(const std::string& json, const std::string& key) {
  const size_t pos = json.find("\"" + key + "\": ");
  if (pos == std::string::npos) return std::nan("");
  return std::strtod(json.c_str() + pos + key.size() + 4, nullptr);
}

}  // namespace

TEST(ResultsJson, RowsCarryTheDocumentedCountersAndContext) {
  const std::string path = (std::filesystem::temp_directory_path() / "sgemm_results_test.json").string();
  benchmark::RegisterBenchmark("rung07_fake/4096x2048x1024", [](benchmark::State& st) {
    for (auto _ : st) st.SetIterationTime(1.25e-3);
    set_counters(st, sample_row());
  })->UseManualTime()->Iterations(3);
  std::vector<std::string> args = {"test", "--benchmark_out=" + path, "--benchmark_out_format=json",
                                   "--benchmark_filter=rung07_fake"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = int(argv.size());
  benchmark::Initialize(&argc, argv.data());
  benchmark::AddCustomContext("gpu_name", "Test GPU \"quoted\"");
  TableReporter display("header", nullptr);
  ::testing::internal::CaptureStdout();
  ASSERT_EQ(benchmark::RunSpecifiedBenchmarks(&display), 1u);
  const std::string shown = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(shown.find("rung07_fake/4096x2048x1024"), std::string::npos) << shown;

  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string json = ss.str();
  std::remove(path.c_str());
  const RowCounters want = sample_row();
  EXPECT_EQ(json_number(json, "rung"), want.rung) << json;
  EXPECT_EQ(json_number(json, "M"), double(want.M));
  EXPECT_EQ(json_number(json, "N"), double(want.N));
  EXPECT_EQ(json_number(json, "K"), double(want.K));
  EXPECT_DOUBLE_EQ(json_number(json, "GFLOPS"), want.gflops);
  EXPECT_DOUBLE_EQ(json_number(json, "pct_cublas"), want.pct_cublas);
  EXPECT_DOUBLE_EQ(json_number(json, "rel_err"), want.rel_err);
  EXPECT_EQ(json_number(json, "verified"), 1.0);
  EXPECT_DOUBLE_EQ(json_number(json, "ms"), want.ms);
  EXPECT_NE(json.find("\"context\""), std::string::npos);
  EXPECT_NE(json.find("\"gpu_name\": \"Test GPU \\\"quoted\\\"\""), std::string::npos) << json;
}

TEST(ResultsTable, RowFormat) {
  const std::string line = TableReporter::row_line("rung07_bank_conflict_free/4096x2048x1024", sample_row());
  EXPECT_NE(line.find("4096x2048x1024"), std::string::npos);
  EXPECT_NE(line.find("12346"), std::string::npos) << line;  // GFLOP/s, no decimals
  EXPECT_NE(line.find("87.2"), std::string::npos) << line;
  EXPECT_NE(line.find("1.50e-07"), std::string::npos) << line;
  EXPECT_NE(line.find("yes"), std::string::npos) << line;
  RowCounters unchecked = sample_row();
  unchecked.checked = false;
  EXPECT_NE(TableReporter::row_line("x", unchecked).find("skipped"), std::string::npos);
  EXPECT_EQ(TableReporter::header_line().find("% cuBLAS") != std::string::npos, true);
}
