// The Ozaki scheme's numbers (the overview is in common/ozaki.cuh): the moduli, the reduction of an
// integer modulo one of them, and the two rebuilds of an integer from its residues (Garner's
// algorithm in integers, the Chinese remainder theorem in FP64). Device and host code alike
// (test_ozaki checks the rebuilds on the host). Header-only and free of host headers, like common.cuh.
#pragma once

#include "common/common.cuh"

namespace sgemm::ozaki {

constexpr int kMaxModuli = 8;
// Pairwise coprime moduli no larger than 256, so that a residue in [-128, 127] is one int8:
// 2^8, 3*5*17, 11*23, 251, 13*19, 241, 239, 233. Their product is 2^63.57 (fits 64 bits).
__host__ __device__ constexpr int modulus(int l) {
  return l == 0 ? 256 : l == 1 ? 255 : l == 2 ? 253 : l == 3 ? 251 : l == 4 ? 247 : l == 5 ? 241 : l == 6 ? 239 : 233;
}

// x mod m in the balanced range [-floor(m/2), ceil(m/2) - 1] ([-128, 127] for 256), for any int x.
__host__ __device__ constexpr int balance(int x, int m) {
  int r = x % m;  // C++: the sign of x, |r| < m
  if (r < -(m / 2)) r += m;
  if (r > (m - 1) / 2) r -= m;
  return r;
}

// x modulo a modulus known only at run time, as some residue in [-128, 127] (the balanced one or
// one off by m), for |x| <= 2^30: q = floor((x + m/2) * magic / 2^32) with magic = ceil(2^32 / m)
// is round(x / m) or one off (the magic's excess moves the quotient by less than 1/4), so
// x - q m lies within 1.5 m of 0, and one step of m brings it into [-128, 127] (m <= 256). Seven
// integer operations, the same code for every modulus.
struct RuntimeModulus {
  int m, half, magic;
  __host__ __device__ explicit RuntimeModulus(int mod)
      : m(mod), half(mod / 2), magic(int(0xFFFFFFFFu / unsigned(mod) + 1u)) {}
  __host__ __device__ int reduce(int x) const {
    const int q = int((int64_t(x + half) * magic) >> 32);  // a multiply-high
    int r = x - q * m;
    if (r > 127) r -= m;
    if (r < -128) r += m;
    return r;
  }
};

// (m_0 ... m_{j-1}) mod m_l and its inverse modulo m_l: the constants of Garner's algorithm.
__host__ __device__ constexpr int prefix_mod(int j, int l) {
  int p = 1;
  for (int i = 0; i < j; ++i) p = p * modulus(i) % modulus(l);
  return p;
}
__host__ __device__ constexpr int prefix_inverse(int l) {
  const int p = prefix_mod(l, l), m = modulus(l);
  for (int x = 1; x < m; ++x)
    if (p * x % m == 1) return x;
  return 0;  // unreachable: the moduli are coprime
}

// The same constants as compile-time values: the loops that compute them must not run per output.
template <int J, int L>
struct PrefixMod {
  static constexpr int value = prefix_mod(J, L);
};
template <int L>
struct PrefixInverse {
  static constexpr int value = prefix_inverse(L);
};

// sum_{j < L} v[j] (m_0 ... m_{j-1} mod m_L): x so far, modulo m_L up to multiples of m_L
// (|sum| < 8 * 128 * 256).
template <int L, int J = 0>
__host__ __device__ __forceinline__ int prefix_sum(const int* v) {
  if constexpr (J >= L)
    return 0;
  else
    return v[J] * PrefixMod<J, L>::value + prefix_sum<L, J + 1>(v);
}

// Garner's digits: v_L makes x = v_0 + m_0 v_1 + m_0 m_1 v_2 + ... right modulo m_L, given the
// digits before it; each digit balanced, so that x lands in [-P/2, P/2).
template <int N, int L = 0>
__host__ __device__ __forceinline__ void garner_digits(const int (&r)[N], int (&v)[N]) {
  if constexpr (L < N) {
    constexpr int m = modulus(L);
    const int t = balance(r[L] - prefix_sum<L>(v), m);
    v[L] = balance(t * PrefixInverse<L>::value, m);
    garner_digits<N, L + 1>(r, v);
  }
}

// The integer whose residues modulo m_0..m_{N-1} are r[0..N-1] (any ints: reduced here), in
// [-P/2, P/2), as a double (exact to 53 bits): Garner's digits in balanced mixed radix,
// x = v_0 + m_0 (v_1 + m_1 (v_2 + ...)), summed from the top.
template <int N>
__host__ __device__ __forceinline__ double reconstruct(const int (&r)[N]) {
  int v[N];
  garner_digits<N>(r, v);
  double x = v[N - 1];
#pragma unroll
  for (int l = N - 2; l >= 0; --l) x = fma(x, double(modulus(l)), double(v[l]));
  return x;
}

// The same integer by the Chinese remainder theorem in floating point, without Garner's integer
// steps: x = sum_l r_l W_l - q P, where W_l = (P / m_l) * ((P / m_l)^-1 mod m_l) is 1 modulo m_l
// and 0 modulo the others, and q = round(sum / P). Each W_l (< P < 2^64) is split into a high
// part, a multiple of 2^kCrtSplit, and a low part below it, so that every product r_l * W_l
// (|r_l| <= 128) and every partial sum is exact in FP64: the high sums stay below
// 8 * 128 * 2^64 = 2^74 in multiples of 2^22 (53 bits), the low ones below 2^32. q * P is split
// the same way (|q| <= 2^10). q comes from the high sum alone, so it can be one off where x lies
// within 2^-23 P of +-P/2; an exact comparison then moves x back into [-P/2, P/2). One rounding
// remains, in the last addition: the result is the integer correctly rounded to FP64.
constexpr int kCrtSplit = 22;
template <int N>
struct Crt {
  __host__ __device__ static constexpr unsigned long long product() {
    unsigned long long p = 1;
    for (int l = 0; l < N; ++l) p *= unsigned(modulus(l));
    return p;
  }
  static constexpr unsigned long long kP = product();
  __host__ __device__ static constexpr unsigned long long weight(int l) {  // (P / m_l) * inverse, below P: no overflow
    const unsigned long long rest = kP / unsigned(modulus(l));
    const unsigned m = unsigned(modulus(l)), r = unsigned(rest % m);
    unsigned inv = 1;
    while (r * inv % m != 1) ++inv;
    return rest * inv;
  }
  static constexpr unsigned long long kLowMask = (1ull << kCrtSplit) - 1;
  __host__ __device__ static constexpr double high(unsigned long long v) { return double(v & ~kLowMask); }
  __host__ __device__ static constexpr double low(unsigned long long v) { return double(v & kLowMask); }
};

// sum_l r_l W_l as a high and a low FP64 sum, each exact (the constants fold at compile time).
template <int N, int L = 0>
__host__ __device__ __forceinline__ void crt_sums(const int (&r)[N], double& hi, double& lo) {
  if constexpr (L < N) {
    constexpr unsigned long long w = Crt<N>::weight(L);
    constexpr double wHigh = Crt<N>::high(w), wLow = Crt<N>::low(w);
    hi = fma(double(r[L]), wHigh, hi);
    lo = fma(double(r[L]), wLow, lo);
    crt_sums<N, L + 1>(r, hi, lo);
  }
}

template <int N>
__host__ __device__ __forceinline__ double reconstruct_crt(const int (&r)[N]) {
  double hi = 0.0, lo = 0.0;
  crt_sums<N>(r, hi, lo);
  using C = Crt<N>;
  constexpr double kInvP = 1.0 / double(C::kP);
  constexpr double kPHigh = C::high(C::kP), kPLow = C::low(C::kP);
  constexpr double kHalfHigh = C::high(C::kP / 2), kHalfLow = C::low(C::kP / 2);  // P is even (256)
  const double q = rint(hi * kInvP);  // the low sum moves sum / P by less than 2^-23: q is off by one at most
  double xHigh = fma(-q, kPHigh, hi), xLow = fma(-q, kPLow, lo);  // exact: x = xHigh + xLow
  // The sign of a sum of two exact terms survives its rounding: these compare x itself with +-P/2.
  if ((xHigh - kHalfHigh) + (xLow - kHalfLow) >= 0.0) xHigh -= kPHigh, xLow -= kPLow;
  else if ((xHigh + kHalfHigh) + (xLow + kHalfLow) < 0.0) xHigh += kPHigh, xLow += kPLow;
  return xHigh + xLow;  // the one rounding
}

// The scale of a row of A or a column of B that holds a NaN or an Inf: its outputs are NaN.
constexpr int kNonFinite = -0x40000000;

// The value of one output: the reconstructed integer times 2^-(sa + sb), NaN for a non-finite row
// or column.
__device__ __forceinline__ float unscale(double x, int sa, int sb) {
  if (sa == kNonFinite || sb == kNonFinite) return __int_as_float(0x7fc00000);
  return float(scalbn(x, -(sa + sb)));
}

}  // namespace sgemm::ozaki
