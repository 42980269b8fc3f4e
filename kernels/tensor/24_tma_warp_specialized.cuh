// =====================================================================================
// Rung 24 — TMA copies and a producer warp (sm_90a)                         (tensor-core track)
// BUILDS ON: 23_wgmma_3xtf32. The lesson is the diff:
//   git diff --no-index kernels/tensor/23_wgmma_3xtf32.cuh kernels/tensor/24_tma_warp_specialized.cuh
// WHAT CHANGED: who copies the slabs and how the block waits for them. (1) One thread of a third,
//   producer warpgroup copies each stage's four tiles with the Tensor Memory Accelerator
//   (cp.async.bulk.tensor: one instruction a tile, swizzled by the copy engine) instead of 128
//   threads issuing cp.async. (2) A ring of mbarriers replaces __syncthreads: a stage's "full"
//   barrier completes when its bytes have landed, its "empty" barrier when both consumer
//   warpgroups' wgmmas have finished reading it. (3) The two consumer warpgroups never wait for
//   each other: each runs as soon as its own stage is full.
//   The mbarrier and TMA wrappers, the ring (StageRing) and the tensor map's encoding are in
//   common/hopper.cuh.
// WHY: in rung 23 every thread copies, then the whole block meets at __syncthreads every slab,
//   so both warpgroups drain their wgmmas at the same moment and the tensor cores idle while the
//   block waits, issues the next copies and restarts. Ncu shows barrier stalls leading.
// PREDICTION: UTMALDG and SYNCS (mbarrier) in the SASS, no LDGSTS and no BAR.SYNC in the loop;
//   barrier stalls mostly gone, +10% over rung 23 at 4096³ (the slab-end drain stays: each
//   warpgroup still waits for its last wgmma before adding the slab).
// SHOW IT: build/release/bench/sgemm_bench --kernel 23,24 (needs an sm_90 GPU)
//   python3 tools/sass_report.py --diff 23 24 && python3 tools/ncu_profile.py --kernel 24
// PAGE: docs/rungs/24_tma_warp_specialized.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/hopper.cuh"
#include "common/wgmma.cuh"
#include "common/tf32_split.cuh"

namespace sgemm::rung24 {

constexpr int kWgmmaN = 128;                      // columns of wgmma m64n128k8
constexpr int kWgmmaK = 8;                        // k of one TF32 wgmma

template <int BM, int BN, int BK, int Stages>
struct Tile {
  static constexpr int kConsumers = BM / kWgmmaM;               // consumer warpgroups: one per 64 rows
  static constexpr int kThreads = (kConsumers + 1) * kWarpgroupThreads;  // + the producer warpgroup
  static constexpr int kRowBytes = BK * int(sizeof(float));     // one tile row: 128 bytes
  static constexpr int kTileABytes = BM * kRowBytes;            // Ahi or Alo: [BM][BK]
  static constexpr int kTileBBytes = BN * kRowBytes;            // Bhi or Blo: [BN][BK]
  static constexpr int kStageBytes = 2 * kTileABytes + 2 * kTileBBytes;
  // The stages plus the slack that lets the kernel align its base to the swizzle atom.
  static constexpr int kSmemBytes = Stages * kStageBytes + kSwizzleAtomBytes;
  static constexpr int kKSteps = BK / kWgmmaK;                  // wgmma k-steps per slab
  static constexpr int kAccRegs = kWgmmaM * BN / kWarpgroupThreads;  // FP32 accumulators per thread
  static constexpr int kFragGroups = BN / kFragCols;            // fragment groups j per row
  // A stage is free again once every consumer warp has seen its wgmmas complete.
  static constexpr int kEmptyArrivals = kConsumers * (kWarpgroupThreads / kWarpSize);

  static_assert(BM % kWgmmaM == 0, "each consumer warpgroup owns 64 rows: BM must be a multiple of 64");
  static_assert(BN == kWgmmaN, "one wgmma m64n128k8 spans the block tile's columns: BN must be 128");
  static_assert(BK * int(sizeof(float)) == kSwizzleBytes,
                "a K-major row of the tile must be exactly one 128-byte swizzle row: BK must be 32");
  static_assert(BK % kWgmmaK == 0, "a slab must hold whole wgmma k-steps of 8");
  static_assert(kTileABytes % kSwizzleAtomBytes == 0 && kTileBBytes % kSwizzleAtomBytes == 0,
                "every tile must start on a 1024-byte swizzle-atom boundary");
  static_assert((kWgmmaM * kRowBytes) % kSwizzleAtomBytes == 0,
                "each warpgroup's 64-row slice of A must start on a swizzle-atom boundary");
  static_assert(BM <= 256 && BN <= 256, "a TMA box spans at most 256 rows");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
};

// ---- pre-pass: the 3xTF32 split, once per element (common/tf32_split.cuh) ----------------------

struct PrePass;  // the tag that names this rung's copy of the kernels of common/tf32_split.cuh

// ---- main kernel: TMA producer, wgmma consumers, an mbarrier ring ---------------------------------

// C (M x N) = alpha * Ahi/Alo x Bhi/Blo^T + beta * C. Block (x, y) computes C[y*BM.., x*BN..].
// Warpgroup 0 is the producer: one of its threads copies slab after slab into the stage ring with
// the TMA. Warpgroup w >= 1 consumes rows (w-1)*64 .. (w-1)*64+63. mapA spans Ahi's rows then
// Alo's (Alo's first row is loRowA), mapB likewise (loRowB), each row Kp floats long, whole tiles.
// Each slab's wgmmas start from zero and their sum is added to the FP32 accumulators
// (round-to-nearest) after the slab: the tensor core's own accumulation truncates.
template <bool kVec, int BM, int BN, int BK, int Stages>
__global__ void __launch_bounds__(Tile<BM, BN, BK, Stages>::kThreads, 1)
sgemm_24_tma_warp_specialized(int M, int N, int kTiles, float alpha, const __grid_constant__ TmaMap mapA,
                              const __grid_constant__ TmaMap mapB, int loRowA, int loRowB, float beta,
                              float* __restrict__ C, int ldc) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = Tile<BM, BN, BK, Stages>;
  // [Stages] x (Ahi [BM][BK], Alo [BM][BK], Bhi [BN][BK], Blo [BN][BK]), each 128B-swizzled by
  // the TMA, K-major, starting on a 1024-byte boundary (the base is aligned here, hence the slack).
  extern __shared__ __align__(16) unsigned char smemRaw[];
  __shared__ __align__(8) unsigned long long sFull[Stages], sEmpty[Stages];  // the mbarrier ring
  const unsigned rawAddr = static_cast<unsigned>(__cvta_generic_to_shared(smemRaw));
  const unsigned sBaseAddr = align_to_atom(rawAddr);
  const unsigned fullAddr = static_cast<unsigned>(__cvta_generic_to_shared(sFull));
  const unsigned emptyAddr = static_cast<unsigned>(__cvta_generic_to_shared(sEmpty));
  const StageRing<Stages> ring(fullAddr, emptyAddr, T::kEmptyArrivals);  // the only block-wide barrier

  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warpgroup = threadIdx.x / kWarpgroupThreads;

  if (warpgroup == 0) {  // ---- the producer: one thread, one TMA copy per tile
    if (threadIdx.x != 0) return;
    for (int kt = 0; kt < kTiles; ++kt) {
      const int s = ring.slot(kt);
      const unsigned full = ring.full(kt);
      ring.acquire(kt);  // the consumers are done with it
      mbar_arrive_expect_tx(full, T::kStageBytes);
      const unsigned stage = sBaseAddr + s * T::kStageBytes;
      const int k0 = kt * BK;
      tma_load_2d(stage, &mapA, k0, m0, full);                                       // Ahi
      tma_load_2d(stage + T::kTileABytes, &mapA, k0, loRowA + m0, full);             // Alo
      tma_load_2d(stage + 2 * T::kTileABytes, &mapB, k0, n0, full);                  // Bhi
      tma_load_2d(stage + 2 * T::kTileABytes + T::kTileBBytes, &mapB, k0, loRowB + n0, full);  // Blo
    }
    return;
  }

  // ---- a consumer warpgroup: wait for a full stage, multiply, hand the stage back
  const int consumer = warpgroup - 1;
  const int warp = threadIdx.x % kWarpgroupThreads / kWarpSize, lane = threadIdx.x % kWarpSize;
  float rAcc[T::kAccRegs] = {};  // [kFragGroups][2 rows][2 columns]: the fragment noted at kRowsPerWarp
  float rSlab[T::kAccRegs];      // this slab's sum, same layout: what the wgmmas accumulate into

  for (int kt = 0; kt < kTiles; ++kt) {
    const int s = ring.slot(kt);
    ring.wait(kt);  // the TMA's bytes have landed

    const unsigned stage = sBaseAddr + s * T::kStageBytes;
    const unsigned aHi = stage + consumer * kWgmmaM * T::kRowBytes;  // this warpgroup's 64 rows
    const unsigned aLo = aHi + T::kTileABytes;
    const unsigned bHi = stage + 2 * T::kTileABytes;
    const unsigned bLo = bHi + T::kTileBBytes;
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < T::kKSteps; ++ks) {
      // k-step ks starts 32 bytes further along the 128-byte rows; the hardware applies the
      // swizzle to the full address, so the descriptor's start address simply moves.
      const unsigned stepOffset = ks * kWgmmaK * int(sizeof(float));
      const bool accumulate = ks > 0;  // each slab starts from zero
      wgmma_m64n128k8(rSlab, make_desc(aLo + stepOffset), make_desc(bHi + stepOffset), accumulate);  // small terms first
      wgmma_m64n128k8(rSlab, make_desc(aHi + stepOffset), make_desc(bLo + stepOffset), true);
      wgmma_m64n128k8(rSlab, make_desc(aHi + stepOffset), make_desc(bHi + stepOffset), true);
    }
    wgmma_commit();
    wgmma_wait<0>();  // this warp's wgmmas have read the stage
    __syncwarp();
    if (lane == 0) ring.release(kt);  // one arrival per consumer warp
    // Add the slab's sum; the next slab's wgmma_fence orders these reads before its writes.
#pragma unroll
    for (int i = 0; i < T::kAccRegs; ++i) rAcc[i] += rSlab[i];
  }

  const int rowBase = m0 + consumer * kWgmmaM + warp * kRowsPerWarp + lane / kLanesPerRow;
  const int colBase = n0 + lane % kLanesPerRow * kColsPerLane;
#pragma unroll
  for (int half = 0; half < 2; ++half) {  // the lane's rows g and g + 8
    const int row = rowBase + half * kFragRowStep;
    if (row >= M) continue;
    float* cRow = C + int64_t(row) * ldc;
#pragma unroll
    for (int j = 0; j < T::kFragGroups; ++j) {
      const int col = colBase + j * kFragCols;
      const int r = j * kRegsPerFrag + half * kColsPerLane;
      store2_epilogue<kVec>(cRow + col, N - col, alpha, rAcc[r], rAcc[r + 1], beta);  // common.cuh
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL: other targets get an empty kernel, which launch() never runs
}

}  // namespace sgemm::rung24

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cstdint>
#include "common/launch.hpp"

namespace sgemm::rung24 {

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3;
using Config = Tile<kBM, kBN, kBK, kStages>;

std::string tile() {
  return wgmma_tile(kBM, kBN, kBK, kStages, "_tma");
}

bool supports(const GemmArgs& a, std::string* why) {
  if (!fits_int32(a, why) || !grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why)) return false;
  // The TMA's coordinates are 32-bit: the big and small halves of the padded A and B, stacked.
  const int64_t rows = 2 * std::max(ceil_div64(a.M, kBM) * kBM, ceil_div64(a.N, kBN) * kBN);
  if (rows > INT32_MAX) {
    if (why) *why = "M or N above 2^30: the stacked big and small operands exceed the TMA's 32-bit coordinates";
    return false;
  }
  return true;
}


Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
#ifndef SGEMM_SM90A_BUILT
  (void)a;
  (void)stream;
  return refuse_without_sm90a(why);  // hopper.cuh
#else
  // sm_90a code loads on compute capability 9.0 only: elsewhere prepare() reports kArch.
  // 64-bit stores where every row of A, B and C is 16-byte aligned, 32-bit ones otherwise. Only the
  // pre-pass and the epilogue touch A, B and C (the workspace is aligned); the pre-pass reads either
  // layout and picks its loads per operand (common/tf32_split.cuh).
  const bool vec = vec4_ok(a, nullptr);
  auto kernel = vec ? sgemm_24_tma_warp_specialized<true, kBM, kBN, kBK, kStages>
                    : sgemm_24_tma_warp_specialized<false, kBM, kBN, kBK, kStages>;
  if (const Status s = prepare(kernel, Config::kThreads, Config::kSmemBytes, nullptr, why); s != Status::kOk) return s;

  // Workspace: Ahi, Alo [Mp][Kp], then Bhi, Blo [Np][Kp] (B transposed), all zero-padded.
  const int64_t Mp = ceil_div64(a.M, kBM) * kBM, Np = ceil_div64(a.N, kBN) * kBN, Kp = ceil_div64(a.K, kBK) * kBK;
  constexpr int64_t kMaxFloats = INT64_MAX / int64_t(2 * sizeof(float));  // hi and lo of each operand
  if (Mp + Np > kMaxFloats / Kp) return Status::kOutOfMemory;  // no byte count would fit in 64 bits
  const int64_t floats = 2 * (Mp + Np) * Kp;
  void* ws = nullptr;
  if (const Status s = workspace_alloc(size_t(floats) * sizeof(float), stream, &ws); s != Status::kOk) return s;
  float* Ahi = static_cast<float*>(ws);
  float* Alo = Ahi + Mp * Kp;
  float* Bhi = Alo + Mp * Kp;
  float* Blo = Bhi + Np * Kp;

  TmaMap mapA, mapB;  // Ahi and Alo as one matrix of 2*Mp rows, Bhi and Blo of 2*Np rows
  Status s = encode_map(Ahi, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, sizeof(float), 2 * Mp, Kp, kBM, kBK, &mapA, why);
  if (s == Status::kOk) s = encode_map(Bhi, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, sizeof(float), 2 * Np, Kp, kBN, kBK, &mapB, why);
  if (s == Status::kOk) {
    s = split_3xtf32<PrePass>(a, Mp, Np, Kp, Ahi, Alo, Bhi, Blo, stream);
    const dim3 grid(unsigned(Np / kBN), unsigned(Mp / kBM));
    kernel<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(int(a.M), int(a.N), int(Kp / kBK), a.alpha, mapA,
                                                                    mapB, int(Mp), int(Np), a.beta, a.C, int(a.ldc));
    s = launch_status_after(s);
  }
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
#endif
}

}  // namespace sgemm::rung24
#endif
