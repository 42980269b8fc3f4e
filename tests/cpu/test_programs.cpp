// The real programs, run as a user runs them, on any machine: every bad input makes sgemm_bench
// exit 2 with one line on stderr and nothing on stdout, before any GPU work; without a GPU it
// exits 3 and says there is no driver or no GPU; --version and sgemm_autotune --help work
// without a driver.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bad_inputs.hpp"
#include "sgemm_ladder.hpp"

namespace {

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A new empty file in the test's temporary folder, named for this run alone (ctest runs these
// tests as parallel processes: a fixed name would mix their outputs).
std::string temp_file(const char* stem) {
  std::string path = ::testing::TempDir() + stem + ".XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd >= 0) close(fd);
  return path;
}

// Runs `program` with `args` (each single-quoted for the shell).
Outcome run(const std::string& program, const std::vector<std::string>& args) {
  const std::string out = temp_file("sgemm_program_out"), err = temp_file("sgemm_program_err");
  std::string cmd = "'" + program + "'";
  for (const std::string& a : args) cmd += " '" + a + "'";
  const int status = std::system((cmd + " > '" + out + "' 2> '" + err + "' < /dev/null").c_str());
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return o;
}

// The lines of a program's output, and the widest of them.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
size_t widest(const std::string& text) {
  size_t w = 0;
  for (const std::string& line : lines_of(text)) w = std::max(w, line.size());
  return w;
}

}  // namespace

#ifdef SGEMM_BENCH_PATH

TEST(BenchProgram, EveryBadInputOfTheIssueExitsTwoWithOneLineBeforeAnyGpuWork) {
  for (const BadInput& bad : issue_bad_inputs()) {
    SCOPED_TRACE(joined(bad.args));
    const Outcome o = run(SGEMM_BENCH_PATH, bad.args);
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_EQ(o.out, "");
    EXPECT_EQ(o.err.rfind("sgemm_bench: error: ", 0), 0u) << o.err;
    EXPECT_NE(o.err.find(bad.message), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << "one line: " << o.err;
  }
}

// Issue 63's rough edges, through the real program: exit 2, one line of at most 100 columns on
// stderr, nothing on stdout.
TEST(BenchProgram, RoughEdgesOfTheCommandLineExitTwoWithOneShortLine) {
  for (const BadInput& bad : rough_edge_bad_inputs()) {
    SCOPED_TRACE(joined(bad.args));
    const Outcome o = run(SGEMM_BENCH_PATH, bad.args);
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_EQ(o.out, "");
    EXPECT_NE(o.err.find(bad.message), std::string::npos) << o.err;
    EXPECT_EQ(lines_of(o.err).size(), 1u) << o.err;
    EXPECT_LE(widest(o.err), 100u) << o.err;
  }
}

// --help wins over a bad argument (exit 0, the same help on stdout, nothing on stderr); --help
// and --list fit in 100 columns, --list with one row a rung.
TEST(BenchProgram, HelpWinsAndHelpAndListFitInOneHundredColumns) {
  const Outcome help = run(SGEMM_BENCH_PATH, {"--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  EXPECT_LE(widest(help.out), 100u) << help.out;
  EXPECT_GT(lines_of(help.out).size(), 40u) << help.out;
  const std::string unknown = unknown_kernel_id();
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--kernel", unknown, "--help"},
                                               {"--version", "extra", "--help"}, {"--lda", "0", "-h"}}) {
    const Outcome o = run(SGEMM_BENCH_PATH, args);
    EXPECT_EQ(o.exit_code, 0) << joined(args) << ": " << o.err;
    EXPECT_EQ(o.out, help.out) << joined(args);
    EXPECT_EQ(o.err, "") << joined(args);
  }
  const Outcome list = run(SGEMM_BENCH_PATH, {"--list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_LE(widest(list.out), 100u) << list.out;
  size_t rows = 0;
  for (const std::string& line : lines_of(list.out)) rows += !line.empty() && std::isdigit((unsigned char)line[0]);
  EXPECT_EQ(rows, sgemm::registry().size()) << list.out;
}

// A rung named twice (twice by id, by id and by slug) has its rows once.
TEST(BenchProgram, KernelNamedTwiceRunsOnce) {
  const sgemm::Rung& rung = sgemm::registry().back();
  const std::string id = std::to_string(rung.id);
  const std::vector<std::string> rows = {"--size", "256", "--benchmark_list_tests"};
  auto with = [&](std::vector<std::string> kernels) {
    kernels.insert(kernels.end(), rows.begin(), rows.end());
    return run(SGEMM_BENCH_PATH, kernels);
  };
  const Outcome once = with({"--kernel", id});
  ASSERT_EQ(once.exit_code, 0) << once.err;
  const std::vector<std::string> names = lines_of(once.out);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "each row once: " << once.out;
  EXPECT_NE(once.out.find(std::string("rung") + rung.slug + "/"), std::string::npos) << once.out;
  for (const std::vector<std::string>& twice : {std::vector<std::string>{"--kernel", id, "--kernel", id},
                                                {"--kernel", id + "," + id}, {"--kernel", id, "--kernel", rung.slug}}) {
    const Outcome o = with(twice);
    EXPECT_EQ(o.exit_code, 0) << joined(twice) << ": " << o.err;
    EXPECT_EQ(o.out, once.out) << joined(twice);
  }
}

TEST(BenchProgram, VersionNamesVersionAndCommit) {
  const Outcome o = run(SGEMM_BENCH_PATH, {"--version"});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out.rfind(std::string("sgemm_bench ") + SGEMM_LADDER_VERSION + " (", 0), 0u) << o.out;
  EXPECT_EQ(o.out.substr(o.out.size() - 2), ")\n") << o.out;
}

// Where there is a GPU the small run passes and this check has nothing to say; where there is
// none, the reason must be the real one, not "CUDA driver version is insufficient".
TEST(BenchProgram, WithoutAGpuSaysWhy) {
  const Outcome o = run(SGEMM_BENCH_PATH, {"--kernel", "1", "--size", "64", "--repeat", "1"});
  if (o.exit_code == 0) GTEST_SKIP() << "a GPU ran the row";
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_TRUE(o.err.find("no NVIDIA driver found") != std::string::npos ||
              o.err.find("no CUDA GPU found") != std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("insufficient"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << "one line: " << o.err;
}

#endif  // SGEMM_BENCH_PATH

#ifdef SGEMM_AUTOTUNE_PATH
TEST(AutotuneProgram, HelpNeedsNoDriver) {
  const Outcome o = run(SGEMM_AUTOTUNE_PATH, {"--help"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("--confirm-sizes"), std::string::npos) << o.out;
}

TEST(AutotuneProgram, BadSizesAreUsageErrors) {
  const Outcome o = run(SGEMM_AUTOTUNE_PATH, {"--sizes", "1024,,4096"});
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("empty item"), std::string::npos) << o.err;
}

TEST(AutotuneProgram, BadExplainShapesAreUsageErrors) {  // before any look for a GPU
  for (const char* bad : {"1x2", "0x4096x4096", "16x4096x4096,,1x1x1", "axbxc", "oddk_4095_127,no_such_shape", ""}) {
    const Outcome o = run(SGEMM_AUTOTUNE_PATH, {"--dispatch-explain", bad});
    EXPECT_EQ(o.exit_code, 2) << bad << ": " << o.err;
    EXPECT_NE(o.err.find("--dispatch-explain"), std::string::npos) << o.err;
  }
}
#endif  // SGEMM_AUTOTUNE_PATH
