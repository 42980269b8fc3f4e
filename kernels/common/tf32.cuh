// TF32 helpers shared by the tensor-core rungs: rounding an FP32 value to TF32 (10 explicit
// mantissa bits, FP32's exponent) and the 3xTF32 split x = big + small. Header-only and free of
// host headers, like common.cuh.
#pragma once

namespace sgemm {

// x rounded to the nearest TF32 value (ties away from zero), returned in an FP32 register with
// the 13 low mantissa bits zero: what the tensor core reads when it is given x.
__device__ __forceinline__ float to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

// The 3xTF32 split: big = tf32(x), small = tf32(x - big). x - big is exact in FP32 and at most
// 2^-11 |x|, so big + small carries 22 of FP32's 24 significant bits; what is left over is at
// most 2^-22 |x|.
__device__ __forceinline__ void split_tf32(float x, float& big, float& small) {
  big = to_tf32(x);
  small = to_tf32(x - big);
}

// The 3xTF32 split of any FP32 value, for the pre-passes that split whole operands (rungs 23
// and 24, cublas_3xtf32): x = big + small like split_tf32, but the split never creates a NaN
// or an Inf that x does not have: non-finite x gets small = 0 (Inf - Inf would be NaN), and a
// finite x so close to FLT_MAX that rounding to TF32 overflows gets big = x truncated to TF32.
__device__ __forceinline__ void split_fp32(float x, float& big, float& small) {
  constexpr int kDroppedBits = 13;  // FP32's 23 mantissa bits less TF32's 10
  constexpr unsigned kTf32Mask = ~((1u << kDroppedBits) - 1u);
  split_tf32(x, big, small);
  if (!isfinite(x)) {
    small = 0.0f;
  } else if (!isfinite(big)) {
    big = __uint_as_float(__float_as_uint(x) & kTf32Mask);
    small = to_tf32(x - big);
  }
}

// D += A * B for one m16n8k8 TF32 tile on the tensor cores (mma.sync, sm_80+), FP32
// accumulation. Fragments as the PTX ISA lays them out, with g = lane / 4, q = lane % 4:
//   a[0] = A(g, q)   a[1] = A(g + 8, q)   a[2] = A(g, q + 4)   a[3] = A(g + 8, q + 4)
//   b[0] = B(q, g)   b[1] = B(q + 4, g)
//   d[0] = D(g, 2q)  d[1] = D(g, 2q + 1)  d[2] = D(g + 8, 2q)   d[3] = D(g + 8, 2q + 1)
// The a and b values must already be TF32 (to_tf32); the unit ignores their 13 low bits.
__device__ __forceinline__ void mma_tf32_16x8x8(float (&d)[4], const float (&a)[4], const float (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
        "r"(__float_as_uint(a[3])), "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])));
}

}  // namespace sgemm
