// =====================================================================================
// Rung 25 — FP32 from INT8 tensor cores: the Ozaki scheme (sm_90a)         (tensor-core track)
// BUILDS ON: 24_tma_warp_specialized. The lesson is the diff:
//   git diff --no-index kernels/tensor/24_tma_warp_specialized.cuh kernels/tensor/25_ozaki_int8.cuh
// WHAT CHANGED: the number format on the tensor cores. Rung 24 splits each FP32 value into two
//   TF32 halves and runs three MMAs. Here each row of A and column of B is scaled by a power of
//   two and rounded to an integer of beta bits (common/ozaki.cuh); the integers are cut into n
//   INT8 residues modulo n coprime moduli m_l <= 256; the kernel runs one s8*s8->s32 wgmma GEMM
//   per modulus through the same TMA ring, reduces each result modulo m_l and keeps the residue
//   as a byte; the epilogue rebuilds the exact integer product from its n residues (Chinese
//   remainder theorem, Garner's algorithm) and scales it back. n = 7 or 8 (ozaki::plan).
// WHY: INT8 wgmma runs 4x the operations per cycle of TF32 (1979 against 495 dense TOPS on an
//   H100 SXM), and integer sums are exact: no truncating accumulator, no per-slab FP32 add.
// PREDICTION: IMMA-class wgmma (HGMMA ... .S8) in the SASS instead of .TF32; 8 moduli of INT8 cost
//   8/4 = 2 TF32 MMAs against rung 24's 3, so +30% over rung 24 at 4096^3 if the loop keeps the
//   tensor pipe as busy; the pre-pass writes n bytes per element instead of 8 and the epilogue's
//   Garner steps are ~30 integer operations per output, small beside the K loop.
// SHOW IT: build/release/bench/sgemm_bench --kernel 24,25 (needs an sm_90 GPU)
//   python3 tools/sass_report.py --diff 24 25 && python3 tools/ncu_profile.py --kernel 25
// PAGE: docs/rungs/25_ozaki_int8.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/hopper.cuh"
#include "common/wgmma.cuh"
#include "common/ozaki.cuh"

namespace sgemm::rung25 {

constexpr int kWgmmaN = 128;                      // columns of wgmma m64n128k8
constexpr int kWgmmaK = 32;                       // k of one INT8 wgmma
// The INT32 accumulators are reduced modulo m every 2^16 of K: |sum| <= 2^16 * 128 * 128 = 2^30.
constexpr int kReduceK = 1 << 16;

template <int BM, int BN, int BK, int Stages>
struct Tile {
  static constexpr int kConsumers = BM / kWgmmaM;               // consumer warpgroups: one per 64 rows
  static constexpr int kThreads = (kConsumers + 1) * kWarpgroupThreads;  // + the producer warpgroup
  static constexpr int kRowBytes = BK;                           // one tile row: 128 int8
  static constexpr int kTileABytes = BM * kRowBytes;            // A's residues: [BM][BK]
  static constexpr int kTileBBytes = BN * kRowBytes;            // B's residues: [BN][BK]
  static constexpr int kStageBytes = kTileABytes + kTileBBytes;
  // Each consumer thread's residues: one byte per output and modulus, four outputs to a word,
  // [modulus][word][consumer thread] so that a warp's words are consecutive (no bank conflict).
  static constexpr int kResWords = kWgmmaM * BN / kWarpgroupThreads / 4;  // words per thread and modulus
  static constexpr int kResBytesPerModulus = kConsumers * kWarpgroupThreads * kResWords * 4;
  // The stages, the residues of NMod moduli and the slack that lets the kernel align its base to
  // the swizzle atom.
  static constexpr int smem_bytes(int nmod) { return Stages * kStageBytes + nmod * kResBytesPerModulus + kSwizzleAtomBytes; }
  static constexpr int kKSteps = BK / kWgmmaK;                  // wgmma k-steps per slab
  static constexpr int kAccRegs = kWgmmaM * BN / kWarpgroupThreads;  // INT32 accumulators per thread
  static constexpr int kReduceSlabs = kReduceK / BK;            // slabs between reductions
  static constexpr int kFragGroups = BN / kFragCols;            // fragment groups j per row
  // A stage is free again once every consumer warp has seen its wgmmas complete.
  static constexpr int kEmptyArrivals = kConsumers * (kWarpgroupThreads / kWarpSize);

  static_assert(BM % kWgmmaM == 0, "each consumer warpgroup owns 64 rows: BM must be a multiple of 64");
  static_assert(BN == kWgmmaN, "one wgmma m64n128k32 spans the block tile's columns: BN must be 128");
  static_assert(BK == kSwizzleBytes, "a K-major row of the tile must be exactly one 128-byte swizzle row: BK must be 128");
  static_assert(BK % kWgmmaK == 0, "a slab must hold whole wgmma k-steps of 32");
  static_assert(kTileABytes % kSwizzleAtomBytes == 0 && kTileBBytes % kSwizzleAtomBytes == 0,
                "every tile must start on a 1024-byte swizzle-atom boundary");
  static_assert((kWgmmaM * kRowBytes) % kSwizzleAtomBytes == 0,
                "each warpgroup's 64-row slice of A must start on a swizzle-atom boundary");
  static_assert(BM <= 256 && BN <= 256, "a TMA box spans at most 256 rows");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
};

// ---- main kernel: TMA producer, wgmma consumers, an mbarrier ring ---------------------------------

// C (M x N) = alpha * A B + beta * C through NMod INT8 GEMMs. Block (x, y) computes C[y*BM..,
// x*BN..]. Warpgroup 0 is the producer: one of its threads copies slab after slab, modulus after
// modulus, into the stage ring with the TMA. Warpgroup w >= 1 consumes rows (w-1)*64 ..
// (w-1)*64+63. mapA spans the residues of A for modulus 0, then 1, ... (Mp rows each), mapB
// likewise (Np rows each), each row Kp bytes long, whole tiles. After each modulus the INT32 sums
// are reduced modulo m_l and kept as bytes; the epilogue rebuilds each output from its NMod
// residues and the row's and column's scales (shiftA, shiftB).
template <int NMod, bool kVec, int BM, int BN, int BK, int Stages>
__global__ void __launch_bounds__(Tile<BM, BN, BK, Stages>::kThreads, 1)
sgemm_25_ozaki_int8(int M, int N, int kTiles, float alpha, const __grid_constant__ TmaMap mapA,
                    const __grid_constant__ TmaMap mapB, int Mp, int Np, const int* __restrict__ shiftA,
                    const int* __restrict__ shiftB, float beta, float* __restrict__ C, int ldc) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = Tile<BM, BN, BK, Stages>;
  // [Stages] x (A [BM][BK], B [BN][BK]) int8, each 128B-swizzled by the TMA, K-major, starting on
  // a 1024-byte boundary (the base is aligned here, hence the slack); then the residues.
  extern __shared__ __align__(16) unsigned char smemRaw[];
  __shared__ __align__(8) unsigned long long sFull[Stages], sEmpty[Stages];  // the mbarrier ring
  const unsigned rawAddr = static_cast<unsigned>(__cvta_generic_to_shared(smemRaw));
  // align_to_atom (hopper.cuh) spelled out: with the offset used again below (sRes), the call
  // compiles to a reordered kernel, and this step keeps rung 25's SASS as it was.
  const unsigned sBaseAddr = rawAddr + (kSwizzleAtomBytes - rawAddr % kSwizzleAtomBytes) % kSwizzleAtomBytes;
  const unsigned fullAddr = static_cast<unsigned>(__cvta_generic_to_shared(sFull));
  const unsigned emptyAddr = static_cast<unsigned>(__cvta_generic_to_shared(sEmpty));
  const StageRing<Stages> ring(fullAddr, emptyAddr, T::kEmptyArrivals);  // the only block-wide barrier

  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warpgroup = threadIdx.x / kWarpgroupThreads;

  if (warpgroup == 0) {  // ---- the producer: one thread, one TMA copy per tile
    if (threadIdx.x != 0) return;
    for (int l = 0, t = 0; l < NMod; ++l) {
      for (int kt = 0; kt < kTiles; ++kt, ++t) {
        const int s = ring.slot(t);
        const unsigned full = ring.full(t);
        ring.acquire(t);  // the consumers are done with it
        mbar_arrive_expect_tx(full, T::kStageBytes);
        const unsigned stage = sBaseAddr + s * T::kStageBytes;
        const int k0 = kt * BK;
        tma_load_2d(stage, &mapA, k0, l * Mp + m0, full);                 // A's residues mod m_l
        tma_load_2d(stage + T::kTileABytes, &mapB, k0, l * Np + n0, full);  // B's residues mod m_l
      }
    }
    return;
  }

  // ---- a consumer warpgroup: wait for a full stage, multiply, hand the stage back
  const int consumer = warpgroup - 1;
  const int warp = threadIdx.x % kWarpgroupThreads / kWarpSize, lane = threadIdx.x % kWarpSize;
  int rAcc[T::kAccRegs];  // [kFragGroups][2 rows][2 columns]: the fragment noted at kRowsPerWarp
  // This thread's residue words: word w of modulus l at sRes[l * kResWords * 256 + w * 256].
  unsigned* sRes = reinterpret_cast<unsigned*>(smemRaw + (sBaseAddr - rawAddr) + Stages * T::kStageBytes) +
                   (threadIdx.x - kWarpgroupThreads);
  constexpr int kConsumerThreads = T::kConsumers * kWarpgroupThreads;

  int t = 0;
#pragma unroll
  for (int l = 0; l < NMod; ++l) {  // unrolled: m_l is a constant in each copy of the loop
    const int m = ozaki::modulus(l);
    for (int kt = 0; kt < kTiles; ++kt, ++t) {
      const int s = ring.slot(t);
      ring.wait(t);  // the TMA's bytes have landed

      const unsigned stage = sBaseAddr + s * T::kStageBytes;
      const unsigned aTile = stage + consumer * kWgmmaM * T::kRowBytes;  // this warpgroup's 64 rows
      const unsigned bTile = stage + T::kTileABytes;
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < T::kKSteps; ++ks) {
        // k-step ks starts 32 bytes further along the 128-byte rows; the hardware applies the
        // swizzle to the full address, so the descriptor's start address simply moves.
        const unsigned stepOffset = ks * kWgmmaK;
        const bool accumulate = kt > 0 || ks > 0;  // each modulus starts from zero
        wgmma_m64n128k32(rAcc, make_desc(aTile + stepOffset), make_desc(bTile + stepOffset), accumulate);
      }
      wgmma_commit();
      wgmma_wait<0>();  // this warp's wgmmas have read the stage
      __syncwarp();
      if (lane == 0) ring.release(t);  // one arrival per consumer warp
      if ((kt + 1) % T::kReduceSlabs == 0) {  // K beyond 2^16: keep the INT32 sums in range
#pragma unroll
        for (int i = 0; i < T::kAccRegs; ++i) rAcc[i] %= m;
      }
    }
    // The sum modulo m_l, one byte per output, four to a word; the next modulus's wgmma_fence
    // orders these reads of the accumulators before its writes.
#pragma unroll
    for (int w = 0; w < T::kResWords; ++w) {
      unsigned word = 0;
#pragma unroll
      for (int e = 0; e < 4; ++e) word |= unsigned(ozaki::balance(rAcc[4 * w + e], m) & 0xff) << (8 * e);
      sRes[(l * T::kResWords + w) * kConsumerThreads] = word;
    }
  }

  // Each output from its NMod residues (only this thread's own words: no barrier needed).
  const int rowBase = m0 + consumer * kWgmmaM + warp * kRowsPerWarp + lane / kLanesPerRow;
  const int colBase = n0 + lane % kLanesPerRow * kColsPerLane;
  const int sa[2] = {rowBase < M ? shiftA[rowBase] : 0, rowBase + kFragRowStep < M ? shiftA[rowBase + kFragRowStep] : 0};
#pragma unroll 1
  for (int j = 0; j < T::kFragGroups; ++j) {  // word j holds group j's four outputs: rows g, g+8 x 2 columns
    unsigned words[NMod];
#pragma unroll
    for (int l = 0; l < NMod; ++l) words[l] = sRes[(l * T::kResWords + j) * kConsumerThreads];
    const int col = colBase + j * kFragCols;
    const int sb[2] = {col < N ? shiftB[col] : 0, col + 1 < N ? shiftB[col + 1] : 0};
#pragma unroll
    for (int half = 0; half < 2; ++half) {  // the lane's rows g and g + 8
      const int row = rowBase + half * kFragRowStep;
      float v[kColsPerLane];
#pragma unroll
      for (int c = 0; c < kColsPerLane; ++c) {
        const int e = half * kColsPerLane + c;  // the output's byte in the word (see kRegsPerFrag)
        int res[NMod];
#pragma unroll
        for (int l = 0; l < NMod; ++l) res[l] = int(static_cast<signed char>(words[l] >> (8 * e)));
        v[c] = ozaki::unscale(ozaki::reconstruct<NMod>(res), sa[half], sb[c]);
      }
      if (row < M) store2_epilogue<kVec>(C + int64_t(row) * ldc + col, N - col, alpha, v[0], v[1], beta);  // common.cuh
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL: other targets get an empty kernel, which launch() never runs
}

}  // namespace sgemm::rung25

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cstdint>
#include <cmath>
#include "common/launch.hpp"

namespace sgemm::rung25 {

constexpr int kBM = 128, kBN = 128, kBK = 128, kStages = 3;
using Config = Tile<kBM, kBN, kBK, kStages>;

std::string tile() {
  return wgmma_tile(kBM, kBN, kBK, kStages, "_int8");
}

// The error bound of the rung's precision model (registry): the scaled integers are off by at
// most 2^-beta times their row's (column's) largest magnitude, beta at least least_plan(K)'s (the
// plan's, or a forced count's): the inputs' spread only adds bits (ozaki::checked_scales).
double scaled_error(int64_t K) { return ozaki::scaled_error(K); }

bool supports(const GemmArgs& a, std::string* why) {
  if (!fits_int32(a, why) || !grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why)) return false;
  // The TMA's coordinates are 32-bit: the residues of every modulus, stacked.
  const int64_t rows = int64_t(ozaki::kMaxModuli) * std::max(ceil_div64(a.M, kBM) * kBM, ceil_div64(a.N, kBN) * kBN);
  if (rows > INT32_MAX) {
    if (why) *why = "M or N above 2^28: the stacked residues exceed the TMA's 32-bit coordinates";
    return false;
  }
  return true;
}

#ifdef SGEMM_SM90A_BUILT
// The residues and the INT8 GEMMs for NMod moduli, once the scales are known.
template <int NMod>
Status launch_moduli(const GemmArgs& a, const ozaki::Scales& sc, signed char* res, int64_t Mp, int64_t Np, int64_t Kp,
                     cudaStream_t stream, std::string* why) {
  const bool vec = vec4_ok(a, nullptr);
  auto kernel = vec ? sgemm_25_ozaki_int8<NMod, true, kBM, kBN, kBK, kStages>
                    : sgemm_25_ozaki_int8<NMod, false, kBM, kBN, kBK, kStages>;
  if (const Status s = prepare(kernel, Config::kThreads, Config::smem_bytes(NMod), nullptr, why); s != Status::kOk) return s;
  signed char* resA = res;                   // [NMod][Mp][Kp]
  signed char* resB = res + NMod * Mp * Kp;  // [NMod][Np][Kp]
  TmaMap mapA, mapB;
  Status s = encode_map(resA, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Mp, Kp, kBM, kBK, &mapA, why);
  if (s == Status::kOk) s = encode_map(resB, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Np, Kp, kBN, kBK, &mapB, why);
  if (s != Status::kOk) return s;
  s = ozaki::residues<NMod>(a, sc, resA, Mp, resB, Np, Kp, stream);
  const dim3 grid(unsigned(Np / kBN), unsigned(Mp / kBM));
  kernel<<<grid, Config::kThreads, Config::smem_bytes(NMod), stream>>>(int(a.M), int(a.N), int(Kp / kBK), a.alpha, mapA, mapB,
                                                                  int(Mp), int(Np), sc.shiftA, sc.shiftB, a.beta, a.C,
                                                                  int(a.ldc));
  return launch_status_after(s);
}
#endif

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
#ifndef SGEMM_SM90A_BUILT
  (void)a;
  (void)stream;
  return refuse_without_sm90a(why);  // hopper.cuh
#else
  // sm_90a code loads on compute capability 9.0 only: elsewhere prepare() reports kArch.
  if (const Status s = ozaki::refuse_capture(stream, why); s != Status::kOk) return s;
  // Workspace: the scales' statistics, then the residues [n][Mp][Kp] of A and [n][Np][Kp] of B,
  // room for kMaxModuli (n is known once the inputs' spread is).
  const int64_t Mp = ceil_div64(a.M, kBM) * kBM, Np = ceil_div64(a.N, kBN) * kBN, Kp = ceil_div64(a.K, kBK) * kBK;
  const size_t statBytes = ceil_div64(int64_t(ozaki::stats_bytes(a.M, a.N)), kSwizzleAtomBytes) * kSwizzleAtomBytes;
  if (Mp + Np > INT64_MAX / ozaki::kMaxModuli / Kp) return Status::kOutOfMemory;  // no byte count fits 64 bits
  const size_t bytes = statBytes + size_t(ozaki::kMaxModuli * (Mp + Np) * Kp);
  void* ws = nullptr;
  if (const Status s = workspace_alloc(bytes, stream, &ws); s != Status::kOk) return s;
  ozaki::Scales sc;
  ozaki::Plan plan;
  Status s = ozaki::checked_scales(a, ws, stream, &sc, &plan, why);
  signed char* res = static_cast<signed char*>(ws) + statBytes;
  if (s == Status::kOk)
    s = plan.moduli <= 7 ? launch_moduli<7>(a, sc, res, Mp, Np, Kp, stream, why)
                         : launch_moduli<8>(a, sc, res, Mp, Np, Kp, stream, why);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
#endif
}

}  // namespace sgemm::rung25
#endif
