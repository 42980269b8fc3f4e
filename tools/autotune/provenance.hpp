// What every JSON file of sgemm_autotune records about the code that measured it: the commit and
// whether the tree was clean (tools/tree_stamp.py through cmake/GitVersion.cmake, which writes
// sgemm_git_version.h at build time), as sgemm_bench's context names them.
#pragma once

#include <nlohmann/json.hpp>

#include "sgemm_git_version.h"

namespace sgemm::autotune {

inline nlohmann::json provenance() {
  return {{"sgemm_ladder_version", SGEMM_LADDER_VERSION}, {"sgemm_ladder_git", SGEMM_LADDER_GIT},
          {"sgemm_ladder_commit", SGEMM_LADDER_COMMIT},   {"sgemm_ladder_clean", SGEMM_LADDER_CLEAN},
          {"sgemm_ladder_commit_from", SGEMM_LADDER_COMMIT_FROM}};
}

}  // namespace sgemm::autotune
