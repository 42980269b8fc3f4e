// The registry is the one table of rungs: ids contiguous, slugs unique, every rung's file
// exists and its header agrees with the table.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sgemm_ladder.h"
#include "sgemm_ladder.hpp"
#include "tuned/tuned.cuh"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string two_digits(int id) { return (id < 10 ? "0" : "") + std::to_string(id); }

// The value after "// KEY: " on its own header line.
std::string header_field(const std::string& text, const std::string& key) {
  const std::regex re("\\n// " + key + ": ([^\\n]*)");
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string("<missing " + key + ">");
}

}  // namespace

TEST(Registry, IdsAreContiguousFromZero) {
  const auto& r = sgemm::registry();
  ASSERT_GE(r.size(), 2u);
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].id, int(i));
}

TEST(Registry, SlugsAreUniqueAndNumbered) {
  std::set<std::string> slugs, shorts;
  for (const sgemm::Rung& r : sgemm::registry()) {
    const std::string slug = r.slug;
    EXPECT_TRUE(slugs.insert(slug).second) << slug;
    EXPECT_EQ(slug.substr(0, 3), two_digits(r.id) + "_") << slug;
    EXPECT_TRUE(std::regex_match(slug, std::regex("[0-9]{2}_[a-z0-9_]+"))) << slug;
    EXPECT_TRUE(shorts.insert(slug.substr(3)).second) << "short slug clash: " << slug;
    EXPECT_NE(std::string(r.lesson), "");
    EXPECT_NE(std::string(r.title), "");
    EXPECT_NE(r.tile(), "");
    EXPECT_TRUE(r.supports && r.launch);
  }
}

TEST(Registry, FindByIdOrSlug) {
  for (const sgemm::Rung& r : sgemm::registry()) {
    const std::string slug = r.slug;
    EXPECT_EQ(sgemm::find_rung(r.id), &r);
    EXPECT_EQ(sgemm::find_rung(std::to_string(r.id)), &r);
    EXPECT_EQ(sgemm::find_rung(two_digits(r.id)), &r);
    EXPECT_EQ(sgemm::find_rung(slug), &r);
    EXPECT_EQ(sgemm::find_rung(slug.substr(3)), &r);
  }
  EXPECT_EQ(sgemm::find_rung(-1), nullptr);
  EXPECT_EQ(sgemm::find_rung(int(sgemm::registry().size())), nullptr);
  EXPECT_EQ(sgemm::find_rung("nope"), nullptr);
  EXPECT_EQ(sgemm::find_rung(""), nullptr);
}

TEST(Registry, CAbiMirrorsTheTable) {
  ASSERT_EQ(sgemm_ladder_kernel_count(), int(sgemm::registry().size()));
  for (const sgemm::Rung& r : sgemm::registry()) EXPECT_STREQ(sgemm_ladder_kernel_name(r.id), r.slug);
  EXPECT_EQ(sgemm_ladder_kernel_name(-1), nullptr);
  EXPECT_EQ(sgemm_ladder_kernel_name(sgemm_ladder_kernel_count()), nullptr);
}

TEST(Registry, RungHeadersAgreeWithTheTable) {
  const auto& reg = sgemm::registry();
  for (size_t i = 0; i < reg.size(); ++i) {
    const sgemm::Rung& r = reg[i];
    SCOPED_TRACE(r.slug);
    const std::string path = std::string(SGEMM_SOURCE_DIR) + "/kernels/" + r.slug + ".cuh";
    const std::string text = read_file(path);
    ASSERT_FALSE(text.empty()) << "missing rung file " << path;
    EXPECT_NE(text.find("// SGEMM Ladder — rung " + two_digits(r.id) + ": " + r.slug + "\n"), std::string::npos)
        << "first header line must read 'SGEMM Ladder — rung NN: slug'";
    EXPECT_EQ(header_field(text, "TITLE"), r.title);
    EXPECT_EQ(header_field(text, "LESSON"), r.lesson);
    EXPECT_EQ(header_field(text, "TILE"), r.tile());
    const std::string prev = i == 0 ? "none" : reg[i - 1].slug;
    const std::string next = i + 1 == reg.size() ? "none" : reg[i + 1].slug;
    EXPECT_EQ(header_field(text, "PREVIOUS"), prev + "   NEXT: " + next);
    for (const char* section : {"WHAT CHANGED", "WHY", "EVIDENCE", "PRECONDITIONS"})
      EXPECT_NE(text.find(std::string("// ") + section + ":"), std::string::npos) << section;
    if (r.id >= 1) {
      EXPECT_NE(text.find("// PREDICTION:"), std::string::npos);
      EXPECT_NE(text.find(r.kernel), std::string::npos) << "kernel " << r.kernel;
    }
  }
}

TEST(Registry, EveryRungFileIsRegistered) {
  // A kernels/NN_*.cuh without a registry row would be compiled but never run or tested.
  std::set<std::string> registered;
  for (const sgemm::Rung& r : sgemm::registry()) registered.insert(r.slug);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SGEMM_SOURCE_DIR) + "/kernels")) {
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, std::regex("[0-9]{2}_.*\\.cuh"))) continue;
    ++files;
    EXPECT_TRUE(registered.count(name.substr(0, name.size() - 4))) << name << " is not in the registry";
  }
  EXPECT_EQ(files, int(registered.size()));
}

// Rung 11's split-K model (host code, no GPU needed): it splits where the tile grid leaves the
// H200's resident blocks (132 SMs x the blocks per SM the tuned tile asks for) mostly idle, and
// never where the grid fills the chip. Sizes are in tuned tiles, so the test holds for any tile.
namespace sgemm::rung11 {
int choose_split(int64_t M, int64_t N, int64_t K, int64_t slots);
int min_blocks_per_sm();
}

TEST(SplitK, SplitsOnlyWhereTheGridLeavesSmsIdle) {
  using T = sgemm::tuned::Rung10;  // rung 11's tile
  const int64_t slots = 132 * int64_t(sgemm::rung11::min_blocks_per_sm());
  EXPECT_EQ(sgemm::rung11::choose_split(T::BM * slots, T::BN, 4096, slots), 1);  // exactly one full wave
  EXPECT_EQ(sgemm::rung11::choose_split(4096, 4096, 4096, slots), 1);
  EXPECT_EQ(sgemm::rung11::choose_split(8192, 8192, 8192, slots), 1);
  const int64_t K = 4096, slabs = K / T::BK;
  const int split = sgemm::rung11::choose_split(T::BM * (slots / 4), T::BN, K, slots);  // a quarter wave
  EXPECT_GT(split, 1);
  EXPECT_LE(split, 8);          // never more than 8 partial tiles
  EXPECT_GE(slabs / split, 4);  // each still a pipeline of >= 4 slabs
  EXPECT_EQ(sgemm::rung11::choose_split(127, 129, 65, slots), 1);  // too few slabs to split
  EXPECT_LE(sgemm::rung11::choose_split(1, 1, 1 << 20, slots), 8);
}

// The stream-K schedule of rungs 15-17 (host code; rungs 16 and 17 carry copies): every slab of
// every tile is computed exactly once; the full waves are whole tiles, one block each; where
// stream-K is chosen, the tiles left over go to at most one wave of stream-K blocks whose shares
// differ by at most one slab, each a pipeline of >= 4 slabs. It is chosen for a small last wave,
// not for a nearly full one. Shapes in tuned tiles, so the test holds for any tile.
namespace sgemm::rung15 {
std::vector<int64_t> slabs_per_block(int64_t M, int64_t N, int64_t K, int64_t slots);
int min_blocks_per_sm();
}
namespace sgemm::rung16 {
std::vector<int64_t> slabs_per_block(int64_t M, int64_t N, int64_t K, int64_t slots);
int min_blocks_per_sm();
}
namespace sgemm::rung17 {
std::vector<int64_t> slabs_per_block(int64_t M, int64_t N, int64_t K, int64_t slots);
int min_blocks_per_sm();
}

namespace {
using SlabsPerBlock = std::vector<int64_t> (*)(int64_t, int64_t, int64_t, int64_t);

void expect_stream_k_schedule(SlabsPerBlock slabs_per_block, int minBlocksPerSm) {
  using T = sgemm::tuned::Rung10;  // the tile of rungs 15-17
  const int64_t slots = 132 * int64_t(minBlocksPerSm);
  struct Shape {
    int64_t M, N, K;
  };
  const Shape shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {1024, 1024, 1024}, {1536, 1536, 1536},
                          {3072, 3072, 3072}, {8192, 1024, 8192}, {127, 129, 65},     {T::BM * slots, T::BN, 4096},
                          {4096, 4096, 32},   {1, 1, 1 << 20},    {2117, 4100, 300}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K));
    const int64_t tiles = ((s.M + T::BM - 1) / T::BM) * ((s.N + T::BN - 1) / T::BN), kTiles = (s.K + T::BK - 1) / T::BK;
    const std::vector<int64_t> slabs = slabs_per_block(s.M, s.N, s.K, slots);
    int64_t sum = 0;
    for (int64_t n : slabs) sum += n;
    EXPECT_EQ(sum, tiles * kTiles);
    if (int64_t(slabs.size()) == tiles && *std::min_element(slabs.begin(), slabs.end()) == kTiles) continue;  // whole
    EXPECT_NE(tiles % slots, 0);  // whole waves are never cut
    const int64_t dp = tiles / slots * slots, sk = int64_t(slabs.size()) - dp;
    for (int64_t b = 0; b < dp; ++b) ASSERT_EQ(slabs[size_t(b)], kTiles) << "block " << b;
    ASSERT_GE(sk, 1);
    EXPECT_LE(sk, slots);  // one wave: the fix-up may wait on any of them
    const auto [lo, hi] = std::minmax_element(slabs.begin() + dp, slabs.end());
    EXPECT_LE(*hi - *lo, 1);
    EXPECT_GE(*lo, std::min<int64_t>(4, (tiles - dp) * kTiles));
    EXPECT_LT(*hi, kTiles);  // shorter than the whole tiles of the wave it replaces
  }
  const int64_t K = 4096;
  auto cut = [&](int64_t tiles) {  // stream-K chosen for `tiles` tiles of one column?
    return int64_t(slabs_per_block(T::BM * tiles, T::BN, K, slots).size()) != tiles;
  };
  EXPECT_FALSE(cut(slots));          // one full wave
  EXPECT_FALSE(cut(3 * slots));      // three
  EXPECT_TRUE(cut(slots + slots / 5));  // a fifth of a wave left over
  EXPECT_TRUE(cut(slots / 2));          // half a wave
  EXPECT_FALSE(cut(2 * slots - 2));     // a nearly full last wave: stream-K does not pay
  EXPECT_EQ(slabs_per_block(T::BM * (slots / 2), T::BN, K, slots).size(), size_t(slots));
  // A quarter wave: four equal pieces per tile, each share exactly one piece (split K).
  const std::vector<int64_t> quarter = slabs_per_block(T::BM * (slots / 4), T::BN, K, slots);
  EXPECT_EQ(quarter.size(), size_t(slots / 4 * 4));
  for (int64_t n : quarter) EXPECT_EQ(n, K / T::BK / 4);
}
}  // namespace

TEST(StreamK, CoversEverySlabOnceAndBalancesTheLastWave) {
  expect_stream_k_schedule(&sgemm::rung15::slabs_per_block, sgemm::rung15::min_blocks_per_sm());
}

TEST(StreamK, Rung16KeepsRung15sSchedule) {
  expect_stream_k_schedule(&sgemm::rung16::slabs_per_block, sgemm::rung16::min_blocks_per_sm());
  for (const int64_t n : {1024, 1536, 2048, 3072, 4096, 6144, 8192})
    EXPECT_EQ(sgemm::rung16::slabs_per_block(n, n, n, 264), sgemm::rung15::slabs_per_block(n, n, n, 264)) << n;
}

TEST(StreamK, Rung17KeepsRung16sSchedule) {
  expect_stream_k_schedule(&sgemm::rung17::slabs_per_block, sgemm::rung17::min_blocks_per_sm());
  for (const int64_t n : {1024, 1536, 2048, 3072, 4096, 6144, 8192})
    EXPECT_EQ(sgemm::rung17::slabs_per_block(n, n, n, 264), sgemm::rung16::slabs_per_block(n, n, n, 264)) << n;
}
