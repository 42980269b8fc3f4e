// sgemm_bench's command line: valid forms and every bad input of DESIGN.md's Errors.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/cli.hpp"
#include "sgemm_ladder.hpp"

using namespace sgemm::harness;

namespace {

ParseResult parse(std::vector<std::string> args) {
  args.insert(args.begin(), "sgemm_bench");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return parse_cli(int(argv.size()), argv.data());
}

void expect_usage_error(const std::vector<std::string>& args, const std::string& needle) {
  const ParseResult r = parse(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  SCOPED_TRACE(joined);
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
  EXPECT_EQ(r.options.kernels, (std::vector<int>{1, 0, 1}));
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
  EXPECT_EQ(s.ldb, 32);  // default: N rounded up to 4
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
  for (const sgemm::Rung& rung : sgemm::registry()) {
    EXPECT_NE(r.output.find(rung.slug), std::string::npos);
    EXPECT_NE(r.output.find(rung.lesson), std::string::npos);
    EXPECT_NE(r.output.find(rung.tile()), std::string::npos);
    EXPECT_NE(r.output.find(rung.tile() + "  "), std::string::npos) << "tile must not run into the lesson";
  }
}

TEST(Cli, HelpExitsZero) {
  const ParseResult r = parse({"--help"});
  EXPECT_EQ(r.exit_code, kExitOk);
  EXPECT_NE(r.output.find("--kernel"), std::string::npos);
}

TEST(Cli, BenchmarkFlagsPassThrough) {
  const ParseResult r = parse({"--benchmark_repetitions=3", "--benchmark_filter=naive"});
  ASSERT_EQ(r.exit_code, -1) << r.output;
  EXPECT_EQ(r.options.benchmark_args,
            (std::vector<std::string>{"--benchmark_repetitions=3", "--benchmark_filter=naive"}));
}

TEST(Cli, BadInputs) {
  expect_usage_error({"--size", "abc"}, "not a number");
  expect_usage_error({"--size", "12x"}, "not a number");
  expect_usage_error({"--m", "-5"}, "negative");
  expect_usage_error({"--size=-1"}, "negative");
  expect_usage_error({"--sizes", "256,-3"}, "negative");
  expect_usage_error({"--k", "1e3"}, "not a number");
  expect_usage_error({"--size", "100", "--lda", "50"}, "lda=50 is smaller than max(1, K=100)");
  expect_usage_error({"--size", "100", "--ldb", "99"}, "ldb=99");
  expect_usage_error({"--size", "100", "--ldc", "1"}, "ldc=1");
  expect_usage_error({"--m", "4611686018427387904", "--n", "4", "--k", "4"}, "overflows");
  expect_usage_error({"--m", "4", "--n", "4611686018427387904", "--k", "4"}, "overflows");
  expect_usage_error({"--kernel", "999"}, "unknown kernel '999'; valid kernels: 0 (00_cublas)");
  expect_usage_error({"--kernel", "nonsense"}, "unknown kernel 'nonsense'");
  expect_usage_error({"--bogus"}, "unknown option");
  expect_usage_error({"stray"}, "unknown option or argument 'stray'");
  expect_usage_error({"--input", "zeros"}, "--input 'zeros'");
  expect_usage_error({"--repeat", "-1"}, "--repeat");
  expect_usage_error({"--min-time", "0"}, "--min-time");
  expect_usage_error({"--alpha", "x"}, "alpha");
  expect_usage_error({"--sizes", "256,512", "--m", "3"}, "cannot be combined");
  expect_usage_error({"--shapes", "12x3"}, "is not of the form MxNxK");
  expect_usage_error({"--shapes", "12x3x-4"}, "negative");
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
