// Host helpers of the rung launchers that are compiled by nvcc only: the tile text of a
// pipelined Config.
#pragma once

#include <string>

#include "common/common.cuh"
#include "common/launch.hpp"

namespace sgemm {

// "64x256x32_32x128_8x16_s2_u8": a pipelined Config (rungs 10-15) as the tuner and --list print it.
template <class C>
std::string pipelined_tile_text() {
  auto x = [](int a, int b) { return std::to_string(a) + "x" + std::to_string(b); };
  return x(C::BM, C::BN) + "x" + std::to_string(C::BK) + "_" + x(C::WM, C::WN) + "_" + x(C::TM, C::TN) + "_s" +
         std::to_string(C::Stages) + "_u" + std::to_string(C::KU);
}

}  // namespace sgemm
