#include "rows.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <utility>

namespace sgemm::harness {

std::vector<int> timed_kernels(const Options& o) {
  std::vector<int> ids = o.kernels;
  if (std::find(ids.begin(), ids.end(), 0) == ids.end()) ids.insert(ids.begin(), 0);
  return ids;
}

namespace {
// What a row name adds for a call that is not plain: "/tn", "/batch3", "/bias".
std::string general_suffix(const Shape& s) {
  std::string n;
  if (s.transa || s.transb) n += "/" + layout_name(s);
  if (s.batch > 1) n += "/batch" + std::to_string(s.batch);
  if (s.bias) n += "/bias";
  return n;
}
}  // namespace

std::string timing_row_name(const Rung& r, const Shape& s) {
  if (!s.name.empty()) return std::string("rung") + r.slug + "/" + s.name + general_suffix(s);  // a suite's shape
  std::string n = std::string("rung") + r.slug + "/" + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" +
                  std::to_string(s.K);
  if (!default_ld(s)) n += "/ld" + std::to_string(s.lda) + "_" + std::to_string(s.ldb) + "_" + std::to_string(s.ldc);
  return n + general_suffix(s);
}

std::string accuracy_row_name(const Rung& r, InputKind kind, int wide_exponent, int64_t mn, int64_t K) {
  return std::string("accuracy/") + r.slug + "/" + input_label(kind, wide_exponent) + "/" + std::to_string(mn) +
         "x" + std::to_string(mn) + "x" + std::to_string(K);
}

std::vector<RowPlan> plan_rows(const Options& o) {
  std::vector<RowPlan> rows;
  const std::vector<int> ids = timed_kernels(o);
  for (int pass = 0; pass < std::max(o.repetitions, 1); ++pass)
    for (const Shape& shape : o.shapes)
      for (int id : ids) {
        RowPlan row;
        row.rung = find_rung(id);
        row.shape = shape;
        row.name = timing_row_name(*row.rung, shape);
        row.pass = pass;
        rows.push_back(row);
      }
  if (!o.accuracy_sweep) return rows;
  // The distributions of each K: (kind, exponent range), the wide one at every range asked for.
  std::vector<std::pair<InputKind, int>> inputs = {{InputKind::kUniform, 0}, {InputKind::kNormal, 0}};
  for (int e : o.accuracy_exponents) inputs.emplace_back(InputKind::kWide, e);
  for (int64_t K : o.accuracy_ks)
    for (const auto& [kind, exponent] : inputs)
      for (int id : ids) {
        RowPlan row;
        row.rung = find_rung(id);
        row.shape = with_default_ld({o.accuracy_mn, o.accuracy_mn, K, 0, 0, 0});
        row.accuracy = true;
        row.kind = kind;
        row.wide_exponent = exponent;
        row.name = accuracy_row_name(*row.rung, kind, exponent, o.accuracy_mn, K);
        rows.push_back(row);
      }
  return rows;
}

std::vector<std::string> selected_row_names(const Options& o, const std::string& filter) {
  const bool negative = !filter.empty() && filter[0] == '-';
  // Google Benchmark's own engine: POSIX extended regular expressions, searched anywhere in the name.
  const std::regex re(negative ? filter.substr(1) : filter, std::regex::extended);
  std::vector<std::string> names;
  for (const RowPlan& row : plan_rows(o)) {
    const std::string full = row.name + kRowNameSuffix;
    if (row.pass > 0 || (!filter.empty() && std::regex_search(full, re) == negative)) continue;
    names.push_back(full);
  }
  return names;
}

std::map<std::string, int> passes_per_row(const Options& o) {
  std::map<std::string, int> passes;
  for (const RowPlan& row : plan_rows(o)) ++passes[row.name];
  return passes;
}

std::map<std::string, std::string> layouts_per_row(const Options& o) {
  std::map<std::string, std::string> layouts;
  for (const RowPlan& row : plan_rows(o)) layouts[row.name] = layout_name(row.shape);
  return layouts;
}

size_t run_rows(const Options& o, const std::string& table_header, const std::map<std::string, std::string>* errors,
                std::ostream& out) {
  // Google Benchmark's own flags: the row filter and the results file (written by our reporter);
  // given every time, empty or not, so that a previous call's values do not linger. Everything
  // else it could take was mapped onto sgemm_bench's options or refused by parse_cli.
  std::vector<std::string> args = {"sgemm_bench", "--benchmark_filter=" + o.filter, "--benchmark_out=" + o.out_path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  int argc = int(argv.size());
  benchmark::Initialize(&argc, argv.data());
  const auto passes = passes_per_row(o);
  const auto layouts = layouts_per_row(o);
  const auto display = make_reporter(o.format, o.counters_tabular, table_header, errors, passes, layouts);
  display->SetOutputStream(&out);
  const auto file =
      o.out_path.empty() ? nullptr : make_reporter(o.out_format, false, table_header, errors, passes, layouts);
  return benchmark::RunSpecifiedBenchmarks(display.get(), file.get());
}

}  // namespace sgemm::harness
