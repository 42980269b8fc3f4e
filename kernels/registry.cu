// The registry: the one table of rungs. The CLI, the benchmark, the tests and the C API all
// iterate it; no other file lists kernel ids. To add a rung: write kernels/NN_name.cuh
// (copy the previous rung), declare its namespace below and add one row to the table.
#include <cmath>
#include <string>
#include <vector>

#include "sgemm_ladder.hpp"

#define SGEMM_DECLARE_RUNG(NS)                                        \
  namespace sgemm::NS {                                               \
  std::string tile();                                                 \
  bool supports(const GemmArgs& args, std::string* why);              \
  Status launch(const GemmArgs& args, cudaStream_t stream);           \
  }

SGEMM_DECLARE_RUNG(rung00)
SGEMM_DECLARE_RUNG(rung01)

namespace sgemm {

namespace {
// FP32 FFMA arithmetic: unit roundoff 2^-24, operands used as they are.
const Precision kFp32{"fp32", std::ldexp(1.0, -24), 0.0, true};
}  // namespace

const std::vector<Rung>& registry() {
  static const std::vector<Rung> table = {
      {0, "00_cublas", "cuBLAS baseline (pure FP32)",
       "the yardstick: cuBLAS SGEMM, FP32 compute, pedantic math, never TF32", "", kFp32,
       &rung00::tile, &rung00::supports, &rung00::launch},
      {1, "01_naive", "Naive: one thread per element of C",
       "one thread per element of C, reading A and B straight from global memory",
       "sgemm_01_naive", kFp32, &rung01::tile, &rung01::supports, &rung01::launch},
  };
  return table;
}

}  // namespace sgemm
