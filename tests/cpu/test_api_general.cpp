// Argument checking of the general entry, sgemm_ladder_gemm (layouts, batches, bias), through the
// C ABI and the C++ API: every refusal returns its documented status and a one-line detail before
// any GPU work, so these run without a GPU (the stand-in pointers are never dereferenced).
#include <climits>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "sgemm_ladder.h"
#include "sgemm_ladder.hpp"

using sgemm::GemmArgs;
using sgemm::Status;

namespace {

const float* fake(uintptr_t v = 256) { return reinterpret_cast<const float*>(v); }
float* fake_c(uintptr_t v = 4096) { return reinterpret_cast<float*>(v); }

// One general call: every argument of sgemm_ladder_gemm, defaults a valid 8x6x5 NN product.
struct Call {
  int kernel = 0;
  char transa = 'N', transb = 'N';
  int64_t M = 8, N = 6, K = 5;
  float alpha = 1.0f;
  const float* A = fake();
  int64_t lda = 5, strideA = 0;
  const float* B = fake(1024);
  int64_t ldb = 6, strideB = 0;
  float beta = 0.0f;
  float* C = fake_c();
  int64_t ldc = 6, strideC = 0;
  const float* bias = nullptr;
  int64_t batch = 1;

  int run() const {
    return sgemm_ladder_gemm(kernel, transa, transb, M, N, K, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,
                             strideC, bias, batch, nullptr);
  }
  GemmArgs args() const {
    GemmArgs a{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
    a.transa = transa == 'T' || transa == 't';
    a.transb = transb == 'T' || transb == 't';
    a.batch = batch;
    a.strideA = strideA, a.strideB = strideB, a.strideC = strideC;
    a.bias = bias;
    return a;
  }
};

std::string last_error() { return sgemm_ladder_last_error(); }

// The call's status through the C ABI, with its detail one line that contains `piece`.
void expect_refused(const Call& c, int status, const std::string& piece) {
  EXPECT_EQ(c.run(), status) << piece;
  const std::string detail = last_error();
  EXPECT_NE(detail.find(piece), std::string::npos) << detail;
  EXPECT_EQ(detail.find('\n'), std::string::npos) << detail;
}

Status check(const Call& c, std::string* detail = nullptr) {
  std::string d;
  const Status s = sgemm::validate(c.args(), &d);
  if (detail) *detail = d;
  return s;
}

}  // namespace

TEST(GeneralArgs, HelpersFollowTheLayout) {
  GemmArgs a{8, 6, 5, 1.0f, nullptr, 5, nullptr, 6, 0.0f, nullptr, 6};
  EXPECT_TRUE(a.plain());
  EXPECT_EQ(a.rowsA(), 8);
  EXPECT_EQ(a.colsA(), 5);
  EXPECT_EQ(a.rowsB(), 5);
  EXPECT_EQ(a.colsB(), 6);
  a.transa = a.transb = true;
  EXPECT_FALSE(a.plain());
  EXPECT_EQ(a.rowsA(), 5);
  EXPECT_EQ(a.colsA(), 8);
  EXPECT_EQ(a.rowsB(), 6);
  EXPECT_EQ(a.colsB(), 5);
  GemmArgs b{};
  b.batch = 2;
  EXPECT_FALSE(b.plain());
  GemmArgs c{};
  c.bias = fake();
  EXPECT_FALSE(c.plain());
  EXPECT_EQ(sgemm::kTakesLayouts, unsigned(SGEMM_LADDER_TAKES_LAYOUTS));
  EXPECT_EQ(sgemm::kTakesBatch, unsigned(SGEMM_LADDER_TAKES_BATCH));
  EXPECT_EQ(sgemm::kTakesBias, unsigned(SGEMM_LADDER_TAKES_BIAS));
}

TEST(GeneralArgs, BadTransposeFlags) {
  for (char flag : {'x', 'C', 'c', ' ', '0'}) {
    Call c;
    c.transa = flag;
    expect_refused(c, SGEMM_LADDER_ERR_INVALID_TRANS, std::string("transa='") + flag + "' is not one of");
    c = Call();
    c.transb = flag;
    expect_refused(c, SGEMM_LADDER_ERR_INVALID_TRANS, std::string("transb='") + flag + "'");
  }
  Call c;
  c.transa = '\0';  // not printable: shown by its code
  expect_refused(c, SGEMM_LADDER_ERR_INVALID_TRANS, "transa=character code 0");
  // Checked before anything else: bad sizes do not hide a bad flag.
  c = Call();
  c.transb = 'q';
  c.M = -1;
  expect_refused(c, SGEMM_LADDER_ERR_INVALID_TRANS, "transb='q'");
}

TEST(GeneralArgs, EveryFlagSpellingIsAccepted) {
  // M = 0: valid, and nothing to do, so OK comes back before any GPU work.
  for (char ta : {'N', 'n', 'T', 't'})
    for (char tb : {'N', 'n', 'T', 't'}) {
      Call c;
      c.transa = ta, c.transb = tb;
      c.M = 0;
      c.lda = 8, c.ldb = 8;  // enough for every layout of 0x6x5
      EXPECT_EQ(c.run(), SGEMM_LADDER_OK) << ta << tb << ": " << last_error();
      EXPECT_EQ(last_error(), "");
    }
}

TEST(GeneralArgs, LeadingDimensionsPerLayout) {
  // M = 8, N = 6, K = 5. A is M x K (lda >= K) for N, K x M (lda >= M) for T; B is K x N (ldb >= N)
  // for N, N x K (ldb >= K) for T; C is M x N (ldc >= N) for every layout.
  struct Case { char ta, tb; int64_t lda, ldb; };
  for (const Case& k : {Case{'N', 'N', 5, 6}, Case{'N', 'T', 5, 5}, Case{'T', 'N', 8, 6}, Case{'T', 'T', 8, 5}}) {
    SCOPED_TRACE(std::string(1, k.ta) + k.tb);
    Call c;
    c.transa = k.ta, c.transb = k.tb, c.lda = k.lda, c.ldb = k.ldb;
    EXPECT_EQ(check(c), Status::kOk);
    Call bad = c;
    bad.lda = k.lda - 1;
    expect_refused(bad, SGEMM_LADDER_ERR_INVALID_LD,
                   k.ta == 'T' ? "lda=7 is smaller than max(1, M=8) for transa='T'" : "lda=4 is smaller than max(1, K=5)");
    if (k.ta == 'N') EXPECT_EQ(last_error().find("transa"), std::string::npos) << "a plain layout reads as before";
    bad = c;
    bad.ldb = k.ldb - 1;
    expect_refused(bad, SGEMM_LADDER_ERR_INVALID_LD,
                   k.tb == 'T' ? "ldb=4 is smaller than max(1, K=5) for transb='T'" : "ldb=5 is smaller than max(1, N=6)");
    bad = c;
    bad.ldc = 5;
    expect_refused(bad, SGEMM_LADDER_ERR_INVALID_LD, "ldc=5 is smaller than max(1, N=6)");
  }
  // As the reference BLAS: checked for an empty product too.
  Call empty;
  empty.transa = 'T';
  empty.M = 0;
  empty.lda = 0;
  expect_refused(empty, SGEMM_LADDER_ERR_INVALID_LD, "lda=0 is smaller than max(1, M=0) for transa='T'");
}

TEST(GeneralArgs, BatchBelowOne) {
  for (int64_t batch : {int64_t(0), int64_t(-1), INT64_MIN}) {
    Call c;
    c.batch = batch;
    expect_refused(c, SGEMM_LADDER_ERR_INVALID_BATCH, "batch=" + std::to_string(batch) + " is smaller than 1");
  }
}

TEST(GeneralArgs, NegativeStrides) {
  Call c;
  c.batch = 3;
  c.strideC = c.M * c.ldc;
  EXPECT_EQ(check(c), Status::kOk);
  for (int which = 0; which < 3; ++which) {
    Call bad = c;
    (which == 0 ? bad.strideA : which == 1 ? bad.strideB : bad.strideC) = -4;
    const char* name = which == 0 ? "strideA" : which == 1 ? "strideB" : "strideC";
    expect_refused(bad, SGEMM_LADDER_ERR_INVALID_BATCH, std::string(name) + "=-4 is negative");
  }
  // One product: every stride is ignored, negative or not.
  Call one;
  one.strideA = one.strideB = one.strideC = -7;
  EXPECT_EQ(check(one), Status::kOk);
}

TEST(GeneralArgs, ProductsMustNotWriteTheSameElements) {
  Call c;
  c.batch = 2;
  c.ldc = 7;
  c.strideC = c.M * c.ldc - 1;  // the last row of product 0 would be the first of product 1
  expect_refused(c, SGEMM_LADDER_ERR_INVALID_BATCH, "strideC=55 is smaller than M*ldc (M=8, ldc=7)");
  c.strideC = 0;  // every product into one C
  expect_refused(c, SGEMM_LADDER_ERR_INVALID_BATCH, "strideC=0");
  c.strideC = c.M * c.ldc;
  EXPECT_EQ(check(c), Status::kOk);
  // M * ldc past 2^63: refused as a batch error, without the product overflowing.
  c.M = int64_t(1) << 40;
  c.ldc = int64_t(1) << 40;
  c.strideC = INT64_MAX;
  expect_refused(c, SGEMM_LADDER_ERR_INVALID_BATCH, "strideC=");
  // Operands may be shared (stride 0) or overlap: only C's products must be apart.
  Call shared;
  shared.batch = 4;
  shared.strideA = shared.strideB = 0;
  shared.strideC = 48;
  EXPECT_EQ(check(shared), Status::kOk);
  shared.strideA = 1;
  EXPECT_EQ(check(shared), Status::kOk);
}

TEST(GeneralArgs, ByteCountOfTheBatchSpan) {
  Call c;
  c.batch = int64_t(1) << 40;
  c.strideA = int64_t(1) << 40;
  c.strideC = 48;
  expect_refused(c, SGEMM_LADDER_ERR_SIZE_OVERFLOW, "A's batch span");
  c.strideA = 0;  // one A for every product spans one A
  c.strideB = int64_t(1) << 40;
  expect_refused(c, SGEMM_LADDER_ERR_SIZE_OVERFLOW, "B's batch span");
  c.strideB = 0;
  c.strideC = int64_t(1) << 40;
  expect_refused(c, SGEMM_LADDER_ERR_SIZE_OVERFLOW, "C's batch span");
  // Just inside: (batch - 1) * stride * 4 + the span fits.
  Call fits;
  fits.batch = 2;
  fits.strideA = (INT64_MAX - 4096) / 4;
  fits.strideC = 48;
  EXPECT_EQ(check(fits), Status::kOk);
  fits.strideA = INT64_MAX / 4;
  EXPECT_EQ(check(fits), Status::kSizeOverflow);
  // A transposed operand's own byte count: K x lda.
  Call t;
  t.transa = 'T';
  t.K = int64_t(1) << 40;
  t.lda = int64_t(1) << 40;
  expect_refused(t, SGEMM_LADDER_ERR_SIZE_OVERFLOW, "A (K x lda) byte count overflows 64 bits");
}

TEST(GeneralArgs, NullPointersAndTheBias) {
  Call c;
  c.bias = nullptr;  // no bias: fine
  EXPECT_EQ(check(c), Status::kOk);
  c.bias = fake(8192);
  EXPECT_EQ(check(c), Status::kOk);
  c.bias = reinterpret_cast<const float*>(uintptr_t{8194});
  expect_refused(c, SGEMM_LADDER_ERR_UNSUPPORTED, "bias is not 4-byte aligned");
  c = Call();
  c.A = nullptr;
  c.transa = 'T';
  c.lda = 8;
  expect_refused(c, SGEMM_LADDER_ERR_NULL_POINTER, "A is null");
  c.alpha = 0.0f;  // alpha = 0 reads neither A nor B
  EXPECT_EQ(check(c), Status::kOk);
  c = Call();
  c.batch = 2;
  c.strideC = 48;
  c.C = nullptr;
  expect_refused(c, SGEMM_LADDER_ERR_NULL_POINTER, "C is null");
}

TEST(GeneralArgs, RunIsTheGeneralEntryInPlainForm) {
  // sgemm_ladder_run(...) == sgemm_ladder_gemm(id, 'N', 'N', ..., 0, ..., 0, ..., 0, NULL, 1, ...):
  // the same status and detail for each of these refusals.
  struct Bad { int64_t M, lda; const float* A; int kernel; };
  for (const Bad& b : {Bad{-1, 5, fake(), 0}, Bad{8, 4, fake(), 0}, Bad{8, 5, nullptr, 0}, Bad{8, 5, fake(), -3},
                       Bad{int64_t(1) << 62, 5, fake(), 0}}) {
    const int run = sgemm_ladder_run(b.kernel, b.M, 6, 5, 1.0f, b.A, b.lda, fake(1024), 6, 0.0f, fake_c(), 6, nullptr);
    const std::string run_detail = last_error();
    Call c;
    c.kernel = b.kernel, c.M = b.M, c.lda = b.lda, c.A = b.A;
    EXPECT_EQ(c.run(), run) << run_detail;
    EXPECT_EQ(last_error(), run_detail);
    EXPECT_NE(run, SGEMM_LADDER_OK);
  }
}

TEST(GeneralArgs, EmptyBatchedProductSucceedsWithoutTouchingAnything) {
  for (int i = 0; i < sgemm_ladder_kernel_count(); ++i) {
    Call c;
    c.kernel = sgemm_ladder_kernel_id(i);
    c.transa = 'T', c.transb = 't';
    c.N = 0;
    c.lda = 8, c.ldb = 5, c.ldc = 1;
    c.A = c.B = nullptr, c.C = nullptr;
    c.batch = 5;
    c.strideC = 8;
    c.bias = fake();
    EXPECT_EQ(c.run(), SGEMM_LADDER_OK) << c.kernel << ": " << last_error();
  }
}

TEST(GeneralArgs, StatusStringsOfTheNewCodes) {
  EXPECT_EQ(SGEMM_LADDER_ERR_INVALID_TRANS, 14);
  EXPECT_EQ(SGEMM_LADDER_ERR_INVALID_BATCH, 15);
  EXPECT_EQ(int(Status::kInvalidTrans), SGEMM_LADDER_ERR_INVALID_TRANS);
  EXPECT_EQ(int(Status::kInvalidBatch), SGEMM_LADDER_ERR_INVALID_BATCH);
  EXPECT_NE(std::string(sgemm_ladder_status_string(SGEMM_LADDER_ERR_INVALID_TRANS)).find("transpose"),
            std::string::npos);
  EXPECT_NE(std::string(sgemm_ladder_status_string(SGEMM_LADDER_ERR_INVALID_BATCH)).find("batch"), std::string::npos);
  EXPECT_STREQ(sgemm_ladder_status_string(SGEMM_LADDER_ERR_INVALID_BATCH + 1), "unknown status");
}

TEST(GeneralArgs, DescriptorCarriesWhatEachRungTakes) {
  for (const sgemm::Rung& r : sgemm::registry()) {
    sgemm_ladder_kernel_desc d{};
    ASSERT_EQ(sgemm_ladder_kernel_describe(r.id, &d), SGEMM_LADDER_OK);
    EXPECT_EQ(d.takes, int(r.takes)) << r.slug;
    EXPECT_EQ(r.takes & ~(sgemm::kTakesLayouts | sgemm::kTakesBatch | sgemm::kTakesBias), 0u)
        << r.slug << ": an unknown bit";
  }
}

TEST(GeneralArgs, EveryRungRunsEveryLayoutBatchAndBias) {
  // Whatever a rung takes, the front door provides the rest: a general call of a shape the rung
  // supports plainly is supported too (the copies are row-major with aligned rows).
  for (const sgemm::Rung& r : sgemm::registry())
    for (char ta : {'N', 'T'})
      for (char tb : {'N', 'T'})
        for (int64_t batch : {1, 3}) {
          Call c;
          c.kernel = r.id;
          c.M = 37, c.N = 45, c.K = 29;
          c.transa = ta, c.transb = tb;
          c.lda = ta == 'T' ? 37 : 29, c.ldb = tb == 'T' ? 29 : 45, c.ldc = 45;
          c.batch = batch;
          c.strideA = 37 * 29, c.strideB = 0, c.strideC = 37 * 45;
          c.bias = fake(8192);
          const GemmArgs a = c.args();
          ASSERT_EQ(sgemm::validate(a, nullptr), Status::kOk);
          GemmArgs plain{37, 45, 29, 1.0f, fake(), 29, fake(1024), 45, 0.0f, fake_c(), 45};
          std::string why_plain, why;
          if (!r.supports(plain, &why_plain)) continue;
          EXPECT_TRUE(sgemm::can_run(r, a, &why)) << r.slug << " " << ta << tb << " batch " << batch << ": " << why;
        }
}

TEST(GeneralArgs, RefusalsOfTheProductsSayWhy) {
  // Sizes past 2^31 that a rung's 32-bit index math refuses stay refused (with a reason) in a
  // general call, as in the plain one.
  const int64_t big = int64_t(1) << 31;
  for (const sgemm::Rung& r : sgemm::registry()) {
    GemmArgs a{big, 4, 4, 1.0f, fake(), big, fake(1024), 4, 0.0f, fake_c(), 4};
    a.transa = true;
    a.batch = 2;
    a.strideA = 0;
    a.strideC = big * 4;
    std::string why;
    if (!sgemm::can_run(r, a, &why)) EXPECT_FALSE(why.empty()) << r.slug;
  }
}
