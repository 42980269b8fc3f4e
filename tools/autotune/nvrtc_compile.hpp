// Compile one configuration of a rung with NVRTC (no GPU needed: tests use it on the CPU).
#pragma once

#include <string>
#include <vector>

#include "space.hpp"

namespace sgemm::autotune {

struct Compiled {
  bool ok = false;
  std::string log;          // NVRTC's log (errors, static_assert messages)
  std::vector<char> cubin;  // machine code for `arch`
  std::string lowered;      // the kernel's mangled name inside the cubin
};

// Compile c.name_expression() from kernels_dir/c.rung_file() for arch (e.g. "sm_90").
Compiled compile(const Config& c, const std::string& kernels_dir, const std::string& arch);

// The same kernel compiled by nvcc with the library's flags: the code that actually ships.
// NVRTC and nvcc emit slightly different PTX for the same template (instruction order), and
// ptxas can allocate registers differently, so the finalists are re-timed from this build.
// `lowered` (from compile()) names the kernel in the cubin; `work_dir` holds the temporaries.
Compiled compile_nvcc(const Config& c, const std::string& kernels_dir, const std::string& arch,
                      const std::string& lowered, const std::string& work_dir);

}  // namespace sgemm::autotune
