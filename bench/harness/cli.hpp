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
  int wide_exponent = 20;            // E of --input wide: entries u * 2^e, e in [-E, E]
  uint64_t seed = 42;
  int warmup = 5;
  int repeat = 0;                    // timed launches of each kernel per round; 0: from min_time
  double min_time = 0.25;            // seconds of the rung's timed launches per row (repeat == 0)
  int rounds = 9;                    // R: rounds of interleaved rung / cuBLAS launches per row
  int repetitions = 1;               // passes over the whole sweep
  double clock_threshold_pct = 90;   // rows whose SM clock fell below this % of the max: re-measured, flagged
  bool check = true;                 // verify every rung against the FP64 reference
  bool list = false;
  bool accuracy_sweep = false;       // error against FP64 over K for every rung
  std::vector<int64_t> accuracy_ks;  // K values of the sweep
  int64_t accuracy_mn = 1024;        // M = N of the sweep
  std::vector<int> accuracy_exponents;  // E of the sweep's wide rows (besides uniform and normal)
  std::string out_path;              // results file (--json FILE, or --benchmark_out=FILE)
  std::string out_format = "json";   // its format: json, csv, console (--benchmark_out_format)
  std::string format = "console";    // stdout: console (sgemm_bench's table), json, csv (--benchmark_format)
  bool counters_tabular = false;     // console: Google Benchmark's table of every counter instead
  std::string filter;                // --benchmark_filter: rows to run (regular expression)
  std::string packing = "auto";      // --packing: the front door's packing of unaligned operands (auto, always, never)
  std::string fault;                 // --inject-fault KIND (fault-lab builds only)
  double soak_minutes = 0;           // --soak MINUTES: random verified GEMMs for this long
};

struct ParseResult {
  int exit_code = -1;   // -1: go on and run; otherwise exit with this code
  std::string output;   // what to print (help, version, --list table, row names, or the one-line error)
  Options options;
};

// `version_line` is what --version prints ("sgemm_bench 0.1.0 (<git describe>)").
ParseResult parse_cli(int argc, const char* const* argv, const std::string& version_line = "sgemm_bench");

// The --list table: id, slug, lesson, tile.
std::string list_table();

// The fully explicit command line that reproduces a run with these options.
std::string reproduce_command(const Options& o, const std::string& program);

// Comma-separated lists of sizes, as the command lines of sgemm_bench and sgemm_autotune take
// them: "" when `text` is one (no empty item, every item an integer >= `min`), else why not.
std::string size_list_problem(const std::string& text, int64_t min = 0);
std::vector<int64_t> parse_size_list(const std::string& text);  // of a text size_list_problem accepts
// The same for comma-separated MxNxK shapes (dense rows), every size an integer >= `min`.
std::string shape_list_problem(const std::string& text, int64_t min = 0);
std::vector<Shape> parse_shape_list(const std::string& text);  // of a text shape_list_problem accepts

}  // namespace sgemm::harness
