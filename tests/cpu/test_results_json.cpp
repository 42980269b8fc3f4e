// The results file: Google Benchmark JSON (read back with nlohmann-json) whose rows carry
// exactly the counter names the tools and notebooks read, whose time is the row's median, and
// whose repeated rows get their passes numbered and summarized; the CSV and console outputs.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/report.hpp"
#include "harness/rows.hpp"

using namespace sgemm::harness;
using nlohmann::json;

namespace {

RowCounters sample_row() {
  RowCounters c;
  c.rung = 7, c.M = 4096, c.N = 2048, c.K = 1024;
  c.gflops = 12345.5, c.ms = 1.2503, c.ms_q1 = 1.24, c.ms_q3 = 1.27, c.samples = 90, c.rounds = 9;
  c.pct_cublas = 87.25, c.pct_cublas_lo = 86.5, c.pct_cublas_hi = 88.0, c.cublas_ms = 1.09;
  c.rel_err = 1.5e-7, c.verified = true;
  c.sm_clock_mhz = 1965, c.sm_clock_min_mhz = 1950, c.sm_clock_max_mhz = 1980;
  c.pct_cublas_hot = 95.5, c.pct_cublas_hot_lo = 94.25, c.pct_cublas_hot_hi = 97.0;
  c.ms_hot = 1.125, c.cublas_ms_hot = 1.0625, c.hot_launches = 25;
  return c;
}

// Runs the rows registered by `add` as sgemm_bench does (run_rows), with stdout in `format`;
// returns what it printed.
template <class Register>
std::string run(Options o, Register add) {
  benchmark::ClearRegisteredBenchmarks();
  add();
  std::ostringstream out;
  run_rows(o, "header", nullptr, out);
  return out.str();
}

Options with_format(const std::string& format) {
  Options o;
  o.format = format;
  return o;
}

// Runs `passes` passes of rung 1 at 64^3 (kRepeatedRow) as --repetitions does, pass p reporting
// counters(p); stdout in `format`.
const std::string kRepeatedRow = "rung01_naive/64x64x64";
std::string run_passes(const std::string& format, int passes, std::function<RowCounters(int)> counters) {
  Options o = with_format(format);
  o.repetitions = passes;
  o.kernels = {1};
  o.shapes = {{64, 64, 64, 64, 64, 64}};
  EXPECT_EQ(timing_row_name(*sgemm::find_rung(1), o.shapes[0]), kRepeatedRow);
  return run(o, [&] {
    for (int pass = 0; pass < passes; ++pass)
      register_row(kRepeatedRow, [&, pass](benchmark::State& st) { report_row(st, counters(pass)); });
  });
}

// The benchmarks of a JSON document, by name and aggregate.
const json& row(const json& doc, const std::string& name, const std::string& aggregate = "") {
  for (const json& b : doc.at("benchmarks"))
    if (b.at("run_name") == name && b.value("aggregate_name", "") == aggregate) return b;
  static const json none;
  ADD_FAILURE() << "no row " << name << " " << aggregate << " in\n" << doc.dump(1);
  return none;
}

}  // namespace

TEST(ResultsJson, RowsCarryTheDocumentedCountersAndTheMedianAsTheirTime) {
  const std::string path = (std::filesystem::temp_directory_path() / "sgemm_results_test.json").string();
  Options o = with_format("console");
  o.out_path = path;
  benchmark::AddCustomContext("gpu_name", "Test GPU \"quoted\"\n\t");
  RowCounters with_nan = sample_row();
  with_nan.rel_err = std::numeric_limits<double>::quiet_NaN();
  const std::string shown = run(o, [&] {
    register_row("rung07_fake/4096x2048x1024", [](benchmark::State& st) { report_row(st, sample_row()); });
    register_row("rung07_nan/4096x2048x1024", [&](benchmark::State& st) { report_row(st, with_nan); });
  });
  EXPECT_NE(shown.find("rung07_fake/4096x2048x1024"), std::string::npos) << shown;

  std::ifstream in(path);
  const json doc = json::parse(in);  // throws (and fails the test) on anything that is not JSON
  std::remove(path.c_str());
  const std::string name = std::string("rung07_fake/4096x2048x1024") + kRowNameSuffix;
  const json& b = row(doc, name);
  EXPECT_EQ(b.at("name"), name) << "kRowNameSuffix must be what Google Benchmark appends";
  EXPECT_EQ(b.at("iterations"), 1);
  EXPECT_EQ(b.at("time_unit"), "ms");
  const RowCounters want = sample_row();
  EXPECT_NEAR(b.at("real_time").get<double>(), want.ms, 1e-12) << "real_time must be the median, as the ms counter";
  EXPECT_DOUBLE_EQ(b.at("real_time").get<double>(), b.at("ms").get<double>());
  for (const std::string& counter : counter_names()) {
    const bool optional = counter == "cublas_rel_err" ||  // checked rows of rungs other than cuBLAS
                          counter == "pct_cublas_tf32" || counter == "cublas_tf32_rel_err" ||
                          counter == "pct_cublas_3xtf32" || counter == "cublas_3xtf32_rel_err" ||
                          counter == "pct_cublas_ozaki_int8" || counter == "cublas_ozaki_int8_rel_err" ||
                          counter == "accuracy_sweep" || counter == "input_normal" ||
                          counter == "input_wide_exponent" || counter == "batch" || counter == "bias" ||
                          counter == "pct_gemmul8" || counter == "gemmul8_rel_err" ||
                          counter == "gemmul8_moduli" ||  // --gemmul8 only
                          counter == "ozaki_moduli" ||    // Ozaki rungs only
                          counter == "watts" || counter == "gflop_per_joule" || counter == "cublas_watts" ||
                          counter == "cublas_gflop_per_joule" ||  // --energy only
                          counter == "pct_hbm_hot" ||  // rows with M <= 16 only
                          counter == "predicted_ms";   // rungs with a model only
    EXPECT_EQ(b.contains(counter), !optional) << counter;
  }
  EXPECT_EQ(b.at("rung"), want.rung);
  EXPECT_EQ(b.at("M"), double(want.M));
  EXPECT_DOUBLE_EQ(b.at("GFLOPS").get<double>(), want.gflops);
  EXPECT_DOUBLE_EQ(b.at("pct_cublas").get<double>(), want.pct_cublas);
  EXPECT_DOUBLE_EQ(b.at("pct_cublas_lo").get<double>(), want.pct_cublas_lo);
  EXPECT_DOUBLE_EQ(b.at("pct_cublas_hi").get<double>(), want.pct_cublas_hi);
  EXPECT_DOUBLE_EQ(b.at("ms_q3").get<double>(), want.ms_q3);
  EXPECT_DOUBLE_EQ(b.at("pct_cublas_hot").get<double>(), want.pct_cublas_hot);
  EXPECT_DOUBLE_EQ(b.at("pct_cublas_hot_lo").get<double>(), want.pct_cublas_hot_lo);
  EXPECT_DOUBLE_EQ(b.at("ms_hot").get<double>(), want.ms_hot);
  EXPECT_EQ(b.at("hot_launches"), want.hot_launches);
  EXPECT_EQ(b.at("sm_clock_min_mhz"), 1950);
  EXPECT_EQ(b.at("clock_ok"), 1);
  EXPECT_EQ(b.at("remeasured"), 0);
  EXPECT_EQ(b.at("verified"), 1);
  EXPECT_FALSE(row(doc, std::string("rung07_nan/4096x2048x1024") + kRowNameSuffix).contains("rel_err"))
      << "a NaN counter is left out: Google Benchmark would write NaN, which is not JSON";
  EXPECT_EQ(doc.at("context").at("gpu_name"), "Test GPU \"quoted\"\n\t");
}

// Every JSON row carries its layout as text ("nn" for a plain one), and the counters batch (above
// 1) and bias (when set) where the run had them.
TEST(ResultsJson, RowsCarryTheirLayoutBatchAndBias) {
  Options o = with_format("json");
  o.kernels = {7};
  Shape s{64, 64, 64};
  s.transa = true;
  s.batch = 3;
  s.bias = true;
  o.shapes = {with_default_ld(s)};
  const std::string name = timing_row_name(*sgemm::find_rung(7), o.shapes[0]);
  EXPECT_EQ(name, "rung07_bank_conflict_free/64x64x64/tn/batch3/bias");
  RowCounters c = sample_row();
  c.batch = 3;
  c.bias = true;
  const std::string text = run(o, [&] {
    register_row(name, [&](benchmark::State& st) { report_row(st, c); });
    register_row("rung07_plain/64x64x64", [](benchmark::State& st) { report_row(st, sample_row()); });
  });
  const json doc = json::parse(text);
  const json& b = row(doc, name + kRowNameSuffix);
  EXPECT_EQ(b.at("layout"), "tn");
  EXPECT_EQ(b.at("batch"), 3);
  EXPECT_EQ(b.at("bias"), 1);
  const json& p = row(doc, std::string("rung07_plain/64x64x64") + kRowNameSuffix);
  EXPECT_EQ(p.at("layout"), "nn");
  EXPECT_FALSE(p.contains("batch"));
  EXPECT_FALSE(p.contains("bias"));
}

// --repetitions: pass after pass; each pass an iteration row with its repetition_index, then per
// row the aggregates median, ci_lo and ci_hi.
TEST(ResultsJson, RepeatedRowsAreNumberedAndSummarized) {
  const double pct[] = {103.0, 99.0, 101.0}, ms[] = {3.0, 1.0, 2.0};
  const std::string text = run_passes("json", 3, [&](int pass) {
    RowCounters c = sample_row();
    c.pct_cublas = pct[pass];
    c.ms = ms[pass];
    return c;
  });
  const json doc = json::parse(text);
  const std::string full = kRepeatedRow + kRowNameSuffix;
  std::vector<int> indices;
  for (const json& b : doc.at("benchmarks"))
    if (b.at("run_type") == "iteration") {
      indices.push_back(b.at("repetition_index"));
      EXPECT_EQ(b.at("repetitions"), 3);
    }
  EXPECT_EQ(indices, (std::vector<int>{0, 1, 2}));
  const json& med = row(doc, full, "median");
  EXPECT_EQ(med.at("run_type"), "aggregate");
  EXPECT_EQ(med.at("layout"), "nn") << "aggregates carry the layout too";
  EXPECT_DOUBLE_EQ(med.at("pct_cublas").get<double>(), 101.0);
  EXPECT_DOUBLE_EQ(med.at("ms").get<double>(), 2.0);
  EXPECT_NEAR(med.at("real_time").get<double>(), 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(row(doc, full, "ci_lo").at("pct_cublas").get<double>(), 99.0);
  EXPECT_DOUBLE_EQ(row(doc, full, "ci_hi").at("pct_cublas").get<double>(), 103.0);
}

TEST(ResultsJson, NoRepetitionsNoAggregates) {
  const json doc = json::parse(run(with_format("json"), [] {
    register_row("rung07_fake/1x1x1", [](benchmark::State& st) { report_row(st, sample_row()); });
  }));
  for (const json& b : doc.at("benchmarks")) EXPECT_EQ(b.at("run_type"), "iteration");
}

// Google Benchmark's CSV writer stops the program when a row brings a counter its header lacks:
// every row gets every counter.
TEST(ResultsCsv, RowsWithDifferentCountersShareOneHeader) {
  const std::string text = run(with_format("csv"), [] {
    register_row("rung00_fake/1x1x1", [](benchmark::State& st) { report_row(st, sample_row()); });
    register_row("rung12_fake/1x1x1", [](benchmark::State& st) {
      RowCounters c = sample_row();
      c.fp32_accurate = false;
      c.pct_cublas_tf32 = 40;
      report_row(st, c);
    });
  });
  std::istringstream lines(text);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_NE(header.find("pct_cublas_tf32"), std::string::npos) << text;
  EXPECT_NE(header.find("pct_cublas_hi"), std::string::npos) << text;
  int rows = 0;
  while (std::getline(lines, line)) rows += line.rfind("\"rung", 0) == 0;
  EXPECT_EQ(rows, 2) << text;
}

TEST(ResultsTable, RowFormat) {
  const std::string line = TableReporter::row_line("rung07_bank_conflict_free/4096x2048x1024", sample_row());
  EXPECT_NE(line.find("4096x2048x1024"), std::string::npos);
  EXPECT_NE(line.find("12346"), std::string::npos) << line;  // GFLOP/s, no decimals
  EXPECT_NE(line.find("87.2 [86.5, 88.0]  slower"), std::string::npos) << line;
  EXPECT_NE(line.find("1.50e-07"), std::string::npos) << line;
  EXPECT_NE(line.find("yes"), std::string::npos) << line;
  EXPECT_NE(line.find("1950-1980"), std::string::npos) << line;
  EXPECT_EQ(line.find("clock"), std::string::npos) << line;
  RowCounters unchecked = sample_row();
  unchecked.checked = false;
  EXPECT_NE(TableReporter::row_line("x", unchecked).find("skipped"), std::string::npos);
  EXPECT_NE(TableReporter::header_line().find("% cuBLAS [95% interval]"), std::string::npos);
  EXPECT_NE(TableReporter::header_line().find("hot % cuBLAS"), std::string::npos);
  EXPECT_NE(line.find("95.5 [94.2, 97.0]"), std::string::npos) << line;  // the hot figure and its interval
  EXPECT_EQ(line.find("DRAM peak"), std::string::npos) << line;         // only rows with M <= 16 carry it
  RowCounters decode = sample_row();
  decode.pct_hbm_hot = 88.25;
  EXPECT_NE(TableReporter::row_line("x", decode).find("88.2% of the DRAM peak (hot)"), std::string::npos);
  RowCounters cold = sample_row();
  cold.pct_cublas_hot = cold.pct_cublas_hot_lo = cold.pct_cublas_hot_hi = -1;  // --no-hot
  EXPECT_EQ(TableReporter::row_line("x", cold).find("95.5"), std::string::npos);
}

TEST(ResultsTable, VerdictAndClockFlag) {
  RowCounters c = sample_row();
  c.pct_cublas = 101.3, c.pct_cublas_lo = 100.2, c.pct_cublas_hi = 102.4;
  EXPECT_NE(TableReporter::row_line("x", c).find("101.3 [100.2, 102.4]  faster"), std::string::npos);
  c.pct_cublas_lo = 99.8;
  EXPECT_NE(TableReporter::row_line("x", c).find("101.3 [99.8, 102.4]  level"), std::string::npos);
  c.clock_ok = false;
  c.remeasured = 2;
  EXPECT_NE(TableReporter::row_line("x", c).find("SM clock below --clock-threshold in all 3 measurements"),
            std::string::npos);
}

TEST(ResultsTable, RepeatedRowsPrintTheirMedianAndIntervalOverPasses) {
  const std::string shown = run_passes("console", 6, [](int pass) {
    RowCounters c = sample_row();
    c.pct_cublas = 100.5 + pass;  // 100.5 ... 105.5: median 103.0, interval [100.5, 105.5]
    return c;
  });
  EXPECT_NE(shown.find(kRepeatedRow + " #6"), std::string::npos) << shown;
  EXPECT_NE(shown.find("Median over 6 passes"), std::string::npos) << shown;
  EXPECT_NE(shown.find("103.0 [100.5, 105.5]  faster"), std::string::npos) << shown;
}
