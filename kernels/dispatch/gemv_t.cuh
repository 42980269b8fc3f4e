// The dispatch rung's GEMV for op(B) = B^T (nn.Linear's weight), read along K: each output a dot
// product along K (kernels/dispatch/gemv_launch.cuh launches it; dispatch/gemv.cuh holds op(B) = B).
#pragma once

#include "dispatch/gemv.cuh"

namespace sgemm::rung30 {

// ---- op(B) = B^T: B is N x K, each output a dot product along K ----------------------------------

constexpr int kGemvTWarps = 8;  // warps of a block: column groups of CT columns, each split along K
// Columns of C (rows of B) a warp computes: more where op(A) has more rows, so that the L1 reads of
// op(A)'s rows (MT float4s a lane and k step) stay few beside B's (CT float4s).
template <int MT>
constexpr int gemv_t_cols() { return MT <= 4 ? 1 : MT <= 8 ? 2 : 4; }
// How many of a block's warps split one column group's K range: gemv_t_split (dispatch/model.cpp,
// host code: the launch asks it, the CPU tests check its bounds).

// Four floats of a row that streams (read once, by one warp): one 128-bit load that does not
// allocate its line in L1 (ld.global.nc.L1::no_allocate; the row is only read while the kernel runs),
// so that L1 keeps what every warp re-reads. Zero outside the row, element-wise at its end.
template <bool kVec>
__device__ __forceinline__ float4 load4_stream(const float* row, int col, int ncols, bool row_ok) {
  if (!kVec || !row_ok || col + kVecWidth > ncols) return load4_or_zero<kVec>(row, col, ncols, row_ok);
  float4 v;
  asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(row + col));
  return v;
}

// How the kernel below reads its few rows (element (m, k) at S + m sm + k sk): one float at a time
// (any layout, any alignment); four k steps of a row as one 128-bit load (sk = 1, rows 16-byte
// aligned); or, stored K-major (sm = 1: op(A) = A^T, or the narrow-N form's B), each of four k steps'
// MT values as MT / 4 128-bit loads (rows of sk floats 16-byte aligned, MT >= 4).
enum GemvSmall : int { kSmallScalar = 0, kSmallRows = 1, kSmallKMajor = 2 };

// t[i] = (S(q, k + i), .. S(q + 3, k + i)), S stored K-major: S(m, k) at S[k ld + m] (zero past K or
// M). The values of one k are contiguous: a whole float4 where all four lie below M.
__device__ __forceinline__ void small_k_major(float4 (&t)[kVecWidth], const float* S, int ld, int q, int k, int K, int M) {
#pragma unroll
  for (int i = 0; i < kVecWidth; ++i) {
    const float* row = S + int64_t(k + i) * ld + q;
    const bool ok = k + i < K;
    if (ok && q + kVecWidth <= M) {
      t[i] = load_f4(row);
    } else {
      t[i].x = ok && q < M ? row[0] : 0.0f;
      t[i].y = ok && q + 1 < M ? row[1] : 0.0f;
      t[i].z = ok && q + 2 < M ? row[2] : 0.0f;
      t[i].w = ok && q + 3 < M ? row[3] : 0.0f;
    }
  }
}
__device__ __forceinline__ float component(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// C (M x N, M <= MT) = alpha * op(A) * B^T + beta * C (+ bias), product blockIdx.y of a batch. The
// block's warps form kGemvTWarps / split column groups of CT columns (rows of B), n0 .. n0 + CT - 1;
// the `split` warps of a group take every split-th span of 128 floats along K. A warp's lanes walk
// their spans four floats at a time (a warp instruction reads 512 contiguous bytes of a row of B, each
// byte of B once), keep MT x CT partial dot products and add them across the warp with shuffles; the
// group's warps add theirs through shared memory. op(A)'s rows (element (m, k) at A + m sm + k sk)
// are read by every warp, from L1, as `small` says (GemvSmall). kVec: B's rows 16-byte aligned
// (128-bit loads that skip L1: load4_stream); otherwise single floats.
// kSwap, the narrow-N form: the same walk computes C^T = op(B)^T op(A)^T for a tall M and an N of at
// most MT. The caller passes op(B)^T as the few rows (M = its N, A = its B) and its A, stored M x K,
// as the many (N = its M, B = its A); each sum goes to C^T's element, that is C[n ldc + m], with the
// bias of column m.
// Two blocks an SM for the narrow-N form at 16 rows: left free, ptxas gives the unchecked walk's
// loads nearly all the registers a thread may address and one block an SM, slower than the checked
// walk; held to 128 (a few spills), faster. Elsewhere 0, no minimum: a minimum of 1 lets ptxas give
// the decode steps' kernels more registers and fewer warps (measured: docs/rungs/30_auto.lab.md).
template <int MT, bool kSwap>
constexpr int gemv_t_min_blocks() { return kSwap && MT >= 16 ? 2 : 0; }
// Which instances walk the steps inside K unchecked (below): the narrow-N form, and the decode steps
// of at most 8 rows. At 16 decode rows, with no minimum of blocks, ptxas gives that walk nearly all
// the registers, and it runs slower than the checked one (measured: docs/rungs/30_auto.lab.md).
template <int MT, bool kSwap>
constexpr bool gemv_t_unchecked() { return kSwap || MT <= 8; }
template <int MT, int CT, bool kVec, bool kSwap>
__global__ void __launch_bounds__(kGemvTWarps * kWarpSize, gemv_t_min_blocks<MT, kSwap>())
sgemm_30_gemv_t(int M, int N, int K, float alpha, const float* A, int lda, bool transa, const float* B, int ldb,
                float beta, float* C, int ldc, Batch batch, int split, int small) {
  __shared__ float sPart[kGemvTWarps][MT * CT];  // each warp's sums
  const Gemm g = batch.product(Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, blockIdx.y);
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int groups = kGemvTWarps / split, part = warp % split;
  const int n0 = (blockIdx.x * groups + warp / split) * CT;
  const int sm = transa ? 1 : lda, sk = transa ? lda : 1;
  // The lane's first float4 of its first row of B.
  gemv_overlap(K > 0 ? g.B + int64_t(min(n0, N - 1)) * ldb + min(kVecWidth * (part * kWarpSize + lane), K - 1) : nullptr);
  auto a4 = [&](int m, int k) {  // op(A)'s row m, k .. k + 3 (zero past K or M)
    const float* row = g.A + int64_t(m) * sm;
    if (small == kSmallRows) return load4_or_zero<true>(row, k, m < M ? K : 0, true);
    float4 v;
    v.x = m < M && k < K ? row[int64_t(k) * sk] : 0.0f;
    v.y = m < M && k + 1 < K ? row[int64_t(k + 1) * sk] : 0.0f;
    v.z = m < M && k + 2 < K ? row[int64_t(k + 2) * sk] : 0.0f;
    v.w = m < M && k + 3 < K ? row[int64_t(k + 3) * sk] : 0.0f;
    return v;
  };
  float acc[MT][CT] = {};
  constexpr int kUnroll = MT * CT <= 16 ? 2 : 1;  // two k steps' loads in flight where registers allow
  const int step = kVecWidth * kWarpSize * split;
  auto fma4 = [&](int m, const float4& a, const float4 (&b)[CT]) {
#pragma unroll
    for (int c = 0; c < CT; ++c) {
      acc[m][c] += a.x * b[c].x;
      acc[m][c] += a.y * b[c].y;
      acc[m][c] += a.z * b[c].z;
      acc[m][c] += a.w * b[c].w;
    }
  };
  // The walk along K from the lane's first k (zero past K); kKMajor: op(A) read K-major, four rows
  // at a time (small_k_major), each group's sixteen values turned into its four rows' float4s in
  // registers.
  auto walk = [&](auto kKMajor, int k) {
#pragma unroll kUnroll
    for (; k < K; k += step) {
      float4 b[CT];
#pragma unroll
      for (int c = 0; c < CT; ++c) b[c] = load4_stream<kVec>(g.B + int64_t(n0 + c) * ldb, k, K, n0 + c < N);
      if constexpr (kKMajor()) {
#pragma unroll
        for (int q = 0; q < MT; q += kVecWidth) {
          if (q >= M) break;  // rows of the kernel's group past M: nothing to read, nothing to add
          float4 t[kVecWidth];
          small_k_major(t, g.A, lda, q, k, K, M);
#pragma unroll
          for (int j = 0; j < kVecWidth; ++j)
            fma4(q + j, make_float4(component(t[0], j), component(t[1], j), component(t[2], j), component(t[3], j)), b);
        }
      } else {
#pragma unroll
        for (int m = 0; m < MT; ++m) fma4(m, a4(m, k), b);
      }
    }
  };
  // Where gemv_t_unchecked and both operands' rows are 16-byte aligned and read along K (kVec,
  // kSmallRows), the steps that lie wholly inside K go first without a check: every row's place is
  // set before the walk (rows past M or N read the last row instead of zeros: their sums are never
  // stored; the few rows' offsets fit an int), so that a load costs an address instruction or two
  // and no compare. The lane's last, partial step (if any) then takes the checked walk. The checked
  // walk alone issued more other instructions than FFMAs (rung 30's page).
  const int k0 = kVecWidth * (part * kWarpSize + lane);
  auto fast = [&]() {
    const float* bRow[CT];
#pragma unroll
    for (int c = 0; c < CT; ++c) bRow[c] = g.B + int64_t(min(n0 + c, N - 1)) * ldb;
    int aOff[MT];  // the few rows' offsets (taken only where they fit an int)
#pragma unroll
    for (int m = 0; m < MT; ++m) aOff[m] = min(m, M - 1) * sm;
    int k = k0;
#pragma unroll kUnroll
    for (; k + kVecWidth <= K; k += step) {
      float4 b[CT];
#pragma unroll
      for (int c = 0; c < CT; ++c) b[c] = load4_stream<true>(bRow[c], k, k + kVecWidth, true);
#pragma unroll
      for (int m = 0; m < MT; ++m) fma4(m, load_f4(g.A + (aOff[m] + k)), b);
    }
    return k;
  };
  if (n0 < N) {
    if (gemv_t_unchecked<MT, kSwap>() && kVec && small == kSmallRows && int64_t(M - 1) * sm + K <= int64_t(0x7fffffff)) {
      walk(std::integral_constant<bool, false>{}, fast());
    } else if constexpr (MT >= kVecWidth) {
      if (small == kSmallKMajor) walk(std::integral_constant<bool, true>{}, k0);
      else walk(std::integral_constant<bool, false>{}, k0);
    } else {
      walk(std::integral_constant<bool, false>{}, k0);
    }
  }
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int c = 0; c < CT; ++c) {
      float sum = acc[m][c];
#pragma unroll
      for (int off = kWarpSize / 2; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      if (lane == (m * CT + c) % kWarpSize) sPart[warp][m * CT + c] = sum;  // every lane holds it: one stores
    }
  __syncthreads();
  // Thread t finishes output t of the block: group t / (MT CT), element (m, c) t % (MT CT).
  for (int t = threadIdx.x; t < groups * MT * CT; t += kGemvTWarps * kWarpSize) {
    const int group = t / (MT * CT), m = t % (MT * CT) / CT, c = t % CT;
    const int n = (blockIdx.x * groups + group) * CT + c;
    if (m >= M || n >= N) continue;
    float sum = 0.0f;
    for (int w = 0; w < split; ++w) sum += sPart[group * split + w][m * CT + c];
    float* out = kSwap ? g.C + int64_t(n) * ldc + m : g.C + int64_t(m) * ldc + n;
    *out = epilogue(alpha, sum, beta, out, g.bias, kSwap ? m : n);
  }
}

}  // namespace sgemm::rung30
