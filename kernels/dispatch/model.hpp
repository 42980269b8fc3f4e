// The dispatch rung's cost model (kernels/dispatch/30_auto.cuh runs what it picks): plain host
// C++, model.cpp. Given the shape, the GPU's SMs and occupancy and the measured constants
// (kernels/tuned/dispatch_sm_<arch>.cuh), it predicts each candidate's time and picks the fastest.
// The CPU tests call it with a device of their own; the autotuner's calibration
// (sgemm_autotune --dispatch) with constants it has just measured. docs/rungs/30_auto.md explains it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "common/launch.hpp"
#include "common/stream_k_plan.hpp"
#include "sgemm_ladder.hpp"
#include "ffma/capstone.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung30 {

// The candidates, in the order of tuned::kDispatchCosts: the capstone's kernels in four tiles
// (stream-K), split-K on two of them, the GEMV, repack (aligned copies, then a direct one), and a
// fifth tile for a short K (64 x 64 in 16-deep slabs: a K of 8 or 16 fills its one slab). Added
// last, so that a calibration measured before it still lines up; a GPU whose calibration has no
// costs for a candidate is not offered it.
enum class Kind { kTiles, kSplitK, kGemv, kRepack };
enum : size_t { kCapstone, kFewRows, kFewCols, kSmall, kSplitKSmall, kSplitKRows, kGemv, kRepack, kShortK, kCandidates };
struct Candidate {
  const char* name;
  Kind kind;
  int BM, BN, BK;  // its tile (GEMV, repack: 0), from the tile structs below that dispatch/tiles.hpp runs
  int maxK = 0;    // offered only up to this K (0: any)
  // A K tail checks bounds in its last slab alone (rung 17's Config::kTailSlab), else in every slab.
  bool tailSlab = true;
};
// The tiles the capstone's kernels run in besides its own (CapstoneTile): block, warp and thread
// tiles, stages and the k-unroll, as dispatch/tiles.hpp hands them to capstone_rung::Config; the
// table below prices the same ones.
struct FewRowsTile {  // few rows: four warps of 64 accumulators
  static constexpr int BM = 32, BN = 256, BK = 32, WM = 32, WN = 64, TM = 8, TN = 8, Stages = 2, KU = 8;
};
struct FewColsTile {
  static constexpr int BM = 128, BN = 64, BK = 32, WM = 32, WN = 64, TM = 8, TN = 8, Stages = 2, KU = 8;
};
struct SmallTile {  // small problems, and split-K's
  static constexpr int BM = 64, BN = 64, BK = 32, WM = 32, WN = 32, TM = 4, TN = 8, Stages = 2, KU = 8;
};
struct ShortKTile {  // a K of 8-16 in one slab, not half of one
  static constexpr int BM = 64, BN = 64, BK = 16, WM = 32, WN = 32, TM = 4, TN = 8, Stages = 2, KU = 8;
};
template <class T>
constexpr Candidate tiled(const char* name, Kind kind, int maxK = 0, bool tailSlab = true) {
  return {name, kind, T::BM, T::BN, T::BK, maxK, tailSlab};
}
inline constexpr Candidate kCandidateList[kCandidates] = {  // in the order of the enum
    tiled<CapstoneTile>("capstone", Kind::kTiles, 0, false),
    tiled<FewRowsTile>("few_rows", Kind::kTiles),
    tiled<FewColsTile>("few_cols", Kind::kTiles),
    tiled<SmallTile>("small", Kind::kTiles),
    tiled<SmallTile>("split_k", Kind::kSplitK),
    tiled<FewRowsTile>("split_k_rows", Kind::kSplitK),
    {"gemv", Kind::kGemv, 0, 0, 0},
    {"repack", Kind::kRepack, 0, 0, 0},
    tiled<ShortKTile>("short_k", Kind::kTiles, 16),  // one slab: past it the 32-deep tiles do a slab's work in fewer
};
constexpr int kMinSlabsPerSplit = 4;  // a split-K block still runs a pipeline of >= 4 slabs
constexpr int kGemvMaxRows = 32;      // the GEMV serves M <= 32 (one product)
constexpr int kGemvTMaxRows = 16;     // and with op(B) = B^T, M <= 16 (any batch)
constexpr int kGemvNarrowMaxCols = 16;  // the narrow-N form: N <= 16 with op(A) = A (any M, any batch)
// Which GEMV kernel a call takes: rows (M <= 32, op(B) = B, one product), rows along K (op(B) = B^T,
// M <= 16), the narrow-N form (C^T = op(B)^T A^T: N <= 16, op(A) = A, where neither row form takes
// the call), or none.
enum class GemvForm { kNone, kRows, kRowsT, kNarrowN };
GemvForm gemv_form(const GemmArgs& a);
// Whether the narrow-N form first copies op(B)^T's rows (B's columns) to rows along K: where
// op(B) = B, unless B is one contiguous column (ldb 1), a row along K already.
bool gemv_narrow_copies_b(const GemmArgs& a);
// How the rows GEMV runs a call on the current device (gemv_launch.cuh says when which): its adjacent
// columns a lane, 4 (128-bit loads) or 1 (scalar), in `groups` groups 32 x laneColumns columns apart;
// the rows of B a lane loads before it uses them (`round`); the parts K is split into over blocks;
// and whether those parts run as one cluster and add up through distributed shared memory (sm_90
// on, at most 8 parts) rather than through a workspace. All zero where the rows form does not take
// the call.
struct GemvRowsPlan {
  int laneColumns = 0;
  int groups = 0;
  int round = 0;
  int splits = 0;
  bool cluster = false;
};
GemvRowsPlan gemv_rows_plan_of(const GemmArgs& a);
// Whether op(A) and op(B) are read with 128-bit accesses: A's and B's rows (every product's) 16-byte
// aligned. The tiles also need C's in a transposed layout (their NN kernels store an unaligned C a
// float at a time: tiles_vec); split-K never does (its partials are its own, its reduction stores C).
bool loads_vec(const GemmArgs& a);
// One operand's part of that: rows of pitch `ld` from `p`, and every product's (`stride` apart), 16-byte aligned.
bool rows_aligned_all(const void* p, int64_t ld, int64_t stride, int64_t batch);
bool tiles_vec(const GemmArgs& a);
// Repack's copies: A (as stored, transposed or not) and B where their rows are not aligned (and a
// transposed B of one product); C only where the kernels on the copies need it aligned (a
// transposed A's tiles), so that those run with 128-bit accesses throughout.
PackPlan repack_plan(const GemmArgs& a);
// Whether the capstone candidate runs rung 17's own launch (its cut plan): unless its operands' rows
// are aligned and C's are not (then its tile's NN kernels with 32-bit stores, stream-K as the others).
bool capstone_own(const GemmArgs& a);

// What the model knows of the GPU: its SMs, its peaks (the capstone's cut plan prices its add by
// them), whether launches may overlap (the cut's early launches), and per candidate and access
// width (0: 32-bit, 1: 128-bit) the blocks its kernels keep resident on one SM (0: it cannot run
// here). The capstone's: `blocks` as its launch bounds ask, `cutBlocks` as its cut plan counts.
struct Device {
  int sms = 0;
  DeviceRates rates;
  bool overlap = false;
  double l2Bytes = 0;  // its L2 (0: unknown, and B is never priced as read again)
  int blocks[kCandidates][2] = {};
  int cutBlocks[2] = {};
};

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
  // Tiles: the whole tiles the busiest block runs one after another (each a pipeline fill and a
  // store of C that a short K cannot hide).
  double tiles = 0;
  // The kernel takes its 32-bit-access path (an operand's rows are not 16-byte aligned).
  bool unaligned = false;
  // C's rows are not 16-byte aligned: the tiles store C a float at a time (through shared memory
  // where the accumulators leave room, rung 17's kStageC).
  bool unalignedC = false;
  // The fraction of slabs that check bounds: every slab of the tiles on the bottom and right edges
  // of C (rows or columns past M or N), and the last slab of the others where K is not a multiple
  // of the slab.
  double guarded = 0;
  // Tiles of one product: the MB of op(B) its rows of tiles read again from memory (restream_mb).
  double restreamMB = 0;
  // Bytes moved by launches besides the GEMM kernel: split-K's reduction, repack's copies.
  double moveBytes = 0;
  // GEMV: its bytes, and its FLOPs over the rows its kernel computes (M rounded up to its row
  // group: 1, 2, 4, 8, 16 or 32), the group's index (it runs at whichever rate binds).
  double gemvBytes = 0;
  double gemvFlops = 0;
  int gemvGroup = 0;
  bool gemvNarrow = false;  // the narrow-N form: its own FLOP rates where the calibration has them
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
  double tile_ns = 0;  // a whole tile's start and end (first load, C's store) beyond its slabs
  double tile32_ns = 0;  // what an unaligned C (stored a float at a time) adds to it
  // A slab's factor with op(A) = A^T and with op(B) = B^T (0: not measured, layout_factor takes the
  // capstone's, tuned::kCapstoneLayoutShares), and what each adds to a whole tile's start and end.
  double transa = 0, transb = 0, tileta_ns = 0, tiletb_ns = 0;
  double restream_ns = 0;  // per MB of op(B) read again from memory (Terms::restreamMB; 0: not measured)
};
constexpr int kGemvGroups = 6;  // the GEMV's row groups: M <= 1, 2, 4, 8, 16, 32
struct Constants {
  std::vector<Cost> costs;            // per candidate
  std::vector<double> gemvFlopsPerNs;  // per GEMV row group
  std::vector<double> gemvNarrowFlopsPerNs;  // the narrow-N form's, per group of C's columns (empty or 0: the rows')
  double bytesPerNs = 0;
};
// The header's calibrations (kernels/tuned/dispatch_sm_<arch>.cuh), one per GPU measured: the GPU's
// name, its peaks, its constants; tuned_constants() is the first's.
int calibration_count();
const char* calibration_gpu(int i);
const char* calibration_date(int i);
DeviceRates calibration_rates(int i);
Constants tuned_constants(int i);
Constants tuned_constants();
// The calibration for a GPU: the one of that name, else the one whose DRAM peak is nearest to `here`'s.
int calibration_for(const std::string& gpu, const DeviceRates& here);
Constants measured_constants();  // the current device's calibration, scaled to its peaks
// Whether a calibration has costs for a candidate: a slab's time (tiles, split-K) or a launch's (the
// others; a fit may put a tile's launch at 0). All zero: measured before the candidate existed, and
// the candidate is left out on that GPU (offered()).
constexpr bool calibrated(double slab_ns, double launch_ns) { return slab_ns > 0 || launch_ns > 0; }
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

// Split-K's terms for split `sp`: its slabs per block at its residency, the partials' bytes.
Terms with_split(Terms t, const GemmArgs& a, const Split& sp);
// The partial tiles the busiest stream-K block adds in its fix-ups, one after another.
double fixups_of(const stream_k::Plan& p);

// The GEMV's launch: warps per block (each at least one chunk of `chunk` k steps, up to maxWarps),
// column blocks of `cols` columns, and K split over blocks until 32 warps a SM have work (a few
// column groups alone would leave SMs without loads in flight), each warp keeping at least one
// chunk. 32, not every warp an SM can hold: past that, a split adds more than its loads gain
// (measured: docs/rungs/30_auto.md). info: the SMs, the kernel's blocks per SM.
struct GemvGrid {
  int warps = 1, splits = 1, kPerBlock = 0;
  int64_t colBlocks = 0;
};
GemvGrid gemv_grid(const GemmArgs& a, const KernelInfo& info, int maxWarps, int cols, int chunk);

// The transposed-B GEMV (op(B) = B^T, and the narrow-N form): how many of a block's `warps` warps
// split one column group's K range (1, 2, 4, ... up to `warps`). Enough that each SM keeps many rows
// of B in flight where N is small beside K (a decode step's down projection, 2048 columns of 5632
// floats: with one warp a group, 128 blocks of 8 warps held 16 KiB in flight an SM, far from the
// memory's speed; rung 30's page has the measurement). Few enough that each warp still walks 8 k
// steps of 128 floats with 128-bit loads (`vec`), 4 with single floats; and that a block's reads of
// the MT few rows from L2, once over the whole of K (B's rows stream past L1, which keeps those),
// stay within twice the bytes of the warps / split x CT rows of B it streams:
// split x MT <= 2 x warps x CT, or L2 rather than the memory sets the pace.
int gemv_t_split(int64_t K, bool vec, int MT, int CT, int warps);

// The MB of op(B) that BM x BN tiles in row-major order read from memory beyond its first pass, with
// `slots` blocks resident at once on a GPU of `l2Bytes` of L2. Where op(B) fits in L2, none: it stays
// there between rows of tiles. Where it does not, each pass over it is a new read: one a row of tiles
// where a row outnumbers the slots (the blocks at work then share no slab of B), else one a wave.
double restream_mb(const GemmArgs& a, int BM, int BN, int64_t slots, double l2Bytes);

// The fraction of BM x BN tiles' slabs that check bounds: every slab of the last row and column of
// tiles where they pass M or N, and where K is not a whole number of BK slabs (BK 0: not asked) the
// last slab of every other tile.
double guarded_fraction(const GemmArgs& a, int BM, int BN, int BK, bool tailSlab = true);
// The GEMV's row group for M rows: its kernel computes 2^group rows (1 to 32).
int gemv_group(int64_t M);

// The model on a given device with given constants: what it knows of candidate `c`, its
// prediction in nanoseconds (infinity where it cannot run), the candidate it picks
// (direct_only: not repack).
Terms model_terms(int c, const GemmArgs& a, const Device& d, const Constants& k);
// Whether the model offers candidate `c` for these arguments at all: its calibration has costs for
// it (a slab's or a launch's time; a fit may put a tile's launch at 0) and K is within its maxK.
// predict_ns() is infinite where not.
bool offered(int c, const GemmArgs& a, const Constants& k);
// A slab in the call's layout over one in NN, by candidate: the product of its measured factors for
// a transposed A and a transposed B, or where its calibration has none, the capstone's fixed ones.
double layout_factor(const Cost& cost, const GemmArgs& a);
// The GEMV's FLOP rate for its terms: the narrow-N form's where measured, else its row group's.
double gemv_rate(const Terms& t, const Constants& k);
double predict_ns(int c, const GemmArgs& a, const Device& d, const Constants& k);
size_t choose(const GemmArgs& a, bool direct_only, const Device& d, const Constants& k);

// The same on the current device (its SMs and peaks, and 30_auto.cuh's occupancy_of, asked once per
// device) with its measured constants; choose() remembers its answer per argument signature.
void occupancy_of(Device* d);  // defined by 30_auto.cuh: its kernels' blocks per SM
const Device& current_device();
const Constants& device_constants();
Terms model_terms(int c, const GemmArgs& a);
double predict_ns(int c, const GemmArgs& a);
double predict_ns(int c, const GemmArgs& a, const Constants& k);
size_t choose(const GemmArgs& a, bool direct_only);
// The same with the prediction for the candidate it picks (remembered with it).
std::pair<size_t, double> choose_ns(const GemmArgs& a, bool direct_only);
// What the rung runs on the default stream (dispatch/tensor.hpp): kTensorName where the tensor path
// takes the call, else the CUDA-core candidate's name, "repack+<name>" for repack; and the model's
// time for it. Inputs that the scheme refuses run on that CUDA-core candidate instead.
inline constexpr const char* kTensorName = "ozaki";
const char* choice(const GemmArgs& a);
double predicted_ns(const GemmArgs& a);

int candidate_count();
const char* candidate_name(int c);
std::pair<int, int> candidate_tile(int c);  // BM x BN of a tile candidate ({0, 0} otherwise)
int candidate_slab(int c);                  // its BK (0 for the GEMV and repack)
using Launch = Status (*)(const GemmArgs& a, cudaStream_t stream, std::string* why);  // a candidate's launch (30_auto.cuh)
Status launch_candidate(int c, const GemmArgs& a, cudaStream_t stream, std::string* why);
// Split-K candidates with K cut into (at most) `splits` parts instead of the model's choice, and
// the model's terms for that launch: the calibration prices slabs at a chosen residency this way.
Terms split_terms(int c, const GemmArgs& a, int splits);
Status launch_candidate_split(int c, const GemmArgs& a, int splits, cudaStream_t stream, std::string* why);

// Host plumbing of 30_auto.cuh's launches. The blocks of the kernels `prepare` readies that one SM
// keeps resident (0: they cannot run here).
int blocks_of(Status (*prepare)(KernelInfo* info, std::string* why));
// The GEMV's scratch where K is split over `splits` > 1 blocks (none otherwise): a partial sum per
// block and element in W, and a ticket per column group (kept ones, else zeroed ones after W).
// ws: what the launch frees (nullptr: nothing).
struct GemvScratch {
  void* ws = nullptr;
  float* W = nullptr;
  unsigned* tickets = nullptr;
};
Status gemv_scratch(const GemmArgs& a, unsigned colGroups, unsigned splits, cudaStream_t stream, GemvScratch* out);

}  // namespace sgemm::rung30
