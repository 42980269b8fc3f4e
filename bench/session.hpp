// One sgemm_bench run: owns the current problem and the Google Benchmark functions that verify
// and time each row (rows.hpp: every rung at every shape, interleaved with cuBLAS).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "harness/options.hpp"
#include "harness/clocks.hpp"
#include "harness/device_info.hpp"
#include "harness/problem.hpp"
#include "harness/report.hpp"
#include "harness/rows.hpp"
#include "harness/timing.hpp"
#include "harness/verify.hpp"

namespace sgemm::bench {

class Session {
 public:
  Session(harness::Options options, harness::DeviceInfo device);
  ~Session();

  // Registers every row of harness::plan_rows() with Google Benchmark, in that order.
  void register_benchmarks();

  // Tiny launch of every requested rung: an architecture mismatch is found before timing.
  // Returns an empty string or the one-line reason.
  std::string preflight();

  const std::map<std::string, std::string>& errors() const { return errors_; }
  // Whether a row failed: an error that is not a rung's refusal of wide-exponent inputs.
  bool rows_failed() const;
  bool verification_failed() const { return verification_failed_; }
  bool device_failed() const { return device_failed_; }
  harness::SmClockSampler& clocks() { return *clocks_; }

  // A row whose SM clock fell below the threshold is measured again after this pause, at most
  // this many more times (throttle recovery, as nvbench does it).
  static constexpr std::chrono::seconds kThrottlePause{1};
  static constexpr int kMaxRemeasures = 2;

 private:
  struct Measured {
    harness::Rounds rounds;
    int remeasured = 0;
  };

  void run_row(benchmark::State& state, const harness::RowPlan& row);
  void run_accuracy(benchmark::State& state, const harness::RowPlan& row);
  // The current problem, built anew when the shape, the distribution (with its exponent range,
  // `wide_exponent`, for the wide one) or the rotation differ from the last call's.
  harness::Problem& problem_for(const harness::Shape& shape, harness::InputKind kind, int wide_exponent, bool rotate);
  // The interleaved measurement, repeated while the SM clock stays below the threshold.
  Measured measure(const std::vector<harness::LaunchFn>& contenders, int sets, const harness::RoundsPlan& plan);
  bool clock_ok(const harness::ClockRange& clock) const;
  // Hot timing of a row's first two contenders (the rung, cuBLAS): fills c's hot figures.
  void time_row_hot(const std::vector<harness::LaunchFn>& contenders, int sets, const harness::Shape& shape,
                    harness::RowCounters* c);
  static constexpr int64_t kHbmRows = 16;  // rows with M up to this carry pct_hbm_hot
  // Rows whose cold launch takes longer are not timed hot: a graph saves a launch microseconds,
  // nothing a launch this long would show, and replaying it would double the row's time.
  static constexpr double kHotMaxMs = 20.0;
  void set_clock_counters(const harness::ClockRange& clock, harness::RowCounters* c) const;
  // Mean watts and joules per launch of one contender run alone (--energy); -1 when unknown.
  struct Energy {
    double watts = -1, joules = -1;
  };
  Energy measure_energy(const harness::LaunchFn& launch, int sets, double ms);
  // Poison C of set 0, run `launch` (it may fill the detail of a failure), wait, verify.
  harness::VerifyResult verify_launch(harness::Problem& p, const Precision& precision,
                                      const std::function<Status(std::string*)>& launch);
  // The rung's verification of row `name` (cached: later passes reuse it); fills c's error fields.
  void verify_row(const std::string& name, const Rung& rung, harness::Problem& p, harness::RowCounters* c);
  // cuBLAS's TF32 GEMM on the problem `key` names: its rel_err (the comparison for rungs that
  // are not FP32-accurate). Cached per key.
  using GemmFn = Status (*)(const GemmArgs&, cudaStream_t);
  double method_rel_err(std::map<std::string, double>& cache, harness::Problem& p, const std::string& key,
                        const Precision& precision, GemmFn method, const char* what);
  double cublas_tf32_rel_err(harness::Problem& p, const std::string& key, const Precision& precision);
  // cuBLAS SGEMM's own rel_err on the problem `key` names (beside every checked row). Cached per key.
  double cublas_rel_err(harness::Problem& p, const std::string& key);
  // The same method on cuBLAS's own GEMM, for the FP32-accurate tensor-core rungs (3xTF32 on its
  // TF32 GEMM, the Ozaki scheme on its INT8 GEMM): which function, and where its figures go.
  struct CublasMethod {
    GemmFn fn;
    const char* what;
    double harness::RowCounters::*pct;
    double harness::RowCounters::*rel_err;
  };
  static const CublasMethod* cublas_method(const Rung& rung);  // null: the rung has none
  static bool ozaki_rung(const Rung& rung);  // the rung runs the Ozaki scheme (its precision model says so)
  // That method's rel_err on the problem `key` names, cached per method and key.
  double cublas_method_rel_err(const CublasMethod& m, harness::Problem& p, const std::string& key,
                               const Precision& precision);
  void fail(benchmark::State& state, const std::string& name, const std::string& message, bool device_problem);

  harness::Options o_;
  harness::DeviceInfo dev_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<harness::SmClockSampler> clocks_;
  std::unique_ptr<harness::Problem> problem_;
  std::string problem_key_;
  std::map<std::string, harness::VerifyResult> verified_;  // row name -> result
  std::map<std::string, double> cublas_tf32_rel_err_;      // problem key -> cuBLAS TF32's rel_err
  std::map<std::string, double> cublas_rel_err_;           // problem key -> cuBLAS SGEMM's rel_err
  std::map<std::string, std::map<std::string, double>> cublas_method_rel_err_;  // method -> problem key -> rel_err
  std::map<std::string, double> gemmul8_rel_err_;                             // problem key -> GEMMul8's rel_err
  std::map<std::string, std::string> errors_;
  std::set<std::string> refused_;  // accuracy rows whose rung refused the wide-exponent inputs
  bool verification_failed_ = false;
  bool device_failed_ = false;
};

}  // namespace sgemm::bench
