// sgemm_autotune — search the tile parameters of rungs 8, 9 and 10 on this GPU.
//
//   sgemm_autotune                          tune rungs 8, 9, 10; write kernels/tuned/sm_<arch>.cuh
//   sgemm_autotune --rungs 10 --jobs 16     only rung 10 (the others keep their current values)
//
// Run-time compilation: each candidate is compiled from the rung's own file while the tuner
// runs, so the build (and CI) never compiles the search space, and a new GPU is tuned without
// touching CMake. By default the compiler is nvcc, the one that builds the library: NVRTC's code
// for the same source differs (64-bit shared-memory address arithmetic, other register
// allocation) by up to 12% either way (exp35), enough to rank the shipped kernels wrongly.
// --compiler nvrtc ranks with NVRTC (no nvcc needed, a little faster) and rebuilds the finalists
// with nvcc.
// Per rung: enumerate candidates -> reject invalid ones without compiling (divisibility, shared
// memory, a register estimate, thread count) -> compile the rest in parallel -> drop those that
// spill -> verify each on two ragged shapes (exact small integers; random with alpha/beta) -> time
// at --size (median of --launches, inputs rotated past L2, as sgemm_bench does) -> re-time the
// best --top at --size and --confirm-size -> winner = best geometric mean of the two.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cuda_check.hpp"
#include "harness/device_info.hpp"
#include "harness/problem.hpp"
#include "harness/timing.hpp"
#include "harness/verify.hpp"
#include "sgemm_ladder.hpp"
#include "nvrtc_compile.hpp"
#include "space.hpp"
#include "tuned/tuned.cuh"

#ifndef SGEMM_SOURCE_DIR
#define SGEMM_SOURCE_DIR "."
#endif

using namespace sgemm;
using namespace sgemm::autotune;

namespace {

void check_cu(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    throw std::runtime_error(std::string(what) + ": " + (s ? s : "CUDA driver error"));
  }
}

struct Loaded {
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  int regs = 0, local_bytes = 0;
};

Loaded load(const Config& c, const Compiled& k) {
  Loaded l;
  check_cu(cuModuleLoadData(&l.module, k.cubin.data()), "cuModuleLoadData");
  if (k.lowered.empty()) {  // an nvcc cubin of one explicit instantiation: its only kernel
    unsigned n = 0;
    check_cu(cuModuleGetFunctionCount(&n, l.module), "cuModuleGetFunctionCount");
    if (n != 1) throw std::runtime_error(c.tile() + ": expected one kernel in the cubin, found " + std::to_string(n));
    check_cu(cuModuleEnumerateFunctions(&l.fn, 1, l.module), "cuModuleEnumerateFunctions");
  } else {
    check_cu(cuModuleGetFunction(&l.fn, l.module, k.lowered.c_str()), "cuModuleGetFunction");
  }
  cuFuncGetAttribute(&l.regs, CU_FUNC_ATTRIBUTE_NUM_REGS, l.fn);
  cuFuncGetAttribute(&l.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, l.fn);
  if (c.dynamic_smem())
    check_cu(cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, c.smem_bytes()),
             "cuFuncSetAttribute(max dynamic shared memory)");
  return l;
}

Status launch(const Config& c, CUfunction fn, const GemmArgs& a, cudaStream_t stream) {
  int M = int(a.M), N = int(a.N), K = int(a.K), lda = int(a.lda), ldb = int(a.ldb), ldc = int(a.ldc);
  float alpha = a.alpha, beta = a.beta;
  const float* A = a.A;
  const float* B = a.B;
  float* C = a.C;
  void* params[] = {&M, &N, &K, &alpha, &A, &lda, &B, &ldb, &beta, &C, &ldc};
  const unsigned gx = unsigned((N + c.BN - 1) / c.BN), gy = unsigned((M + c.BM - 1) / c.BM);
  const CUresult r = cuLaunchKernel(fn, gx, gy, 1, unsigned(c.threads()), 1, 1,
                                    c.dynamic_smem() ? unsigned(c.smem_bytes()) : 0u,
                                    reinterpret_cast<CUstream>(stream), params, nullptr);
  return r == CUDA_SUCCESS ? Status::kOk : Status::kCuda;
}

struct Entry {
  Config config;
  std::string stage = "invalid";  // invalid, compile-failed, spills, wrong, timed
  std::string note;
  int regs = 0;
  double gflops = 0;                 // phase 1 (ranking size)
  double gflops_size = 0, gflops_confirm = 0, score = 0;  // phase 2
};

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    if (ch == '\n') { o += "\\n"; continue; }
    o += ch;
  }
  return o;
}

// Update the `// TILE:` line of a rung file to the tuned value (the registry test checks it).
void update_tile_line(const std::string& path, const std::string& tile) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = std::regex_replace(ss.str(), std::regex("\n// TILE: [^\n]*"), "\n// TILE: " + tile,
                                              std::regex_constants::format_first_only);
  std::ofstream(path) << text;
}

// The "//   rung N: ..." line of an existing tuned header (empty when there is none).
std::string previous_record(const std::string& path, int rung) {
  std::ifstream in(path);
  const std::string prefix = "//   rung " + std::to_string(rung) + ":";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

Config current_config(int rung) {
  Config c;
  c.rung = rung;
  if (rung == 8) {
    using T = tuned::Rung08;
    c.BM = T::BM, c.BN = T::BN, c.BK = T::BK, c.TM = T::TM, c.TN = T::TN;
  } else if (rung == 9) {
    using T = tuned::Rung09;
    c.BM = T::BM, c.BN = T::BN, c.BK = T::BK, c.WM = T::WM, c.WN = T::WN, c.TM = T::TM, c.TN = T::TN;
  } else {
    using T = tuned::Rung10;
    c.BM = T::BM, c.BN = T::BN, c.BK = T::BK, c.WM = T::WM, c.WN = T::WN, c.TM = T::TM, c.TN = T::TN;
    c.Stages = T::Stages, c.KU = T::KU;
  }
  return c;
}

// A rung not searched in this run keeps its current values and the record line of `header`.
RungOutcome kept(int rung, const std::string& header) {
  RungOutcome keep;
  keep.winner = current_config(rung);
  keep.record = previous_record(header, rung);
  return keep;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sgemm_autotune: search the tile parameters of rungs 8, 9, 10 on this GPU", "sgemm_autotune"};
  std::vector<int> rungs = tunable_rungs();
  int64_t size = 4096, confirm = 8192;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  int launches = 8, confirm_launches = 30, top = 6, max_configs = 0;
  double min_gain = 1.0;
  std::string kernels_dir = std::string(SGEMM_SOURCE_DIR) + "/kernels", out, json;
  std::string work_dir = "/tmp/sgemm_autotune";
  bool write_headers = true;
  std::vector<std::string> only;
  std::string compiler = "nvcc";
  app.add_option("--rungs", rungs, "rungs to tune (default 8,9,10)")->delimiter(',');
  app.add_option("--size", size, "M = N = K used to rank every configuration (default 4096)");
  app.add_option("--confirm-size", confirm, "second size for the finalists (default 8192; 0: none)");
  app.add_option("--jobs", jobs, "parallel compilations (default: all cores)");
  app.add_option("--compiler", compiler, "compiler of the ranking pass: nvcc (default, as the library) or nvrtc")
      ->check(CLI::IsMember({"nvcc", "nvrtc"}));
  app.add_option("--launches", launches, "timed launches per configuration (default 8)");
  app.add_option("--top", top, "finalists re-timed at both sizes (default 6)");
  app.add_option("--confirm-launches", confirm_launches,
                 "timed launches per finalist and size (default 30; ~150 at 8192^3 is ~4 s, long enough for "
                 "the power limit to lower the clock of a power-hungry kernel, as a long benchmark would)");
  app.add_option("--min-gain", min_gain,
                 "percent by which a finalist must beat the rung's current tile (always re-timed as a "
                 "finalist) to replace it (default 1; 0: the fastest wins)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-configs", max_configs, "cap on valid configurations per rung, evenly sampled (0: all)");
  app.add_option("--kernels-dir", kernels_dir, "the kernels/ folder holding the rung files");
  app.add_option("--out", out, "tuned header to write (default <kernels-dir>/tuned/sm_<arch>.cuh)");
  app.add_option("--json", json, "write every configuration's outcome here");
  app.add_option("--work-dir", work_dir, "temporary files of the nvcc builds (default /tmp/sgemm_autotune)");
  app.add_flag("!--no-headers", write_headers, "do not update the TILE lines of the rung files");
  app.add_option("--only", only,
                 "time only these tiles, as the tuner prints them (e.g. 64x256x32_32x128_8x16_s2_u8): a "
                 "comparison, which writes no header unless --out is given")
      ->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  for (int r : rungs)
    if (std::find(tunable_rungs().begin(), tunable_rungs().end(), r) == tunable_rungs().end()) {
      std::fprintf(stderr, "sgemm_autotune: error: rung %d is not tunable (8, 9, 10 are)\n", r);
      return 2;
    }
  if (const std::string p = harness::device_problem(); !p.empty()) {
    std::fprintf(stderr, "sgemm_autotune: %s\n", p.c_str());
    return 3;
  }
  try {
    SGEMM_CUDA(cudaFree(nullptr));  // create the primary context the driver API will use
    check_cu(cuInit(0), "cuInit");
    const harness::DeviceInfo dev = harness::query_device();
    const std::string arch = "sm_" + std::to_string(dev.cc_major * 10 + dev.cc_minor);
    const bool comparison_only = !only.empty() && out.empty();
    if (comparison_only) write_headers = false;
    if (out.empty()) out = kernels_dir + "/tuned/" + arch + ".cuh";
    if (std::system(("mkdir -p \"" + work_dir + "\"").c_str()) != 0)
      throw std::runtime_error("cannot create " + work_dir);
    Limits limits;
    limits.dynamic_smem_bytes = dev.smem_per_block_optin;
    std::printf("sgemm_autotune on %s (%s, %d SMs): rungs", dev.name.c_str(), arch.c_str(), dev.sm_count);
    for (int r : rungs) std::printf(" %d", r);
    std::printf("; ranking at %lld^3, finalists also at %lld^3; %d %s jobs\n", (long long)size,
                (long long)confirm, jobs, compiler.c_str());

    cudaStream_t stream;
    SGEMM_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    // Verification problems: exact small integers on a ragged shape, random inputs with alpha/beta.
    harness::ProblemSpec exact_spec, random_spec;
    exact_spec.shape = {127, 129, 65};
    exact_spec.kind = harness::InputKind::kSmallInt;
    random_spec.shape = {1000, 1030, 1100};
    random_spec.alpha = 0.5f;
    random_spec.beta = 3.0f;
    harness::Problem exact(exact_spec), random(random_spec);
    size_t free_b = 0, total_b = 0;
    SGEMM_CUDA(cudaMemGetInfo(&free_b, &total_b));

    auto time_config = [&](const Config& c, CUfunction fn, int64_t n, int count) {
      harness::ProblemSpec spec;
      spec.shape = {n, n, n};
      spec.sets = harness::rotation_sets(harness::set_bytes(harness::with_default_ld(spec.shape)), dev.l2_bytes,
                                         int64_t(free_b));
      static std::map<int64_t, std::unique_ptr<harness::Problem>> problems;  // one per size
      auto& p = problems[n];
      if (!p) p = std::make_unique<harness::Problem>(spec);
      const auto ms = harness::time_launches([&](int set) { return launch(c, fn, p->args(set), stream); },
                                             p->sets(), count, {2}, stream);
      return harness::gflops(n, n, n, harness::median(ms));
    };

    std::vector<RungOutcome> outcomes;
    std::vector<Entry> all;
    const auto t_start = std::chrono::steady_clock::now();
    for (int rung : tunable_rungs()) {
      if (std::find(rungs.begin(), rungs.end(), rung) == rungs.end()) {
        outcomes.push_back(kept(rung, out));
        continue;
      }
      const Precision& precision = find_rung(rung)->precision;
      std::vector<Entry> entries;
      const std::vector<Config> cands = candidates(rung);
      std::vector<Config> valid;
      for (const Config& c : cands)
        if (invalid_reason(c, limits).empty()) valid.push_back(c);
      if (max_configs > 0 && int(valid.size()) > max_configs) {
        std::vector<Config> sample;
        for (int i = 0; i < max_configs; ++i) sample.push_back(valid[size_t(i) * valid.size() / max_configs]);
        valid = sample;
      }
      if (!only.empty()) {  // a comparison of named tiles: the rest are not compiled
        std::vector<Config> picked;
        for (const Config& c : valid)
          if (std::find(only.begin(), only.end(), c.tile()) != only.end()) picked.push_back(c);
        valid = picked;
        if (valid.empty()) {
          outcomes.push_back(kept(rung, out));
          continue;
        }
      }
      std::printf("\n[rung %d] %zu candidates, %zu valid after the pre-compile checks\n", rung, cands.size(),
                  valid.size());
      // Compile in parallel.
      std::vector<Compiled> compiled(valid.size());
      std::atomic<size_t> next{0}, done{0};
      std::mutex print_mu;
      std::vector<std::thread> pool;
      for (int j = 0; j < jobs; ++j)
        pool.emplace_back([&] {
          for (size_t i; (i = next++) < valid.size();) {
            compiled[i] = compiler == "nvcc" ? compile_nvcc(valid[i], kernels_dir, arch, "", work_dir)
                                             : compile(valid[i], kernels_dir, arch);
            const size_t d = ++done;
            if (d % 16 == 0 || d == valid.size()) {
              std::lock_guard<std::mutex> lk(print_mu);
              std::printf("  compiled %zu/%zu\n", d, valid.size());
              std::fflush(stdout);
            }
          }
        });
      for (auto& t : pool) t.join();

      constexpr int kQuickLaunches = 3;
      constexpr double kFullTimingFraction = 0.7;
      double best = 0;
      RungOutcome o;
      o.candidates = int(cands.size());
      o.valid = int(valid.size());
      for (size_t i = 0; i < valid.size(); ++i) {
        Entry e;
        e.config = valid[i];
        const Config& c = valid[i];
        if (!compiled[i].ok) {
          e.stage = "compile-failed";
          e.note = compiled[i].log.substr(0, 300);
          entries.push_back(e);
          continue;
        }
        ++o.compiled;
        Loaded l = load(c, compiled[i]);
        e.regs = l.regs;
        if (l.local_bytes > 0) {
          e.stage = "spills";
          e.note = std::to_string(l.local_bytes) + " bytes of local memory";
        } else {
          bool ok = true;
          for (harness::Problem* p : {&exact, &random}) {
            p->reset_c(0);
            if (launch(c, l.fn, p->args(0), stream) != Status::kOk) ok = false;
            SGEMM_CUDA(cudaStreamSynchronize(stream));
            ok = ok && harness::verify(*p, precision).ok;
          }
          if (!ok) {
            e.stage = "wrong";
            e.note = "failed verification";
          } else {
            ++o.verified;
            e.stage = "timed";
            // A quick look first: configurations far behind the best so far are not timed fully.
            e.gflops = time_config(c, l.fn, size, kQuickLaunches);
            if (e.gflops >= kFullTimingFraction * best) e.gflops = time_config(c, l.fn, size, launches);
            best = std::max(best, e.gflops);
          }
        }
        std::printf("  [%3zu/%3zu] %-24s regs %3d  %-8s %8.0f GFLOP/s\n", i + 1, valid.size(), c.tile().c_str(),
                    e.regs, e.stage.c_str(), e.gflops);
        std::fflush(stdout);
        cuModuleUnload(l.module);
        entries.push_back(e);
      }
      // Finalists: re-time at both sizes, rank by geometric mean.
      std::vector<Entry*> ranked;
      for (Entry& e : entries)
        if (e.stage == "timed") ranked.push_back(&e);
      std::sort(ranked.begin(), ranked.end(), [](const Entry* a, const Entry* b) { return a->gflops > b->gflops; });
      if (ranked.empty()) throw std::runtime_error("no configuration of rung " + std::to_string(rung) + " verified");
      ranked.resize(std::min<size_t>(ranked.size(), size_t(std::max(top, 2))));
      const std::string current = current_config(rung).tile();  // the tile the library builds now
      auto is_current = [&](const Entry* e) { return e->config.tile() == current; };
      if (std::none_of(ranked.begin(), ranked.end(), is_current))
        for (Entry& e : entries)
          if (e.stage == "timed" && is_current(&e)) ranked.push_back(&e);  // compared, whatever its rank
      std::printf("  finalists, re-timed as nvcc builds them (the library's compiler):\n");
      std::vector<Compiled> shipped(ranked.size());
      {
        std::vector<std::thread> nv;
        for (size_t f = 0; f < ranked.size(); ++f)
          nv.emplace_back([&, f] {
            const size_t i = size_t(std::find_if(valid.begin(), valid.end(), [&](const Config& c) {
                                       return c.tile() == ranked[f]->config.tile();
                                     }) - valid.begin());
            if (compiler == "nvcc") {  // ranked with nvcc's code already
              shipped[f] = compiled[i];
              return;
            }
            shipped[f] = compile_nvcc(ranked[f]->config, kernels_dir, arch, compiled[i].lowered, work_dir);
            // Keep NVRTC's cubin beside nvcc's (<work-dir>/rungN_<tile>.cu.cubin) to compare their SASS.
            const std::string rtc = work_dir + "/rung" + std::to_string(ranked[f]->config.rung) + "_" +
                                    ranked[f]->config.tile() + ".nvrtc.cubin";
            std::ofstream(rtc, std::ios::binary)
                .write(compiled[i].cubin.data(), std::streamsize(compiled[i].cubin.size()));
          });
        for (auto& t : nv) t.join();
      }
      for (size_t f = 0; f < ranked.size(); ++f) {
        Entry* e = ranked[f];
        if (!shipped[f].ok) throw std::runtime_error("nvcc failed on " + e->config.name_expression() + ":\n" +
                                                     shipped[f].log);
        Loaded l = load(e->config, shipped[f]);
        if (l.local_bytes > 0) {  // nvcc's build spills where NVRTC's did not: drop it
          e->score = 0;
          std::printf("    %-24s spills when built by nvcc: dropped\n", e->config.tile().c_str());
          cuModuleUnload(l.module);
          continue;
        }
        e->regs = l.regs;
        e->gflops_size = time_config(e->config, l.fn, size, confirm_launches);
        e->gflops_confirm = confirm > 0 ? time_config(e->config, l.fn, confirm, confirm_launches) : e->gflops_size;
        e->score = std::sqrt(e->gflops_size * e->gflops_confirm);
        std::printf("    %-24s regs %3d %8.0f GFLOP/s at %lld^3, %8.0f at %lld^3 -> %8.0f\n",
                    e->config.tile().c_str(), e->regs, e->gflops_size, (long long)size, e->gflops_confirm,
                    (long long)confirm, e->score);
        cuModuleUnload(l.module);
      }
      std::sort(ranked.begin(), ranked.end(), [](const Entry* a, const Entry* b) { return a->score > b->score; });
      std::vector<double> scores;
      for (const Entry* e : ranked) scores.push_back(e->score);
      const auto cur =
          std::find_if(ranked.begin(), ranked.end(), [&](const Entry* e) { return is_current(e) && e->score > 0; });
      const int w = pick_winner(scores, cur == ranked.end() ? -1 : int(cur - ranked.begin()), min_gain);
      const int r = w == 0 ? 1 : 0;  // runner-up: the best of the rest
      o.winner = ranked[size_t(w)]->config;
      o.winner_gflops = ranked[size_t(w)]->score;
      o.runner_up = ranked[size_t(r) % ranked.size()]->config;
      o.runner_up_gflops = size_t(r) < ranked.size() ? ranked[size_t(r)]->score : 0;
      if (w != 0) o.min_gain = min_gain;
      std::printf("  winner %s (%.0f GFLOP/s geomean)", o.winner.tile().c_str(), o.winner_gflops);
      if (o.runner_up_gflops > 0)
        std::printf(", runner-up %s (%.0f, %s)", o.runner_up.tile().c_str(), o.runner_up_gflops,
                    margin_text(o).c_str());
      std::printf("\n");
      outcomes.push_back(o);
      all.insert(all.end(), entries.begin(), entries.end());
    }
    for (const std::string& t : only)
      if (std::none_of(all.begin(), all.end(), [&](const Entry& e) { return e.config.tile() == t; }))
        std::printf("--only: %s is not a valid configuration of the rungs searched\n", t.c_str());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    const std::string source = dev.name + ", " + arch + ", " + date + ", ranked at " + std::to_string(size) +
                               "^3 and " + std::to_string(confirm) + "^3";
    if (comparison_only) {
      std::printf("\n--only without --out: a comparison, no tuned header written (%.0f s)\n", seconds);
    } else {
      std::ofstream(out) << tuned_header(outcomes, source);
      std::printf("\nwrote %s (%.0f s)\n", out.c_str(), seconds);
    }
    if (write_headers)
      for (const RungOutcome& o : outcomes) update_tile_line(kernels_dir + "/" + o.winner.rung_file(), o.winner.tile());
    if (!json.empty()) {
      std::ofstream js(json);
      js << "{\n  \"tool\": \"sgemm_autotune\",\n  \"gpu_name\": \"" << json_escape(dev.name) << "\",\n  \"gpu_arch\": \""
         << arch << "\",\n  \"size\": " << size << ",\n  \"confirm_size\": " << confirm << ",\n  \"seconds\": "
         << seconds << ",\n  \"configs\": [\n";
      for (size_t i = 0; i < all.size(); ++i) {
        const Entry& e = all[i];
        js << "    {\"rung\": " << e.config.rung << ", \"tile\": \"" << e.config.tile() << "\", \"threads\": "
           << e.config.threads() << ", \"smem_bytes\": " << e.config.smem_bytes() << ", \"regs\": " << e.regs
           << ", \"stage\": \"" << e.stage << "\", \"gflops\": " << e.gflops << ", \"gflops_size\": " << e.gflops_size
           << ", \"gflops_confirm\": " << e.gflops_confirm << ", \"note\": \"" << json_escape(e.note) << "\"}"
           << (i + 1 < all.size() ? "," : "") << "\n";
      }
      js << "  ]\n}\n";
      std::printf("wrote %s\n", json.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_autotune: %s\n", e.what());
    return 1;
  }
  return 0;
}
