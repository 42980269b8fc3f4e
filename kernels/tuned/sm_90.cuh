// Tile parameters for sm_90 (H100 / H200). Hand-picked placeholders until tools/autotune
// writes this file from a search on the GPU. Do not edit by hand after that: rerun the tuner.
#pragma once

namespace sgemm::tuned {

struct Rung08 {  // rung 07's kernel: block tile BM x BN x BK, thread tile TM x TN
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
};

struct Rung09 {  // warptiling: block tile, warp tile WM x WN, thread tile TM x TN
  static constexpr int BM = 128, BN = 128, BK = 8, WM = 64, WN = 32, TM = 8, TN = 8;
};

struct Rung10 {  // double buffering: rung 09's tiles plus the pipeline depth
  static constexpr int BM = 128, BN = 128, BK = 8, WM = 64, WN = 32, TM = 8, TN = 8, Stages = 3;
};

constexpr const char* kSource = "hand-picked placeholder, not yet tuned";

}  // namespace sgemm::tuned
