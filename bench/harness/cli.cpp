#include "cli.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include <CLI/CLI.hpp>

namespace sgemm::harness {

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string valid_kernels() {
  std::string s;
  for (const Rung& r : registry()) s += (s.empty() ? "" : ", ") + std::to_string(r.id) + " (" + r.slug + ")";
  return s;
}

int64_t parse_size(const std::string& text, const char* what) {
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos);
  } catch (const std::exception&) {
    throw UsageError(std::string(what) + " '" + text + "' is not a number");
  }
  if (pos != text.size()) throw UsageError(std::string(what) + " '" + text + "' is not a number");
  if (v < 0) throw UsageError(std::string(what) + " " + text + " is negative; sizes must be >= 0");
  return v;
}

std::vector<int> parse_kernels(const std::vector<std::string>& items) {
  std::vector<int> ids;
  for (const std::string& group : items)
    for (const std::string& key : split(group, ',')) {
      const Rung* r = find_rung(key);
      if (!r) throw UsageError("unknown kernel '" + key + "'; valid kernels: " + valid_kernels());
      ids.push_back(r->id);
    }
  return ids;
}

// A stand-in 16-byte-aligned device pointer so that validate() and supports() check shapes and
// leading dimensions before anything is allocated.
float* placeholder_ptr() { return reinterpret_cast<float*>(uintptr_t{256}); }

void check_shape(const Shape& s, const std::vector<int>& kernels, float alpha, float beta) {
  GemmArgs a{s.M, s.N, s.K, alpha, placeholder_ptr(), s.lda, placeholder_ptr(), s.ldb,
             beta, placeholder_ptr(), s.ldc};
  std::string detail;
  if (validate(a, &detail) != Status::kOk) throw UsageError(s.str() + ": " + detail);
  for (int id : kernels) {
    const Rung* r = find_rung(id);
    std::string why;
    if (s.M > 0 && s.N > 0 && !r->supports(a, &why))
      throw UsageError(std::string("kernel ") + r->slug + " cannot run " + s.str() + ": " + why);
  }
}

}  // namespace

std::string list_table() {
  // Columns as wide as their longest entry plus two spaces, so a long tile never runs into the
  // lesson (scripts read the columns with awk).
  size_t slug_w = 4, tile_w = 4;
  for (const Rung& r : registry()) {
    slug_w = std::max(slug_w, std::string(r.slug).size());
    tile_w = std::max(tile_w, r.tile().size());
  }
  std::ostringstream os;
  os << std::left << std::setw(4) << "id" << std::setw(int(slug_w + 2)) << "slug" << std::setw(int(tile_w + 2))
     << "tile" << "lesson\n";
  for (const Rung& r : registry())
    os << std::left << std::setw(4) << r.id << std::setw(int(slug_w + 2)) << r.slug << std::setw(int(tile_w + 2))
       << r.tile() << r.lesson << (r.precision.fp32_accurate ? "" : "  [NOT FP32-accurate]") << "\n";
  return os.str();
}

ParseResult parse_cli(int argc, const char* const* argv) {
  ParseResult res;
  Options& o = res.options;
  CLI::App app{"sgemm_bench: the SGEMM Ladder, each rung timed against cuBLAS and verified against FP64",
               "sgemm_bench"};
  app.allow_extras();
  std::vector<std::string> kernel_args, size_list, shape_list;
  std::string size_s, m_s, n_s, k_s, lda_s, ldb_s, ldc_s, input_s = "uniform", ks_s;
  app.add_option("--kernel", kernel_args, "rung ids or slugs, comma-separated or repeated (default: all)");
  app.add_option("--size", size_s, "M = N = K");
  app.add_option("--sizes", size_list, "square sizes, comma-separated (e.g. 1024,2048,4096)")->delimiter(',');
  app.add_option("--shapes", shape_list, "MxNxK shapes, comma-separated (e.g. 8192x1024x8192,4096x4096x16384)")
      ->delimiter(',');
  app.add_option("--m", m_s, "rows of A and C");
  app.add_option("--n", n_s, "columns of B and C");
  app.add_option("--k", k_s, "columns of A, rows of B");
  app.add_option("--alpha", o.alpha, "alpha (default 1)");
  app.add_option("--beta", o.beta, "beta (default 0)");
  app.add_option("--lda", lda_s, "leading dimension of A (default: K rounded up to 4)");
  app.add_option("--ldb", ldb_s, "leading dimension of B (default: N rounded up to 4)");
  app.add_option("--ldc", ldc_s, "leading dimension of C (default: N rounded up to 4)");
  app.add_option("--input", input_s, "input distribution: uniform, normal, small_int");
  app.add_option("--seed", o.seed, "input seed");
  app.add_option("--warmup", o.warmup, "warm-up launches per row (default 5)");
  app.add_option("--repeat", o.repeat, "timed launches per row (default: as many as fit in --min-time)");
  app.add_option("--min-time", o.min_time, "seconds per row when --repeat is not given (default 0.25)");
  app.add_flag("--no-check", "skip verification against the FP64 reference");
  app.add_flag("--list", o.list, "list the rungs and exit");
  app.add_flag("--accuracy-sweep", o.accuracy_sweep, "also measure every rung's error against FP64 over K");
  app.add_option("--accuracy-ks", ks_s, "K values of the accuracy sweep (default 256,...,16384)");
  app.add_option("--accuracy-mn", o.accuracy_mn, "M = N of the accuracy sweep (default 1024)");
  app.add_option("--json", o.json, "write Google Benchmark JSON with the GPU context to FILE");
  app.add_option("--soak", o.soak_minutes, "soak: random shapes, alpha/beta and rungs for MINUTES, all verified");
  app.add_option("--inject-fault", o.fault, "run a deliberately broken kernel (fault-lab builds): oob-read, oob-write, race");
  app.footer("Google Benchmark flags (--benchmark_filter, --benchmark_repetitions, ...) are passed through.\n"
             "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no usable GPU / kernel not built for it.");
  try {
    app.parse(argc, argv);
    for (const std::string& extra : app.remaining()) {
      if (extra.rfind("--benchmark_", 0) == 0) o.benchmark_args.push_back(extra);
      else throw UsageError("unknown option or argument '" + extra + "' (see --help)");
    }
    if (o.list) {
      res.exit_code = kExitOk;
      res.output = list_table();
      return res;
    }
    o.check = app.count("--no-check") == 0;
    if (input_s == "uniform") o.input = InputKind::kUniform;
    else if (input_s == "normal") o.input = InputKind::kNormal;
    else if (input_s == "small_int") o.input = InputKind::kSmallInt;
    else throw UsageError("--input '" + input_s + "' is not one of uniform, normal, small_int");
    if (o.warmup < 0) throw UsageError("--warmup must be >= 0");
    if (o.repeat < 0) throw UsageError("--repeat must be >= 0");
    if (!(o.min_time > 0)) throw UsageError("--min-time must be > 0");
    if (o.soak_minutes < 0) throw UsageError("--soak must be >= 0 minutes");

    o.kernels = kernel_args.empty() ? std::vector<int>{} : parse_kernels(kernel_args);
    if (o.kernels.empty())
      for (const Rung& r : registry()) o.kernels.push_back(r.id);

    std::vector<int64_t> squares;
    if (!size_s.empty()) squares.push_back(parse_size(size_s, "--size"));
    for (const std::string& s : size_list) squares.push_back(parse_size(s, "--sizes"));
    std::vector<Shape> wanted;
    for (int64_t sq : squares) wanted.push_back({sq, sq, sq, 0, 0, 0});
    for (const std::string& text : shape_list) {
      const std::vector<std::string> dims = split(text, 'x');
      if (dims.size() != 3) throw UsageError("--shapes '" + text + "' is not of the form MxNxK");
      wanted.push_back({parse_size(dims[0], "--shapes M"), parse_size(dims[1], "--shapes N"),
                        parse_size(dims[2], "--shapes K"), 0, 0, 0});
    }
    const bool any_mnk = !m_s.empty() || !n_s.empty() || !k_s.empty();
    if (any_mnk && wanted.size() > 1) throw UsageError("--m/--n/--k cannot be combined with --sizes or --shapes");
    if (wanted.empty()) wanted.push_back({4096, 4096, 4096, 0, 0, 0});
    for (Shape s : wanted) {
      if (!m_s.empty()) s.M = parse_size(m_s, "--m");
      if (!n_s.empty()) s.N = parse_size(n_s, "--n");
      if (!k_s.empty()) s.K = parse_size(k_s, "--k");
      if (!lda_s.empty()) s.lda = parse_size(lda_s, "--lda");
      if (!ldb_s.empty()) s.ldb = parse_size(ldb_s, "--ldb");
      if (!ldc_s.empty()) s.ldc = parse_size(ldc_s, "--ldc");
      s = with_default_ld(s);
      check_shape(s, o.kernels, o.alpha, o.beta);
      o.shapes.push_back(s);
    }
    if (o.accuracy_sweep) {
      o.accuracy_ks = {256, 512, 1024, 2048, 4096, 8192, 16384};
      if (!ks_s.empty()) {
        o.accuracy_ks.clear();
        for (const std::string& k : split(ks_s, ',')) o.accuracy_ks.push_back(parse_size(k, "--accuracy-ks"));
      }
      if (o.accuracy_mn <= 0) throw UsageError("--accuracy-mn must be > 0");
    }
  } catch (const CLI::CallForHelp&) {
    res.exit_code = kExitOk;
    res.output = app.help();
    return res;
  } catch (const CLI::ParseError& e) {
    res.exit_code = kExitUsage;
    res.output = std::string("sgemm_bench: error: ") + e.what();
    return res;
  } catch (const UsageError& e) {
    res.exit_code = kExitUsage;
    res.output = std::string("sgemm_bench: error: ") + e.what();
    return res;
  }
  return res;
}

std::string reproduce_command(const Options& o, const std::string& program) {
  std::ostringstream os;
  os << program << " --kernel ";
  for (size_t i = 0; i < o.kernels.size(); ++i) os << (i ? "," : "") << o.kernels[i];
  const bool default_ld = std::all_of(o.shapes.begin(), o.shapes.end(), [](const Shape& s) {
    const Shape d = with_default_ld({s.M, s.N, s.K, 0, 0, 0});
    return s.lda == d.lda && s.ldb == d.ldb && s.ldc == d.ldc;
  });
  if (default_ld) {
    os << " --shapes ";
    for (size_t i = 0; i < o.shapes.size(); ++i)
      os << (i ? "," : "") << o.shapes[i].M << "x" << o.shapes[i].N << "x" << o.shapes[i].K;
  } else {
    const Shape& s = o.shapes.front();
    os << " --m " << s.M << " --n " << s.N << " --k " << s.K << " --lda " << s.lda << " --ldb "
       << s.ldb << " --ldc " << s.ldc;
  }
  os << std::setprecision(9) << " --alpha " << o.alpha << " --beta " << o.beta << " --input " << input_kind_name(o.input)
     << " --seed " << o.seed << " --warmup " << o.warmup;
  if (o.repeat) os << " --repeat " << o.repeat;
  else os << " --min-time " << o.min_time;
  if (!o.check) os << " --no-check";
  for (const std::string& b : o.benchmark_args) os << " " << b;
  return os.str();
}

}  // namespace sgemm::harness
