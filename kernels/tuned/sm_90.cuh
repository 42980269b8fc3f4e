// Tile parameters written by tools/autotune (NVIDIA H200, sm_90, 2026-11-23, ranked by the geometric mean at 1024^3 and 4096^3, finalists at 1024^3, 2048^3, 4096^3 and 8192^3).
// Do not edit by hand: rerun `sgemm_autotune` on the GPU (docs/tools.md). Its measurements go to
// the JSON file it writes (--json), not here: no file under kernels/ holds a measured figure.
//   rung 8: 432 candidates, 234 valid, 234 compiled, 227 verified; winner 64x128x32_8x8, runner-up 128x64x32_8x8
//   rung 9: 6912 candidates, 514 valid, 514 compiled, 491 verified; winner 64x64x32_64x16_4x8, runner-up 64x64x32_64x16_8x4
//   rung 10: 41472 candidates, 2490 valid, 2490 compiled, 2396 verified; winner 64x256x32_32x128_8x16_s2_u8, runner-up 64x256x32_64x64_8x16_s2_u8
#pragma once

namespace sgemm::tuned {

struct Rung08 {
  static constexpr int BM = 64, BN = 128, BK = 32, TM = 8, TN = 8;
};

struct Rung09 {
  static constexpr int BM = 64, BN = 64, BK = 32, WM = 64, WN = 16, TM = 4, TN = 8;
};

struct Rung10 {
  static constexpr int BM = 64, BN = 256, BK = 32, WM = 32, WN = 128, TM = 8, TN = 16, Stages = 2, KU = 8;
};

constexpr const char* kSource = "NVIDIA H200, sm_90, 2026-11-23, ranked by the geometric mean at 1024^3 and 4096^3, finalists at 1024^3, 2048^3, 4096^3 and 8192^3";

}  // namespace sgemm::tuned
