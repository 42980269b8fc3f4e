// What every JSON file of sgemm_autotune records about the code that measured it: the commit and
// whether the tree was clean (tools/tree_stamp.py through cmake/GitVersion.cmake, which writes
// sgemm_git_version.h at build time), as sgemm_bench's context names them.
#pragma once

#include <ctime>
#include <string>

#include <nlohmann/json.hpp>

#include "sgemm_git_version.h"

namespace sgemm::autotune {

// The day a calibration is measured, YYYY-MM-DD (local time), as the tuned headers record it.
inline std::string today() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
  return date;
}

inline nlohmann::json provenance() {
  return {{"sgemm_ladder_version", SGEMM_LADDER_VERSION}, {"sgemm_ladder_git", SGEMM_LADDER_GIT},
          {"sgemm_ladder_commit", SGEMM_LADDER_COMMIT},   {"sgemm_ladder_clean", SGEMM_LADDER_CLEAN},
          {"sgemm_ladder_commit_from", SGEMM_LADDER_COMMIT_FROM}};
}

}  // namespace sgemm::autotune
