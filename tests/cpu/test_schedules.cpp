// The host-side models that decide how the grid covers the work: rung 11's split-K choice, the
// stream-K plan of rungs 12-15 (kernels/common/stream_k_plan.hpp) and how the dispatch rung's
// measured constants carry over to another GPU. No GPU needed. Every test runs
// for several chips (SM counts of an A100, H100/H200, a smaller and a larger part) and one or two
// resident blocks per SM: nothing here may hold for 132 SMs only. Shapes are given in tuned tiles,
// so the tests hold for any tile.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dispatch/model.hpp"
#include "common/stream_k_plan.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung11 {
int choose_split(int64_t M, int64_t N, int64_t K, int64_t slots);
int min_blocks_per_sm();
}  // namespace sgemm::rung11

#define SGEMM_STREAM_K_RUNG(NS)     \
  namespace sgemm::NS {             \
  stream_k::Model model();          \
  int min_blocks_per_sm();          \
  }
SGEMM_STREAM_K_RUNG(rung12)
SGEMM_STREAM_K_RUNG(rung13)
SGEMM_STREAM_K_RUNG(rung14)
SGEMM_STREAM_K_RUNG(rung15)

namespace {

using sgemm::stream_k::Model;
using sgemm::stream_k::plan;
using sgemm::stream_k::slabs_per_block;
using Tile = sgemm::tuned::Rung10;  // the tile of rungs 10-15

struct Chip {
  int sms;
  int blocksPerSm;
};
const Chip kChips[] = {{132, 2}, {132, 1}, {108, 2}, {148, 2}, {84, 1}, {20, 2}};

std::string name(const Chip& c) { return std::to_string(c.sms) + " SMs x " + std::to_string(c.blocksPerSm); }

}  // namespace

TEST(SplitK, SplitsOnlyWhereTheGridLeavesSmsIdle) {
  for (const Chip& chip : kChips) {
    SCOPED_TRACE(name(chip));
    const int64_t slots = int64_t(chip.sms) * chip.blocksPerSm;
    EXPECT_EQ(sgemm::rung11::choose_split(Tile::BM * slots, Tile::BN, 4096, slots), 1);  // exactly one full wave
    EXPECT_EQ(sgemm::rung11::choose_split(Tile::BM * slots * 4, Tile::BN * 3, 4096, slots), 1);  // twelve
    const int64_t K = 4096, slabs = K / Tile::BK;
    const int split = sgemm::rung11::choose_split(Tile::BM * std::max<int64_t>(1, slots / 4), Tile::BN, K, slots);
    EXPECT_GT(split, 1) << "a quarter wave leaves three quarters of the chip idle";
    EXPECT_LE(split, 8);          // never more than 8 partial tiles
    EXPECT_GE(slabs / split, 4);  // each still a pipeline of >= 4 slabs
    EXPECT_EQ(sgemm::rung11::choose_split(127, 129, 65, slots), 1);  // too few slabs to split
    EXPECT_LE(sgemm::rung11::choose_split(1, 1, 1 << 20, slots), 8);
  }
}

namespace {

// Every slab of every tile is computed exactly once; the full waves are whole tiles, one block
// each; where stream-K is chosen, the tiles left over go to at most one wave of stream-K blocks
// whose shares differ by at most one slab, each a pipeline of >= 4 slabs. Stream-K is chosen
// for a small last wave, not for a nearly full one.
void expect_stream_k_plan(const Model& m, int64_t slots) {
  struct Shape {
    int64_t M, N, K;
  };
  const Shape shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {1024, 1024, 1024}, {1536, 1536, 1536},
                          {3072, 3072, 3072}, {8192, 1024, 8192}, {127, 129, 65},     {m.BM * slots, m.BN, 4096},
                          {4096, 4096, 32},   {1, 1, 1 << 20},    {2117, 4100, 300}, {m.BM * 3 + 1, 50257, 768}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K));
    const int64_t tiles = ((s.M + m.BM - 1) / m.BM) * ((s.N + m.BN - 1) / m.BN), kTiles = (s.K + m.BK - 1) / m.BK;
    const std::vector<int64_t> slabs = slabs_per_block(plan(m, s.M, s.N, s.K, slots));
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
    EXPECT_GE(*lo, std::min<int64_t>(m.minSlabsPerUnit, (tiles - dp) * kTiles));
    EXPECT_LT(*hi, kTiles);  // shorter than the whole tiles of the wave it replaces
  }
  const int64_t K = 4096;
  auto cut = [&](int64_t tiles) {  // stream-K chosen for `tiles` tiles of one column?
    return int64_t(slabs_per_block(plan(m, m.BM * tiles, m.BN, K, slots)).size()) != tiles;
  };
  EXPECT_FALSE(cut(slots));      // one full wave
  EXPECT_FALSE(cut(3 * slots));  // three
  if (slots >= 10) {
    EXPECT_TRUE(cut(slots + slots / 5));  // a fifth of a wave left over
    EXPECT_TRUE(cut(slots / 2));          // half a wave
    EXPECT_FALSE(cut(2 * slots - 1));     // a nearly full last wave: stream-K does not pay
    // A quarter wave: four equal pieces per tile, each share exactly one piece (split K).
    const std::vector<int64_t> quarter = slabs_per_block(plan(m, m.BM * (slots / 4), m.BN, K, slots));
    EXPECT_EQ(quarter.size(), size_t(slots / 4 * 4));
    for (int64_t n : quarter) EXPECT_EQ(n, K / m.BK / 4);
  }
}

}  // namespace

TEST(StreamK, CoversEverySlabOnceAndBalancesTheLastWave) {
  const Model models[] = {sgemm::rung12::model(), sgemm::rung13::model(), sgemm::rung14::model(),
                          sgemm::rung15::model()};
  for (const Model& m : models)
    for (const Chip& chip : kChips) {
      SCOPED_TRACE(name(chip));
      expect_stream_k_plan(m, int64_t(chip.sms) * chip.blocksPerSm);
    }
}

TEST(StreamK, RungsAboveTwelveKeepItsPlan) {
  // Rungs 13-15 change the loop, not the plan: the same model, the same schedule.
  const Model m12 = sgemm::rung12::model();
  for (const Model& m : {sgemm::rung13::model(), sgemm::rung14::model(), sgemm::rung15::model()}) {
    EXPECT_EQ(m.BM, m12.BM);
    EXPECT_EQ(m.BN, m12.BN);
    EXPECT_EQ(m.BK, m12.BK);
    EXPECT_EQ(m.slabCost, m12.slabCost);
    EXPECT_EQ(m.minSlabsPerUnit, m12.minSlabsPerUnit);
  }
  EXPECT_EQ(sgemm::rung12::min_blocks_per_sm(), sgemm::rung15::min_blocks_per_sm());
}

TEST(DispatchModel, ConstantsFollowTheDevicePeaks) {
  // Measured on an H200-like part, used on an H100-like one (same SMs and clock, 0.7x the DRAM
  // peak) and on an A100-like one (108 SMs, 64 lanes at 1410 MHz, 1555 GB/s).
  sgemm::rung30::Constants k;
  k.costs = {{1000, 5000, 300, 1.5, 200, 400, 1.1}, {0, 8000, 0, 1, 0}};
  k.bytesPerNs = 4500;
  k.gemvFlopsPerNs = {5000, 20000};
  const sgemm::DeviceRates h200{66908e9, 4814e9, 132}, h100{66908e9, 3352e9, 132};
  const sgemm::DeviceRates a100{2.0 * 64 * 108 * 1.41e9, 1555e9, 108};
  const sgemm::rung30::Constants same = sgemm::rung30::scale_constants(k, h200, h200);
  EXPECT_DOUBLE_EQ(same.bytesPerNs, k.bytesPerNs);
  EXPECT_DOUBLE_EQ(same.costs[0].slab_ns, k.costs[0].slab_ns);
  const sgemm::rung30::Constants h = sgemm::rung30::scale_constants(k, h100, h200);
  EXPECT_NEAR(h.bytesPerNs, 4500 * 3352.0 / 4814.0, 1e-6);
  EXPECT_EQ(h.gemvFlopsPerNs, k.gemvFlopsPerNs);  // the same SMs at the same clock
  EXPECT_DOUBLE_EQ(h.costs[0].slab_ns, k.costs[0].slab_ns);
  const sgemm::rung30::Constants a = sgemm::rung30::scale_constants(k, a100, h200);
  const double perSm = (2.0 * 64 * 1.41e9) / (66908e9 / 132);  // FP32 peak per SM, A100 against H200
  EXPECT_NEAR(a.costs[0].slab_ns, 1000 / perSm, 1e-6);
  EXPECT_NEAR(a.costs[0].fixup_ns, 300 / perSm, 1e-6);
  EXPECT_NEAR(a.costs[0].unit_ns, 200 / perSm, 1e-6);
  EXPECT_NEAR(a.costs[0].lone_ns, 400 / perSm, 1e-6);
  EXPECT_DOUBLE_EQ(a.costs[0].launch_ns, 5000);  // launches stay as measured
  EXPECT_DOUBLE_EQ(a.costs[0].share, 1.5);
  EXPECT_DOUBLE_EQ(a.costs[0].guard, 1.1);  // a ratio of slab times
  ASSERT_EQ(a.gemvFlopsPerNs.size(), 2u);
  EXPECT_NEAR(a.gemvFlopsPerNs[0], 5000 * a100.fp32_flops / h200.fp32_flops, 1e-6);
  EXPECT_NEAR(a.gemvFlopsPerNs[1], 20000 * a100.fp32_flops / h200.fp32_flops, 1e-6);
  EXPECT_NEAR(a.bytesPerNs, 4500 * 1555.0 / 4814.0, 1e-6);
  const sgemm::rung30::Constants unknown = sgemm::rung30::scale_constants(k, sgemm::DeviceRates{}, h200);
  EXPECT_DOUBLE_EQ(unknown.bytesPerNs, k.bytesPerNs);  // no peaks: as measured
}

TEST(DispatchModel, GuardedSlabsAreTheEdgeTilesAndAKTailsLast) {
  auto args = [](int64_t M, int64_t N, int64_t K) {
    sgemm::GemmArgs a;
    a.M = M, a.N = N, a.K = K;
    return a;
  };
  using sgemm::rung30::guarded_fraction;
  EXPECT_DOUBLE_EQ(guarded_fraction(args(4096, 4096, 4096), 64, 256, 32), 0.0);   // whole tiles
  EXPECT_DOUBLE_EQ(guarded_fraction(args(4096, 4096, 4095), 64, 256, 32), 1.0 / 128);  // a K tail: its slab
  EXPECT_DOUBLE_EQ(guarded_fraction(args(4096, 4096, 4095), 64, 256, 0), 0.0);    // K not asked
  EXPECT_DOUBLE_EQ(guarded_fraction(args(4096, 4096, 4095), 64, 256, 32, false), 1.0);  // every slab (the capstone)
  EXPECT_DOUBLE_EQ(guarded_fraction(args(16, 128256, 4096), 32, 256, 32), 1.0);   // one row of tiles past M
  EXPECT_DOUBLE_EQ(guarded_fraction(args(100, 512, 64), 64, 256, 32), 0.5);       // the second tile row
  EXPECT_DOUBLE_EQ(guarded_fraction(args(128, 300, 64), 64, 256, 32), 0.5);       // the second tile column
  EXPECT_DOUBLE_EQ(guarded_fraction(args(1023, 1023, 1024), 128, 64, 32), 1.0 - 7.0 * 15.0 / (8.0 * 16.0));
  // edge tiles check every slab, the others a K tail's last one
  EXPECT_DOUBLE_EQ(guarded_fraction(args(1023, 1023, 1023), 128, 64, 32),
                   1.0 - 7.0 * 15.0 / (8.0 * 16.0) + 7.0 * 15.0 / (8.0 * 16.0) / 32.0);
}

TEST(DispatchModel, GemvRowGroups) {
  using sgemm::rung30::gemv_group;
  const int expected[33] = {0, 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
  for (int m = 1; m <= 32; ++m) {
    EXPECT_EQ(gemv_group(m), expected[m]) << m;
    EXPECT_GE(1 << gemv_group(m), m) << "the group's kernel computes every row";
  }
  EXPECT_EQ(sgemm::rung30::kGemvGroups, gemv_group(32) + 1);
}

TEST(DispatchModel, SplitKPricesBlocksSharingAnSm) {
  // The dispatch rung's split-K on a 32 x 256 x 32 tile: 16 tiles of 128 slabs (a 32-row decode
  // step of a 4096 x 4096 weight), 4 tiles of 512 and 64 tiles of 64. A slab costs 6000 ns with the
  // SM full of blocks; alone on its SM a block's slab costs `lone`.
  const int BM = 32, BN = 256, BK = 32;
  const double bytesPerNs = 4000;
  for (const Chip& chip : kChips) {
    for (const int bps : {1, 2, 3, 4}) {
      const sgemm::KernelInfo info{chip.sms, bps};
      for (const double lone : {0.0, 6000.0 / bps, 3000.0, 6000.0}) {
        const sgemm::rung30::Cost cost{6000, 10000, 0, 1, 0, lone};
        for (const auto& shape : {std::array<int64_t, 3>{32, 4096, 4096}, {32, 1024, 16384}, {64, 8192, 2048}}) {
          SCOPED_TRACE(name(chip) + ", " + std::to_string(bps) + " blocks per SM, lone " + std::to_string(lone) + ", " +
                       std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" + std::to_string(shape[2]));
          sgemm::GemmArgs a;
          a.M = shape[0], a.N = shape[1], a.K = shape[2];
          const int64_t tiles = (a.M / BM) * (a.N / BN), kTiles = a.K / BK;
          // Every split the model may take, priced here from the rule itself: the busiest SM's
          // blocks over the most that fit, the slab at that residency, the partials' bytes.
          auto priced = [&](int64_t s) {
            const int64_t per = (kTiles + s - 1) / s, used = (kTiles + per - 1) / per;
            const double residency = double((tiles * used + chip.sms - 1) / chip.sms) / bps;
            return double(per) * std::max(lone, 6000 * residency) + 2.0 * double(used) * double(a.M) * 4.0 * double(a.N) / bytesPerNs;
          };
          const sgemm::rung30::Split sp = sgemm::rung30::split_of(a, BM, BN, BK, info, cost, bytesPerNs);
          if (sp.splits < 2) {
            for (int64_t s = 2; s * 4 <= kTiles && tiles * s <= int64_t(chip.sms) * bps; ++s)
              ADD_FAILURE() << "split " << s << " fits one wave, yet none was chosen";
            continue;
          }
          EXPECT_LE(tiles * sp.splits, int64_t(chip.sms) * bps) << "one wave";
          EXPECT_LT(int64_t(sp.splits - 1) * sp.slabsPerSplit, kTiles) << "every part has slabs";
          EXPECT_GE(int64_t(sp.splits) * sp.slabsPerSplit, kTiles) << "the parts cover K";
          EXPECT_DOUBLE_EQ(sp.residency, double((tiles * sp.splits + chip.sms - 1) / chip.sms) / bps);
          const double chosen = priced(sp.splits);
          for (int64_t s = 2; s * 4 <= kTiles && tiles * s <= int64_t(chip.sms) * bps; ++s)
            EXPECT_LE(chosen, priced(s) + 1e-6) << "split " << s << " is cheaper than " << sp.splits;
        }
      }
    }
  }
  // On an H200-like chip (132 SMs, 3 blocks each) with a slab alone a third of a full SM's, the
  // 32-row decode no longer stacks three blocks on an SM: 22 parts of 6 slabs cost 36 us of slabs,
  // 8 of 16 or 16 of 8 cost 32 us.
  sgemm::GemmArgs a;
  a.M = 32, a.N = 4096, a.K = 4096;
  const sgemm::rung30::Split sp = sgemm::rung30::split_of(a, BM, BN, BK, {132, 3}, {6000, 10000, 0, 1, 0, 2000}, bytesPerNs);
  EXPECT_LT(sp.residency, 1.0);
  EXPECT_LE(sp.splits, 16);
}
