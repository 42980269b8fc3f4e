// How results are presented: the counters every row carries (the names tools and notebooks
// read, docs/measuring.md says what each means), the console table, and the reporters that write
// stdout and the results file.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace sgemm::harness {

// What Google Benchmark appends to the name of every row (register_row: one iteration, its own
// time). A CPU test checks it against Google Benchmark's naming.
inline constexpr const char* kRowNameSuffix = "/iterations:1/manual_time";

// The counters of one result row. Names are part of the results-file format.
struct RowCounters {
  int rung = 0;
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;  // lda, ldb, ldc: the leading dimensions the row ran with
  double gflops = 0;         // GFLOPS: 2*M*N*K*batch / ms
  double pct_cublas = 0;     // pct_cublas: median over rounds of 100 x cuBLAS's median time / the rung's
  double pct_cublas_lo = 0;  // pct_cublas_lo, _hi: 95% interval of that median (order statistics over rounds)
  double pct_cublas_hi = 0;
  double cublas_ms = 0;      // cublas_ms: median of cuBLAS's launches, interleaved with this row's
  double rel_err = 0;        // rel_err: ||C - C_fp64||_F / ||C_fp64||_F
  bool verified = false;     // verified: 1 when every element is within the bound
  bool checked = true;       // checked: 0 under --no-check (verified is then 0 and means "not checked")
  double ms = 0;             // ms: median milliseconds per launch, over every timed launch of the row
  double ms_q1 = 0;          // ms_q1, ms_q3: the quartiles of those launch times
  double ms_q3 = 0;
  int samples = 0;           // samples: timed launches of the rung behind the median
  int rounds = 0;            // rounds: interleaved rounds (one ratio each)
  double max_abs_err = 0;
  int sm_clock_mhz = -1;     // sm_clock_mhz: median SM clock sampled over the timed launches (-1: unknown)
  int sm_clock_min_mhz = -1; // sm_clock_min_mhz, _max_mhz: lowest and highest sample
  int sm_clock_max_mhz = -1;
  bool clock_ok = true;      // clock_ok: the lowest sample is at least --clock-threshold % of the max SM clock
  int remeasured = 0;        // remeasured: times the row was measured again because its clock fell
  bool fp32_accurate = true; // fp32_accurate: the rung's Precision says so
  bool packed = false;       // packed: the front door copied unaligned operands to aligned rows (--packing)
  int64_t batch = 1;         // batch: products per launch (sgemm_bench --batch); written only when above 1
  bool bias = false;         // bias: a bias added to every row of C (--bias); written only when set
  // Rows of rungs that are not FP32-accurate are also compared with cuBLAS's own TF32 GEMM
  // (CUBLAS_COMPUTE_32F_FAST_TF32), interleaved on the same inputs; -1 elsewhere (no counter written).
  // Checked rows of every rung but cuBLAS's own: cuBLAS SGEMM's (FP32, pedantic) rel_err on the same
  // inputs, beside the rung's rel_err; -1 elsewhere (no counter written).
  double cublas_rel_err = -1;  // cublas_rel_err: cuBLAS SGEMM's rel_err on these inputs
  double pct_cublas_tf32 = -1;      // pct_cublas_tf32: as pct_cublas, against cuBLAS TF32
  double cublas_tf32_rel_err = -1;  // cublas_tf32_rel_err: cuBLAS TF32's rel_err on these inputs
  // Rows of 3xTF32 rungs are also compared with the same method on cuBLAS's TF32 GEMM
  // (bench::peers::cublas_3xtf32: split, then three cuBLAS TF32 GEMMs), interleaved; -1 elsewhere.
  double pct_cublas_3xtf32 = -1;      // pct_cublas_3xtf32: as pct_cublas, against cuBLAS 3xTF32
  double cublas_3xtf32_rel_err = -1;  // cublas_3xtf32_rel_err: that method's rel_err on these inputs
  // Rows of Ozaki-scheme rungs likewise, against the scheme on cuBLAS's INT8 GEMM
  // (bench::peers::cublas_ozaki_int8: the same pre-pass, batched cuBLAS INT8 GEMMs, a rebuilding kernel).
  double pct_cublas_ozaki_int8 = -1;      // pct_cublas_ozaki_int8: as pct_cublas, against it
  double cublas_ozaki_int8_rel_err = -1;  // cublas_ozaki_int8_rel_err: its rel_err on these inputs
  // Rows of Ozaki-scheme rungs under --gemmul8 N: GEMMul8 with N moduli (fast mode), interleaved
  // with the rung on the same inputs; -1 elsewhere (no counter written).
  double pct_gemmul8 = -1;      // pct_gemmul8: as pct_cublas, against GEMMul8
  double gemmul8_rel_err = -1;  // gemmul8_rel_err: its rel_err on these inputs
  int gemmul8_moduli = -1;      // gemmul8_moduli: N
  // Rows of Ozaki-scheme rungs: the number of moduli forced by --moduli N (0: the rung's plan).
  int ozaki_moduli = -1;        // ozaki_moduli; -1 on other rows (no counter written)
  // Under --energy SECONDS: the rung's, then cuBLAS's, launches alone for that long each, the
  // GPU's energy counter (NVML) read around them; -1 elsewhere (no counter written).
  double watts = -1;                   // watts: the rung's mean power over its burst
  double gflop_per_joule = -1;         // gflop_per_joule: 2 M N K (x batch) per launch / its energy per launch
  double cublas_watts = -1;            // cublas_watts, cublas_gflop_per_joule: the same for cuBLAS
  double cublas_gflop_per_joule = -1;
  // Hot timing (timing.hpp: time_hot), every timed row unless --no-hot; -1 elsewhere (not written).
  double pct_cublas_hot = -1;     // pct_cublas_hot: as pct_cublas, from graph replays (one ratio a round)
  double pct_cublas_hot_lo = -1;  // pct_cublas_hot_lo, _hi: its 95% interval
  double pct_cublas_hot_hi = -1;
  double ms_hot = -1;             // ms_hot: median over rounds of the rung's ms per launch in a replay
  double cublas_ms_hot = -1;      // cublas_ms_hot: the same for cuBLAS
  int hot_launches = -1;          // hot_launches: launches in each replayed graph
  // Rows with M <= 16 (bound by reading the operands): 100 x the time to move the operands' bytes
  // (A, B, C written, C read too where beta != 0, the bias; every product) at the GPU's DRAM peak
  // over ms_hot.
  double pct_hbm_hot = -1;        // pct_hbm_hot
  // A rung that predicts its own time (the dispatch rung): its model's ms for the row's call.
  double predicted_ms = -1;       // predicted_ms
};

// Counters only accuracy-sweep rows carry: accuracy_sweep (1), input_normal (1 = yes) and
// input_wide_exponent (E of the wide distribution's rows, 0 on the others).
inline constexpr const char* kAccuracyCounters[] = {"accuracy_sweep", "input_normal", "input_wide_exponent"};

// The row's counters. A value that is not finite is left out (Google Benchmark would write NaN,
// which is not JSON).
void set_counters(benchmark::State& state, const RowCounters& c);

// Reads a row's counters back from a Google Benchmark run; absent ones keep their defaults.
RowCounters counters_of(const benchmark::BenchmarkReporter::Run& run);

// Every counter name a row can carry.
std::vector<std::string> counter_names();

// The one row field that is text, not a number: the layout ("nn", "nt", "tn", "tt"; op(A)'s letter
// first). JSON rows carry it as "layout", every row; other formats name it in the row's name.
inline constexpr const char* kLayoutField = "layout";

// Registers a row: one iteration whose time is the row's own median (report_row), in ms.
void register_row(const std::string& name, std::function<void(benchmark::State&)> fn);
// Runs the row's single iteration with c.ms as its time (so that the results file's real_time is
// the median, the same as the ms counter) and sets the counters.
void report_row(benchmark::State& state, const RowCounters& c);

// Prints each row as it completes, as a fixed-width table: % of cuBLAS with its interval and
// verdict, the SM clock range. Rows that failed carry no counters; their messages come from
// `errors` (benchmark name -> message), kept by the caller because Google Benchmark 1.7 and 1.8
// name the error fields of a run differently. Aggregates (--repetitions) print as one line per
// row: the median, and the interval of the median over the passes.
class TableReporter : public benchmark::BenchmarkReporter {
 public:
  TableReporter(std::string header, const std::map<std::string, std::string>* errors)
      : header_(std::move(header)), errors_(errors) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override {}
  static std::string header_line(size_t name_width = kNameWidth);
  static std::string row_line(const std::string& name, const RowCounters& c, size_t name_width = kNameWidth);
  static constexpr size_t kNameWidth = 44;

 private:
  std::string header_;
  const std::map<std::string, std::string>* errors_;
  size_t name_width_ = kNameWidth;
  bool summary_started_ = false;
};

// The aggregates of one row's passes (runs that failed, which carry no counters, left out): none
// for fewer than two; else "median" (every counter and the time: their median over the passes),
// "ci_lo" and "ci_hi" (the bounds of the order-statistic interval of that median, stats.hpp).
std::vector<benchmark::BenchmarkReporter::Run> summarize_passes(const std::vector<benchmark::BenchmarkReporter::Run>& passes);

// Forwards every row to an inner reporter (the console table, JSON or CSV), and:
//  - numbers the passes of a row run several times (`passes`: row name -> how many times it
//    runs): repetition_index 0..N-1, repetitions N; after the last row, adds each such row's
//    summarize_passes() aggregates;
//  - for CSV, gives every row every counter (0 where one does not apply: Google Benchmark's CSV
//    writer stops the program when a later row brings a counter the header lacks).
class SweepReporter : public benchmark::BenchmarkReporter {
 public:
  SweepReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, std::map<std::string, int> passes,
                bool every_counter);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::map<std::string, int> passes_;
  bool every_counter_;
  std::vector<std::string> repeated_;            // rows with passes, in the order they first ran
  std::map<std::string, std::vector<Run>> seen_;  // row name -> its passes so far
  void forward(std::vector<Run> runs);
};

// The reporter for one output in `format` (console: the table, or Google Benchmark's own console
// table with every counter when `counters_tabular`; json; csv), wrapped in a SweepReporter. JSON
// rows get kLayoutField from `layouts` (row name -> layout; "nn" for a row it does not list).
std::unique_ptr<SweepReporter> make_reporter(const std::string& format, bool counters_tabular,
                                             const std::string& table_header,
                                             const std::map<std::string, std::string>* errors,
                                             const std::map<std::string, int>& passes,
                                             const std::map<std::string, std::string>& layouts = {});

}  // namespace sgemm::harness
