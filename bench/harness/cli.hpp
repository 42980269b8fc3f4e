// sgemm_bench's command line (CLI11). Parsing and every usage check happen here, before any
// GPU work, so a bad command behaves the same with or without a GPU (exit 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"
#include "problem.hpp"

namespace sgemm::harness {

struct ParseResult {
  int exit_code = -1;   // -1: go on and run; otherwise exit with this code
  std::string output;   // what to print (help, version, --list table, row names, or the one-line error)
  Options options;
};

// `version_line` is what --version prints ("sgemm_bench 0.1.0 (<git describe>)").
ParseResult parse_cli(int argc, const char* const* argv, const std::string& version_line = "sgemm_bench");

// The --list table: id, slug, lesson, tile.
std::string list_table();

// The fully explicit command line that reproduces a run with these options.
std::string reproduce_command(const Options& o, const std::string& program);

// Comma-separated lists of sizes, as the command lines of sgemm_bench and sgemm_autotune take
// them: "" when `text` is one (no empty item, every item an integer >= `min`), else why not.
std::string size_list_problem(const std::string& text, int64_t min = 0);
std::vector<int64_t> parse_size_list(const std::string& text);  // of a text size_list_problem accepts
// The same for comma-separated MxNxK shapes (dense rows), every size an integer >= `min`.
std::string shape_list_problem(const std::string& text, int64_t min = 0);
std::vector<Shape> parse_shape_list(const std::string& text);  // of a text shape_list_problem accepts
// Shapes named by a comma-separated list (sgemm_autotune --dispatch-explain): each item MxNxK (dense
// rows, NN), the name of a line of the workload suite `suite` (bench/<suite>.txt, or a file), which
// brings that line's leading dimensions, layout, batch and bias, or `all`, every line of the suite.
// "" when `text` is such a list, else why not (an unknown name: the problem lists the suite's names).
std::string shape_or_name_list_problem(const std::string& text, const std::string& suite);
std::vector<Shape> resolve_shape_list(const std::string& text, const std::string& suite);  // of an accepted text

}  // namespace sgemm::harness
