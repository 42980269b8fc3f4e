// What one sgemm_bench run is asked to do, and how it ends: the settings the command line
// (cli.hpp) fills in and the rest of the harness reads (rows.hpp plans and names its rows from
// them), and the exit codes every part reports with. Defined here, below the CLI, so that the
// harness depends on these settings and never on the command line that parses them.
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
  std::vector<Shape> shapes;         // default: 4096^3; each carries the layout, batch and bias below
  std::string suite;                 // --suite NAME or file, as given ("" without one)
  std::string layout = "nn";         // --layout: op(A)'s letter, then op(B)'s (t: stored transposed)
  int64_t batch = 1;                 // --batch: products per call
  bool bias = false;                 // --bias: a bias of N floats added to every row of C
  float alpha = 1.0f, beta = 0.0f;
  InputKind input = InputKind::kUniform;
  int wide_exponent = 20;            // E of --input wide: entries u * 2^e, e in [-E, E]
  uint64_t seed = 42;
  int warmup = 5;
  int repeat = 0;                    // timed launches of each kernel per round; 0: from min_time
  double min_time = 0.25;            // seconds of the rung's timed launches per row (repeat == 0)
  int rounds = 9;                    // R: rounds of interleaved rung / cuBLAS launches per row
  bool hot = true;                   // also time every row hot (a CUDA graph of launches; timing.hpp)
  double hot_time = 0.1;             // --hot-time: seconds of the rung's replayed launches per row
  int gemmul8 = 0;                   // --gemmul8 N: GEMMul8 with N moduli beside each Ozaki rung (0: not timed)
  std::string gemmul8_mode = "fast"; // --gemmul8-mode: GEMMul8's fast or accurate mode
  int moduli = 0;                    // --moduli N: the Ozaki rungs' number of moduli (0: their plan's)
  double energy_time = 0;            // --energy SECONDS: each row's rung and cuBLAS run that long alone, under NVML's energy counter (0: not measured)
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

}  // namespace sgemm::harness
