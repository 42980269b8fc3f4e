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
// with the padding columns and the rows between products (row % rowsPer >= M; rowsPer: rows from
// one product to the next) set to the sentinel bit pattern.
__global__ void prepare_c(float* c, const float* c0, int64_t rows, int64_t cols, int64_t ld, int64_t M,
                          int64_t rowsPer) {
  const int64_t total = rows * ld;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    if (i % ld >= cols || i / ld % rowsPer >= M) c[i] = __uint_as_float(kPadSentinelBits);
    else c[i] = c0 ? c0[i] : __int_as_float(0x7FFFFFFF);
  }
}

// FP64 reference on the GPU: 64x64 output tile per block, 4x4 per thread, K in steps of 16, one
// product of the batch per grid z (looping past the grid's limit). Simple on purpose: it is the
// oracle, not a rung. Computes ref = alpha*op(A)*op(B) + beta*C (+ bias) and mag = |op(A)|*|op(B)|
// in one pass. Element (m, k) of op(A) is A[m * aM + k * aK], element (k, n) of op(B) is
// B[k * bK + n * bN]; consecutive threads load along the operand's rows as stored.
constexpr int kRefTile = 64, kRefK = 16, kRefThreadTile = 4;
constexpr int kRefThreads = (kRefTile / kRefThreadTile) * (kRefTile / kRefThreadTile);

struct RefProduct {
  int64_t M, N, K, batch;
  double alpha, beta;
  const float* A;
  int64_t aM, aK, strideA;
  const float* B;
  int64_t bK, bN, strideB;
  const float* C;
  int64_t ldc, strideC;
  const float* bias;
};

__global__ void __launch_bounds__(kRefThreads) reference_kernel(RefProduct p, double* ref, double* mag) {
  __shared__ double sA[kRefK][kRefTile];  // A tile, transposed: [k][m]
  __shared__ double sB[kRefK][kRefTile];  // B tile: [k][n]
  const int tx = threadIdx.x % (kRefTile / kRefThreadTile);
  const int ty = threadIdx.x / (kRefTile / kRefThreadTile);
  const int64_t m0 = int64_t(blockIdx.y) * kRefTile, n0 = int64_t(blockIdx.x) * kRefTile;
  const int64_t M = p.M, N = p.N, K = p.K;
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {  // product z of the batch
    const float* A = p.A + z * p.strideA;
    const float* B = p.B + z * p.strideB;
    double acc[kRefThreadTile][kRefThreadTile] = {}, accAbs[kRefThreadTile][kRefThreadTile] = {};
    for (int64_t k0 = 0; k0 < K; k0 += kRefK) {
      for (int i = threadIdx.x; i < kRefK * kRefTile; i += kRefThreads) {
        const bool alongK = p.aK == 1;  // A's rows as stored run along k (A) or m (A^T)
        const int kk = alongK ? i % kRefK : i / kRefTile, mm = alongK ? i / kRefK : i % kRefTile;
        const int64_t gm = m0 + mm, gk = k0 + kk;
        sA[kk][mm] = (gm < M && gk < K) ? double(A[gm * p.aM + gk * p.aK]) : 0.0;
        const bool alongN = p.bN == 1;  // B's rows as stored run along n (B) or k (B^T)
        const int nn = alongN ? i % kRefTile : i / kRefK, kb = alongN ? i / kRefTile : i % kRefK;
        const int64_t gn = n0 + nn, gkb = k0 + kb;
        sB[kb][nn] = (gn < N && gkb < K) ? double(B[gkb * p.bK + gn * p.bN]) : 0.0;
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
          const double c = p.beta == 0.0 ? 0.0 : p.beta * double(p.C[z * p.strideC + gm * p.ldc + gn]);
          const int64_t at = (z * M + gm) * N + gn;
          ref[at] = p.alpha * acc[i][j] + c + (p.bias ? double(p.bias[gn]) : 0.0);
          mag[at] = accAbs[i][j];
        }
      }
    }
  }
}

}  // namespace

std::string Shape::str() const {
  std::string s = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  if (!default_ld(*this))
    s += " lda=" + std::to_string(lda) + " ldb=" + std::to_string(ldb) + " ldc=" + std::to_string(ldc);
  if (transa || transb) s += " layout=" + layout_name(*this);
  if (batch != 1) {
    s += " batch=" + std::to_string(batch);
    const Shape d = with_default_ld(*this);
    Shape dense = d;
    dense.strideA = dense.strideB = dense.strideC = -1;
    dense = with_default_ld(dense);
    if (d.strideA != dense.strideA) s += " strideA=" + std::to_string(d.strideA);
    if (d.strideB != dense.strideB) s += " strideB=" + std::to_string(d.strideB);
    if (d.strideC != dense.strideC) s += " strideC=" + std::to_string(d.strideC);
  }
  if (bias) s += " bias";
  return s;
}

Shape with_default_ld(Shape s) {
  if (s.lda == 0) s.lda = std::max<int64_t>(s.colsA(), 1);
  if (s.ldb == 0) s.ldb = std::max<int64_t>(s.colsB(), 1);
  if (s.ldc == 0) s.ldc = std::max<int64_t>(s.N, 1);
  if (s.strideA == -1) s.strideA = s.rowsA() * s.lda;
  if (s.strideB == -1) s.strideB = s.rowsB() * s.ldb;
  if (s.strideC == -1) s.strideC = s.M * s.ldc;
  return s;
}

bool default_ld(const Shape& s) {
  Shape d = s;
  d.lda = d.ldb = d.ldc = 0;
  d = with_default_ld(d);
  return s.lda == d.lda && s.ldb == d.ldb && s.ldc == d.ldc;
}

std::string layout_name(const Shape& s) { return std::string(s.transa ? "t" : "n") + (s.transb ? "t" : "n"); }

int64_t batch_rows(int64_t rows, int64_t ld, int64_t stride, int64_t batch) {
  if (batch <= 1 || stride == 0) return rows;
  return (batch - 1) * (stride / ld) + rows;
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

int64_t set_bytes(const Shape& shape) {
  const Shape s = with_default_ld(shape);
  return int64_t(sizeof(float)) * int64_t(alloc_count(batch_rows(s.rowsA(), s.lda, s.strideA, s.batch), s.lda) +
                                          alloc_count(batch_rows(s.rowsB(), s.ldb, s.strideB, s.batch), s.ldb) +
                                          alloc_count(batch_rows(s.M, s.ldc, s.strideC, s.batch), s.ldc) +
                                          (s.bias ? alloc_count(1, std::max<int64_t>(s.N, 1)) : 0));
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
  // Strides the buffers below can lay out: a whole number of rows, no fewer than one operand's
  // (A and B may also have 0: one operand for every product).
  auto check_stride = [&](const char* name, int64_t stride, int64_t rows, int64_t ld, bool shared_ok) {
    if (s.batch <= 1 || (stride == 0 && shared_ok) || (stride >= rows * ld && stride % ld == 0)) return;
    throw std::invalid_argument(std::string(name) + "=" + std::to_string(stride) + " is not " +
                                (shared_ok ? "0 or " : "") + "a whole number of rows of the operand, at least one operand");
  };
  check_stride("strideA", s.strideA, s.rowsA(), s.lda, true);
  check_stride("strideB", s.strideB, s.rowsB(), s.ldb, true);
  check_stride("strideC", s.strideC, s.M, s.ldc, false);
  if (s.batch < 1) throw std::invalid_argument("batch " + std::to_string(s.batch) + " is below 1");
  const int64_t rowsA = batch_rows(s.rowsA(), s.lda, s.strideA, s.batch);
  const int64_t rowsB = batch_rows(s.rowsB(), s.ldb, s.strideB, s.batch);
  const int64_t rowsC = batch_rows(s.M, s.ldc, s.strideC, s.batch);
  const int64_t biasLen = std::max<int64_t>(s.N, 1);
  curandGenerator_t gen;
  check_curand(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), "create");
  struct Guard { curandGenerator_t g; ~Guard() { curandDestroyGenerator(g); } } guard{gen};
  // The wide distribution's exponents: a second run of uniforms from the same seed, after the
  // first (so a set stays a function of the seed alone), in a buffer as large as any operand.
  DeviceBuffer exponents;
  if (spec_.kind == InputKind::kWide)
    exponents = DeviceBuffer(std::max({alloc_count(rowsA, s.lda), alloc_count(rowsB, s.ldb), alloc_count(rowsC, s.ldc),
                                       alloc_count(1, biasLen)}));
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
    a_.emplace_back(alloc_count(rowsA, s.lda));
    b_.emplace_back(alloc_count(rowsB, s.ldb));
    c_.emplace_back(alloc_count(rowsC, s.ldc));
    fill(a_.back(), rowsA, s.colsA(), s.lda, seed);
    fill(b_.back(), rowsB, s.colsB(), s.ldb, seed + 1);
    fill(c_.back(), rowsC, s.N, s.ldc, seed + 2);
    if (s.bias) {  // seeds apart from every set's A, B and C
      bias_.emplace_back(alloc_count(1, biasLen));
      fill(bias_.back(), 1, s.N, biasLen, spec_.seed * 1000003ull + 500009ull + uint64_t(i));
    }
  }
  c0_ = DeviceBuffer(alloc_count(rowsC, s.ldc));
  SGEMM_CUDA(cudaMemcpy(c0_.data(), c_[0].data(), c0_.size() * sizeof(float), cudaMemcpyDeviceToDevice));
  SGEMM_CUDA(cudaDeviceSynchronize());
}

GemmArgs gemm_args(const Shape& s, float alpha, float beta, const float* A, const float* B, float* C,
                   const float* bias) {
  GemmArgs a{s.M, s.N, s.K, alpha, A, s.lda, B, s.ldb, beta, C, s.ldc};
  a.transa = s.transa;
  a.transb = s.transb;
  a.batch = s.batch;
  a.strideA = s.strideA;
  a.strideB = s.strideB;
  a.strideC = s.strideC;
  a.bias = s.bias ? bias : nullptr;
  return a;
}

GemmArgs Problem::args(int set) const {
  return gemm_args(spec_.shape, spec_.alpha, spec_.beta, a_[set].data(), b_[set].data(), c_[set].data(),
                   spec_.shape.bias ? bias_[set].data() : nullptr);
}

void Problem::reset_c(int set) {
  const Shape& s = spec_.shape;
  const int64_t m = std::max<int64_t>(s.M, 1);  // an empty C still gets its one row reset
  const int64_t rowsPer = s.batch > 1 ? s.strideC / s.ldc : m;
  prepare_c<<<kFillBlocks, kFillThreads>>>(c_[set].data(), spec_.beta == 0.0f ? nullptr : c0_.data(),
                                          batch_rows(m, s.ldc, s.strideC, s.batch), s.N, s.ldc, m,
                                          std::max<int64_t>(rowsPer, 1));
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
std::vector<float> Problem::host_bias() const { return bias_.empty() ? std::vector<float>() : download(bias_[0]); }

const Reference& Problem::reference() {
  if (ref_) return *ref_;
  const Shape& s = spec_.shape;
  auto r = std::make_unique<Reference>();
  const size_t n = size_t(std::max<int64_t>(s.batch * s.M * s.N, 1));
  r->d_ref = static_cast<double*>(device_alloc(n * sizeof(double)));
  r->d_mag = static_cast<double*>(device_alloc(n * sizeof(double)));
  const double flops = 2.0 * double(s.M) * double(s.N) * double(s.K) * double(s.batch);
  if (flops <= kCpuRefFlops) {
    const auto A = host_a(), B = host_b(), C = host_c0(), bias = host_bias();
    reference_cpu(s, spec_.alpha, spec_.beta, A.data(), B.data(), C.data(), s.bias ? bias.data() : nullptr, &r->ref,
                  &r->mag);
    SGEMM_CUDA(cudaMemcpy(r->d_ref, r->ref.data(), r->ref.size() * sizeof(double), cudaMemcpyHostToDevice));
    SGEMM_CUDA(cudaMemcpy(r->d_mag, r->mag.data(), r->mag.size() * sizeof(double), cudaMemcpyHostToDevice));
  } else {
    reference_gpu(s, spec_.alpha, spec_.beta, a_[0].data(), b_[0].data(), c0_.data(),
                  s.bias ? bias_[0].data() : nullptr, r->d_ref, r->d_mag);
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
  for (const auto* v : {&a_, &b_, &c_, &bias_})
    for (const DeviceBuffer& b : *v)
      if (!b.guards_intact()) return false;
  return c0_.guards_intact();
}

void reference_cpu(const Shape& shape, float alpha, float beta, const float* A, const float* B,
                   const float* C, const float* bias, std::vector<double>* ref, std::vector<double>* mag) {
  const Shape s = with_default_ld(shape);
  ref->assign(size_t(std::max<int64_t>(s.batch * s.M * s.N, 1)), 0.0);
  mag->assign(ref->size(), 0.0);
  // Element (m, k) of op(A) at A[m * aM + k * aK], (k, n) of op(B) at B[k * bK + n * bN].
  const int64_t aM = s.transa ? 1 : s.lda, aK = s.transa ? s.lda : 1;
  const int64_t bK = s.transb ? 1 : s.ldb, bN = s.transb ? s.ldb : 1;
  const bool batched = s.batch > 1;
  std::vector<double> acc(size_t(s.N)), accAbs(size_t(s.N));
  for (int64_t b = 0; b < s.batch; ++b) {
    const float* Ab = s.K > 0 && batched ? A + b * s.strideA : A;
    const float* Bb = s.K > 0 && batched ? B + b * s.strideB : B;
    const float* Cb = batched ? C + b * s.strideC : C;
    for (int64_t m = 0; m < s.M; ++m) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(accAbs.begin(), accAbs.end(), 0.0);
      for (int64_t k = 0; k < s.K; ++k) {
        const double a = Ab[m * aM + k * aK];
        const float* brow = Bb + k * bK;
        for (int64_t n = 0; n < s.N; ++n) {
          const double bv = brow[n * bN];
          acc[n] += a * bv;
          accAbs[n] += std::fabs(a) * std::fabs(bv);
        }
      }
      for (int64_t n = 0; n < s.N; ++n) {
        const double c = beta == 0.0f ? 0.0 : double(beta) * double(Cb[m * s.ldc + n]);
        const size_t at = size_t((b * s.M + m) * s.N + n);
        (*ref)[at] = double(alpha) * acc[n] + c + (bias ? double(bias[n]) : 0.0);
        (*mag)[at] = accAbs[n];
      }
    }
  }
}

void reference_gpu(const Shape& shape, float alpha, float beta, const float* A, const float* B,
                   const float* C, const float* bias, double* ref, double* mag) {
  const Shape s = with_default_ld(shape);
  if (s.M == 0 || s.N == 0) return;
  const bool batched = s.batch > 1;
  const RefProduct p{s.M, s.N, s.K, s.batch, alpha, beta,
                     A, s.transa ? 1 : s.lda, s.transa ? s.lda : 1, batched ? s.strideA : 0,
                     B, s.transb ? 1 : s.ldb, s.transb ? s.ldb : 1, batched ? s.strideB : 0,
                     C, s.ldc, batched ? s.strideC : 0, bias};
  constexpr int64_t kMaxGridZ = 65535;
  const dim3 grid(unsigned(ceil_div64(s.N, kRefTile)), unsigned(ceil_div64(s.M, kRefTile)),
                  unsigned(std::min(s.batch, kMaxGridZ)));
  reference_kernel<<<grid, kRefThreads>>>(p, ref, mag);
  SGEMM_CUDA(cudaGetLastError());
  SGEMM_CUDA(cudaDeviceSynchronize());
}

}  // namespace sgemm::harness
