// =====================================================================================
// Rung 31 — One modulus of one tile at a time, handed out in order (sm_90a) (tensor-core track)
// BUILDS ON: 29_epilogue_prefetch. The lesson is the diff:
//   git diff --no-index kernels/tensor/29_epilogue_prefetch.cuh kernels/tensor/31_ordered_units.cuh
// WHAT CHANGED: the unit of work is one modulus of one tile, not a tile's every modulus. One block
//   per SM takes unit after unit from an atomic counter, modulus by modulus and within a modulus in
//   groups of kGroupRows tile rows; each unit leaves its residues in a scratch for the whole C, and
//   the rebuild runs as a kernel of its own once every unit is done.
// WHY: a block of rung 29 spends the whole of K on each of its moduli in turn, so blocks that drift
//   apart read different moduli's planes, which at 8192^3 are larger than L2: Nsight Compute counts
//   more DRAM bytes than rung 27's (the page has the figures). Units taken in order keep the
//   blocks in flight on neighbouring tiles of one modulus, whatever their pace.
// PREDICTION: DRAM bytes at 8192^3 a third of rung 29's or less, the slowdown against rung 27 on
//   the H100 gone; the rebuild's extra round trip through HBM (one byte per output and modulus,
//   written and read) costs a few percent at 4096^3.
// SHOW IT: build/release/bench/sgemm_bench --kernel 29,31 (needs an sm_90 GPU)
//   python3 tools/sass_report.py --diff 29 31 && python3 tools/ncu_profile.py --kernel 31 --size 8192
// PAGE: docs/rungs/31_ordered_units.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/hopper.cuh"
#include "common/wgmma.cuh"
#include "common/ozaki.cuh"

namespace sgemm::rung31 {

constexpr int kWgmmaN = 256;                      // columns of wgmma m64n256k32
constexpr int kWgmmaK = 32;                       // k of one INT8 wgmma
// The INT32 accumulators are reduced modulo m every 2^16 of K: |sum| <= 2^16 * 128 * 128 = 2^30.
constexpr int kReduceK = 1 << 16;
// Within a modulus, tiles go down groups of this many tile rows, column by column: the ~132 units
// in flight span about 16 x 8 tiles (2048 x 2048 outputs with 128 x 256 tiles), a square, whose
// residues are the fewest bytes for that many tiles.
constexpr int kGroupRows = 16;

// Tile `i` of a grid of tilesM x tilesN tiles in grouped order: groups of kGroupRows tile rows (the
// last one may be shorter), each walked column by column, down its rows within a column.
__host__ __device__ __forceinline__ void grouped_tile(int64_t i, int tilesM, int tilesN, int* tileM, int* tileN) {
  const int64_t perGroup = int64_t(kGroupRows) * tilesN;
  const int group = int(i / perGroup);
  const int firstRow = group * kGroupRows;
  const int rows = min(kGroupRows, tilesM - firstRow);
  const int64_t local = i - group * perGroup;
  *tileM = firstRow + int(local % rows);
  *tileN = int(local / rows);
}

template <int BM, int BN, int BK, int Stages>
struct Tile {
  static constexpr int kConsumers = BM / kWgmmaM;               // consumer warpgroups: one per 64 rows
  static constexpr int kThreads = (kConsumers + 1) * kWarpgroupThreads;  // + the producer warpgroup
  static constexpr int kRowBytes = BK;                           // one tile row: 128 int8
  static constexpr int kTileABytes = BM * kRowBytes;            // A's residues: [BM][BK]
  static constexpr int kTileBBytes = BN * kRowBytes;            // B's residues: [BN][BK]
  static constexpr int kStageBytes = kTileABytes + kTileBBytes;
  // Each consumer thread's residues: one byte per output and modulus, four outputs to a word, in
  // the unit's slot of a global scratch, [word][consumer thread] so that a warp's words are
  // consecutive (one 128-byte store per warp and word).
  static constexpr int kResWords = kWgmmaM * BN / kWarpgroupThreads / 4;  // words per thread and modulus
  static constexpr int kResWordsPerModulus = kConsumers * kWarpgroupThreads * kResWords;
  // The stages and the slack that lets the kernel align its base to the swizzle atom: shared
  // memory now holds the ring alone.
  static constexpr int kSmemBytes = Stages * kStageBytes + kSwizzleAtomBytes;
  static constexpr int kKSteps = BK / kWgmmaK;                  // wgmma k-steps per slab
  static constexpr int kAccRegs = kWgmmaM * BN / kWarpgroupThreads;  // INT32 accumulators per thread
  static constexpr int kReduceSlabs = kReduceK / BK;            // slabs between reductions
  static constexpr int kFragGroups = BN / kFragCols;            // fragment groups j per row
  // A stage is free again once every consumer warp has seen its wgmmas complete.
  static constexpr int kEmptyArrivals = kConsumers * (kWarpgroupThreads / kWarpSize);

  static_assert(BM % kWgmmaM == 0, "each consumer warpgroup owns 64 rows: BM must be a multiple of 64");
  static_assert(BN == kWgmmaN, "one wgmma m64n256k32 spans the block tile's columns: BN must be 256");
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

// The INT8 GEMMs: unit u of the `units` = moduli x tilesM x tilesN is modulus l = u / tiles of tile
// grouped_tile(u % tiles), tile (y, x) being C[y*BM.., x*BN..]. Warpgroup 0 is the producer: one of
// its threads takes the next unit from `next` (an atomic counter, zero at launch) and copies its
// slabs into the stage ring with the TMA, the unit's number in the stage's slot of sUnit with its
// first slab (-1, with no bytes, once the units run out). Warpgroup w >= 1 consumes rows (w-1)*64 ..
// (w-1)*64+63. mapA spans the residues of A for modulus 0, then 1, ... (Mp rows each), mapB
// likewise (Np rows each), each row Kp bytes long, whole tiles. A unit's INT32 sums, reduced
// modulo m_l, go to its slot of `scratch` as bytes (global memory, one word per thread and output
// word), for the rebuild kernel.
template <int BM, int BN, int BK, int Stages>
__global__ void __launch_bounds__(Tile<BM, BN, BK, Stages>::kThreads, 1)
sgemm_31_ordered_units(int kTiles, int moduli, int tilesM, int tilesN, const __grid_constant__ TmaMap mapA,
                       const __grid_constant__ TmaMap mapB, int Mp, int Np, unsigned long long* __restrict__ next,
                       unsigned* __restrict__ scratch) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = Tile<BM, BN, BK, Stages>;
  // [Stages] x (A [BM][BK], B [BN][BK]) int8, each 128B-swizzled by the TMA, K-major, starting on
  // a 1024-byte boundary (the base is aligned here, hence the slack).
  extern __shared__ __align__(16) unsigned char smemRaw[];
  __shared__ __align__(8) unsigned long long sFull[Stages], sEmpty[Stages];  // the mbarrier ring
  __shared__ long long sUnit[Stages];  // the unit whose first slab a stage holds (-1: no more units)
  const unsigned rawAddr = static_cast<unsigned>(__cvta_generic_to_shared(smemRaw));
  const unsigned sBaseAddr = align_to_atom(rawAddr);
  const unsigned fullAddr = static_cast<unsigned>(__cvta_generic_to_shared(sFull));
  const unsigned emptyAddr = static_cast<unsigned>(__cvta_generic_to_shared(sEmpty));
  const StageRing<Stages> ring(fullAddr, emptyAddr, T::kEmptyArrivals);  // the only block-wide barrier

  const int64_t tiles = int64_t(tilesM) * tilesN, units = tiles * moduli;
  const int warpgroup = threadIdx.x / kWarpgroupThreads;

  if (warpgroup == 0) {  // ---- the producer: one thread, one TMA copy per slab
    if (threadIdx.x != 0) return;
    for (uint32_t t = 0;;) {  // t: slabs so far, the ring's position and phase from unit to unit
      const long long u = static_cast<long long>(atomicAdd(next, 1ull));
      const int l = int(u / tiles);
      int tm = 0, tn = 0;
      if (u < units) grouped_tile(u % tiles, tilesM, tilesN, &tm, &tn);
      for (int kt = 0; kt < kTiles; ++kt, ++t) {
        const int s = ring.slot(t);
        const unsigned full = ring.full(t);
        ring.acquire(t);  // the consumers are done with it
        if (kt == 0) sUnit[s] = u < units ? u : -1;  // released to the consumers by the arrival below
        if (u >= units) {
          mbar_arrive(full);  // a stage without bytes: the end
          return;
        }
        mbar_arrive_expect_tx(full, T::kStageBytes);
        const unsigned stage = sBaseAddr + s * T::kStageBytes;
        const int k0 = kt * BK;
        tma_load_2d(stage, &mapA, k0, l * Mp + tm * BM, full);                 // A's residues mod m_l
        tma_load_2d(stage + T::kTileABytes, &mapB, k0, l * Np + tn * BN, full);  // B's residues mod m_l
      }
    }
  }

  // ---- a consumer warpgroup: wait for a full stage, multiply, hand the stage back
  const int consumer = warpgroup - 1;
  const int lane = threadIdx.x % kWarpSize;
  int rAcc[T::kAccRegs];  // [kFragGroups][2 rows][2 columns]: the fragment noted at kRowsPerWarp
  constexpr int kConsumerThreads = T::kConsumers * kWarpgroupThreads;
  for (uint32_t t = 0;;) {
    const int s0 = ring.slot(t);
    ring.wait(t);  // the unit's first slab (or the end)
    // Lane 0 reads the number and hands it to its warp: its own arrival on the stage's empty barrier
    // (below) releases that read before the producer may write the stage's next number.
    long long u = 0;
    if (lane == 0) u = sUnit[s0];
    u = __shfl_sync(0xffffffffu, u, 0);
    if (u < 0) return;
    const int l = int(u / tiles);
    const ozaki::RuntimeModulus m(ozaki::modulus(l));
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
        const bool accumulate = kt > 0 || ks > 0;  // each unit starts from zero
        wgmma_m64n256k32(rAcc, make_desc(aTile + stepOffset), make_desc(bTile + stepOffset), accumulate);
      }
      wgmma_commit();
      wgmma_wait<0>();  // this warp's wgmmas have read the stage
      __syncwarp();
      if (lane == 0) ring.release(t);  // one arrival per consumer warp
      if ((kt + 1) % T::kReduceSlabs == 0) {  // K beyond 2^16: keep the INT32 sums in range
#pragma unroll
        for (int i = 0; i < T::kAccRegs; ++i) rAcc[i] = m.reduce(rAcc[i]);
      }
    }
    // The sum modulo m_l, one byte per output (a residue in [-128, 127], which is all the CRT
    // rebuild needs), four to a word, in unit u's slot: word w at gRes[w * kConsumerThreads]; the
    // next unit's wgmma_fence orders these reads of the accumulators before its writes.
    unsigned* gRes = scratch + u * T::kResWordsPerModulus + (threadIdx.x - kWarpgroupThreads);
#pragma unroll
    for (int w = 0; w < T::kResWords; ++w) {
      unsigned word = 0;
#pragma unroll
      for (int e = 0; e < 4; ++e) word |= unsigned(m.reduce(rAcc[4 * w + e]) & 0xff) << (8 * e);
      gRes[w * kConsumerThreads] = word;
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL: other targets get an empty kernel, which launch() never runs
}

// ---- the rebuild: kRebuildSplit blocks per tile, the consumers' threads of the main kernel --------

// A tile's fragment groups are shared out to this many blocks: one block per tile left most SMs
// with a single block of eight warps, too few loads in flight below about 4096^3 (one wave of
// tiles or less).
constexpr int kRebuildSplit = 4;
// Blocks an SM the rebuild's registers must allow: 0 (no minimum: ptxas's choice), but four at six
// moduli, where ptxas otherwise aims at five blocks (a fifth of the register file each) and spills a
// pointer across the CRT sums to get there. Four leave it what the eight-moduli rebuild takes.
template <int NMod>
constexpr int rebuild_min_blocks() { return NMod == 6 ? 4 : 0; }

// Each output of tile grouped_tile(blockIdx.x) in fragment groups [blockIdx.y, blockIdx.y + 1) x
// kFragGroups / kRebuildSplit from its NMod residues in the units' slots of `scratch` (thread i
// reads the words consumer thread i wrote) and the row's and column's scales (shiftA, shiftB).
template <int NMod, bool kVec, int BM, int BN, int BK, int Stages>
__global__ void __launch_bounds__(Tile<BM, BN, BK, Stages>::kConsumers * kWarpgroupThreads,
                                  rebuild_min_blocks<NMod>())
sgemm_31_rebuild(int M, int N, int tilesM, int tilesN, float alpha, const int* __restrict__ shiftA,
                 const int* __restrict__ shiftB, float beta, float* __restrict__ C, int ldc,
                 const unsigned* __restrict__ scratch) {
  using T = Tile<BM, BN, BK, Stages>;
  constexpr int kConsumerThreads = T::kConsumers * kWarpgroupThreads;
  constexpr int kGroups = T::kFragGroups / kRebuildSplit;  // this block's fragment groups
  static_assert(T::kFragGroups % kRebuildSplit == 0, "the blocks of a tile share its fragment groups evenly");
  const int j0 = int(blockIdx.y) * kGroups, j1 = j0 + kGroups;
  const int64_t tiles = int64_t(tilesM) * tilesN;
  int tm, tn;
  grouped_tile(blockIdx.x, tilesM, tilesN, &tm, &tn);
  const int m0 = tm * BM, n0 = tn * BN;
  const int consumer = threadIdx.x / kWarpgroupThreads;
  const int warp = threadIdx.x % kWarpgroupThreads / kWarpSize, lane = threadIdx.x % kWarpSize;
  // This thread's word w of modulus l: gRes[l * tiles * kResWordsPerModulus + w * kConsumerThreads].
  const unsigned* gRes = scratch + int64_t(blockIdx.x) * T::kResWordsPerModulus + threadIdx.x;
  const int64_t modulusStride = tiles * T::kResWordsPerModulus;
  const int rowBase = m0 + consumer * kWgmmaM + warp * kRowsPerWarp + lane / kLanesPerRow;
  const int colBase = n0 + lane % kLanesPerRow * kColsPerLane;
  const int sa[2] = {rowBase < M ? shiftA[rowBase] : 0, rowBase + kFragRowStep < M ? shiftA[rowBase + kFragRowStep] : 0};
  // Group j's words and column scales, loaded one group ahead: their latency hides behind the
  // rebuild of the group before.
  unsigned next[NMod];
  int nextSb[2];
  auto fetch = [&](int j) {
#pragma unroll
    for (int l = 0; l < NMod; ++l) next[l] = gRes[l * modulusStride + j * kConsumerThreads];
    const int col = colBase + j * kFragCols;
    nextSb[0] = col < N ? shiftB[col] : 0;
    nextSb[1] = col + 1 < N ? shiftB[col + 1] : 0;
  };
  fetch(j0);
#pragma unroll 1
  for (int j = j0; j < j1; ++j) {  // word j holds group j's four outputs: rows g, g+8 x 2 columns
    unsigned words[NMod];
#pragma unroll
    for (int l = 0; l < NMod; ++l) words[l] = next[l];
    const int col = colBase + j * kFragCols;
    const int sb[2] = {nextSb[0], nextSb[1]};
    if (j + 1 < j1) fetch(j + 1);
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
        v[c] = ozaki::unscale(ozaki::reconstruct_crt<NMod>(res), sa[half], sb[c]);
      }
      if (row < M) store2_epilogue<kVec>(C + int64_t(row) * ldc + col, N - col, alpha, v[0], v[1], beta);  // common.cuh
    }
  }
}

}  // namespace sgemm::rung31

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cstdint>
#include <cmath>
#include "common/launch.hpp"

namespace sgemm::rung31 {

constexpr int kBM = 128, kBN = 256, kBK = 128, kStages = 4;
using Config = Tile<kBM, kBN, kBK, kStages>;
// The fewest moduli with an instance: a plan asks for 7 or 8, a forced count (set_ozaki_moduli) for
// as few as this, so that the table of accuracy against speed on the page reaches below the plan.
constexpr int kFewestModuli = 4;

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
// The residues, the INT8 GEMMs and the rebuild for NMod moduli, once the scales are known. `next`
// is the units' counter, `scratch` the units' residues.
template <int NMod>
Status launch_moduli(const GemmArgs& a, const ozaki::Scales& sc, signed char* res, unsigned long long* next,
                     unsigned* scratch, int64_t Mp, int64_t Np, int64_t Kp, cudaStream_t stream, std::string* why) {
  const bool vec = vec4_ok(a, nullptr);
  auto kernel = sgemm_31_ordered_units<kBM, kBN, kBK, kStages>;
  auto rebuild = vec ? sgemm_31_rebuild<NMod, true, kBM, kBN, kBK, kStages>
                     : sgemm_31_rebuild<NMod, false, kBM, kBN, kBK, kStages>;
  KernelInfo info;
  if (const Status s = prepare(kernel, Config::kThreads, Config::kSmemBytes, &info, why); s != Status::kOk) return s;
  constexpr int kRebuildThreads = Config::kConsumers * kWarpgroupThreads;
  if (const Status s = prepare(rebuild, kRebuildThreads, 0, nullptr, why); s != Status::kOk) return s;
  signed char* resA = res;                   // [NMod][Mp][Kp]
  signed char* resB = res + NMod * Mp * Kp;  // [NMod][Np][Kp]
  TmaMap mapA, mapB;
  Status s = encode_map(resA, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Mp, Kp, kBM, kBK, &mapA, why);
  if (s == Status::kOk) s = encode_map(resB, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Np, Kp, kBN, kBK, &mapB, why);
  if (s != Status::kOk) return s;
  s = ozaki::residues<NMod>(a, sc, resA, Mp, resB, Np, Kp, stream);
  if (s == Status::kOk && cudaMemsetAsync(next, 0, sizeof *next, stream) != cudaSuccess) s = launch_status();
  const int tilesM = int(Mp / kBM), tilesN = int(Np / kBN);
  const int64_t tiles = int64_t(tilesM) * tilesN;
  // One block per resident slot, no more than there are units: every block takes units until none is left.
  const int blocks = int(std::min<int64_t>(tiles * NMod, int64_t(info.sms) * info.blocks_per_sm));
  kernel<<<blocks, Config::kThreads, Config::kSmemBytes, stream>>>(int(Kp / kBK), NMod, tilesM, tilesN, mapA, mapB,
                                                                int(Mp), int(Np), next, scratch);
  s = launch_status_after(s);
  rebuild<<<dim3(unsigned(tiles), kRebuildSplit), kRebuildThreads, 0, stream>>>(int(a.M), int(a.N), tilesM, tilesN, a.alpha, sc.shiftA,
                                                          sc.shiftB, a.beta, a.C, int(a.ldc), scratch);
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
  // then the product's residues (n bytes per output of the padded C), each with room for
  // kMaxModuli (n is known once the inputs' spread is), then the units' counter.
  const int64_t Mp = ceil_div64(a.M, kBM) * kBM, Np = ceil_div64(a.N, kBN) * kBN, Kp = ceil_div64(a.K, kBK) * kBK;
  const size_t statBytes = ceil_div64(int64_t(ozaki::stats_bytes(a.M, a.N)), kSwizzleAtomBytes) * kSwizzleAtomBytes;
  constexpr int64_t kMaxBytes = INT64_MAX / 2;  // no byte count below, nor their sum, passes 64 bits
  if (Mp + Np > kMaxBytes / ozaki::kMaxModuli / Kp || Mp > kMaxBytes / ozaki::kMaxModuli / Np)
    return Status::kOutOfMemory;
  const size_t resBytes = size_t(ozaki::kMaxModuli * (Mp + Np) * Kp), scratchBytes = size_t(ozaki::kMaxModuli * Mp * Np);
  const size_t bytes = statBytes + resBytes + scratchBytes + sizeof(unsigned long long);
  void* ws = nullptr;
  if (const Status s = workspace_alloc(bytes, stream, &ws); s != Status::kOk) return s;
  ozaki::Scales sc;
  ozaki::Plan plan;
  Status s = ozaki::checked_scales(a, ws, stream, &sc, &plan, why, kFewestModuli);
  signed char* res = static_cast<signed char*>(ws) + statBytes;
  unsigned* scratch = reinterpret_cast<unsigned*>(res + resBytes);  // Kp is a multiple of 128: aligned
  auto* next = reinterpret_cast<unsigned long long*>(res + resBytes + scratchBytes);  // Mp, Np: multiples of 128
  if (s == Status::kOk)
    s = ozaki::with_moduli<kFewestModuli>(plan.moduli, [&](auto n) {
      return launch_moduli<decltype(n)::value>(a, sc, res, next, scratch, Mp, Np, Kp, stream, why);
    });
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
#endif
}

}  // namespace sgemm::rung31
#endif
