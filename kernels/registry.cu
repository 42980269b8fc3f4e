// The registry: the one table of rungs, and the lookups beside it. The CLI, the benchmark, the
// tests, the C ABI, the Python package and the doc generator all read it; no other file lists
// kernel ids or says which rung builds on which.
//
// To add a rung: copy the last rung of its track to kernels/<track>/NN_name.cuh, change one
// thing, declare its namespace below and add one row (docs/adding_a_rung.md walks through it).
#include <cmath>
#include <string>
#include <vector>

#include "ffma/capstone.hpp"
#include "sgemm_ladder.hpp"

#define SGEMM_DECLARE_RUNG(NS)                                                    \
  namespace sgemm::NS {                                                           \
  std::string tile();                                                             \
  bool supports(const GemmArgs& args, std::string* why);                          \
  Status launch(const GemmArgs& args, cudaStream_t stream, std::string* why);     \
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
SGEMM_DECLARE_RUNG(rung21)
SGEMM_DECLARE_RUNG(rung22)
SGEMM_DECLARE_RUNG(rung23)
SGEMM_DECLARE_RUNG(rung24)
SGEMM_DECLARE_RUNG(rung25)
namespace sgemm::rung25 {
double scaled_error(int64_t K);
}
SGEMM_DECLARE_RUNG(rung26)
SGEMM_DECLARE_RUNG(rung27)
SGEMM_DECLARE_RUNG(rung28)
SGEMM_DECLARE_RUNG(rung29)
SGEMM_DECLARE_RUNG(rung30)
SGEMM_DECLARE_RUNG(rung31)
SGEMM_DECLARE_RUNG(rung32)
namespace sgemm::rung30 {
const char* choice(const GemmArgs& args);
double predicted_ns(const GemmArgs& args);
double scaled_error(int64_t K);
}

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

// The Ozaki scheme on INT8: the integers are exact, so what is left is the scaling's rounding
// (scaled, per row and column: rung25::scaled_error) and the final conversions to FP32.
const Precision kOzakiInt8{"ozaki-int8", std::ldexp(1.0, -24), 0.0, true, false, &rung25::scaled_error};

// The dispatch rung: FP32 FFMA on its CUDA-core candidates; where its tensor path may run (switched
// on, on a GPU that runs rung 32), also the Ozaki scheme's scaled term (rung30::scaled_error, 0
// where it may not). A NaN or an Inf never reaches the scheme (dispatch/tensor.hpp): IEEE results.
const Precision kAuto{"fp32", std::ldexp(1.0, -24), 0.0, true, true, &rung30::scaled_error};

constexpr Track kBase = Track::kBaseline, kCuda = Track::kCudaCore, kTensor = Track::kTensorCore,
                kDispatch = Track::kDispatch;
constexpr int kNone = -1;  // builds on nothing
constexpr bool kPacks = true;  // the front door may pack unaligned operands (Rung::packs_unaligned)
constexpr bool kCapstoneByName = false;  // Rung::capstone, which with_capstone sets from its id
// The table with Rung::capstone set on the rung ffma/capstone.hpp names, and on no other.
std::vector<Rung> with_capstone(std::vector<Rung> table) {
  for (Rung& r : table) r.capstone = r.id == kCapstoneRung;
  return table;
}
constexpr unsigned kTakesAll = kTakesLayouts | kTakesBatch | kTakesBias;  // Rung::takes: every call as it is
}  // namespace

// Columns: id, slug, track, builds on, source (under kernels/), title, lesson, oldest
// architecture, the kernel the tools report (text in its name: from rung 6 on, the instance with
// 128-bit accesses, `<true`), precision, then the functions; then, for rungs whose kernel reads the
// operands with a 128-bit and a 32-bit path, kPacks (the front door packs unaligned operands); then
// kCapstoneByName, where a row goes on (the capstone is the rung ffma/capstone.hpp names:
// with_capstone sets Rung::capstone); last, for a rung whose launch handles parts of the general
// call itself, its kTakes* bits (Rung::takes; the front door provides the parts a rung does not
// take, docs/design.md).
const std::vector<Rung>& registry() {
  static const std::vector<Rung> table = with_capstone({
      {0, "00_cublas", kBase, kNone, "baseline/00_cublas.cuh", "cuBLAS baseline (pure FP32)",
       "the yardstick: cuBLAS SGEMM, FP32 compute, pedantic math, never TF32", "sm_70", "", kFp32,
       &rung00::tile, &rung00::supports, &rung00::launch, nullptr, !kPacks, kCapstoneByName,
       kTakesLayouts | kTakesBatch},
      // ---- the CUDA-core (FFMA) track ----
      {1, "01_naive", kCuda, kNone, "ffma/01_naive.cuh", "Naive: one thread per element of C",
       "one thread per element of C, reading A and B straight from global memory", "sm_70", "sgemm_01_naive", kFp32,
       &rung01::tile, &rung01::supports, &rung01::launch},
      {2, "02_coalesced", kCuda, 1, "ffma/02_coalesced.cuh", "Global-memory coalescing",
       "global-memory coalescing: the 32 threads of a warp read and write consecutive addresses", "sm_70",
       "sgemm_02_coalesced", kFp32, &rung02::tile, &rung02::supports, &rung02::launch},
      {3, "03_smem_tiling", kCuda, 2, "ffma/03_smem_tiling.cuh", "Shared-memory tiling",
       "shared-memory tiling: each block caches 32x64 / 64x32 tiles of A and B and reuses each value 32 times",
       "sm_70", "sgemm_03_smem_tiling", kFp32, &rung03::tile, &rung03::supports, &rung03::launch},
      {4, "04_blocktile_1d", kCuda, 3, "ffma/04_blocktile_1d.cuh", "1D block tiling",
       "1D block tiling: each thread computes a column of TM=16 results, reusing one B value 16 times", "sm_70",
       "sgemm_04_blocktile_1d", kFp32, &rung04::tile, &rung04::supports, &rung04::launch},
      {5, "05_blocktile_2d", kCuda, 4, "ffma/05_blocktile_2d.cuh", "2D block tiling",
       "2D block tiling: each thread computes a TM x TN = 8x8 outer product in registers", "sm_70",
       "sgemm_05_blocktile_2d", kFp32, &rung05::tile, &rung05::supports, &rung05::launch},
      {6, "06_vectorized", kCuda, 5, "ffma/06_vectorized.cuh", "128-bit vectorized loads",
       "128-bit vectorized global and shared loads, with A stored transposed in shared memory", "sm_70",
       "sgemm_06_vectorized<true", kFp32, &rung06::tile, &rung06::supports, &rung06::launch, nullptr, kPacks},
      {7, "07_bank_conflict_free", kCuda, 6, "ffma/07_bank_conflict_free.cuh", "Bank-conflict-free shared memory",
       "bank-conflict-free shared memory: an XOR swizzle for the transposed A tile, warp-contiguous fragments",
       "sm_70", "sgemm_07_bank_conflict_free<true", kFp32, &rung07::tile, &rung07::supports, &rung07::launch, nullptr, kPacks},
      {8, "08_autotuned", kCuda, 7, "ffma/08_autotuned.cuh", "Autotuned tiles",
       "autotuning: rung 07's kernel with the tile sizes an on-GPU search chose for this architecture", "sm_70",
       "sgemm_08_autotuned<true", kFp32, &rung08::tile, &rung08::supports, &rung08::launch, nullptr, kPacks},
      {9, "09_warptiling", kCuda, 8, "ffma/09_warptiling.cuh", "Warp tiling",
       "warptiling: each warp owns a compact WM x WN tile between the block tile and the thread tiles", "sm_70",
       "sgemm_09_warptiling<true", kFp32, &rung09::tile, &rung09::supports, &rung09::launch, nullptr, kPacks},
      {10, "10_double_buffering", kCuda, 9, "ffma/10_double_buffering.cuh", "Double buffering: a cp.async pipeline",
       "double buffering: a multi-stage cp.async shared-memory pipeline plus register-fragment prefetch", "sm_80",
       "sgemm_10_double_buffering<true", kFp32, &rung10::tile, &rung10::supports, &rung10::launch, nullptr, kPacks},
      {11, "11_split_k", kCuda, 10, "ffma/11_split_k.cuh", "Split-K against wave quantization",
       "fill the chip: when the tile grid leaves SMs idle, split K across blocks and sum the partial tiles", "sm_80",
       "sgemm_11_split_k<true", kFp32, &rung11::tile, &rung11::supports, &rung11::launch, nullptr, kPacks},
      {12, "12_stream_k", kCuda, 11, "ffma/12_stream_k.cuh", "Stream-K: every block gets the same work",
       "stream-K: whole tiles for the full waves, then the leftover tiles' slabs dealt out evenly to one wave of "
       "blocks",
       "sm_80", "sgemm_12_stream_k<true", kFp32, &rung12::tile, &rung12::supports, &rung12::launch, nullptr, kPacks},
      {13, "13_register_reuse", kCuda, 12, "ffma/13_register_reuse.cuh",
       "Register reuse: FFMA order for the operand reuse cache",
       "FFMAs in 2x2 blocks, walked forward and back, so that consecutive FFMAs share operands the reuse cache can "
       "serve",
       "sm_80", "sgemm_13_register_reuse<true", kFp32, &rung13::tile, &rung13::supports, &rung13::launch, nullptr, kPacks},
      {14, "14_slab_end", kCuda, 13, "ffma/14_slab_end.cuh", "The slab end: decided before the loop",
       "the slab end asks nothing at run time that is known before the loop: the K tail is decided per tile, B's "
       "copies start at the barrier behind the next fragment read",
       "sm_80", "sgemm_14_slab_end<true", kFp32, &rung14::tile, &rung14::supports, &rung14::launch, nullptr, kPacks},
      {15, "15_copy_instructions", kCuda, 14, "ffma/15_copy_instructions.cuh",
       "The slab's copies in fewer instructions",
       "the same bytes in fewer instructions: one address per B row for the cp.async copies, A stored as 64-bit row "
       "pairs",
       "sm_80", "sgemm_15_copy_instructions<true", kFp32, &rung15::tile, &rung15::supports, &rung15::launch, nullptr, kPacks},
      {16, "16_last_wave_cut", kCuda, 15, "ffma/16_last_wave_cut.cuh", "The last wave cut along K",
       "the tile rows of a partly empty last wave are cut along K into two more launches of the unchanged whole-tile "
       "kernel, started early by programmatic dependent launch, and an add; a model of how blocks take slots picks "
       "the cut",
       "sm_80", "sgemm_16_last_wave_cut<true", kFp32, &rung16::tile, &rung16::supports, &rung16::launch, nullptr, kPacks},
      {17, "17_any_layout", kCuda, 16, "ffma/17_any_layout.cuh", "Every layout read in place",
       "transposed operands read where they lie (one contiguous along K through registers, one along M or N by "
       "cp.async, into the same swizzled tiles), a batch on grid z, the bias in the epilogue",
       "sm_80", "sgemm_17_any_layout<true, false, true", kFp32, &rung17::tile, &rung17::supports, &rung17::launch,
       nullptr, kPacks, kCapstoneByName, kTakesAll},
      // ---- the tensor-core track ----
      {21, "21_mma_tf32", kTensor, 10, "tensor/21_mma_tf32.cuh", "Tensor cores, 1xTF32 (NOT FP32-accurate)",
       "tensor cores: mma.sync m16n8k8 on TF32 operands (10-bit mantissa), for contrast with 3xTF32", "sm_80",
       "sgemm_21_mma_tf32<true", kTf32, &rung21::tile, &rung21::supports, &rung21::launch, nullptr, kPacks},
      {22, "22_mma_3xtf32", kTensor, 21, "tensor/22_mma_3xtf32.cuh", "Tensor cores, 3xTF32 (FP32-accurate)",
       "3xTF32: split each operand into a TF32 big part and a TF32 residual and run three MMAs, big*big + "
       "big*small + small*big",
       "sm_80", "sgemm_22_mma_3xtf32<true", k3xTf32, &rung22::tile, &rung22::supports, &rung22::launch, nullptr, kPacks},
      {23, "23_wgmma_3xtf32", kTensor, 22, "tensor/23_wgmma_3xtf32.cuh", "3xTF32 with wgmma (sm_90a)",
       "warpgroup MMA: wgmma reads both operands from swizzled shared memory, so the 3xTF32 split moves to a "
       "pre-pass",
       "sm_90a", "sgemm_23_wgmma_3xtf32<true", k3xTf32, &rung23::tile, &rung23::supports, &rung23::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      {24, "24_tma_warp_specialized", kTensor, 23, "tensor/24_tma_warp_specialized.cuh",
       "TMA copies and a producer warp (sm_90a)",
       "a producer thread copies each slab with the TMA into a ring of stages guarded by mbarriers, so the two "
       "consumer warpgroups never meet at __syncthreads",
       "sm_90a", "sgemm_24_tma_warp_specialized<true", k3xTf32, &rung24::tile, &rung24::supports, &rung24::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      {25, "25_ozaki_int8", kTensor, 24, "tensor/25_ozaki_int8.cuh", "FP32 from INT8 tensor cores: the Ozaki scheme (sm_90a)",
       "the Ozaki scheme: rows and columns scaled to integers, one INT8 wgmma GEMM per modulus, the FP32 result "
       "rebuilt by the Chinese remainder theorem",
       "sm_90a", "sgemm_25_ozaki_int8<7, true", kOzakiInt8, &rung25::tile, &rung25::supports, &rung25::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      {26, "26_wide_tile", kTensor, 25, "tensor/26_wide_tile.cuh", "A wider tile for the INT8 loop (sm_90a)",
       "a 128x256 block tile: a third more INT8 operations per byte the TMA brings; the product's residues move to a "
       "global scratch to leave shared memory to the ring",
       "sm_90a", "sgemm_26_wide_tile<7, true", kOzakiInt8, &rung26::tile, &rung26::supports, &rung26::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      {27, "27_crt_in_fp64", kTensor, 26, "tensor/27_crt_in_fp64.cuh", "The rebuild in floating point (sm_90a)",
       "the epilogue rebuilds each output by the Chinese remainder theorem in FP64 (exact split sums, one rounded "
       "quotient) instead of Garner's integer steps",
       "sm_90a", "sgemm_27_crt_in_fp64<7, true", kOzakiInt8, &rung27::tile, &rung27::supports, &rung27::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      {28, "28_one_modulus_loop", kTensor, 27, "tensor/28_one_modulus_loop.cuh", "One copy of the modulus loop (sm_90a)",
       "the loop over the moduli is not unrolled: one copy of the code, which stays in the instruction cache, with "
       "the modulus reduced by a run-time multiply-high",
       "sm_90a", "sgemm_28_one_modulus_loop<7, true", kOzakiInt8, &rung28::tile, &rung28::supports, &rung28::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      {29, "29_epilogue_prefetch", kTensor, 28, "tensor/29_epilogue_prefetch.cuh", "The epilogue's loads one group ahead (sm_90a)",
       "the epilogue loads the next output group's residues and scales before it rebuilds the current one, so their "
       "L2 latency hides behind arithmetic",
       "sm_90a", "sgemm_29_epilogue_prefetch<7, true", kOzakiInt8, &rung29::tile, &rung29::supports, &rung29::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      // ---- on top: dispatch ----
      {30, "30_auto", kDispatch, kNone, "dispatch/30_auto.cuh", "Dispatch: the kernel for the shape",
       "a model with constants measured on the GPU picks, per shape, a GEMV kernel or the capstone's kernels in one "
       "of five tile configurations, or where it is faster rung 32's Ozaki scheme on the tensor cores",
       "sm_80", "sgemm_30_gemv<", kAuto, &rung30::tile, &rung30::supports, &rung30::launch, &rung30::choice, false,
       kCapstoneByName, kTakesAll, &rung30::predicted_ns},
      // The tensor-core track goes on past the dispatch rung's number (30, which sits on top).
      {31, "31_ordered_units", kTensor, 29, "tensor/31_ordered_units.cuh",
       "One modulus of one tile at a time, handed out in order (sm_90a)",
       "the unit of work is one modulus of one tile, taken in order from an atomic counter by one block per SM, so "
       "the blocks in flight read neighbouring tiles of one modulus from L2; the rebuild becomes a kernel of its own",
       "sm_90a", "sgemm_31_ordered_units<", kOzakiInt8, &rung31::tile, &rung31::supports, &rung31::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
      {32, "32_fused_prepass", kTensor, 31, "tensor/32_fused_prepass.cuh",
       "The pre-pass reads each operand once (sm_90a)",
       "one kernel per operand gathers a line's statistics, takes its scale and writes its residues while the line "
       "waits in the shared memory of a cluster, so A and B cross HBM once before the INT8 GEMMs",
       "sm_90a", "sgemm_32_fused_prepass<", kOzakiInt8, &rung32::tile, &rung32::supports, &rung32::launch,
       nullptr, !kPacks, kCapstoneByName, kTakesLayouts},
  });
  return table;
}

const Rung* capstone() {
  for (const Rung& r : registry())
    if (r.capstone) return &r;
  return nullptr;
}

const Rung* find_rung(int id) {
  for (const Rung& r : registry())
    if (r.id == id) return &r;
  return nullptr;
}

const Rung* find_rung(const std::string& key) {
  if (key.empty()) return nullptr;
  if (key.find_first_not_of("0123456789") == std::string::npos)
    return key.size() <= 3 ? find_rung(std::stoi(key)) : nullptr;
  for (const Rung& r : registry()) {
    const std::string slug = r.slug;
    if (slug == key || slug.substr(slug.find('_') + 1) == key) return &r;
  }
  return nullptr;
}

const char* track_name(Track t) {
  switch (t) {
    case Track::kBaseline: return "baseline";
    case Track::kCudaCore: return "cuda-core";
    case Track::kTensorCore: return "tensor-core";
    case Track::kDispatch: return "dispatch";
  }
  return "unknown";
}

}  // namespace sgemm
