// The registry is the one table of rungs. These tests hold the curriculum to its form: ids and
// slugs agree, each track is a chain in which every rung builds on the one before it, every rung
// file is registered and its header (at most 30 lines) agrees with the table, the CUDA-core track
// has one capstone, and no file under kernels/ carries a measured figure (measurements live in
// bench/results and docs/).
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ffma/capstone.hpp"
#include "sgemm_ladder.h"
#include "sgemm_ladder.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kKernels = fs::path(SGEMM_SOURCE_DIR) / "kernels";

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string two_digits(int id) { return (id < 10 ? "0" : "") + std::to_string(id); }

// The header: the comment lines before `#pragma once`.
std::vector<std::string> header_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line) && line.rfind("#pragma once", 0) != 0;) lines.push_back(line);
  return lines;
}

const char* track_folder(sgemm::Track t) {
  switch (t) {
    case sgemm::Track::kBaseline: return "baseline";
    case sgemm::Track::kCudaCore: return "ffma";
    case sgemm::Track::kTensorCore: return "tensor";
    case sgemm::Track::kDispatch: return "dispatch";
  }
  return "?";
}

// The rungs of each track, in table order.
std::map<sgemm::Track, std::vector<const sgemm::Rung*>> tracks() {
  std::map<sgemm::Track, std::vector<const sgemm::Rung*>> t;
  for (const sgemm::Rung& r : sgemm::registry()) t[r.track].push_back(&r);
  return t;
}

}  // namespace

TEST(Registry, IdsAscendAndSlugsCarryThem) {
  const auto& reg = sgemm::registry();
  ASSERT_GE(reg.size(), 2u);
  EXPECT_EQ(reg[0].id, 0);
  EXPECT_EQ(reg[0].track, sgemm::Track::kBaseline);
  std::set<std::string> shorts;
  for (size_t i = 0; i < reg.size(); ++i) {
    const sgemm::Rung& r = reg[i];
    const std::string slug = r.slug;
    SCOPED_TRACE(slug);
    if (i > 0) EXPECT_GT(r.id, reg[i - 1].id);
    EXPECT_LT(r.id, 100);
    EXPECT_EQ(slug.substr(0, 3), two_digits(r.id) + "_");
    EXPECT_TRUE(std::regex_match(slug, std::regex("[0-9]{2}_[a-z0-9_]+")));
    EXPECT_TRUE(shorts.insert(slug.substr(3)).second) << "short slug clash";
    EXPECT_NE(std::string(r.lesson), "");
    EXPECT_NE(std::string(r.title), "");
    EXPECT_NE(r.tile(), "");
    EXPECT_TRUE(std::regex_match(std::string(r.arch), std::regex("sm_[0-9]{2,3}a?")));
    EXPECT_TRUE(r.supports && r.launch);
  }
}

TEST(Registry, EachTrackIsAChain) {
  // In a track every rung builds on the one just before it; the first rung of a track starts
  // from nothing or from a rung of another track, and says so.
  for (const auto& [track, rungs] : tracks()) {
    SCOPED_TRACE(sgemm::track_name(track));
    for (size_t i = 0; i < rungs.size(); ++i) {
      const sgemm::Rung& r = *rungs[i];
      SCOPED_TRACE(r.slug);
      if (i > 0) {
        EXPECT_EQ(r.builds_on, rungs[i - 1]->id);
        continue;
      }
      if (r.builds_on >= 0) {
        ASSERT_NE(sgemm::find_rung(r.builds_on), nullptr);
        EXPECT_NE(sgemm::find_rung(r.builds_on)->track, track);
      }
    }
  }
  // The numbering makes the tracks visible: the CUDA-core track from 1, the tensor cores from 21.
  const auto t = tracks();
  EXPECT_EQ(t.at(sgemm::Track::kCudaCore).front()->id, 1);
  EXPECT_EQ(t.at(sgemm::Track::kTensorCore).front()->id, 21);
  EXPECT_LT(t.at(sgemm::Track::kCudaCore).back()->id, t.at(sgemm::Track::kTensorCore).front()->id);
  EXPECT_EQ(t.at(sgemm::Track::kDispatch).front()->id, 30);
  EXPECT_STREQ(sgemm::find_rung("auto")->slug, "30_auto");  // sgemm_bench --kernel auto
  // `sgemm_bench --kernel 7` is the bank-conflict lesson.
  EXPECT_STREQ(sgemm::find_rung(7)->slug, "07_bank_conflict_free");
}

TEST(Registry, FindByIdOrSlug) {
  for (const sgemm::Rung& r : sgemm::registry()) {
    const std::string slug = r.slug;
    EXPECT_EQ(sgemm::find_rung(r.id), &r);
    EXPECT_EQ(sgemm::find_rung(std::to_string(r.id)), &r);
    EXPECT_EQ(sgemm::find_rung(two_digits(r.id)), &r);
    EXPECT_EQ(sgemm::find_rung(slug), &r);
    EXPECT_EQ(sgemm::find_rung(slug.substr(3)), &r);
  }
  EXPECT_EQ(sgemm::find_rung(-1), nullptr);
  EXPECT_EQ(sgemm::find_rung(19), nullptr);  // between the tracks
  EXPECT_EQ(sgemm::find_rung(100), nullptr);
  EXPECT_EQ(sgemm::find_rung("nope"), nullptr);
  EXPECT_EQ(sgemm::find_rung(""), nullptr);
}

TEST(Registry, CAbiMirrorsTheTable) {
  const auto& reg = sgemm::registry();
  ASSERT_EQ(sgemm_ladder_kernel_count(), int(reg.size()));
  for (size_t i = 0; i < reg.size(); ++i) {
    const sgemm::Rung& r = reg[i];
    EXPECT_EQ(sgemm_ladder_kernel_id(int(i)), r.id);
    EXPECT_STREQ(sgemm_ladder_kernel_name(r.id), r.slug);
    sgemm_ladder_kernel_desc d{};
    ASSERT_EQ(sgemm_ladder_kernel_describe(r.id, &d), SGEMM_LADDER_OK);
    EXPECT_EQ(d.id, r.id);
    EXPECT_STREQ(d.slug, r.slug);
    EXPECT_STREQ(d.track, sgemm::track_name(r.track));
    EXPECT_EQ(d.builds_on, r.builds_on);
    EXPECT_STREQ(d.title, r.title);
    EXPECT_EQ(d.fp32_accurate != 0, r.precision.fp32_accurate);
    EXPECT_STREQ(d.source, r.source);
    EXPECT_STREQ(d.arch, r.arch);
    EXPECT_STREQ(d.kernel, r.kernel);
    EXPECT_EQ(std::string(d.tile), r.tile());
    EXPECT_EQ(d.capstone != 0, r.capstone);
  }
  EXPECT_EQ(sgemm_ladder_kernel_id(-1), -1);
  EXPECT_EQ(sgemm_ladder_kernel_id(sgemm_ladder_kernel_count()), -1);
  EXPECT_EQ(sgemm_ladder_kernel_name(-1), nullptr);
  EXPECT_EQ(sgemm_ladder_kernel_name(19), nullptr);
  sgemm_ladder_kernel_desc d{};
  EXPECT_EQ(sgemm_ladder_kernel_describe(19, &d), SGEMM_LADDER_ERR_UNKNOWN_KERNEL);
  EXPECT_EQ(sgemm_ladder_kernel_describe(7, nullptr), SGEMM_LADDER_ERR_NULL_POINTER);
  EXPECT_STREQ(sgemm_ladder_version(), SGEMM_LADDER_VERSION);
}

TEST(Registry, RungFilesSitInTheirTrackAndAgreeWithTheTable) {
  for (const sgemm::Rung& r : sgemm::registry()) {
    SCOPED_TRACE(r.slug);
    const std::string source = r.source;
    EXPECT_EQ(source, std::string(track_folder(r.track)) + "/" + r.slug + ".cuh");
    const std::string text = read_file(kKernels / source);
    ASSERT_FALSE(text.empty()) << "missing rung file kernels/" << source;
    const std::vector<std::string> head = header_lines(text);
    ASSERT_GE(head.size(), 8u);
    EXPECT_LE(head.size(), 30u) << "a rung's header is at most 30 lines";
    const std::string first = r.id == 0 ? "// Kernel 00 — " : "// Rung " + two_digits(r.id) + " — ";
    EXPECT_EQ(head[1].rfind(first + r.title, 0), 0u) << "second line must read '" << first << r.title << "'";
    const std::string builds_on = r.builds_on < 0 ? "nothing" : sgemm::find_rung(r.builds_on)->slug;
    if (r.id != 0) {
      EXPECT_EQ(head[2].rfind("// BUILDS ON: " + builds_on, 0), 0u) << head[2];
      if (r.builds_on >= 0)  // the diff command that shows the lesson
        EXPECT_NE(text.find("git diff --no-index kernels/" + std::string(sgemm::find_rung(r.builds_on)->source) +
                            " kernels/" + source),
                  std::string::npos);
    }
    for (const char* section : {"WHAT CHANGED", "WHY", "PREDICTION", "SHOW IT", "PAGE"}) {
      if (r.id == 0 && std::string(section) != "SHOW IT" && std::string(section) != "PAGE") continue;
      EXPECT_NE(text.find(std::string("// ") + section + ":"), std::string::npos) << section;
    }
    const std::string page = std::string("docs/rungs/") + r.slug + ".md";
    EXPECT_NE(text.find("// PAGE: " + page), std::string::npos);
    EXPECT_TRUE(fs::exists(fs::path(SGEMM_SOURCE_DIR) / page)) << page;
    if (*r.kernel) EXPECT_NE(text.find(std::string(r.kernel).substr(0, std::string(r.kernel).find('<'))), std::string::npos);
  }
}

// The project's files a kernels/ file includes, directly or through each other (paths relative to
// kernels/, as the #include lines name them).
std::set<std::string> includes_of(const std::string& file) {
  std::set<std::string> seen;
  std::vector<std::string> todo{file};
  const std::regex include_line("#include \"([^\"]+)\"");
  while (!todo.empty()) {
    const std::string text = read_file(kKernels / todo.back());
    todo.pop_back();
    for (std::sregex_iterator m(text.begin(), text.end(), include_line), end; m != end; ++m)
      if (fs::exists(kKernels / (*m)[1].str()) && seen.insert((*m)[1].str()).second) todo.push_back((*m)[1].str());
  }
  return seen;
}

TEST(Registry, EveryRungFileIsRegistered) {
  // A rung file without a registry row would be compiled but never run or tested. Rung files are
  // the NN_*.cuh files of a track's folder (kernels/CMakeLists.txt compiles each as a translation
  // unit); host code beside them (a rung's interface, the dispatch model) is .hpp and .cpp, and a
  // rung's code in a file of its own (the dispatch rung's GEMVs) is a .cuh without a number that a
  // rung file of the folder includes, directly or through its other files, or that kernels/
  // CMakeLists.txt compiles as a part of a rung split over several units (sgemm_dispatch_part).
  std::set<std::string> registered;
  for (const sgemm::Rung& r : sgemm::registry()) registered.insert(r.source);
  const std::string cmake = read_file(kKernels / "CMakeLists.txt");
  std::set<std::string> parts;
  const std::regex part_line("sgemm_dispatch_part\\([^\n]* (\\S+\\.cuh)\\)");
  for (std::sregex_iterator m(cmake.begin(), cmake.end(), part_line), end; m != end; ++m) {
    parts.insert((*m)[1].str());
    for (const std::string& f : includes_of((*m)[1].str())) parts.insert(f);
  }
  EXPECT_FALSE(parts.empty()) << "kernels/CMakeLists.txt names no part of the dispatch rung";
  int files = 0;
  for (const char* folder : {"baseline", "ffma", "tensor", "dispatch"})
    for (const auto& entry : fs::directory_iterator(kKernels / folder)) {
      if (entry.path().extension() != ".cuh") continue;
      const std::string file = entry.path().filename().string(), name = std::string(folder) + "/" + file;
      if (!std::regex_match(file, std::regex("[0-9]{2}_.*"))) {
        bool included = parts.count(name) > 0;
        for (const std::string& rung : registered)
          included |= rung.rfind(std::string(folder) + "/", 0) == 0 && includes_of(rung).count(name) > 0;
        EXPECT_TRUE(included) << "kernels/" << name
                              << ": no rung file (NN_*.cuh), no rung of its folder includes it, and no part of one";
        continue;
      }
      ++files;
      EXPECT_TRUE(registered.count(name)) << "kernels/" << name << " is not in the registry";
    }
  EXPECT_EQ(files, int(registered.size()));
}

TEST(Registry, ArchitectureColumnMatchesTheBuild) {
  // CMake compiles the rungs it lists in SGEMM_SM90A_RUNGS for sm_90a alone: exactly the rows
  // whose architecture is sm_90a.
  std::set<std::string> cmake;
  std::istringstream in(SGEMM_SM90A_RUNGS);
  for (std::string item; std::getline(in, item, ',');) cmake.insert(item);
  std::set<std::string> table;
  for (const sgemm::Rung& r : sgemm::registry())
    if (std::string(r.arch) == "sm_90a") table.insert(r.source);
  EXPECT_EQ(cmake, table);
}

// The capstone is a fact of the registry: one rung carries it, the last of the CUDA-core track (the
// rung the track leads up to), the C ABI reports it, and the dispatch rung builds on that rung's
// file (ffma/capstone.hpp names it for both). The docs generator and the Python package read it from the C ABI (tests/python).
TEST(Registry, OneCapstoneTheLastOfTheCudaCoreTrack) {
  std::vector<const sgemm::Rung*> marked;
  for (const sgemm::Rung& r : sgemm::registry())
    if (r.capstone) marked.push_back(&r);
  ASSERT_EQ(marked.size(), 1u) << "exactly one rung of the registry is the capstone";
  const sgemm::Rung* cap = marked.front();
  const auto by_track = tracks();
  EXPECT_EQ(sgemm::capstone(), cap);
  EXPECT_EQ(cap->track, sgemm::Track::kCudaCore);
  EXPECT_EQ(cap, by_track.at(sgemm::Track::kCudaCore).back()) << "the capstone ends its track";
  for (const sgemm::Rung& r : sgemm::registry()) {
    sgemm_ladder_kernel_desc d{};
    ASSERT_EQ(sgemm_ladder_kernel_describe(r.id, &d), SGEMM_LADDER_OK);
    EXPECT_EQ(d.capstone, &r == cap ? 1 : 0) << r.slug;
  }
  // ffma/capstone.hpp names the capstone once: the registry marks the rung of its id, and the dispatch
  // rung runs the rung of its alias; where the two part, this fails.
  EXPECT_EQ(cap->id, sgemm::kCapstoneRung);
  EXPECT_EQ(cap->launch, &sgemm::capstone_rung::launch) << "capstone.hpp's alias names another rung than its id";
  // The dispatch rung runs the capstone's kernels: it includes the capstone's file (through its tiles).
  for (const sgemm::Rung* r : by_track.at(sgemm::Track::kDispatch))
    EXPECT_TRUE(includes_of(r->source).count(cap->source))
        << "kernels/" << r->source << " does not include the capstone, kernels/" << cap->source;
}

namespace {

struct Comment {
  int line;
  std::string text;
};

// The comments of a C, C++ or CUDA file, line by line (a block comment gives one entry per line);
// string and character literals (inline assembly among them) are skipped.
std::vector<Comment> comments(const std::string& s) {
  std::vector<Comment> out;
  int line = 1;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) {
      const size_t end = std::min(s.find('\n', i), s.size());
      out.push_back({line, s.substr(i, end - i)});
      i = end;
    } else if (s.compare(i, 2, "/*") == 0) {
      const size_t close = s.find("*/", i + 2);
      const size_t end = close == std::string::npos ? s.size() : close + 2;
      std::istringstream block(s.substr(i, end - i));
      for (std::string part; std::getline(block, part);) out.push_back({line++, part});
      --line;
      i = end;
    } else if (s[i] == '"' || s[i] == '\'') {
      const char quote = s[i++];
      for (; i < s.size() && s[i] != quote; ++i) {
        if (s[i] == '\\') ++i;
        if (i < s.size() && s[i] == '\n') ++line;
      }
      ++i;
    } else {
      if (s[i] == '\n') ++line;
      ++i;
    }
  }
  return out;
}

// The lines of a rung header's PREDICTION paragraph ("// PREDICTION:" and the "//   " lines that
// continue it), 1-based: the one place a figure may stand under kernels/, since it was written
// before anything was measured.
std::set<int> prediction_lines(const std::string& text) {
  std::set<int> lines;
  bool inside = false;
  int n = 0;
  for (const std::string& line : header_lines(text)) {
    ++n;
    if (line.rfind("// PREDICTION:", 0) == 0)
      inside = true;
    else if (line.rfind("//   ", 0) != 0)
      inside = false;
    if (inside) lines.insert(n);
  }
  return lines;
}

// The number a count starts with (its digits, commas apart); -1 where it has none.
long count_of(const std::string& text) {
  std::string digits;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9')
      digits += ch;
    else if (ch != ',')
      break;
  }
  return digits.empty() || digits.size() > 9 ? -1 : std::stol(digits);
}

// A count of registers or instructions is a measurement (ptxas's -v, the SASS) unless it is a
// power of two: a register budget (an SM's 65536 over a power of two of threads) or a tile's
// arithmetic (64 FFMAs per thread and k). Nor is 255, the most registers a thread may address.
bool measured_count(const std::string& text) {
  const long n = count_of(text);
  return !(n > 0 && (n & (n - 1)) == 0);
}
bool measured_registers(const std::string& text) { return measured_count(text) && count_of(text) != 255; }
// A word of 7 to 40 hex digits is a commit when it holds both a digit and a letter (deadbeef and
// 1234567 are not).
bool commit_like(const std::string& word) {
  return word.find_first_of("0123456789") != std::string::npos &&
         word.find_first_of("abcdefABCDEF") != std::string::npos;
}
// "on branch <name>", or "branch <name>" where the name looks like a git branch's: a letter and a
// digit, '-' or '/' (i40-tile32, lab/gemv-t-fast), not the word after a code branch ("a guarded
// branch region", "no branch between two").
bool branch_like(const std::string& text) {
  if (text.size() > 2 && (text[0] == 'o' || text[0] == 'O') && (text[1] == 'n' || text[1] == 'N')) return true;
  const std::string name = text.substr(text.find_last_of(" \t`'\"") + 1);
  return name.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string::npos &&
         name.find_first_of("0123456789-/") != std::string::npos;
}
bool always(const std::string&) { return true; }

// One kind of figure: the pattern over a comment, the group that holds the figure, and the test a
// match must pass to count.
struct FigureRule {
  std::regex pattern;
  int group;
  bool (*counts)(const std::string&);
};

const std::vector<FigureRule>& figure_rules() {
  static const auto icase = std::regex::ECMAScript | std::regex::icase;
  static const std::vector<FigureRule> rules = {
      // A number with a unit of measurement: a share, a time, a rate or a speed-up.
      {std::regex(
           R"((^|[^\w.])(\d[\d,]*(\.\d+)?\s*(%|percent\b|(ns|us|µs|ms)\b|[GT]FLOP/?s\b|[GT]FLOPS\b|[GT]B/s\b|(x|×)\s+(faster|slower|the speed))))",
           icase),
       2, always},
      // A number in scientific notation: an error measured (6.8e-07); a bound is a power of two (2^-24).
      {std::regex(R"((^|[^\w.])(\d+(\.\d+)?e[-+]?\d+)(?!\w))", icase), 2, always},
      // A register count (236 registers, 252 regs, a 40-register kernel).
      {std::regex(R"((^|[^\w.])(\d[\d,]*(\s+|-)(registers?|regs?)\b))", icase), 2, measured_registers},
      // An instruction count: instructions, or a SASS opcode counted (1596 instructions, 288 FFMAs).
      {std::regex(R"((^|[^\w.])(\d[\d,]*\s+([Ii]nstructions?|(FFMA|FMUL|FADD|FMNMX|DFMA|DMUL|DADD|HFMA2|HMMA|IMMA|HGMMA|IGMMA|IMAD|IADD3?|IMNMX|LEA|LOP3|SHF|SHFL|ISETP|FSETP|SEL|MOV|LDS|LDSM|LDG|LDGSTS|LDL|STS|STG|STL|BAR|BRA|RED|ATOM|I2F|F2I|F2F)(\.\w+)*s?)\b))"),
       2, measured_count},
      // A commit: what was measured where is the results files' and the pages' to say.
      {std::regex(R"((^|[^\w])([0-9a-f]{7,40})(?![\w]))", icase), 2, commit_like},
      // A branch by name: "branch i40-tile32", "on branch x".
      {std::regex(R"(\b(on\s+)?branch\s+[`'"]?[\w./-]*\w)", icase), 0, branch_like},
  };
  return rules;
}

}  // namespace

// The figures in one file's text, each as "LINE: 'figure' in: comment". The rule reads comments
// only (code holds tile sizes, bit widths and constants such as 1.35, which are not figures) and
// flags what a measurement or an experiment left behind (figure_rules above): a number with a unit
// of measurement, a share (12%, +2.4%, 87 percent), a time (6 us, 43 µs, 0.5 ms, 10 ns), a rate
// (50 TFLOP/s, 3.5 TB/s) or a speed-up (3x faster); an error in scientific notation (1.9e-7); a
// register or instruction count that is no budget or tile arithmetic (236 registers, 288 FFMAs);
// a commit (7855a22) or a branch by name (branch lab/gemv-t-fast). A rung header's PREDICTION
// paragraph may state the figures it predicts. Text that is not C, C++ or CUDA (c_like false) is
// read whole.
static std::vector<std::string> measured_figures(const std::string& text, bool c_like) {
  std::vector<Comment> parts;
  if (c_like) {
    parts = comments(text);
  } else {
    std::istringstream in(text);
    int n = 0;
    for (std::string line; std::getline(in, line);) parts.push_back({++n, line});
  }
  const std::set<int> predicted = prediction_lines(text);
  std::vector<std::string> found;
  for (const Comment& c : parts) {
    if (predicted.count(c.line)) continue;
    for (const FigureRule& rule : figure_rules())
      for (auto it = std::sregex_iterator(c.text.begin(), c.text.end(), rule.pattern); it != std::sregex_iterator();
           ++it)
        if (rule.counts((*it)[rule.group].str()))
          found.push_back(std::to_string(c.line) + ": '" + (*it)[rule.group].str() + "' in: " + c.text);
  }
  return found;
}

TEST(Registry, MeasuredFigureRuleFlagsFiguresNotCode) {
  const std::string flagged[] = {
      "// ~6 us per block\n",
      "//   rung 8: winner 64x128x32_8x8, runner-up 128x64x32_8x8 (winner +2.4%)\n",
      "// from 87 to 126 percent of cuBLAS\n",
      "/* the loop at 43 µs, */\n",
      "int x;  // 0.5 ms at 4096^3\n",
      "// 3x faster than rung 5\n",
      "// 51,678 GFLOP/s\n",
      "// 142 TFLOP/s\n",
      "// reads at 3.5 TB/s\n",
      "// a last wave 18% full\n",
      "// a norm-wise error of 1.9e-7 at 4096^3\n",
      "// a norm-wise error near 1e-4.\n",
      "// (6.8e-07 against the FP32 product)\n",
      "// ptxas laid it out in 236 registers\n",
      "// a 252-register kernel\n",
      "// 252 regs, one block an SM\n",
      "// 2550 registers\n",
      "// 1596 instructions in the loop\n",
      "// 288 FFMAs of the loop conflict\n",
      "// 12 LDS.128s a slab\n",
      "// measured at 7855a22\n",
      "// H200, commit 1b8d04f5c2e9a0d7b3f6e1c4a8d2b5e9f0c3a7d1\n",
      "// tried on branch i40-tile32\n",
      "// (rung 30's page; branch lab/gemv-t-fast)\n",
      "// the numbers on branch x\n",
  };
  for (const std::string& text : flagged) EXPECT_EQ(measured_figures(text, true).size(), 1u) << text;
  const std::string clean[] = {
      "constexpr double kStreamKSlabCost = 1.35;  // a share's cost in whole-tile slabs\n",
      "// 128-bit loads on 64x256x32 tiles, u = 2^-24, 16 MiB of workspace, 2 stages\n",
      "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\\n\" ::\"r\"(dst));\n",
      "int r = x % m;  // C++: the sign of x, |r| < m\n",
      "const char* s = \"50% // not a comment\";\n",
      "// PREDICTION: +20-30% over rung 05;\n//   1024^3 about 3x faster, ~10 us to ~3 us.\n#pragma once\n",
      "// sgemm_bench --kernel 7 --sizes 1024,4096 --min-time 0.1\n",
      "constexpr float kTol = 1e-5f;  // the test's tolerance\n",
      "const char* s = \"6.8e-07 // not a comment\";\n",
      "// PREDICTION: a norm-wise error near 1e-4 (FP32: ~1e-6)\n#pragma once\n",
      "// (then one block of up to 255 registers a thread); spills at 64 registers\n",
      "// 64 FFMAs per thread and k: 0.25 LDS per FFMA, 4x fewer load instructions\n",
      "constexpr unsigned kMask = 0xdeadbeef;  // 0x1f2e3d4c, deadbeef, 1234567\n",
      "// in rung 13's SASS each A load sits in a guarded branch region; no branch between two\n",
      "// acquire waits on the slot's phase bit, (t / Stages) & 1\n",
  };
  for (const std::string& text : clean) EXPECT_TRUE(measured_figures(text, true).empty()) << text;
  // After the header a PREDICTION: line is a comment like any other.
  EXPECT_EQ(measured_figures("#pragma once\n// PREDICTION: +2%\n", true).size(), 1u);
  EXPECT_EQ(measured_figures("#pragma once\n// PREDICTION: an error near 1e-4\n", true).size(), 1u);
  EXPECT_EQ(measured_figures("# CMake: 12% faster\n", false).size(), 1u);
  EXPECT_EQ(measured_figures("# CMake: measured at 7855a22\n", false).size(), 1u);
}

// Every file under kernels/ reads in one sitting: at most kMaxLines lines. The files still past it
// are named with why; one that comes under the rule must leave the list (the test says so).
TEST(Registry, EveryFileUnderKernelsFitsItsSize) {
  constexpr long kMaxLines = 450;
  const std::map<std::string, std::string> stillOver = {
      {"ffma/17_any_layout.cuh",
       "the capstone teaches layouts, batches and a bias at once: parting those lessons moves its kernels, "
       "which wants a GPU to re-measure"},
  };
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(kKernels)) {
    if (!entry.is_regular_file()) continue;
    const std::string text = read_file(entry.path());
    const long lines = long(std::count(text.begin(), text.end(), '\n'));
    const std::string name = entry.path().lexically_relative(kKernels).string();
    const bool listed = stillOver.count(name) > 0;
    if (lines > kMaxLines && !listed) found.push_back(name + ": " + std::to_string(lines) + " lines");
    if (lines <= kMaxLines && listed) found.push_back(name + ": " + std::to_string(lines) + " lines, off the list now");
  }
  for (const auto& [name, why] : stillOver) EXPECT_TRUE(fs::exists(kKernels / name)) << name << " (" << why << ")";
  std::string list;
  for (const std::string& f : found) list += "\n  kernels/" + f;
  EXPECT_TRUE(found.empty()) << "files under kernels/ past " << kMaxLines << " lines:" << list;
}

TEST(Registry, NoMeasuredFigureUnderKernels) {
  // Refreshing results changes nothing under kernels/: measurements live in bench/results, in the
  // tools' own outputs (the autotuner's --json) and in docs/ (the rule: measured_figures above).
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kKernels))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> found;
  for (const fs::path& path : files) {
    const std::string ext = path.extension().string();
    const bool c_like = ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".hpp" || ext == ".h";
    for (const std::string& f : measured_figures(read_file(path), c_like))
      found.push_back("kernels/" + path.lexically_relative(kKernels).string() + ":" + f);
  }
  std::string list;
  for (const std::string& f : found) list += "\n  " + f;
  EXPECT_TRUE(found.empty()) << found.size() << " measured figure(s) under kernels/ (move them to the rung's page "
                             << "or the tool's output; a prediction belongs in the header's PREDICTION):" << list;
}

// The Python package and the docs generator read the registry through the C ABI; the descriptor
// grows only at its end, so a caller built against an older header still reads its fields.
static_assert(offsetof(sgemm_ladder_kernel_desc, capstone) > offsetof(sgemm_ladder_kernel_desc, tile),
              "fields are added at the end of sgemm_ladder_kernel_desc");
