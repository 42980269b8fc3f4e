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
SGEMM_DECLARE_RUNG(rung02)
SGEMM_DECLARE_RUNG(rung03)
SGEMM_DECLARE_RUNG(rung04)
SGEMM_DECLARE_RUNG(rung05)
SGEMM_DECLARE_RUNG(rung06)
SGEMM_DECLARE_RUNG(rung07)
SGEMM_DECLARE_RUNG(rung08)
SGEMM_DECLARE_RUNG(rung09)
SGEMM_DECLARE_RUNG(rung10)
SGEMM_DECLARE_RUNG(rung11)
SGEMM_DECLARE_RUNG(rung12)
SGEMM_DECLARE_RUNG(rung13)
SGEMM_DECLARE_RUNG(rung14)
SGEMM_DECLARE_RUNG(rung15)
SGEMM_DECLARE_RUNG(rung16)
SGEMM_DECLARE_RUNG(rung17)

namespace sgemm {

namespace {
// FP32 FFMA arithmetic: unit roundoff 2^-24, operands used as they are.
const Precision kFp32{"fp32", std::ldexp(1.0, -24), 0.0, true, true};
// Tensor-core accumulation is FP32 that may truncate instead of rounding: unit 2^-23 per add.
const double kTcAcc = std::ldexp(1.0, -23);
// 1xTF32: each operand rounded to nearest TF32 (relative error 2^-11), so a product is off by
// up to 2^-10 + 2^-22.
const Precision kTf32{"tf32", kTcAcc, std::ldexp(1.0, -10) + std::ldexp(1.0, -22), false, true};
// 3xTF32: big + small keeps each operand to 2^-22 and the dropped small*small term is at most
// 2^-22 of the product, so 3 * 2^-22 per product (bounded by 2^-20); three MMA additions per k.
const Precision k3xTf32{"3xtf32", 3 * kTcAcc, std::ldexp(1.0, -20), true, false};
}  // namespace

const std::vector<Rung>& registry() {
  static const std::vector<Rung> table = {
      {0, "00_cublas", Track::kBaseline, -1, "00_cublas.cuh", "cuBLAS baseline (pure FP32)",
       "the yardstick: cuBLAS SGEMM, FP32 compute, pedantic math, never TF32", "sm_70", "", kFp32,
       &rung00::tile, &rung00::supports, &rung00::launch},
      {1, "01_naive", Track::kCudaCore, -1, "01_naive.cuh", "Naive: one thread per element of C",
       "one thread per element of C, reading A and B straight from global memory", "sm_70", "sgemm_01_naive", kFp32, &rung01::tile, &rung01::supports, &rung01::launch},
      {2, "02_coalesced", Track::kCudaCore, 1, "02_coalesced.cuh", "Global-memory coalescing",
       "global-memory coalescing: the 32 threads of a warp read and write consecutive addresses", "sm_70", "sgemm_02_coalesced", kFp32, &rung02::tile, &rung02::supports, &rung02::launch},
      {3, "03_smem_tiling", Track::kCudaCore, 2, "03_smem_tiling.cuh", "Shared-memory tiling",
       "shared-memory tiling: each block caches 32x64 / 64x32 tiles of A and B and reuses each value 32 times", "sm_70", "sgemm_03_smem_tiling", kFp32, &rung03::tile, &rung03::supports, &rung03::launch},
      {4, "04_blocktile_1d", Track::kCudaCore, 3, "04_blocktile_1d.cuh", "1D block tiling",
       "1D block tiling: each thread computes a column of TM=16 results, reusing one B value 16 times", "sm_70", "sgemm_04_blocktile_1d", kFp32, &rung04::tile, &rung04::supports, &rung04::launch},
      {5, "05_blocktile_2d", Track::kCudaCore, 4, "05_blocktile_2d.cuh", "2D block tiling",
       "2D block tiling: each thread computes a TM x TN = 8x8 outer product in registers", "sm_70", "sgemm_05_blocktile_2d", kFp32, &rung05::tile, &rung05::supports, &rung05::launch},
      {6, "06_vectorized", Track::kCudaCore, 5, "06_vectorized.cuh", "128-bit vectorized loads",
       "128-bit vectorized global and shared loads, with A stored transposed in shared memory", "sm_70", "sgemm_06_vectorized", kFp32, &rung06::tile, &rung06::supports, &rung06::launch},
      {7, "07_bank_conflict_free", Track::kCudaCore, 6, "07_bank_conflict_free.cuh", "Bank-conflict-free shared memory",
       "bank-conflict-free shared memory: an XOR swizzle for the transposed A tile, warp-contiguous fragments", "sm_70", "sgemm_07_bank_conflict_free", kFp32, &rung07::tile, &rung07::supports, &rung07::launch},
      {8, "08_autotuned", Track::kCudaCore, 7, "08_autotuned.cuh", "Autotuned tiles",
       "autotuning: rung 07's kernel with the tile sizes an on-GPU search chose for this architecture", "sm_70", "sgemm_08_autotuned", kFp32, &rung08::tile, &rung08::supports, &rung08::launch},
      {9, "09_warptiling", Track::kCudaCore, 8, "09_warptiling.cuh", "Warp tiling",
       "warptiling: each warp owns a compact WM x WN tile between the block tile and the thread tiles", "sm_70", "sgemm_09_warptiling", kFp32, &rung09::tile, &rung09::supports, &rung09::launch},
      {10, "10_double_buffering", Track::kCudaCore, 9, "10_double_buffering.cuh", "Multi-stage cp.async pipeline",
       "double buffering: a multi-stage cp.async shared-memory pipeline plus register-fragment prefetch", "sm_80", "sgemm_10_double_buffering", kFp32, &rung10::tile, &rung10::supports, &rung10::launch},
      {11, "11_split_k", Track::kCudaCore, 10, "11_split_k.cuh", "Split-K against wave quantization",
       "fill the chip: when the tile grid leaves SMs idle, split K across blocks and sum the partial tiles", "sm_80", "sgemm_11_split_k", kFp32, &rung11::tile, &rung11::supports, &rung11::launch},
      {12, "12_mma_tf32", Track::kTensorCore, 10, "12_mma_tf32.cuh", "Tensor cores, 1xTF32 (NOT FP32-accurate)",
       "tensor cores: mma.sync m16n8k8 on TF32 operands (10-bit mantissa), for contrast with 3xTF32", "sm_80", "sgemm_12_mma_tf32", kTf32, &rung12::tile, &rung12::supports, &rung12::launch},
      {13, "13_mma_3xtf32", Track::kTensorCore, 12, "13_mma_3xtf32.cuh", "Tensor cores, 3xTF32 (FP32-accurate)",
       "3xTF32: split each operand into a TF32 big part and a TF32 residual and run three MMAs, big*big + big*small + small*big", "sm_80", "sgemm_13_mma_3xtf32", k3xTf32, &rung13::tile, &rung13::supports, &rung13::launch},
      {14, "14_wgmma_3xtf32", Track::kTensorCore, 13, "14_wgmma_3xtf32.cuh", "3xTF32 with wgmma (sm_90a)",
       "warpgroup MMA: wgmma reads both operands from swizzled shared memory, so the 3xTF32 split moves to a pre-pass", "sm_90a", "sgemm_14_wgmma_3xtf32", k3xTf32, &rung14::tile, &rung14::supports, &rung14::launch},
      {15, "15_stream_k", Track::kCudaCore, 11, "15_stream_k.cuh", "Stream-K: every block gets the same work",
       "stream-K: whole tiles for the full waves, then the leftover tiles' slabs dealt out evenly to one wave of blocks", "sm_80", "sgemm_15_stream_k", kFp32, &rung15::tile, &rung15::supports, &rung15::launch},
      {16, "16_ffma_order", Track::kCudaCore, 15, "16_ffma_order.cuh", "FFMA order: operands from the reuse cache",
       "FFMAs in 2x2 blocks, walked forward and back, so that consecutive FFMAs share operands the reuse cache can serve", "sm_80", "sgemm_16_ffma_order", kFp32, &rung16::tile, &rung16::supports, &rung16::launch},
      {17, "17_slab_end", Track::kCudaCore, 16, "17_slab_end.cuh", "The slab end: decided before the loop",
       "the slab end asks nothing at run time that is known before the loop: K-tail checks leave the loop, B's copies start at the barrier behind the next fragment read, fewer addresses and stores", "sm_80", "sgemm_17_slab_end", kFp32, &rung17::tile, &rung17::supports, &rung17::launch},
  };
  return table;
}

}  // namespace sgemm
