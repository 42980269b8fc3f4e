// sgemm_bench — the front door of the SGEMM Ladder.
//
//   sgemm_bench                      every rung at 4096^3, verified, against cuBLAS
//   sgemm_bench --kernel 7 --size 8192
//   sgemm_bench --list
//   sgemm_bench --sizes 256,512,1024 --json results.json
//   sgemm_bench --soak 5                 random shapes and rungs for 5 minutes, every result verified
//
// Usage errors are found before any GPU work (exit 2). Exit 1: a verification failed.
// Exit 3: no usable CUDA device, a kernel not built for it, or out of device memory.
#include <cstdio>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "harness/cli.hpp"
#include "harness/device_info.hpp"
#include "harness/report.hpp"
#include "harness/timing.hpp"
#include "session.hpp"
#include "soak.hpp"

#ifdef SGEMM_LADDER_FAULT_LAB
#include "fault_lab.hpp"
#endif

#include "sgemm_git_version.h"  // SGEMM_LADDER_GIT, generated at build time (cmake/GitVersion.cmake)

using namespace sgemm::harness;

namespace {

std::string header_text(const DeviceInfo& d) {
  const auto ctx = context_pairs(d);
  std::string h = "SGEMM Ladder on " + d.name + " (" + d.arch() + ", " + std::to_string(d.sm_count) +
                  " SMs, max SM clock " + std::to_string(d.sm_clock_max_mhz) + " MHz)";
  for (const auto& kv : ctx)
    if (kv.first == "driver_version" || kv.first == "cuda_runtime" || kv.first == "cublas_version")
      h += ", " + kv.first + " " + kv.second;
  return h + "\nTimes are medians of launches between CUDA events, inputs rotated past L2; "
             "% cuBLAS is cuBLAS (FP32, pedantic, no TF32) measured in this run on the same inputs.";
}

}  // namespace

int main(int argc, char** argv) {
  ParseResult parsed = parse_cli(argc, argv);
  if (parsed.exit_code >= 0) {
    std::fprintf(parsed.exit_code == kExitOk ? stdout : stderr, "%s\n", parsed.output.c_str());
    return parsed.exit_code;
  }
  Options& o = parsed.options;

  if (!o.fault.empty()) {
#ifdef SGEMM_LADDER_FAULT_LAB
    return sgemm::fault_lab::run(o);
#else
    std::fprintf(stderr,
                 "sgemm_bench: error: --inject-fault needs a fault-lab build "
                 "(cmake --preset debug, or -DSGEMM_LADDER_FAULT_LAB=ON)\n");
    return kExitUsage;
#endif
  }

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

  // Google Benchmark gets its own flags, plus the JSON file when asked for.
  std::vector<std::string> bargs = {argv[0]};
  if (!o.json.empty()) {
    bargs.push_back("--benchmark_out=" + o.json);
    bargs.push_back("--benchmark_out_format=json");
  }
  bargs.insert(bargs.end(), o.benchmark_args.begin(), o.benchmark_args.end());
  std::vector<char*> bargv;
  for (std::string& a : bargs) bargv.push_back(a.data());
  int bargc = int(bargv.size());
  benchmark::Initialize(&bargc, bargv.data());

  for (const auto& kv : context_pairs(dev)) benchmark::AddCustomContext(kv.first, kv.second);
  benchmark::AddCustomContext("sm_clock_at_start_mhz", std::to_string(current_sm_clock_mhz(dev.device)));
  try {
    benchmark::AddCustomContext("copy_bandwidth_gbs", std::to_string(int(copy_bandwidth_gbs(nullptr))));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_bench: copy bandwidth not measured: %s\n", e.what());
  }
  benchmark::AddCustomContext("cublas_baseline", "cublasGemmEx_64, CUBLAS_COMPUTE_32F_PEDANTIC, "
                                                 "CUBLAS_PEDANTIC_MATH: pure FP32, TF32 never used");
  benchmark::AddCustomContext("timing", "median of launches each between its own CUDA events, queued "
                                        "back to back, inputs rotated through sets larger than 2x L2");
  benchmark::AddCustomContext("input", input_kind_name(o.input));
  benchmark::AddCustomContext("sgemm_ladder_git", SGEMM_LADDER_GIT);
  const std::string command = reproduce_command(o, "sgemm_bench");
  benchmark::AddCustomContext("command", command);

  TableReporter table(header_text(dev), &session.errors());
  benchmark::RunSpecifiedBenchmarks(&table);
  benchmark::Shutdown();

  std::printf("\nReproduce: %s\n", command.c_str());
  if (!o.json.empty()) std::printf("JSON written to %s\n", o.json.c_str());
  if (session.device_failed()) return kExitDevice;
  if (session.verification_failed() || !session.errors().empty()) {
    std::fprintf(stderr, "sgemm_bench: at least one row failed (see above)\n");
    return kExitVerifyFailed;
  }
  return kExitOk;
}
