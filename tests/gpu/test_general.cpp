// The general entry on a device (sgemm_ladder_gemm): every rung in every layout, batched (with a
// shared B and gaps between C's products) and with a bias, against the FP64 reference within the
// rung's bound; the degenerate products; and a refused call that leaves C as it was. A rung runs
// what its `takes` holds itself and gets the rest from the front door (copies, loops, bias pass):
// either way the result must verify. Loops inside a few tests keep the case count small.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "gpu_test_util.hpp"
#include "harness/cuda_check.hpp"
#include "sgemm_ladder.h"

namespace sgemm::test {

using harness::InputKind;
using harness::ProblemSpec;
using harness::Shape;

namespace {

struct Layout {
  bool transa, transb;
};
constexpr Layout kLayouts[] = {{false, false}, {false, true}, {true, false}, {true, true}};

// `base` in layout `l` with `batch` products: dense operands, B shared by every product (stride 0)
// when `sharedB`, a row's gap between C's products when `gapC` (it must keep its sentinel).
Shape general_shape(Shape base, Layout l, int64_t batch, bool bias, bool sharedB, bool gapC) {
  Shape s = base;
  s.transa = l.transa;
  s.transb = l.transb;
  s.batch = batch;
  s.bias = bias;
  s = harness::with_default_ld(s);
  if (batch > 1 && sharedB) s.strideB = 0;
  if (batch > 1 && gapC) s.strideC = (s.M + 1) * s.ldc;
  return s;
}

// Through the C ABI, as a caller has it (flags in both cases of letter).
int run_c(int rung, const GemmArgs& a) {
  return sgemm_ladder_gemm(rung, a.transa ? 'T' : 'n', a.transb ? 't' : 'N', a.M, a.N, a.K, a.alpha, a.A, a.lda,
                           a.strideA, a.B, a.ldb, a.strideB, a.beta, a.C, a.ldc, a.strideC, a.bias, a.batch, nullptr);
}

// Poison C, run through the C ABI, verify every product. A refusal passes only where the rung
// refuses the plain product of the shape too (its own limits, not the general call's).
bool check_one(const Rung& rung, const ProblemSpec& spec) {
  harness::Problem p(spec);
  p.reset_c(0);
  const GemmArgs a = p.args(0);
  const int status = run_c(rung.id, a);
  if (status == SGEMM_LADDER_ERR_UNSUPPORTED) {
    const GemmArgs plain{a.M, a.N, a.K, a.alpha, nullptr, std::max<int64_t>(a.K, 1), nullptr,
                         std::max<int64_t>(a.N, 1), a.beta, nullptr, std::max<int64_t>(a.N, 1)};
    std::string why;
    EXPECT_FALSE(rung.supports(plain, &why)) << describe(rung.id, spec) << ": refused ("
                                              << sgemm_ladder_last_error() << ") though the plain product runs";
    return !rung.supports(plain, &why);
  }
  if (status != SGEMM_LADDER_OK) {
    ADD_FAILURE() << describe(rung.id, spec) << ": " << sgemm_ladder_status_string(status) << ": "
                  << sgemm_ladder_last_error();
    return false;
  }
  SGEMM_CUDA(cudaDeviceSynchronize());
  const harness::VerifyResult r = harness::verify(p, rung.precision);
  EXPECT_TRUE(r.ok) << describe(rung.id, spec) << ": " << r.summary();
  return r.ok;
}

// Every layout x batch {1, 3} x bias {off, on} x (alpha, beta) of every shape; stops after a few
// failures (one cause usually fails every case).
void check_general(int rung_id, const std::vector<Shape>& shapes, const std::vector<std::pair<float, float>>& ab,
                   InputKind kind) {
  const Rung& rung = *find_rung(rung_id);
  int failures = 0;
  for (size_t si = 0; si < shapes.size(); ++si)
    for (size_t li = 0; li < std::size(kLayouts); ++li)
      for (int64_t batch : {1, 3})
        for (bool bias : {false, true})
          for (const auto& [alpha, beta] : ab) {
            ProblemSpec spec;
            spec.shape = general_shape(shapes[si], kLayouts[li], batch, bias, (si + li) % 2 == 0, li >= 2);
            spec.alpha = alpha;
            spec.beta = beta;
            spec.kind = kind;
            if (!check_one(rung, spec) && ++failures >= 5) return;
          }
}

}  // namespace

class General : public ::testing::TestWithParam<int> {};

TEST_P(General, LayoutsBatchesAndBiasWithinTheBound) {
  check_general(GetParam(), {{37, 45, 29}, {1, 77, 130}, {130, 1, 67}}, {{1.0f, 0.0f}, {-0.5f, 1.5f}},
                InputKind::kUniform);
}

TEST_P(General, RefusedCallWritesNothing) {
  const int id = GetParam();
  ProblemSpec spec;
  spec.shape = general_shape({64, 48, 32}, {true, false}, 3, true, false, true);
  spec.beta = 1.0f;
  harness::Problem p(spec);
  p.reset_c(0);
  const GemmArgs a = p.args(0);
  const Shape& s = p.spec().shape;
  const size_t n = size_t(harness::batch_rows(s.M, s.ldc, s.strideC, s.batch) * s.ldc);
  std::vector<float> before(n), after(n);
  SGEMM_CUDA(cudaMemcpy(before.data(), a.C, n * sizeof(float), cudaMemcpyDeviceToHost));
  auto with = [&](auto edit) {
    GemmArgs b = a;
    edit(b);
    return b;
  };
  struct Bad {
    const char* what;
    GemmArgs args;
    int status;
  };
  const Bad cases[] = {
      {"batch=0", with([](GemmArgs& b) { b.batch = 0; }), SGEMM_LADDER_ERR_INVALID_BATCH},
      {"strideA<0", with([](GemmArgs& b) { b.strideA = -1; }), SGEMM_LADDER_ERR_INVALID_BATCH},
      {"strideC overlaps", with([](GemmArgs& b) { b.strideC = b.M * b.ldc - 1; }), SGEMM_LADDER_ERR_INVALID_BATCH},
      {"lda<M for A^T", with([](GemmArgs& b) { b.lda = b.M - 1; }), SGEMM_LADDER_ERR_INVALID_LD},
      {"ldb<N", with([](GemmArgs& b) { b.ldb = b.N - 1; }), SGEMM_LADDER_ERR_INVALID_LD},
      {"A null", with([](GemmArgs& b) { b.A = nullptr; }), SGEMM_LADDER_ERR_NULL_POINTER},
      {"batch span overflows", with([](GemmArgs& b) { b.strideB = INT64_MAX / 4; }), SGEMM_LADDER_ERR_SIZE_OVERFLOW},
      {"bias off 4 bytes",
       with([](GemmArgs& b) { b.bias = reinterpret_cast<const float*>(reinterpret_cast<const char*>(b.bias) + 2); }),
       SGEMM_LADDER_ERR_UNSUPPORTED},
  };
  for (const Bad& c : cases) {
    EXPECT_EQ(run_c(id, c.args), c.status) << c.what << ": " << sgemm_ladder_last_error();
    EXPECT_STRNE(sgemm_ladder_last_error(), "") << c.what;
  }
  for (char flag : {'x', 'C', '\0'}) {
    EXPECT_EQ(sgemm_ladder_gemm(id, flag, 'N', a.M, a.N, a.K, a.alpha, a.A, a.lda, a.strideA, a.B, a.ldb, a.strideB,
                                a.beta, a.C, a.ldc, a.strideC, a.bias, a.batch, nullptr),
              SGEMM_LADDER_ERR_INVALID_TRANS);
    EXPECT_EQ(sgemm_ladder_gemm(id, 'T', flag, a.M, a.N, a.K, a.alpha, a.A, a.lda, a.strideA, a.B, a.ldb, a.strideB,
                                a.beta, a.C, a.ldc, a.strideC, a.bias, a.batch, nullptr),
              SGEMM_LADDER_ERR_INVALID_TRANS);
  }
  SGEMM_CUDA(cudaDeviceSynchronize());
  SGEMM_CUDA(cudaMemcpy(after.data(), a.C, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(before.data(), after.data(), n * sizeof(float)), 0) << "a refused call wrote C";
}

INSTANTIATE_TEST_SUITE_P(Registry, General, ::testing::ValuesIn(rung_ids()), rung_name);

// K = 0 and alpha = 0: C = beta * C (+ bias) of every product, without reading A or B, whatever
// the layout; one rung is enough (the front door does it before any rung).
TEST(GeneralDegenerate, EveryProductScaledAndBiased) {
  const int id = registry().front().id;
  check_general(id, {{17, 9, 0}, {5, 33, 0}}, {{1.0f, 0.0f}, {1.0f, 1.5f}}, InputKind::kUniform);
  check_general(id, {{19, 23, 5}}, {{0.0f, 0.0f}, {0.0f, -2.0f}}, InputKind::kSmallInt);
}

// Several tiles of the transposing copy in both directions, batches past one tile row, on the
// last CUDA-core rung that reads no layout in place (the front door copies its transposed
// operands): the copies and the loop at sizes where a wrong index shows. Leading dimensions that
// are multiples of 4 (128-bit loads of the source's rows) and that are not (one float at a time);
// tile edges inside a row and past the last row.
TEST(GeneralCopies, LargerShapesOnARungThatCopies) {
  const Rung* copying = nullptr;
  for (const Rung& r : registry())
    if (r.track == Track::kCudaCore && !(r.takes & kTakesLayouts)) copying = &r;
  if (!copying) GTEST_SKIP() << "no CUDA-core rung copies transposed operands";
  for (const Shape& base : {Shape{257, 129, 300}, Shape{66, 1000, 97}, Shape{132, 68, 200}})
    for (const Layout& l : kLayouts) {
      ProblemSpec spec;
      spec.shape = general_shape(base, l, 2, true, false, true);
      spec.alpha = 0.5f;
      spec.beta = -1.0f;
      spec.kind = InputKind::kNormal;
      check_one(*copying, spec);
    }
}

}  // namespace sgemm::test
