// sgemm_bench — the front door of the SGEMM Ladder.
//
//   sgemm_bench                      every rung at 4096^3, verified, against cuBLAS
//   sgemm_bench --kernel 7 --size 8192
//   sgemm_bench --list
//   sgemm_bench --sizes 256,512,1024 --json results.json
//   sgemm_bench --sizes 1024,4096 --repetitions 5     five passes; medians and intervals over them
//   sgemm_bench --soak 5                 random shapes and rungs for 5 minutes, every result verified
//
// Usage errors are found before any GPU work (exit 2). Exit 1: a verification failed.
// Exit 3: no usable CUDA device, a kernel not built for it, or out of device memory.
// What every figure means: docs/measuring.md.
#include <cstdio>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "harness/cli.hpp"
#include "harness/device_info.hpp"
#include "harness/report.hpp"
#include "harness/rows.hpp"
#include "harness/timing.hpp"
#include "peers/gemmul8.hpp"
#include "session.hpp"
#include "soak.hpp"

#ifdef SGEMM_LADDER_FAULT_LAB
#include "fault_lab/fault_lab.hpp"
#endif

#include "sgemm_git_version.h"  // SGEMM_LADDER_GIT, generated at build time (cmake/GitVersion.cmake)

using namespace sgemm::harness;

namespace {

std::string header_text(const DeviceInfo& d, const Options& o, const char* clock_source) {
  const auto ctx = context_pairs(d);
  std::string h = "SGEMM Ladder on " + d.name + " (" + d.arch() + ", " + std::to_string(d.sm_count) +
                  " SMs, max SM clock " + std::to_string(d.sm_clock_max_mhz) + " MHz)";
  for (const auto& kv : ctx)
    if (kv.first == "driver_version" || kv.first == "cuda_runtime" || kv.first == "cublas_version")
      h += ", " + kv.first + " " + kv.second;
  char rule[160];
  std::snprintf(rule, sizeof rule, "%.0f%% of %d MHz", o.clock_threshold_pct, d.sm_clock_max_mhz);
  return h + "\nms: median of launches between CUDA events, inputs rotated past L2. % cuBLAS: median over " +
         std::to_string(o.rounds) + " rounds of the rung interleaved with cuBLAS (FP32, pedantic, no TF32) on the " +
         "same inputs, [95% interval]; \"faster\"/\"slower\" only where the interval excludes 100%." +
         (o.hot ? "\nhot % cuBLAS: the same from CUDA graphs of launches (rotated inputs), one replay of each a round." : "") +
         "\nSM MHz: clock "
         "range over the row (" + clock_source + "); rows below " + rule + " are measured again, then flagged.";
}

// The Google Benchmark context block: machine, software, and how the figures were measured.
void add_context(const DeviceInfo& dev, const Options& o, sgemm::bench::Session& session, const std::string& command) {
  for (const auto& kv : context_pairs(dev)) benchmark::AddCustomContext(kv.first, kv.second);
  benchmark::AddCustomContext("sm_clock_at_start_mhz", std::to_string(session.clocks().now_mhz()));
  benchmark::AddCustomContext("sm_clock_source", session.clocks().source());
  try {
    benchmark::AddCustomContext("copy_bandwidth_gbs", std::to_string(int(copy_bandwidth_gbs(nullptr))));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_bench: copy bandwidth not measured: %s\n", e.what());
  }
  benchmark::AddCustomContext("cublas_baseline", "cublasGemmEx_64, CUBLAS_COMPUTE_32F_PEDANTIC, "
                                                 "CUBLAS_PEDANTIC_MATH: pure FP32, TF32 never used");
  benchmark::AddCustomContext("timing", "each launch between its own CUDA events, queued back to back, inputs "
                                        "rotated through sets larger than 2x L2; per row, rounds of the rung's "
                                        "launches interleaved with cuBLAS's (order alternating)");
  if (o.hot)
    benchmark::AddCustomContext("timing_hot", "each contender's launches (" + std::to_string(o.hot_time) +
                                                  " s of the rung's a row) captured into one CUDA graph over the rotated "
                                                  "inputs, each graph replayed once a round between two events, "
                                                  "rounds alternating the order; per launch: replay time / launches");
  benchmark::AddCustomContext("interval", "95% distribution-free order-statistic interval of the median "
                                          "(per row: over rounds; aggregates: over repetitions)");
  benchmark::AddCustomContext("rounds", std::to_string(o.rounds));
  benchmark::AddCustomContext("repetitions", std::to_string(o.repetitions));
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", o.clock_threshold_pct);
  benchmark::AddCustomContext("clock_threshold_pct", threshold);
  benchmark::AddCustomContext("input", input_label(o.input, o.wide_exponent));
  benchmark::AddCustomContext("packing", o.packing);  // the front door's packing of unaligned operands  // "wide20" for --input wide
  benchmark::AddCustomContext("sgemm_ladder_version", SGEMM_LADDER_VERSION);
  benchmark::AddCustomContext("sgemm_ladder_git", SGEMM_LADDER_GIT);
  // The commit in full and whether the tree was clean (tools/tree_stamp.py, through cmake/GitVersion.cmake).
  benchmark::AddCustomContext("sgemm_ladder_commit", SGEMM_LADDER_COMMIT);
  benchmark::AddCustomContext("sgemm_ladder_clean", SGEMM_LADDER_CLEAN);
  benchmark::AddCustomContext("sgemm_ladder_commit_from", SGEMM_LADDER_COMMIT_FROM);
  benchmark::AddCustomContext("command", command);
  if (o.gemmul8)
    benchmark::AddCustomContext("gemmul8", "GEMMul8 " + sgemm::bench::peers::gemmul8_commit() + ", gemmul8::gemm<float>, INT8, " +
                                               std::to_string(o.gemmul8) + " moduli, " + o.gemmul8_mode + " mode");
  if (o.moduli)
    benchmark::AddCustomContext("ozaki_moduli", std::to_string(o.moduli) + " moduli forced on the Ozaki rungs and "
                                                "cuBLAS's INT8 method (--moduli), as many bits as they hold at each K");
  if (o.energy_time > 0)
    benchmark::AddCustomContext("energy", "NVML's total energy counter around " + std::to_string(o.energy_time) +
                                              " s of the rung's launches alone, then cuBLAS's");
}

}  // namespace

int main(int argc, char** argv) {
  ParseResult parsed = parse_cli(argc, argv, "sgemm_bench " SGEMM_LADDER_VERSION " (" SGEMM_LADDER_GIT ")");
  if (parsed.exit_code >= 0) {
    std::fprintf(parsed.exit_code == kExitOk ? stdout : stderr, "%s\n", parsed.output.c_str());
    return parsed.exit_code;
  }
  Options& o = parsed.options;

  if (!o.fault.empty()) {
#ifdef SGEMM_LADDER_FAULT_LAB
    return sgemm::fault_lab::run(o);
#else
    std::fprintf(stderr, "sgemm_bench: error: --inject-fault needs a fault-lab build (-DSGEMM_LADDER_FAULT_LAB=ON)\n");
    return kExitUsage;
#endif
  }

  if (o.gemmul8) {
    if (!sgemm::bench::peers::gemmul8_available()) {
      std::fprintf(stderr,
                   "sgemm_bench: error: --gemmul8 needs a build with GEMMul8 (cmake -DSGEMM_GEMMUL8_SOURCE=<checkout>)\n");
      return kExitUsage;
    }
    sgemm::bench::peers::set_gemmul8_moduli(o.gemmul8);
    sgemm::bench::peers::set_gemmul8_fast(o.gemmul8_mode == "fast");
  }
  sgemm::set_ozaki_moduli(o.moduli);  // 0..8, checked by the command line
  if (const std::string problem = device_problem(); !problem.empty()) {
    std::fprintf(stderr, "sgemm_bench: %s\n", problem.c_str());
    return kExitDevice;
  }
  if (o.soak_minutes > 0) return sgemm::bench::soak(o, o.soak_minutes);
  const DeviceInfo dev = query_device();
  sgemm::bench::Session session(o, dev);
  if (const std::string why = session.preflight(); !why.empty()) {
    std::fprintf(stderr, "sgemm_bench: %s\n", why.c_str());
    return why.find("NVIDIA_TF32_OVERRIDE") != std::string::npos ? kExitUsage : kExitDevice;
  }
  session.register_benchmarks();

  const std::string command = reproduce_command(o, "sgemm_bench");
  add_context(dev, o, session, command);
  run_rows(o, header_text(dev, o, session.clocks().source()), &session.errors());
  benchmark::Shutdown();

  // The table goes with these lines on stdout; a JSON or CSV stdout stays parseable.
  std::FILE* notes = o.format == "console" ? stdout : stderr;
  std::fprintf(notes, "\nReproduce: %s\n", command.c_str());
  if (!o.out_path.empty()) std::fprintf(notes, "Results written to %s\n", o.out_path.c_str());
  if (session.device_failed()) return kExitDevice;
  if (session.verification_failed() || session.rows_failed()) {
    std::fprintf(stderr, "sgemm_bench: at least one row failed (see above)\n");
    return kExitVerifyFailed;
  }
  return kExitOk;
}
