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

struct Shape {
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0: the row length (dense rows, as a contiguous array has)
  std::string name = {};              // a workload suite's name for the shape ("" otherwise)
  std::string str() const;            // "4096x4096x4096" (+ " lda=.." when not the default)
};

// Leading dimensions left at 0 become the row length: dense rows, as a caller's contiguous
// arrays have (rows then start on 16-byte boundaries only where the length is a multiple of 4).
Shape with_default_ld(Shape s);

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

// Bytes one set of A, B, C occupies.
int64_t set_bytes(const Shape& s);

// The FP64 reference of one input set: ref = alpha*A*B + beta*C and the magnitude
// |A|*|B| (without alpha) that the element-wise error bound scales with.
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
  // padding columns (ld > N) holding a sentinel NaN pattern that must survive the run.
  void reset_c(int set);
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
  std::vector<DeviceBuffer> a_, b_, c_;
  DeviceBuffer c0_;  // pristine C of set 0
  std::unique_ptr<Reference> ref_;
};

// FP64 references: the CPU one for small shapes and as the test oracle, the GPU one for large
// shapes. Both compute ref = alpha*A*B + beta*C and mag = |A|*|B|.
void reference_cpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                   const float* C, std::vector<double>* ref, std::vector<double>* mag);
void reference_gpu(const Shape& s, float alpha, float beta, const float* A, const float* B,
                   const float* C, double* ref, double* mag);

// The sentinel written into C's padding columns; its bits must be unchanged after a run.
constexpr uint32_t kPadSentinelBits = 0x7FC0FEEDu;

}  // namespace sgemm::harness
