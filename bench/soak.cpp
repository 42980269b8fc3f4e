#include "soak.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "harness/cuda_check.hpp"
#include "harness/problem.hpp"
#include "harness/verify.hpp"

namespace sgemm::bench {

using namespace sgemm::harness;

namespace {

constexpr int64_t kMaxDim = 2048;       // log-uniform sizes in [1, kMaxDim]
constexpr double kReportSeconds = 30.0;

int64_t log_uniform(std::mt19937_64& rng, int64_t hi) {
  std::uniform_real_distribution<double> u(0.0, std::log(double(hi) + 1.0));
  return std::max<int64_t>(1, int64_t(std::exp(u(rng))));
}

std::string reproducer(const Rung& r, const ProblemSpec& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "sgemm_bench --kernel %d --m %lld --n %lld --k %lld --lda %lld --ldb %lld --ldc %lld --alpha %.9g "
                "--beta %.9g --input %s --seed %llu --repeat 1",
                r.id, (long long)s.shape.M, (long long)s.shape.N, (long long)s.shape.K, (long long)s.shape.lda,
                (long long)s.shape.ldb, (long long)s.shape.ldc, double(s.alpha), double(s.beta),
                input_kind_name(s.kind), (unsigned long long)s.seed);
  return buf;
}

}  // namespace

int soak(const Options& o, double minutes) {
  std::mt19937_64 rng(o.seed);
  const std::pair<float, float> fixed_ab[] = {{1.f, 0.f}, {0.5f, 3.f}, {0.f, 1.f}, {-1.5f, 0.f}};
  const InputKind kinds[] = {InputKind::kSmallInt, InputKind::kUniform, InputKind::kNormal};
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  long long checked = 0, refused = 0;
  double last_report = 0;
  std::printf("soak: %.1f minutes, rungs %zu, seed %llu\n", minutes, o.kernels.size(), (unsigned long long)o.seed);
  while (elapsed() < minutes * 60.0) {
    const Rung& rung = *find_rung(o.kernels[rng() % o.kernels.size()]);
    ProblemSpec spec;
    spec.shape.M = log_uniform(rng, kMaxDim);
    spec.shape.N = log_uniform(rng, kMaxDim);
    spec.shape.K = rng() % 16 == 0 ? 0 : log_uniform(rng, kMaxDim);
    spec.shape = with_default_ld(spec.shape);
    const int64_t pad = 4 * int64_t(rng() % 3);  // sometimes ld > row, kept a multiple of 4
    spec.shape.lda += pad, spec.shape.ldb += pad, spec.shape.ldc += pad;
    if (rng() % 2) {
      std::tie(spec.alpha, spec.beta) = fixed_ab[rng() % 4];
    } else {
      std::uniform_real_distribution<float> u(-2.f, 2.f);
      spec.alpha = u(rng), spec.beta = rng() % 3 == 0 ? 0.f : u(rng);
    }
    spec.kind = kinds[rng() % 3];
    spec.seed = rng() % 1000000;
    std::string why;
    GemmArgs probe{spec.shape.M, spec.shape.N, spec.shape.K, spec.alpha, nullptr, spec.shape.lda, nullptr,
                   spec.shape.ldb, spec.beta, nullptr, spec.shape.ldc};
    if (!rung.supports(probe, &why)) {
      ++refused;
      continue;
    }
    Problem p(spec);
    p.reset_c(0);
    std::string detail;
    const Status s = run(rung.id, p.args(0), nullptr, &detail);
    if (s != Status::kOk) {
      std::printf("soak: FAILED after %lld GEMMs: %s returned %s: %s\nreproduce: %s\n", checked, rung.slug,
                  status_string(s), detail.c_str(), reproducer(rung, spec).c_str());
      return kExitVerifyFailed;
    }
    SGEMM_CUDA(cudaDeviceSynchronize());
    const VerifyResult v = verify(p, rung.precision);
    ++checked;
    if (!v.ok) {
      std::printf("soak: FAILED after %lld GEMMs: %s %s\n  %s\nreproduce: %s\n", checked, rung.slug,
                  spec.shape.str().c_str(), v.summary().c_str(), reproducer(rung, spec).c_str());
      return kExitVerifyFailed;
    }
    if (elapsed() - last_report > kReportSeconds) {
      last_report = elapsed();
      std::printf("soak: %6.0f s  %lld GEMMs verified\n", last_report, checked);
      std::fflush(stdout);
    }
  }
  std::printf("soak: PASSED: %lld GEMMs verified in %.1f minutes (%lld draws refused by supports()), seed %llu\n",
              checked, elapsed() / 60.0, refused, (unsigned long long)o.seed);
  return kExitOk;
}

}  // namespace sgemm::bench
