// What "verified" means (DESIGN.md): element-wise against the FP64 reference, within
//   |C - ref| <= (gamma_{K+2}(u) + e_prod) * |alpha| |A||B| + gamma_2(u) * |beta| |C0|
//                + (K |alpha| + 2) * 2^-149
//                + scaled(K) |alpha| (2 max_k|A_ik| sum_k|B_kj| + sum_k|A_ik| max_k|B_kj|)
// (the last term only for rungs that scale rows and columns to integers: Precision::scaled)
// (exact equality for small-integer inputs), non-finite values matching the reference, the
// padding columns of C (and the rows between a batch's products) untouched and no write outside
// the operand's guard regions. With a bias, its addition is one more rounding: gamma_{K+3} and
// gamma_3 above, plus gamma_2(u) |bias_j| (the addition and the one before it, in either order),
// and (K |alpha| + 3) subnormal steps. Every product of a batch is checked. The last
// term is FP32's gradual underflow: a rounding whose result is subnormal is off by up to the
// subnormal spacing 2^-149 whatever the magnitude, which the relative terms cannot cover. It
// matters only where results or partial sums fall below 2^-126 (wide-exponent inputs).
#pragma once

#include <cstdint>
#include <string>

#include "problem.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::harness {

// The exact tier applies when every FP32 operation of the product is exact whatever the order:
// small-integer inputs, alpha and beta multiples of 1/16 no larger than 16 in magnitude, and
// K <= 8192 (then |alpha*A*B + beta*C| * 16 < 2^24). Anything else is checked against the bound.
bool exact_tier(const ProblemSpec& spec);

// gamma_n(u) = n*u / (1 - n*u): the classic bound on the relative error of n roundings.
double gamma_n(double n, double u);

struct Tolerance {
  double f_ab = 0;     // multiplies |alpha| * (|A||B|)_ij
  double f_c = 0;      // multiplies |beta| * |C0_ij|
  double f_under = 0;  // multiplies K |alpha| + 2: the absolute error of one subnormal rounding
  double f_scaled = 0; // multiplies |alpha| (2 max|A_i.| |B_.j|_1 + |A_i.|_1 max|B_.j|) (Precision::scaled)
  double f_bias = 0;   // multiplies |bias_j| (a product with a bias)
};
// The subnormal spacing of FP32 (2^-149): what one rounding in the subnormal range can be off by.
constexpr double kFp32SubnormalStep = 0x1p-149;
Tolerance tolerance(const Precision& p, int64_t K, bool exact, bool bias = false);

struct VerifyResult {
  bool ok = false;
  bool exact = false;            // which tier was applied (exact_tier of the problem)
  uint64_t failures = 0;         // elements outside the bound (or non-finite mismatches)
  uint64_t padding_clobbered = 0;
  bool guards_ok = true;
  int64_t first_bad_batch = -1, first_bad_row = -1, first_bad_col = -1;
  double first_bad_value = 0, first_bad_ref = 0;
  double max_abs_err = 0;        // over finite elements
  double rel_err = 0;            // ||C - ref||_F / ||ref||_F where ref is finite: Inf if C is not there
  double worst_ratio = 0;        // max |C - ref| / tolerance (<= 1 passes)
  std::string summary() const;
};

// Compare C of set 0 (after a run), every product of its batch, with the FP64 reference, in the
// tier exact_tier() picks.
VerifyResult verify(Problem& problem, const Precision& precision);

}  // namespace sgemm::harness
