// The dispatch rung's model of its tensor-core candidate (rung 32's Ozaki scheme): the constants
// `sgemm_autotune --dispatch-tensor` measures on each GPU, in tuned/tensor_sm_90.cuh (the scheme's
// INT8 wgmma runs on sm_90a alone, so there is one header).
#pragma once

namespace sgemm::tuned {

// What rung 32 costs on one GPU: a fixed part (its launches, the memsets and the read-back of the
// inputs' spread, which waits for the pre-pass), an INT8 slab of one unit (a 128 x 256 tile of one
// modulus, 128 deep) on one SM, a unit's start and end (the first slab's load, the residues'
// store), per byte the pre-pass (A and B read, their residues written) and the rebuild (the
// product's residues read, C written, and read where beta is not 0), and what each of those bytes
// adds where a row of A, B or C is not 16-byte aligned (the pre-pass reads and the rebuild stores
// a float at a time; 0 in a header older than it).
struct TensorCost {
  double fixed_ns;
  double slab_ns;
  double unit_ns;
  double prepass_ns_per_byte;
  double rebuild_ns_per_byte;
  double unaligned_ns_per_byte = 0;
};

// One GPU's calibration: the GPU as its driver names it, its DRAM peak (GB per second) and SMs, the
// costs, the day it was measured. An entry with an empty name stands for none (a table cannot be
// empty). The dispatch rung takes the entry of the GPU it runs on, else the one whose DRAM peak is
// nearest, its bytes scaled by the ratio of the peaks.
struct TensorCalibration {
  const char* gpu;
  double dramGBps;
  int sms;
  TensorCost cost;
  const char* date;
};

}  // namespace sgemm::tuned

#include "tuned/tensor_sm_90.cuh"
