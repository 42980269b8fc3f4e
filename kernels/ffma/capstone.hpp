// The CUDA-core track's capstone, named once: the rung the registry marks (Rung::capstone) and the
// one whose kernels the dispatch rung runs and prices (kernels/dispatch/). The registry reads
// kCapstoneRung; the dispatch rung reaches the rung through the alias `capstone_rung` (its interface,
// the rung's .hpp; its kernels, capstone.cuh) and its tile as CapstoneTile. A CPU test
// (Registry.OneCapstoneTheLastOfTheCudaCoreTrack) fails where the id and the alias part.
#pragma once

#include "ffma/17_any_layout.hpp"
#include "tuned/tuned.cuh"

namespace sgemm {

constexpr int kCapstoneRung = 17;
namespace capstone_rung = rung17;
using CapstoneTile = tuned::Rung10;  // the capstone's tile: rung 10's, as the autotuner chose it

}  // namespace sgemm
