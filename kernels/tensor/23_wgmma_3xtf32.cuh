// =====================================================================================
// Rung 23 — 3xTF32 with wgmma (sm_90a)                                 (tensor-core track)
// BUILDS ON: 22_mma_3xtf32. The lesson is the diff:
//   git diff --no-index kernels/tensor/22_mma_3xtf32.cuh kernels/tensor/23_wgmma_3xtf32.cuh
// WHAT CHANGED: rung 22's 3xTF32 arithmetic on Hopper's warpgroup MMA. (1) A pre-pass splits A
//   and B once into TF32 big and small parts (B transposed to N x K: wgmma reads TF32 only
//   K-major), zero-padded to whole tiles, in a workspace. (2) The main kernel copies the four
//   tiles with cp.async into 128-byte-swizzled shared memory, 3 stages deep. (3) Two warpgroups
//   each own 64 x 128 of the block tile and issue wgmma.mma_async m64n128k8 reading both
//   operands from shared memory through descriptors: no LDS and no split arithmetic in the
//   loop. (4) Each slab's wgmmas start from zero and their sum is added to FP32 registers with
//   FADD (round-to-nearest): the tensor core's own accumulation truncates.
//   The descriptor and wgmma's fence / commit / wait are Hopper machinery: common/hopper.cuh.
// WHY: rung 22 loads every fragment with LDS and splits it in registers before each mma.sync,
//   so loads and split arithmetic compete with the MMAs for issue slots, and a warp-wide
//   mma.sync cannot feed Hopper's tensor cores at their wgmma rate. wgmma reads its operands
//   from shared memory, which leaves no place to split them: the pre-pass splits each element
//   once instead of once per use.
// PREDICTION: HGMMA in the SASS, no LDS in the loop; >= 1.5x cuBLAS SGEMM at an error no larger
//   than cuBLAS's. Limits: the wgmma.wait_group 0 ending every slab, four operand tiles per slab.
// SHOW IT: build/release/bench/sgemm_bench --kernel 22,23 (needs an sm_90 GPU)
//   python3 tools/sass_report.py --diff 22 23 && python3 tools/ncu_profile.py --kernel 23
// PAGE: docs/rungs/23_wgmma_3xtf32.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/hopper.cuh"
#include "common/wgmma.cuh"
#include "common/tf32_split.cuh"

namespace sgemm::rung23 {

constexpr int kWgmmaN = 128;                      // columns of wgmma m64n128k8
constexpr int kWgmmaK = 8;                        // k of one TF32 wgmma
constexpr int kChunkBytes = 16;                   // one cp.async, one cell of the swizzle

template <int BM, int BN, int BK, int Stages>
struct Tile {
  static constexpr int kWarpgroups = BM / kWgmmaM;              // one warpgroup per 64 rows
  static constexpr int kThreads = kWarpgroups * kWarpgroupThreads;
  static constexpr int kRowBytes = BK * int(sizeof(float));     // one tile row: 128 bytes
  static constexpr int kChunksPerRow = kRowBytes / kChunkBytes;  // 16-byte chunks per row
  static constexpr int kRowsPerPass = kThreads / kChunksPerRow;  // tile rows copied per pass
  static constexpr int kTileABytes = BM * kRowBytes;            // Ahi or Alo: [BM][BK]
  static constexpr int kTileBBytes = BN * kRowBytes;            // Bhi or Blo: [BN][BK]
  static constexpr int kStageBytes = 2 * kTileABytes + 2 * kTileBBytes;
  // The stages plus the slack that lets the kernel align its base to the swizzle atom.
  static constexpr int kSmemBytes = Stages * kStageBytes + kSwizzleAtomBytes;
  static constexpr int kKSteps = BK / kWgmmaK;                  // wgmma k-steps per slab
  static constexpr int kAccRegs = kWgmmaM * BN / kWarpgroupThreads;  // FP32 accumulators per thread
  static constexpr int kFragGroups = BN / kFragCols;            // fragment groups j per row

  static_assert(BM % kWgmmaM == 0, "each warpgroup owns 64 rows: BM must be a multiple of 64");
  static_assert(BN == kWgmmaN, "one wgmma m64n128k8 spans the block tile's columns: BN must be 128");
  static_assert(BK * int(sizeof(float)) == kSwizzleBytes,
                "a K-major row of the tile must be exactly one 128-byte swizzle row: BK must be 32");
  static_assert(BK % kWgmmaK == 0, "a slab must hold whole wgmma k-steps of 8");
  static_assert(kTileABytes % kSwizzleAtomBytes == 0 && kTileBBytes % kSwizzleAtomBytes == 0,
                "every tile must start on a 1024-byte swizzle-atom boundary");
  static_assert((kWgmmaM * kRowBytes) % kSwizzleAtomBytes == 0,
                "each warpgroup's 64-row slice of A must start on a swizzle-atom boundary");
  static_assert(kThreads % kChunksPerRow == 0 && BM % kRowsPerPass == 0 && BN % kRowsPerPass == 0,
                "the threads must copy the tiles in whole passes");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
};

// Byte offset of 16-byte chunk `chunk` of row `row` in a 128B-swizzled K-major tile whose base
// is 1024-byte aligned: the chunk index is XORed with the row's position in its 8-row atom.
__device__ __forceinline__ int swizzle_offset(int row, int chunk) {
  return row * kSwizzleBytes + ((chunk ^ (row % kSwizzleRows)) * kChunkBytes);
}

// ---- pre-pass: the 3xTF32 split, once per element (common/tf32_split.cuh) ----------------------

struct PrePass;  // the tag that names this rung's copy of the kernels of common/tf32_split.cuh

// ---- main kernel: wgmma on swizzled shared memory -------------------------------------------------

// Issue the cp.async copies of one slab (k0 .. k0+BK) of the four split tiles into a stage,
// in the 128B-swizzled K-major layout. The workspace is padded: no bounds checks.
template <typename T, int BM, int BN>
__device__ __forceinline__ void load_stage(unsigned char* sStage, const float* gAhi, const float* gAlo,
                                           const float* gBhi, const float* gBlo, int64_t Kp, int m0, int n0,
                                           int64_t k0) {
  const int chunk = threadIdx.x % T::kChunksPerRow, row0 = threadIdx.x / T::kChunksPerRow;
  const int col = chunk * (kChunkBytes / int(sizeof(float)));  // first float of the chunk
#pragma unroll
  for (int i = 0; i < BM / T::kRowsPerPass; ++i) {
    const int row = row0 + i * T::kRowsPerPass;
    const int64_t g = (int64_t(m0) + row) * Kp + k0 + col;
    const int s = swizzle_offset(row, chunk);
    cp_async_16(sStage + s, gAhi + g, kChunkBytes);
    cp_async_16(sStage + T::kTileABytes + s, gAlo + g, kChunkBytes);
  }
  unsigned char* sB = sStage + 2 * T::kTileABytes;
#pragma unroll
  for (int i = 0; i < BN / T::kRowsPerPass; ++i) {
    const int row = row0 + i * T::kRowsPerPass;
    const int64_t g = (int64_t(n0) + row) * Kp + k0 + col;
    const int s = swizzle_offset(row, chunk);
    cp_async_16(sB + s, gBhi + g, kChunkBytes);
    cp_async_16(sB + T::kTileBBytes + s, gBlo + g, kChunkBytes);
  }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Order this thread's prior generic-proxy writes to shared memory (cp.async included) before
// later async-proxy reads (wgmma); each writing thread issues it before the barrier.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// C (M x N) = alpha * Ahi/Alo x Bhi/Blo^T + beta * C. Block (x, y) computes C[y*BM.., x*BN..];
// warpgroup w of the block its rows w*64 .. w*64+63. Kp: the workspace's row length, a
// multiple of BK; the workspace rows reach Mp and Np, whole tiles. Each slab's wgmmas start from
// zero and their sum is added to the FP32 accumulators (round-to-nearest) after the slab: the
// tensor core's own accumulation truncates, and over all of K its error would outgrow FP32's.
template <bool kVec, int BM, int BN, int BK, int Stages>
__global__ void __launch_bounds__(Tile<BM, BN, BK, Stages>::kThreads, 1)
sgemm_23_wgmma_3xtf32(int M, int N, int64_t Kp, float alpha, const float* __restrict__ gAhi,
                      const float* __restrict__ gAlo, const float* __restrict__ gBhi, const float* __restrict__ gBlo,
                      float beta, float* __restrict__ C, int ldc) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = Tile<BM, BN, BK, Stages>;
  // [Stages] x (Ahi [BM][BK], Alo [BM][BK], Bhi [BN][BK], Blo [BN][BK]), each 128B-swizzled,
  // K-major, starting on a 1024-byte boundary (the base is aligned here, hence the slack).
  extern __shared__ __align__(16) unsigned char smemRaw[];
  const unsigned rawAddr = static_cast<unsigned>(__cvta_generic_to_shared(smemRaw));
  const unsigned pad = (kSwizzleAtomBytes - rawAddr % kSwizzleAtomBytes) % kSwizzleAtomBytes;
  unsigned char* sBase = smemRaw + pad;
  const unsigned sBaseAddr = rawAddr + pad;

  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int kTiles = int(Kp / BK);
  float rAcc[T::kAccRegs] = {};  // [kFragGroups][2 rows][2 columns]: the fragment noted at kRowsPerWarp
  float rSlab[T::kAccRegs];      // this slab's sum, same layout: what the wgmmas accumulate into

  auto issue = [&](int tile) {  // one slab as one commit group (empty past the end)
    if (tile < kTiles)
      load_stage<T, BM, BN>(sBase + (tile % Stages) * T::kStageBytes, gAhi, gAlo, gBhi, gBlo, Kp, m0, n0,
                            int64_t(tile) * BK);
    cp_async_commit();
  };

  for (int s = 0; s < Stages - 1; ++s) issue(s);

  for (int kt = 0; kt < kTiles; ++kt) {
    cp_async_wait<Stages - 2>();  // this thread's copies of slab kt have landed
    fence_proxy_async();          // ... and are visible to wgmma's async proxy
    __syncthreads();              // everyone's copies; every wgmma of slab kt-1 has completed
    issue(kt + Stages - 1);       // into the stage slab kt-1 used

    const unsigned stage = sBaseAddr + (kt % Stages) * T::kStageBytes;
    const unsigned aHi = stage + warpgroup * kWgmmaM * T::kRowBytes;  // this warpgroup's 64 rows
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
    wgmma_wait<0>();  // next step: wait<1> with one more stage
    // Add the slab's sum; the next slab's wgmma_fence orders these reads before its writes.
#pragma unroll
    for (int i = 0; i < T::kAccRegs; ++i) rAcc[i] += rSlab[i];
  }
  cp_async_wait<0>();  // only empty groups remain; leave none behind

  const int warp = threadIdx.x % kWarpgroupThreads / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int rowBase = m0 + warpgroup * kWgmmaM + warp * kRowsPerWarp + lane / kLanesPerRow;
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

}  // namespace sgemm::rung23

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cstdint>
#include "common/launch.hpp"

namespace sgemm::rung23 {

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3;
using Config = Tile<kBM, kBN, kBK, kStages>;

std::string tile() {
  return wgmma_tile(kBM, kBN, kBK, kStages, "");
}

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
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
  auto kernel = vec ? sgemm_23_wgmma_3xtf32<true, kBM, kBN, kBK, kStages>
                    : sgemm_23_wgmma_3xtf32<false, kBM, kBN, kBK, kStages>;
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

  Status s = split_3xtf32<PrePass>(a, Mp, Np, Kp, Ahi, Alo, Bhi, Blo, stream);
  const dim3 grid(unsigned(Np / kBN), unsigned(Mp / kBM));
  kernel<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(int(a.M), int(a.N), Kp, a.alpha, Ahi, Alo, Bhi, Blo,
                                                                  a.beta, a.C, int(a.ldc));
  s = launch_status_after(s);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
#endif
}

}  // namespace sgemm::rung23
#endif
