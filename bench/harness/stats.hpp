// The statistics behind every figure of a results row: the median, the quartiles, and a
// distribution-free confidence interval of the median (docs/measuring.md explains the choice).
// Plain C++ on the host, tested on the CPU.
#pragma once

#include <cstddef>
#include <vector>

namespace sgemm::harness {

// The median (the mean of the two middle values for an even count); 0 for no values.
double median(std::vector<double> v);

// The p-quantile, 0 <= p <= 1, interpolated linearly between order statistics (the "type 7"
// definition of R and NumPy's default): quantile(v, 0.25) and quantile(v, 0.75) are the quartiles.
double quantile(std::vector<double> v, double p);

// An interval [lo, hi] that holds the population median with probability `confidence`.
struct Interval {
  double lo = 0, hi = 0;
  double confidence = 0;  // 0..1, exact for independent samples of any continuous distribution
};

// The order-statistic interval of the median: [x(k), x(n+1-k)] of the sorted values with the
// largest k whose confidence, 1 - 2 P(Binomial(n, 1/2) < k), is at least `level`. With fewer than
// six values no such k exists at 95%; the interval is then [min, max] with the lower confidence
// it really has (n = 5: 93.75%, n = 3: 75%).
Interval median_interval(std::vector<double> v, double level = 0.95);
// The confidence median_interval() reaches with n values.
double median_interval_confidence(size_t n, double level = 0.95);

// The verdict of a % of cuBLAS interval: "faster" only when even its lower bound is above 100%,
// "slower" only when even its upper bound is below 100%, "level" otherwise.
const char* verdict(double pct_lo, double pct_hi);

}  // namespace sgemm::harness
