#include "verify.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cuda_check.hpp"

namespace sgemm::harness {

bool exact_tier(const ProblemSpec& spec) {
  constexpr double kStep = 1.0 / 16, kMaxScalar = 16;
  constexpr int64_t kMaxK = 8192;
  auto dyadic = [&](float v) { return std::fabs(v) <= kMaxScalar && std::fmod(double(v), kStep) == 0.0; };
  return spec.kind == InputKind::kSmallInt && dyadic(spec.alpha) && dyadic(spec.beta) && spec.shape.K <= kMaxK;
}

double gamma_n(double n, double u) { return n * u / (1.0 - n * u); }

Tolerance tolerance(const Precision& p, int64_t K, bool exact, bool bias) {
  if (exact) return {0.0, 0.0, 0.0};
  const double extra = bias ? 1.0 : 0.0;  // the bias's addition: one more rounding
  return {gamma_n(double(K) + 2.0 + extra, p.u_acc) + p.e_prod, gamma_n(2.0 + extra, p.u_acc), kFp32SubnormalStep,
          p.scaled ? p.scaled(K) : 0.0, bias ? gamma_n(2.0, p.u_acc) : 0.0};
}

namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

struct Totals {
  unsigned long long failures;
  unsigned long long padding;
  unsigned long long first_bad;  // linear index row * N + col, ULLONG_MAX when none
  unsigned long long nonfinite;  // Inf or NaN where the reference is finite
  unsigned long long max_abs_bits;
  unsigned long long worst_ratio_bits;
  double sum_d2, sum_r2;
};

__device__ double block_sum(double v, double* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? scratch[threadIdx.x] : 0.0;
  if (warp == 0)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Non-negative doubles order like their bit patterns, so atomicMax on the bits is a max.
__device__ void atomic_max_nonneg(unsigned long long* p, double v) {
  atomicMax(p, static_cast<unsigned long long>(__double_as_longlong(v)));
}

// Per row of A (rows = M, stride = lda, step = 1) or column of B (rows = N, stride = 1,
// step = ldb): the largest |x| and the sum of |x| over K, for Precision::scaled. The oracle's
// helper: one thread per row or column, simple on purpose.
__global__ void row_norms(int64_t rows, int64_t K, const float* x, int64_t stride, int64_t step, double* maxAbs,
                          double* sumAbs) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows; i += int64_t(gridDim.x) * blockDim.x) {
    double mx = 0, sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      const double v = fabs(double(x[i * stride + k * step]));
      mx = fmax(mx, v);
      sum += v;
    }
    maxAbs[i] = mx;
    sumAbs[i] = sum;
  }
}

// The scaled term's ingredients: max and sum of |A| per row, of |B| per column (nullptr: none).
struct Norms {
  const double *a_max = nullptr, *a_sum = nullptr, *b_max = nullptr, *b_sum = nullptr;
};

// C as a whole: `rows` rows of ldc, product b's row m at row b * rowsPer + m (rows past M within a
// product, and columns past N, are padding that must keep its sentinel). Element (b, m, n) of
// ref, mag and the norms' products at (b * M + m) * N + n, b * M + m, b * N + n.
struct CShape {
  int64_t M, N, ldc, rows, rowsPer;
};

__global__ void compare_kernel(const float* C, const float* C0, const double* ref, const double* mag, CShape cs,
                               double abs_alpha, double abs_beta, double f_ab, double f_c, double under,
                               double f_scaled, Norms norms, double f_bias, const float* bias, bool inf_exact,
                               Totals* out) {
  __shared__ double scratch[kThreads / 32];
  double d2 = 0, r2 = 0, max_abs = 0, worst = 0;
  unsigned long long fails = 0, pad = 0, first = ~0ull, nonfinite = 0;
  const int64_t M = cs.M, N = cs.N, ldc = cs.ldc;
  const int64_t total = cs.rows * ldc;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / ldc / cs.rowsPer, m = i / ldc % cs.rowsPer, col = i % ldc;
    const float c = C[i];
    if (col >= N || m >= M) {
      pad += __float_as_uint(c) != kPadSentinelBits;
      continue;
    }
    const int64_t row = b * M + m;  // in ref, mag and the row norms
    const double r = ref[row * N + col];
    bool good;
    if (isnan(r)) {
      good = isnan(c);
    } else if (isinf(r)) {
      good = double(c) == r || (!inf_exact && isnan(c));  // see Precision::inf_exact
    } else {
      double tol = f_ab * abs_alpha * mag[row * N + col] +
                   (abs_beta == 0.0 ? 0.0 : f_c * abs_beta * fabs(double(C0[i]))) + under;
      if (bias) tol += f_bias * fabs(double(bias[col]));
      if (f_scaled > 0) {
        const int64_t bcol = b * N + col;
        tol += f_scaled * abs_alpha *
               (2 * norms.a_max[row] * norms.b_sum[bcol] + norms.a_sum[row] * norms.b_max[bcol]);
      }
      const double err = fabs(double(c) - r);
      good = err <= tol;  // false for a NaN or Inf c
      if (isfinite(err)) {
        d2 += err * err;
        r2 += r * r;
        max_abs = fmax(max_abs, err);
        worst = fmax(worst, tol > 0 ? err / tol : (err > 0 ? INFINITY : 0.0));
      } else {
        worst = INFINITY;
        ++nonfinite;
      }
    }
    if (!good) {
      ++fails;
      first = min(first, static_cast<unsigned long long>(row * N + col));
    }
  }
  d2 = block_sum(d2, scratch);
  r2 = block_sum(r2, scratch);
  if (threadIdx.x == 0) {
    atomicAdd(&out->sum_d2, d2);
    atomicAdd(&out->sum_r2, r2);
  }
  if (fails) {
    atomicAdd(&out->failures, fails);
    atomicMin(&out->first_bad, first);
  }
  if (pad) atomicAdd(&out->padding, pad);
  if (nonfinite) atomicAdd(&out->nonfinite, nonfinite);
  atomic_max_nonneg(&out->max_abs_bits, max_abs);
  atomic_max_nonneg(&out->worst_ratio_bits, worst);
}

}  // namespace

std::string VerifyResult::summary() const {
  std::ostringstream os;
  os << (ok ? "verified" : "FAILED") << (exact ? " (exact tier)" : " (bound tier)") << ": rel_err=" << rel_err << " max_abs_err=" << max_abs_err
     << " worst_err/bound=" << worst_ratio;
  if (failures)
    os << "; " << failures << " elements outside the bound, first C"
       << (first_bad_batch > 0 ? " of product " + std::to_string(first_bad_batch) + " " : "") << "["
       << first_bad_row << "][" << first_bad_col << "]=" << first_bad_value << " expected " << first_bad_ref;
  if (padding_clobbered) os << "; " << padding_clobbered << " padding elements (ld > N) overwritten";
  if (!guards_ok) os << "; a write landed outside an operand (guard region changed)";
  return os.str();
}

VerifyResult verify(Problem& problem, const Precision& precision) {
  const Shape& s = problem.spec().shape;
  const bool exact = exact_tier(problem.spec());
  const Reference& ref = problem.reference();
  const Tolerance tol = tolerance(precision, s.K, exact, s.bias);
  Totals* d_out = static_cast<Totals*>(device_alloc(sizeof(Totals)));
  Totals h{};
  h.first_bad = ~0ull;
  SGEMM_CUDA(cudaMemcpy(d_out, &h, sizeof(h), cudaMemcpyHostToDevice));
  const GemmArgs a = problem.args(0);
  const bool batched = s.batch > 1;
  Norms norms;
  double* d_norms = nullptr;
  if (tol.f_scaled > 0 && s.M > 0 && s.N > 0) {
    // Per product: max and sum of |op(A)| along each row, of |op(B)| along each column.
    const int64_t rowsAll = s.batch * s.M, colsAll = s.batch * s.N;
    d_norms = static_cast<double*>(device_alloc(size_t(2 * (rowsAll + colsAll)) * sizeof(double)));
    norms = {d_norms, d_norms + rowsAll, d_norms + 2 * rowsAll, d_norms + 2 * rowsAll + colsAll};
    for (int64_t b = 0; b < s.batch; ++b) {
      const float* A = a.A + (batched ? b * s.strideA : 0);
      const float* B = a.B + (batched ? b * s.strideB : 0);
      double* n = d_norms;
      row_norms<<<kBlocks, kThreads>>>(s.M, s.K, A, s.transa ? 1 : s.lda, s.transa ? s.lda : 1, n + b * s.M,
                                       n + rowsAll + b * s.M);
      row_norms<<<kBlocks, kThreads>>>(s.N, s.K, B, s.transb ? s.ldb : 1, s.transb ? 1 : s.ldb,
                                       n + 2 * rowsAll + b * s.N, n + 2 * rowsAll + colsAll + b * s.N);
    }
  }
  const int64_t rowsPer = batched ? s.strideC / s.ldc : s.M;
  const CShape cs{s.M, s.N, s.ldc, batch_rows(s.M, s.ldc, s.strideC, s.batch), std::max<int64_t>(rowsPer, 1)};
  if (s.M > 0 && s.N > 0)
    compare_kernel<<<kBlocks, kThreads>>>(a.C, problem.pristine_c(), ref.d_ref, ref.d_mag, cs,
                                          std::fabs(double(a.alpha)), std::fabs(double(a.beta)), tol.f_ab, tol.f_c,
                                          tol.f_under * (double(s.K) * std::fabs(double(a.alpha)) + (s.bias ? 3.0 : 2.0)),
                                          d_norms ? tol.f_scaled : 0.0, norms, tol.f_bias, a.bias, precision.inf_exact,
                                          d_out);
  SGEMM_CUDA(cudaGetLastError());
  SGEMM_CUDA(cudaMemcpy(&h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  cudaFree(d_out);
  if (d_norms) cudaFree(d_norms);

  VerifyResult r;
  r.exact = exact;
  r.failures = h.failures;
  r.padding_clobbered = h.padding;
  double v;
  std::memcpy(&v, &h.max_abs_bits, sizeof v);
  r.max_abs_err = v;
  std::memcpy(&v, &h.worst_ratio_bits, sizeof v);
  r.worst_ratio = v;
  // An Inf or NaN where the reference is finite (an FP32 overflow) makes the norm of the error
  // infinite: left out of the sums, it would make a failed result look accurate.
  r.rel_err = h.nonfinite ? INFINITY : h.sum_r2 > 0 ? std::sqrt(h.sum_d2 / h.sum_r2) : std::sqrt(h.sum_d2);
  if (h.failures) {
    const uint64_t perProduct = uint64_t(s.M) * uint64_t(s.N);
    r.first_bad_batch = int64_t(h.first_bad / perProduct);
    r.first_bad_row = int64_t(h.first_bad % perProduct / uint64_t(s.N));
    r.first_bad_col = int64_t(h.first_bad % uint64_t(s.N));
    float c;
    SGEMM_CUDA(cudaMemcpy(&c, a.C + (batched ? r.first_bad_batch * s.strideC : 0) + r.first_bad_row * s.ldc +
                                  r.first_bad_col,
                          sizeof c, cudaMemcpyDeviceToHost));
    SGEMM_CUDA(cudaMemcpy(&r.first_bad_ref, ref.d_ref + h.first_bad, sizeof(double),
                          cudaMemcpyDeviceToHost));
    r.first_bad_value = c;
  }
  r.guards_ok = problem.guards_intact();
  r.ok = r.failures == 0 && r.padding_clobbered == 0 && r.guards_ok;
  return r;
}

}  // namespace sgemm::harness
