// GEMMul8 (RIKEN's library of the Ozaki scheme II, https://github.com/RIKEN-RCCS/GEMMul8, MIT
// licence) as a measured peer of the INT8 Ozaki rungs: sgemm_bench --gemmul8 N times its SGEMM
// emulation with N moduli (fast mode, or --gemmul8-mode accurate) beside each Ozaki rung, interleaved,
// on the same inputs.
// Built only where CMake is given a checkout of it (-DSGEMM_GEMMUL8_SOURCE=DIR): GPU machines,
// never CI (tools/gpu_session.sh's peer step). Elsewhere available() is false.
#pragma once

#include <string>

#include "sgemm_ladder.hpp"

namespace sgemm::bench::peers {

// True when this sgemm_bench was built with GEMMul8.
bool gemmul8_available();
// The GEMMul8 commit this build compiled ("" without one).
std::string gemmul8_commit();
// The moduli of the calls below (2..13 for FP32; set once, before any call).
void set_gemmul8_moduli(int moduli);
// Its fast mode (true, the default) or its accurate one (set once, before any call).
void set_gemmul8_fast(bool fast);
// C = alpha A B + beta C through gemmul8::gemm<float> (INT8 backend, the mode set) on `stream`, for a
// plain call (NN, one product, no bias); kUnsupported for anything else or without GEMMul8.
Status gemmul8_sgemm(const GemmArgs& a, cudaStream_t stream);

}  // namespace sgemm::bench::peers
