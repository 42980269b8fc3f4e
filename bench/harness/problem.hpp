// A GEMM problem on the device: the shape, the inputs (several rotating sets so that timing
// never measures the L2 cache), a pristine copy of C, and the FP64 reference.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::harness {

// A product as sgemm_ladder_gemm takes it: C = alpha op(A) op(B) + beta C (+ bias), `batch` times.
// A is stored K x M when transa (op(A) = A^T), B N x K when transb.
struct Shape {
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0: the row length (dense rows, as a contiguous array has)
  std::string name = {};              // a workload suite's name for the shape ("" otherwise)
  bool transa = false, transb = false;
  int64_t batch = 1;
  // Elements between the products' operands; -1: one operand after the other (rows x ld). A and B
  // may have 0 (every product reads the same operand); otherwise a whole number of rows.
  int64_t strideA = -1, strideB = -1, strideC = -1;
  bool bias = false;                  // N floats added to every row of C
  // "4096x4096x4096" (+ " lda=.." when not the default, " layout=tn", " batch=3", " bias")
  std::string str() const;
  int64_t rowsA() const { return transa ? K : M; }  // A and B as stored
  int64_t colsA() const { return transa ? M : K; }
  int64_t rowsB() const { return transb ? N : K; }
  int64_t colsB() const { return transb ? K : N; }
  bool plain() const { return !transa && !transb && batch == 1 && !bias; }
};

// Leading dimensions left at 0 become the row length of the operand as stored: dense rows, as a
// caller's contiguous arrays have (rows then start on 16-byte boundaries only where the length is
// a multiple of 4). Strides left at -1 become one operand after the other.
Shape with_default_ld(Shape s);
// Whether the leading dimensions are those defaults.
bool default_ld(const Shape& s);
// "nn", "nt", "tn", "tt": op(A)'s letter first.
std::string layout_name(const Shape& s);
// The number of `rows` x `ld` matrices of a batch laid out `stride` apart (0: one for all) span, in
// rows of ld: (count - 1) * stride / ld + rows.
int64_t batch_rows(int64_t rows, int64_t ld, int64_t stride, int64_t batch);
// The arguments of the shape's product on these operands (bias: used when the shape has one).
GemmArgs gemm_args(const Shape& s, float alpha, float beta, const float* A, const float* B, float* C,
                   const float* bias);

enum class InputKind {
  kSmallInt,  // integers in [-2, 2]: every FP32 product and sum is exact -> exact comparison
  kUniform,   // uniform in [-1, 1]
  kNormal,    // standard normal
  kWide,      // u * 2^e: u uniform in [-1, 1], e an integer uniform in [-E, E] (wide_exponent)
};
const char* input_kind_name(InputKind k);

// The largest exponent range of the wide distribution: 2^126 * u stays finite in FP32.
constexpr int kMaxWideExponent = 126;

#ifdef __CUDACC__
#define SGEMM_HARNESS_HD __host__ __device__
#else
#define SGEMM_HARNESS_HD
#endif

// The wide distribution from two of cuRAND's uniforms in (0, 1]: `v` picks the exponent e in
// [-E, E] (each of the 2E + 1 values about equally likely), `u` the value 2u - 1 it scales.
// One function for the generator on the device and for the CPU tests.
inline SGEMM_HARNESS_HD int wide_exponent_of(float v, int E) {
  const int e = int(v * float(2 * E + 1));  // v = 1 gives 2E + 1: folded onto 2E below
  return (e > 2 * E ? 2 * E : e) - E;
}
inline SGEMM_HARNESS_HD float wide_value(float u, float v, int E) {
  return ldexpf(2.0f * u - 1.0f, wide_exponent_of(v, E));
}

struct ProblemSpec {
  Shape shape;
  float alpha = 1.0f;
  float beta = 0.0f;
  InputKind kind = InputKind::kUniform;
  int wide_exponent = 20;  // E of kWide (0..kMaxWideExponent); no effect on the other kinds
  uint64_t seed = 42;
  int sets = 1;  // rotating input sets (see rotation_sets)
};

// "uniform", "normal", "small_int"; "wide20" for kWide with E = 20: the name of a distribution in
// row names and problem keys, where the exponent range matters as much as the kind.
std::string input_label(InputKind kind, int wide_exponent);

// How many input sets of `bytes_per_set` make the working set exceed twice the L2 cache,
// capped so the rotation fits `free_bytes` and stays below 256 sets.
int rotation_sets(int64_t bytes_per_set, int64_t l2_bytes, int64_t free_bytes);

// Bytes one set of A, B, C (and the bias) occupies, every product of the batch.
int64_t set_bytes(const Shape& s);

// The FP64 reference of one input set: ref = alpha*op(A)*op(B) + beta*C (+ bias) and the magnitude
// |op(A)|*|op(B)| (without alpha) that the element-wise error bound scales with; product b's
// element (m, n) at (b * M + m) * N + n.
struct Reference {
  std::vector<double> ref, mag;  // host copies (CPU path) — or empty when on the device
  double* d_ref = nullptr;       // device copies (always present after compute)
  double* d_mag = nullptr;
  ~Reference();
};

class Problem {
 public:
  explicit Problem(const ProblemSpec& spec);  // allocates and fills every set
  const ProblemSpec& spec() const { return spec_; }
  int sets() const { return int(a_.size()); }

  GemmArgs args(int set) const;
  // Before a verified run: C of `set` := pristine C (beta != 0) or all NaN (beta == 0), with the
  // padding columns (ld > N) and the rows between products holding a sentinel NaN pattern that
  // must survive the run.
  void reset_c(int set);
  // Host copy of set 0's bias (empty without one).
  std::vector<float> host_bias() const;
  // The FP64 reference for set 0, computed on first use (CPU below kCpuRefFlops, else GPU).
  const Reference& reference();
  // Host copies of set 0's inputs (for CPU-side checks in tests).
  std::vector<float> host_a() const;
  std::vector<float> host_b() const;
  std::vector<float> host_c0() const;
  const float* pristine_c() const { return c0_.data(); }
  bool guards_intact() const;
  // Overwrite one element of set 0's A, B or (pristine) C, e.g. with Inf or NaN, before the
  // reference is computed; the cached reference is dropped.
  void set_element(char operand, int64_t row, int64_t col, float value);

  static constexpr double kCpuRefFlops = 2.0 * 256 * 256 * 256;

 private:
  ProblemSpec spec_;
  std::vector<DeviceBuffer> a_, b_, c_, bias_;
  DeviceBuffer c0_;  // pristine C of set 0
  std::unique_ptr<Reference> ref_;
};

// FP64 references: the CPU one for small shapes and as the test oracle, the GPU one for large
// shapes. Both compute ref = alpha*op(A)*op(B) + beta*C (+ bias) and mag = |op(A)|*|op(B)| for
// every product of the shape's batch (Reference's order), the operands as `s` lays them out.
void reference_cpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                   const float* C, const float* bias, std::vector<double>* ref, std::vector<double>* mag);
void reference_gpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                   const float* C, const float* bias, double* ref, double* mag);
// Without a bias.
inline void reference_cpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                          const float* C, std::vector<double>* ref, std::vector<double>* mag) {
  reference_cpu(s, alpha, beta, A, B, C, nullptr, ref, mag);
}
inline void reference_gpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                          const float* C, double* ref, double* mag) {
  reference_gpu(s, alpha, beta, A, B, C, nullptr, ref, mag);
}

// The sentinel written into C's padding columns; its bits must be unchanged after a run.
constexpr uint32_t kPadSentinelBits = 0x7FC0FEEDu;

}  // namespace sgemm::harness
