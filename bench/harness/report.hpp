// How results are presented: the counters every row carries (the names tools and notebooks
// read), the console table, and the context block of the JSON file.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace sgemm::harness {

// The counters of one result row. Names are part of the results-file format.
struct RowCounters {
  int rung = 0;
  int64_t M = 0, N = 0, K = 0;
  double gflops = 0;      // GFLOPS: 2*M*N*K / median time
  double pct_cublas = 0;  // pct_cublas: cuBLAS median time / this rung's median time * 100
  double rel_err = 0;     // rel_err: ||C - C_fp64||_F / ||C_fp64||_F
  bool verified = false;  // verified: 1 when every element is within the bound
  double ms = 0;          // ms: median milliseconds per launch
  int samples = 0;        // samples: timed launches behind the median
  double max_abs_err = 0;
  int sm_clock_mhz = -1;  // SM clock read right after timing (-1: unknown)
  bool checked = true;    // false under --no-check (verified is then 0 and means "not checked")
  bool fp32_accurate = true;      // fp32_accurate: the rung's Precision says so
  // Rows of rungs that are not FP32-accurate are also compared with cuBLAS's own TF32 GEMM
  // (CUBLAS_COMPUTE_32F_FAST_TF32) on the same inputs; -1 elsewhere (no counter written).
  double pct_cublas_tf32 = -1;    // pct_cublas_tf32: cuBLAS TF32 median time / this row's * 100
  double cublas_tf32_rel_err = -1;  // cublas_tf32_rel_err: cuBLAS TF32's rel_err on these inputs
};

void set_counters(benchmark::State& state, const RowCounters& c);

// Prints each row as it completes, as a fixed-width table. Rows that failed carry no counters;
// their messages come from `errors` (benchmark name -> message), kept by the caller because
// Google Benchmark 1.7 and 1.8 name the error fields of a run differently.
class TableReporter : public benchmark::BenchmarkReporter {
 public:
  TableReporter(std::string header, const std::map<std::string, std::string>* errors)
      : header_(std::move(header)), errors_(errors) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override {}
  static std::string header_line();
  static std::string row_line(const std::string& name, const RowCounters& c);

 private:
  std::string header_;
  const std::map<std::string, std::string>* errors_;
};

// Reads a row's counters back from a Google Benchmark run.
RowCounters counters_of(const benchmark::BenchmarkReporter::Run& run);

}  // namespace sgemm::harness
