// The autotuner's search space: every candidate tile configuration of the tunable rungs, the
// rules that reject invalid ones before anything is compiled, and the generated header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sgemm::autotune {

struct Config {
  int rung = 0;                   // 8 (rung 07's kernel), 9 (warptiling), 10 (cp.async pipeline)
  int BM = 0, BN = 0, BK = 0;     // block tile
  int WM = 0, WN = 0;             // warp tile (rungs 9, 10)
  int TM = 0, TN = 0;             // thread tile
  int Stages = 0;                 // pipeline depth (rung 10)
  int KU = 0;                     // k steps unrolled per loop iteration, divides BK (rung 10)

  int threads() const;
  int smem_bytes() const;          // shared memory per block
  bool dynamic_smem() const { return rung == 10; }
  std::string rung_file() const;   // the registry's source file, relative to kernels/
  std::string kernel_name() const; // "sgemm::rung10::" + the registry's kernel name
  std::string name_expression() const;  // kernel_name() + "<...>"
  std::string tile() const;        // the registry's tile text, e.g. "128x128x8_64x32_8x8_s3_u8"
};

// Limits a configuration must respect on the target GPU.
struct Limits {
  int static_smem_bytes = 48 * 1024;    // static __shared__ arrays (rungs 8, 9)
  int dynamic_smem_bytes = 227 * 1024;  // opt-in dynamic shared memory per block (rung 10)
  int regs_per_sm = 65536;
  int max_regs_per_thread = 255;
  int max_threads = 1024;
};

// "" when `c` is valid, else why not (the rung's static_asserts, shared memory, an estimate of
// the registers, thread count).
std::string invalid_reason(const Config& c, const Limits& limits);

// Every candidate of a rung (valid or not), and the valid ones.
std::vector<Config> candidates(int rung);
std::vector<Config> search_space(int rung, const Limits& limits);

// The tunable rungs.
const std::vector<int>& tunable_rungs();

// One configuration's fate in a tuning run (the --json file lists them all).
struct Entry {
  Config config;
  std::string stage = "invalid";  // invalid, compile-failed, spills, wrong, timed
  std::string note;               // why it was dropped, if it was (e.g. the compiler's log)
  int regs = 0;
  std::vector<double> ranking;    // GFLOP/s at each --sizes size
  double gflops = 0;              // their geometric mean: the ranking score
  std::vector<double> confirm;    // finalists: GFLOP/s at each --confirm-sizes size
  double score = 0;               // their geometric mean: the final score
};

// The geometric mean (0 for none, or when one value is not positive).
double geomean(const std::vector<double>& v);

// "1024^3 and 4096^3", "1024^3, 2048^3, 4096^3 and 8192^3".
std::string sizes_text(const std::vector<int64_t>& sizes);

// How a tuning run ranked, as the tuned header records it: "ranked by the geometric mean at
// 1024^3 and 4096^3, finalists at 1024^3, 2048^3, 4096^3 and 8192^3".
std::string ranking_text(const std::vector<int64_t>& sizes, const std::vector<int64_t>& confirm_sizes);

// The --json file: the run's GPU and sizes and every entry (valid JSON whatever a compiler log
// holds; a number that is not finite is written as null).
std::string results_json(const std::string& gpu_name, const std::string& arch, const std::vector<int64_t>& sizes,
                         const std::vector<int64_t>& confirm_sizes, double seconds, const std::vector<Entry>& entries);

struct RungOutcome {
  Config winner;
  double winner_gflops = 0;
  Config runner_up;
  double runner_up_gflops = 0;
  int candidates = 0, valid = 0, compiled = 0, verified = 0;
  std::string record;  // when not searched in this run: the line from the previous header
  double min_gain = -1;  // >= 0: the current tile was kept, the faster runner-up gained less (%)
};

// The winner among finalists whose scores are sorted best first: the fastest, unless the rung's
// current tile (index `current`, -1 when not a finalist) is within `min_gain_pct` percent of it.
// A new tile must beat the current one by more than timing noise to replace it.
int pick_winner(const std::vector<double>& scores, int current, double min_gain_pct);

// The margin between winner and runner-up, as the tuner prints it (a measured figure: the header
// under kernels/ does not carry it): "winner +x%", or, where the current tile was kept,
// "runner-up +x%, not more than --min-gain y%: the current tile kept". Empty without a runner-up.
std::string margin_text(const RungOutcome& o);

// A record line of an older tuned header without the margin such headers carried ("(winner +x%)").
std::string record_without_margin(const std::string& record);

// The text of kernels/tuned/sm_<arch>.cuh for these outcomes (one per tunable rung): the tiles,
// the search's counts, winner and runner-up, and no measured figure.
std::string tuned_header(const std::vector<RungOutcome>& outcomes, const std::string& source);

}  // namespace sgemm::autotune
