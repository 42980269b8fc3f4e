// =====================================================================================
// Rung 32 — The pre-pass reads each operand once (sm_90a) (tensor-core track)
// BUILDS ON: 31_ordered_units. The lesson is the diff:
//   git diff --no-index kernels/tensor/31_ordered_units.cuh kernels/tensor/32_fused_prepass.cuh
// WHAT CHANGED: one kernel per operand gathers a line's statistics (largest magnitude, sum of
//   squares, non-zeros), takes its scale and writes its residues, while the line waits in shared
//   memory: a cluster of up to kMaxCluster blocks holds kFuseLines lines, each block a chunk of K,
//   and the blocks add up their statistics through distributed shared memory. The residues come
//   from the line scaled in FP32 and an unsigned remainder per modulus (residue_byte), about half
//   the integer operations of ozaki::balance. The moduli are the plan's for uniform inputs; inputs
//   whose spread asks for more are written again by rung 31's pass.
// WHY: rung 31's pre-pass reads A and B twice, once for the statistics and once for the residues,
//   in five launches before the host reads the spread back, and its residue kernels are bound by
//   integer arithmetic, not by HBM (Nsight Compute; the page has the figures).
// PREDICTION: the pre-pass at the pace of HBM, one read of A and B and one write of the residues:
//   at 8192^3 half of rung 31's time in it, +5-7% of cuBLAS; less at 16384^3 (the GEMMs grow as K^3).
// SHOW IT: build/release/bench/sgemm_bench --kernel 31,32 (needs an sm_90 GPU)
//   python3 tools/sass_report.py --diff 31 32 && python3 tools/ncu_profile.py --kernel 32 --size 8192
// PAGE: docs/rungs/32_fused_prepass.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include "common/common.cuh"
#include "common/hopper.cuh"
#include "common/wgmma.cuh"
#include "common/ozaki.cuh"

#include <cooperative_groups.h>

namespace sgemm::rung32 {

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
sgemm_32_ordered_units(int kTiles, int moduli, int tilesM, int tilesN, const __grid_constant__ TmaMap mapA,
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
  ring_init<Stages>(fullAddr, emptyAddr, T::kEmptyArrivals);  // hopper.cuh: the only block-wide barrier

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
        const int s = t % Stages;
        const unsigned full = fullAddr + s * kBarBytes;
        mbar_wait(emptyAddr + s * kBarBytes, ((t / Stages) & 1) ^ 1);  // the consumers are done with it
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
    const int s0 = t % Stages;
    mbar_wait(fullAddr + s0 * kBarBytes, (t / Stages) & 1);  // the unit's first slab (or the end)
    // Lane 0 reads the number and hands it to its warp: its own arrival on the stage's empty barrier
    // (below) releases that read before the producer may write the stage's next number.
    long long u = 0;
    if (lane == 0) u = sUnit[s0];
    u = __shfl_sync(0xffffffffu, u, 0);
    if (u < 0) return;
    const int l = int(u / tiles);
    const ozaki::RuntimeModulus m(ozaki::modulus(l));
    for (int kt = 0; kt < kTiles; ++kt, ++t) {
      const int s = t % Stages;
      mbar_wait(fullAddr + s * kBarBytes, (t / Stages) & 1);  // the TMA's bytes have landed

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
      if (lane == 0) mbar_arrive(emptyAddr + s * kBarBytes);  // one arrival per consumer warp
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
sgemm_32_rebuild(int M, int N, int tilesM, int tilesN, float alpha, const int* __restrict__ shiftA,
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

// ---- the pre-pass in one kernel per operand ------------------------------------------------------

// The lines of op(A) (its rows) or op(B) (its columns) a cluster scales: along X's rows (kMajor: A
// 'N', B 'T') a warp per line, down its columns (A 'T', B 'N') one 32-byte sector of each row of X.
constexpr int kFuseLines = 8;
constexpr int kFuseThreads = kFuseLines * kWarpSize;
constexpr int kFuseChunk = 1024;           // K per block, at least: blocks hold K's chunks ...
constexpr int kMaxCluster = 8;             // ... up to the portable cluster size ...
constexpr int kMaxFuseChunk = 3 * 1024;    // ... and this many k each (98 KB of shared memory)
constexpr int kFusePad = 4;                // floats after each line: rows 16-byte aligned, lines 4 banks apart

// The byte of the balanced residue of q modulo M (balance()'s), for |q| <= 2^30, in fewer
// operations than balance() takes: q plus half plus a multiple of M above 2^30 is non-negative and
// below 2^32, so its remainder comes from an unsigned division by a constant (a multiply-high and a
// multiply-add, no fix-ups), minus half; for 256, q's own low byte.
template <int M>
__device__ __forceinline__ unsigned residue_byte(int q) {
  if constexpr (M == 256) {
    return unsigned(q) & 0xffu;
  } else {
    constexpr unsigned kHalf = M / 2;
    constexpr unsigned kBias = kHalf + unsigned(M) * ((1u << 30) / unsigned(M) + 1u);
    return ((unsigned(q) + kBias) % unsigned(M) - kHalf) & 0xffu;
  }
}
template <int L, int NMod>
__device__ __forceinline__ void add_residue_bytes(int q, int e, unsigned (&out)[NMod]) {
  out[L] |= residue_byte<ozaki::modulus(L)>(q) << (8 * e);
  if constexpr (L + 1 < NMod) add_residue_bytes<L + 1, NMod>(q, e, out);
}
// ozaki::residue_words with the scale 2^s as two FP32 factors, 2^(s - s/2) and 2^(s/2) (each within
// FP32's exponents, and the product x 2^s exact: powers of two), p = 0 for a line with a NaN or an
// Inf, and the residues by residue_byte: the same words in fewer operations.
template <int NMod>
__device__ __forceinline__ void fast_residue_words(float4 x, float p1, float p2, unsigned (&out)[NMod]) {
  const float v[kVecWidth] = {x.x, x.y, x.z, x.w};
#pragma unroll
  for (int l = 0; l < NMod; ++l) out[l] = 0;
#pragma unroll
  for (int e = 0; e < kVecWidth; ++e) add_residue_bytes<0, NMod>(p1 != 0.0f ? __float2int_rn(v[e] * p1 * p2) : 0, e, out);
}
// A load that asks L2 to fetch the whole 128-byte line on a miss, not only the 32-byte sector:
// the clusters of neighbouring columns read the rest of the line at about the same time.
__device__ __forceinline__ float load_whole_line(const float* p) {
  float v;
  asm("ld.global.nc.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ float pow2f(int e) { return __int_as_float((e + 127) << 23); }  // e in [-126, 127]

// Lines [8y, 8y + 8) of X (L lines, K long, of which this block holds k in [chunk x, chunk x + chunk)
// of the padded Kp): the block copies its chunk of each line into shared memory and gathers the
// chunk's statistics, the cluster's blocks add them up (each reads the others' through distributed
// shared memory), each line's scale 2^s (s = beta - its largest magnitude's exponent; rank 0 stores
// it in shift[] and raises *spread), and the block writes its chunk's residues for NMod moduli,
// res[l][line][k] (Lp x Kp int8 per modulus, K-major), from shared memory: X is read once.
// kVec: 128-bit loads, where kMajor and every row of X starts on a 16-byte boundary.
template <int NMod, bool kMajor, bool kVec>
__global__ void __launch_bounds__(kFuseThreads)
sgemm_32_fused_prepass(int L, int K, const float* __restrict__ X, int ld, int chunk, int beta, int64_t Lp,
                       int64_t Kp, int* __restrict__ shift, int* __restrict__ spread, signed char* __restrict__ res) {
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(16) float sLines[];  // [kFuseLines][chunk + kFusePad]: this block's chunk of each line
  __shared__ unsigned sBits[kFuseLines];
  __shared__ double sSum[kFuseLines];
  __shared__ int sNnz[kFuseLines];
  __shared__ float sScale[kFuseLines][2];  // each line's 2^s as two factors (fast_residue_words)
  const int pitch = chunk + kFusePad;
  const int rank = int(cluster.block_rank()), blocks = int(cluster.num_blocks());
  const int k0 = rank * chunk;
  const int width = int(min(int64_t(chunk), Kp - k0));  // a multiple of kVecWidth: Kp and chunk are of 128
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  for (int64_t line0 = int64_t(blockIdx.y) * kFuseLines; line0 < Lp; line0 += int64_t(gridDim.y) * kFuseLines) {
    if (threadIdx.x < kFuseLines) {
      sBits[threadIdx.x] = 0;
      sSum[threadIdx.x] = 0;
      sNnz[threadIdx.x] = 0;
    }
    __syncthreads();
    ozaki::LineStats st;  // this thread's part of one line's chunk
    if constexpr (kMajor) {  // warp w: line line0 + w, four consecutive k per lane
      const int64_t line = line0 + warp;
      float* mine = sLines + warp * pitch;
#pragma unroll 4
      for (int k = lane * kVecWidth; k < width; k += kWarpSize * kVecWidth) {
        const float4 x = load4_or_zero<kVec>(X + line * ld, k0 + k, K, line < L);  // common.cuh
        *reinterpret_cast<float4*>(mine + k) = x;
        st.add(x);
      }
      st.merge_lanes(1);
      if (lane == 0) {
        sBits[warp] = st.bits;
        sSum[warp] = st.sum;
        sNnz[warp] = st.nnz;
      }
    } else {  // thread t: line line0 + t % 8 (a column of X), rows k0 + t / 8, + 32, ...
      const int c = threadIdx.x % kFuseLines;
      const int64_t col = line0 + c;
#pragma unroll 8
      for (int k = threadIdx.x / kFuseLines; k < width; k += kFuseThreads / kFuseLines) {
        const float x = col < L && k0 + k < K ? load_whole_line(X + int64_t(k0 + k) * ld + col) : 0.0f;
        sLines[c * pitch + k] = x;
        st.add(x);
      }
      st.merge_lanes(kFuseLines);  // the warp's four lanes of each line
      if (lane < kFuseLines) {
        atomicMax(&sBits[c], st.bits);
        atomicAdd(&sSum[c], st.sum);
        atomicAdd(&sNnz[c], st.nnz);
      }
    }
    cluster.sync();  // every block's statistics of its chunk are in its shared memory
    if (threadIdx.x < kFuseLines) {
      const int i = threadIdx.x;
      ozaki::LineStats all;
      for (int r = 0; r < blocks; ++r) {
        all.bits = max(all.bits, *cluster.map_shared_rank(&sBits[i], r));
        all.sum += *cluster.map_shared_rank(&sSum[i], r);
        all.nnz += *cluster.map_shared_rank(&sNnz[i], r);
      }
      const int64_t line = line0 + i;
      const int s = line < L ? ozaki::scale_of(all.bits, all.sum, all.nnz, beta, rank == 0 ? spread : nullptr) : 0;
      if (rank == 0 && line < L) shift[line] = s;
      const int half = s >> 1;  // s - half and half both within [-126, 127]: s is in [beta - 128, beta + 148]
      sScale[i][0] = s == ozaki::kNonFinite ? 0.0f : pow2f(s - half);
      sScale[i][1] = pow2f(s == ozaki::kNonFinite ? 0 : half);
    }
    cluster.sync();  // no block's statistics are read any more; sScale is written
    const int words = width / kVecWidth;  // per line: one word of four residues per modulus
    for (int w = threadIdx.x; w < kFuseLines * words; w += kFuseThreads) {
      const int i = w / words, j = w % words;
      unsigned out[NMod];
      fast_residue_words<NMod>(*reinterpret_cast<const float4*>(sLines + i * pitch + j * kVecWidth), sScale[i][0],
                               sScale[i][1], out);
#pragma unroll
      for (int l = 0; l < NMod; ++l)
        *reinterpret_cast<unsigned*>(res + (l * Lp + line0 + i) * Kp + k0 + j * kVecWidth) = out[l];
    }
    __syncthreads();  // the next lines overwrite sLines
  }
}

}  // namespace sgemm::rung32

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <map>
#include "common/launch.hpp"
#include "tensor/32_fused_prepass.hpp"

namespace sgemm::rung32 {

constexpr int kBM = 128, kBN = 256, kBK = 128, kStages = 4;
using Config = Tile<kBM, kBN, kBK, kStages>;
// The fewest moduli with an instance: a plan asks for 7 or 8, a forced count (set_ozaki_moduli) for
// as few as this, so that the table of accuracy against speed on the page reaches below the plan.
constexpr int kFewestModuli = 4;
// The spread the dispatch rung's way through the scheme plans for before it reads the inputs
// (launch_overlapped): normal inputs' two bits (ozaki::spread_bits), so that activations after a
// normalisation need no second pass; uniform ones then keep more bits than they need.
constexpr int kOverlapSpread = 2;

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
// The K per block of the fused pre-pass for rows Kp long (a multiple of kBK), the fewest blocks
// (at most kMaxCluster) that hold Kp in chunks of kFuseChunk or more; 0 past kMaxCluster x
// kMaxFuseChunk, where the pre-pass is rung 31's two passes.
int fuse_chunk(int64_t Kp) {
  const int64_t blocks = std::min<int64_t>(kMaxCluster, ceil_div64(Kp, kFuseChunk));
  const int64_t chunk = ceil_div64(ceil_div64(Kp, blocks), kBK) * kBK;
  return chunk <= kMaxFuseChunk ? int(chunk) : 0;
}

// The fused pre-pass over one operand's L lines (rows of op(A) or columns of op(B)), each K long,
// read from X in place: along its rows where they are the lines (kMajor), else down its columns.
template <int NMod>
Status fused_lines(const float* X, int64_t ld, bool kMajor, int64_t L, int64_t K, int beta, int chunk, int64_t Lp,
                   int64_t Kp, int* shift, int* spread, signed char* res, cudaStream_t stream, std::string* why) {
  auto kernel = !kMajor                ? sgemm_32_fused_prepass<NMod, false, false>
                : rows_aligned(X, ld) ? sgemm_32_fused_prepass<NMod, true, true>
                                      : sgemm_32_fused_prepass<NMod, true, false>;
  constexpr int kMaxSmem = kFuseLines * (kMaxFuseChunk + kFusePad) * int(sizeof(float));
  if (const Status s = prepare(kernel, kFuseThreads, kMaxSmem, nullptr, why); s != Status::kOk) return s;
  const int blocks = int(ceil_div64(Kp, chunk));
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(blocks);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(blocks), unsigned(std::min<int64_t>(Lp / kFuseLines, ozaki::kMaxGridY)));
  cfg.blockDim = dim3(kFuseThreads);
  cfg.dynamicSmemBytes = size_t(kFuseLines) * (chunk + kFusePad) * sizeof(float);
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return from_cuda(cudaLaunchKernelEx(&cfg, kernel, int(L), int(K), X, int(ld), chunk, beta, Lp, Kp, shift, spread,
                                      res));
}

// The residues of op(A) and op(B) for NMod moduli at `beta` bits, their scales and the inputs'
// spread (zeroed first), in one fused pass over each operand.
template <int NMod>
Status fused_prepass(const GemmArgs& a, int beta, const ozaki::Scales& sc, signed char* res, int chunk, int64_t Mp,
                     int64_t Np, int64_t Kp, cudaStream_t stream, std::string* why) {
  if (cudaMemsetAsync(sc.spread, 0, sizeof *sc.spread, stream) != cudaSuccess) return launch_status();
  signed char* resA = res;                   // [NMod][Mp][Kp]
  signed char* resB = res + NMod * Mp * Kp;  // [NMod][Np][Kp]
  const Status s = fused_lines<NMod>(a.A, a.lda, !a.transa, a.M, a.K, beta, chunk, Mp, Kp, sc.shiftA, sc.spread,
                                     resA, stream, why);
  if (s != Status::kOk) return s;
  return fused_lines<NMod>(a.B, a.ldb, a.transb, a.N, a.K, beta, chunk, Np, Kp, sc.shiftB, sc.spread, resB, stream,
                           why);
}

// The INT8 GEMMs for NMod moduli, once the residues are written: each unit's product modulo its
// modulus into `scratch` (`next`: the units' counter).
template <int NMod>
Status launch_units(signed char* res, unsigned long long* next, unsigned* scratch, int64_t Mp, int64_t Np, int64_t Kp,
                    cudaStream_t stream, std::string* why) {
  auto kernel = sgemm_32_ordered_units<kBM, kBN, kBK, kStages>;
  KernelInfo info;
  if (const Status s = prepare(kernel, Config::kThreads, Config::kSmemBytes, &info, why); s != Status::kOk) return s;
  signed char* resA = res;                   // [NMod][Mp][Kp]
  signed char* resB = res + NMod * Mp * Kp;  // [NMod][Np][Kp]
  TmaMap mapA, mapB;
  Status s = encode_map(resA, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Mp, Kp, kBM, kBK, &mapA, why);
  if (s == Status::kOk) s = encode_map(resB, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Np, Kp, kBN, kBK, &mapB, why);
  if (s != Status::kOk) return s;
  if (cudaMemsetAsync(next, 0, sizeof *next, stream) != cudaSuccess) s = launch_status();
  const int tilesM = int(Mp / kBM), tilesN = int(Np / kBN);
  const int64_t tiles = int64_t(tilesM) * tilesN;
  // One block per resident slot, no more than there are units: every block takes units until none is left.
  const int blocks = int(std::min<int64_t>(tiles * NMod, int64_t(info.sms) * info.blocks_per_sm));
  kernel<<<blocks, Config::kThreads, Config::kSmemBytes, stream>>>(int(Kp / kBK), NMod, tilesM, tilesN, mapA, mapB,
                                                                int(Mp), int(Np), next, scratch);
  return launch_status_after(s);
}

// The rebuild of C from the units' residues and the scales, for NMod moduli.
template <int NMod>
Status launch_rebuild(const GemmArgs& a, const ozaki::Scales& sc, const unsigned* scratch, int64_t Mp, int64_t Np,
                      cudaStream_t stream, std::string* why) {
  const bool vec = vec4_ok(a, nullptr);
  auto rebuild = vec ? sgemm_32_rebuild<NMod, true, kBM, kBN, kBK, kStages>
                     : sgemm_32_rebuild<NMod, false, kBM, kBN, kBK, kStages>;
  constexpr int kRebuildThreads = Config::kConsumers * kWarpgroupThreads;
  if (const Status s = prepare(rebuild, kRebuildThreads, 0, nullptr, why); s != Status::kOk) return s;
  const int tilesM = int(Mp / kBM), tilesN = int(Np / kBN);
  const int64_t tiles = int64_t(tilesM) * tilesN;
  rebuild<<<dim3(unsigned(tiles), kRebuildSplit), kRebuildThreads, 0, stream>>>(int(a.M), int(a.N), tilesM, tilesN, a.alpha, sc.shiftA,
                                                          sc.shiftB, a.beta, a.C, int(a.ldc), scratch);
  return launch_status();
}

// The INT8 GEMMs and the rebuild for NMod moduli, once the residues and the scales are written.
template <int NMod>
Status launch_moduli(const GemmArgs& a, const ozaki::Scales& sc, signed char* res, unsigned long long* next,
                     unsigned* scratch, int64_t Mp, int64_t Np, int64_t Kp, cudaStream_t stream, std::string* why) {
  const Status s = launch_units<NMod>(res, next, scratch, Mp, Np, Kp, stream, why);
  return s != Status::kOk ? s : launch_rebuild<NMod>(a, sc, scratch, Mp, Np, stream, why);
}

// The plan and the residues: the fused pre-pass with the moduli a call starts from (a forced count's,
// every modulus for a narrow product, else plan(K)'s), then, unless forced, the spread read back
// (the stream waits) and the plan for it. Inputs whose spread asks for more moduli than that have
// their scales raised and their residues written again by rung 31's pass (A and B read a second
// time); rows longer than fuse_chunk() allows take rung 31's two passes from the start.
Status plan_and_residues(const GemmArgs& a, void* ws, signed char* res, int64_t Mp, int64_t Np, int64_t Kp,
                         cudaStream_t stream, ozaki::Plan* plan, ozaki::Scales* sc, std::string* why) {
  auto two_passes = [&] {  // rung 31's residue pass, for plan->moduli
    return ozaki::with_moduli<kFewestModuli>(plan->moduli, [&](auto n) {
      return ozaki::residues<decltype(n)::value>(a, *sc, res, Mp, res + decltype(n)::value * Mp * Kp, Np, Kp, stream);
    });
  };
  const int chunk = fuse_chunk(Kp);
  if (chunk == 0) {
    const Status s = ozaki::checked_scales(a, ws, stream, sc, plan, why, kFewestModuli);
    return s != Status::kOk ? s : two_passes();
  }
  bool forced = false;
  if (const Status s = ozaki::first_plan(a, kFewestModuli, plan, &forced, why); s != Status::kOk) return s;
  if (!forced && ozaki::narrow(a)) *plan = {ozaki::kMaxModuli, ozaki::max_beta(ozaki::kMaxModuli, a.K)};
  *sc = ozaki::scales_in(ws, a.M, a.N);
  const ozaki::Plan first = *plan;
  Status s = ozaki::with_moduli<kFewestModuli>(first.moduli, [&](auto n) {
    return fused_prepass<decltype(n)::value>(a, first.beta, *sc, res, chunk, Mp, Np, Kp, stream, why);
  });
  if (s != Status::kOk || forced) return s;
  int spread = 0;
  if (s = ozaki::read_spread(*sc, stream, &spread, why); s != Status::kOk) return s;
  if (s = ozaki::plan_for_spread(a, spread, plan, why); s != Status::kOk || plan->moduli == first.moduli) return s;
  s = ozaki::raise_all_scales(a, *sc, plan->beta - first.beta, stream);
  return s != Status::kOk ? s : two_passes();
}

// A page-locked word and an event of this thread on the current device, for a read-back the host
// waits on while later work runs (a copy to pageable memory would wait for the whole stream). Made
// once per thread and device, and kept for the process (4 bytes each).
struct ReadBack {
  int* word = nullptr;
  cudaEvent_t done = nullptr;
};
Status read_back_of(ReadBack* out) {
  thread_local std::map<int, ReadBack> perDevice;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return launch_status();
  auto it = perDevice.find(device);
  if (it == perDevice.end()) {
    ReadBack r;
    if (cudaHostAlloc(&r.word, sizeof *r.word, cudaHostAllocDefault) != cudaSuccess) return launch_status();
    if (cudaEventCreateWithFlags(&r.done, cudaEventDisableTiming) != cudaSuccess) {
      cudaFreeHost(r.word);
      return launch_status();
    }
    it = perDevice.emplace(device, r).first;
  }
  *out = it->second;
  return Status::kOk;
}

// The scheme as the dispatch rung runs it (launch_overlapped): the pre-pass with the plan for inputs
// of kOverlapSpread bits of spread, its INT8 GEMMs queued at once, and the spread read back behind
// them, so that the host waits for the pre-pass alone while the GPU multiplies; the rebuild once the
// plan holds. Inputs that need more bits than that plan keeps are written again and multiplied
// again (the first GEMMs wasted); inputs the plan refuses return kUnsupported before C is written.
Status overlapped(const GemmArgs& a, void* ws, signed char* res, unsigned long long* next, unsigned* scratch,
                  int64_t Mp, int64_t Np, int64_t Kp, int chunk, cudaStream_t stream, std::string* why) {
  const ozaki::Plan first = ozaki::narrow(a) ? ozaki::Plan{ozaki::kMaxModuli, ozaki::max_beta(ozaki::kMaxModuli, a.K)}
                                             : ozaki::plan(a.K, kOverlapSpread);
  const ozaki::Scales sc = ozaki::scales_in(ws, a.M, a.N);
  ReadBack rb;
  Status s = read_back_of(&rb);
  if (s == Status::kOk)
    s = ozaki::with_moduli<kFewestModuli>(first.moduli, [&](auto n) {
      constexpr int N = decltype(n)::value;
      Status t = fused_prepass<N>(a, first.beta, sc, res, chunk, Mp, Np, Kp, stream, why);
      if (t == Status::kOk && (cudaMemcpyAsync(rb.word, sc.spread, sizeof *rb.word, cudaMemcpyDeviceToHost, stream) !=
                                   cudaSuccess ||
                               cudaEventRecord(rb.done, stream) != cudaSuccess))
        t = launch_status();
      return t == Status::kOk ? launch_units<N>(res, next, scratch, Mp, Np, Kp, stream, why) : t;
    });
  if (s != Status::kOk) return s;
  if (cudaEventSynchronize(rb.done) != cudaSuccess) return launch_status();  // the pre-pass alone
  int spread = 0;
  ozaki::Plan plan;
  if (s = ozaki::spread_from_word(*rb.word, &spread, why); s != Status::kOk) return s;
  if (s = ozaki::plan_for_spread(a, spread, &plan, why); s != Status::kOk) return s;
  if (plan.beta <= first.beta)  // the first plan keeps the bits these inputs need (or more)
    return ozaki::with_moduli<kFewestModuli>(first.moduli, [&](auto n) {
      return launch_rebuild<decltype(n)::value>(a, sc, scratch, Mp, Np, stream, why);
    });
  if (s = ozaki::raise_all_scales(a, sc, plan.beta - first.beta, stream); s != Status::kOk) return s;
  return ozaki::with_moduli<kFewestModuli>(plan.moduli, [&](auto n) {
    constexpr int N = decltype(n)::value;
    const Status t = ozaki::residues<N>(a, sc, res, Mp, res + N * Mp * Kp, Np, Kp, stream);
    return t != Status::kOk ? t : launch_moduli<N>(a, sc, res, next, scratch, Mp, Np, Kp, stream, why);
  });
}
#endif

// Workspace: the scales' statistics, then the residues [n][Mp][Kp] of A and [n][Np][Kp] of B,
// then the product's residues (n bytes per output of the padded C), each with room for
// kMaxModuli (n is known once the inputs' spread is), then the units' counter. SIZE_MAX where a
// byte count would pass 64 bits.
namespace {
struct Bytes {
  size_t stats = 0, residues = 0, scratch = 0, total = SIZE_MAX;
};
Bytes workspace_bytes(const GemmArgs& a, int64_t Mp, int64_t Np, int64_t Kp) {
  Bytes b;
  constexpr int64_t kMaxBytes = INT64_MAX / 2;  // no byte count below, nor their sum, passes 64 bits
  if (Mp + Np > kMaxBytes / ozaki::kMaxModuli / Kp || Mp > kMaxBytes / ozaki::kMaxModuli / Np) return b;
  b.stats = ceil_div64(int64_t(ozaki::stats_bytes(a.M, a.N)), kSwizzleAtomBytes) * kSwizzleAtomBytes;
  b.residues = size_t(ozaki::kMaxModuli * (Mp + Np) * Kp);
  b.scratch = size_t(ozaki::kMaxModuli * Mp * Np);
  b.total = b.stats + b.residues + b.scratch + sizeof(unsigned long long);
  return b;
}
}  // namespace

Footprint footprint(const GemmArgs& a) {
  Footprint f;
  f.Mp = ceil_div64(a.M, kBM) * kBM;
  f.Np = ceil_div64(a.N, kBN) * kBN;
  f.Kp = ceil_div64(a.K, kBK) * kBK;
  f.narrow = ozaki::narrow(a);
  // As plan_and_residues starts: a forced count, else every modulus for a narrow product, else plan(K)'s.
  const int planned = ozaki_moduli() == 0 && f.narrow ? ozaki::kMaxModuli : ozaki::least_plan(a.K).moduli;
  f.moduli = std::max(planned, kFewestModuli);
  f.slabs = f.Kp / kBK;
  f.units = int64_t(f.moduli) * (f.Mp / kBM) * (f.Np / kBN);
  f.workspace = workspace_bytes(a, f.Mp, f.Np, f.Kp).total;
  return f;
}

bool available() {
#ifndef SGEMM_SM90A_BUILT
  return false;
#else
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major == 9 && minor == 0;
#endif
}

// The workspace launch() and launch_overlapped() take, and the run of `body` on it.
template <class Body>
Status with_workspace(const GemmArgs& a, cudaStream_t stream, Body&& body) {
  const int64_t Mp = ceil_div64(a.M, kBM) * kBM, Np = ceil_div64(a.N, kBN) * kBN, Kp = ceil_div64(a.K, kBK) * kBK;
  const Bytes b = workspace_bytes(a, Mp, Np, Kp);
  if (b.total == SIZE_MAX) return Status::kOutOfMemory;
  void* ws = nullptr;
  if (const Status s = workspace_alloc(b.total, stream, &ws); s != Status::kOk) return s;
  signed char* res = static_cast<signed char*>(ws) + b.stats;
  unsigned* scratch = reinterpret_cast<unsigned*>(res + b.residues);  // Kp is a multiple of 128: aligned
  auto* next = reinterpret_cast<unsigned long long*>(res + b.residues + b.scratch);  // Mp, Np: multiples of 128
  Status s = body(ws, res, scratch, next, Mp, Np, Kp);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

Status launch_overlapped(const GemmArgs& a, cudaStream_t stream, std::string* why) {
#ifndef SGEMM_SM90A_BUILT
  (void)a;
  (void)stream;
  return refuse_without_sm90a(why);  // hopper.cuh
#else
  if (ozaki_moduli() != 0 || fuse_chunk(ceil_div64(a.K, kBK) * kBK) == 0) return launch(a, stream, why);
  if (const Status s = ozaki::refuse_capture(stream, why); s != Status::kOk) return s;
  return with_workspace(a, stream, [&](void* ws, signed char* res, unsigned* scratch, unsigned long long* next,
                                       int64_t Mp, int64_t Np, int64_t Kp) {
    return overlapped(a, ws, res, next, scratch, Mp, Np, Kp, fuse_chunk(Kp), stream, why);
  });
#endif
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
#ifndef SGEMM_SM90A_BUILT
  (void)a;
  (void)stream;
  return refuse_without_sm90a(why);  // hopper.cuh
#else
  // sm_90a code loads on compute capability 9.0 only: elsewhere prepare() reports kArch.
  if (const Status s = ozaki::refuse_capture(stream, why); s != Status::kOk) return s;
  return with_workspace(a, stream, [&](void* ws, signed char* res, unsigned* scratch, unsigned long long* next,
                                       int64_t Mp, int64_t Np, int64_t Kp) {
    ozaki::Scales sc;
    ozaki::Plan plan;
    Status s = plan_and_residues(a, ws, res, Mp, Np, Kp, stream, &plan, &sc, why);
    if (s == Status::kOk)
      s = ozaki::with_moduli<kFewestModuli>(plan.moduli, [&](auto n) {
        return launch_moduli<decltype(n)::value>(a, sc, res, next, scratch, Mp, Np, Kp, stream, why);
      });
    return s;
  });
#endif
}

}  // namespace sgemm::rung32
#endif
