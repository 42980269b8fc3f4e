// Device helpers shared by every rung: integer helpers, 128-bit loads, guarded loads and copies,
// the alpha/beta epilogue, cp.async and flags between blocks. Header-only and free of host
// headers so that NVRTC (the autotuner) compiles the rung files unchanged. Not a lesson: the
// machinery the rungs share.
#pragma once

#ifdef __CUDACC_RTC__
typedef long long int64_t;
#else
#include <cstdint>
#endif

// Rung files put their launcher (host code) under #ifndef SGEMM_DEVICE_ONLY, so that NVRTC
// and experiments can include the kernels alone.
#if defined(__CUDACC_RTC__) && !defined(SGEMM_DEVICE_ONLY)
#define SGEMM_DEVICE_ONLY
#endif

namespace sgemm {

constexpr int kWarpSize = 32;      // threads per warp
constexpr int kVecWidth = 4;       // floats per 128-bit access
constexpr int kRegsPerSm = 65536;  // 32-bit registers per SM (sm_70 to sm_90)

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }
__host__ __device__ constexpr int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One GEMM, C = alpha * A * B + beta * C (row-major), as the pipelined kernels (rung 10 on) pass it
// around: one argument instead of eleven. Sizes and leading dimensions fit 32 bits (launchers check).
struct Gemm {
  int M, N, K;
  float alpha;
  const float* A;
  int lda;
  const float* B;
  int ldb;
  float beta;
  float* C;
  int ldc;
  const float* bias = nullptr;  // N floats added to every row of C (rung 17 on), or none
  // The same product over K columns [k0, k0 + len) of op(A) (rows of op(B)) only. transA: A is
  // stored K x M (op(A) = A^T, k indexes its rows); transB: B is stored N x K (k its columns).
  __host__ __device__ Gemm k_range(int k0, int len, bool transA = false, bool transB = false) const {
    Gemm g = *this;
    g.A += transA ? int64_t(k0) * lda : k0;
    g.B += transB ? k0 : int64_t(k0) * ldb;
    g.K = len;
    return g;
  }
};

// What a launch adds to the GEMM (rung 17 on): product z of a batch (grid z) reads A + z strideA
// and B + z strideB and writes C + z strideC; `bias` (or null) is added to every row of each.
struct Batch {
  int64_t strideA, strideB, strideC;
  const float* bias;
  __device__ Gemm product(Gemm g, int z) const {
    g.A += z * strideA, g.B += z * strideB, g.C += z * strideC, g.bias = bias;
    return g;
  }
};

// One 128-bit load / store. The address must be 16-byte aligned.
__device__ __forceinline__ float4 load_f4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void store_f4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

// ---- four consecutive floats of a row of A, B or C ------------------------------------------
// Rungs from the vectorized one up move global data four floats at a time. kVec: every row of A,
// B and C starts on a 16-byte boundary (leading dimensions multiples of 4, pointers 16-byte
// aligned), so four floats are one 128-bit access. Otherwise they are four 32-bit accesses, which
// any leading dimension and any 4-byte-aligned pointer allow. Launchers choose per call
// (vec4_ok); with kVec = true a kernel compiles exactly as if the other path did not exist.

template <bool kVec>
__device__ __forceinline__ float4 load4(const float* p) {
  if (kVec) return load_f4(p);
  return make_float4(p[0], p[1], p[2], p[3]);
}

// Element `col` of a row, or 0 outside [0, ncols) / for an invalid row.
__device__ __forceinline__ float load_or_zero(const float* row, int col, int ncols, bool row_ok) {
  return (row_ok && col < ncols) ? row[col] : 0.0f;
}

// Four consecutive elements starting at `col` (a multiple of 4): one load4 when all four are
// inside the row, element-wise with zero fill otherwise.
template <bool kVec>
__device__ __forceinline__ float4 load4_or_zero(const float* row, int col, int ncols, bool row_ok) {
  if (row_ok && col + kVecWidth <= ncols) return load4<kVec>(row + col);
  float4 v;
  v.x = load_or_zero(row, col + 0, ncols, row_ok);
  v.y = load_or_zero(row, col + 1, ncols, row_ok);
  v.z = load_or_zero(row, col + 2, ncols, row_ok);
  v.w = load_or_zero(row, col + 3, ncols, row_ok);
  return v;
}

// C = alpha * acc + beta * C. beta == 0 never reads C (C may hold NaN or be uninitialised).
__device__ __forceinline__ float epilogue(float alpha, float acc, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}
// The same, then bias[col] added where there is a bias (non-null).
__device__ __forceinline__ float epilogue(float alpha, float acc, float beta, const float* c, const float* bias,
                                          int col) {
  const float out = epilogue(alpha, acc, beta, c);
  return bias != nullptr ? out + bias[col] : out;
}

// Up to four outputs at `c`: one 128-bit store when all four columns exist (`valid` >= 4) and
// kVec, element-wise for the first `valid` columns otherwise (none when valid <= 0). withBias: the
// four columns' bias `b` is added last, alpha * acc + beta * C + b.
template <bool kVec>
__device__ __forceinline__ void store4_epilogue(float* c, int valid, float alpha, float4 acc, float beta,
                                                bool withBias = false, float4 b = {}) {
  if (kVec && valid >= kVecWidth) {
    float4 out;
    if (beta == 0.0f) {
      out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
    } else {
      const float4 old = load_f4(c);
      out = make_float4(alpha * acc.x + beta * old.x, alpha * acc.y + beta * old.y,
                        alpha * acc.z + beta * old.z, alpha * acc.w + beta * old.w);
    }
    if (withBias) out.x += b.x, out.y += b.y, out.z += b.z, out.w += b.w;
    store_f4(c, out);
    return;
  }
  const float v[kVecWidth] = {acc.x, acc.y, acc.z, acc.w}, bias[kVecWidth] = {b.x, b.y, b.z, b.w};
#pragma unroll
  for (int i = 0; i < kVecWidth; ++i)
    if (i < valid) c[i] = withBias ? epilogue(alpha, v[i], beta, c + i) + bias[i] : epilogue(alpha, v[i], beta, c + i);
}

// Two outputs at `c`: one 64-bit store when both columns exist (`valid` >= 2) and kVec (c 8-byte
// aligned), element-wise otherwise: the first column alone when valid == 1, nothing when <= 0.
template <bool kVec>
__device__ __forceinline__ void store2_epilogue(float* c, int valid, float alpha, float acc0, float acc1,
                                                float beta) {
  if (!kVec && valid >= 2) {
    c[0] = epilogue(alpha, acc0, beta, c);
    c[1] = epilogue(alpha, acc1, beta, c + 1);
  } else if (valid >= 2) {
    float2 out;
    if (beta == 0.0f) {
      out = make_float2(alpha * acc0, alpha * acc1);
    } else {
      const float2 old = *reinterpret_cast<const float2*>(c);
      out = make_float2(alpha * acc0 + beta * old.x, alpha * acc1 + beta * old.y);
    }
    *reinterpret_cast<float2*>(c) = out;
  } else if (valid == 1) {
    c[0] = epilogue(alpha, acc0, beta, c);
  }
}

// ---- cp.async (sm_80+): global -> shared copies that bypass the registers -------------------

// Copy 4 bytes from global to shared memory asynchronously; `src_bytes` 0 zero-fills them.
// Both addresses must be 4-byte aligned.
__device__ __forceinline__ void cp_async_4(void* smem, const void* gmem, int src_bytes) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}

// Copy 16 bytes from global to shared memory asynchronously. Only the first `src_bytes`
// (0..16) are read; the rest of the 16 shared bytes are zero-filled, so ragged edges need no
// separate path. Both addresses must be 16-byte aligned.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, int src_bytes) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}

// How many of the four floats starting at `col` lie inside a row of `ncols` (none for a row
// outside the matrix).
__device__ __forceinline__ int floats_inside(int col, int ncols, bool row_ok) {
  return row_ok ? min(max(ncols - col, 0), kVecWidth) : 0;
}

// cp.async of the four floats at `src` into 16 bytes of shared memory, of which only the first
// `valid` floats are read; the rest are zero-filled. With none valid, nothing is read and `base`
// (any address inside the matrix) stands in for `src`. kVec: one 16-byte copy (src 16-byte
// aligned); otherwise four 4-byte copies (src 4-byte aligned).
template <bool kVec>
__device__ __forceinline__ void cp_async_16_zfill(void* smem, const float* src, int valid, const float* base) {
  if (kVec) {
    cp_async_16(smem, valid == 0 ? base : src, valid * int(sizeof(float)));
    return;
  }
  float* dst = static_cast<float*>(smem);
#pragma unroll
  for (int i = 0; i < kVecWidth; ++i)
    cp_async_4(dst + i, i < valid ? src + i : base, i < valid ? int(sizeof(float)) : 0);
}

// Close the group of cp.async issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Wait until at most `kPending` committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// ---- flags between the blocks of one grid (GPU-scope release / acquire) ---------------------

// Set `*flag = value` after every global write this thread (and, behind a __syncthreads, its
// block) made before: a block that reads the value with flag_acquire then sees those writes.
__device__ __forceinline__ void flag_release(int* flag, int value) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

// Read `*flag`; global reads after it see the writes made before the matching flag_release.
__device__ __forceinline__ int flag_acquire(const int* flag) {
  int value;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

}  // namespace sgemm
