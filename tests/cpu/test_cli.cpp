// sgemm_bench's command line: valid forms and every bad input of DESIGN.md's Errors.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bad_inputs.hpp"
#include "harness/cli.hpp"
#include "harness/rows.hpp"
#include "sgemm_ladder.hpp"

using namespace sgemm::harness;

namespace {

void expect_usage_error(const std::vector<std::string>& args, const std::string& needle) {
  const ParseResult r = parse(args);
  SCOPED_TRACE(joined(args));
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), std::string::npos) << "one line: " << r.output;
  EXPECT_EQ(r.output.rfind("sgemm_bench: error: ", 0), 0u) << r.output;
}

}  // namespace

TEST(Cli, DefaultsRunEveryRungAt4096) {
  const ParseResult r = parse({});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.kernels.size(), sgemm::registry().size());
  ASSERT_EQ(r.options.shapes.size(), 1u);
  EXPECT_EQ(r.options.shapes[0].M, 4096);
  EXPECT_EQ(r.options.shapes[0].K, 4096);
  EXPECT_TRUE(r.options.check);
  EXPECT_EQ(r.options.alpha, 1.0f);
  EXPECT_EQ(r.options.beta, 0.0f);
}

TEST(Cli, KernelsByIdAndSlugRepeatedOrCommaSeparated) {
  const ParseResult r = parse({"--kernel", "1", "--kernel", "00_cublas,naive"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.kernels, (std::vector<int>{1, 0})) << "naive, named again by its slug, runs once";
}

// A rung named twice, in one list, in two, by its id and by its slug, runs once, where first named.
TEST(Cli, KernelNamedTwiceRunsOnce) {
  const sgemm::Rung& first = sgemm::registry().front();
  const sgemm::Rung& last = sgemm::registry().back();
  const std::string a = std::to_string(last.id), b = std::to_string(first.id);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--kernel", a, "--kernel", a}, {"--kernel", a + "," + a}, {"--kernel", last.slug},
        {"--kernel", a, "--kernel", last.slug}, {"--kernel", std::string(last.slug) + "," + a + "," + a}}) {
    const ParseResult r = parse(args);
    ASSERT_EQ(r.exit_code, -1) << joined(args) << ": " << r.output;
    EXPECT_EQ(r.options.kernels, std::vector<int>{last.id}) << joined(args);
  }
  const ParseResult r = parse({"--kernel", a + "," + b, "--kernel", b + "," + last.slug});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.kernels, (std::vector<int>{last.id, first.id}));
  EXPECT_NE(reproduce_command(r.options, "sgemm_bench").find("--kernel " + a + "," + b + " "), std::string::npos);
}

TEST(Cli, WorkloadSuite) {
  // --suite NAME reads bench/NAME.txt: every shape by its name, leading dimensions dense unless given.
  ParseResult r = parse({"--suite", "workloads", "--kernel", "auto"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  ASSERT_GE(r.options.shapes.size(), 60u) << "the suite has at least 60 shapes";
  std::set<std::string> names, layouts;
  bool odd_n = false, explicit_ld = false, decode = false, batched = false, bias = false, narrow_n = false,
       small_k = false;
  for (const Shape& s : r.options.shapes) {
    EXPECT_TRUE(names.insert(s.name).second) << "duplicate name " << s.name;
    odd_n |= s.N % 2 == 1;
    explicit_ld |= s.lda > s.K;
    decode |= s.M == 1;
    batched |= s.batch > 1;
    bias |= s.bias;
    narrow_n |= s.N <= 16 && s.M >= 4096;
    small_k |= s.K <= 16;
    layouts.insert(layout_name(s));
  }
  EXPECT_TRUE(odd_n && explicit_ld && decode && batched && bias && narrow_n && small_k);
  EXPECT_EQ(layouts, (std::set<std::string>{"nn", "nt", "tn", "tt"})) << "every layout";
  const std::string cmd = reproduce_command(r.options, "sgemm_bench");
  EXPECT_NE(cmd.find("--suite workloads"), std::string::npos) << "a suite's run is reproduced by the suite: " << cmd;
  EXPECT_EQ(cmd.find("--shapes"), std::string::npos) << cmd;
  for (const char* bad : {"no_such_suite", ""}) EXPECT_EQ(parse({"--suite", bad}).exit_code, kExitUsage) << bad;
  EXPECT_EQ(parse({"--suite", "workloads", "--size", "64"}).exit_code, kExitUsage);
}

// sgemm_autotune --dispatch-explain names its shapes as MxNxK or by a suite line's name (which brings
// that line's leading dimensions, layout, batch and bias), or all of a suite's.
TEST(Cli, ShapesByDimensionsOrBySuiteName) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "sgemm_cli_named_shapes.txt";
  std::ofstream(path) << "# two lines\nodd_k 4095 1001 127 128 1004 1001\nboth_t 999 1537 513 layout=tt batch=3 bias\n";
  const std::string suite = path.string();
  EXPECT_EQ(shape_or_name_list_problem("odd_k,64x32x16,both_t", suite), "");
  const std::vector<Shape> s = resolve_shape_list("odd_k,64x32x16,both_t", suite);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].name, "odd_k");
  EXPECT_EQ(std::vector<int64_t>({s[0].M, s[0].N, s[0].K, s[0].lda, s[0].ldb, s[0].ldc}),
            std::vector<int64_t>({4095, 1001, 127, 128, 1004, 1001}));
  EXPECT_FALSE(s[0].transa || s[0].transb || s[0].bias);
  EXPECT_EQ(std::vector<int64_t>({s[1].M, s[1].N, s[1].K, s[1].lda}), std::vector<int64_t>({64, 32, 16, 0}));
  EXPECT_TRUE(s[2].transa && s[2].transb && s[2].bias);
  EXPECT_EQ(s[2].batch, 3);
  EXPECT_EQ(resolve_shape_list("all", suite).size(), 2u);
  // Every line of the project's own suite, as sgemm_bench --suite reads it.
  EXPECT_EQ(resolve_shape_list("all", "workloads").size(), parse({"--suite", "workloads"}).options.shapes.size());
  const std::string unknown = shape_or_name_list_problem("odd_k,no_such", suite);
  EXPECT_NE(unknown.find("'no_such'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("odd_k, both_t"), std::string::npos) << "names the suite's shapes: " << unknown;
  for (const char* bad : {"", "odd_k,", "0x4x4", "4x4"}) EXPECT_NE(shape_or_name_list_problem(bad, suite), "") << bad;
  EXPECT_NE(shape_or_name_list_problem("odd_k", "no_such_suite"), "");
  // Dimensions alone need no suite (an installed tool has no source tree to read one from).
  EXPECT_EQ(shape_or_name_list_problem("64x32x16,8x8x8", "no_such_suite"), "");
  EXPECT_EQ(resolve_shape_list("64x32x16,8x8x8", "no_such_suite").size(), 2u);
  std::filesystem::remove(path);
}

// A suite line may fix its own layout, batch and bias; the command line's apply to the other lines.
TEST(Cli, SuiteLinesCarryTheirOwnLayoutBatchAndBias) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "sgemm_cli_suite_tokens.txt";
  {
    std::ofstream f(path);
    f << "# a comment\nplain 64 32 16\nlinear 8 128 64 layout=nt bias\nheads 16 16 8 batch=4 layout=tn  # trailing\n";
  }
  ParseResult r = parse({"--suite", path.string(), "--kernel", "auto", "--layout", "nn,tt", "--batch", "2"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  ASSERT_EQ(r.options.shapes.size(), 4u) << "the plain line in both --layout layouts, the others in their own";
  EXPECT_EQ(layout_name(r.options.shapes[0]), "nn");
  EXPECT_EQ(layout_name(r.options.shapes[1]), "tt");
  EXPECT_EQ(r.options.shapes[0].batch, 2);
  const Shape& linear = r.options.shapes[2];
  EXPECT_EQ(linear.name, "linear");
  EXPECT_EQ(layout_name(linear), "nt");
  EXPECT_TRUE(linear.bias);
  EXPECT_EQ(linear.batch, 2) << "no batch= on the line: --batch applies";
  EXPECT_EQ(linear.ldb, 64) << "B stored N x K: dense rows of K";
  const Shape& heads = r.options.shapes[3];
  EXPECT_EQ(layout_name(heads), "tn");
  EXPECT_EQ(heads.batch, 4);
  EXPECT_FALSE(heads.bias);
  for (const char* bad : {"x 8 8 8 layout=xn", "x 8 8 8 batch=0", "x 8 8 8 layout=nt layout=tn", "x 8 8 8 bogus=1",
                          "x 8 8 layout=nt"}) {
    {
      std::ofstream f(path);
      f << bad << "\n";
    }
    const ParseResult b = parse({"--suite", path.string()});
    EXPECT_EQ(b.exit_code, kExitUsage) << bad;
    EXPECT_NE(b.output.find(":1:"), std::string::npos) << "names the line: " << b.output;
  }
  std::filesystem::remove(path);
}

TEST(Cli, SizesAndShapes) {
  ParseResult r = parse({"--sizes", "256,512", "--no-check"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  ASSERT_EQ(r.options.shapes.size(), 2u);
  EXPECT_EQ(r.options.shapes[1].N, 512);
  EXPECT_FALSE(r.options.check);
  r = parse({"--m", "100", "--n", "30", "--k", "7", "--lda", "12", "--ldc", "40"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  const Shape& s = r.options.shapes.at(0);
  EXPECT_EQ(s.M, 100);
  EXPECT_EQ(s.N, 30);
  EXPECT_EQ(s.K, 7);
  EXPECT_EQ(s.lda, 12);
  EXPECT_EQ(s.ldb, 30);  // default: N, dense rows
  EXPECT_EQ(s.ldc, 40);
  r = parse({"--shapes", "8192x1024x8192,16x32x64", "--sizes", "128"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  ASSERT_EQ(r.options.shapes.size(), 3u);
  EXPECT_EQ(r.options.shapes[0].M, 128);
  EXPECT_EQ(r.options.shapes[1].N, 1024);
  EXPECT_EQ(r.options.shapes[2].K, 64);
  r = parse({"--size", "0"});
  EXPECT_EQ(r.exit_code, -1) << "an empty product is valid";
}

TEST(Cli, ListPrintsEveryRung) {
  const ParseResult r = parse({"--list"});
  EXPECT_EQ(r.exit_code, kExitOk);
  // Every word of every rung's slug, tile and lesson is there (lessons and lists of tiles wrap).
  std::istringstream out(r.output);
  std::set<std::string> words;
  for (std::string w; out >> w;) words.insert(w);
  for (const sgemm::Rung& rung : sgemm::registry()) {
    const std::string tile = rung.tile();
    std::istringstream text(std::string(rung.slug) + " " + tile + " " + rung.lesson);
    for (std::string w; text >> w;) EXPECT_TRUE(words.count(w)) << rung.slug << ": '" << w << "' is missing";
    if (tile.find(' ') == std::string::npos) {
      EXPECT_NE(r.output.find(" " + tile + "  "), std::string::npos) << "tile must not run into the lesson";
    }
  }
  // No line wider than 100 characters; one row that starts with an id for every rung.
  std::istringstream lines(r.output);
  size_t rows = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 100u) << line;
    rows += !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]));
  }
  EXPECT_EQ(rows, sgemm::registry().size());
}

TEST(Cli, HelpExitsZero) {
  const ParseResult r = parse({"--help"});
  EXPECT_EQ(r.exit_code, kExitOk);
  EXPECT_NE(r.output.find("--kernel"), std::string::npos);
}

// --help wins over any other argument: a bad value, an unknown option, a stray word, --version.
TEST(Cli, HelpWinsOverAnyOtherArgument) {
  const std::string help = parse({"--help"}).output;
  const std::string unknown = unknown_kernel_id();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--kernel", unknown, "--help"}, {"--help", "--kernel", unknown}, {"--lda", "0", "-h"},
        {"--version", "--help"}, {"--help", "extra"}, {"--bogus", "--help"}, {"--benchmark_bogus=1", "--help"},
        {"--size", "100", "--lda", "50", "--help"}, {"--suite", "/dev/null", "--help"}}) {
    const ParseResult r = parse(args);
    EXPECT_EQ(r.exit_code, kExitOk) << joined(args) << ": " << r.output;
    EXPECT_EQ(r.output, help) << joined(args);
  }
}

// Every line of --help fits in 100 columns, and every option that takes a number says so.
TEST(Cli, HelpFitsInOneHundredColumnsAndTypesNumbers) {
  const std::string help = parse({"--help"}).output;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  const std::map<std::string, std::string> types = {
      {"--size", "INT"},          {"--m", "INT"},         {"--n", "INT"},           {"--k", "INT"},
      {"--lda", "INT"},           {"--ldb", "INT"},       {"--ldc", "INT"},         {"--batch", "INT"},
      {"--wide-exponent", "INT"}, {"--seed", "UINT"},     {"--warmup", "INT"},      {"--repeat", "INT"},
      {"--rounds", "INT"},        {"--repetitions", "INT"}, {"--gemmul8", "INT"},   {"--moduli", "INT"},
      {"--accuracy-mn", "INT"},   {"--benchmark_repetitions", "INT"},               {"--alpha", "FLOAT"},
      {"--beta", "FLOAT"},        {"--min-time", "FLOAT"}, {"--hot-time", "FLOAT"}, {"--clock-threshold", "FLOAT"},
      {"--energy", "FLOAT"},      {"--soak", "FLOAT"},    {"--benchmark_min_time", "FLOAT"},
      {"--kernel", "LIST"},       {"--sizes", "LIST"},    {"--shapes", "LIST"},     {"--accuracy-ks", "LIST"},
      {"--accuracy-exponents", "LIST"}, {"--layout", "LIST"}};
  for (const auto& [option, type] : types)
    EXPECT_NE(help.find("\n  " + option + " " + type + " "), std::string::npos) << option << " " << type << "\n" << help;
  // Each leading dimension documents the same rule: at least a row's length; left out, dense rows.
  for (const char* ld : {"--lda INT", "--ldb INT", "--ldc INT"}) {
    const size_t at = help.find(ld);
    ASSERT_NE(at, std::string::npos) << ld;
    std::istringstream words(help.substr(at, help.find("\n  -", at) - at));
    std::string entry;  // its words, unwrapped
    for (std::string w; words >> w;) entry += w + " ";
    EXPECT_NE(entry.find("at least its row length"), std::string::npos) << entry;
    EXPECT_NE(entry.find("dense rows"), std::string::npos) << entry;
  }
}

// The unknown-kernel error: one short line whose ids come from the registry; the slugs and
// lessons are --list's.
TEST(Cli, UnknownKernelIsOneShortLine) {
  const std::string unknown = unknown_kernel_id();
  const ParseResult r = parse({"--kernel", unknown});
  ASSERT_EQ(r.exit_code, kExitUsage);
  EXPECT_LE(r.output.size(), 100u) << r.output;
  EXPECT_EQ(r.output.find('\n'), std::string::npos) << r.output;
  const std::string head = "unknown kernel '" + unknown + "' (ids ", tail = ", or slugs: see --list)";
  const size_t from = r.output.find(head), to = r.output.find(tail);
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && to > from) << r.output;
  // The ids, alone or in ranges ("0-5, 7"), are the registry's.
  std::set<int> named, ids;
  std::istringstream items(r.output.substr(from + head.size(), to - from - head.size()));
  for (std::string item; std::getline(items, item, ',');) {
    const size_t dash = item.find('-');
    const int first = std::stoi(item), last = dash == std::string::npos ? first : std::stoi(item.substr(dash + 1));
    for (int id = first; id <= last; ++id) named.insert(id);
  }
  for (const sgemm::Rung& rung : sgemm::registry()) ids.insert(rung.id);
  EXPECT_EQ(named, ids) << r.output;
}

// --batch: 1 to 65535 products a call, as a suite line's batch= takes.
TEST(Cli, BatchIsBounded) {
  const ParseResult most = parse({"--batch", "65535", "--size", "1"});
  ASSERT_EQ(most.exit_code, -1) << most.output;
  EXPECT_EQ(most.options.shapes.at(0).batch, 65535);
  expect_usage_error({"--batch", "65536"}, "--batch: 65536 is above 65535");
  expect_usage_error({"--batch", "9223372036854775808"}, "--batch: 9223372036854775808 is out of range");
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "sgemm_cli_suite_batch.txt";
  std::ofstream(path) << "big 8 8 8 batch=65536\n";
  expect_usage_error({"--suite", path.string()}, "batch=1-65535");
  std::filesystem::remove(path);
}

// A leading dimension of 0 is refused like any other below a row's length, for each operand and
// in a suite's lines; dense rows are had by leaving the option out.
TEST(Cli, LeadingDimensionZeroIsRefusedForEveryOperand) {
  for (const char* ld : {"--lda", "--ldb", "--ldc"}) {
    expect_usage_error({"--size", "64", ld, "0"}, std::string(ld) + ": 0 is below 1 (leave it out for dense rows)");
    const ParseResult dense = parse({"--size", "64", ld, "64"});
    ASSERT_EQ(dense.exit_code, -1) << dense.output;
    EXPECT_TRUE(default_ld(dense.options.shapes.at(0))) << ld;
  }
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "sgemm_cli_suite_ld0.txt";
  std::ofstream(path) << "zero 8 8 8 0 8 8\n";
  expect_usage_error({"--suite", path.string()}, ":1: 0 is below 1");
  std::filesystem::remove(path);
}

// Words after a flag, after an option's one value, or anywhere on their own are refused.
TEST(Cli, ExtraWordsAreRefused) {
  const std::string id = std::to_string(sgemm::registry().front().id);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--version", "extra"}, {"extra", "--version"}, {"--list", "extra"},
        {"--bias", "extra"}, {"--kernel", id, "extra"}, {"--sizes", "64", "extra"}, {"--shapes", "8x8x8", "extra"},
        {"--benchmark_list_tests", "extra"}, {"extra"}})
    expect_usage_error(args, "stray argument 'extra'");
  const ParseResult version = parse({"--version"});
  EXPECT_EQ(version.exit_code, kExitOk);
  EXPECT_EQ(version.output, "sgemm_bench");
}

// A suite that is there but is no file of shapes says what it is instead.
TEST(Cli, SuiteThatIsNoFileOfShapesSaysWhatItIs) {
  namespace fs = std::filesystem;
  expect_usage_error({"--suite", "/dev/null"}, "--suite '/dev/null': a character device, not a file of shapes");
  expect_usage_error({"--suite", ::testing::TempDir()}, "a directory, not a file of shapes");
  const fs::path empty = fs::path(::testing::TempDir()) / "sgemm_cli_empty_suite.txt";
  std::ofstream(empty).close();
  expect_usage_error({"--suite", empty.string()}, empty.string() + " is empty");
  std::ofstream(empty) << "# only a comment\n\n";
  expect_usage_error({"--suite", empty.string()}, empty.string() + " lists no shape, only comments and blank lines");
  fs::remove(empty);
  expect_usage_error({"--suite", empty.string()}, empty.string() + "': no such file");
}

TEST(Cli, GoogleBenchmarkFlagsAreHonouredOrMapped) {
  const std::string out = ::testing::TempDir() + "sgemm_cli_out.csv";
  ParseResult r = parse({"--benchmark_repetitions=3", "--benchmark_filter=naive", "--benchmark_min_time=0.5s",
                         "--benchmark_format=json", "--benchmark_counters_tabular=true", "--benchmark_out=" + out,
                         "--benchmark_out_format=csv"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.repetitions, 3);
  EXPECT_EQ(r.options.filter, "naive");
  EXPECT_DOUBLE_EQ(r.options.min_time, 0.5);
  EXPECT_EQ(r.options.format, "json");
  EXPECT_TRUE(r.options.counters_tabular);
  EXPECT_EQ(r.options.out_path, out);
  EXPECT_EQ(r.options.out_format, "csv");
  r = parse({"--json", out, "--benchmark_min_time=2", "--benchmark_counters_tabular=false"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.out_path, out);
  EXPECT_EQ(r.options.out_format, "json");
  EXPECT_DOUBLE_EQ(r.options.min_time, 2.0);
  EXPECT_FALSE(r.options.counters_tabular);
}

TEST(Cli, ListTestsPrintsTheRowsTheFilterSelects) {
  const ParseResult r = parse({"--kernel", "1", "--sizes", "256,512", "--repetitions", "4", "--benchmark_list_tests",
                               "--benchmark_filter=512"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.output;
  EXPECT_EQ(r.output, "rung00_cublas/512x512x512/iterations:1/manual_time\nrung01_naive/512x512x512/iterations:1/manual_time");
  const ParseResult negated = parse({"--kernel", "1", "--size", "64", "--benchmark_list_tests", "--benchmark_filter=-cublas"});
  ASSERT_EQ(negated.exit_code, kExitOk) << negated.output;
  EXPECT_EQ(negated.output, "rung01_naive/64x64x64/iterations:1/manual_time");
}

TEST(Cli, VersionNamesTheProgramAndItsCommit) {
  std::vector<const char*> argv = {"sgemm_bench", "--version"};
  const ParseResult r = parse_cli(int(argv.size()), argv.data(), "sgemm_bench 9.9.9 (abc123)");
  EXPECT_EQ(r.exit_code, kExitOk);
  EXPECT_EQ(r.output, "sgemm_bench 9.9.9 (abc123)");
}

TEST(Cli, MeasurementOptions) {
  ParseResult r = parse({});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_GE(r.options.rounds, 7) << "R >= 7 by default";
  EXPECT_EQ(r.options.repetitions, 1);
  EXPECT_DOUBLE_EQ(r.options.clock_threshold_pct, 90.0);
  r = parse({"--rounds", "11", "--repetitions", "5", "--clock-threshold", "85.5", "--repeat", "3"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.rounds, 11);
  EXPECT_EQ(r.options.repetitions, 5);
  EXPECT_DOUBLE_EQ(r.options.clock_threshold_pct, 85.5);
  EXPECT_EQ(r.options.repeat, 3);
  EXPECT_TRUE(r.options.hot) << "every row is also timed hot by default";
  r = parse({"--no-hot"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_FALSE(r.options.hot);
  EXPECT_NE(reproduce_command(r.options, "sgemm_bench").find("--no-hot"), std::string::npos);
  r = parse({"--hot-time", "0.5"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_DOUBLE_EQ(r.options.hot_time, 0.5);
  EXPECT_NE(reproduce_command(r.options, "sgemm_bench").find("--hot-time 0.5"), std::string::npos);
  EXPECT_EQ(parse({"--hot-time", "0"}).exit_code, kExitUsage);
  r = parse({"--moduli", "5"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.moduli, 5);
  EXPECT_NE(reproduce_command(r.options, "sgemm_bench").find("--moduli 5"), std::string::npos);
  EXPECT_EQ(parse({}).options.moduli, 0) << "the plan's count by default";
  EXPECT_EQ(parse({"--moduli", "9"}).exit_code, kExitUsage);
  EXPECT_EQ(parse({"--moduli", "-1"}).exit_code, kExitUsage);
  EXPECT_EQ(parse({}).options.gemmul8_mode, "fast");
  r = parse({"--gemmul8", "7", "--gemmul8-mode", "accurate"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.gemmul8_mode, "accurate");
  EXPECT_NE(reproduce_command(r.options, "sgemm_bench").find("--gemmul8 7 --gemmul8-mode accurate"), std::string::npos);
  EXPECT_EQ(parse({"--gemmul8-mode", "exact"}).exit_code, kExitUsage);
}

// A results path is checked by opening it before any GPU work; a file created for the check is
// removed again, an existing one is left as it was.
TEST(Cli, ResultsPathCheckLeavesNoFileBehind) {
  namespace fs = std::filesystem;
  const fs::path fresh = fs::path(::testing::TempDir()) / "sgemm_cli_fresh.json";
  fs::remove(fresh);
  ASSERT_EQ(parse({"--json", fresh.string()}).exit_code, -1);
  EXPECT_FALSE(fs::exists(fresh)) << "the writability check left " << fresh;
  const fs::path existing = fs::path(::testing::TempDir()) / "sgemm_cli_existing.json";
  std::ofstream(existing) << "keep";
  ASSERT_EQ(parse({"--benchmark_out=" + existing.string()}).exit_code, -1);
  std::ifstream in(existing);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "keep");
  fs::remove(existing);
  expect_usage_error({"--json", ::testing::TempDir()}, "is a directory");
  expect_usage_error({"--benchmark_out=/nonexistent-dir/r.json"}, "cannot write '/nonexistent-dir/r.json'");
}

// Every bad input: exit 2, one line, before any GPU work (parse_cli touches none), in 100 columns
// but for what it quotes of a long argument.
TEST(Cli, BadInputs) {
  for (const BadInput& bad : bad_inputs()) {
    expect_usage_error(bad.args, bad.message);
    std::string own = parse(bad.args).output;
    for (const std::string& arg : bad.args)
      for (size_t at; arg.size() > 10 && (at = own.find(arg)) != std::string::npos;) own.erase(at, arg.size());
    EXPECT_LE(own.size(), 100u) << joined(bad.args) << ": " << parse(bad.args).output;
  }
}

TEST(Cli, MisalignedLeadingDimensionNamesTheOperand) {
  // Every rung that needs 128-bit rows must say which operand and why.
  for (const sgemm::Rung& rung : sgemm::registry()) {
    sgemm::GemmArgs a{64, 64, 64, 1.0f, nullptr, 66, nullptr, 64, 0.0f, nullptr, 64};
    std::string why;
    if (rung.supports(a, &why)) continue;
    SCOPED_TRACE(rung.slug);
    EXPECT_NE(why.find("A: lda=66"), std::string::npos) << why;
    expect_usage_error({"--kernel", std::to_string(rung.id), "--size", "64", "--lda", "66"}, "A: lda=66");
  }
}

TEST(Cli, ReproduceCommandRoundTrips) {
  const ParseResult multi = parse({"--shapes", "8192x1024x8192,64x64x64", "--kernel", "0"});
  ASSERT_EQ(multi.exit_code, -1) << multi.output;
  const std::string mcmd = reproduce_command(multi.options, "sgemm_bench");
  EXPECT_NE(mcmd.find("--shapes 8192x1024x8192,64x64x64"), std::string::npos) << mcmd;
  const ParseResult odd = parse({"--kernel", "0", "--alpha", "1.35674524", "--beta", "-1.96081781"});
  ASSERT_EQ(odd.exit_code, -1) << odd.output;
  const std::string ocmd = reproduce_command(odd.options, "sgemm_bench");
  EXPECT_NE(ocmd.find("--alpha 1.35674524 --beta -1.96081781"), std::string::npos) << "floats must round-trip: " << ocmd;
  const ParseResult r = parse({"--kernel", "1", "--m", "100", "--n", "30", "--k", "7", "--alpha", "0.5",
                               "--beta", "3", "--input", "normal", "--repeat", "9"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  const std::string cmd = reproduce_command(r.options, "sgemm_bench");
  std::vector<std::string> args;
  for (size_t pos = cmd.find(' '); pos != std::string::npos;) {
    const size_t next = cmd.find(' ', pos + 1);
    args.push_back(cmd.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1));
    pos = next;
  }
  const ParseResult again = parse(args);
  ASSERT_EQ(again.exit_code, -1) << again.output;
  EXPECT_EQ(again.options.kernels, r.options.kernels);
  EXPECT_EQ(again.options.shapes.at(0).str(), r.options.shapes.at(0).str());
  EXPECT_EQ(again.options.alpha, 0.5f);
  EXPECT_EQ(again.options.beta, 3.0f);
  EXPECT_EQ(again.options.input, InputKind::kNormal);
  EXPECT_EQ(again.options.repeat, 9);
}

TEST(Cli, WideInputAndItsExponentRange) {
  ParseResult r = parse({"--input", "wide"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.input, InputKind::kWide);
  EXPECT_EQ(r.options.wide_exponent, 20) << "the issue's 2^+-20";
  for (const char* e : {"0", "63", "126"}) {
    r = parse({"--input", "wide", "--wide-exponent", e});
    ASSERT_EQ(r.exit_code, -1) << e << ": " << r.output;
    EXPECT_EQ(r.options.wide_exponent, std::stoi(e));
  }
  // The command that reproduces the run names the range, whatever it is.
  r = parse({"--kernel", "1", "--size", "64", "--input", "wide", "--wide-exponent", "37"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  const std::string cmd = reproduce_command(r.options, "sgemm_bench");
  EXPECT_NE(cmd.find("--input wide --wide-exponent 37"), std::string::npos) << cmd;
  EXPECT_EQ(reproduce_command(parse({"--input", "normal"}).options, "sgemm_bench").find("--wide-exponent"),
            std::string::npos);
}

TEST(Cli, AccuracySweepExponentRanges) {
  ParseResult r = parse({"--accuracy-sweep"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.accuracy_exponents, (std::vector<int>{20, 40, 60}));
  r = parse({"--accuracy-sweep", "--accuracy-exponents", "0,126,30"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.accuracy_exponents, (std::vector<int>{0, 126, 30})) << "in the order given";
  EXPECT_TRUE(parse({}).options.accuracy_exponents.empty()) << "no sweep, no wide rows";
  // The sweep's options come back from the reproduce command.
  r = parse({"--kernel", "1", "--size", "64", "--accuracy-sweep", "--accuracy-ks", "32,64", "--accuracy-mn", "48",
             "--accuracy-exponents", "10,50"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  const std::string cmd = reproduce_command(r.options, "sgemm_bench");
  EXPECT_NE(cmd.find("--accuracy-sweep --accuracy-ks 32,64 --accuracy-mn 48 --accuracy-exponents 10,50"),
            std::string::npos)
      << cmd;
}

// --layout, --batch and --bias: every shape of the run carries them, in its row names, its
// leading dimensions' defaults and the command that reproduces it.
TEST(Cli, LayoutBatchAndBias) {
  ParseResult r = parse({});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.layout, "nn");
  EXPECT_EQ(r.options.batch, 1);
  EXPECT_FALSE(r.options.bias);
  EXPECT_TRUE(r.options.shapes.at(0).plain());
  r = parse({"--kernel", "7", "--shapes", "37x45x29,130x1x67", "--layout", "tn", "--batch", "3", "--bias"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.layout, "tn");
  EXPECT_EQ(r.options.batch, 3);
  EXPECT_TRUE(r.options.bias);
  ASSERT_EQ(r.options.shapes.size(), 2u);
  for (const Shape& s : r.options.shapes) {
    EXPECT_TRUE(s.transa);
    EXPECT_FALSE(s.transb);
    EXPECT_EQ(s.batch, 3);
    EXPECT_TRUE(s.bias);
    EXPECT_EQ(s.lda, s.M) << "A stored K x M: dense rows are M long";
    EXPECT_EQ(s.ldb, s.N);
    EXPECT_EQ(s.strideA, s.K * s.M) << "products one after the other";
    EXPECT_EQ(s.strideC, s.M * s.N);
    EXPECT_EQ(layout_name(s), "tn");
  }
  for (const char* layout : {"nn", "nt", "tn", "tt"}) {
    const ParseResult l = parse({"--layout", layout, "--size", "64"});
    ASSERT_EQ(l.exit_code, -1) << l.output;
    EXPECT_EQ(layout_name(l.options.shapes.at(0)), layout);
  }
  // Several layouts: every shape in each, shape by shape; the command names the list once.
  const ParseResult many = parse({"--kernel", "17", "--sizes", "64,128", "--layout", "nn,nt,tt"});
  ASSERT_EQ(many.exit_code, -1) << many.output;
  ASSERT_EQ(many.options.shapes.size(), 6u);
  EXPECT_EQ(many.options.shapes[1].str(), "64x64x64 layout=nt");
  EXPECT_EQ(many.options.shapes[5].str(), "128x128x128 layout=tt");
  const std::string again_many = reproduce_command(many.options, "sgemm_bench");
  EXPECT_NE(again_many.find("--shapes 64x64x64,128x128x128 --layout nn,nt,tt"), std::string::npos) << again_many;
  const ParseResult bad = parse({"--layout", "nn,xt"});
  EXPECT_EQ(bad.exit_code, kExitUsage);
  EXPECT_NE(bad.output.find("'xt' is not one of nn, nt, tn, tt in 'nn,xt'"), std::string::npos) << bad.output;
  // Row names: the layout (other than nn), the batch (above 1) and the bias.
  const ParseResult rows = parse({"--kernel", "7", "--size", "64", "--layout", "nt", "--batch", "2", "--bias",
                                  "--benchmark_list_tests", "--benchmark_filter=rung07"});
  ASSERT_EQ(rows.exit_code, kExitOk) << rows.output;
  EXPECT_EQ(rows.output, "rung07_bank_conflict_free/64x64x64/nt/batch2/bias/iterations:1/manual_time");
  const std::map<std::string, std::string> layouts = layouts_per_row(r.options);
  EXPECT_EQ(layouts.at("rung07_bank_conflict_free/37x45x29/tn/batch3/bias"), "tn");
  // The reproduce command names all three, and parses back to the same shapes.
  const std::string cmd = reproduce_command(r.options, "sgemm_bench");
  EXPECT_NE(cmd.find(" --layout tn --batch 3 --bias"), std::string::npos) << cmd;
  std::vector<std::string> args;
  std::istringstream words(cmd.substr(cmd.find(' ') + 1));
  for (std::string w; words >> w;) args.push_back(w);
  const ParseResult again = parse(args);
  ASSERT_EQ(again.exit_code, -1) << again.output;
  ASSERT_EQ(again.options.shapes.size(), 2u);
  EXPECT_EQ(again.options.shapes[0].str(), r.options.shapes[0].str());
  EXPECT_EQ(again.options.shapes[0].str(), "37x45x29 layout=tn batch=3 bias");
  EXPECT_EQ(reproduce_command(parse({}).options, "sgemm_bench").find("--layout"), std::string::npos);
  // --help shows the defaults the options start with.
  const ParseResult help = parse({"--help"});
  EXPECT_NE(help.output.find("nn, nt, tn, tt (default nn)"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("(default 1)"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--bias"), std::string::npos) << help.output;
}
