#include "cli.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <limits>
#include <memory>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>

#include "rows.hpp"

namespace sgemm::harness {

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Every line sgemm_bench prints of its own (--help, --list, a usage error of its own words) fits
// in this many columns.
constexpr size_t kOutputWidth = 100;

// --batch and a suite line's batch=: at most CUDA's limit on grid z, the most products one launch
// of a rung that takes the whole batch holds (the library splits a larger batch into launches).
constexpr int64_t kMaxBatch = 65535;

// Every item between separators, empty ones included (so that "1024,,2048" can be refused).
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t pos; (pos = s.find(sep, start)) != std::string::npos; start = pos + 1)
    out.push_back(s.substr(start, pos - start));
  out.push_back(s.substr(start));
  return out;
}

// The checks below say "" for a good value, else why not (CLI11 puts the option's name first).
using Problem = std::function<std::string(const std::string&)>;

std::string integer_problem(const std::string& text, int64_t lo, int64_t hi) {
  if (text.empty()) return "empty value";
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || std::isspace(static_cast<unsigned char>(text[0])))
    return "'" + text + "' is not a number";
  if (errno == ERANGE) return text + " is out of range (|value| < 2^63)";
  if (v < lo) return lo == 0 ? text + " is negative" : text + " is below " + std::to_string(lo);
  if (v > hi) return text + " is above " + std::to_string(hi);
  return "";
}

// A finite real number, put in *value.
std::string real_problem(const std::string& text, double* value) {
  if (text.empty()) return "empty value";
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || std::isspace(static_cast<unsigned char>(text[0])))
    return "'" + text + "' is not a number";
  if (!std::isfinite(*value)) return text + " is not finite";
  return "";
}

Problem integer_from(int64_t lo, int64_t hi = std::numeric_limits<int>::max()) {
  return [lo, hi](const std::string& t) { return integer_problem(t, lo, hi); };
}

// A real number with `ok(value)`, which `rule` names ("must be > 0").
Problem real_where(bool (*ok)(double), const std::string& rule) {
  return [ok, rule](const std::string& t) {
    double v = 0;
    const std::string p = real_problem(t, &v);
    if (!p.empty()) return p;
    return ok(v) ? std::string() : t + " " + rule;
  };
}

std::string fp32_problem(const std::string& text) {
  double v = 0;
  const std::string p = real_problem(text, &v);
  if (!p.empty()) return p;
  return std::fabs(v) <= FLT_MAX ? "" : text + " is not finite in FP32 (|value| <= 3.4e38)";
}

// The registry's ids as ranges ("0-32", or "0-5, 7, 9-12" where some are missing).
std::string id_ranges() {
  std::vector<int> ids;
  for (const Rung& r : registry()) ids.push_back(r.id);
  std::sort(ids.begin(), ids.end());
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(ids[i]) + (j > i ? "-" + std::to_string(ids[j]) : "");
    i = j + 1;
  }
  return out;
}

// One short line: the slugs and lessons are --list's to show.
std::string kernel_problem(const std::string& key) {
  if (find_rung(key)) return "";
  return "unknown kernel '" + key + "' (ids " + id_ranges() + ", or slugs: see --list)";
}

// --lda, --ldb, --ldc: a row length, at least 1; dense rows are had by leaving the option out (0 is
// no shorthand for them: BLAS refuses an ld of 0, and so do a suite's lines).
std::string ld_problem(const std::string& text) {
  const std::string p = integer_problem(text, 1, kInt64Max);
  return p.empty() ? p : p + " (leave it out for dense rows)";
}

std::string batch_problem(const std::string& text) {
  const std::string p = integer_problem(text, 1, kMaxBatch);
  return p.empty() || p.find("above") == std::string::npos ? p : p + " (CUDA's grid z, the products of one launch)";
}

std::string shape_problem(const std::string& text, int64_t min) {
  const std::vector<std::string> dims = split(text, 'x');
  if (dims.size() != 3) return "'" + text + "' is not of the form MxNxK";
  for (const std::string& d : dims)
    if (std::string p = integer_problem(d, min, kInt64Max); !p.empty()) return p + " in '" + text + "'";
  return "";
}

// Each comma-separated item of a list passes `item`; an empty item is refused.
Problem list_of(Problem item) {
  return [item](const std::string& text) {
    for (const std::string& piece : split(text, ','))
      if (std::string p = piece.empty() ? "empty item" : item(piece); !p.empty())
        return p + (text.find(',') == std::string::npos ? "" : " in '" + text + "'");
    return std::string();
  };
}

// One of a fixed set of words, in the same one-line form as every other refusal (CLI11's own
// IsMember words its message differently from one CLI11 version to the next).
Problem one_of(std::vector<std::string> words) {
  return [words](const std::string& text) {
    for (const std::string& w : words)
      if (text == w) return std::string();
    std::string list;
    for (const std::string& w : words) list += (list.empty() ? "" : ", ") + w;
    return "'" + text + "' is not one of " + list;
  };
}

// Found out now, before any GPU work: a path Google Benchmark could not open would only fail
// after the run. An existing file is opened for append (left as it is); a new one is created
// and removed again.
std::string unwritable_problem(const std::string& path) {
  if (path.empty()) return "empty value";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "'" + path + "' is a directory";
  const bool existed = std::filesystem::exists(path, ec);
  errno = 0;
  if (!std::ofstream(path, std::ios::app))
    return "cannot write '" + path + "'" + (errno ? std::string(" (") + std::strerror(errno) + ")" : "");
  if (!existed) std::filesystem::remove(path, ec);
  return "";
}

// --benchmark_filter: Google Benchmark's syntax (POSIX extended, a leading '-' negates).
std::string filter_problem(const std::string& filter) {
  if (filter.empty()) return "empty value";
  try {
    std::regex(filter[0] == '-' ? filter.substr(1) : filter, std::regex::extended);
  } catch (const std::regex_error&) {
    return "'" + filter + "' is not a POSIX extended regular expression";
  }
  return "";
}

// --benchmark_min_time: seconds, with Google Benchmark 1.8's optional "s" (dropped here).
std::string min_time_problem(std::string& text) {
  if (!text.empty() && text.back() == 'x') return "'" + text + "': an iteration count; sgemm_bench takes --repeat N";
  if (!text.empty() && text.back() == 's') text.pop_back();
  return real_where([](double v) { return v > 0; }, "must be > 0 seconds")(text);
}

CLI::Validator validator(Problem problem) {
  return CLI::Validator([problem](std::string& v) { return problem(v); }, "");
}

// A stand-in 16-byte-aligned device pointer so that validate() and supports() check shapes and
// leading dimensions before anything is allocated.
float* placeholder_ptr() { return reinterpret_cast<float*>(uintptr_t{256}); }

// A hand check: whether a shape is valid for every requested rung depends on the registry's
// supports(), which CLI11 cannot see when it checks one option. `several`: the run has other
// shapes, so that a refusal names this one first (a run of one shape needs no such name).
void check_shape(const Shape& s, const std::vector<int>& kernels, float alpha, float beta, bool several) {
  float* const p = placeholder_ptr();
  const GemmArgs a = gemm_args(s, alpha, beta, p, p, p, p);
  const std::string which = several ? s.str() + ": " : "";
  std::string detail;
  if (validate(a, &detail) != Status::kOk) throw UsageError(which + detail);
  // One rotation set and the FP64 reference (value and magnitude) must be countable in bytes too.
  const long double batch = (long double)s.batch;
  const long double bytes =
      4.0L * batch * ((long double)s.rowsA() * s.lda + (long double)s.rowsB() * s.ldb + (long double)s.M * s.ldc) +
      4.0L * s.N + 16.0L * batch * (long double)s.M * s.N;
  if (bytes > (long double)kInt64Max) throw UsageError(which + "the operands and the FP64 reference need more than 2^63 bytes");
  for (int id : kernels) {
    const Rung* r = find_rung(id);
    std::string why;
    if (s.M > 0 && s.N > 0 && !can_run(*r, a, &why))
      throw UsageError(std::string("kernel ") + r->slug + " cannot run " + s.str() + ": " + why);
  }
}

int64_t to_int(const std::string& text) { return std::stoll(text); }

// A workload suite: `bench/<name>.txt` of the source tree, or a file. One shape a line:
// `name M N K [lda ldb ldc]` (leading dimensions default to the dense row lengths); '#' starts a
// comment.
// One line of a workload suite: the shape, and which of its call's settings the line fixes itself
// (the command line's --layout, --batch and --bias apply to the others).
struct SuiteLine {
  Shape shape;
  bool layout = false, batch = false, bias = false;
};

// "name M N K [lda ldb ldc] [layout=nt] [batch=N] [bias]" a line; '#' starts a comment.
std::vector<SuiteLine> read_suite(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string what = "--suite '" + name_or_path + "': ";
  const fs::path named = fs::path(SGEMM_SOURCE_DIR) / "bench" / (name_or_path + ".txt");
  const fs::path path = fs::is_regular_file(name_or_path, ec) || !fs::is_regular_file(named, ec)
                            ? fs::path(name_or_path)
                            : named;
  // What is there, if not a file of shapes (a device or a pipe could block, or be read only once).
  const fs::file_type type = fs::status(path, ec).type();
  if (type == fs::file_type::not_found)
    throw UsageError(what + "no such file" +
                     (name_or_path.find('/') == std::string::npos ? ", and no suite bench/" + name_or_path + ".txt" : ""));
  if (type == fs::file_type::directory) throw UsageError(what + "a directory, not a file of shapes");
  if (type != fs::file_type::regular) {
    const char* kind = type == fs::file_type::character ? "a character device"
                       : type == fs::file_type::block   ? "a block device"
                       : type == fs::file_type::fifo    ? "a pipe"
                       : type == fs::file_type::socket  ? "a socket"
                                                        : "not a regular file";
    throw UsageError(what + kind + ", not a file of shapes");
  }
  errno = 0;
  std::ifstream in(path);
  if (!in) throw UsageError(what + "cannot read it" + (errno ? std::string(" (") + std::strerror(errno) + ")" : ""));
  if (fs::file_size(path, ec) == 0) throw UsageError(what + path.string() + " is empty");
  std::vector<SuiteLine> lines;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::vector<std::string> f, tokens;
    for (std::string w; fields >> w;) (w.find('=') != std::string::npos || w == "bias" ? tokens : f).push_back(w);
    if (f.empty() && tokens.empty()) continue;
    const std::string where = path.string() + ":" + std::to_string(number) + ": ";
    if (f.size() != 4 && f.size() != 7)
      throw UsageError(where + "expected 'name M N K [lda ldb ldc] [layout=..] [batch=N] [bias]'");
    for (size_t i = 1; i < f.size(); ++i)
      if (const std::string problem = integer_problem(f[i], i < 4 ? 0 : 1, kInt64Max); !problem.empty())
        throw UsageError(where + problem);
    SuiteLine l;
    l.shape = Shape{to_int(f[1]), to_int(f[2]), to_int(f[3]), 0, 0, 0, f[0]};
    if (f.size() == 7) l.shape.lda = to_int(f[4]), l.shape.ldb = to_int(f[5]), l.shape.ldc = to_int(f[6]);
    for (const std::string& t : tokens) {
      const std::string key = t.substr(0, t.find('=')), value = t.find('=') == std::string::npos ? "" : t.substr(t.find('=') + 1);
      if (key == "layout" && (value == "nn" || value == "nt" || value == "tn" || value == "tt") && !l.layout) {
        l.layout = true;
        l.shape.transa = value[0] == 't';
        l.shape.transb = value[1] == 't';
      } else if (key == "batch" && !l.batch && integer_problem(value, 1, kMaxBatch).empty()) {
        l.batch = true;
        l.shape.batch = to_int(value);
      } else if (t == "bias" && !l.bias) {
        l.bias = true;
        l.shape.bias = true;
      } else {
        throw UsageError(where + "'" + t + "' is not one of layout=nn|nt|tn|tt, batch=1-" + std::to_string(kMaxBatch) +
                         ", bias (each once)");
      }
    }
    lines.push_back(l);
  }
  if (lines.empty()) throw UsageError(what + path.string() + " lists no shape, only comments and blank lines");
  return lines;
}

// The accuracy sweep's defaults: K values, and exponent ranges E of its wide rows.
const std::vector<int64_t> kDefaultAccuracyKs = {256, 512, 1024, 2048, 4096, 8192, 16384};
const std::vector<int64_t> kDefaultAccuracyExponents = {20, 40, 60};

// A default as --help shows it, written from the value the option starts with (a member of
// Options, or one of the lists above), so that the help cannot disagree with the default. Our
// own words rather than CLI11's capture_default_str(): CLI11 prints captured defaults in a form
// that differs between its versions ("INT=5" in 2.1, "INT [5]" in 2.4), and several defaults sit
// mid-sentence.
template <class T>
std::string shown(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}
template <class T>
std::string shown(const std::vector<T>& values) {
  std::string out;
  for (const T& v : values) out += (out.empty() ? "" : ",") + shown(v);
  return out;
}

// The Google Benchmark flags sgemm_bench takes; any other --benchmark_* is refused.
const char* const kBenchmarkFlags =
    "--benchmark_filter, --benchmark_format, --benchmark_out, --benchmark_out_format, "
    "--benchmark_min_time, --benchmark_repetitions, --benchmark_counters_tabular, --benchmark_list_tests";

}  // namespace

std::string size_list_problem(const std::string& text, int64_t min) {
  return list_of(integer_from(min, kInt64Max))(text);
}

std::vector<int64_t> parse_size_list(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& item : split(text, ',')) out.push_back(to_int(item));
  return out;
}

std::string shape_list_problem(const std::string& text, int64_t min) {
  return list_of([min](const std::string& t) { return shape_problem(t, min); })(text);
}

std::vector<Shape> parse_shape_list(const std::string& text) {
  std::vector<Shape> out;
  for (const std::string& item : split(text, ',')) {
    const std::vector<std::string> dims = split(item, 'x');
    out.push_back({to_int(dims[0]), to_int(dims[1]), to_int(dims[2]), 0, 0, 0});
  }
  return out;
}

// The shapes one item of such a list names: MxNxK, a suite line's name, or all of the suite's lines
// (none: a name the suite lacks). The suite is read only where an item names a shape (plain MxNxK
// lists need no source tree), once into `lines`.
namespace {
std::vector<Shape> shapes_named(const std::string& item, const std::string& suite, std::vector<SuiteLine>* lines) {
  if (shape_problem(item, 1).empty()) return parse_shape_list(item);
  if (lines->empty()) *lines = read_suite(suite);
  std::vector<Shape> out;
  for (const SuiteLine& l : *lines)
    if (item == "all" || l.shape.name == item) out.push_back(l.shape);
  return out;
}
}  // namespace

std::string shape_or_name_list_problem(const std::string& text, const std::string& suite) {
  std::vector<SuiteLine> lines;
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) return "empty item in '" + text + "'";
    try {
      if (!shapes_named(item, suite, &lines).empty()) continue;
    } catch (const std::exception& e) {
      return e.what();
    }
    std::string names;
    for (const SuiteLine& l : lines) names += (names.empty() ? "" : ", ") + l.shape.name;
    return "'" + item + "' is neither MxNxK (sizes >= 1) nor a shape of the suite '" + suite + "' (" + names + ")";
  }
  return "";
}

std::vector<Shape> resolve_shape_list(const std::string& text, const std::string& suite) {
  std::vector<SuiteLine> lines;
  std::vector<Shape> out;
  for (const std::string& item : split(text, ',')) {
    const std::vector<Shape> named = shapes_named(item, suite, &lines);
    out.insert(out.end(), named.begin(), named.end());
  }
  return out;
}

// Words of `text` in lines of at most `width` characters (a longer word gets a line of its own).
std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  std::vector<std::string> lines{""};
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
  }
  return lines;
}

namespace {

// --help in at most kOutputWidth columns, the same whatever CLI11's version (none of those this
// builds with wraps descriptions): each option's names and the type of its value in the left
// column, its description wrapped beside them, then what it needs and excludes.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    std::string left = "  " + make_option_name(opt, is_positional);
    if (opt->get_type_size() != 0 && !opt->get_type_name().empty()) left += " " + opt->get_type_name();
    const auto names = [](const auto& options) {
      std::vector<std::string> sorted;  // by name: CLI11 keeps them in a set of pointers
      for (const CLI::Option* o : options) sorted.push_back(o->get_name());
      std::sort(sorted.begin(), sorted.end());
      std::string out;
      for (const std::string& n : sorted) out += (out.empty() ? "" : ", ") + n;
      return out;
    };
    std::string text = opt->get_description();
    if (!opt->get_needs().empty()) text += " [needs " + names(opt->get_needs()) + "]";
    if (!opt->get_excludes().empty()) text += " [excludes " + names(opt->get_excludes()) + "]";
    if (text.empty()) return left + "\n";
    const size_t column = get_column_width();
    std::string out = left;
    bool first = left.size() < column;  // the description starts beside the names, else below them
    for (const std::string& line : wrap_words(text, kOutputWidth - column)) {
      out += first ? std::string(column - left.size(), ' ') : "\n" + std::string(column, ' ');
      out += line;
      first = false;
    }
    return out + "\n";
  }
};

}  // namespace

std::string list_table() {
  // One row per rung, at most kOutputWidth characters a line: id, slug, tile, then the lesson,
  // wrapped onto indented lines. Scripts read the columns of the rows that start with an id
  // (awk '/^[0-9]/'; continuation lines start with spaces). A rung with several tile
  // configurations (the dispatch rung) shows "several" in the tile column and lists them on
  // indented lines below its lesson.
  constexpr size_t kListWidth = kOutputWidth;
  constexpr size_t kMinLesson = 40;
  const std::string kSeveral = "several";
  const auto one_tile = [](const std::string& t) { return t.find(' ') == std::string::npos; };
  size_t slug_w = 4, tile_w = kSeveral.size();
  for (const Rung& r : registry()) {
    slug_w = std::max(slug_w, std::string(r.slug).size());
    if (one_tile(r.tile())) tile_w = std::max(tile_w, r.tile().size());
  }
  const size_t lesson_col = 4 + slug_w + 2 + tile_w + 2;
  const size_t lesson_w = std::max(kMinLesson, kListWidth > lesson_col ? kListWidth - lesson_col : 0);
  std::ostringstream os;
  os << std::left << std::setw(4) << "id" << std::setw(int(slug_w + 2)) << "slug" << std::setw(int(tile_w + 2))
     << "tile" << "lesson\n";
  for (const Rung& r : registry()) {
    const std::string tile = r.tile();
    const std::string lesson = std::string(r.lesson) + (r.precision.fp32_accurate ? "" : " [NOT FP32-accurate]");
    const std::vector<std::string> lines = wrap_words(lesson, lesson_w);
    os << std::left << std::setw(4) << r.id << std::setw(int(slug_w + 2)) << r.slug << std::setw(int(tile_w + 2))
       << (one_tile(tile) ? tile : kSeveral) << lines[0] << "\n";
    for (size_t i = 1; i < lines.size(); ++i) os << std::string(lesson_col, ' ') << lines[i] << "\n";
    if (!one_tile(tile))
      for (const std::string& line : wrap_words("tiles: " + tile, kListWidth - 4)) os << "    " << line << "\n";
  }
  return os.str();
}

ParseResult parse_cli(int argc, const char* const* argv, const std::string& version_line) {
  ParseResult res;
  Options& o = res.options;
  CLI::App app{"sgemm_bench: the SGEMM Ladder, each rung timed against cuBLAS and verified against FP64",
               "sgemm_bench"};
  app.allow_extras();  // unknown arguments are refused below, each with its own reason
  app.formatter(std::make_shared<HelpFormatter>());
  bool version = false;  // a flag of our own rather than CLI11's, so that words after it are refused
  app.add_flag("--version", version, "print the version and exit");
  std::vector<std::string> kernel_args, size_list, shape_list;
  std::string size_s, m_s, n_s, k_s, lda_s, ldb_s, ldc_s, input_s = input_kind_name(o.input), suite_s;
  // The sweep's lists start as their defaults, so that one parse reads the given or the default.
  std::string ks_s = shown(kDefaultAccuracyKs), exponents_s = shown(kDefaultAccuracyExponents);
  bool list_tests = false;
  const auto size = validator(integer_from(0, kInt64Max));
  // The lists below take one comma-separated value an occurrence (CLI11 would take every word up
  // to the next option, so that a stray word became an item); each may be repeated.
  app.add_option("--kernel", kernel_args,
                 "rung ids or slugs, comma-separated or repeated; a rung named twice runs once (default: all)")
      ->type_name("LIST")
      ->allow_extra_args(false)
      ->check(validator(list_of(kernel_problem)));
  CLI::Option* size_opt = app.add_option("--size", size_s, "M = N = K")->type_name("INT")->check(size);
  CLI::Option* sizes_opt = app.add_option("--sizes", size_list, "square sizes, comma-separated (e.g. 1024,2048,4096)")
                               ->type_name("LIST")
                               ->allow_extra_args(false)
                               ->check(validator([](const std::string& t) { return size_list_problem(t); }));
  CLI::Option* shapes_opt =
      app.add_option("--shapes", shape_list, "MxNxK shapes, comma-separated (e.g. 8192x1024x8192,4096x4096x16384)")
          ->type_name("LIST")
          ->allow_extra_args(false)
          ->check(validator([](const std::string& t) { return shape_list_problem(t); }));
  CLI::Option* m_opt = app.add_option("--m", m_s, "rows of A and C (with --n and --k)")->type_name("INT")->check(size);
  CLI::Option* n_opt =
      app.add_option("--n", n_s, "columns of B and C (with --m and --k)")->type_name("INT")->check(size);
  CLI::Option* k_opt =
      app.add_option("--k", k_s, "columns of A, rows of B (with --m and --n)")->type_name("INT")->check(size);
  for (CLI::Option* dim : {m_opt, n_opt, k_opt}) {
    for (CLI::Option* other : {m_opt, n_opt, k_opt})
      if (other != dim) dim->needs(other);
    dim->excludes(size_opt)->excludes(sizes_opt)->excludes(shapes_opt);
  }
  CLI::Option* suite_opt =
      app.add_option("--suite", suite_s, "a workload suite: bench/NAME.txt (e.g. workloads) or a file of shapes")
          ->type_name("NAME|FILE")
          ->check(validator([](const std::string& t) { return t.empty() ? std::string("empty value") : std::string(); }));
  for (CLI::Option* other : {size_opt, sizes_opt, shapes_opt, m_opt}) suite_opt->excludes(other);
  app.add_option("--alpha", o.alpha, "alpha (default " + shown(o.alpha) + ")")
      ->type_name("FLOAT")
      ->check(validator(fp32_problem));
  app.add_option("--beta", o.beta, "beta (default " + shown(o.beta) + ")")
      ->type_name("FLOAT")
      ->check(validator(fp32_problem));
  // Leading dimensions: a row's length or more (check_shape says which rows); left out, dense rows.
  const auto ld = validator(ld_problem);
  app.add_option("--lda", lda_s,
                 "leading dimension of A as stored: at least its row length, K (M with --layout t*); "
                 "default: that length, dense rows")
      ->type_name("INT")
      ->check(ld);
  app.add_option("--ldb", ldb_s,
                 "leading dimension of B as stored: at least its row length, N (K with --layout *t); "
                 "default: that length, dense rows")
      ->type_name("INT")
      ->check(ld);
  app.add_option("--ldc", ldc_s, "leading dimension of C: at least its row length, N; default: N, dense rows")
      ->type_name("INT")
      ->check(ld);
  app.add_option("--layout", o.layout,
                 "op(A) and op(B), A's letter first: n as stored, t transposed (A stored K x M, B N x K): nn, nt, "
                 "tn, tt (default " + o.layout + "); several, comma-separated, run each shape in each")
      ->type_name("LIST")
      ->check(validator(list_of(one_of({"nn", "nt", "tn", "tt"}))));
  app.add_option("--batch", o.batch,
                 "products per call, each with operands of its own, one after the other (1-" +
                     std::to_string(kMaxBatch) + ", default " + shown(o.batch) + ")")
      ->type_name("INT")
      ->check(validator(batch_problem));
  app.add_flag("--bias", o.bias, "add a bias of N floats to every row of C, after alpha and beta");
  app.add_option("--input", input_s, "input distribution: uniform, normal, small_int, wide (default " + input_s + ")")
      ->check(validator(one_of({"uniform", "normal", "small_int", "wide"})));
  app.add_option("--packing", o.packing,
                 "unaligned operands of the rungs that allow it: auto (copied to aligned rows when the copies "
                 "cost at most a tenth of the product at peak), always, never (the rungs' 32-bit paths); "
                 "default " + o.packing)
      ->check(validator(one_of({"auto", "always", "never"})));
  const auto exponent = validator(integer_from(0, kMaxWideExponent));
  CLI::Option* wide_opt =
      app.add_option("--wide-exponent", o.wide_exponent,
                     "E of --input wide: entries u * 2^e, u uniform in [-1, 1], e an integer uniform in [-E, E] "
                     "(0-" + std::to_string(kMaxWideExponent) + ", default " + shown(o.wide_exponent) + ")")
          ->type_name("INT")
          ->check(exponent);
  app.add_option("--seed", o.seed, "input seed (default " + shown(o.seed) + ")")
      ->type_name("UINT")
      ->check(validator(integer_from(0, kInt64Max)));
  app.add_option("--warmup", o.warmup, "warm-up launches of each kernel per row (default " + shown(o.warmup) + ")")
      ->type_name("INT")
      ->check(validator(integer_from(0)));
  app.add_option("--repeat", o.repeat,
                 "timed launches of each kernel per round (default: as many as fill --min-time)")
      ->type_name("INT")
      ->check(validator(integer_from(1)));
  CLI::Option* min_time_opt =
      app.add_option("--min-time", o.min_time,
                     "seconds of the rung's timed launches per row (default " + shown(o.min_time) + ")")
          ->type_name("FLOAT")
          ->check(validator(real_where([](double v) { return v > 0; }, "must be > 0 seconds")));
  app.add_option("--rounds", o.rounds,
                 "rounds of interleaved rung and cuBLAS launches per row (default " + shown(o.rounds) +
                     "; at least 6, the fewest that give a 95% interval of the median)")
      ->type_name("INT")
      ->check(validator(integer_from(6)));
  CLI::Option* reps_opt =
      app.add_option("--repetitions", o.repetitions, "passes over the whole sweep; rows get the median and interval "
                                                     "over the passes (default " + shown(o.repetitions) + ")")
          ->type_name("INT")
          ->check(validator(integer_from(1)));
  app.add_option("--clock-threshold", o.clock_threshold_pct,
                 "PCT: a row whose SM clock fell below PCT% of the GPU's max SM clock is measured again (up to "
                 "twice, after a pause) and flagged if it stays low (default " + shown(o.clock_threshold_pct) + ")")
      ->type_name("FLOAT")
      ->check(validator(real_where([](double v) { return v >= 0 && v <= 100; }, "is not a percentage (0-100)")));
  app.add_flag("--no-check", "skip verification against the FP64 reference");
  app.add_flag("--no-hot", "time every row cold only (default: also hot, each contender's launches replayed from a CUDA graph)");
  app.add_option("--hot-time", o.hot_time,
                 "seconds of the rung's launches replayed from CUDA graphs per row, the hot timing (default " +
                     shown(o.hot_time) + ")")
      ->type_name("FLOAT")
      ->check(validator(real_where([](double v) { return v > 0; }, "must be > 0 seconds")));
  app.add_option("--gemmul8", o.gemmul8,
                 "N: also time GEMMul8 (RIKEN's Ozaki scheme II, INT8; --gemmul8-mode) with N moduli beside each Ozaki "
                 "rung, on the same inputs (a build with -DSGEMM_GEMMUL8_SOURCE only)")
      ->type_name("INT")
      ->check(validator(integer_from(2, 13)));
  app.add_option("--gemmul8-mode", o.gemmul8_mode,
                 "GEMMul8's mode with --gemmul8: fast or accurate (its own names; default " + o.gemmul8_mode + ")")
      ->check(validator(one_of({"fast", "accurate"})));
  app.add_option("--moduli", o.moduli,
                 "N: force N moduli on the Ozaki rungs and the same method on cuBLAS (set_ozaki_moduli), as many "
                 "bits as they hold at each K, whatever the error; a rung without an instance for N refuses "
                 "(default 0: the rung's plan)")
      ->type_name("INT")
      ->check(validator(integer_from(0, 8)));
  app.add_option("--energy", o.energy_time,
                 "SECONDS: after each row's timing, run the rung, then cuBLAS, alone for this long each and read the "
                 "GPU's energy counter (NVML) around them: watts and GFLOP per joule")
      ->type_name("FLOAT")
      ->check(validator(real_where([](double v) { return v > 0; }, "must be > 0 seconds")));
  app.add_flag("--list", o.list, "list the rungs and exit");
  CLI::Option* sweep_opt =
      app.add_flag("--accuracy-sweep", o.accuracy_sweep, "also measure every rung's error against FP64 over K");
  app.add_option("--accuracy-ks", ks_s, "K values of the accuracy sweep (default " + ks_s + ")")
      ->type_name("LIST")
      ->check(validator([](const std::string& t) { return size_list_problem(t, 1); }))
      ->needs(sweep_opt);
  app.add_option("--accuracy-mn", o.accuracy_mn, "M = N of the accuracy sweep (default " + shown(o.accuracy_mn) + ")")
      ->type_name("INT")
      ->check(validator(integer_from(1, kInt64Max)))
      ->needs(sweep_opt);
  app.add_option("--accuracy-exponents", exponents_s,
                 "exponent ranges E of the accuracy sweep's wide rows, comma-separated (default " + exponents_s + ")")
      ->type_name("LIST")
      ->check(validator(list_of(integer_from(0, kMaxWideExponent))))
      ->needs(sweep_opt);
  const auto writable = validator(unwritable_problem);
  CLI::Option* json_opt =
      app.add_option("--json", o.out_path, "write the results (Google Benchmark JSON with the GPU context) to FILE")
          ->type_name("FILE")
          ->check(writable);
  app.add_option("--soak", o.soak_minutes, "soak: random shapes, alpha/beta and rungs for MINUTES, all verified")
      ->type_name("FLOAT")
      ->check(validator(real_where([](double v) { return v >= 0; }, "must be >= 0 minutes")));
  app.add_option("--inject-fault", o.fault, "run a deliberately broken kernel (fault-lab builds): oob-read, oob-write, race")
      ->check(validator(one_of({"oob-read", "oob-write", "race"})));
  // Google Benchmark's flags, as options of our own: each is honoured here or mapped onto ours.
  app.add_option("--benchmark_filter", o.filter, "run the rows whose names match this regular expression")
      ->check(validator(filter_problem));
  app.add_option("--benchmark_format", o.format, "stdout: console (the table), json or csv")
      ->check(validator(one_of({"console", "json", "csv"})));
  CLI::Option* out_opt =
      app.add_option("--benchmark_out", o.out_path, "write the results to FILE")->type_name("FILE")->check(writable);
  CLI::Option* out_format_opt =
      app.add_option("--benchmark_out_format", o.out_format,
                     "format of --benchmark_out: json, csv, console (default " + o.out_format + ")")
          ->check(validator(one_of({"json", "csv", "console"})))
          ->needs(out_opt);
  json_opt->excludes(out_opt)->excludes(out_format_opt);
  app.add_option("--benchmark_min_time", o.min_time, "the same as --min-time (a trailing 's' is accepted)")
      ->type_name("FLOAT")
      ->transform(CLI::Validator(min_time_problem, ""))
      ->excludes(min_time_opt);
  app.add_option("--benchmark_repetitions", o.repetitions, "the same as --repetitions")
      ->type_name("INT")
      ->check(validator(integer_from(1)))
      ->excludes(reps_opt);
  app.add_flag("--benchmark_counters_tabular", o.counters_tabular,
               "console: Google Benchmark's own table, every counter in a column");
  app.add_flag("--benchmark_list_tests", list_tests, "list the rows this command would run, and exit");
  std::string footer;
  for (const std::string& paragraph :
       {std::string("Other --benchmark_* flags are refused; these are taken: ") + kBenchmarkFlags + ".",
        std::string("Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no usable GPU / kernel not built "
                    "for it.")})
    for (const std::string& line : wrap_words(paragraph, kOutputWidth)) footer += (footer.empty() ? "" : "\n") + line;
  app.footer(footer);
  // --help wins over every other argument, a bad one included: CLI11 checks the values it has read
  // before it looks for its help flag.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      res.exit_code = kExitOk;
      res.output = app.help();
      return res;
    }
  try {
    app.parse(argc, argv);
    for (const std::string& extra : app.remaining()) {
      if (extra.rfind("--benchmark_", 0) == 0)
        throw UsageError("'" + extra + "' is not among the Google Benchmark flags --help lists");
      if (extra.size() > 1 && extra[0] == '-') throw UsageError("unknown option '" + extra + "' (see --help)");
      throw UsageError("stray argument '" + extra + "' (options take one value; lists are comma-separated)");
    }
    if (version) {
      res.exit_code = kExitOk;
      res.output = version_line;
      return res;
    }
    if (o.list) {
      res.exit_code = kExitOk;
      res.output = list_table();
      return res;
    }
    o.check = app.count("--no-check") == 0;
    o.hot = app.count("--no-hot") == 0;
    o.input = input_s == "normal"      ? InputKind::kNormal
              : input_s == "small_int" ? InputKind::kSmallInt
              : input_s == "wide"      ? InputKind::kWide
                                       : InputKind::kUniform;
    // An exponent range that would change nothing is refused rather than ignored.
    if (wide_opt->count() && o.input != InputKind::kWide) throw UsageError("--wide-exponent requires --input wide");
    // A rung named twice (by id or slug, in one list or in several) runs once, where first named.
    for (const std::string& group : kernel_args)
      for (const std::string& key : split(group, ','))
        if (const int id = find_rung(key)->id; std::find(o.kernels.begin(), o.kernels.end(), id) == o.kernels.end())
          o.kernels.push_back(id);
    if (o.kernels.empty())
      for (const Rung& r : registry()) o.kernels.push_back(r.id);

    std::vector<SuiteLine> wanted;
    auto want = [&](int64_t M, int64_t N, int64_t K) { wanted.push_back({Shape{M, N, K, 0, 0, 0}}); };
    if (!size_s.empty()) want(to_int(size_s), to_int(size_s), to_int(size_s));
    for (const std::string& group : size_list)
      for (int64_t sq : parse_size_list(group)) want(sq, sq, sq);
    for (const std::string& group : shape_list)
      for (const Shape& s : parse_shape_list(group)) wanted.push_back({s});
    if (!m_s.empty()) want(to_int(m_s), to_int(n_s), to_int(k_s));
    if (!suite_s.empty()) wanted = read_suite(suite_s), o.suite = suite_s;
    if (wanted.empty()) want(4096, 4096, 4096);
    for (const SuiteLine& line : wanted)
      for (const std::string& layout : line.layout ? std::vector<std::string>{layout_name(line.shape)} : split(o.layout, ',')) {
        Shape s = line.shape;
        s.transa = layout[0] == 't';
        s.transb = layout[1] == 't';
        if (!line.batch) s.batch = o.batch;
        if (!line.bias) s.bias = o.bias;
        if (!lda_s.empty()) s.lda = to_int(lda_s);
        if (!ldb_s.empty()) s.ldb = to_int(ldb_s);
        if (!ldc_s.empty()) s.ldc = to_int(ldc_s);
        o.shapes.push_back(with_default_ld(s));
      }
    for (const Shape& s : o.shapes) check_shape(s, o.kernels, o.alpha, o.beta, o.shapes.size() > 1);
    if (o.accuracy_sweep) {
      o.accuracy_ks = parse_size_list(ks_s);
      for (int64_t e : parse_size_list(exponents_s)) o.accuracy_exponents.push_back(int(e));
    }
    const std::vector<std::string> rows = selected_row_names(o, o.filter);
    if (rows.empty())
      throw UsageError("--benchmark_filter='" + o.filter + "' matches no row (see --benchmark_list_tests)");
    if (list_tests) {
      res.exit_code = kExitOk;
      for (const std::string& name : rows) res.output += (res.output.empty() ? "" : "\n") + name;
      return res;
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
  const bool dense = std::all_of(o.shapes.begin(), o.shapes.end(), [](const Shape& s) { return default_ld(s); });
  if (!o.suite.empty()) {
    os << " --suite " << o.suite;
  } else if (dense) {
    os << " --shapes ";
    std::vector<std::string> seen;  // each shape once: --layout repeats it per layout
    for (const Shape& s : o.shapes) {
      const std::string mnk = std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
      if (std::find(seen.begin(), seen.end(), mnk) != seen.end()) continue;
      os << (seen.empty() ? "" : ",") << mnk;
      seen.push_back(mnk);
    }
  } else {
    const Shape& s = o.shapes.front();
    os << " --m " << s.M << " --n " << s.N << " --k " << s.K << " --lda " << s.lda << " --ldb "
       << s.ldb << " --ldc " << s.ldc;
  }
  if (o.layout != "nn") os << " --layout " << o.layout;
  if (o.batch > 1) os << " --batch " << o.batch;
  if (o.bias) os << " --bias";
  os << std::setprecision(9) << " --alpha " << o.alpha << " --beta " << o.beta << " --input " << input_kind_name(o.input);
  if (o.input == InputKind::kWide) os << " --wide-exponent " << o.wide_exponent;
  os << " --seed " << o.seed << " --warmup " << o.warmup;
  if (o.repeat) os << " --repeat " << o.repeat;
  else os << " --min-time " << o.min_time;
  os << " --rounds " << o.rounds << " --clock-threshold " << o.clock_threshold_pct;
  if (o.packing != "auto") os << " --packing " << o.packing;
  if (o.repetitions > 1) os << " --repetitions " << o.repetitions;
  if (!o.check) os << " --no-check";
  if (!o.hot) os << " --no-hot";
  else if (o.hot_time != Options{}.hot_time) os << " --hot-time " << o.hot_time;
  if (o.gemmul8) os << " --gemmul8 " << o.gemmul8;
  if (o.gemmul8 && o.gemmul8_mode != Options{}.gemmul8_mode) os << " --gemmul8-mode " << o.gemmul8_mode;
  if (o.moduli) os << " --moduli " << o.moduli;
  if (o.energy_time > 0) os << " --energy " << o.energy_time;
  if (o.accuracy_sweep) {
    auto list = [&](const char* option, const auto& values) {
      if (values.empty()) return;
      os << " " << option << " ";
      for (size_t i = 0; i < values.size(); ++i) os << (i ? "," : "") << values[i];
    };
    os << " --accuracy-sweep";
    list("--accuracy-ks", o.accuracy_ks);
    os << " --accuracy-mn " << o.accuracy_mn;
    list("--accuracy-exponents", o.accuracy_exponents);
  }
  if (!o.filter.empty()) os << " '--benchmark_filter=" << o.filter << "'";
  return os.str();
}

}  // namespace sgemm::harness
