// sgemm_autotune — search the tile parameters of rungs 8, 9 and 10 on this GPU.
//
//   sgemm_autotune                          tune rungs 8, 9, 10; write kernels/tuned/sm_<arch>.cuh
//   sgemm_autotune --rungs 10 --jobs 16     only rung 10 (the others keep their current values)
//
// Run-time compilation: each candidate is compiled from the rung's own file (the registry's
// source of the rung) while the tuner runs, so the build (and CI) never compiles the search
// space, and a new GPU is tuned without touching CMake. By default the compiler is nvcc, the one that builds the library: NVRTC's code
// for the same source differs (64-bit shared-memory address arithmetic, other register
// allocation) by up to 12% either way (exp35), enough to rank the shipped kernels wrongly.
// --compiler nvrtc ranks with NVRTC (no nvcc needed, a little faster) and rebuilds the finalists
// with nvcc.
// Per rung: enumerate candidates -> reject invalid ones without compiling (divisibility, shared
// memory, a register estimate, thread count) -> compile the rest in parallel -> drop those that
// spill -> verify each on two ragged shapes (exact small integers; random with alpha/beta) -> time
// at each --sizes size (median of --launches, inputs rotated past L2, as sgemm_bench does) and
// rank by their geometric mean -> re-time the best --top at each --confirm-sizes size -> winner =
// best geometric mean there. The tuner writes only the tuned header: the tile text every tool
// shows comes from the registry, which reads that header.
//
// Kernels are loaded and launched through the CUDA runtime (cudaLibraryLoadData, cudaLaunchKernel),
// never the driver API linked directly: the tuner then starts, and --help works, without a driver.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cli.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device_info.hpp"
#include "harness/problem.hpp"
#include "harness/timing.hpp"
#include "harness/verify.hpp"
#include "sgemm_ladder.hpp"
#include "dispatch.hpp"
#include "nvrtc_compile.hpp"
#include "provenance.hpp"
#include "space.hpp"
#include "tuned/tuned.cuh"

#ifndef SGEMM_SOURCE_DIR
#define SGEMM_SOURCE_DIR "."
#endif

using namespace sgemm;
using namespace sgemm::autotune;

namespace {

// A compiled configuration loaded into the current device's context; unloaded with it.
class Loaded {
 public:
  Loaded(const Config& c, const Compiled& k) {
    SGEMM_CUDA(cudaLibraryLoadData(&library_, k.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    if (k.lowered.empty()) {  // an nvcc cubin of one explicit instantiation: its only kernel
      unsigned n = 0;
      SGEMM_CUDA(cudaLibraryGetKernelCount(&n, library_));
      if (n != 1) throw std::runtime_error(c.tile() + ": expected one kernel in the cubin, found " + std::to_string(n));
      SGEMM_CUDA(cudaLibraryEnumerateKernels(&kernel_, 1, library_));
    } else {
      SGEMM_CUDA(cudaLibraryGetKernel(&kernel_, library_, k.lowered.c_str()));
    }
    cudaFuncAttributes attr{};
    SGEMM_CUDA(cudaFuncGetAttributes(&attr, fn()));
    regs = attr.numRegs;
    local_bytes = int(attr.localSizeBytes);
    if (c.dynamic_smem())
      SGEMM_CUDA(cudaFuncSetAttribute(fn(), cudaFuncAttributeMaxDynamicSharedMemorySize, c.smem_bytes()));
  }
  ~Loaded() { cudaLibraryUnload(library_); }
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;
  // The runtime takes a library's kernel wherever it takes a kernel function.
  const void* fn() const { return reinterpret_cast<const void*>(kernel_); }
  int regs = 0, local_bytes = 0;

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
};

Status launch(const Config& c, const void* fn, const GemmArgs& a, cudaStream_t stream) {
  int M = int(a.M), N = int(a.N), K = int(a.K), lda = int(a.lda), ldb = int(a.ldb), ldc = int(a.ldc);
  float alpha = a.alpha, beta = a.beta;
  const float* A = a.A;
  const float* B = a.B;
  float* C = a.C;
  void* params[] = {&M, &N, &K, &alpha, &A, &lda, &B, &ldb, &beta, &C, &ldc};
  const dim3 grid(unsigned((N + c.BN - 1) / c.BN), unsigned((M + c.BM - 1) / c.BM));
  const cudaError_t r = cudaLaunchKernel(fn, grid, dim3(unsigned(c.threads())), params,
                                         c.dynamic_smem() ? size_t(c.smem_bytes()) : 0u, stream);
  return r == cudaSuccess ? Status::kOk : Status::kCuda;
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
  std::string sizes_arg = "1024,4096", confirm_arg = "1024,2048,4096,8192";
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  int launches = 8, confirm_launches = 30, top = 6, max_configs = 0;
  double min_gain = 1.0;
  std::string kernels_dir = std::string(SGEMM_SOURCE_DIR) + "/kernels", out, json;
  std::string work_dir = "/tmp/sgemm_autotune";
  std::vector<std::string> only;
  std::string compiler = "nvcc";
  const CLI::Validator size_list([](std::string& t) { return harness::size_list_problem(t, 1); }, "");
  app.add_option("--rungs", rungs, "rungs to tune (default 8,9,10)")->delimiter(',');
  app.add_option("--sizes", sizes_arg,
                 "M = N = K sizes that rank every configuration, by the geometric mean of their GFLOP/s "
                 "(default 1024,4096)")
      ->check(size_list);
  app.add_option("--confirm-sizes", confirm_arg,
                 "sizes that rank the finalists, by geometric mean (default 1024,2048,4096,8192: the sizes the "
                 "ladder is judged on)")
      ->check(size_list);
  app.add_option("--jobs", jobs, "parallel compilations (default: all cores)")->check(CLI::PositiveNumber);
  app.add_option("--compiler", compiler, "compiler of the ranking pass: nvcc (default, as the library) or nvrtc")
      ->check(CLI::IsMember({"nvcc", "nvrtc"}));
  app.add_option("--launches", launches, "timed launches per configuration and size (default 8)")
      ->check(CLI::PositiveNumber);
  app.add_option("--top", top, "finalists re-timed at the --confirm-sizes (default 6)")->check(CLI::PositiveNumber);
  app.add_option("--confirm-launches", confirm_launches,
                 "timed launches per finalist and size (default 30; ~150 at 8192^3 is ~4 s, long enough for "
                 "the power limit to lower the clock of a power-hungry kernel, as a long benchmark would)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-gain", min_gain,
                 "percent by which a finalist must beat the rung's current tile (always re-timed as a "
                 "finalist) to replace it (default 1; 0: the fastest wins)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-configs", max_configs, "cap on valid configurations per rung, evenly sampled (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--kernels-dir", kernels_dir, "the kernels/ folder holding the rung files");
  app.add_option("--out", out, "tuned header to write (default <kernels-dir>/tuned/sm_<arch>.cuh)");
  app.add_option("--json", json, "write every configuration's outcome here");
  app.add_option("--work-dir", work_dir, "temporary files of the nvcc builds (default /tmp/sgemm_autotune)");
  bool dispatch = false;
  app.add_flag("--dispatch", dispatch,
               "measure the dispatch rung's model constants instead and write kernels/tuned/dispatch_sm_<arch>.cuh "
               "(or --out; --json for the measurements)");
  bool dispatch_tensor = false;
  app.add_flag("--dispatch-tensor", dispatch_tensor,
               "measure the dispatch rung's tensor-path constants (rung 32's times; an sm_90a build on an H100 "
               "or H200) and write kernels/tuned/tensor_sm_90.cuh (or --out; --json for the measurements)");
  std::string explain, explain_suite = "workloads";
  CLI::Option* explain_opt = app.add_option("--dispatch-explain", explain,
                 "for each shape (comma-separated: MxNxK, the name of a line of --dispatch-suite with its leading "
                 "dimensions, layout, batch and bias, or all of them: all), print every dispatch candidate's "
                 "predicted and measured time and the one the model picks; writes nothing");
  app.add_option("--dispatch-suite", explain_suite,
                 "the workload suite whose shapes --dispatch-explain names: bench/NAME.txt or a file (default "
                 "workloads)");
  app.add_option("--only", only,
                 "time only these tiles, as the tuner prints them (e.g. 64x256x32_32x128_8x16_s2_u8): a "
                 "comparison, which writes no header unless --out is given")
      ->delimiter(',');
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "sgemm_autotune: error: %s\n", e.what());
    return 2;
  }
  if (explain_opt->count() > 0)
    if (const std::string p = harness::shape_or_name_list_problem(explain, explain_suite); !p.empty()) {
      std::fprintf(stderr, "sgemm_autotune: error: --dispatch-explain: %s\n", p.c_str());
      return 2;
    }
  for (int r : rungs)
    if (std::find(tunable_rungs().begin(), tunable_rungs().end(), r) == tunable_rungs().end()) {
      std::fprintf(stderr, "sgemm_autotune: error: rung %d is not tunable (8, 9, 10 are)\n", r);
      return 2;
    }
  const std::vector<int64_t> sizes = harness::parse_size_list(sizes_arg);
  const std::vector<int64_t> confirm_sizes = harness::parse_size_list(confirm_arg);
  if (const std::string p = harness::device_problem(); !p.empty()) {
    std::fprintf(stderr, "sgemm_autotune: %s\n", p.c_str());
    return 3;
  }
  try {
    const harness::DeviceInfo dev = harness::query_device();
    const std::string arch = "sm_" + std::to_string(dev.cc_major * 10 + dev.cc_minor);
    cudaStream_t stream;  // every mode times its launches on this stream
    SGEMM_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (explain_opt->count() > 0)
      return explain_dispatch(dev, harness::resolve_shape_list(explain, explain_suite), stream);
    if (dispatch_tensor) {
      std::printf("sgemm_autotune --dispatch-tensor on %s (%s, %d SMs)\n", dev.name.c_str(), arch.c_str(), dev.sm_count);
      return calibrate_tensor(dev, out.empty() ? kernels_dir + "/tuned/tensor_sm_90.cuh" : out, json, stream);
    }
    if (dispatch) {
      std::printf("sgemm_autotune --dispatch on %s (%s, %d SMs)\n", dev.name.c_str(), arch.c_str(), dev.sm_count);
      return calibrate_dispatch(dev, out.empty() ? kernels_dir + "/tuned/dispatch_" + arch + ".cuh" : out, json,
                                stream);
    }
    const bool comparison_only = !only.empty() && out.empty();
    if (out.empty()) out = kernels_dir + "/tuned/" + arch + ".cuh";
    if (std::system(("mkdir -p \"" + work_dir + "\"").c_str()) != 0)
      throw std::runtime_error("cannot create " + work_dir);
    Limits limits;
    limits.dynamic_smem_bytes = dev.smem_per_block_optin;
    std::printf("sgemm_autotune on %s (%s, %d SMs): rungs", dev.name.c_str(), arch.c_str(), dev.sm_count);
    for (int r : rungs) std::printf(" %d", r);
    std::printf("; %s; %d %s jobs\n", ranking_text(sizes, confirm_sizes).c_str(), jobs, compiler.c_str());

    // Verification problems: exact small integers on a ragged shape, random inputs with alpha/beta.
    // The tuner builds the instances with 128-bit accesses (kVec = true), which need rows that
    // start on 16-byte boundaries: leading dimensions that are multiples of 4.
    harness::ProblemSpec exact_spec, random_spec;
    exact_spec.shape = {127, 129, 65, 68, 132, 132};
    exact_spec.kind = harness::InputKind::kSmallInt;
    random_spec.shape = {1000, 1030, 1100, 1100, 1032, 1032};
    random_spec.alpha = 0.5f;
    random_spec.beta = 3.0f;
    harness::Problem exact(exact_spec), random(random_spec);
    size_t free_b = 0, total_b = 0;
    SGEMM_CUDA(cudaMemGetInfo(&free_b, &total_b));

    // GFLOP/s of a configuration at each of `at` (M = N = K), the median of `count` launches.
    std::map<int64_t, std::unique_ptr<harness::Problem>> problems;  // one per size
    auto time_config = [&](const Config& c, const void* fn, const std::vector<int64_t>& at, int count) {
      std::vector<double> gflops;
      for (int64_t n : at) {
        auto& p = problems[n];
        if (!p) {
          harness::ProblemSpec spec;
          const int64_t ld = (n + 3) / 4 * 4;  // 16-byte rows, as the kVec = true instances need
          spec.shape = {n, n, n, ld, ld, ld};
          spec.sets = harness::rotation_sets(harness::set_bytes(harness::with_default_ld(spec.shape)), dev.l2_bytes,
                                             int64_t(free_b));
          p = std::make_unique<harness::Problem>(spec);
        }
        const auto ms = harness::time_launches([&](int set) { return launch(c, fn, p->args(set), stream); },
                                               p->sets(), count, {2}, stream);
        gflops.push_back(harness::gflops(n, n, n, harness::median(ms)));
      }
      return gflops;
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
      std::printf("\n[rung %d] %s: %zu candidates, %zu valid after the pre-compile checks\n", rung,
                  find_rung(rung)->source, cands.size(), valid.size());
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
        const Loaded l(c, compiled[i]);
        e.regs = l.regs;
        if (l.local_bytes > 0) {
          e.stage = "spills";
          e.note = std::to_string(l.local_bytes) + " bytes of local memory";
        } else {
          bool ok = true;
          for (harness::Problem* p : {&exact, &random}) {
            p->reset_c(0);
            if (launch(c, l.fn(), p->args(0), stream) != Status::kOk) ok = false;
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
            e.ranking = time_config(c, l.fn(), sizes, kQuickLaunches);
            if (geomean(e.ranking) >= kFullTimingFraction * best) e.ranking = time_config(c, l.fn(), sizes, launches);
            e.gflops = geomean(e.ranking);
            best = std::max(best, e.gflops);
          }
        }
        std::printf("  [%3zu/%3zu] %-24s regs %3d  %-8s %8.0f GFLOP/s\n", i + 1, valid.size(), c.tile().c_str(),
                    e.regs, e.stage.c_str(), e.gflops);
        std::fflush(stdout);
        entries.push_back(e);
      }
      // Finalists: re-time at the confirmation sizes, rank by geometric mean.
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
      std::printf("  finalists, re-timed as nvcc builds them (the library's compiler) at %s:\n",
                  sizes_text(confirm_sizes).c_str());
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
        const Loaded l(e->config, shipped[f]);
        if (l.local_bytes > 0) {  // nvcc's build spills where NVRTC's did not: drop it
          e->score = 0;
          std::printf("    %-24s spills when built by nvcc: dropped\n", e->config.tile().c_str());
          continue;
        }
        e->regs = l.regs;
        e->confirm = time_config(e->config, l.fn(), confirm_sizes, confirm_launches);
        e->score = geomean(e->confirm);
        std::printf("    %-24s regs %3d", e->config.tile().c_str(), e->regs);
        for (size_t k = 0; k < confirm_sizes.size(); ++k)
          std::printf("  %lld^3 %7.0f", (long long)confirm_sizes[k], e->confirm[k]);
        std::printf("  -> %7.0f GFLOP/s\n", e->score);
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
    const std::string source = dev.name + ", " + arch + ", " + date + ", " + ranking_text(sizes, confirm_sizes);
    if (comparison_only) {
      std::printf("\n--only without --out: a comparison, no tuned header written (%.0f s)\n", seconds);
    } else {
      std::ofstream(out) << tuned_header(outcomes, source);
      std::printf("\nwrote %s (%.0f s)\n", out.c_str(), seconds);
    }
    if (!json.empty()) {
      // The results and the commit that measured them (whether the tree was clean too).
      nlohmann::json doc = nlohmann::json::parse(results_json(dev.name, arch, sizes, confirm_sizes, seconds, all));
      doc.update(provenance());
      std::ofstream(json) << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      std::printf("wrote %s\n", json.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_autotune: %s\n", e.what());
    return 1;
  }
  return 0;
}
