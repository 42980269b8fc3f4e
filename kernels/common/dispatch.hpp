// The dispatch rung's model as the autotuner's calibration (sgemm_autotune --dispatch) and the
// tests see it; kernels/dispatch/30_auto.cuh defines these functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "common/launch.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::rung30 {

// What the model knows of candidate `c` on these arguments before its measured constants. `runs`
// is false where the candidate cannot run them (or, for repack, where there is nothing to repack).
struct Terms {
  bool runs = false;
  // Tiles (stream-K or split-K): the busiest block's whole-tile slabs (padding and waves
  // included), its slabs in stream-K shares (short pipelines, scattered k), and the partial tiles
  // the busiest stream-K block adds one after another in its fix-ups.
  double slabs = 0;
  // Split-K: the busiest SM's blocks over the most that fit on one (its slab costs that fraction
  // of a full SM's, but never less than a block's slab alone); 1 for everything else.
  double residency = 1;
  double shareSlabs = 0;
  double shareUnits = 0;  // the units (pieces of tiles, each its own pipeline) of the busiest share
  double fixups = 0;
  // The kernel takes its 32-bit-access path (an operand's rows are not 16-byte aligned).
  bool unaligned = false;
  // The fraction of tiles whose slabs check bounds: every tile with a K tail (K not a multiple of
  // the slab), else the tiles on the bottom and right edges of C (rows or columns past M or N).
  double guarded = 0;
  // Bytes moved by launches besides the GEMM kernel: split-K's reduction, repack's copies.
  double moveBytes = 0;
  // GEMV: its bytes, and its FLOPs over the rows its kernel computes (M rounded up to its row
  // group: 1, 2, 4, 8, 16 or 32), the group's index (it runs at whichever rate binds).
  double gemvBytes = 0;
  double gemvFlops = 0;
  int gemvGroup = 0;
  // Every candidate: the bytes any kernel must move (the floor of every prediction).
  double minBytes = 0;
  // Repack: the candidate that runs on the aligned copies, and those copies' shape.
  int inner = -1;
  GemmArgs repacked = {};
};

// The measured constants (kernels/tuned/dispatch_sm_<arch>.cuh) as values, so that the calibration
// can predict with the constants it has just measured.
struct Cost {
  double slab_ns = 0, launch_ns = 0, fixup_ns = 0, share = 1, unit_ns = 0, lone_ns = 0, guard = 1, unaligned = 1;
};
constexpr int kGemvGroups = 6;  // the GEMV's row groups: M <= 1, 2, 4, 8, 16, 32
struct Constants {
  std::vector<Cost> costs;            // per candidate
  std::vector<double> gemvFlopsPerNs;  // per GEMV row group
  double bytesPerNs = 0;
};
Constants measured_constants();  // this build's, scaled to the current device
// Constants measured on a GPU with peaks `calibrated`, for a GPU with peaks `here`.
Constants scale_constants(Constants k, const DeviceRates& here, const DeviceRates& calibrated);

// Split-K: K cut into `splits` parts of `slabsPerSplit` slabs (the last may have fewer), and the
// busiest SM's blocks over the most that fit on one (blocks on one SM share its issue slots, so a
// slab takes longer the more of them there are).
struct Split {
  int splits = 1, slabsPerSplit = 0;
  double residency = 1;
};
// K cut into at most `wanted` parts of BK-deep slabs for BM x BN tiles, every part with slabs,
// on a device with info.sms SMs of info.blocks_per_sm blocks each.
Split split_into(const GemmArgs& a, int BM, int BN, int BK, int64_t wanted, const KernelInfo& info);
// The split the model picks with costs `cost` (splits < 2: none helps).
Split split_of(const GemmArgs& a, int BM, int BN, int BK, const KernelInfo& info, const Cost& cost, double bytesPerNs);
// A split-K slab's cost at a residency: slab_ns times it, never below lone_ns.
double slab_ns_at(const Cost& c, double residency);

// The fraction of BM x BN tiles that check bounds in every slab: all where K is not a whole number
// of BK slabs (BK 0: not asked), else the last row and column of tiles where they pass M or N.
double guarded_fraction(const GemmArgs& a, int BM, int BN, int BK);
// The GEMV's row group for M rows: its kernel computes 2^group rows (1 to 32).
int gemv_group(int64_t M);

int candidate_count();
const char* candidate_name(int c);
std::pair<int, int> candidate_tile(int c);  // BM x BN of a tile candidate ({0, 0} otherwise)
Terms model_terms(int c, const GemmArgs& a);
double predict_ns(int c, const GemmArgs& a);  // with measured_constants() of the current device
double predict_ns(int c, const GemmArgs& a, const Constants& k);
Status launch_candidate(int c, const GemmArgs& a, cudaStream_t stream, std::string* why);
size_t choose(const GemmArgs& a, bool direct_only);  // the candidate the model picks (direct_only: not repack)
// Split-K candidates with K cut into (at most) `splits` parts instead of the model's choice, and
// the model's terms for that launch: the calibration prices slabs at a chosen residency this way.
Terms split_terms(int c, const GemmArgs& a, int splits);
Status launch_candidate_split(int c, const GemmArgs& a, int splits, cudaStream_t stream, std::string* why);

}  // namespace sgemm::rung30
