#include "report.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <map>
#include <sstream>
#include <type_traits>
#include <utility>

#include "stats.hpp"

namespace sgemm::harness {

namespace {

// kWhenSet: written only when the value is >= 0; kAboveOne: only above 1; kWhenTrue: only when not 0.
enum class When { kAlways, kWhenSet, kAboveOne, kWhenTrue };

// Calls f(name, member, when) for every counter of a row: the one list behind set_counters,
// counters_of and counter_names.
template <class Counters, class F>
void for_each_counter(Counters& c, F&& f) {
  f("rung", c.rung, When::kAlways);
  f("M", c.M, When::kAlways);
  f("N", c.N, When::kAlways);
  f("K", c.K, When::kAlways);
  f("lda", c.lda, When::kAlways);
  f("ldb", c.ldb, When::kAlways);
  f("ldc", c.ldc, When::kAlways);
  f("GFLOPS", c.gflops, When::kAlways);
  f("pct_cublas", c.pct_cublas, When::kAlways);
  f("pct_cublas_lo", c.pct_cublas_lo, When::kAlways);
  f("pct_cublas_hi", c.pct_cublas_hi, When::kAlways);
  f("cublas_ms", c.cublas_ms, When::kAlways);
  f("rel_err", c.rel_err, When::kAlways);
  f("verified", c.verified, When::kAlways);
  f("checked", c.checked, When::kAlways);
  f("ms", c.ms, When::kAlways);
  f("ms_q1", c.ms_q1, When::kAlways);
  f("ms_q3", c.ms_q3, When::kAlways);
  f("samples", c.samples, When::kAlways);
  f("rounds", c.rounds, When::kAlways);
  f("max_abs_err", c.max_abs_err, When::kAlways);
  f("sm_clock_mhz", c.sm_clock_mhz, When::kAlways);
  f("sm_clock_min_mhz", c.sm_clock_min_mhz, When::kAlways);
  f("sm_clock_max_mhz", c.sm_clock_max_mhz, When::kAlways);
  f("clock_ok", c.clock_ok, When::kAlways);
  f("remeasured", c.remeasured, When::kAlways);
  f("fp32_accurate", c.fp32_accurate, When::kAlways);
  f("packed", c.packed, When::kAlways);
  f("batch", c.batch, When::kAboveOne);
  f("bias", c.bias, When::kWhenTrue);
  f("cublas_rel_err", c.cublas_rel_err, When::kWhenSet);
  f("pct_cublas_tf32", c.pct_cublas_tf32, When::kWhenSet);
  f("cublas_tf32_rel_err", c.cublas_tf32_rel_err, When::kWhenSet);
  f("pct_cublas_3xtf32", c.pct_cublas_3xtf32, When::kWhenSet);
  f("cublas_3xtf32_rel_err", c.cublas_3xtf32_rel_err, When::kWhenSet);
  f("pct_cublas_ozaki_int8", c.pct_cublas_ozaki_int8, When::kWhenSet);
  f("cublas_ozaki_int8_rel_err", c.cublas_ozaki_int8_rel_err, When::kWhenSet);
  f("pct_gemmul8", c.pct_gemmul8, When::kWhenSet);
  f("gemmul8_rel_err", c.gemmul8_rel_err, When::kWhenSet);
  f("gemmul8_moduli", c.gemmul8_moduli, When::kWhenSet);
  f("ozaki_moduli", c.ozaki_moduli, When::kWhenSet);
  f("watts", c.watts, When::kWhenSet);
  f("gflop_per_joule", c.gflop_per_joule, When::kWhenSet);
  f("cublas_watts", c.cublas_watts, When::kWhenSet);
  f("cublas_gflop_per_joule", c.cublas_gflop_per_joule, When::kWhenSet);
  f("pct_cublas_hot", c.pct_cublas_hot, When::kWhenSet);
  f("pct_cublas_hot_lo", c.pct_cublas_hot_lo, When::kWhenSet);
  f("pct_cublas_hot_hi", c.pct_cublas_hot_hi, When::kWhenSet);
  f("ms_hot", c.ms_hot, When::kWhenSet);
  f("cublas_ms_hot", c.cublas_ms_hot, When::kWhenSet);
  f("hot_launches", c.hot_launches, When::kWhenSet);
  f("pct_hbm_hot", c.pct_hbm_hot, When::kWhenSet);
  f("predicted_ms", c.predicted_ms, When::kWhenSet);
}

std::string shape_text(const RowCounters& c) {
  return std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K);
}

// Google Benchmark's JSON rows with kLayoutField added: its counters are numbers, so the field
// goes in after each row's "name" line, in the text the base reporter writes.
class LayoutJsonReporter : public benchmark::JSONReporter {
 public:
  explicit LayoutJsonReporter(std::map<std::string, std::string> layouts) : layouts_(std::move(layouts)) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    std::ostream& out = GetOutputStream();
    std::ostringstream text;
    SetOutputStream(&text);
    benchmark::JSONReporter::ReportRuns(runs);
    SetOutputStream(&out);
    std::string s = text.str();
    size_t from = 0;
    for (const Run& run : runs) {  // one object per run, in order, each opened by its "name" line
      const size_t name = s.find("\"name\": ", from);
      if (name == std::string::npos) break;
      const size_t eol = s.find('\n', name);
      if (eol == std::string::npos) break;
      const size_t indent = name - s.rfind('\n', name) - 1;
      const auto it = layouts_.find(run.run_name.function_name);
      const std::string line = std::string(indent, ' ') + "\"" + kLayoutField + "\": \"" +
                               (it == layouts_.end() ? "nn" : it->second) + "\",\n";
      s.insert(eol + 1, line);
      from = eol + 1 + line.size();
    }
    out << s;
  }

 private:
  std::map<std::string, std::string> layouts_;
};

std::string clock_text(const RowCounters& c) {
  if (c.sm_clock_min_mhz <= 0) return "?";
  if (c.sm_clock_min_mhz == c.sm_clock_max_mhz) return std::to_string(c.sm_clock_min_mhz);
  return std::to_string(c.sm_clock_min_mhz) + "-" + std::to_string(c.sm_clock_max_mhz);
}

std::string sci(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", v);
  return text;
}

}  // namespace

void set_counters(benchmark::State& state, const RowCounters& c) {
  for_each_counter(c, [&](const char* name, const auto& value, When when) {
    const double v = double(value);
    if (!std::isfinite(v) || (when == When::kWhenSet && v < 0) || (when == When::kAboveOne && v <= 1) ||
        (when == When::kWhenTrue && v == 0))
      return;
    state.counters[name] = v;
  });
}

RowCounters counters_of(const benchmark::BenchmarkReporter::Run& run) {
  RowCounters c;
  for_each_counter(c, [&](const char* name, auto& value, When) {
    const auto it = run.counters.find(name);
    if (it != run.counters.end()) value = static_cast<std::decay_t<decltype(value)>>(it->second.value);
  });
  return c;
}

std::vector<std::string> counter_names() {
  std::vector<std::string> names;
  RowCounters c;
  for_each_counter(c, [&](const char* name, auto&, When) { names.push_back(name); });
  for (const char* name : kAccuracyCounters) names.push_back(name);
  return names;
}

void register_row(const std::string& name, std::function<void(benchmark::State&)> fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(fn))
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

void report_row(benchmark::State& state, const RowCounters& c) {
  for (auto _ : state) state.SetIterationTime(c.ms * 1e-3);
  set_counters(state, c);
}

std::string TableReporter::header_line(size_t name_width) {
  std::ostringstream os;
  os << std::left << std::setw(int(name_width)) << "rung / name" << std::right << std::setw(16) << "M x N x K"
     << std::setw(10) << "ms" << std::setw(10) << "GFLOP/s" << std::setw(26) << "% cuBLAS [95% interval]" << "  "
     << std::left << std::setw(7) << "verdict" << std::right << std::setw(10) << "rel_err" << std::setw(9)
     << "verified" << std::setw(11) << "SM MHz" << std::setw(24) << "hot % cuBLAS [95%]";
  return os.str();
}

std::string TableReporter::row_line(const std::string& name, const RowCounters& c, size_t name_width) {
  const bool timed = c.pct_cublas_hi > 0;  // accuracy-sweep rows are not compared with cuBLAS
  char pct[64] = "-";
  if (timed) std::snprintf(pct, sizeof pct, "%.1f [%.1f, %.1f]", c.pct_cublas, c.pct_cublas_lo, c.pct_cublas_hi);
  std::ostringstream os;
  os << std::left << std::setw(int(name_width)) << name.substr(0, name_width - 1) << std::right << std::setw(16)
     << shape_text(c) << std::setw(10) << std::fixed << std::setprecision(3) << c.ms << std::setw(10)
     << std::setprecision(0) << c.gflops << std::setw(26) << pct << "  " << std::left << std::setw(7)
     << (timed ? verdict(c.pct_cublas_lo, c.pct_cublas_hi) : "") << std::right << std::setw(10)
     << (c.checked ? sci(c.rel_err) : "-") << std::setw(9) << (!c.checked ? "skipped" : c.verified ? "yes" : "NO")
     << std::setw(11) << clock_text(c);
  char hot[64] = "-";
  if (c.pct_cublas_hot >= 0)
    std::snprintf(hot, sizeof hot, "%.1f [%.1f, %.1f]", c.pct_cublas_hot, c.pct_cublas_hot_lo, c.pct_cublas_hot_hi);
  os << std::setw(24) << hot;
  if (c.pct_hbm_hot >= 0) os << "  " << std::setprecision(1) << c.pct_hbm_hot << "% of the DRAM peak (hot)";
  if (!c.clock_ok) {
    os << "  SM clock below --clock-threshold";
    if (c.remeasured > 0) os << " in all " << c.remeasured + 1 << " measurements";
  }
  if (c.packed) os << "  packed (unaligned operands copied to aligned rows)";
  if (c.batch > 1) os << "  batch of " << c.batch << " (GFLOP/s over all)";
  if (c.bias) os << "  with bias";
  if (!c.fp32_accurate) {
    os << "  NOT FP32-accurate";
    if (c.pct_cublas_tf32 >= 0) os << "; " << std::setprecision(1) << c.pct_cublas_tf32 << "% of cuBLAS TF32";
    if (c.cublas_tf32_rel_err >= 0) os << " (its rel_err " << sci(c.cublas_tf32_rel_err) << ")";
  }
  if (c.pct_cublas_3xtf32 >= 0) {
    os << "  " << std::setprecision(1) << c.pct_cublas_3xtf32 << "% of 3xTF32 on cuBLAS TF32";
    if (c.cublas_3xtf32_rel_err >= 0) os << " (its rel_err " << sci(c.cublas_3xtf32_rel_err) << ")";
  }
  if (c.pct_cublas_ozaki_int8 >= 0) {
    os << "  " << std::setprecision(1) << c.pct_cublas_ozaki_int8 << "% of Ozaki on cuBLAS INT8";
    if (c.cublas_ozaki_int8_rel_err >= 0) os << " (its rel_err " << sci(c.cublas_ozaki_int8_rel_err) << ")";
  }
  if (c.pct_gemmul8 >= 0) {
    os << "  " << std::setprecision(1) << c.pct_gemmul8 << "% of GEMMul8 (" << c.gemmul8_moduli << " moduli)";
    if (c.gemmul8_rel_err >= 0) os << " (its rel_err " << sci(c.gemmul8_rel_err) << ")";
  }
  if (c.watts >= 0)
    os << "  " << std::setprecision(0) << c.watts << " W, " << c.gflop_per_joule << " GFLOP/J (cuBLAS "
       << c.cublas_watts << " W, " << c.cublas_gflop_per_joule << " GFLOP/J)";
  return os.str();
}

bool TableReporter::ReportContext(const Context& context) {
  // Google Benchmark's widest name carries the suffix it appends; the table shows names without it.
  const size_t suffix = std::strlen(kRowNameSuffix);
  if (context.name_field_width > suffix) name_width_ = std::max(kNameWidth, context.name_field_width - suffix + 6);
  GetOutputStream() << header_ << "\n" << header_line(name_width_) << std::endl;
  return true;
}

void TableReporter::ReportRuns(const std::vector<Run>& runs) {
  std::ostream& out = GetOutputStream();
  for (const Run& run : runs) {
    const std::string& fn = run.run_name.function_name;
    if (run.run_type == Run::RT_Aggregate) {
      if (run.aggregate_name != "median") continue;
      RowCounters c = counters_of(run);
      for (const Run& bound : runs)  // the interval of the median over the passes
        if (bound.run_type == Run::RT_Aggregate && bound.run_name.function_name == fn) {
          if (bound.aggregate_name == "ci_lo") c.pct_cublas_lo = counters_of(bound).pct_cublas;
          if (bound.aggregate_name == "ci_hi") c.pct_cublas_hi = counters_of(bound).pct_cublas;
        }
      if (!summary_started_) {
        summary_started_ = true;
        out << "\nMedian over " << run.iterations << " passes; the interval is that of the median over the passes ("
            << std::fixed << std::setprecision(1) << 100.0 * median_interval_confidence(size_t(run.iterations))
            << "% confidence):\n"
            << header_line(name_width_) << "\n";
      }
      out << row_line(fn, c, name_width_) << "\n";
      continue;
    }
    const std::string name = run.repetitions > 1 ? fn + " #" + std::to_string(run.repetition_index + 1) : fn;
    const auto err = errors_ ? errors_->find(fn) : decltype(errors_->end()){};
    if (errors_ && err != errors_->end()) {
      out << std::left << std::setw(int(name_width_)) << name.substr(0, name_width_ - 1) << "ERROR: " << err->second
          << "\n";
      continue;
    }
    out << row_line(name, counters_of(run), name_width_) << "\n";
  }
  out << std::flush;
}

std::vector<benchmark::BenchmarkReporter::Run> summarize_passes(
    const std::vector<benchmark::BenchmarkReporter::Run>& passes) {
  using Run = benchmark::BenchmarkReporter::Run;
  std::vector<const Run*> ok;
  for (const Run& r : passes)
    if (!r.counters.empty()) ok.push_back(&r);
  if (ok.size() < 2) return {};
  // The three statistics of a list of values, in the order of kNames.
  static constexpr const char* kNames[] = {"median", "ci_lo", "ci_hi"};
  const auto stats = [](const std::vector<double>& v) {
    const Interval ci = median_interval(v);
    return std::array<double, 3>{median(v), ci.lo, ci.hi};
  };
  std::vector<double> real, cpu;
  for (const Run* r : ok) {
    real.push_back(r->real_accumulated_time / double(r->iterations));
    cpu.push_back(r->cpu_accumulated_time / double(r->iterations));
  }
  const double n = double(ok.size());
  std::vector<Run> out(3, *ok.front());
  for (size_t s = 0; s < 3; ++s) {
    out[s].run_type = Run::RT_Aggregate;
    out[s].aggregate_name = kNames[s];
    out[s].repetition_index = Run::no_repetition_index;
    out[s].iterations = benchmark::IterationCount(ok.size());  // as Google Benchmark's own aggregates
    out[s].real_accumulated_time = stats(real)[s] * n;            // reported per iteration
    out[s].cpu_accumulated_time = stats(cpu)[s] * n;
  }
  for (const auto& counter : ok.front()->counters) {
    std::vector<double> values;
    for (const Run* r : ok)
      if (const auto it = r->counters.find(counter.first); it != r->counters.end()) values.push_back(it->second.value);
    const auto st = stats(values);
    for (size_t s = 0; s < 3; ++s) out[s].counters[counter.first].value = st[s];
  }
  return out;
}

SweepReporter::SweepReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, std::map<std::string, int> passes,
                             bool every_counter)
    : inner_(std::move(inner)), passes_(std::move(passes)), every_counter_(every_counter) {}

bool SweepReporter::ReportContext(const Context& context) {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  return inner_->ReportContext(context);
}

void SweepReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> numbered = runs;
  for (Run& run : numbered) {
    const auto p = passes_.find(run.run_name.function_name);
    if (p == passes_.end() || p->second < 2 || run.run_type != Run::RT_Iteration) continue;
    std::vector<Run>& seen = seen_[p->first];
    if (seen.empty()) repeated_.push_back(p->first);
    run.repetitions = p->second;
    run.repetition_index = int64_t(seen.size());
    seen.push_back(run);
  }
  forward(std::move(numbered));
}

void SweepReporter::Finalize() {
  for (const std::string& name : repeated_)
    if (std::vector<Run> aggregates = summarize_passes(seen_[name]); !aggregates.empty()) forward(std::move(aggregates));
  inner_->Finalize();
}

void SweepReporter::forward(std::vector<Run> runs) {
  if (every_counter_)
    for (Run& run : runs)
      for (const std::string& name : counter_names()) run.counters.emplace(name, 0.0);  // keeps those present
  inner_->ReportRuns(runs);
}

std::unique_ptr<SweepReporter> make_reporter(const std::string& format, bool counters_tabular,
                                             const std::string& table_header,
                                             const std::map<std::string, std::string>* errors,
                                             const std::map<std::string, int>& passes,
                                             const std::map<std::string, std::string>& layouts) {
  std::unique_ptr<benchmark::BenchmarkReporter> inner;
  if (format == "json") {
    inner = std::make_unique<LayoutJsonReporter>(layouts);
  } else if (format == "csv") {
    BENCHMARK_DISABLE_DEPRECATED_WARNING  // Google Benchmark 1.8 plans to drop CSV; 1.7 and 1.8 have it
    inner = std::make_unique<benchmark::CSVReporter>();
    BENCHMARK_RESTORE_DEPRECATED_WARNING
  } else if (counters_tabular) {
    inner = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_Tabular);
  } else {
    inner = std::make_unique<TableReporter>(table_header, errors);
  }
  return std::make_unique<SweepReporter>(std::move(inner), passes, format == "csv");
}

}  // namespace sgemm::harness
