// The cut plan of rung 16: how the last wave's tiles are cut along K, and the model that decides
// between that, stream-K (kernels/common/stream_k_plan.hpp) and whole tiles. Plain C++ that the
// launchers and the CPU tests share.
//
// The cut runs the unchanged whole-tile kernel three times, then an add:
//   1. tile rows [0, wholeRows): whole tiles, as always;
//   2. the rows below, slabs [0, cutSlab): alpha * (their part) + beta * C into C;
//   3. the same rows, slabs [cutSlab, kTiles): alpha * (their part) into a workspace W;
//   4. C += W over those rows.
// Launches 2 and 3 start while the one before still runs (programmatic dependent launch), so the
// blocks of launch 3 fill the slots that launch 2 leaves free in the last wave.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "common/stream_k_plan.hpp"

namespace sgemm::cut {

// One launch of equal blocks: `count` blocks, each busy for `ticks`.
struct Launch {
  int64_t count;
  int64_t ticks;
};

// Slots by the time they free up: time -> how many slots free then.
using Slots = std::map<int64_t, int64_t>;

// Hands the blocks of `l`, in order, each to the slot that frees first (the way the hardware fills
// an SM slot as soon as one is free), and returns when the last of them ends. Slots freeing at the
// same time are one entry, so a launch of equal blocks costs a few steps per round, not per block.
inline int64_t run(Slots& slots, const Launch& l) {
  int64_t end = 0;
  for (int64_t left = l.count; left > 0;) {
    const auto first = slots.begin();
    const int64_t t = first->first, take = std::min(left, first->second);
    if ((first->second -= take) == 0) slots.erase(first);
    slots[t + l.ticks] += take;
    end = std::max(end, t + l.ticks);
    left -= take;
  }
  return end;
}

// When the last block of `launches` ends, starting from slots `free` and a last block so far that
// ends at `end`. `overlap`: a launch's blocks take slots while the previous launch's last blocks
// still run (programmatic dependent launch, sm_90 and newer); otherwise a launch starts when every
// block before it has ended.
inline int64_t makespan(Slots free, int64_t end, const std::vector<Launch>& launches, bool overlap) {
  const int64_t slots = [&] {
    int64_t n = 0;
    for (const auto& [t, count] : free) n += count;
    return n;
  }();
  for (const Launch& l : launches) {
    if (!overlap) free = Slots{{end, slots}};
    if (l.count > 0) end = std::max(end, run(free, l));
  }
  return end;
}

// The same from an empty device: all `slots` free at time 0.
inline int64_t makespan(const std::vector<Launch>& launches, int64_t slots, bool overlap) {
  return makespan(Slots{{0, slots}}, 0, launches, overlap);
}

struct Plan {
  stream_k::Plan streamK;  // rung 15's plan (whole tiles or stream-K), used where the cut is not
  int wholeRows = -1;      // >= 0: the cut. Tile rows [0, wholeRows) whole, the rows below cut
  int cutSlab = 0;         // at slab cutSlab: first parts [0, cutSlab), ends [cutSlab, kTiles)
  double slabTimes = 0;    // the model's time of the chosen way, in whole-tile slab-times
  double blockSlabs = 0;   // what the model charges the stream-K plan's blocks besides their slabs
  bool cut() const { return wholeRows >= 0; }
};

constexpr int64_t kTicksPerSlab = 16;  // the simulation's clock: a sixteenth of a slab-time
// What a block costs besides its slabs (filling the pipeline, storing its tile), and what a launch
// that waits for all before it costs besides its work (the add's): about one slab-time each, fitted
// to rung 16's first sweep on an H100 (its page).
constexpr double kBlockSlabs = 1.0;
constexpr double kLaunchSlabs = 1.0;
// The cut is taken only where the model says it saves more than this fraction of the time: about
// the model's error on that sweep, so that a near tie stays with the plan that has fewer launches.
constexpr double kMargin = 0.01;

// The plan for `slots` resident blocks. `addSlabsPerTile`: what the add costs per tile of the cut
// rows, in slab-times (it reads W and C and writes C, 12 bytes per element, at DRAM speed; the
// launcher works it out from the device's peaks). `overlap`: as in makespan().
//
// The cut is for a last wave behind full ones: the full waves' tile rows stay whole, the rows from
// there down are cut, each cut slab is simulated, and the fastest is compared with the stream-K
// plan's time (whole tiles or stream-K), every block charged kBlockSlabs on both sides.
inline Plan plan(const stream_k::Model& m, int64_t M, int64_t N, int64_t K, int64_t slots, double addSlabsPerTile,
                 bool overlap) {
  Plan p{stream_k::plan(m, M, N, K, slots), -1, 0, 0, 0};
  const int64_t tilesN = stream_k::div_up(N, m.BN), rows = stream_k::div_up(M, m.BM);
  const int64_t tiles = rows * tilesN, kTiles = stream_k::div_up(K, m.BK);
  const stream_k::Plan& sk = p.streamK;
  const int64_t rounds = sk.skBlocks > 0 ? sk.sched.dpTiles / slots + 1 : stream_k::div_up(tiles, slots);
  p.blockSlabs = kBlockSlabs * double(rounds);
  p.slabTimes = sk.slabTimes + p.blockSlabs;
  const int64_t wholeRows = tiles / slots * slots / tilesN, cutTiles = (rows - wholeRows) * tilesN;
  if (tiles % slots == 0 || wholeRows == 0 || kTiles < 2 * m.minSlabsPerUnit || !(addSlabsPerTile >= 0)) return p;
  const int64_t block = int64_t(kBlockSlabs * double(kTicksPerSlab));
  Slots afterWhole{{0, slots}};
  const int64_t wholeEnd = run(afterWhole, {wholeRows * tilesN, kTiles * kTicksPerSlab + block});
  const double addSlabs = kLaunchSlabs + addSlabsPerTile * double(cutTiles);
  double best = p.slabTimes * (1.0 - kMargin);
  // Every cut slab when K has few slabs, about 256 evenly spaced ones when it has many.
  const int64_t step = std::max<int64_t>(1, kTiles / 256);
  for (int64_t S = m.minSlabsPerUnit; S <= kTiles - m.minSlabsPerUnit; S += step) {
    const int64_t end = makespan(
        afterWhole, wholeEnd, {{cutTiles, S * kTicksPerSlab + block}, {cutTiles, (kTiles - S) * kTicksPerSlab + block}},
        overlap);
    const double t = double(end) / double(kTicksPerSlab) + addSlabs;
    if (t < best) {
      best = t;
      p.wholeRows = int(wholeRows);
      p.cutSlab = int(S);
      p.slabTimes = t;
    }
  }
  return p;
}

// One launch of the whole-tile kernel in the cut: tile rows [row0, row1), slabs [kb, ke), into C
// (alpha, beta) or, for the ends, into the workspace (alpha, beta 0).
struct Part {
  int row0, row1, kb, ke;
  bool intoWorkspace;
};

// The cut plan's launches of the whole-tile kernel, in launch order (the add follows them).
inline std::vector<Part> parts(const Plan& p, int64_t M, const stream_k::Model& m) {
  const int rows = int(stream_k::div_up(M, m.BM)), kTiles = p.streamK.sched.kTiles;
  std::vector<Part> out;
  if (!p.cut()) return out;
  if (p.wholeRows > 0) out.push_back({0, p.wholeRows, 0, kTiles, false});
  out.push_back({p.wholeRows, rows, 0, p.cutSlab, false});
  out.push_back({p.wholeRows, rows, p.cutSlab, kTiles, true});
  return out;
}

}  // namespace sgemm::cut
