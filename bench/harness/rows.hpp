// The rows of an sgemm_bench run and their names, known from the command line alone: the
// benchmark registers them, and the command line checks --benchmark_filter against them (and
// lists them for --benchmark_list_tests) before any GPU work.
#pragma once

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "options.hpp"
#include "report.hpp"  // kRowNameSuffix

namespace sgemm::harness {

// The rungs timed at every shape: cuBLAS (the yardstick, always first), then the requested ones.
std::vector<int> timed_kernels(const Options& o);

// "rung07_bank_conflict_free/4096x4096x4096" (+ "/ld<lda>_<ldb>_<ldc>" for leading dimensions
// that are not the default, "/tn" for a layout other than nn, "/batch<N>" for a batch, "/bias").
std::string timing_row_name(const Rung& rung, const Shape& shape);
// "accuracy/07_bank_conflict_free/normal/1024x1024x4096"; the wide distribution carries its
// exponent range: "accuracy/07_bank_conflict_free/wide20/1024x1024x4096" (input_label).
std::string accuracy_row_name(const Rung& rung, InputKind kind, int wide_exponent, int64_t mn, int64_t K);

// Every row in the order it runs (pass after pass when o.repetitions > 1; the accuracy sweep
// once, after the last pass: for each K, uniform, normal, then wide at each of
// o.accuracy_exponents), as registered (without kRowNameSuffix).
struct RowPlan {
  std::string name;
  const Rung* rung = nullptr;
  Shape shape;              // timing rows
  bool accuracy = false;    // accuracy-sweep rows: shape.K is the swept K, M = N = o.accuracy_mn
  InputKind kind = InputKind::kUniform;
  int wide_exponent = 0;    // accuracy-sweep rows of kind kWide: E
  int pass = 0;
};
std::vector<RowPlan> plan_rows(const Options& o);

// How many times each row runs (its passes), by row name: what SweepReporter numbers and summarizes.
std::map<std::string, int> passes_per_row(const Options& o);
// The layout of each row ("nn", "tn", ...), by row name: what JSON rows carry as kLayoutField.
std::map<std::string, std::string> layouts_per_row(const Options& o);

// Runs the registered rows with Google Benchmark: those o.filter selects, stdout in o.format
// (written to `out`) and, with o.out_path, the results file in o.out_format; passes numbered and
// repeated rows summarized (report.hpp: SweepReporter). Returns the number of rows run.
size_t run_rows(const Options& o, const std::string& table_header, const std::map<std::string, std::string>* errors,
                std::ostream& out = std::cout);

// The names Google Benchmark will run: every row once, with kRowNameSuffix, that `filter` (a
// --benchmark_filter regular expression, "" for all, a leading '-' negates) selects.
std::vector<std::string> selected_row_names(const Options& o, const std::string& filter);

}  // namespace sgemm::harness
