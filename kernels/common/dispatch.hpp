// The dispatch rung's model as the autotuner's calibration (sgemm_autotune --dispatch) and the
// tests see it; kernels/dispatch/30_auto.cuh defines these functions.
#pragma once

#include <string>

#include <cuda_runtime.h>

#include "sgemm_ladder.hpp"

namespace sgemm::rung30 {

// What the model knows of candidate `c` on these arguments before its measured constants: for a
// tile, the stream-K plan's run time in whole-tile slabs (padding, waves and the last wave's cut
// included); for GEMV, its bytes and its FLOPs (it runs at whichever rate binds); for both, the
// bytes every kernel must move. `runs` is false where the candidate cannot run them.
struct Terms {
  bool runs = false;
  double slabs = 0;      // tiles
  double gemvBytes = 0;  // GEMV
  double gemvFlops = 0;  // GEMV
  double minBytes = 0;
};

int candidate_count();
const char* candidate_name(int c);
Terms model_terms(int c, const GemmArgs& a);
double predict_ns(int c, const GemmArgs& a);
Status launch_candidate(int c, const GemmArgs& a, cudaStream_t stream, std::string* why);

}  // namespace sgemm::rung30
