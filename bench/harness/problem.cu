#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <curand.h>

#include "common/common.cuh"
#include "cuda_check.hpp"

namespace sgemm::harness {

namespace {

constexpr int kFillThreads = 256;
constexpr int kFillBlocks = 4096;

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Elements allocated for a rows x cols operand with leading dimension ld: every row is a full
// ld long (so the padding of the last row exists too), rounded up to an even count because
// cuRAND's normal generator fills pairs.
size_t alloc_count(int64_t rows, int64_t ld) { return size_t(round_up(std::max<int64_t>(rows, 1) * ld, 2)); }

void check_curand(curandStatus_t s, const char* what) {
  if (s != CURAND_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuRAND ") + what + " failed with status " + std::to_string(int(s)));
}

// Turn cuRAND's (0,1] uniforms or normals into the requested input distribution, and make the
// padding columns (col >= cols) NaN so that a kernel reading them poisons its result. The wide
// distribution takes a second stream of uniforms, `v`, for its exponents.
__global__ void shape_inputs(float* p, int64_t rows, int64_t cols, int64_t ld, int kind, const float* v,
                             int wide_exponent) {
  const int64_t total = rows * ld;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    if (i % ld >= cols) {
      p[i] = __int_as_float(0x7FC00001);
      continue;
    }
    const float u = p[i];
    if (kind == int(InputKind::kSmallInt)) p[i] = fminf(floorf(u * 5.0f), 4.0f) - 2.0f;
    else if (kind == int(InputKind::kUniform)) p[i] = 2.0f * u - 1.0f;
    else if (kind == int(InputKind::kWide)) p[i] = wide_value(u, v[i], wide_exponent);
  }
}

// C of a verified run: NaN everywhere (beta == 0: C must not be read) or the pristine copy,
// with the padding columns set to the sentinel bit pattern.
__global__ void prepare_c(float* c, const float* c0, int64_t rows, int64_t cols, int64_t ld) {
  const int64_t total = rows * ld;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    if (i % ld >= cols) c[i] = __uint_as_float(kPadSentinelBits);
    else c[i] = c0 ? c0[i] : __int_as_float(0x7FFFFFFF);
  }
}

// FP64 reference on the GPU: 64x64 output tile per block, 4x4 per thread, K in steps of 16.
// Simple on purpose: it is the oracle, not a rung. Computes ref = alpha*A*B + beta*C and
// mag = |A|*|B| in one pass.
constexpr int kRefTile = 64, kRefK = 16, kRefThreadTile = 4;
constexpr int kRefThreads = (kRefTile / kRefThreadTile) * (kRefTile / kRefThreadTile);

__global__ void __launch_bounds__(kRefThreads)
reference_kernel(int64_t M, int64_t N, int64_t K, double alpha, double beta, const float* A,
                 int64_t lda, const float* B, int64_t ldb, const float* C, int64_t ldc,
                 double* ref, double* mag) {
  __shared__ double sA[kRefK][kRefTile];  // A tile, transposed: [k][m]
  __shared__ double sB[kRefK][kRefTile];  // B tile: [k][n]
  const int tx = threadIdx.x % (kRefTile / kRefThreadTile);
  const int ty = threadIdx.x / (kRefTile / kRefThreadTile);
  const int64_t m0 = int64_t(blockIdx.y) * kRefTile, n0 = int64_t(blockIdx.x) * kRefTile;
  double acc[kRefThreadTile][kRefThreadTile] = {}, accAbs[kRefThreadTile][kRefThreadTile] = {};
  for (int64_t k0 = 0; k0 < K; k0 += kRefK) {
    for (int i = threadIdx.x; i < kRefK * kRefTile; i += kRefThreads) {
      const int kk = i % kRefK, mm = i / kRefK;  // A: consecutive threads along k
      const int64_t gm = m0 + mm, gk = k0 + kk;
      sA[kk][mm] = (gm < M && gk < K) ? double(A[gm * lda + gk]) : 0.0;
      const int nn = i % kRefTile, kb = i / kRefTile;  // B: consecutive threads along n
      const int64_t gn = n0 + nn, gkb = k0 + kb;
      sB[kb][nn] = (gn < N && gkb < K) ? double(B[gkb * ldb + gn]) : 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kRefK; ++kk) {
#pragma unroll
      for (int i = 0; i < kRefThreadTile; ++i) {
        const double a = sA[kk][ty * kRefThreadTile + i];
#pragma unroll
        for (int j = 0; j < kRefThreadTile; ++j) {
          const double b = sB[kk][tx * kRefThreadTile + j];
          acc[i][j] = fma(a, b, acc[i][j]);
          accAbs[i][j] = fma(fabs(a), fabs(b), accAbs[i][j]);
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kRefThreadTile; ++i) {
    const int64_t gm = m0 + ty * kRefThreadTile + i;
#pragma unroll
    for (int j = 0; j < kRefThreadTile; ++j) {
      const int64_t gn = n0 + tx * kRefThreadTile + j;
      if (gm < M && gn < N) {
        const double c = beta == 0.0 ? 0.0 : beta * double(C[gm * ldc + gn]);
        ref[gm * N + gn] = alpha * acc[i][j] + c;
        mag[gm * N + gn] = accAbs[i][j];
      }
    }
  }
}

}  // namespace

std::string Shape::str() const {
  std::string s = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  const Shape d = with_default_ld({M, N, K, 0, 0, 0});
  if (lda != d.lda || ldb != d.ldb || ldc != d.ldc)
    s += " lda=" + std::to_string(lda) + " ldb=" + std::to_string(ldb) + " ldc=" + std::to_string(ldc);
  return s;
}

Shape with_default_ld(Shape s) {
  if (s.lda == 0) s.lda = std::max<int64_t>(s.K, 1);
  if (s.ldb == 0) s.ldb = std::max<int64_t>(s.N, 1);
  if (s.ldc == 0) s.ldc = std::max<int64_t>(s.N, 1);
  return s;
}

const char* input_kind_name(InputKind k) {
  switch (k) {
    case InputKind::kSmallInt: return "small_int";
    case InputKind::kUniform: return "uniform";
    case InputKind::kNormal: return "normal";
    case InputKind::kWide: return "wide";
  }
  return "?";
}

std::string input_label(InputKind kind, int wide_exponent) {
  return std::string(input_kind_name(kind)) + (kind == InputKind::kWide ? std::to_string(wide_exponent) : "");
}

int64_t set_bytes(const Shape& s) {
  return int64_t(sizeof(float)) *
         int64_t(alloc_count(s.M, s.lda) + alloc_count(s.K, s.ldb) + alloc_count(s.M, s.ldc));
}

int rotation_sets(int64_t bytes_per_set, int64_t l2_bytes, int64_t free_bytes) {
  constexpr int kMaxSets = 256;
  if (bytes_per_set <= 0) return 1;
  const int64_t want = (2 * l2_bytes + bytes_per_set - 1) / bytes_per_set;
  const int64_t fit = free_bytes / 2 / bytes_per_set;  // leave half the memory for the rest
  return int(std::clamp<int64_t>(std::min(want, fit), 1, kMaxSets));
}

Reference::~Reference() {
  if (d_ref) cudaFree(d_ref);
  if (d_mag) cudaFree(d_mag);
}

Problem::Problem(const ProblemSpec& spec) : spec_(spec) {
  spec_.shape = with_default_ld(spec.shape);
  const Shape& s = spec_.shape;
  if (spec_.kind == InputKind::kWide && (spec_.wide_exponent < 0 || spec_.wide_exponent > kMaxWideExponent))
    throw std::invalid_argument("wide_exponent " + std::to_string(spec_.wide_exponent) + " is outside 0.." +
                                std::to_string(kMaxWideExponent));
  curandGenerator_t gen;
  check_curand(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), "create");
  struct Guard { curandGenerator_t g; ~Guard() { curandDestroyGenerator(g); } } guard{gen};
  // The wide distribution's exponents: a second run of uniforms from the same seed, after the
  // first (so a set stays a function of the seed alone), in a buffer as large as any operand.
  DeviceBuffer exponents;
  if (spec_.kind == InputKind::kWide)
    exponents = DeviceBuffer(std::max({alloc_count(s.M, s.lda), alloc_count(s.K, s.ldb), alloc_count(s.M, s.ldc)}));
  auto fill = [&](DeviceBuffer& buf, int64_t rows, int64_t cols, int64_t ld, uint64_t seed) {
    check_curand(curandSetPseudoRandomGeneratorSeed(gen, seed), "seed");
    if (spec_.kind == InputKind::kNormal)
      check_curand(curandGenerateNormal(gen, buf.data(), buf.size(), 0.0f, 1.0f), "normal");
    else
      check_curand(curandGenerateUniform(gen, buf.data(), buf.size()), "uniform");
    if (spec_.kind == InputKind::kWide)
      check_curand(curandGenerateUniform(gen, exponents.data(), buf.size()), "uniform (exponents)");
    shape_inputs<<<kFillBlocks, kFillThreads>>>(buf.data(), std::max<int64_t>(rows, 1), cols, ld,
                                               int(spec_.kind), exponents.data(), spec_.wide_exponent);
    SGEMM_CUDA(cudaGetLastError());
  };
  const int sets = std::max(1, spec.sets);
  for (int i = 0; i < sets; ++i) {
    const uint64_t seed = spec_.seed * 1000003ull + uint64_t(i) * 3;
    a_.emplace_back(alloc_count(s.M, s.lda));
    b_.emplace_back(alloc_count(s.K, s.ldb));
    c_.emplace_back(alloc_count(s.M, s.ldc));
    fill(a_.back(), s.M, s.K, s.lda, seed);
    fill(b_.back(), s.K, s.N, s.ldb, seed + 1);
    fill(c_.back(), s.M, s.N, s.ldc, seed + 2);
  }
  c0_ = DeviceBuffer(alloc_count(s.M, s.ldc));
  SGEMM_CUDA(cudaMemcpy(c0_.data(), c_[0].data(), c0_.size() * sizeof(float), cudaMemcpyDeviceToDevice));
  SGEMM_CUDA(cudaDeviceSynchronize());
}

GemmArgs Problem::args(int set) const {
  const Shape& s = spec_.shape;
  return GemmArgs{s.M, s.N, s.K, spec_.alpha, a_[set].data(), s.lda, b_[set].data(), s.ldb,
                  spec_.beta, c_[set].data(), s.ldc};
}

void Problem::reset_c(int set) {
  const Shape& s = spec_.shape;
  prepare_c<<<kFillBlocks, kFillThreads>>>(c_[set].data(), spec_.beta == 0.0f ? nullptr : c0_.data(),
                                          std::max<int64_t>(s.M, 1), s.N, s.ldc);
  SGEMM_CUDA(cudaGetLastError());
  SGEMM_CUDA(cudaDeviceSynchronize());
}

namespace {
std::vector<float> download(const DeviceBuffer& b) {
  std::vector<float> h(b.size());
  SGEMM_CUDA(cudaMemcpy(h.data(), b.data(), h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}
}  // namespace

std::vector<float> Problem::host_a() const { return download(a_[0]); }
std::vector<float> Problem::host_b() const { return download(b_[0]); }
std::vector<float> Problem::host_c0() const { return download(c0_); }

const Reference& Problem::reference() {
  if (ref_) return *ref_;
  const Shape& s = spec_.shape;
  auto r = std::make_unique<Reference>();
  const size_t n = size_t(std::max<int64_t>(s.M * s.N, 1));
  r->d_ref = static_cast<double*>(device_alloc(n * sizeof(double)));
  r->d_mag = static_cast<double*>(device_alloc(n * sizeof(double)));
  const double flops = 2.0 * double(s.M) * double(s.N) * double(s.K);
  if (flops <= kCpuRefFlops) {
    const auto A = host_a(), B = host_b(), C = host_c0();
    reference_cpu(s, spec_.alpha, spec_.beta, A.data(), B.data(), C.data(), &r->ref, &r->mag);
    SGEMM_CUDA(cudaMemcpy(r->d_ref, r->ref.data(), r->ref.size() * sizeof(double), cudaMemcpyHostToDevice));
    SGEMM_CUDA(cudaMemcpy(r->d_mag, r->mag.data(), r->mag.size() * sizeof(double), cudaMemcpyHostToDevice));
  } else {
    reference_gpu(s, spec_.alpha, spec_.beta, a_[0].data(), b_[0].data(), c0_.data(), r->d_ref, r->d_mag);
  }
  ref_ = std::move(r);
  return *ref_;
}

void Problem::set_element(char operand, int64_t row, int64_t col, float value) {
  const Shape& s = spec_.shape;
  float* base = operand == 'A' ? a_[0].data() : operand == 'B' ? b_[0].data() : c0_.data();
  const int64_t ld = operand == 'A' ? s.lda : operand == 'B' ? s.ldb : s.ldc;
  SGEMM_CUDA(cudaMemcpy(base + row * ld + col, &value, sizeof value, cudaMemcpyHostToDevice));
  ref_.reset();
}

bool Problem::guards_intact() const {
  for (const auto* v : {&a_, &b_, &c_})
    for (const DeviceBuffer& b : *v)
      if (!b.guards_intact()) return false;
  return c0_.guards_intact();
}

void reference_cpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                   const float* C, std::vector<double>* ref, std::vector<double>* mag) {
  ref->assign(size_t(std::max<int64_t>(s.M * s.N, 1)), 0.0);
  mag->assign(ref->size(), 0.0);
  std::vector<double> acc(size_t(s.N)), accAbs(size_t(s.N));
  for (int64_t m = 0; m < s.M; ++m) {
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(accAbs.begin(), accAbs.end(), 0.0);
    for (int64_t k = 0; k < s.K; ++k) {
      const double a = A[m * s.lda + k];
      const float* brow = B + k * s.ldb;
      for (int64_t n = 0; n < s.N; ++n) {
        acc[n] += a * double(brow[n]);
        accAbs[n] += std::fabs(a) * std::fabs(double(brow[n]));
      }
    }
    for (int64_t n = 0; n < s.N; ++n) {
      const double c = beta == 0.0f ? 0.0 : double(beta) * double(C[m * s.ldc + n]);
      (*ref)[m * s.N + n] = double(alpha) * acc[n] + c;
      (*mag)[m * s.N + n] = accAbs[n];
    }
  }
}

void reference_gpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                   const float* C, double* ref, double* mag) {
  if (s.M == 0 || s.N == 0) return;
  const dim3 grid(unsigned(ceil_div64(s.N, kRefTile)), unsigned(ceil_div64(s.M, kRefTile)));
  reference_kernel<<<grid, kRefThreads>>>(s.M, s.N, s.K, alpha, beta, A, s.lda, B, s.ldb, C,
                                          s.ldc, ref, mag);
  SGEMM_CUDA(cudaGetLastError());
  SGEMM_CUDA(cudaDeviceSynchronize());
}

}  // namespace sgemm::harness
