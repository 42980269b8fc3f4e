// The Ozaki scheme, shared by the INT8 rungs (tensor/25_ozaki_int8.cuh to 29) and the same method
// on cuBLAS's INT8 GEMM (bench/peers/cublas.cu). Its parts live by concern: the moduli and the
// Chinese-remainder rebuilds in common/ozaki_moduli.cuh, the pre-pass kernels (statistics, scales,
// residues) in common/ozaki_prepass.cuh, and here, on the host, how many moduli a product needs and
// the launches of the pre-pass. Rung 25's page (docs/rungs/25_ozaki_int8.md) explains the arithmetic
// with a worked example.
//
// In short: row i of A is scaled by 2^sA[i] and column j of B by 2^sB[j] (powers of two, so the
// scaling is exact) and rounded to integers of at most beta bits, |a| <= 2^beta. Their exact
// integer product sum_k a_ik b_kj is below P/2 in magnitude, P = m_0 m_1 ... m_{n-1}, so it is
// known once it is known modulo each m_l: n INT8 GEMMs of residues (|r| <= 128, exact in INT32),
// then Garner's algorithm turns the n residues back into the integer, and 2^-(sA[i]+sB[j]) into
// the FP32 result.
#pragma once

#include "common/ozaki_moduli.cuh"
#include "common/ozaki_prepass.cuh"

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "common/launch.hpp"
#include "common/ozaki_finite.hpp"

namespace sgemm::ozaki {

// How many moduli a K-deep product uses and how many bits (beta) its integers keep, from a model of
// the two errors measured on uniform inputs (rung 25's page): the scheme's norm-wise error is
// kSchemeError * 2^-beta whatever K, cuBLAS SGEMM's grows like kCublasError * 2^-24 * sqrt(K). The
// product keeps the fewest bits that hold the scheme's error below cuBLAS's with a margin of
// kErrorMargin, beta >= 24 + log2(kSchemeError * kErrorMargin / kCublasError) - log2(K) / 2, plus
// spread bits, what the inputs' range asks for beyond uniform inputs (spread_bits()), with the
// fewest moduli whose product P leaves room for the sum: 2 K 2^(2 beta) < P; where even kMaxModuli
// cannot, as many bits as they hold. beta never falls below plan(K, 0).beta.
constexpr double kSchemeError = 0.75;  // the scheme's error over 2^-beta, at any K
constexpr double kCublasError = 0.3;   // cuBLAS's over 2^-24 sqrt(K) (measured: docs/rungs/25_ozaki_int8.lab.md)
constexpr double kErrorMargin = 1.5;
struct Plan {
  int moduli = 0;
  int beta = 0;
};
// The most bits n moduli hold at depth K: the largest beta with 2 K 2^(2 beta) < P (at most 30),
// -1 where not even beta = 0 fits (2 K >= P: the sum of K products of +-1 can already wrap).
inline int max_beta(int n, int64_t K) {
  unsigned __int128 P = 1;
  for (int l = 0; l < n; ++l) P *= unsigned(modulus(l));
  const unsigned __int128 twoK = 2 * (unsigned __int128)std::max<int64_t>(K, 1);
  if (twoK >= P) return -1;
  int b = 0;
  while (b < 30 && twoK << (2 * (b + 1)) < P) ++b;
  return b;
}
// The bits uniform inputs need at depth K (the model above).
inline int needed_beta(int64_t K) {
  const double bits = 24.0 + std::log2(kSchemeError * kErrorMargin / kCublasError) -
                      0.5 * std::log2(double(std::max<int64_t>(K, 1)));
  return int(std::ceil(bits));
}
inline Plan plan(int64_t K, int spread = 0) {
  const int need = needed_beta(K) + spread;
  for (int n = 1; n <= kMaxModuli; ++n)
    if (const int b = max_beta(n, K); b >= need) return {n, b};
  return {kMaxModuli, max_beta(kMaxModuli, K)};
}
// The plan a call gets before its inputs are read: n moduli and every bit they hold where
// set_ozaki_moduli(n) forced them, else plan(K); the inputs' spread only adds bits to the latter.
inline Plan least_plan(int64_t K) {
  const int n = ozaki_moduli();
  return n > 0 ? Plan{n, max_beta(n, K)} : plan(K);
}
// The error bound of the rungs' precision model (the registry's): the scaled integers are off by at
// most 2^-beta times their row's (column's) largest magnitude, beta no less than least_plan(K)'s.
inline double scaled_error(int64_t K) { return std::ldexp(1.0, -least_plan(K).beta); }

// f(std::integral_constant<int, n>()) with n = max(moduli, Fewest): the launch of the instance for
// that many moduli, Fewest..kMaxModuli (more moduli than a plan needs keep its result exact).
template <int Fewest, class F>
Status with_moduli(int moduli, F&& f) {
  if constexpr (Fewest >= kMaxModuli) {
    return f(std::integral_constant<int, kMaxModuli>());
  } else {
    if (moduli <= Fewest) return f(std::integral_constant<int, Fewest>());
    return with_moduli<Fewest + 1>(moduli, f);
  }
}

// The pre-pass up to the scale exponents: statistics of A's rows and B's columns, then sA, sB and
// the spread (all in `ws`, a workspace of at least stats_bytes(M, N) bytes). Queued on `stream`.
inline size_t stats_bytes(int64_t M, int64_t N) {
  return size_t(M + N) * (sizeof(unsigned) + sizeof(double) + sizeof(int)) + size_t(M + N + 1) * sizeof(int);
}
// The launches over all M + N scales (finish_scales, raise_scales): a thread per scale, grid-stride.
constexpr int kScaleThreads = 256;
inline unsigned scale_blocks(int64_t n) {
  constexpr int64_t kMaxScaleBlocks = 1024;
  return unsigned(std::min<int64_t>(ceil_div64(n, kScaleThreads), kMaxScaleBlocks));
}
// The statistics of one operand's L lines (rows of op(A), columns of op(B)), each K long, read from
// X in place: its rows where they are the lines (kMajor: A 'N', B 'T'), else its columns.
inline Status line_stats(const float* X, int64_t ld, bool kMajor, int64_t L, int64_t K, Stats st,
                         cudaStream_t stream) {
  if (kMajor) {
    const dim3 grid(unsigned(ceil_div64(K, kStatChunk)),
                    unsigned(std::min<int64_t>(ceil_div64(L, kStatRows), kMaxGridY)));
    stats_rows<<<grid, kStatThreads, 0, stream>>>(L, K, X, ld, st);
  } else {
    const dim3 grid(unsigned(ceil_div64(L, kWarpSize)),
                    unsigned(std::min<int64_t>(ceil_div64(K, kStatColChunk), kMaxGridY)));
    stats_cols<<<grid, dim3(kWarpSize, kStatRows), 0, stream>>>(K, L, X, ld, st);
  }
  return launch_status();
}
struct Scales {
  int* shiftA;  // [M]
  int* shiftB;  // [N]
  int* spread;  // one int: the largest spread_bits() of a row or column (> kMaxSpread: wide)
};
// Where the statistics (all M + N lines: sum, then bits, then nonzeros) and the scales lie in `ws`.
inline Stats stats_in(void* ws, int64_t M, int64_t N) {
  const int64_t n = M + N;
  double* sum = static_cast<double*>(ws);
  unsigned* bits = reinterpret_cast<unsigned*>(sum + n);
  return {bits, sum, reinterpret_cast<int*>(bits + n)};
}
inline Scales scales_in(void* ws, int64_t M, int64_t N) {
  int* shift = stats_in(ws, M, N).nonzeros + M + N;
  return {shift, shift + M, shift + M + N};
}
inline Status scales(const GemmArgs& a, int beta, void* ws, cudaStream_t stream, Scales* out) {
  const Stats st = stats_in(ws, a.M, a.N);
  *out = scales_in(ws, a.M, a.N);
  if (cudaMemsetAsync(ws, 0, stats_bytes(a.M, a.N), stream) != cudaSuccess) return launch_status();
  const Stats sb{st.max_bits + a.M, st.sq_sum + a.M, st.nonzeros + a.M};  // B's lines after A's
  Status s = line_stats(a.A, a.lda, !a.transa, a.M, a.K, st, stream);
  if (const Status t = line_stats(a.B, a.ldb, a.transb, a.N, a.K, sb, stream); s == Status::kOk) s = t;
  const int64_t n = a.M + a.N;
  finish_scales<<<scale_blocks(n), kScaleThreads, 0, stream>>>(n, st, beta, out->shiftA, out->spread);
  return launch_status_after(s);
}

// The residues of one operand's L lines, each K long, scaled by 2^shift[line], into res [N][Lp][Kp]
// (K-major), read from X in place: along its rows where they are the lines (kMajor: A 'N', B 'T';
// 128-bit loads where X's rows are 16-byte aligned, 32-bit ones otherwise), else down its columns
// (A 'T', B 'N': single floats, any alignment). Kp is a multiple of kTransposeTile, and so is Lp
// where the columns are read (whole tiles): kUnsupported otherwise.
template <int N>
Status line_residues(const float* X, int64_t ld, bool kMajor, int64_t L, int64_t K, const int* shift, int64_t Lp,
                     int64_t Kp, signed char* res, cudaStream_t stream) {
  const dim3 block(kResThreadsX, kResThreadsY);
  if (kMajor) {
    auto kernel = rows_aligned(X, ld) ? residues_rows<N, true> : residues_rows<N, false>;
    const dim3 grid(unsigned(ceil_div64(Kp / kVecWidth, kResThreadsX)),
                    unsigned(std::min<int64_t>(ceil_div64(Lp, kResThreadsY), kMaxGridY)));
    kernel<<<grid, block, 0, stream>>>(int(L), int(K), X, int(ld), shift, Lp, Kp, res);
  } else {
    if (Lp % kTransposeTile != 0) return Status::kUnsupported;
    const dim3 grid(unsigned(Kp / kTransposeTile), unsigned(std::min<int64_t>(Lp / kTransposeTile, kMaxGridY)));
    residues_transpose<N><<<grid, block, 0, stream>>>(int(K), int(L), X, int(ld), shift, Lp, Kp, res);
  }
  return launch_status();
}

// The residues of op(A) (rows [0, Mp), K-major, into resA) and of op(B) (transposed, into resB), for
// N moduli, the same planes whatever the layouts (a.transa, a.transb), queued on `stream`: the part
// of the pre-pass after the scales. Np and Kp are multiples of kTransposeTile, and so is Mp for A 'T'.
template <int N>
Status residues(const GemmArgs& a, const Scales& sc, signed char* resA, int64_t Mp, signed char* resB, int64_t Np,
                int64_t Kp, cudaStream_t stream) {
  const Status s = line_residues<N>(a.A, a.lda, !a.transa, a.M, a.K, sc.shiftA, Mp, Kp, resA, stream);
  const Status t = line_residues<N>(a.B, a.ldb, a.transb, a.N, a.K, sc.shiftB, Np, Kp, resB, stream);
  return s != Status::kOk ? s : t;
}

// The scheme reads the inputs' spread back before it multiplies: it cannot run inside a stream capture.
inline Status refuse_capture(cudaStream_t stream, std::string* why) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture == cudaStreamCaptureStatusNone)
    return Status::kOk;
  if (why) *why = "the Ozaki scheme reads its inputs' range back before it multiplies, which a stream capture cannot";
  return Status::kUnsupported;
}

// A product whose 128 x 128 output tiles do not fill the SMs once takes every modulus and the most
// bits they hold, whatever its inputs: FP32 GEMMs split K on so few tiles (cuBLAS does), and each
// part sums a shorter run of K, so their error is smaller than that of one sum along the whole of K
// (measured: docs/rungs/25_ozaki_int8.lab.md); and the K loop of so small a grid is a small part of
// the call.
constexpr int64_t kNarrowTile = 128;
inline bool narrow(const GemmArgs& a) {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return true;  // unknown: the safe plan
  }
  return ceil_div64(a.M, kNarrowTile) * ceil_div64(a.N, kNarrowTile) < sms;
}

// The inputs' spread from the pre-pass's word (Scales::spread, spread_of); kUnsupported, with the
// reason, for a NaN or an Inf under FiniteOnly.
inline Status spread_from_word(int word, int* spread, std::string* why) {
  *spread = spread_of(word);
  if (t_finite_only && (word & kNonFiniteFlag) != 0) {
    if (why) *why = "a row of A or a column of B holds a NaN or an Inf, which the scheme would make a row or column of NaN";
    return Status::kUnsupported;
  }
  return Status::kOk;
}

// The same, read back once the work queued before it is done (the stream waits).
inline Status read_spread(const Scales& sc, cudaStream_t stream, int* spread, std::string* why) {
  int word = 0;
  if (cudaMemcpyAsync(&word, sc.spread, sizeof word, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
      cudaStreamSynchronize(stream) != cudaSuccess)
    return launch_status();
  return spread_from_word(word, spread, why);
}

// The plan for inputs whose largest spread_bits() is `spread`: plan(K, spread), or every modulus and
// the bits they hold for a narrow product; kUnsupported, with the reason, where a row or column is
// too wide for the bits kMaxModuli moduli hold.
inline Status plan_for_spread(const GemmArgs& a, int spread, Plan* chosen, std::string* why) {
  // plan() falls back to every modulus and the bits they hold where that is less than the need.
  const Plan fit = plan(a.K, std::min(spread, kMaxSpread));
  const int need = needed_beta(a.K) + std::min(spread, kMaxSpread);
  if (spread > kMaxSpread || fit.beta < need) {
    if (why)
      *why = "a row of A or a column of B has its largest magnitude too far above its root mean square (" +
             (spread > kMaxSpread ? std::string("over ") + std::to_string(int(kWideRatio)) + "x"
                                  : std::to_string(need) + " bits needed") +
             "): " + std::to_string(kMaxModuli) + " moduli hold " + std::to_string(max_beta(kMaxModuli, a.K)) +
             "-bit integers at this K (use rung 24)";
    return Status::kUnsupported;
  }
  *chosen = narrow(a) ? Plan{kMaxModuli, max_beta(kMaxModuli, a.K)} : fit;
  return Status::kOk;
}

// Every scale of sc (A's and B's, contiguous) raised by `bits`, once the plan keeps more bits than
// the scales were taken for.
inline Status raise_all_scales(const GemmArgs& a, const Scales& sc, int bits, cudaStream_t stream) {
  const int64_t n = a.M + a.N;
  raise_scales<<<scale_blocks(n), kScaleThreads, 0, stream>>>(n, bits, sc.shiftA);
  return launch_status();
}

// The plan a call starts from, before its inputs are read: under set_ozaki_moduli(n), n moduli and
// every bit they hold (*forced), or kUnsupported where the rung has no instance for n (`fewest`: its
// instances are fewest..kMaxModuli) or n cannot hold a sum of K products; otherwise plan(K).
inline Status first_plan(const GemmArgs& a, int fewest, Plan* first, bool* forced, std::string* why) {
  const int n = ozaki_moduli();
  *forced = n > 0;
  *first = least_plan(a.K);
  if (!*forced) return Status::kOk;
  if (n < fewest) {
    if (why)
      *why = std::to_string(n) + " moduli forced (set_ozaki_moduli): this rung has instances for " +
             std::to_string(fewest) + " to " + std::to_string(kMaxModuli) + " moduli only";
    return Status::kUnsupported;
  }
  if (first->beta < 0) {
    if (why)
      *why = std::to_string(n) + " moduli forced (set_ozaki_moduli) cannot hold a sum of " + std::to_string(a.K) +
             " products: their product is below 2K";
    return Status::kUnsupported;
  }
  return Status::kOk;
}

// The plan for the inputs at hand: scales() with plan(K)'s beta, the spread read back (the stream
// waits), then the plan for that spread (or a narrow product's) and the scales raised to its beta.
// kUnsupported, with the reason, when a row or column is too wide for beta-bit integers to keep
// FP32's accuracy.
//
// Under set_ozaki_moduli(n): the scales for n moduli and the bits they hold, with neither the read
// back nor a refusal, or kUnsupported where the rung has no instance for n (`fewest`: its instances
// are fewest..kMaxModuli).
inline Status checked_scales(const GemmArgs& a, void* ws, cudaStream_t stream, Scales* out, Plan* chosen,
                             std::string* why, int fewest = kMaxModuli - 1) {
  bool forced = false;
  if (const Status s = first_plan(a, fewest, chosen, &forced, why); s != Status::kOk || forced)
    return s == Status::kOk ? scales(a, chosen->beta, ws, stream, out) : s;
  const Plan first = *chosen;
  Status s = scales(a, first.beta, ws, stream, out);
  int spread = 0;
  if (s == Status::kOk) s = read_spread(*out, stream, &spread, why);
  if (s != Status::kOk) return s;
  if (s = plan_for_spread(a, spread, chosen, why); s != Status::kOk || chosen->beta == first.beta) return s;
  return raise_all_scales(a, *out, chosen->beta - first.beta, stream);
}

}  // namespace sgemm::ozaki
#endif
