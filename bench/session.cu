#include "session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <thread>

#include "harness/cuda_check.hpp"
#include "harness/nvml.hpp"
#include "peers/cublas.hpp"
#include "peers/gemmul8.hpp"
#include "harness/stats.hpp"

namespace sgemm::bench {

using namespace sgemm::harness;

namespace {

RowCounters counters_for(const Rung& r, const Shape& s) {
  RowCounters c;
  c.rung = r.id;
  c.M = s.M;
  c.N = s.N;
  c.K = s.K;
  const Shape dense = with_default_ld(s);
  c.lda = dense.lda;
  c.ldb = dense.ldb;
  c.ldc = dense.ldc;
  c.fp32_accurate = r.precision.fp32_accurate;
  c.batch = s.batch;
  c.bias = s.bias;
  return c;
}

// The figures of the first contender's launches: median, quartiles, count, GFLOP/s (of the whole
// batch: 2*M*N*K per product).
void set_time_counters(const Rounds& rounds, RowCounters* c) {
  const std::vector<double> ms = rounds.all(0);
  c->ms = median(ms);
  c->ms_q1 = quantile(ms, 0.25);
  c->ms_q3 = quantile(ms, 0.75);
  c->samples = int(ms.size());
  c->rounds = int(rounds.ms[0].size());
  c->gflops = gflops(c->M, c->N, c->K, c->ms) * double(c->batch);
}

std::string shape_key(const Shape& s, InputKind kind, int wide_exponent, bool rotate) {
  return s.str() + "/" + input_label(kind, wide_exponent) + (rotate ? "/rot" : "");
}

}  // namespace

Session::Session(Options options, DeviceInfo device) : o_(std::move(options)), dev_(std::move(device)) {
  set_packing(o_.packing == "always" ? Packing::kAlways : o_.packing == "never" ? Packing::kNever : Packing::kAuto);
  SGEMM_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  clocks_ = std::make_unique<SmClockSampler>(dev_.device, stream_);
}

Session::~Session() {
  problem_.reset();
  clocks_.reset();
  if (stream_) cudaStreamDestroy(stream_);
}

std::string Session::preflight() {
  try {
    problem_for(with_default_ld({8, 8, 8, 0, 0, 0}), InputKind::kSmallInt, 0, false);
    for (int id : timed_kernels(o_)) {
      const Rung* r = find_rung(id);
      std::string detail;
      const Status s = run(id, problem_->args(0), stream_, &detail);
      if (s == Status::kArch)
        return std::string("kernel ") + r->slug + " was not built for this GPU (" + dev_.arch() +
               "): rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(dev_.cc_major * 10 + dev_.cc_minor);
      if (s != Status::kOk) return std::string("kernel ") + r->slug + ": " + detail;
    }
    SGEMM_CUDA(cudaStreamSynchronize(stream_));
  } catch (const std::exception& e) {
    return e.what();
  }
  problem_.reset();
  problem_key_.clear();
  return "";
}

Problem& Session::problem_for(const Shape& shape, InputKind kind, int wide_exponent, bool rotate) {
  const std::string key = shape_key(shape, kind, wide_exponent, rotate);
  if (problem_ && problem_key_ == key) return *problem_;
  problem_.reset();  // free the previous shape first
  problem_key_.clear();
  ProblemSpec spec;
  spec.shape = shape;
  spec.alpha = o_.alpha;
  spec.beta = o_.beta;
  spec.kind = kind;
  spec.wide_exponent = wide_exponent;
  spec.seed = o_.seed;
  size_t free_b = 0, total_b = 0;
  SGEMM_CUDA(cudaMemGetInfo(&free_b, &total_b));
  spec.sets = rotate ? rotation_sets(set_bytes(shape), dev_.l2_bytes, int64_t(free_b)) : 1;
  problem_ = std::make_unique<Problem>(spec);
  problem_key_ = key;
  return *problem_;
}

void Session::fail(benchmark::State& state, const std::string& name, const std::string& message,
                   bool device_problem) {
  errors_[name] = message;
  device_failed_ |= device_problem;
  std::fprintf(stderr, "sgemm_bench: %s: %s\n", name.c_str(), message.c_str());
  state.SkipWithError(message.c_str());
}

VerifyResult Session::verify_launch(Problem& p, const Precision& precision,
                                    const std::function<Status(std::string*)>& launch) {
  p.reset_c(0);
  std::string detail;
  const Status s = launch(&detail);
  if (s == Status::kUnsupported) throw Refused(detail.empty() ? status_string(s) : detail);
  if (s != Status::kOk) throw std::runtime_error(detail.empty() ? status_string(s) : detail);
  SGEMM_CUDA(cudaStreamSynchronize(stream_));
  return verify(p, precision);
}

void Session::verify_row(const std::string& name, const Rung& rung, Problem& p, RowCounters* c) {
  auto v = verified_.find(name);
  if (v == verified_.end()) {
    const VerifyResult result = verify_launch(
        p, rung.precision, [&](std::string* detail) { return run(rung.id, p.args(0), stream_, detail); });
    v = verified_.emplace(name, result).first;
    if (!result.ok) {
      verification_failed_ = true;
      std::fprintf(stderr, "sgemm_bench: %s: %s\n", name.c_str(), result.summary().c_str());
    }
  }
  c->verified = v->second.ok;
  c->rel_err = v->second.rel_err;
  c->max_abs_err = v->second.max_abs_err;
}

// A comparison method's rel_err on the problem `key` names, cached per key in `cache`.
double Session::method_rel_err(std::map<std::string, double>& cache, Problem& p, const std::string& key,
                               const Precision& precision, GemmFn method, const char* what) {
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  return cache[key] = verify_launch(p, precision, [&](std::string* detail) {
                        const Status s = method(p.args(0), stream_);
                        if (s != Status::kOk) *detail = std::string(what) + ": " + status_string(s);
                        return s;
                      }).rel_err;
}

double Session::cublas_tf32_rel_err(Problem& p, const std::string& key, const Precision& precision) {
  return method_rel_err(cublas_tf32_rel_err_, p, key, precision, &peers::cublas_tf32, "cuBLAS TF32");
}

double Session::cublas_rel_err(Problem& p, const std::string& key) {
  static const GemmFn kCublas = [](const GemmArgs& a, cudaStream_t s) { return sgemm::run(0, a, s); };
  return method_rel_err(cublas_rel_err_, p, key, find_rung(0)->precision, kCublas, "cuBLAS");
}

double Session::cublas_method_rel_err(const CublasMethod& m, Problem& p, const std::string& key,
                                      const Precision& precision) {
  return method_rel_err(cublas_method_rel_err_[m.what], p, key, precision, m.fn, m.what);
}

// The FP32-accurate tensor-core rungs are also timed against the same method on cuBLAS's GEMMs,
// found by the rung's precision.
const Session::CublasMethod* Session::cublas_method(const Rung& rung) {
  static const CublasMethod k3xtf32{&peers::cublas_3xtf32, "cuBLAS 3xTF32", &RowCounters::pct_cublas_3xtf32,
                                    &RowCounters::cublas_3xtf32_rel_err};
  static const CublasMethod kOzaki{[](const GemmArgs& a, cudaStream_t s) { return peers::cublas_ozaki_int8(a, s); },
                                   "Ozaki on cuBLAS INT8", &RowCounters::pct_cublas_ozaki_int8,
                                   &RowCounters::cublas_ozaki_int8_rel_err};
  const std::string name = rung.precision.name;
  return name == "3xtf32" ? &k3xtf32 : ozaki_rung(rung) ? &kOzaki : nullptr;
}

bool Session::ozaki_rung(const Rung& rung) { return std::string(rung.precision.name) == "ozaki-int8"; }

// `launch` alone, back to back over the rotated sets for --energy seconds (by its cold time per
// launch, ms), between two reads of the GPU's energy counter: mean watts and joules per launch.
// Unknown (-1) without NVML's counter or when the counter did not move (a burst shorter than its
// update period).
Session::Energy Session::measure_energy(const LaunchFn& launch, int sets, double ms) {
  Energy e;
  constexpr int kMaxLaunches = 100000;
  const double wanted = std::ceil(o_.energy_time * 1e3 / std::max(ms, 1e-6));
  const int launches = int(std::clamp(wanted, 1.0, double(kMaxLaunches)));
  SGEMM_CUDA(cudaStreamSynchronize(stream_));
  const long long before = nvml::energy_mj(dev_.device);
  if (before < 0) return e;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i)
    if (const Status s = launch(i % sets); s != Status::kOk)
      throw std::runtime_error(std::string("energy burst: ") + status_string(s));
  SGEMM_CUDA(cudaStreamSynchronize(stream_));
  const long long after = nvml::energy_mj(dev_.device);
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (after <= before || elapsed_ms <= 0) return e;
  e.watts = double(after - before) / elapsed_ms;  // mJ per ms
  e.joules = double(after - before) * 1e-3 / launches;
  return e;
}

bool Session::clock_ok(const ClockRange& clock) const {
  return clock.min_mhz > 0 && clock.min_mhz >= o_.clock_threshold_pct / 100.0 * dev_.sm_clock_max_mhz;
}

void Session::set_clock_counters(const ClockRange& clock, RowCounters* c) const {
  c->sm_clock_mhz = clock.median_mhz;
  c->sm_clock_min_mhz = clock.min_mhz;
  c->sm_clock_max_mhz = clock.max_mhz;
  c->clock_ok = clock_ok(clock);
}

Session::Measured Session::measure(const std::vector<LaunchFn>& contenders, int sets, const RoundsPlan& plan) {
  Measured m;
  for (int attempt = 0;; ++attempt) {
    m.rounds = time_interleaved(contenders, sets, plan, stream_, clocks_.get());
    m.remeasured = attempt;
    // An unknown clock (no sample) is not flagged as low: measuring again would not tell more.
    const bool unknown = m.rounds.clock.min_mhz <= 0;
    if (unknown || clock_ok(m.rounds.clock) || attempt == kMaxRemeasures) return m;
    std::this_thread::sleep_for(kThrottlePause);  // let the GPU cool and its clock recover
  }
}

void Session::run_row(benchmark::State& state, const RowPlan& row) {
  const Rung& rung = *row.rung;
  try {
    Problem& p = problem_for(row.shape, o_.input, o_.wide_exponent, true);
    RowCounters c = counters_for(rung, row.shape);
    c.checked = o_.check;
    if (o_.check) verify_row(row.name, rung, p, &c);
    const std::string key = shape_key(row.shape, o_.input, o_.wide_exponent, true);  // the comparisons' caches
    if (o_.check && rung.id != 0) c.cublas_rel_err = cublas_rel_err(p, key);
    // The rung, cuBLAS (the yardstick; cuBLAS's own row is timed against itself: the noise floor)
    // and, for rungs that are not FP32-accurate, cuBLAS's TF32 GEMM, for the FP32-accurate
    // tensor-core rungs the same method on cuBLAS (cublas_method): interleaved, same inputs. Those
    // two comparisons take plain calls only (NN, one product, no bias): other rows go without.
    std::vector<LaunchFn> contenders = {[&](int set) { return run(rung.id, p.args(set), stream_); },
                                        [&](int set) { return run(0, p.args(set), stream_); }};
    const bool plain = row.shape.plain();
    const bool tf32 = !c.fp32_accurate && plain;
    const CublasMethod* method = c.fp32_accurate && plain ? cublas_method(rung) : nullptr;
    if (tf32) contenders.push_back([&](int set) { return peers::cublas_tf32(p.args(set), stream_); });
    else if (method) contenders.push_back([&](int set) { return method->fn(p.args(set), stream_); });
    // GEMMul8, the published library of the same scheme, beside the Ozaki rungs (--gemmul8 N).
    const bool peer = o_.gemmul8 > 0 && plain && ozaki_rung(rung);
    if (peer) contenders.push_back([&](int set) { return peers::gemmul8_sgemm(p.args(set), stream_); });
    RoundsPlan plan;
    plan.warm.warmup = o_.warmup;
    plan.rounds = o_.rounds;
    plan.per_round = o_.repeat;
    plan.min_seconds = o_.min_time;
    const Measured m = measure(contenders, p.sets(), plan);
    set_time_counters(m.rounds, &c);
    c.cublas_ms = median(m.rounds.all(1));
    const std::vector<double> pct = m.rounds.pct_per_round(0, 1);
    const Interval ci = median_interval(pct);
    c.pct_cublas = median(pct);
    c.pct_cublas_lo = ci.lo;
    c.pct_cublas_hi = ci.hi;
    set_clock_counters(m.rounds.clock, &c);
    c.packed = packs(rung, p.args(0));
    c.remeasured = m.remeasured;
    if (o_.hot && c.ms <= kHotMaxMs) time_row_hot({contenders[0], contenders[1]}, p.sets(), row.shape, &c);
    if (o_.energy_time > 0) {
      const double flop = 2.0 * double(c.M) * double(c.N) * double(c.K) * double(c.batch);
      const Energy rung_e = measure_energy(contenders[0], p.sets(), c.ms);
      const Energy cublas_e = measure_energy(contenders[1], p.sets(), c.cublas_ms);
      if (rung_e.joules > 0 && cublas_e.joules > 0) {
        c.watts = rung_e.watts;
        c.gflop_per_joule = flop * 1e-9 / rung_e.joules;
        c.cublas_watts = cublas_e.watts;
        c.cublas_gflop_per_joule = flop * 1e-9 / cublas_e.joules;
      }
    }
    if (rung.choice) state.SetLabel(rung.choice(p.args(0)));  // what a picking rung ran
    if (rung.predicted_ns) c.predicted_ms = rung.predicted_ns(p.args(0)) * 1e-6;
    if (tf32) {
      c.pct_cublas_tf32 = median(m.rounds.pct_per_round(0, 2));
      c.cublas_tf32_rel_err = cublas_tf32_rel_err(p, key, rung.precision);
    } else if (method) {
      c.*method->pct = median(m.rounds.pct_per_round(0, 2));
      c.*method->rel_err = cublas_method_rel_err(*method, p, key, rung.precision);
    }
    if (ozaki_rung(rung)) c.ozaki_moduli = o_.moduli;
    if (peer) {
      c.pct_gemmul8 = median(m.rounds.pct_per_round(0, int(contenders.size()) - 1));
      c.gemmul8_moduli = o_.gemmul8;
      c.gemmul8_rel_err = method_rel_err(gemmul8_rel_err_, p, key, rung.precision, &peers::gemmul8_sgemm, "GEMMul8");
    }
    report_row(state, c);
  } catch (const OutOfMemory& e) {
    fail(state, row.name, e.what(), true);
  } catch (const std::exception& e) {
    fail(state, row.name, e.what(), false);
  }
}

// The row's hot figures: the rung and cuBLAS, each a graph of launches replayed once a round
// (time_hot), the clock range widened by what the replays saw. A launch that cannot be captured
// leaves the row without hot figures and says why on stderr; the cold figures stand.
void Session::time_row_hot(const std::vector<LaunchFn>& contenders, int sets, const Shape& shape, RowCounters* c) {
  HotPlan plan;
  plan.rounds = o_.rounds;
  plan.min_seconds = o_.hot_time;
  HotRounds hot;
  try {
    hot = time_hot(contenders, sets, plan, c->ms, stream_, clocks_.get());
  } catch (const OutOfMemory&) {
    throw;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_bench: %s: no hot timing: %s\n", shape.str().c_str(), e.what());
    return;
  }
  const std::vector<double> pct = hot.pct_per_round(0, 1);
  const Interval ci = median_interval(pct);
  c->pct_cublas_hot = median(pct);
  c->pct_cublas_hot_lo = ci.lo;
  c->pct_cublas_hot_hi = ci.hi;
  c->ms_hot = median(hot.ms[0]);
  c->cublas_ms_hot = median(hot.ms[1]);
  c->hot_launches = hot.launches;
  if (hot.clock.min_mhz > 0) {
    c->sm_clock_min_mhz = c->sm_clock_min_mhz > 0 ? std::min(c->sm_clock_min_mhz, hot.clock.min_mhz) : hot.clock.min_mhz;
    c->sm_clock_max_mhz = std::max(c->sm_clock_max_mhz, hot.clock.max_mhz);
  }
  if (shape.M <= kHbmRows && dev_.dram_peak_gbps() > 0 && c->ms_hot > 0) {
    // An operand with stride 0 is one matrix that every product of the batch reads.
    const double products = double(shape.batch), M = double(shape.M), N = double(shape.N), K = double(shape.K);
    const double bytes = 4.0 * ((shape.strideA == 0 ? 1 : products) * M * K + (shape.strideB == 0 ? 1 : products) * K * N +
                                products * M * N * (o_.beta != 0 ? 2 : 1) + (shape.bias ? N : 0.0));
    c->pct_hbm_hot = 100.0 * (bytes / (dev_.dram_peak_gbps() * 1e6)) / c->ms_hot;
  }
}

void Session::run_accuracy(benchmark::State& state, const RowPlan& row) {
  const Rung& rung = *row.rung;
  try {
    Problem& p = problem_for(row.shape, row.kind, row.wide_exponent, false);
    RowCounters c = counters_for(rung, row.shape);
    verify_row(row.name, rung, p, &c);
    RoundsPlan plan;  // a few launches on one input set: the accuracy sweep is not a timing
    plan.warm.warmup = 1;
    plan.rounds = 1;
    plan.per_round = 3;
    const Rounds rounds = time_interleaved({[&](int) { return run(rung.id, p.args(0), stream_); }}, 1, plan,
                                           stream_, clocks_.get());
    set_time_counters(rounds, &c);
    set_clock_counters(rounds.clock, &c);
    if (!c.fp32_accurate)
      c.cublas_tf32_rel_err =
          cublas_tf32_rel_err(p, shape_key(row.shape, row.kind, row.wide_exponent, false), rung.precision);
    else if (const CublasMethod* method = cublas_method(rung))
      c.*method->rel_err =
          cublas_method_rel_err(*method, p, shape_key(row.shape, row.kind, row.wide_exponent, false), rung.precision);
    report_row(state, c);
    state.counters["accuracy_sweep"] = 1;
    state.counters["input_normal"] = row.kind == InputKind::kNormal ? 1 : 0;
    state.counters["input_wide_exponent"] = row.kind == InputKind::kWide ? row.wide_exponent : 0;
  } catch (const OutOfMemory& e) {
    fail(state, row.name, e.what(), true);
  } catch (const Refused& e) {
    // A rung may refuse wide-exponent inputs it cannot keep FP32-accurate (issue: detect, then
    // fall back or refuse with a reason): the row records the refusal, which fails nothing.
    fail(state, row.name, e.what(), false);
    if (row.kind == InputKind::kWide) refused_.insert(row.name);
  } catch (const std::exception& e) {
    fail(state, row.name, e.what(), false);
  }
}

bool Session::rows_failed() const {
  for (const auto& [name, why] : errors_)
    if (!refused_.count(name)) return true;
  return false;
}

void Session::register_benchmarks() {
  for (const RowPlan& row : plan_rows(o_))
    register_row(row.name, [this, row](benchmark::State& st) {
      if (row.accuracy) run_accuracy(st, row);
      else run_row(st, row);
    });
}

}  // namespace sgemm::bench
