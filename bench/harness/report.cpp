#include "report.hpp"

#include <cstdio>
#include <iomanip>
#include <sstream>

namespace sgemm::harness {

void set_counters(benchmark::State& state, const RowCounters& c) {
  state.counters["rung"] = c.rung;
  state.counters["M"] = double(c.M);
  state.counters["N"] = double(c.N);
  state.counters["K"] = double(c.K);
  state.counters["GFLOPS"] = c.gflops;
  state.counters["pct_cublas"] = c.pct_cublas;
  state.counters["rel_err"] = c.rel_err;
  state.counters["verified"] = c.verified ? 1 : 0;
  state.counters["checked"] = c.checked ? 1 : 0;
  state.counters["ms"] = c.ms;
  state.counters["samples"] = c.samples;
  state.counters["max_abs_err"] = c.max_abs_err;
  state.counters["sm_clock_mhz"] = c.sm_clock_mhz;
  state.counters["fp32_accurate"] = c.fp32_accurate ? 1 : 0;
  if (c.pct_cublas_tf32 >= 0) state.counters["pct_cublas_tf32"] = c.pct_cublas_tf32;
  if (c.cublas_tf32_rel_err >= 0) state.counters["cublas_tf32_rel_err"] = c.cublas_tf32_rel_err;
}

RowCounters counters_of(const benchmark::BenchmarkReporter::Run& run) {
  RowCounters c;
  auto get = [&](const char* k) {
    auto it = run.counters.find(k);
    return it == run.counters.end() ? 0.0 : double(it->second.value);
  };
  c.rung = int(get("rung"));
  c.M = int64_t(get("M"));
  c.N = int64_t(get("N"));
  c.K = int64_t(get("K"));
  c.gflops = get("GFLOPS");
  c.pct_cublas = get("pct_cublas");
  c.rel_err = get("rel_err");
  c.verified = get("verified") != 0;
  c.checked = get("checked") != 0;
  c.ms = get("ms");
  c.samples = int(get("samples"));
  c.max_abs_err = get("max_abs_err");
  c.sm_clock_mhz = int(get("sm_clock_mhz"));
  c.fp32_accurate = run.counters.count("fp32_accurate") == 0 || get("fp32_accurate") != 0;
  if (run.counters.count("pct_cublas_tf32")) c.pct_cublas_tf32 = get("pct_cublas_tf32");
  if (run.counters.count("cublas_tf32_rel_err")) c.cublas_tf32_rel_err = get("cublas_tf32_rel_err");
  return c;
}

std::string TableReporter::header_line() {
  std::ostringstream os;
  os << std::left << std::setw(38) << "rung / name" << std::right << std::setw(18) << "M x N x K"
     << std::setw(11) << "ms" << std::setw(11) << "GFLOP/s" << std::setw(10) << "% cuBLAS"
     << std::setw(11) << "rel_err" << std::setw(10) << "verified" << std::setw(8) << "MHz";
  return os.str();
}

std::string TableReporter::row_line(const std::string& name, const RowCounters& c) {
  std::ostringstream os;
  const std::string shape = std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K);
  char err[32];
  std::snprintf(err, sizeof err, "%.2e", c.rel_err);
  os << std::left << std::setw(38) << name.substr(0, 37) << std::right << std::setw(18) << shape
     << std::setw(11) << std::fixed << std::setprecision(3) << c.ms << std::setw(11)
     << std::setprecision(0) << c.gflops << std::setw(10) << std::setprecision(1) << c.pct_cublas
     << std::setw(11) << (c.checked ? err : "-") << std::setw(10)
     << (!c.checked ? "skipped" : c.verified ? "yes" : "NO") << std::setw(8) << c.sm_clock_mhz;
  if (!c.fp32_accurate) {
    os << "  NOT FP32-accurate";
    if (c.pct_cublas_tf32 >= 0) os << "; " << std::setprecision(1) << c.pct_cublas_tf32 << "% of cuBLAS TF32";
    if (c.cublas_tf32_rel_err >= 0) {
      std::snprintf(err, sizeof err, "%.2e", c.cublas_tf32_rel_err);
      os << " (its rel_err " << err << ")";
    }
  }
  return os.str();
}

bool TableReporter::ReportContext(const Context&) {
  std::printf("%s\n%s\n", header_.c_str(), header_line().c_str());
  std::fflush(stdout);
  return true;
}

void TableReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    const std::string& fn = run.run_name.function_name;
    const std::string name = run.aggregate_name.empty() ? fn : fn + "_" + run.aggregate_name;
    const auto err = errors_ ? errors_->find(fn) : decltype(errors_->end()){};
    if (errors_ && err != errors_->end()) {
      std::printf("%-38s  ERROR: %s\n", name.substr(0, 37).c_str(), err->second.c_str());
      continue;
    }
    std::printf("%s\n", row_line(name, counters_of(run)).c_str());
  }
  std::fflush(stdout);
}

}  // namespace sgemm::harness
