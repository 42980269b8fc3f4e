// Command lines sgemm_bench must refuse (exit 2, one line on stderr, before any GPU work), each
// with a piece of its message. test_cli.cpp checks all of them through parse_cli,
// test_programs.cpp the issues' lists through the real program.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "harness/cli.hpp"

struct BadInput {
  std::vector<std::string> args;
  std::string message;
};

// The list of the issue "Honest numbers under noise, hard edges, and every GPU".
inline const std::vector<BadInput>& issue_bad_inputs() {
  static const std::vector<BadInput> cases = {
      {{"--size", ""}, "--size: empty value"},
      {{"--kernel", ""}, "--kernel: empty item"},
      {{"--alpha", ""}, "--alpha: empty value"},
      {{"--sizes", "1024,,2048"}, "--sizes: empty item in '1024,,2048'"},
      {{"--m", "100", "--n", "100"}, "--m requires --k"},
      {{"--size", "1024", "--m", "100", "--n", "100", "--k", "100"}, "--size excludes --"},  // --m, --n or --k
      {{"--seed", "-1"}, "--seed: -1 is negative"},
      {{"--alpha", "1e40"}, "--alpha: 1e40 is not finite in FP32"},
      {{"--alpha", "nan"}, "--alpha: nan is not finite"},
      {{"--beta", "inf"}, "--beta: inf is not finite"},
      {{"--beta", "-1e39"}, "not finite in FP32"},
      {{"--accuracy-sweep", "--accuracy-ks", "0"}, "--accuracy-ks: 0 is below 1"},
      {{"--repeat", "0"}, "--repeat: 0 is below 1"},
      {{"--benchmark_bogus=1"}, "'--benchmark_bogus=1' is not among the Google Benchmark flags --help lists"},
      {{"--json", "/"}, "--json: '/' is a directory"},
      {{"--json", "/nonexistent-dir/results.json"}, "cannot write '/nonexistent-dir/results.json'"},
      {{"--size", "9223372036854775807"}, "overflows 64 bits"},
      {{"--size", "9223372036854775808"}, "out of range"},
      {{"--m", "1000000000", "--n", "1000000000", "--k", "1"}, "more than 2^63 bytes"},
  };
  return cases;
}

// The command line's rough edges of issue 63, tried as a new user would: a leading dimension of 0
// (refused like any other below a row's length, not taken for "dense"), a batch past one launch,
// words after a flag, a suite that is no file of shapes, an unknown kernel (a short line).
inline const std::vector<BadInput>& rough_edge_bad_inputs() {
  static const std::vector<BadInput> cases = {
      {{"--lda", "0"}, "--lda: 0 is below 1 (leave it out for dense rows)"},
      {{"--ldb", "0"}, "--ldb: 0 is below 1 (leave it out for dense rows)"},
      {{"--ldc", "0"}, "--ldc: 0 is below 1 (leave it out for dense rows)"},
      {{"--size", "64", "--ldc", "-1"}, "--ldc: -1 is below 1"},
      {{"--batch", "3000000000"}, "--batch: 3000000000 is above 65535 (CUDA's grid z"},
      {{"--batch", "65536", "--size", "1"}, "--batch: 65536 is above 65535"},
      {{"--version", "extra"}, "stray argument 'extra' (options take one value; lists are comma-separated)"},
      {{"--list", "extra"}, "stray argument 'extra'"},
      {{"--no-check", "extra"}, "stray argument 'extra'"},
      {{"--sizes", "256", "512"}, "stray argument '512'"},
      {{"--kernel", std::to_string(sgemm::registry().front().id), "extra"}, "stray argument 'extra'"},
      {{"--size", "64", "stray"}, "stray argument 'stray'"},
      {{"--suite", "/dev/null"}, "--suite '/dev/null': a character device, not a file of shapes"},
      {{"--suite", "/"}, "--suite '/': a directory, not a file of shapes"},
      {{"--suite", "/nonexistent-dir/suite.txt"}, "--suite '/nonexistent-dir/suite.txt': no such file"},
      {{"--suite", "no_such_suite"}, "--suite 'no_such_suite': no such file, and no suite bench/no_such_suite.txt"},
      {{"--kernel", "nonsense"}, "--kernel: unknown kernel 'nonsense' (ids "},
  };
  return cases;
}

// All of them: the issues', then other sizes, leading dimensions, kernels, options and Google
// Benchmark flags.
inline const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> cases = [] {
    std::vector<BadInput> all = issue_bad_inputs();
    all.insert(all.end(), rough_edge_bad_inputs().begin(), rough_edge_bad_inputs().end());
    const std::vector<BadInput> more = {
        {{"--size", "abc"}, "not a number"},
        {{"--size", "12x"}, "not a number"},
        {{"--m", "-5", "--n", "4", "--k", "4"}, "--m: -5 is negative"},
        {{"--size=-1"}, "negative"},
        {{"--sizes", "256,-3"}, "negative"},
        {{"--m", "4", "--n", "4", "--k", "1e3"}, "not a number"},
        {{"--size", "100", "--lda", "50"}, "lda=50 is smaller than max(1, K=100)"},
        {{"--size", "100", "--ldb", "99"}, "ldb=99"},
        {{"--size", "100", "--ldc", "1"}, "ldc=1"},
        {{"--m", "4611686018427387904", "--n", "4", "--k", "4"}, "overflows"},
        {{"--m", "4", "--n", "4611686018427387904", "--k", "4"}, "overflows"},
        {{"--kernel", "999"}, "--kernel: unknown kernel '999' (ids "},
        {{"--kernel", "nonsense"}, "unknown kernel 'nonsense'"},
        {{"--kernel", "1,,2"}, "empty item"},
        {{"--bogus"}, "unknown option '--bogus' (see --help)"},
        {{"stray"}, "stray argument 'stray'"},
        {{"--input", "zeros"}, "--input"},
        {{"--repeat", "-1"}, "--repeat"},
        {{"--min-time", "0"}, "--min-time"},
        {{"--alpha", "x"}, "alpha"},
        {{"--sizes", "256,512", "--m", "3", "--n", "3", "--k", "3"}, "excludes"},
        {{"--shapes", "12x3"}, "is not of the form MxNxK"},
        {{"--shapes", "12x3x-4"}, "negative"},
        {{"--rounds", "5"}, "--rounds: 5 is below 6"},
        {{"--repetitions", "0"}, "--repetitions"},
        {{"--clock-threshold", "101"}, "--clock-threshold"},
        {{"--warmup", "-1"}, "--warmup"},
        {{"--inject-fault", "typo"}, "--inject-fault"},
        // Layouts, batches and the bias.
        {{"--layout", "nx"}, "--layout: 'nx' is not one of nn, nt, tn, tt"},
        {{"--layout", "NN"}, "--layout: 'NN' is not one of nn, nt, tn, tt"},
        {{"--layout", ""}, "--layout: empty item"},
        {{"--layout", "nn,,tt"}, "--layout: empty item in 'nn,,tt'"},
        {{"--batch", "0"}, "--batch: 0 is below 1"},
        {{"--batch", "-2"}, "--batch: -2 is below 1"},
        {{"--batch", "two"}, "--batch: 'two' is not a number"},
        {{"--bias=maybe"}, "--bias"},
        {{"--layout", "tn", "--size", "100", "--lda", "50"}, "lda=50 is smaller than max(1, M=100) for transa='T'"},
        {{"--layout", "nt", "--size", "100", "--ldb", "99"}, "ldb=99 is smaller than max(1, K=100) for transb='T'"},
        {{"--batch", "65535", "--size", "8388608"}, "A's batch span"},
        // The wide distribution: E in 0..126, only with --input wide; the sweep's list likewise.
        {{"--input", "wide", "--wide-exponent", "127"}, "--wide-exponent: 127 is above 126"},
        {{"--input", "wide", "--wide-exponent", "-1"}, "--wide-exponent: -1 is negative"},
        {{"--input", "wide", "--wide-exponent", "2.5"}, "--wide-exponent: '2.5' is not a number"},
        {{"--input", "wide", "--wide-exponent", ""}, "--wide-exponent: empty value"},
        {{"--wide-exponent", "20"}, "--wide-exponent requires --input wide"},
        {{"--input", "normal", "--wide-exponent", "20"}, "--wide-exponent requires --input wide"},
        {{"--accuracy-exponents", "20"}, "--accuracy-exponents requires --accuracy-sweep"},
        {{"--accuracy-sweep", "--accuracy-exponents", "20,,40"}, "--accuracy-exponents: empty item in '20,,40'"},
        {{"--accuracy-sweep", "--accuracy-exponents", "20,200"}, "--accuracy-exponents: 200 is above 126 in '20,200'"},
        {{"--accuracy-sweep", "--accuracy-exponents", "x"}, "--accuracy-exponents: 'x' is not a number"},
        // Google Benchmark's flags.
        {{"--json", "a.json", "--benchmark_out=b.json"}, "--json excludes --benchmark_out"},
        {{"--benchmark_out_format=csv"}, "--benchmark_out_format requires --benchmark_out"},
        {{"--benchmark_format=xml"}, "--benchmark_format"},
        {{"--benchmark_min_time=100x"}, "iteration count"},
        {{"--benchmark_min_time=0"}, "must be > 0 seconds"},
        {{"--min-time", "1", "--benchmark_min_time=1"}, "excludes"},
        {{"--repetitions", "2", "--benchmark_repetitions=3"}, "excludes"},
        {{"--benchmark_filter=("}, "'(' is not a POSIX extended regular expression"},
        {{"--benchmark_filter=no_such_row"}, "matches no row"},
        {{"--benchmark_counters_tabular=maybe"}, "--benchmark_counters_tabular"},
        {{"--benchmark_enable_random_interleaving=true"}, "not among the Google Benchmark flags --help lists"},
    };
    all.insert(all.end(), more.begin(), more.end());
    return all;
  }();
  return cases;
}

// An id no rung has: one past the registry's largest.
inline std::string unknown_kernel_id() {
  int most = 0;
  for (const sgemm::Rung& r : sgemm::registry()) most = std::max(most, r.id);
  return std::to_string(most + 1);
}

// parse_cli on sgemm_bench's arguments (the program name is added).
inline sgemm::harness::ParseResult parse(std::vector<std::string> args) {
  args.insert(args.begin(), "sgemm_bench");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return sgemm::harness::parse_cli(int(argv.size()), argv.data());
}

// "--size 1024 --m 100" for a test's trace.
inline std::string joined(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& a : args) text += (text.empty() ? "" : " ") + ("'" + a + "'");
  return text;
}
