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
//   The mbarrier and TMA wrappers, and the tensor map's encoding, are in common/hopper.cuh.
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
#include "common/tf32.cuh"

namespace sgemm::rung24 {

constexpr int kWarpgroupThreads = 4 * kWarpSize;  // a warpgroup: 4 consecutive warps
constexpr int kWgmmaM = 64;                       // rows of one wgmma (one warpgroup)
constexpr int kWgmmaN = 128;                      // columns of wgmma m64n128k8
constexpr int kWgmmaK = 8;                        // k of one TF32 wgmma
// Accumulator fragment of wgmma m64nNk8 .f32 (PTX ISA, "Register Fragments"): warp w of the
// warpgroup owns rows 16w..16w+15; lane l holds rows l/4 and l/4+8, columns 8j + 2(l%4) + {0,1}.
constexpr int kRowsPerWarp = 16;   // accumulator rows per warp
constexpr int kFragRowStep = 8;    // the second row a lane holds is 8 below its first
constexpr int kFragCols = 8;       // columns per fragment group j
constexpr int kLanesPerRow = 4;    // lanes sharing one row of a fragment group
constexpr int kColsPerLane = 2;    // adjacent columns a lane holds per row and group
constexpr int kRegsPerFrag = 4;    // registers per fragment group: 2 rows x 2 columns
// Pre-pass thread blocks: 32 x 8 threads, 32 x 32 tiles for the transpose of B.
constexpr int kSplitThreadsX = kWarpSize;
constexpr int kSplitThreadsY = 8;
constexpr int kTransposeTile = kWarpSize;
constexpr int kMaxGridY = 65535;   // CUDA's limit on gridDim.y

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

// ---- pre-pass: the 3xTF32 split, once per element ----------------------------------------------

// A (M x K, lda) -> Ahi, Alo (Mp x Kp, row length Kp), zero outside M x K. Threads: x across
// the float4s of a row (coalesced), y across rows, looping over rows beyond the grid.
template <bool kVec>
__global__ void __launch_bounds__(kSplitThreadsX* kSplitThreadsY)
split_24_tma_warp_specialized_a(int M, int K, const float* __restrict__ A, int lda, int64_t Mp, int64_t Kp,
                        float* __restrict__ Ahi, float* __restrict__ Alo) {
  const int64_t vec = int64_t(blockIdx.x) * kSplitThreadsX + threadIdx.x;  // float4 index in the row
  if (vec >= Kp / kVecWidth) return;
  const int col = int(vec * kVecWidth);
  for (int64_t row = int64_t(blockIdx.y) * kSplitThreadsY + threadIdx.y; row < Mp;
       row += int64_t(gridDim.y) * kSplitThreadsY) {
    const float4 x = load4_or_zero<kVec>(A + row * lda, col, K, row < M);
    float4 hi, lo;
    split_fp32(x.x, hi.x, lo.x);
    split_fp32(x.y, hi.y, lo.y);
    split_fp32(x.z, hi.z, lo.z);
    split_fp32(x.w, hi.w, lo.w);
    store_f4(Ahi + row * Kp + col, hi);
    store_f4(Alo + row * Kp + col, lo);
  }
}

// B (K x N, ldb) -> Bhi, Blo transposed (Np x Kp, row length Kp), zero outside. One 32 x 32
// tile per block and step: read along n (coalesced), transpose through shared memory, write
// along k (coalesced). Blocks loop over n-tiles beyond the grid.
__global__ void __launch_bounds__(kSplitThreadsX* kSplitThreadsY)
split_24_tma_warp_specialized_b(int K, int N, const float* __restrict__ B, int ldb, int64_t Np, int64_t Kp,
                        float* __restrict__ Bhi, float* __restrict__ Blo) {
  __shared__ float sTile[kTransposeTile][kTransposeTile + 1];  // [k][n], +1: conflict-free columns
  const int64_t k0 = int64_t(blockIdx.x) * kTransposeTile;
  for (int64_t n0 = int64_t(blockIdx.y) * kTransposeTile; n0 < Np; n0 += int64_t(gridDim.y) * kTransposeTile) {
#pragma unroll
    for (int i = 0; i < kTransposeTile / kSplitThreadsY; ++i) {
      const int r = threadIdx.y + i * kSplitThreadsY;
      const int64_t k = k0 + r, n = n0 + threadIdx.x;
      sTile[r][threadIdx.x] = (k < K && n < N) ? B[k * ldb + n] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTransposeTile / kSplitThreadsY; ++i) {
      const int r = threadIdx.y + i * kSplitThreadsY;
      const int64_t n = n0 + r, k = k0 + threadIdx.x;
      float hi, lo;
      split_fp32(sTile[threadIdx.x][r], hi, lo);
      Bhi[n * Kp + k] = hi;
      Blo[n * Kp + k] = lo;
    }
    __syncthreads();  // the tile is refilled by the next n-tile
  }
}

// ---- main kernel: TMA producer, wgmma consumers, an mbarrier ring ---------------------------------

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// d = A * B + (accumulate ? d : 0) for the warpgroup: A 64 x 8 and B 8 x 128 (stored N x K),
// both TF32 in shared memory.
__device__ __forceinline__ void wgmma_m64n128k8(float (&d)[kWgmmaM * kWgmmaN / kWarpgroupThreads],
                                                unsigned long long descA, unsigned long long descB, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(descA), "l"(descB), "r"(int(accumulate)));  // scale-d: 0 ignores d's old value
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

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
  const unsigned sBaseAddr = rawAddr + (kSwizzleAtomBytes - rawAddr % kSwizzleAtomBytes) % kSwizzleAtomBytes;
  const unsigned fullAddr = static_cast<unsigned>(__cvta_generic_to_shared(sFull));
  const unsigned emptyAddr = static_cast<unsigned>(__cvta_generic_to_shared(sEmpty));
  constexpr unsigned kBarBytes = sizeof(unsigned long long);

  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbar_init(fullAddr + s * kBarBytes, 1);  // the producer's arrive; the TMA's bytes do the rest
      mbar_init(emptyAddr + s * kBarBytes, T::kEmptyArrivals);
    }
    mbar_init_fence();
  }
  __syncthreads();  // the only block-wide barrier: the ring exists before anyone uses it

  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warpgroup = threadIdx.x / kWarpgroupThreads;

  if (warpgroup == 0) {  // ---- the producer: one thread, one TMA copy per tile
    if (threadIdx.x != 0) return;
    for (int kt = 0; kt < kTiles; ++kt) {
      const int s = kt % Stages;
      const unsigned full = fullAddr + s * kBarBytes;
      mbar_wait(emptyAddr + s * kBarBytes, ((kt / Stages) & 1) ^ 1);  // the consumers are done with it
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
    const int s = kt % Stages;
    mbar_wait(fullAddr + s * kBarBytes, (kt / Stages) & 1);  // the TMA's bytes have landed

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
    if (lane == 0) mbar_arrive(emptyAddr + s * kBarBytes);  // one arrival per consumer warp
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
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" +
         std::to_string(kWgmmaM) + "x" + std::to_string(kBN) + "_s" + std::to_string(kStages) + "_tma";
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
  if (why) *why = "built without sm_90a (configure with CMAKE_CUDA_ARCHITECTURES including 90)";
  return Status::kArch;  // the wgmma kernel was not compiled for sm_90a in this build
#else
  // sm_90a code loads on compute capability 9.0 only: elsewhere prepare() reports kArch.
  // 128-bit loads and 64-bit stores where every row of A, B and C is 16-byte aligned, 32-bit ones
  // otherwise (only the pre-pass and the epilogue touch A, B and C; the workspace is aligned).
  const bool vec = vec4_ok(a, nullptr);
  auto kernel = vec ? sgemm_24_tma_warp_specialized<true, kBM, kBN, kBK, kStages>
                    : sgemm_24_tma_warp_specialized<false, kBM, kBN, kBK, kStages>;
  auto splitA = vec ? split_24_tma_warp_specialized_a<true> : split_24_tma_warp_specialized_a<false>;
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
    const dim3 splitBlock(kSplitThreadsX, kSplitThreadsY);
    const dim3 gridA(unsigned(ceil_div64(Kp / kVecWidth, kSplitThreadsX)),
                     unsigned(std::min<int64_t>(ceil_div64(Mp, kSplitThreadsY), kMaxGridY)));
    splitA<<<gridA, splitBlock, 0, stream>>>(int(a.M), int(a.K), a.A, int(a.lda), Mp, Kp, Ahi, Alo);
    s = launch_status_after(s);
    const dim3 gridB(unsigned(Kp / kTransposeTile), unsigned(std::min<int64_t>(Np / kTransposeTile, kMaxGridY)));
    split_24_tma_warp_specialized_b<<<gridB, splitBlock, 0, stream>>>(int(a.K), int(a.N), a.B, int(a.ldb), Np, Kp,
                                                                      Bhi, Blo);
    s = launch_status_after(s);
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
