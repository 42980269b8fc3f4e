// The dispatch model's measured constants for the build's GPU architecture. CMake defines
// SGEMM_DISPATCH_HEADER as tuned/dispatch_sm_<arch>.cuh for the first architecture that has one
// (falling back to sm_90's); `sgemm_autotune --dispatch` measures and writes those files.
#pragma once

namespace sgemm::tuned {

// What one candidate of the dispatch rung costs: a whole-tile slab with every resident block busy
// (tiles; 0 otherwise), its fixed cost (one launch on a problem too small to matter, or for
// split-K and repack what their extra launches add), one partial tile added in a stream-K fix-up,
// a slab of a stream-K share in whole-tile slabs, the start and end of a unit of a share (a
// pipeline fill, a store or publish) (tiles; 0, 1 and 0 otherwise), and a slab of a block alone
// on its SM (split-K; 0 otherwise: the slab with fewer blocks per SM is priced by this floor and
// slab_ns times the fraction of the SM's blocks), what a slab that checks bounds costs (an edge
// tile's or one with a K tail) and one on the 32-bit-access path (rows not 16-byte aligned), in
// aligned slabs that do not check (tiles and split-K; 1 otherwise).
struct DispatchCost {
  double slab_ns;
  double launch_ns;
  double fixup_ns;
  double share;
  double unit_ns;
  double lone_ns;
  double guard;
  double unaligned;
  double tile_ns;  // a whole tile's start and end beyond its slabs (tiles; 0 otherwise, and in a header older than it)
  // What a C whose rows are not 16-byte aligned adds to that start and end: its stores a float at a
  // time (tiles; 0 otherwise, and in a header older than it).
  double tile32_ns;
  // A slab with op(A) = A^T, and one with op(B) = B^T, over an NN slab (tiles and split-K; 0 in a
  // header older than them: the model then takes the capstone's, kCapstoneLayoutShares below), and
  // what each adds to a whole tile's start and end (tiles; 0 otherwise).
  double transa;
  double transb;
  double tileta_ns;
  double tiletb_ns;
  // What each MB of op(B) read again from memory adds (tiles; 0 otherwise, and in a header older than
  // it: no such term). The tiles run in row-major order; where op(B) passes L2, each pass over it,
  // a row of tiles or a wave (dispatch/model.hpp, restream_mb), reads it from memory again.
  double restream_ns;
};

// The layout factors of a calibration older than them (transa and transb 0), for every candidate:
// the capstone's speed with op(B) = B^T (NT, and TT) and with op(A) = A^T (TN) as a share of its
// speed in NN, from `sgemm_bench`'s layouts on an H100 and an H200 (bench/results/<gpu>_layouts.json;
// the run: docs/rungs/30_auto.lab.md). The model prices such a slab at 1 / share of an NN slab.
struct LayoutShares {
  double nt;
  double tn;
};
constexpr LayoutShares kCapstoneLayoutShares = {0.875, 0.97};

// One GPU's calibration: the GPU as its driver names it, its peaks (the FP32 peak in GFLOPs per
// second, the DRAM peak in GB per second, its SMs), each candidate's costs in the order of the
// dispatch rung's candidates, the bytes per nanosecond the GEMV reads from device memory (also the
// floor of every prediction and the rate of split-K's reduction and of repack's copies), the GEMV's
// FLOPs per nanosecond per row group (1, 2, 4, 8, 16, 32 rows) where its arithmetic binds, the
// day it was measured, and the narrow-N form's FLOPs per nanosecond per group of C's columns (1, 2,
// 4, 8, 16; all 0 in a header older than them: the rows GEMV's rates stand in). The rung takes the entry of the GPU it runs on, else the one whose DRAM peak
// is nearest, scaled by that GPU's peaks.
constexpr int kDispatchCandidates = 9;
constexpr int kDispatchGemvGroups = 6;
struct DispatchCalibration {
  const char* gpu;
  double fp32Gflops;
  double dramGBps;
  int sms;
  DispatchCost costs[kDispatchCandidates];
  double bytesPerNs;
  double gemvFlopsPerNs[kDispatchGemvGroups];
  const char* date;
  double gemvNarrowFlopsPerNs[kDispatchGemvGroups];
};

}  // namespace sgemm::tuned

#ifndef SGEMM_DISPATCH_HEADER
#define SGEMM_DISPATCH_HEADER "tuned/dispatch_sm_90.cuh"
#endif
#include SGEMM_DISPATCH_HEADER
