// =====================================================================================
// Rung 32 — The pre-pass reads each operand once (sm_90a) (tensor-core track)
// BUILDS ON: 31_ordered_units. The lesson is the diff (the host side: fused_prepass_launch.cuh):
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
#include "tensor/fused_prepass_launch.cuh"  // the host side: plan, launches, workspace
#endif
