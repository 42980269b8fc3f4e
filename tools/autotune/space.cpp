#include "space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sgemm_ladder.hpp"

namespace sgemm::autotune {

namespace {

constexpr int kWarp = 32;
constexpr int kVec = 4;
constexpr int kRegOverhead = 28;  // addresses, indices, loop counters (observed 20-30 in SASS)

}  // namespace

int Config::threads() const {
  if (rung == 8) return (BM / TM) * (BN / TN);
  return (BM / WM) * (BN / WN) * kWarp;
}

int Config::smem_bytes() const {
  if (rung == 10) return Stages * (BK * BM + BK * BN) * 4;
  return (BK * BM + BK * BN) * 4;
}

std::string Config::rung_file() const { return find_rung(rung)->source; }

std::string Config::kernel_name() const {
  char ns[16];
  std::snprintf(ns, sizeof ns, "rung%02d", rung);  // each rung file's namespace: sgemm::rungNN
  const std::string kernel = find_rung(rung)->kernel;  // "sgemm_08_autotuned<true": the name before '<'
  return std::string("sgemm::") + ns + "::" + kernel.substr(0, kernel.find('<'));
}

std::string Config::name_expression() const {
  std::ostringstream os;
  // The instance with 128-bit accesses (kVec = true); rung 10 takes its tile parameters as one type.
  os << kernel_name() << "<true," << (rung == 10 ? "sgemm::rung10::Config<" : "") << BM << "," << BN << "," << BK;
  if (rung != 8) os << "," << WM << "," << WN;
  os << "," << TM << "," << TN;
  if (rung == 10) os << "," << Stages << "," << KU << ">";
  os << ">";
  return os.str();
}

std::string Config::tile() const {
  std::ostringstream os;
  os << BM << "x" << BN << "x" << BK << "_";
  if (rung != 8) os << WM << "x" << WN << "_";
  os << TM << "x" << TN;
  if (rung == 10) os << "_s" << Stages << "_u" << KU;
  return os.str();
}

std::string invalid_reason(const Config& c, const Limits& lim) {
  // The same rules as the static_asserts of the rung files (a CPU test compiles samples with
  // NVRTC to keep the two in step), then the GPU's limits.
  if (c.BM % c.TM || c.BN % c.TN) return "thread tile does not divide the block tile";
  if (c.BK % kVec || c.TM % kVec || c.TN % kVec) return "BK, TM, TN must be multiples of 4";
  if (c.rung != 8) {
    if (c.BM % c.WM || c.BN % c.WN) return "warp tile does not divide the block tile";
    if (c.WM % c.TM || c.WN % c.TN) return "thread tile does not divide the warp tile";
    if ((c.WM / c.TM) * (c.WN / c.TN) != kWarp) return "a warp tile must hold exactly 32 thread tiles";
  }
  const int threads = c.threads();
  if (threads % kWarp || threads < kWarp || threads > lim.max_threads) return "thread count out of range";
  const int vecA = c.BK / kVec, vecB = c.BN / kVec;
  if (threads % vecA || c.BM % (threads / vecA)) return "threads cannot copy the A tile in whole passes";
  if (threads % vecB || c.BK % (threads / vecB)) return "threads cannot copy the B tile in whole passes";
  if (c.BM % kWarp || c.BK > kWarp) return "the swizzle needs BM % 32 == 0 and BK <= 32";
  if (c.rung == 10) {
    if (c.Stages < 2) return "a pipeline needs at least two stages";
    if (c.KU <= 0 || c.KU % kVec || c.BK % c.KU) return "the unrolled chunk KU must be a multiple of 4 dividing BK";
    if (c.smem_bytes() > lim.dynamic_smem_bytes) return "shared memory exceeds the per-block limit";
  } else if (c.smem_bytes() > lim.static_smem_bytes) {
    return "static shared memory exceeds 48 KiB";
  }
  // Register estimate: accumulators + fragments (double-buffered at rung 10, plus the A slab in
  // flight). The kernels ask for two blocks per SM when they have at most 256 threads; rung 10
  // asks for one when two blocks' accumulators would fill more than half the register file.
  const int frag = c.rung == 10 ? 2 * (c.TM + c.TN) + c.BM * c.BK / threads : c.TM + c.TN;
  const int regs = c.TM * c.TN + frag + kRegOverhead;
  const bool two_blocks =
      threads <= 256 && (c.rung != 10 || 2 * threads * c.TM * c.TN <= lim.regs_per_sm / 2);
  const int min_blocks = two_blocks ? 2 : 1;  // as the kernels' __launch_bounds__
  const int cap = std::min(lim.regs_per_sm / (threads * min_blocks) / 8 * 8, lim.max_regs_per_thread);
  if (regs > cap) return "needs ~" + std::to_string(regs) + " registers, at most " + std::to_string(cap) + " available";
  return "";
}

const std::vector<int>& tunable_rungs() {
  static const std::vector<int> r = {8, 9, 10};
  return r;
}

std::vector<Config> candidates(int rung) {
  std::vector<Config> out;
  const int blocks[] = {32, 64, 128, 256};
  const int ks[] = {8, 16, 32};
  const int thr[] = {4, 8, 16};
  const int warps[] = {16, 32, 64, 128};
  const int stages[] = {2, 3, 4};
  const int unrolls[] = {8, 16, 32};
  for (int BM : blocks)
    for (int BN : blocks)
      for (int BK : ks)
        for (int TM : thr)
          for (int TN : thr) {
            Config c;
            c.rung = rung;
            c.BM = BM, c.BN = BN, c.BK = BK, c.TM = TM, c.TN = TN;
            if (rung == 8) {
              out.push_back(c);
              continue;
            }
            for (int WM : warps)
              for (int WN : warps) {
                c.WM = WM, c.WN = WN;
                if (rung == 9) {
                  out.push_back(c);
                  continue;
                }
                for (int S : stages)
                  for (int U : unrolls) {
                    if (U > BK) continue;  // not a candidate at all: KU <= BK by definition
                    c.Stages = S, c.KU = U;
                    out.push_back(c);
                  }
              }
          }
  return out;
}

std::vector<Config> search_space(int rung, const Limits& limits) {
  std::vector<Config> v;
  for (const Config& c : candidates(rung))
    if (invalid_reason(c, limits).empty()) v.push_back(c);
  return v;
}

int pick_winner(const std::vector<double>& scores, int current, double min_gain_pct) {
  if (current <= 0 || current >= int(scores.size())) return 0;
  return scores[0] <= scores[size_t(current)] * (1.0 + min_gain_pct / 100.0) ? current : 0;
}

namespace {
std::string fixed1(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", x);
  return text;
}
}  // namespace

std::string margin_text(const RungOutcome& o) {
  if (o.runner_up_gflops <= 0) return "";
  char text[96];
  if (o.min_gain >= 0)
    std::snprintf(text, sizeof text, "runner-up +%.1f%%, not more than --min-gain %.1f%%: the current tile kept",
                  100.0 * (o.runner_up_gflops / o.winner_gflops - 1.0), o.min_gain);
  else
    std::snprintf(text, sizeof text, "winner +%.1f%%", 100.0 * (o.winner_gflops / o.runner_up_gflops - 1.0));
  return text;
}

std::string record_without_margin(const std::string& record) {
  for (const char* margin : {" (winner +", " (runner-up +"}) {
    const size_t at = record.find(margin);
    if (at != std::string::npos) return record.substr(0, at);
  }
  return record;
}

std::string tuned_header(const std::vector<RungOutcome>& outcomes, const std::string& source) {
  std::ostringstream os;
  os << "// Tile parameters written by tools/autotune (" << source << ").\n"
     << "// Do not edit by hand: rerun `sgemm_autotune` on the GPU (docs/tools.md). Its measurements go to\n"
     << "// the JSON file it writes (--json), not here: no file under kernels/ holds a measured figure.\n";
  for (const RungOutcome& o : outcomes) {
    if (!o.record.empty()) {
      os << record_without_margin(o.record) << "\n";
      continue;
    }
    os << "//   rung " << o.winner.rung << ": " << o.candidates << " candidates, " << o.valid
       << " valid, " << o.compiled << " compiled, " << o.verified << " verified; winner " << o.winner.tile();
    if (o.runner_up_gflops > 0) {
      os << ", runner-up " << o.runner_up.tile();
      // The margin itself is measured: the tuner prints it and --json records it; the header names
      // the rule that decided, with its setting.
      if (o.min_gain >= 0) os << " (faster, but not by more than --min-gain " << fixed1(o.min_gain) << ": the current tile kept)";
    }
    os << "\n";
  }
  os << "#pragma once\n\nnamespace sgemm::tuned {\n\n";
  for (const RungOutcome& o : outcomes) {
    const Config& c = o.winner;
    os << "struct Rung" << (c.rung < 10 ? "0" : "") << c.rung << " {\n  static constexpr int BM = " << c.BM
       << ", BN = " << c.BN << ", BK = " << c.BK;
    if (c.rung != 8) os << ", WM = " << c.WM << ", WN = " << c.WN;
    os << ", TM = " << c.TM << ", TN = " << c.TN;
    if (c.rung == 10) os << ", Stages = " << c.Stages << ", KU = " << c.KU;
    os << ";\n};\n\n";
  }
  os << "constexpr const char* kSource = \"" << source << "\";\n\n}  // namespace sgemm::tuned\n";
  return os.str();
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double log_sum = 0;
  for (double x : v) {
    if (!(x > 0)) return 0;
    log_sum += std::log(x);
  }
  return std::exp(log_sum / double(v.size()));
}

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i)
    text += (i == 0 ? "" : i + 1 == sizes.size() ? " and " : ", ") + std::to_string(sizes[i]) + "^3";
  return text;
}

std::string ranking_text(const std::vector<int64_t>& sizes, const std::vector<int64_t>& confirm_sizes) {
  return "ranked by the geometric mean at " + sizes_text(sizes) + ", finalists at " + sizes_text(confirm_sizes);
}

std::string results_json(const std::string& gpu_name, const std::string& arch, const std::vector<int64_t>& sizes,
                         const std::vector<int64_t>& confirm_sizes, double seconds, const std::vector<Entry>& entries) {
  using nlohmann::json;
  // GFLOP/s by size: {"1024": 33000.0, ...}
  const auto by_size = [](const std::vector<int64_t>& at, const std::vector<double>& gflops) {
    json out = json::object();
    for (size_t i = 0; i < gflops.size() && i < at.size(); ++i) out[std::to_string(at[i])] = gflops[i];
    return out;
  };
  json configs = json::array();
  for (const Entry& e : entries)
    configs.push_back({{"rung", e.config.rung},
                       {"tile", e.config.tile()},
                       {"threads", e.config.threads()},
                       {"smem_bytes", e.config.smem_bytes()},
                       {"regs", e.regs},
                       {"stage", e.stage},
                       {"gflops", e.gflops},
                       {"gflops_by_size", by_size(sizes, e.ranking)},
                       {"confirm_gflops_by_size", by_size(confirm_sizes, e.confirm)},
                       {"score", e.score},
                       {"note", e.note}});
  const json doc = {{"tool", "sgemm_autotune"}, {"gpu_name", gpu_name},   {"gpu_arch", arch},
                    {"sizes", sizes},           {"confirm_sizes", confirm_sizes}, {"seconds", seconds},
                    {"configs", configs}};
  // A compiler log is not always UTF-8: bytes that are not are replaced rather than thrown on.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace sgemm::autotune
