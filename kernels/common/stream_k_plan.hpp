// The stream-K plan: how many slabs of which tiles each block gets (kernels/common/stream_k.cuh
// explains the scheme). Plain C++ that the CUDA kernels, their launchers and the CPU tests share.
#pragma once

#ifdef __CUDACC_RTC__
typedef long long int64_t;
#else
#include <cstdint>
#endif

#if defined(__CUDACC__)
#define SGEMM_HOST_DEVICE __host__ __device__
#else
#define SGEMM_HOST_DEVICE
#endif

namespace sgemm::stream_k {

// The schedule, the same for every block (the launcher computes it).
struct Schedule {
  int tilesN;       // output tiles across N: tile t is tile row t / tilesN, tile column t % tilesN
  int kTiles;       // slabs of K per output tile
  int dpTiles;      // tiles 0 .. dpTiles-1 (the full waves) are computed whole, one block each
  int64_t skSlabs;  // the slabs of the tiles after them, dealt out evenly and in order to the
                    // stream-K blocks: block b takes slabs [sk_begin(b), sk_begin(b + 1))
  SGEMM_HOST_DEVICE int64_t sk_begin(int b, int blocks) const { return skSlabs * b / blocks; }
};

}  // namespace sgemm::stream_k

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <vector>

namespace sgemm::stream_k {

inline int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

// What the plan needs to know about a rung: its output tile, its slab, and what a slab of a
// stream-K share costs in whole-tile slab-times (a share runs a short pipeline, starts at a
// scattered k so that tiles sharing a panel of A or B no longer read it together from L2, and
// ends with the fix-up; the rung's page says how its value was measured).
struct Model {
  int BM, BN, BK;
  double slabCost;
  int minSlabsPerUnit = 4;  // a share still runs a pipeline of at least this many slabs
};

struct Plan {
  Schedule sched;
  int skBlocks;     // stream-K blocks (at most `slots`, all resident at once); 0: whole tiles only
  double slabTimes;  // the model's run time: whole-tile slab-times of the busiest block
};

// The plan for `slots` resident blocks: the full waves stay whole tiles; the slabs of the tiles
// left over go to at most one wave of stream-K blocks, only where the model (in slab-times) says
// it beats a last wave of whole tiles.
inline Plan plan(const Model& m, int64_t M, int64_t N, int64_t K, int64_t slots) {
  const int64_t tilesN = div_up(N, m.BN), tiles = div_up(M, m.BM) * tilesN, kTiles = div_up(K, m.BK);
  const double wholeCost = double(div_up(tiles, slots) * kTiles);
  Plan p{{int(tilesN), int(kTiles), int(tiles), 0}, 0, wholeCost};
  if (tiles % slots == 0 || kTiles < 2 * m.minSlabsPerUnit) return p;
  const int64_t dpTiles = tiles / slots * slots, skSlabs = (tiles - dpTiles) * kTiles;
  int64_t skBlocks = std::min(slots, std::max<int64_t>(1, skSlabs / m.minSlabsPerUnit));
  // Split K as the special case: where S = slots / leftover tiles equal pieces per tile are no
  // longer than the balanced shares, cut each tile into S pieces, so that no share straddles two
  // tiles (one unit per block: one pipeline fill, no partial tile to publish before the fix-up).
  const int64_t left = tiles - dpTiles, pieces = slots / left;
  if (pieces >= 2 && kTiles % pieces == 0 && kTiles / pieces >= m.minSlabsPerUnit &&
      kTiles / pieces <= div_up(skSlabs, skBlocks))
    skBlocks = left * pieces;
  const double streamKCost = double(dpTiles / slots * kTiles) + m.slabCost * double(div_up(skSlabs, skBlocks));
  if (streamKCost >= wholeCost) return p;
  p.sched.dpTiles = int(dpTiles);
  p.sched.skSlabs = skSlabs;
  p.skBlocks = int(skBlocks);
  p.slabTimes = streamKCost;
  return p;
}

// The slabs each block computes, in block order (the CPU tests check that the plan covers every
// slab once and balances the stream-K blocks).
inline std::vector<int64_t> slabs_per_block(const Plan& p) {
  std::vector<int64_t> slabs(size_t(p.sched.dpTiles), p.sched.kTiles);
  for (int b = 0; b < p.skBlocks; ++b) slabs.push_back(p.sched.sk_begin(b + 1, p.skBlocks) - p.sched.sk_begin(b, p.skBlocks));
  return slabs;
}

}  // namespace sgemm::stream_k
#endif
