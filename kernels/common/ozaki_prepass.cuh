// The Ozaki scheme's pre-pass on the device (the overview is in common/ozaki.cuh): the statistics
// of op(A)'s rows and op(B)'s columns, the scale exponents taken from them, and the kernels that turn
// op(A) and op(B) into INT8 residues, one matrix per modulus. Each reads a stored matrix either along
// its rows or down its columns, so that A and B are read in place in either layout (A 'N' and B 'T'
// hold their lines, the rows of op(A) and the columns of op(B), as rows; A 'T' and B 'N' as
// columns). Launched by common/ozaki.cuh's host functions. Header-only and free of host headers,
// like common.cuh.
#pragma once

#include "common/common.cuh"
#include "common/ozaki_moduli.cuh"
#include "common/transpose_tile.cuh"

namespace sgemm::ozaki {

// Per row of op(A) and per column of op(B): the largest |x| (as FP32 bits: non-negative floats
// order like their bits, NaN above Inf), the sum of x^2 and the count of non-zeros. Zeroed before
// the pass.
struct Stats {
  unsigned* max_bits;
  double* sq_sum;
  int* nonzeros;
};

// The kernels that are not templates are static: each translation unit that includes this header
// (rung 25's and cuBLAS's) gets its own copy instead of a duplicate symbol at link time.
constexpr int kStatThreads = 256;
constexpr int kStatRows = kStatThreads / kWarpSize;  // stats_rows: one warp per row
constexpr int kStatChunk = 1024;                      // elements of a row per block (stats_rows) ...
constexpr int kStatColChunk = 256;                    // ... and rows per block (stats_cols)

// One thread's part of a line's statistics, merged over lanes (merge_lanes) and then blocks (stats_add).
struct LineStats {
  unsigned bits = 0;
  double sum = 0;
  int nnz = 0;
  __device__ __forceinline__ void add(float v) {
    const float x = fabsf(v);
    bits = max(bits, __float_as_uint(x));
    sum += double(x) * double(x);
    nnz += x != 0.0f;
  }
  __device__ __forceinline__ void add(float4 v) {
    add(v.x);
    add(v.y);
    add(v.z);
    add(v.w);
  }
  // Merged with the lanes `lanes`, 2 lanes, ... kWarpSize / 2 lanes away: over the whole warp for 1,
  // over the lanes that share lane % 8 for 8.
  __device__ __forceinline__ void merge_lanes(int lanes) {
    for (int o = kWarpSize / 2; o >= lanes; o >>= 1) {
      bits = max(bits, __shfl_xor_sync(0xffffffffu, bits, o));
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
      nnz += __shfl_xor_sync(0xffffffffu, nnz, o);
    }
  }
};

__device__ __forceinline__ void stats_add(Stats s, int64_t i, unsigned bits, double sum, int nnz) {
  if (nnz == 0 && bits == 0) return;
  atomicMax(s.max_bits + i, bits);
  atomicAdd(s.sq_sum + i, sum);
  atomicAdd(s.nonzeros + i, nnz);
}

// The rows of X (M x K, ld: A 'N', or B 'T' with M = N): warp w of block (x, y) reads row 8y + w,
// elements [1024x, 1024x + 1024) of K.
static __global__ void __launch_bounds__(kStatThreads) stats_rows(int64_t M, int64_t K, const float* __restrict__ X,
                                                           int64_t ld, Stats out) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t k0 = int64_t(blockIdx.x) * kStatChunk, kEnd = min(K, k0 + kStatChunk);
  for (int64_t row = int64_t(blockIdx.y) * kStatRows + threadIdx.x / kWarpSize; row < M;
       row += int64_t(gridDim.y) * kStatRows) {
    LineStats st;
    for (int64_t k = k0 + lane; k < kEnd; k += kWarpSize) st.add(X[row * ld + k]);
    st.merge_lanes(1);
    if (lane == 0) stats_add(out, row, st.bits, st.sum, st.nnz);
  }
}

// The columns of X (K x N, ld: B 'N', or A 'T' with N = M): thread (x, y) of block (bx, by) reads
// column 32bx + x, rows 256by + y, + 8, ... (chunks of 256 rows, the grid's y looping over them)
static __global__ void __launch_bounds__(kStatThreads) stats_cols(int64_t K, int64_t N, const float* __restrict__ X,
                                                           int64_t ld, Stats out) {
  __shared__ unsigned sBits[kStatRows][kWarpSize];
  __shared__ double sSum[kStatRows][kWarpSize];
  __shared__ int sNnz[kStatRows][kWarpSize];
  const int64_t col = int64_t(blockIdx.x) * kWarpSize + threadIdx.x;
  LineStats st;
  for (int64_t k0 = int64_t(blockIdx.y) * kStatColChunk; col < N && k0 < K; k0 += int64_t(gridDim.y) * kStatColChunk) {
    const int64_t kEnd = min(K, k0 + kStatColChunk);
    for (int64_t k = k0 + threadIdx.y; k < kEnd; k += kStatRows) st.add(X[k * ld + col]);
  }
  sBits[threadIdx.y][threadIdx.x] = st.bits;
  sSum[threadIdx.y][threadIdx.x] = st.sum;
  sNnz[threadIdx.y][threadIdx.x] = st.nnz;
  __syncthreads();
  if (threadIdx.y != 0 || col >= N) return;
  for (int y = 1; y < kStatRows; ++y) {
    st.bits = max(st.bits, sBits[y][threadIdx.x]);
    st.sum += sSum[y][threadIdx.x];
    st.nnz += sNnz[y][threadIdx.x];
  }
  stats_add(out, col, st.bits, st.sum, st.nnz);
}

// How many more bits than uniform inputs need a row's (column's) integers keep: the rounding
// error of an entry is up to 2^-beta times its row's largest magnitude, and the errors of a sum's K
// terms add up like independent ones, while the result grows with the row's root mean square, so
// the error relative to the result follows the ratio of the largest magnitude to the RMS of the
// non-zeros. The plan's beta is set for uniform inputs, whose ratio is sqrt(3) = 1.73 (up to 1.76 in
// rows of 8192; kBaseRatio sits a little above); u 2^e with e in [-E, E] has 4.5 at E = 4 and 9.6 at E = 20
// (the mean, the statistic before, put them at 9 and 41, one and two bits more than the errors
// measured in the moduli sweep say they need), normal inputs about 4, which keeps them at the two
// bits the mean gave: cuBLAS SGEMM's own error is about half as large on them as on uniform ones
// (measured: docs/rungs/25_ozaki_int8.lab.md), so they need a bit more than their ratio. Each doubling of the ratio
// past kBaseRatio asks for one more bit, up to kMaxSpread; the plan takes as many moduli as those
// bits need (ozaki::plan), and the rung refuses the inputs only where eight moduli cannot hold them.
// A ratio above kWideRatio is "wide" at once. Compared squared: max^2 nnz against ratio^2 sum x^2.
constexpr int kMaxSpread = 8;
constexpr double kBaseRatio = 1.85;
constexpr double kWideRatio = kBaseRatio * (1 << kMaxSpread);  // 473.6
__host__ __device__ __forceinline__ int spread_bits(double max_abs, int nonzeros, double sq_sum) {
  const double peak = max_abs * max_abs * double(nonzeros);  // (max / rms)^2 sum x^2
  if (peak > kWideRatio * kWideRatio * sq_sum) return kMaxSpread + 1;  // wide
  int e = 0;
  while (e < kMaxSpread && peak > kBaseRatio * kBaseRatio * double(1 << (2 * e)) * sq_sum) ++e;
  return e;
}

// The inputs' spread as the pre-pass gathers it, one word for every line: bit b set where some
// line's spread_bits() is b (the largest set bit below 16 is the spread), and kNonFiniteFlag where
// some line holds a NaN or an Inf. Bits are or-ed, so neither fact hides the other.
constexpr int kNonFiniteFlag = 1 << 16;
__host__ __device__ __forceinline__ int spread_of(int word) {
  for (int b = kMaxSpread + 1; b > 0; --b)
    if (word & (1 << b)) return b;
  return 0;
}

// One line's scale exponent from its statistics: s = beta - e where max|x| = f 2^e, f in [0.5, 1),
// so that |x| 2^s < 2^beta; kNonFinite for a line with a NaN or an Inf. The line's spread_bits()
// and whether it is finite go into *spread (spread nullptr: not).
__device__ __forceinline__ int scale_of(unsigned max_bits, double sq_sum, int nonzeros, int beta, int* spread) {
  const float mx = __uint_as_float(max_bits);
  if (!(mx <= 3.402823466e38f)) {
    if (spread != nullptr) atomicOr(spread, kNonFiniteFlag);
    return kNonFinite;
  }
  if (!(mx > 0.0f)) return 0;
  int e;
  frexpf(mx, &e);
  if (spread != nullptr)
    if (const int b = spread_bits(double(mx), nonzeros, sq_sum); b > 0) atomicOr(spread, 1 << b);
  return beta - e;
}
// The scale exponents of every line; *spread gathers every row's and column's spread_bits() (spread_of).
static __global__ void finish_scales(int64_t count, Stats st, int beta, int* __restrict__ shift, int* __restrict__ spread) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    shift[i] = scale_of(st.max_bits[i], st.sq_sum[i], st.nonzeros[i], beta, spread);
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

// Four consecutive elements of a line scaled by 2^s: per modulus, their four residues, one byte each
// (element e in byte e), as one word to store.
template <int N>
__device__ __forceinline__ void residue_words(float4 x, int s, unsigned (&out)[N]) {
  const float v[kVecWidth] = {x.x, x.y, x.z, x.w};
#pragma unroll
  for (int l = 0; l < N; ++l) out[l] = 0;
#pragma unroll
  for (int e = 0; e < kVecWidth; ++e) {
    const int q = to_int(v[e], s);
#pragma unroll
    for (int l = 0; l < N; ++l) out[l] |= unsigned(balance(q, modulus(l)) & 0xff) << (8 * e);
  }
}

constexpr int kResThreadsX = kWarpSize, kResThreadsY = 8;
constexpr int kMaxGridY = 65535;

// X (M x K, ld: A 'N', or B 'T' with M = N) -> res[l] (Mp x Kp int8 each, K-major), zero outside
// M x K; row i scaled by 2^shift[i]. Thread: four consecutive k of a row, one 32-bit store of four
// residues per modulus. kVec: 128-bit loads, where every row of X starts on a 16-byte boundary.
template <int N, bool kVec>
__global__ void __launch_bounds__(kResThreadsX* kResThreadsY)
residues_rows(int M, int K, const float* __restrict__ X, int ld, const int* __restrict__ shift, int64_t Mp, int64_t Kp,
              signed char* __restrict__ res) {
  const int64_t vec = int64_t(blockIdx.x) * kResThreadsX + threadIdx.x;
  if (vec >= Kp / kVecWidth) return;
  const int col = int(vec * kVecWidth);
  for (int64_t row = int64_t(blockIdx.y) * kResThreadsY + threadIdx.y; row < Mp;
       row += int64_t(gridDim.y) * kResThreadsY) {
    unsigned out[N];
    residue_words<N>(load4_or_zero<kVec>(X + row * ld, col, K, row < M), row < M ? shift[row] : 0, out);
#pragma unroll
    for (int l = 0; l < N; ++l) *reinterpret_cast<unsigned*>(res + (l * Mp + row) * Kp + col) = out[l];
  }
}

// Blocks an SM the registers of residues_transpose<N> must allow: 0 (no minimum: ptxas's choice) from
// five moduli on; five at four, where ptxas otherwise aims at six blocks (a sixth of the register
// file each) and spills the loop's row offsets to get there. Five leave it what it takes at 5-8 moduli.
template <int N>
constexpr int transpose_min_blocks() { return N <= 4 ? 5 : 0; }

// X (K x N, ld: B 'N', or A 'T' with N = M) -> res[l] (Np x Kp int8 each, X transposed: K-major),
// zero outside; column j scaled by 2^shift[j], through the transposing tile
// (common/transpose_tile.cuh) that the 3xTF32 split uses too.
template <int N>
__global__ void __launch_bounds__(kResThreadsX* kResThreadsY, transpose_min_blocks<N>())
residues_transpose(int K, int Ncols, const float* __restrict__ X, int ld, const int* __restrict__ shift, int64_t Np,
                   int64_t Kp, signed char* __restrict__ res) {
  transpose_tiles<kResThreadsY>(K, Ncols, X, ld, Np, [&](int64_t n, int64_t k, float x) {
    const int q = to_int(x, n < Ncols ? shift[n] : 0);
#pragma unroll
    for (int l = 0; l < N; ++l) res[(l * Np + n) * Kp + k] = static_cast<signed char>(balance(q, modulus(l)));
  });
}

}  // namespace sgemm::ozaki
