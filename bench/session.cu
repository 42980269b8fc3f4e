#include "session.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "harness/cuda_check.hpp"
#include "harness/report.hpp"

namespace sgemm::bench {

using namespace sgemm::harness;

namespace {

std::string row_name(const Rung& r, const Shape& s) {
  std::string n = std::string("rung") + r.slug + "/" + std::to_string(s.M) + "x" + std::to_string(s.N) +
                  "x" + std::to_string(s.K);
  const Shape d = with_default_ld({s.M, s.N, s.K, 0, 0, 0});
  if (s.lda != d.lda || s.ldb != d.ldb || s.ldc != d.ldc)
    n += "/ld" + std::to_string(s.lda) + "_" + std::to_string(s.ldb) + "_" + std::to_string(s.ldc);
  return n;
}

RowCounters counters_for(const Rung& r, const Shape& s) {
  RowCounters c;
  c.rung = r.id;
  c.M = s.M;
  c.N = s.N;
  c.K = s.K;
  c.fp32_accurate = r.precision.fp32_accurate;
  return c;
}

// Hand the timed launches to Google Benchmark (one iteration each) and fill in the timing
// counters: the median, the sample count, GFLOP/s.
void record_samples(benchmark::State& state, const std::vector<double>& samples, RowCounters* c) {
  size_t i = 0;
  for (auto _ : state) state.SetIterationTime(samples[i++ % samples.size()] * 1e-3);
  c->ms = median(samples);
  c->samples = int(samples.size());
  c->gflops = gflops(c->M, c->N, c->K, c->ms);
}

std::string shape_key(const Shape& s, InputKind kind, bool rotate) {
  return s.str() + "/" + input_kind_name(kind) + (rotate ? "/rot" : "");
}

}  // namespace

Session::Session(Options options, DeviceInfo device) : o_(std::move(options)), dev_(std::move(device)) {
  SGEMM_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  // cuBLAS is the yardstick of every row: always measured, always listed first.
  if (std::find(o_.kernels.begin(), o_.kernels.end(), 0) == o_.kernels.end())
    o_.kernels.insert(o_.kernels.begin(), 0);
}

Session::~Session() {
  problem_.reset();
  if (stream_) cudaStreamDestroy(stream_);
}

std::string Session::preflight() {
  try {
    problem_for(with_default_ld({8, 8, 8, 0, 0, 0}), InputKind::kSmallInt, false);
    for (int id : o_.kernels) {
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

Problem& Session::problem_for(const Shape& shape, InputKind kind, bool rotate) {
  const std::string key = shape_key(shape, kind, rotate);
  if (problem_ && problem_key_ == key) return *problem_;
  problem_.reset();  // free the previous shape first
  problem_key_.clear();
  ProblemSpec spec;
  spec.shape = shape;
  spec.alpha = o_.alpha;
  spec.beta = o_.beta;
  spec.kind = kind;
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
  if (s != Status::kOk) throw std::runtime_error(detail.empty() ? status_string(s) : detail);
  SGEMM_CUDA(cudaStreamSynchronize(stream_));
  return verify(p, precision);
}

VerifyResult Session::verify_rung(const Rung& rung, Problem& p) {
  return verify_launch(p, rung.precision, [&](std::string* detail) { return run(rung.id, p.args(0), stream_, detail); });
}

Session::Tf32Baseline Session::cublas_tf32_on(Problem& p, const std::string& key, const Precision& precision,
                                              int launches) {
  Tf32Baseline& b = cublas_tf32_[key];
  if (b.rel_err < 0)
    b.rel_err = verify_launch(p, precision, [&](std::string* detail) {
                  const Status s = cublas_tf32(p.args(0), stream_);
                  if (s != Status::kOk) *detail = std::string("cuBLAS TF32: ") + status_string(s);
                  return s;
                }).rel_err;
  if (launches > 0 && b.ms < 0) {
    const auto ms = time_launches([&](int set) { return cublas_tf32(p.args(set), stream_); }, p.sets(), launches,
                                  {o_.warmup}, stream_);
    b.ms = median(ms);
  }
  return b;
}

double Session::cublas_ms(const Shape& shape) {
  const std::string key = shape.str();
  auto it = cublas_ms_.find(key);
  if (it != cublas_ms_.end()) return it->second;
  // Only reached when the cuBLAS row was filtered out: measure it here on the same inputs.
  constexpr int kBaselineLaunches = 50;
  Problem& p = problem_for(shape, o_.input, true);
  const auto ms = time_launches([&](int set) { return run(0, p.args(set), stream_); }, p.sets(),
                                kBaselineLaunches, {o_.warmup}, stream_);
  return cublas_ms_[key] = median(ms);
}

void Session::run_row(benchmark::State& state, const std::string& name, const Rung& rung,
                      const Shape& shape) {
  try {
    Problem& p = problem_for(shape, o_.input, true);
    RowCounters c = counters_for(rung, shape);
    c.checked = o_.check;
    if (o_.check) {
      auto v = verified_.find(name);
      if (v == verified_.end())
        v = verified_.emplace(name, verify_rung(rung, p)).first;
      if (!v->second.ok) {
        verification_failed_ = true;
        std::fprintf(stderr, "sgemm_bench: %s: %s\n", name.c_str(), v->second.summary().c_str());
      }
      c.verified = v->second.ok;
      c.rel_err = v->second.rel_err;
      c.max_abs_err = v->second.max_abs_err;
    }
    const int count = int(std::max<benchmark::IterationCount>(state.max_iterations, 1));
    const auto samples = time_launches([&](int set) { return run(rung.id, p.args(set), stream_); },
                                       p.sets(), count, {o_.warmup}, stream_);
    c.sm_clock_mhz = current_sm_clock_mhz(dev_.device);
    record_samples(state, samples, &c);
    if (rung.id == 0) cublas_ms_[shape.str()] = c.ms;
    c.pct_cublas = c.ms > 0 ? 100.0 * cublas_ms(shape) / c.ms : 0.0;
    if (!c.fp32_accurate) {  // also against cuBLAS's TF32 GEMM, same inputs, same timing
      const Tf32Baseline b = cublas_tf32_on(p, shape_key(shape, o_.input, true), rung.precision, count);
      c.pct_cublas_tf32 = c.ms > 0 ? 100.0 * b.ms / c.ms : 0.0;
      c.cublas_tf32_rel_err = b.rel_err;
    }
    set_counters(state, c);
  } catch (const OutOfMemory& e) {
    fail(state, name, e.what(), true);
  } catch (const std::exception& e) {
    fail(state, name, e.what(), false);
  }
}

void Session::run_accuracy(benchmark::State& state, const std::string& name, const Rung& rung, int64_t K,
                           InputKind kind) {
  try {
    const Shape shape = with_default_ld({o_.accuracy_mn, o_.accuracy_mn, K, 0, 0, 0});
    Problem& p = problem_for(shape, kind, false);
    const VerifyResult v = verify_rung(rung, p);
    if (!v.ok) {
      verification_failed_ = true;
      std::fprintf(stderr, "sgemm_bench: %s: %s\n", name.c_str(), v.summary().c_str());
    }
    const auto samples = time_launches([&](int) { return run(rung.id, p.args(0), stream_); }, 1,
                                       int(std::max<benchmark::IterationCount>(state.max_iterations, 1)),
                                       {1}, stream_);
    RowCounters c = counters_for(rung, shape);
    c.verified = v.ok;
    c.rel_err = v.rel_err;
    c.max_abs_err = v.max_abs_err;
    record_samples(state, samples, &c);
    if (!c.fp32_accurate) c.cublas_tf32_rel_err = cublas_tf32_on(p, shape_key(shape, kind, false), rung.precision, 0).rel_err;
    set_counters(state, c);
    state.counters["accuracy_sweep"] = 1;
    state.counters["input_normal"] = kind == InputKind::kNormal ? 1 : 0;
  } catch (const OutOfMemory& e) {
    fail(state, name, e.what(), true);
  } catch (const std::exception& e) {
    fail(state, name, e.what(), false);
  }
}

void Session::register_benchmarks() {
  for (const Shape& shape : o_.shapes)
    for (int id : o_.kernels) {
      const Rung* rung = find_rung(id);
      const std::string name = row_name(*rung, shape);
      auto* b = benchmark::RegisterBenchmark(name.c_str(), [this, name, rung, shape](benchmark::State& st) {
        run_row(st, name, *rung, shape);
      });
      b->UseManualTime()->Unit(benchmark::kMillisecond);
      if (o_.repeat > 0) b->Iterations(o_.repeat);
      else b->MinTime(o_.min_time);
    }
  if (!o_.accuracy_sweep) return;
  for (int64_t K : o_.accuracy_ks)
    for (InputKind kind : {InputKind::kUniform, InputKind::kNormal})
      for (int id : o_.kernels) {
        const Rung* rung = find_rung(id);
        const std::string name = std::string("accuracy/") + rung->slug + "/" + input_kind_name(kind) +
                                 "/" + std::to_string(o_.accuracy_mn) + "x" + std::to_string(o_.accuracy_mn) +
                                 "x" + std::to_string(K);
        auto* b = benchmark::RegisterBenchmark(name.c_str(), [this, name, rung, K, kind](benchmark::State& st) {
          run_accuracy(st, name, *rung, K, kind);
        });
        b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
      }
}

}  // namespace sgemm::bench
