// Argument checking of the C++ API and the C ABI: every bad input of DESIGN.md's Errors and the
// reference BLAS tester's illegal-argument cases returns a documented non-zero status and a
// one-line detail, before any GPU work (so these run without a GPU).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "sgemm_ladder.h"
#include "sgemm_ladder.hpp"

using sgemm::GemmArgs;
using sgemm::Status;

namespace {

// Stand-in device pointers: never dereferenced, because validation fails first.
float* fake(uintptr_t v = 256) { return reinterpret_cast<float*>(v); }

GemmArgs good(int64_t m = 8, int64_t n = 8, int64_t k = 8) {
  const int64_t lda = std::max<int64_t>(k, 1), ldn = std::max<int64_t>(n, 1);
  return GemmArgs{m, n, k, 1.0f, fake(), lda, fake(), ldn, 0.0f, fake(), ldn};
}

Status check(const GemmArgs& a, std::string* detail = nullptr) {
  std::string d;
  const Status s = sgemm::validate(a, &d);
  if (detail) *detail = d;
  return s;
}

}  // namespace

TEST(Validate, AcceptsValidArguments) {
  EXPECT_EQ(check(good()), Status::kOk);
  EXPECT_EQ(check(good(0, 0, 0)), Status::kOk);
  GemmArgs a = good(1, 1, 0);
  a.A = a.B = nullptr;  // K = 0 reads neither A nor B
  EXPECT_EQ(check(a), Status::kOk);
  a = good();
  a.alpha = 0.0f;
  a.A = a.B = nullptr;  // alpha = 0 reads neither
  EXPECT_EQ(check(a), Status::kOk);
  a = good(0, 5, 5);
  a.C = nullptr;  // empty C: nothing written
  EXPECT_EQ(check(a), Status::kOk);
}

TEST(Validate, NegativeSizes) {
  std::string d;
  GemmArgs a = good();
  a.M = -1;
  EXPECT_EQ(check(a, &d), Status::kInvalidSize);
  EXPECT_NE(d.find("M=-1"), std::string::npos);
  a = good();
  a.N = -3;
  EXPECT_EQ(check(a, &d), Status::kInvalidSize);
  EXPECT_NE(d.find("N=-3"), std::string::npos);
  a = good();
  a.K = INT64_MIN;
  EXPECT_EQ(check(a), Status::kInvalidSize);
}

TEST(Validate, LeadingDimensionsLikeReferenceBlas) {
  std::string d;
  GemmArgs a = good(8, 8, 8);
  a.lda = 7;
  EXPECT_EQ(check(a, &d), Status::kInvalidLd);
  EXPECT_NE(d.find("lda=7"), std::string::npos);
  a = good();
  a.ldb = 7;
  EXPECT_EQ(check(a), Status::kInvalidLd);
  a = good();
  a.ldc = 0;
  EXPECT_EQ(check(a), Status::kInvalidLd);
  // As xerbla: ld >= max(1, ...) is required even for empty products.
  a = good(0, 0, 0);
  a.lda = a.ldb = a.ldc = 0;
  EXPECT_EQ(check(a), Status::kInvalidLd);
  a = good(0, 0, 0);
  a.lda = a.ldb = a.ldc = 1;
  EXPECT_EQ(check(a), Status::kOk);
}

TEST(Validate, NullOperands) {
  GemmArgs a = good();
  a.C = nullptr;
  EXPECT_EQ(check(a), Status::kNullPointer);
  a = good();
  a.A = nullptr;
  EXPECT_EQ(check(a), Status::kNullPointer);
  a = good();
  a.B = nullptr;
  EXPECT_EQ(check(a), Status::kNullPointer);
}

TEST(Validate, ByteCountOverflow) {
  GemmArgs a = good(int64_t(1) << 62, 4, 4);
  EXPECT_EQ(check(a), Status::kSizeOverflow);
  a = good(4, 4, 4);
  a.lda = INT64_MAX / 2;
  EXPECT_EQ(check(a), Status::kSizeOverflow);
  EXPECT_EQ(sgemm::operand_bytes(3, 5, 8), int64_t((2 * 8 + 5) * 4));
  EXPECT_EQ(sgemm::operand_bytes(0, 5, 8), 0);
  EXPECT_EQ(sgemm::operand_bytes(INT64_MAX / 4, 2, 2), -1);
}

TEST(CAbi, BadInputsReturnStatusAndDetail) {
  const float* A = fake();
  float* C = fake();
  EXPECT_EQ(sgemm_ladder_run(0, -1, 8, 8, 1.f, A, 8, A, 8, 0.f, C, 8, nullptr), SGEMM_LADDER_ERR_INVALID_SIZE);
  EXPECT_NE(std::string(sgemm_ladder_last_error()).find("M=-1"), std::string::npos);
  EXPECT_EQ(sgemm_ladder_run(0, 8, 8, 8, 1.f, A, 4, A, 8, 0.f, C, 8, nullptr), SGEMM_LADDER_ERR_INVALID_LD);
  EXPECT_EQ(sgemm_ladder_run(0, 8, 8, 8, 1.f, nullptr, 8, A, 8, 0.f, C, 8, nullptr), SGEMM_LADDER_ERR_NULL_POINTER);
  EXPECT_EQ(sgemm_ladder_run(0, int64_t(1) << 62, 8, 8, 1.f, A, 8, A, 8, 0.f, C, 8, nullptr),
            SGEMM_LADDER_ERR_SIZE_OVERFLOW);
  EXPECT_EQ(sgemm_ladder_run(-1, 8, 8, 8, 1.f, A, 8, A, 8, 0.f, C, 8, nullptr), SGEMM_LADDER_ERR_UNKNOWN_KERNEL);
  EXPECT_EQ(sgemm_ladder_run(19, 8, 8, 8, 1.f, A, 8, A, 8, 0.f, C, 8, nullptr), SGEMM_LADDER_ERR_UNKNOWN_KERNEL);
  EXPECT_NE(std::string(sgemm_ladder_last_error()).find("unknown kernel id 19"), std::string::npos);
}

TEST(CAbi, PointersNeedOnlyAFloatsAlignment) {
  // Any 4-byte-aligned operand is valid (the 128-bit rungs take their 32-bit path for it); one
  // that is not even 4-byte aligned is refused before any GPU work, naming the operand.
  const float* A = fake();
  float* C = fake();
  const float* odd = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(A) + 2);
  std::string detail;
  EXPECT_EQ(sgemm::validate(GemmArgs{8, 8, 8, 1.f, A + 1, 9, A, 8, 0.f, C + 3, 9}, &detail), sgemm::Status::kOk)
      << detail;
  for (int i = 0; i < sgemm_ladder_kernel_count(); ++i) {
    const int id = sgemm_ladder_kernel_id(i);
    EXPECT_EQ(sgemm_ladder_run(id, 8, 8, 8, 1.f, odd, 8, A, 8, 0.f, C, 8, nullptr), SGEMM_LADDER_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(sgemm_ladder_last_error()).find("A is not 4-byte aligned"), std::string::npos);
  }
}

TEST(CAbi, EmptyProductSucceedsWithoutTouchingAnything) {
  // M = 0 or N = 0 returns before any GPU call, so it succeeds even without a device.
  for (int i = 0; i < sgemm_ladder_kernel_count(); ++i) {
    const int id = sgemm_ladder_kernel_id(i);
    EXPECT_EQ(sgemm_ladder_run(id, 0, 8, 8, 1.f, nullptr, 8, nullptr, 8, 0.f, nullptr, 8, nullptr), SGEMM_LADDER_OK);
    EXPECT_EQ(sgemm_ladder_run(id, 8, 0, 8, 1.f, nullptr, 8, nullptr, 1, 0.f, nullptr, 1, nullptr), SGEMM_LADDER_OK);
    EXPECT_STREQ(sgemm_ladder_last_error(), "");
  }
}

TEST(Supports, EveryRefusalSaysWhy) {
  // Extreme but valid arguments: a rung may refuse them, but only with a reason.
  const int64_t big = int64_t(1) << 31;
  const GemmArgs cases[] = {good(big, 4, 4), good(4, big, 4), good(4, 4, big), good(65536, 40000, 16)};
  for (const sgemm::Rung& r : sgemm::registry())
    for (const GemmArgs& a : cases) {
      std::string why;
      if (!r.supports(a, &why)) EXPECT_FALSE(why.empty()) << r.slug;
    }
}

// The Ozaki rungs' number of moduli: 0..8 accepted, anything else refused and the setting kept; the
// precision model's bound follows a forced count (more moduli: more bits, a tighter bound).
TEST(OzakiModuli, ForcedCountAndTheBoundItGives) {
  ASSERT_EQ(sgemm::ozaki_moduli(), 0) << "the plan's by default";
  const sgemm::Precision& p = sgemm::find_rung(31)->precision;
  const double planned = p.scaled(8192);
  EXPECT_FALSE(sgemm::set_ozaki_moduli(-1));
  EXPECT_FALSE(sgemm::set_ozaki_moduli(9));
  EXPECT_EQ(sgemm::ozaki_moduli(), 0);
  ASSERT_TRUE(sgemm::set_ozaki_moduli(4));
  const double four = p.scaled(8192);
  ASSERT_TRUE(sgemm::set_ozaki_moduli(8));
  const double eight = p.scaled(8192);
  ASSERT_TRUE(sgemm::set_ozaki_moduli(0));
  EXPECT_EQ(p.scaled(8192), planned);
  EXPECT_GT(four, planned);   // 4 moduli hold fewer bits than the plan's 7 at K = 8192
  EXPECT_LT(eight, planned);  // 8 hold more
  EXPECT_EQ(four / eight, std::ldexp(1.0, 16)) << "each modulus of about 2^8 gives the product 4 more bits";
}

TEST(CAbi, StatusStringsAreDistinct) {
  std::set<std::string> seen;
  for (int s = SGEMM_LADDER_OK; s <= SGEMM_LADDER_ERR_INVALID_BATCH; ++s) {
    const std::string text = sgemm_ladder_status_string(s);
    EXPECT_TRUE(seen.insert(text).second) << text;
    EXPECT_EQ(text.find('\n'), std::string::npos);
  }
  EXPECT_STREQ(sgemm_ladder_status_string(-1), "unknown status");
  EXPECT_STREQ(sgemm_ladder_status_string(999), "unknown status");
}
