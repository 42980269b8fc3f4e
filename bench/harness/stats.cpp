#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace sgemm::harness {

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

double quantile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double h = (double(v.size()) - 1.0) * std::clamp(p, 0.0, 1.0);
  const size_t below = size_t(std::floor(h));
  if (below + 1 >= v.size()) return v.back();
  return v[below] + (h - double(below)) * (v[below + 1] - v[below]);
}

namespace {

// P(Binomial(n, 1/2) < k): the chance that fewer than k of n samples fall below the median.
double binomial_half_below(size_t n, size_t k) {
  double sum = 0;
  for (size_t i = 0; i < k; ++i)
    sum += std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                    double(n) * std::log(2.0));
  return sum;
}

// The 1-based rank k of median_interval()'s lower bound for n values (the upper is n + 1 - k).
size_t interval_rank(size_t n, double level) {
  size_t k = 1;
  while (k + 1 <= (n + 1) / 2 && 1.0 - 2.0 * binomial_half_below(n, k + 1) >= level) ++k;
  return k;
}

}  // namespace

Interval median_interval(std::vector<double> v, double level) {
  Interval out;
  if (v.empty()) return out;
  std::sort(v.begin(), v.end());
  const size_t k = interval_rank(v.size(), level);
  out.lo = v[k - 1];
  out.hi = v[v.size() - k];
  out.confidence = median_interval_confidence(v.size(), level);
  return out;
}

double median_interval_confidence(size_t n, double level) {
  return n == 0 ? 0.0 : std::max(0.0, 1.0 - 2.0 * binomial_half_below(n, interval_rank(n, level)));
}

const char* verdict(double pct_lo, double pct_hi) {
  if (pct_lo > 100.0) return "faster";
  if (pct_hi < 100.0) return "slower";
  return "level";
}

}  // namespace sgemm::harness
