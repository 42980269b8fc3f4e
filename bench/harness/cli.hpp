// sgemm_bench's command line (CLI11). Parsing and every usage check happen here, before any
// GPU work, so a bad command behaves the same with or without a GPU (exit 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem.hpp"

namespace sgemm::harness {

enum ExitCode : int {
  kExitOk = 0,
  kExitVerifyFailed = 1,
  kExitUsage = 2,
  kExitDevice = 3,  // no usable CUDA device, kernel not built for it, or out of its memory
};

struct Options {
  std::vector<int> kernels;          // rung ids, in the order given (default: every rung)
  std::vector<Shape> shapes;         // default: 4096^3
  float alpha = 1.0f, beta = 0.0f;
  InputKind input = InputKind::kUniform;
  uint64_t seed = 42;
  int warmup = 5;
  int repeat = 0;                    // 0: as many as fit in min_time (Google Benchmark decides)
  double min_time = 0.25;            // seconds per row when repeat == 0
  bool check = true;                 // verify every rung against the FP64 reference
  bool list = false;
  bool accuracy_sweep = false;       // error against FP64 over K for every rung
  std::vector<int64_t> accuracy_ks;  // K values of the sweep
  int64_t accuracy_mn = 1024;        // M = N of the sweep
  std::string json;                  // --json FILE
  std::string fault;                 // --inject-fault KIND (fault-lab builds only)
  double soak_minutes = 0;           // --soak MINUTES: random verified GEMMs for this long
  std::vector<std::string> benchmark_args;  // --benchmark_* passed to Google Benchmark
};

struct ParseResult {
  int exit_code = -1;   // -1: go on and run; otherwise exit with this code
  std::string output;   // what to print (help, --list table, or the one-line error)
  Options options;
};

ParseResult parse_cli(int argc, const char* const* argv);

// The --list table: id, slug, lesson, tile.
std::string list_table();

// The fully explicit command line that reproduces a run with these options.
std::string reproduce_command(const Options& o, const std::string& program);

}  // namespace sgemm::harness
