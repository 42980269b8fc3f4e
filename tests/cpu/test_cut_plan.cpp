// Rung 16's cut plan (kernels/common/cut_plan.hpp): the simulation of how blocks take slots, the
// launches it makes, and when it cuts. No GPU needed; every test runs for several chips (SM counts
// of an A100, H100/H200, a smaller and a larger part), so nothing here holds for 132 SMs only.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/cut_plan.hpp"

namespace sgemm::rung16 {
stream_k::Model model();
}  // namespace sgemm::rung16

namespace {

using sgemm::cut::Launch;
using sgemm::cut::makespan;
using sgemm::cut::Plan;

const int64_t kSlots[] = {264, 216, 296, 168, 40};  // SMs x 2 blocks: H100/H200, A100, a larger part, smaller ones
constexpr double kAdd = 0.0142;                     // the add's slab-times per tile on an H100

// The same greedy order, one slot at a time: each block to the slot that frees first.
int64_t makespan_by_slot(const std::vector<Launch>& launches, int64_t slots, bool overlap) {
  std::vector<int64_t> free(size_t(slots), 0);
  int64_t end = 0;
  for (const Launch& l : launches) {
    if (!overlap) std::fill(free.begin(), free.end(), end);
    for (int64_t b = 0; b < l.count; ++b) {
      auto first = std::min_element(free.begin(), free.end());
      *first += l.ticks;
      end = std::max(end, *first);
    }
  }
  return end;
}

// M x N x K of `tiles` tile rows of `cols` tiles each, K `slabs` slabs deep.
struct Shape {
  int64_t M, N, K;
};
Shape in_tiles(const sgemm::stream_k::Model& m, int64_t rows, int64_t cols, int64_t slabs) {
  return {rows * m.BM, cols * m.BN, slabs * m.BK};
}

}  // namespace

TEST(CutPlan, SimulationHandsBlocksOutOneSlotAtATime) {
  std::mt19937 rng(7);
  for (int64_t slots : kSlots)
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<Launch> launches;
      const int n = 1 + int(rng() % 4);
      for (int i = 0; i < n; ++i) launches.push_back({int64_t(rng() % (3 * slots)), 1 + int64_t(rng() % 300)});
      for (bool overlap : {true, false})
        EXPECT_EQ(makespan(launches, slots, overlap), makespan_by_slot(launches, slots, overlap))
            << slots << " slots, trial " << trial << ", overlap " << overlap;
    }
}

TEST(CutPlan, LaunchesCoverEveryTileAndSlabOnce) {
  const sgemm::stream_k::Model m = sgemm::rung16::model();
  for (int64_t slots : kSlots) {
    SCOPED_TRACE(std::to_string(slots) + " slots");
    int cuts = 0;
    for (const Shape s : {Shape{4096, 4096, 4096}, Shape{3968, 4096, 4096}, Shape{8192, 1024, 8192},
                          Shape{4000, 4000, 4000}, Shape{4096, 4096, 16384}, Shape{6144, 6144, 6144},
                          Shape{2117, 4100, 3001}, Shape{25339, 200, 935}, in_tiles(m, slots * 97 / 100, 4, 128)}) {
      SCOPED_TRACE(std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K));
      const Plan p = sgemm::cut::plan(m, s.M, s.N, s.K, slots, kAdd, true);
      if (!p.cut()) continue;
      ++cuts;
      const int64_t rows = (s.M + m.BM - 1) / m.BM, kTiles = (s.K + m.BK - 1) / m.BK, cols = (s.N + m.BN - 1) / m.BN;
      // Every (tile row, slab) exactly once; only the ends go to the workspace, and they follow
      // the first parts of the same rows.
      std::vector<int> covered(size_t(rows * kTiles), 0);
      const std::vector<sgemm::cut::Part> parts = sgemm::cut::parts(p, s.M, m);
      for (const sgemm::cut::Part& part : parts) {
        EXPECT_LT(part.row0, part.row1);
        EXPECT_LT(part.kb, part.ke);
        EXPECT_EQ(part.intoWorkspace, part.kb > 0);
        for (int r = part.row0; r < part.row1; ++r)
          for (int k = part.kb; k < part.ke; ++k) ++covered[size_t(r * kTiles + k)];
      }
      for (size_t i = 0; i < covered.size(); ++i) ASSERT_EQ(covered[i], 1) << "tile row " << i / kTiles << ", slab " << i % kTiles;
      EXPECT_TRUE(parts.back().intoWorkspace);
      // The whole rows fill whole waves at most; the cut rows are what is left, the last wave.
      EXPECT_LE(int64_t(p.wholeRows) * cols, (rows * cols) / slots * slots);
      EXPECT_GT(int64_t(p.wholeRows) * cols, 0);
      EXPECT_GE(p.cutSlab, m.minSlabsPerUnit);
      EXPECT_LE(p.cutSlab, kTiles - m.minSlabsPerUnit);
    }
    EXPECT_GE(cuts, 1) << "no shape was cut: the coverage was not tested";
  }
}

TEST(CutPlan, CutsOnlyAPartlyEmptyLastWaveBehindFullOnes) {
  const sgemm::stream_k::Model m = sgemm::rung16::model();
  for (int64_t slots : kSlots) {
    SCOPED_TRACE(std::to_string(slots) + " slots");
    auto plan = [&](const Shape& s, bool overlap = true) { return sgemm::cut::plan(m, s.M, s.N, s.K, slots, kAdd, overlap); };
    // 3.88 waves, 128 slabs deep: the last wave is nearly full, the cut saves more than its margin.
    const Shape nearlyFull = in_tiles(m, slots * 97 / 100, 4, 128);
    const Plan p = plan(nearlyFull);
    ASSERT_TRUE(p.cut());
    const double before = p.streamK.slabTimes + p.blockSlabs;
    EXPECT_LT(p.slabTimes, before * (1 - sgemm::cut::kMargin));
    // The ends are the shorter part: the free slots of the last wave are few.
    EXPECT_GT(p.cutSlab, 128 - p.cutSlab);
    // Never: whole waves, less than one wave, too few slabs, no overlap (each launch would wait
    // for the one before: the cut only adds work), or an unknown add cost.
    EXPECT_FALSE(plan(in_tiles(m, slots, 1, 128)).cut());
    EXPECT_FALSE(plan(in_tiles(m, slots / 4, 2, 128)).cut());
    EXPECT_FALSE(plan(in_tiles(m, slots * 97 / 100, 4, 7)).cut());
    EXPECT_FALSE(plan(nearlyFull, false).cut());
    EXPECT_FALSE(sgemm::cut::plan(m, nearlyFull.M, nearlyFull.N, nearlyFull.K, slots, -1, true).cut());
    // A small last wave (2.2 waves): stream-K's shares beat two parts per tile.
    const Plan small = plan(in_tiles(m, slots * 11 / 20, 4, 96));
    EXPECT_FALSE(small.cut());
    EXPECT_GT(small.streamK.skBlocks, 0);
  }
}
