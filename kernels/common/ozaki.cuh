// The Ozaki scheme's number machinery, shared by the INT8 rung (tensor/25_ozaki_int8.cuh) and the
// same method on cuBLAS's INT8 GEMM (baseline/00_cublas.cuh): the moduli, how many of them a
// product needs, the pre-pass that turns A and B into INT8 residues, and the Chinese-remainder
// reconstruction. The rung's page (docs/rungs/25_ozaki_int8.md) explains the arithmetic with a
// worked example. Header-only and free of host headers, like common.cuh.
//
// In short: row i of A is scaled by 2^sA[i] and column j of B by 2^sB[j] (powers of two, so the
// scaling is exact) and rounded to integers of at most beta bits, |a| <= 2^beta. Their exact
// integer product sum_k a_ik b_kj is below P/2 in magnitude, P = m_0 m_1 ... m_{n-1}, so it is
// known once it is known modulo each m_l: n INT8 GEMMs of residues (|r| <= 128, exact in INT32),
// then Garner's algorithm turns the n residues back into the integer, and 2^-(sA[i]+sB[j]) into
// the FP32 result.
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

// ---- the pre-pass -----------------------------------------------------------------------------

// Per row of A and per column of B: the largest |x| (as FP32 bits: non-negative floats order like
// their bits, NaN above Inf), the sum of |x| and the count of non-zeros. Zeroed before the pass.
struct Stats {
  unsigned* max_bits;
  double* abs_sum;
  int* nonzeros;
};

// The kernels that are not templates are static: each translation unit that includes this header
// (rung 25's and cuBLAS's) gets its own copy instead of a duplicate symbol at link time.
constexpr int kStatThreads = 256;
constexpr int kStatRows = kStatThreads / kWarpSize;  // A: one warp per row
constexpr int kStatChunk = 1024;                      // elements of K per block (A) ...
constexpr int kStatColChunk = 256;                    // ... and rows of B per block

__device__ __forceinline__ void stats_add(Stats s, int64_t i, unsigned bits, double sum, int nnz) {
  if (nnz == 0 && bits == 0) return;
  atomicMax(s.max_bits + i, bits);
  atomicAdd(s.abs_sum + i, sum);
  atomicAdd(s.nonzeros + i, nnz);
}

// Rows of A: warp w of block (x, y) reads row 8y + w, elements [1024x, 1024x + 1024) of K.
static __global__ void __launch_bounds__(kStatThreads) stats_rows(int64_t M, int64_t K, const float* __restrict__ A,
                                                           int64_t lda, Stats out) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t k0 = int64_t(blockIdx.x) * kStatChunk, kEnd = min(K, k0 + kStatChunk);
  for (int64_t row = int64_t(blockIdx.y) * kStatRows + threadIdx.x / kWarpSize; row < M;
       row += int64_t(gridDim.y) * kStatRows) {
    unsigned bits = 0;
    double sum = 0;
    int nnz = 0;
    for (int64_t k = k0 + lane; k < kEnd; k += kWarpSize) {
      const float x = fabsf(A[row * lda + k]);
      bits = max(bits, __float_as_uint(x));
      sum += x;
      nnz += x != 0.0f;
    }
    for (int o = kWarpSize / 2; o > 0; o >>= 1) {
      bits = max(bits, __shfl_xor_sync(0xffffffffu, bits, o));
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
      nnz += __shfl_xor_sync(0xffffffffu, nnz, o);
    }
    if (lane == 0) stats_add(out, row, bits, sum, nnz);
  }
}

// Columns of B: thread (x, y) of block (bx, by) reads column 32bx + x, rows 256by + y, + 8, ...
// (chunks of 256 rows, the grid's y looping over them)
static __global__ void __launch_bounds__(kStatThreads) stats_cols(int64_t K, int64_t N, const float* __restrict__ B,
                                                           int64_t ldb, Stats out) {
  __shared__ unsigned sBits[kStatRows][kWarpSize];
  __shared__ double sSum[kStatRows][kWarpSize];
  __shared__ int sNnz[kStatRows][kWarpSize];
  const int64_t col = int64_t(blockIdx.x) * kWarpSize + threadIdx.x;
  unsigned bits = 0;
  double sum = 0;
  int nnz = 0;
  for (int64_t k0 = int64_t(blockIdx.y) * kStatColChunk; col < N && k0 < K; k0 += int64_t(gridDim.y) * kStatColChunk) {
    const int64_t kEnd = min(K, k0 + kStatColChunk);
    for (int64_t k = k0 + threadIdx.y; k < kEnd; k += kStatRows) {
      const float x = fabsf(B[k * ldb + col]);
      bits = max(bits, __float_as_uint(x));
      sum += x;
      nnz += x != 0.0f;
    }
  }
  sBits[threadIdx.y][threadIdx.x] = bits;
  sSum[threadIdx.y][threadIdx.x] = sum;
  sNnz[threadIdx.y][threadIdx.x] = nnz;
  __syncthreads();
  if (threadIdx.y != 0 || col >= N) return;
  for (int y = 1; y < kStatRows; ++y) {
    bits = max(bits, sBits[y][threadIdx.x]);
    sum += sSum[y][threadIdx.x];
    nnz += sNnz[y][threadIdx.x];
  }
  stats_add(out, col, bits, sum, nnz);
}

// How many more bits than uniform inputs need a row's (column's) integers keep: the rounding
// error of an entry is up to 2^-beta times its row's largest magnitude, and the result grows with
// the row's typical magnitude, so the error relative to the result follows the ratio of the largest
// magnitude to the mean of the non-zeros. The plan's beta is set for uniform inputs, whose ratio
// is 2 (a little more in rows whose mean falls short by chance: kBaseRatio); normal inputs have
// about 5. Each doubling of the ratio past kBaseRatio asks for one more bit, up to kMaxSpread. A
// ratio above kWideRatio makes the row "wide": the rung refuses the inputs.
constexpr int kMaxSpread = 3;
constexpr double kBaseRatio = 2.25;
constexpr double kWideRatio = 16.0;
static_assert(kBaseRatio * (1 << kMaxSpread) >= kWideRatio, "every ratio below kWideRatio gets its bits");
__device__ __forceinline__ int spread_bits(double max_times_nnz, double abs_sum) {
  if (max_times_nnz > kWideRatio * abs_sum) return kMaxSpread + 1;  // wide
  int e = 0;
  while (e < kMaxSpread && max_times_nnz > kBaseRatio * double(1 << e) * abs_sum) ++e;
  return e;
}

// Scale exponents from the statistics: s = beta - e where max|x| = f 2^e, f in [0.5, 1), so that
// |x| 2^s < 2^beta; kNonFinite for a row with a NaN or an Inf. *spread becomes the largest
// spread_bits() of any row or column.
static __global__ void finish_scales(int64_t count, Stats st, int beta, int* __restrict__ shift, int* __restrict__ spread) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    const float mx = __uint_as_float(st.max_bits[i]);
    int s = 0;
    if (!(mx <= 3.402823466e38f)) {
      s = kNonFinite;
    } else if (mx > 0.0f) {
      int e;
      frexpf(mx, &e);
      s = beta - e;
      if (const int b = spread_bits(double(st.nonzeros[i]) * double(mx), st.abs_sum[i]); b > 0) atomicMax(spread, b);
    }
    shift[i] = s;
  }
}

// The scale exponents raised by `bits` once the plan keeps more bits than the first guess.
static __global__ void raise_scales(int64_t count, int bits, int* __restrict__ shift) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    if (shift[i] != kNonFinite) shift[i] += bits;
}

// x scaled by 2^s and rounded to the nearest integer (|result| <= 2^beta); 0 in a non-finite row.
__device__ __forceinline__ int to_int(float x, int s) {
  return s == kNonFinite ? 0 : __double2int_rn(scalbn(double(x), s));
}

constexpr int kResThreadsX = kWarpSize, kResThreadsY = 8;
constexpr int kTransposeTile = kWarpSize;
constexpr int kMaxGridY = 65535;

// A (M x K, lda) -> res[l] (Mp x Kp int8 each, K-major), zero outside M x K. Thread: four
// consecutive k of a row, one 32-bit store of four residues per modulus.
template <int N, bool kVec>
__global__ void __launch_bounds__(kResThreadsX* kResThreadsY)
residues_a(int M, int K, const float* __restrict__ A, int lda, const int* __restrict__ shift, int64_t Mp, int64_t Kp,
           signed char* __restrict__ res) {
  const int64_t vec = int64_t(blockIdx.x) * kResThreadsX + threadIdx.x;
  if (vec >= Kp / kVecWidth) return;
  const int col = int(vec * kVecWidth);
  for (int64_t row = int64_t(blockIdx.y) * kResThreadsY + threadIdx.y; row < Mp;
       row += int64_t(gridDim.y) * kResThreadsY) {
    const float4 x = load4_or_zero<kVec>(A + row * lda, col, K, row < M);
    const int s = row < M ? shift[row] : 0;
    const float v[kVecWidth] = {x.x, x.y, x.z, x.w};
    unsigned out[N] = {};  // per modulus: the four elements' residues, one byte each
#pragma unroll
    for (int e = 0; e < kVecWidth; ++e) {
      const int q = to_int(v[e], s);
#pragma unroll
      for (int l = 0; l < N; ++l) out[l] |= unsigned(balance(q, modulus(l)) & 0xff) << (8 * e);
    }
#pragma unroll
    for (int l = 0; l < N; ++l) *reinterpret_cast<unsigned*>(res + (l * Mp + row) * Kp + col) = out[l];
  }
}

// B (K x N, ldb) -> res[l] (Np x Kp int8 each, B transposed: K-major), zero outside. One 32 x 32
// tile per block and step, transposed through shared memory like rung 24's split.
template <int N>
__global__ void __launch_bounds__(kResThreadsX* kResThreadsY)
residues_b(int K, int Ncols, const float* __restrict__ B, int ldb, const int* __restrict__ shift, int64_t Np,
           int64_t Kp, signed char* __restrict__ res) {
  __shared__ float sTile[kTransposeTile][kTransposeTile + 1];  // [k][n]
  const int64_t k0 = int64_t(blockIdx.x) * kTransposeTile;
  for (int64_t n0 = int64_t(blockIdx.y) * kTransposeTile; n0 < Np; n0 += int64_t(gridDim.y) * kTransposeTile) {
#pragma unroll
    for (int i = 0; i < kTransposeTile / kResThreadsY; ++i) {
      const int r = threadIdx.y + i * kResThreadsY;
      const int64_t k = k0 + r, n = n0 + threadIdx.x;
      sTile[r][threadIdx.x] = (k < K && n < Ncols) ? B[k * ldb + n] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTransposeTile / kResThreadsY; ++i) {
      const int r = threadIdx.y + i * kResThreadsY;
      const int64_t n = n0 + r, k = k0 + threadIdx.x;
      const int q = to_int(sTile[threadIdx.x][r], n < Ncols ? shift[n] : 0);
#pragma unroll
      for (int l = 0; l < N; ++l) res[(l * Np + n) * Kp + k] = static_cast<signed char>(balance(q, modulus(l)));
    }
    __syncthreads();
  }
}

}  // namespace sgemm::ozaki

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <string>

#include "common/launch.hpp"

namespace sgemm::ozaki {

// How many moduli a K-deep product uses and how many bits (beta) its integers keep.
// The error of the scheme is about 2 * 2^-beta relative to the result on uniform inputs, whatever
// K; cuBLAS SGEMM's grows like 0.3 * 2^-24 * sqrt(K) (measured: rung 25's page). The product
// keeps beta >= 27 - floor(log2(K) / 2) + spread bits, enough to stay below cuBLAS's error, where
// spread is what the inputs' range asks for beyond uniform inputs (spread_bits()), with the fewest
// moduli whose product P leaves room for the sum: 2 K 2^(2 beta) < P; where even kMaxModuli
// cannot, as many bits as they hold. beta never falls below plan(K, 0).beta.
struct Plan {
  int moduli = 0;
  int beta = 0;
};
inline int ceil_log2(int64_t k) {
  int l = 0;
  while (l < 62 && (int64_t(1) << l) < k) ++l;
  return l;
}
inline int max_beta(int n, int64_t K) {
  unsigned __int128 P = 1;
  for (int l = 0; l < n; ++l) P *= unsigned(modulus(l));
  int b = 0;
  while (b < 30 && (unsigned __int128)(2 * std::max<int64_t>(K, 1)) << (2 * (b + 1)) < P) ++b;
  return b;
}
inline Plan plan(int64_t K, int spread = 0) {
  const int need = 27 - ceil_log2(std::max<int64_t>(K, 1)) / 2 + spread;
  for (int n = 1; n <= kMaxModuli; ++n)
    if (const int b = max_beta(n, K); b >= need) return {n, b};
  return {kMaxModuli, max_beta(kMaxModuli, K)};
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
struct Scales {
  int* shiftA;  // [M]
  int* shiftB;  // [N]
  int* spread;  // one int: the largest spread_bits() of a row or column (> kMaxSpread: wide)
};
inline Status scales(const GemmArgs& a, int beta, void* ws, cudaStream_t stream, Scales* out) {
  const int64_t n = a.M + a.N;
  double* sum = static_cast<double*>(ws);
  unsigned* bits = reinterpret_cast<unsigned*>(sum + n);
  int* nnz = reinterpret_cast<int*>(bits + n);
  int* shift = nnz + n;
  *out = {shift, shift + a.M, shift + n};
  if (cudaMemsetAsync(ws, 0, stats_bytes(a.M, a.N), stream) != cudaSuccess) return launch_status();
  const Stats sa{bits, sum, nnz}, sb{bits + a.M, sum + a.M, nnz + a.M};
  const dim3 gridA(unsigned(ceil_div64(a.K, kStatChunk)), unsigned(std::min<int64_t>(ceil_div64(a.M, kStatRows), kMaxGridY)));
  stats_rows<<<gridA, kStatThreads, 0, stream>>>(a.M, a.K, a.A, a.lda, sa);
  Status s = launch_status();
  const dim3 gridB(unsigned(ceil_div64(a.N, kWarpSize)), unsigned(std::min<int64_t>(ceil_div64(a.K, kStatColChunk), kMaxGridY)));
  stats_cols<<<gridB, dim3(kWarpSize, kStatRows), 0, stream>>>(a.K, a.N, a.B, a.ldb, sb);
  s = launch_status_after(s);
  finish_scales<<<scale_blocks(n), kScaleThreads, 0, stream>>>(
      n, Stats{bits, sum, nnz}, beta, shift, out->spread);
  return launch_status_after(s);
}

// The residues of A (rows [0, Mp), K-major, into resA) and of B (transposed, into resB), for N
// moduli, queued on `stream`: the part of the pre-pass after the scales. Np and Kp are multiples of
// kTransposeTile.
template <int N>
Status residues(const GemmArgs& a, const Scales& sc, signed char* resA, int64_t Mp, signed char* resB, int64_t Np,
                int64_t Kp, cudaStream_t stream) {
  const dim3 block(kResThreadsX, kResThreadsY);
  const dim3 gridA(unsigned(ceil_div64(Kp / kVecWidth, kResThreadsX)),
                   unsigned(std::min<int64_t>(ceil_div64(Mp, kResThreadsY), kMaxGridY)));
  if (vec4_ok(a, nullptr))
    residues_a<N, true><<<gridA, block, 0, stream>>>(int(a.M), int(a.K), a.A, int(a.lda), sc.shiftA, Mp, Kp, resA);
  else
    residues_a<N, false><<<gridA, block, 0, stream>>>(int(a.M), int(a.K), a.A, int(a.lda), sc.shiftA, Mp, Kp, resA);
  const Status s = launch_status();
  const dim3 gridB(unsigned(Kp / kTransposeTile), unsigned(std::min<int64_t>(Np / kTransposeTile, kMaxGridY)));
  residues_b<N><<<gridB, block, 0, stream>>>(int(a.K), int(a.N), a.B, int(a.ldb), sc.shiftB, Np, Kp, resB);
  return launch_status_after(s);
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
// bits they hold, whatever its inputs: FP32 GEMMs split K on so few tiles (cuBLAS does: on uniform
// inputs its error was 2.97e-7 at 256 x 256 x 4096 and 3.19e-7 at 128 x 128 x 16384, against
// 1.15e-6 at 4096^3; H200, commit 1b8d04f), and the K loop of so small a grid is a small part of
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

// The plan for the inputs at hand: scales() with plan(K)'s beta, the spread read back (the stream
// waits), then the plan for that spread (or a narrow product's) and the scales raised to its beta.
// kUnsupported, with the reason, when a row or column is too wide for beta-bit integers to keep
// FP32's accuracy.
inline Status checked_scales(const GemmArgs& a, void* ws, cudaStream_t stream, Scales* out, Plan* chosen,
                             std::string* why) {
  const Plan first = plan(a.K);
  *chosen = first;
  Status s = scales(a, first.beta, ws, stream, out);
  int spread = 0;
  if (s == Status::kOk && (cudaMemcpyAsync(&spread, out->spread, sizeof spread, cudaMemcpyDeviceToHost, stream) !=
                               cudaSuccess ||
                           cudaStreamSynchronize(stream) != cudaSuccess))
    s = launch_status();
  if (s != Status::kOk) return s;
  if (spread > kMaxSpread) {
    if (why)
      *why = "a row of A or a column of B has its largest magnitude above 16x its mean: beta-bit integers would "
             "lose the small entries' accuracy (use rung 24)";
    return Status::kUnsupported;
  }
  static_assert(kWideRatio == 16.0, "the refusal above says 16x");
  *chosen = narrow(a) ? Plan{kMaxModuli, max_beta(kMaxModuli, a.K)} : plan(a.K, spread);
  if (chosen->beta == first.beta) return Status::kOk;
  const int64_t n = a.M + a.N;
  raise_scales<<<scale_blocks(n), kScaleThreads, 0, stream>>>(
      n, chosen->beta - first.beta, out->shiftA);
  return launch_status();
}

}  // namespace sgemm::ozaki
#endif
