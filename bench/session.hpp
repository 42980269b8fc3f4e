// One sgemm_bench run: owns the current problem, the cuBLAS baseline per shape, and the
// Google Benchmark functions that verify and time each (rung, shape) row.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "harness/cli.hpp"
#include "harness/device_info.hpp"
#include "harness/problem.hpp"
#include "harness/timing.hpp"
#include "harness/verify.hpp"

namespace sgemm::bench {

class Session {
 public:
  Session(harness::Options options, harness::DeviceInfo device);
  ~Session();

  // Registers every row with Google Benchmark, in order: for each shape, cuBLAS then the rungs;
  // then the accuracy sweep when asked for.
  void register_benchmarks();

  // Tiny launch of every requested rung: an architecture mismatch is found before timing.
  // Returns an empty string or the one-line reason.
  std::string preflight();

  const std::map<std::string, std::string>& errors() const { return errors_; }
  bool verification_failed() const { return verification_failed_; }
  bool device_failed() const { return device_failed_; }

 private:
  void run_row(benchmark::State& state, const std::string& name, const Rung& rung, const harness::Shape& shape);
  void run_accuracy(benchmark::State& state, const std::string& name, const Rung& rung, int64_t K,
                    harness::InputKind kind);
  harness::Problem& problem_for(const harness::Shape& shape, harness::InputKind kind, bool rotate);
  double cublas_ms(const harness::Shape& shape);
  // Poison C of set 0, run `launch` (it may fill the detail of a failure), wait, verify.
  harness::VerifyResult verify_launch(harness::Problem& p, const Precision& precision,
                                      const std::function<Status(std::string*)>& launch);
  harness::VerifyResult verify_rung(const Rung& rung, harness::Problem& p);
  // cuBLAS's TF32 GEMM on the problem `key` names (the comparison for rungs that are not
  // FP32-accurate): its rel_err and, when `launches` > 0, its median time. Cached per key.
  struct Tf32Baseline {
    double rel_err = -1, ms = -1;
  };
  Tf32Baseline cublas_tf32_on(harness::Problem& p, const std::string& key, const Precision& precision,
                              int launches);
  void fail(benchmark::State& state, const std::string& name, const std::string& message, bool device_problem);

  harness::Options o_;
  harness::DeviceInfo dev_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<harness::Problem> problem_;
  std::string problem_key_;
  std::map<std::string, double> cublas_ms_;              // shape -> median ms
  std::map<std::string, harness::VerifyResult> verified_;  // row name -> result
  std::map<std::string, Tf32Baseline> cublas_tf32_;       // problem key -> cuBLAS TF32 figures
  std::map<std::string, std::string> errors_;
  bool verification_failed_ = false;
  bool device_failed_ = false;
};

}  // namespace sgemm::bench
