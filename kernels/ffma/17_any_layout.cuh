// =====================================================================================
// Rung 17 — Every layout read in place                                    (CUDA-core track)
// BUILDS ON: 16_last_wave_cut. The lesson is the diff:
//   git diff --no-index kernels/ffma/16_last_wave_cut.cuh kernels/ffma/17_any_layout.cuh
// WHAT CHANGED: op(A) = A^T and op(B) = B^T are read where they lie (kTransA, kTransB). An
//   operand's order in global memory picks its way into the same swizzled [BK][BM] and [BK][BN]
//   tiles: one contiguous along K (A for 'N', B for 'T') is loaded into registers and stored
//   transposed (an A whose rows are not 16-byte aligned: copied a float at a time by cp.async,
//   transposed on the way); one contiguous along M or N (A for 'T', B for 'N') is copied as it lies by
//   cp.async. B's slab is four times A's, so a K-contiguous B travels in pieces, one per chunk of
//   KU steps. A transposed B's tile takes A's swizzle, so that its transposed stores meet no bank
//   conflict; a B copied as it lies keeps rung 16's plain tile and fragment loads.
//   A batch runs on grid z (product z at A + z strideA, B + z strideB, C + z strideC) and a bias
//   is added in the epilogue, once per element.
// WHY: rung 16 reads A and B as row-major only. nn.Linear (y = x W^T) is NT and attention's
//   scores are batched NT: the front door would first copy each transposed operand, and launch
//   once per product, and add the bias in a pass of its own.
// PREDICTION: NN as rung 16 (the same loop; the epilogue adds the bias and the batch offsets). TN: both operands by
//   cp.async, no staging registers: as NN. NT and TT: B through registers, kPieceB float4s more
//   of them, B's LDGSTS become LDG + STS.64; the pieces' loads hide behind one chunk: within 3% of
//   NN at 4096^3, far ahead of a transposing copy first. Large batches as rung 16 on one product.
// SHOW IT: build/release/bench/sgemm_bench --kernel 16,17 --layout nt
//   python3 tools/sass_report.py --diff 16 17 && python3 tools/ncu_profile.py --kernel 17
// PAGE: docs/rungs/17_any_layout.md (what was measured, and what it taught)
// =====================================================================================
#pragma once

#include <type_traits>

#include "common/common.cuh"
#include "common/stream_k.cuh"

namespace sgemm::rung17 {

// The tile parameters and what follows from them. From this rung on they travel as one type.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int Stages_, int KU_>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile: BM x BN of C, K in BK-deep slabs
  static constexpr int WM = WM_, WN = WN_;            // warp tile
  static constexpr int TM = TM_, TN = TN_;            // thread tile
  static constexpr int Stages = Stages_;              // shared-memory buffers in the ring
  static constexpr int KU = KU_;                      // k steps unrolled per pass of the loop
  static constexpr int kWarps = (BM / WM) * (BN / WN);    // one warp per WM x WN warp tile
  static constexpr int kThreads = kWarps * kWarpSize;
  // Blocks per SM the registers must allow: two, unless two blocks' accumulators alone would
  // fill more than half the register file (then one block of up to 255 registers a thread).
  static constexpr int kMinBlocks = kThreads <= 256 && 2 * kThreads * TM * TN <= kRegsPerSm / 2 ? 2 : 1;
  static constexpr int kLaneCols = WN / TN;               // lanes across a warp tile
  static constexpr int kVecA = BK / kVecWidth;           // float4s per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;           // float4s per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;        // A-tile rows copied per pass of all threads
  static constexpr int kLanesB = kWarpSize / 2;          // lanes along a tile row in one copy instruction
  static constexpr int kRowsPerWarpB = BK / kWarps;      // tile rows each warp copies (either operand)
  static constexpr int kLoadsA = BM / kRowsA;            // float4s of A each thread carries per slab
  static constexpr int kChunks = BK / KU;                // chunks of KU steps per slab
  static constexpr int kLoadsB = BN / kRowsA;            // float4s of a K-contiguous B slab per thread, carried in
  static constexpr int kPiecesB = kLoadsB / 2 < kChunks ? kLoadsB / 2 : kChunks, kPieceB = kLoadsB / kPiecesB;
  static constexpr int kPieceRows = kPieceB * kRowsA;    // pieces (one a chunk) of kPieceB, kPieceRows rows of B
  static constexpr int kGroupsM = TM / kVecWidth;        // a lane's rows: groups of 4, WM/kGroupsM apart
  static constexpr int kGroupsN = TN / kVecWidth;        // a lane's columns: groups of 4, WN/kGroupsN apart
  static constexpr int kStageFloats = BK * BM + BK * BN; // one stage: the A and the B tile
  static constexpr int kStagedFloats = BK * BN;          // a K-contiguous B's next slab, as each thread copied it
  // Up to 64 accumulators a thread leave registers to spare: the capstone's 128 spilled with either
  // use of them below (C staged through shared memory, the 4-byte copies' rows unrolled).
  static constexpr bool kSpareRegs = TM * TN <= 64;
  // A tile inside M and N whose K ends in a partial slab checks that slab alone where registers are
  // to spare; with the capstone's 128 accumulators the choice between two loaders in every slab
  // costs the unchecked tile its register layout (the FFMAs' register-bank conflicts), so there a
  // K tail checks every slab, as in rung 16.
  static constexpr bool kTailSlab = kSpareRegs;
  // An unaligned C goes through shared memory (store_through_smem) where registers are to spare, in
  // rows padded by a float.
  static constexpr bool kStageC = kSpareRegs;
  static constexpr int kCPitch = BN + 1;
  static constexpr int kCFloats = kStageC ? BM * kCPitch : 0;
  // op(B) = B: the stages alone, or the C tile an unaligned C is stored through where that is larger.
  static constexpr int kSmemBytes = (Stages * kStageFloats > kCFloats ? Stages * kStageFloats : kCFloats) *
                                    int(sizeof(float));
  // op(B) = B^T adds the staging area; only its kernels ask for it (the others keep their occupancy).
  static constexpr int smem_bytes(bool transB) { return kSmemBytes + (transB ? kStagedFloats * int(sizeof(float)) : 0); }
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert(WM % TM == 0 && WN % TN == 0, "thread tiles must tile the warp tile exactly");
  static_assert((WM / TM) * (WN / TN) == kWarpSize, "a warp tile holds exactly 32 thread tiles");
  static_assert(BK % kVecWidth == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "128-bit accesses need BK, TM and TN to be multiples of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kVecB % kLanesB == 0 && BK % (2 * kWarps) == 0, "the warps must copy the B tile in whole row pairs");
  static_assert(kLoadsA % 2 == 0 && kPieceB % 2 == 0, "K-contiguous rows are loaded and stored in pairs");
  static_assert(kLoadsB % kPiecesB == 0 && kPieceRows % kWarpSize == 0, "B's pieces are whole 32-float chunks");
  static_assert(BM % kWarpSize == 0 && BN % kWarpSize == 0 && BK <= kWarpSize,
                "the swizzle permutes within 32-float chunks of a row");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
  static_assert(kLoadsB * kThreads * kVecWidth == kStagedFloats, "the staging area holds one slab of B");
  static_assert(KU % kVecWidth == 0 && BK % KU == 0, "the k loop is unrolled in whole quads that divide the slab");
};

// Column of element (k, m) in a swizzled tile, A's or B's. m and the result are floats;
// multiples of 4 map to multiples of 4, so float4 groups stay whole.
template <int BK>
__device__ __forceinline__ int swizzle(int k, int m) {
  return m ^ ((k / kVecWidth) * (kWarpSize * kVecWidth / BK));
}
// The same where a tile is swizzled (kSwizzled), m itself where it is not: B's tile is swizzled only
// when its transposed stores need it (B 'T'), so that NN's fragment loads are rung 16's.
template <bool kSwizzled, int BK>
__device__ __forceinline__ int column(int k, int m) {
  return kSwizzled ? swizzle<BK>(k, m) : m;
}

// The shared-memory buffers of one pipeline stage: both tiles along M or N, XOR-swizzled,
// whichever way the slab came in.
template <class Cfg>
struct Stage {
  float (*a)[Cfg::BM];  // [BK][BM]: a slab of op(A), transposed
  float (*b)[Cfg::BN];  // [BK][BN]: a slab of op(B)
};

template <class Cfg>
__device__ __forceinline__ Stage<Cfg> stage_at(float* smem, int s) {
  float* base = smem + s * Cfg::kStageFloats;
  return {reinterpret_cast<float (*)[Cfg::BM]>(base), reinterpret_cast<float (*)[Cfg::BN]>(base + Cfg::BK * Cfg::BM)};
}

// Keeps the compiler from moving memory accesses across this point: cp.async and its waits are asm
// that it does not see touch memory.
__device__ __forceinline__ void compiler_fence() { asm volatile("" ::: "memory"); }

// An operand contiguous along K (A for 'N', B for 'T'; `rows`: M or N), rows r0.. from column k0
// into registers (128-bit loads). kGuard: check bounds, fill zeros. A thread's rows come in pairs
// (2p, 2p+1, then the pair 2 * kRowsA below), so that store_rows can write each k's two side by side.
template <bool kVec, class Cfg, bool kGuard, int kLoads>
__device__ __forceinline__ void load_rows(float4 (&rStage)[kLoads], const float* X, int ld, int rows, int K, int r0,
                                          int k0) {
  const int aRow = threadIdx.x / Cfg::kVecA, aCol = threadIdx.x % Cfg::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    const int gRow = r0 + 2 * aRow + i % 2 + i / 2 * 2 * Cfg::kRowsA;
    const float* src = X + int64_t(gRow) * ld;
    rStage[i] = kGuard ? load4_or_zero<kVec>(src, k0 + aCol, K, gRow < rows)
                       : load4<kVec>(src + k0 + aCol);
  }
}

// The same rows copied by cp.async into this thread's slots of a staging area [kLoads][kThreads]
// (float4s), where only this thread reads them back (no barrier between): a warp's copies and its
// reads are 512 contiguous bytes, no bank conflict. kGuard: zero-filled outside X.
template <bool kVec, class Cfg, bool kGuard, int kLoads>
__device__ __forceinline__ void copy_rows(float4* staged, const float* X, int ld, int rows, int K, int r0, int k0) {
  const int aRow = threadIdx.x / Cfg::kVecA, aCol = threadIdx.x % Cfg::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    const int gRow = r0 + 2 * aRow + i % 2 + i / 2 * 2 * Cfg::kRowsA;
    const float* src = X + int64_t(gRow) * ld + k0 + aCol;
    cp_async_16_zfill<kVec>(staged + i * Cfg::kThreads + threadIdx.x, src,
                            kGuard ? floats_inside(k0 + aCol, K, gRow < rows) : kVecWidth, X);
  }
}

// Those rows into a tile [BK][W] from column c0, transposed and swizzled. Rows m and m+1 (m even,
// as load_rows read them) stay side by side through the swizzle: one 64-bit store per k.
template <class Cfg, int W, int kLoads>
__device__ __forceinline__ void store_rows(float (*tile)[W], const float4 (&rStage)[kLoads], int c0) {
  const int aRow = threadIdx.x / Cfg::kVecA, aCol = threadIdx.x % Cfg::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < kLoads; i += 2) {
    const int m = c0 + swizzle<Cfg::BK>(aCol, 2 * aRow + i / 2 * 2 * Cfg::kRowsA);  // the same for the 4 k
    *reinterpret_cast<float2*>(&tile[aCol + 0][m]) = make_float2(rStage[i].x, rStage[i + 1].x);
    *reinterpret_cast<float2*>(&tile[aCol + 1][m]) = make_float2(rStage[i].y, rStage[i + 1].y);
    *reinterpret_cast<float2*>(&tile[aCol + 2][m]) = make_float2(rStage[i].z, rStage[i + 1].z);
    *reinterpret_cast<float2*>(&tile[aCol + 3][m]) = make_float2(rStage[i].w, rStage[i + 1].w);
  }
}

// An operand contiguous along K whose rows are not all 16-byte aligned (A for 'N', !kVec; `rows`: M),
// rows r0.. from column k0, copied by cp.async a float at a time into a tile [BK][W], transposed and
// swizzled, with no registers between. An instruction's lanes take 128 / BK rows (r) by the BK / 4
// quads of k (q), each lane the k = 4q + c of its quad: the swizzle XORs the quad into the bits above
// the row's, so the 32 floats land in 32 banks; the four instructions c = 0..3 read each row's BK
// floats (the L1 serves the repeats). Rows unrolled as copy_async's. kGuard: zero-filled outside X.
template <class Cfg, bool kGuard, int W>
__device__ __forceinline__ void copy_rows_transposed(float (*tile)[W], const float* X, int ld, int rows, int K,
                                                     int r0, int k0) {
  constexpr int kQuads = Cfg::BK / kVecWidth, kRowsPerCopy = kWarpSize / kQuads;
  constexpr int kGroups = W / kRowsPerCopy / Cfg::kWarps;  // a warp's groups of kRowsPerCopy rows
  static_assert(kWarpSize % kQuads == 0 && W % (kRowsPerCopy * Cfg::kWarps) == 0, "whole row groups a warp");
  const int lane = threadIdx.x % kWarpSize, q = lane % kQuads;
  const int m = threadIdx.x / kWarpSize * kRowsPerCopy + lane / kQuads;  // the first group's row
  const float* src = X + int64_t(r0 + m) * ld + k0 + q * kVecWidth;
  constexpr int kUnroll = Cfg::kSpareRegs ? kGroups : 1;
#pragma unroll kUnroll
  for (int i = 0; i < kGroups; ++i, src += int64_t(kRowsPerCopy) * Cfg::kWarps * ld) {
    const int row = m + i * kRowsPerCopy * Cfg::kWarps;
#pragma unroll
    for (int c = 0; c < kVecWidth; ++c) {
      const int k = q * kVecWidth + c;
      const bool inside = !kGuard || (r0 + row < rows && k0 + k < K);
      cp_async_4(&tile[k][swizzle<Cfg::BK>(k, row)], inside ? src + c : X, inside ? int(sizeof(float)) : 0);
    }
  }
}

// Issue the cp.async copies of an operand contiguous along M or N (A for 'T', B for 'N'; `cols`: M
// or N), rows k0.. from column c0, into a tile [BK][W]. A warp instruction copies row segments of
// up to 16 float4s (256 contiguous bytes each); a thread's copies lie in a few rows, kLanes float4s
// apart: one address per row, the columns constant offsets from it (the swizzle keeps 32-float
// chunks). kGuard: each 16-byte chunk reads only the bytes inside X and zero-fills the rest.
template <bool kVec, class Cfg, bool kGuard, bool kSwizzled, int W>
__device__ __forceinline__ void copy_async(float (*tile)[W], const float* X, int ld, int cols, int K, int c0, int k0) {
  constexpr int kLanes = W / kVecWidth < Cfg::kLanesB ? W / kVecWidth : Cfg::kLanesB;  // along a row
  static_assert(W / kVecWidth % kLanes == 0 && Cfg::kRowsPerWarpB % (kWarpSize / kLanes) == 0,
                "the warps must copy the tile in whole rows");
  const int lane = threadIdx.x % kWarpSize;
  if constexpr (!kVec) {
    // 4-byte copies: a lane's float4 would take four instructions whose lanes sit 16 bytes apart in
    // both memories (four times the sectors a copy needs, four lanes on a bank). Here each
    // instruction copies 32 consecutive floats of one row, a float a lane: 128 contiguous bytes,
    // 32 banks (the swizzle permutes within 32-float chunks).
    const int row0 = threadIdx.x / kWarpSize * Cfg::kRowsPerWarpB;
    const float* src = X + int64_t(k0 + row0) * ld + c0 + lane;
    // The rows unrolled where the accumulators leave registers for their addresses (kSpareRegs),
    // else a loop, one row's address at a time.
    constexpr int kUnroll = Cfg::kSpareRegs ? Cfg::kRowsPerWarpB : 1;
#pragma unroll kUnroll
    for (int r = 0; r < Cfg::kRowsPerWarpB; ++r, src += ld) {
      const int gRow = k0 + row0 + r;
#pragma unroll
      for (int q = 0; q < W / kWarpSize; ++q) {
        const int c = q * kWarpSize + lane;
        const bool inside = !kGuard || (gRow < K && c0 + c < cols);
        cp_async_4(&tile[row0 + r][column<kSwizzled, Cfg::BK>(row0 + r, c)], inside ? src + q * kWarpSize : X,
                   inside ? int(sizeof(float)) : 0);
      }
    }
    return;
  }
  const int bRow = threadIdx.x / kWarpSize * Cfg::kRowsPerWarpB + lane / kLanes;
  const int bCol = lane % kLanes * kVecWidth;
#pragma unroll
  for (int r = 0; r < Cfg::kRowsPerWarpB; r += kWarpSize / kLanes) {
    const int gRow = k0 + bRow + r;
    const float* src = X + int64_t(gRow) * ld + c0 + bCol;
    float* dst = &tile[bRow + r][column<kSwizzled, Cfg::BK>(bRow + r, bCol)];
#pragma unroll
    for (int c = 0; c < W; c += kLanes * kVecWidth)
      cp_async_16_zfill<kVec>(dst + c, src + c, kGuard ? floats_inside(c0 + bCol + c, cols, gRow < K) : kVecWidth, X);
  }
}

// The register fragments of step k: a lane's TM values of A and TN values of B. quad = k / 4,
// passed apart so that a k made of a runtime chunk plus a constant still swizzles in one XOR.
template <class Cfg, bool kSwizzledB>
__device__ __forceinline__ void load_fragment(float (&rA)[Cfg::TM], float (&rB)[Cfg::TN], Stage<Cfg> st, int k,
                                              int quad, int aBase, int bBase) {
#pragma unroll
  for (int i = 0; i < Cfg::kGroupsM; ++i) {
    const float4 v = load_f4(&st.a[k][swizzle<Cfg::BK>(quad * kVecWidth, aBase + i * (Cfg::WM / Cfg::kGroupsM))]);
    rA[i * 4] = v.x, rA[i * 4 + 1] = v.y, rA[i * 4 + 2] = v.z, rA[i * 4 + 3] = v.w;
  }
  // Where a lane's column groups lie whole 32-float chunks apart (the swizzle permutes within a
  // chunk), a swizzled tile needs one swizzled column per step, the groups constant offsets from it.
  // XOR each group's column instead, and ptxas spends more registers on addresses and lays out the
  // accumulators with several times the register-bank conflicts (SASS: docs/rungs/17_any_layout.md).
  constexpr int kStepN = Cfg::WN / Cfg::kGroupsN;
  constexpr bool kOneXor = kSwizzledB && kStepN % kWarpSize == 0;
  const float* row = &st.b[k][column<kSwizzledB, Cfg::BK>(quad * kVecWidth, bBase)];
#pragma unroll
  for (int j = 0; j < Cfg::kGroupsN; ++j) {
    const int n = bBase + j * kStepN;
    const float4 v = load_f4(kOneXor ? row + j * kStepN : &st.b[k][column<kSwizzledB, Cfg::BK>(quad * kVecWidth, n)]);
    rB[j * 4] = v.x, rB[j * 4 + 1] = v.y, rB[j * 4 + 2] = v.z, rB[j * 4 + 3] = v.w;
  }
}

// The TM x TN FFMAs of one k step in 2x2 blocks (rows i, i+1 x columns j, j+1), the row pairs
// walked down for one column pair and back up for the next. Consecutive FFMAs share an operand
// of each pair, which ptxas marks .reuse (read from the reuse cache, not the register banks).
template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&rA)[TM], const float (&rB)[TN], float (&rAcc)[TM][TN]) {
  static_assert(TM % 2 == 0 && TN % 2 == 0, "2x2 blocks need even thread tiles");
#pragma unroll
  for (int j = 0; j < TN; j += 2)
#pragma unroll
    for (int ii = 0; ii < TM; ii += 2) {
      const int i = (j / 2) % 2 == 0 ? ii : TM - 2 - ii;
      rAcc[i][j] += rA[i] * rB[j];
      rAcc[i][j + 1] += rA[i] * rB[j + 1];
      rAcc[i + 1][j] += rA[i + 1] * rB[j];
      rAcc[i + 1][j + 1] += rA[i + 1] * rB[j + 1];
    }
}

// C's rows not 16-byte aligned: stored a float at a time straight from the accumulators, each store
// instruction of a warp would write one float of every 16 bytes across several rows (an eighth of
// each 32-byte sector it touches, which the L2 then takes four or eight times). The tile goes
// through shared memory instead (the stages are free once the K loop is done; rows padded by a
// float, so that the lanes' writes spread over the banks), and each warp then stores 32
// consecutive floats of a row per instruction.
template <class Cfg, bool kGuard>
__device__ __forceinline__ void store_through_smem(float* smem, const Gemm& g, int m0, int n0, int aBase, int bBase,
                                                   const float (&rAcc)[Cfg::TM][Cfg::TN]) {
  __syncthreads();  // every warp is done reading the stages
#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i) {
    const int row = aBase + i / kVecWidth * (Cfg::WM / Cfg::kGroupsM) + i % kVecWidth;
#pragma unroll
    for (int j = 0; j < Cfg::TN; ++j)
      smem[row * Cfg::kCPitch + bBase + j / kVecWidth * (Cfg::WN / Cfg::kGroupsN) + j % kVecWidth] = rAcc[i][j];
  }
  __syncthreads();
  const int rows = kGuard ? min(Cfg::BM, g.M - m0) : Cfg::BM, cols = kGuard ? min(Cfg::BN, g.N - n0) : Cfg::BN;
#pragma unroll 4
  for (int e = threadIdx.x; e < Cfg::BM * Cfg::BN; e += Cfg::kThreads) {
    const int r = e / Cfg::BN, c = e % Cfg::BN;
    if (kGuard && (r >= rows || c >= cols)) continue;
    float* out = g.C + int64_t(m0 + r) * g.ldc + n0 + c;
    // Without a bias, -0: adding it changes no value, not even a zero's sign.
    *out = epilogue(g.alpha, smem[r * Cfg::kCPitch + c], g.beta, out) + (g.bias == nullptr ? -0.0f : g.bias[n0 + c]);
  }
  __syncthreads();  // a stream-K block's next unit refills the stages
}

// One unit of work: slabs [u.kb, u.ke) of the BM x BN tile of C at (u.m0, u.n0), through the
// pipeline; `g` covers just those slabs. !kGuard: a tile inside M and N over whole slabs, with no
// bounds check at all (the loop is rung 16's). kGuard: an edge tile checks every slab, and a tile
// inside M and N whose K ends in a partial slab its last slab (Cfg::kTailSlab) or every slab. The unit ends as u.finish says: stored to C,
// published as a partial tile, or fixed up with the later partials. kVecC: C's rows are 16-byte
// aligned (128-bit stores), as kVec says of every operand unless a caller asks otherwise (the
// dispatch rung reads aligned A and B rows with 128-bit loads and stores an unaligned C a float at a time).
template <bool kVec, bool kTransA, bool kTransB, class Cfg, bool kGuard, bool kVecC = kVec>
__device__ __forceinline__ void compute_tile(float* smem, const Gemm& g, const stream_k::Unit& u,
                                             const stream_k::Partials& parts) {
  const int m0 = u.m0, n0 = u.n0;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (Cfg::BN / Cfg::WN) * Cfg::WM, wn0 = warp % (Cfg::BN / Cfg::WN) * Cfg::WN;  // this warp's tile
  const int aBase = wm0 + lane / Cfg::kLaneCols * kVecWidth;  // this lane's first row
  const int bBase = wn0 + lane % Cfg::kLaneCols * kVecWidth;  // and first column
  float rAcc[Cfg::TM][Cfg::TN] = {};  // [TM][TN]: rows aBase + i*WM/kGroupsM + v, columns likewise
  const int kTiles = ceil_div(g.K, Cfg::BK);
  auto stage = [&](int slab) { return stage_at<Cfg>(smem, slab % Cfg::Stages); };
  // f(check) with the check slab `slab` needs, a compile-time bool: none without kGuard (so that the
  // unchecked loop holds one copy of each loader, no branch between two), every slab of an edge
  // tile, the last slab of a K tail where Cfg::kTailSlab (else every slab).
  const bool edge = m0 + Cfg::BM > g.M || n0 + Cfg::BN > g.N;
  auto with_check = [&](int slab, auto&& f) {
    if constexpr (kGuard && Cfg::kTailSlab) {
      if (edge || slab == kTiles - 1) f(std::true_type{});
      else f(std::false_type{});
    } else {
      f(std::bool_constant<kGuard>{});
    }
  };
  // A contiguous along K goes through registers where its rows are 16-byte aligned (128-bit loads,
  // transposed by 64-bit stores); otherwise a float at a time, by cp.async (copy_rows_transposed).
  constexpr bool kCopyA = kTransA || !kVec;
  auto issue = [&](int slab) {  // the cp.async of one slab (operands contiguous along M or N), one commit group
    const int k0 = slab * Cfg::BK;
    if (kTransA && slab < kTiles)
      with_check(slab, [&](auto check) {
        copy_async<kVec, Cfg, check(), true>(stage(slab).a, g.A, g.lda, g.M, g.K, m0, k0);
      });
    if (!kTransA && !kVec && slab < kTiles)
      with_check(slab, [&](auto check) {
        copy_rows_transposed<Cfg, check()>(stage(slab).a, g.A, g.lda, g.M, g.K, m0, k0);
      });
    if (!kTransB && slab < kTiles)
      with_check(slab, [&](auto check) {
        copy_async<kVec, Cfg, check(), false>(stage(slab).b, g.B, g.ldb, g.N, g.K, n0, k0);
      });
    cp_async_commit();  // empty groups keep the wait count uniform
  };
  float4 rStage[Cfg::kLoadsA];  // a K-contiguous A: the next slab, on its way from global to shared memory
  auto fetch_a = [&](int slab) {
    if (!kCopyA)
      with_check(slab, [&](auto check) {
        load_rows<kVec, Cfg, check()>(rStage, g.A, g.lda, g.M, g.K, m0, slab * Cfg::BK);
      });
  };
  auto store_a = [&](int slab) { if (!kCopyA) store_rows<Cfg>(stage(slab).a, rStage, 0); };
  // A K-contiguous B goes through registers a piece at a time (rPiece). Slab 0's pieces are loaded
  // from global memory in the prologue; every later slab's are copied by cp.async a slab ahead
  // into this thread's slots of the staging area (one commit group a piece), and read back from
  // there in the chunk that stores them (whose copies for the slab after then reuse the slots).
  static_assert(!kTransB || Cfg::Stages == 2, "the staged pieces' wait counts assume two stages");
  constexpr int kPendingB = kTransB ? Cfg::kPiecesB : 0;  // piece groups committed after a slab's issue
  float4 rPiece[Cfg::kPieceB];
  float4* staged = reinterpret_cast<float4*>(smem + Cfg::Stages * Cfg::kStageFloats);
  auto fetch_b = [&](int slab, int p) {
    with_check(slab, [&](auto check) {
      load_rows<kVec, Cfg, check()>(rPiece, g.B, g.ldb, g.N, g.K, n0 + p * Cfg::kPieceRows, slab * Cfg::BK);
    });
  };
  auto copy_b = [&](int slab, int p) {  // piece p of `slab` into the staging slots, one commit group
    if (slab < kTiles)
      with_check(slab, [&](auto check) {
        copy_rows<kVec, Cfg, check(), Cfg::kPieceB>(staged + p * Cfg::kPieceB * Cfg::kThreads, g.B, g.ldb, g.N, g.K,
                                                    n0 + p * Cfg::kPieceRows, slab * Cfg::BK);
      });
    cp_async_commit();  // empty past the last slab: the wait counts stay uniform
  };
  auto unstage_b = [&](int p) {
#pragma unroll
    for (int i = 0; i < Cfg::kPieceB; ++i) rPiece[i] = staged[(p * Cfg::kPieceB + i) * Cfg::kThreads + threadIdx.x];
  };
  auto store_b = [&](int slab, int p) { store_rows<Cfg>(stage(slab).b, rPiece, p * Cfg::kPieceRows); };

  // Prologue: the copies of slabs 0 .. Stages-1 in flight (one more than before: the next is issued
  // at the slab-end barrier), a K-contiguous B's slab 0 stored piece by piece, A slab 0 stored, A
  // slab 1 in flight.
  // Commit order: slab 0's copies, slab 1's staged pieces, then slab 1's copies, as in the loop.
  issue(0);
  for (int p = 0; kTransB && p < Cfg::kPiecesB; ++p) fetch_b(0, p), store_b(0, p);
  for (int p = 0; kTransB && p < Cfg::kPiecesB; ++p) copy_b(1, p);
  for (int s = 1; s < Cfg::Stages; ++s) issue(s);
  fetch_a(0);
  store_a(0);
  if (kTiles > 1) fetch_a(1);
  cp_async_wait<Cfg::Stages - 1 + kPendingB>();
  __syncthreads();
  float rA[2][Cfg::TM], rB[2][Cfg::TN];  // double-buffered register fragments
  load_fragment<Cfg, kTransB>(rA[0], rB[0], stage(0), 0, 0, aBase, bBase);

  // The k loop runs in chunks of KU steps: only one chunk is unrolled, so the loop body stays
  // small enough for the instruction cache (a whole 32-step slab of 8x16 outer products is 70 KB
  // of SASS). KU == BK unrolls a whole slab.
  constexpr int kChunks = Cfg::kChunks;
  // A K tail's last slab runs only the chunks that hold its k steps: the zero-filled rest adds
  // nothing (at K = 131, 17 chunks of 8 steps instead of 20).
  const int chunks = kGuard ? (kTiles - 1) * kChunks + ceil_div(g.K - (kTiles - 1) * Cfg::BK, Cfg::KU)
                            : kTiles * kChunks;
#pragma unroll 1
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int kt = chunk / kChunks, c = chunk % kChunks;  // slab, and chunk within the slab
    const Stage<Cfg> st = stage(kt);
    // A K-contiguous B: piece c of slab kt+1, copied to the staging slots a slab ago, read back four
    // steps before the chunk's end and stored two steps before it (its registers free before the slab
    // end's), into the stage no warp reads until the barrier; then piece c of slab kt+2 is copied
    // into the slots it leaves.
    const bool pieces = kTransB && c < Cfg::kPiecesB, piece = pieces && kt + 1 < kTiles;
#pragma unroll
    for (int k = 0; k < Cfg::KU; ++k) {
      if (k == Cfg::KU - 4 && pieces) {
        cp_async_wait<kPendingB>();  // this piece's group: kPiecesB groups were committed after it
        compiler_fence();            // (the reads of the slots stay after the wait)
        if (piece) unstage_b(c);
      }
      if (k == Cfg::KU - 2 && pieces) {
        if (piece) store_b(kt + 1, c);
        compiler_fence();  // (and before the copies that refill them)
        copy_b(kt + 2, c);
      }
      if (k == Cfg::KU - 1 && c == kChunks - 1) {
        // End of the slab: publish A slab kt+1, wait for the copies of slab kt+1, read its first
        // fragment (its latency hides behind the copies issued next), then start slab kt+Stages in
        // the stage every warp has now left, and A slab kt+2.
        if (kt + 1 < kTiles) store_a(kt + 1);
        cp_async_wait<Cfg::Stages - 2 + kPendingB>();  // the pieces of slab kt+2 stay in flight
        __syncthreads();
        if (kt + 1 < kTiles)
          load_fragment<Cfg, kTransB>(rA[(k + 1) % 2], rB[(k + 1) % 2], stage(kt + 1), 0, 0, aBase, bBase);
        issue(kt + Cfg::Stages);
        if (kt + 1 < kTiles) {  // (nested as measured: the flat test compiles to another schedule)
          if (kt + 2 < kTiles) fetch_a(kt + 2);
        }
      } else {  // step c*KU + k + 1 of this slab
        load_fragment<Cfg, kTransB>(rA[(k + 1) % 2], rB[(k + 1) % 2], st, c * Cfg::KU + k + 1,
                         c * (Cfg::KU / kVecWidth) + (k + 1) / kVecWidth, aBase, bBase);
      }
      outer_product(rA[k % 2], rB[k % 2], rAcc);
    }
  }
  cp_async_wait<0>();
  if (kGuard && chunks < kTiles * kChunks) __syncthreads();  // the skipped slab end's: every warp has left the stages
  if (u.finish == stream_k::Finish::kPublish) return stream_k::publish<Cfg::kThreads>(rAcc, parts, u.block);
  if (u.finish == stream_k::Finish::kFixUp) stream_k::add_partials<Cfg::kThreads>(rAcc, parts, u.block, u.lastHelper);

  if constexpr (!kVecC && Cfg::kStageC) {
    store_through_smem<Cfg, kGuard>(smem, g, m0, n0, aBase, bBase, rAcc);
  } else {
#pragma unroll
    for (int j = 0; j < Cfg::TN; j += kVecWidth) {  // a group of four columns at a time, with its bias
      const int col = n0 + bBase + j / kVecWidth * (Cfg::WN / Cfg::kGroupsN);
      // Without a bias, -0: adding it changes no value, not even a zero's sign.
      const float4 bias = g.bias == nullptr ? make_float4(-0.0f, -0.0f, -0.0f, -0.0f)
                                            : load4_or_zero<false>(g.bias, col, g.N, true);
#pragma unroll
      for (int i = 0; i < Cfg::TM; ++i) {
        const int row = m0 + aBase + i / kVecWidth * (Cfg::WM / Cfg::kGroupsM) + i % kVecWidth;
        if (kGuard && row >= g.M) continue;
        const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
        store4_epilogue<kVecC>(g.C + int64_t(row) * g.ldc + col, kGuard ? g.N - col : kVecWidth, g.alpha, acc,
                              g.beta, true, bias);
      }
    }
  }
}

// The whole tiles of the full waves: block (x, y, z) computes tile row y, column x of product z;
// blocks past the full waves return at once (their tiles are the stream-K blocks'). The cut
// launches it three times, on parts of the rows and of K.
template <bool kVec, bool kTransA, bool kTransB, class Cfg, bool kVecC = kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_17_any_layout(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                    float* C, int ldc, stream_k::Schedule sched, stream_k::Partials parts, Batch batch) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
#if __CUDA_ARCH__ >= 900
  // Every block has started: the next launch of the cut may take free slots now (programmatic
  // dependent launch). It reads nothing this one writes, so it never waits for it (no
  // griddepcontrol.wait); without that launch attribute this does nothing.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  if (int(blockIdx.y * gridDim.x + blockIdx.x) >= sched.dpTiles) return;
  const Gemm g = batch.product(Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, blockIdx.z);
  const stream_k::Unit u = stream_k::whole_tile(blockIdx.y * Cfg::BM, blockIdx.x * Cfg::BN, sched.kTiles);
  const bool inside = (blockIdx.y + 1) * Cfg::BM <= g.M && (blockIdx.x + 1) * Cfg::BN <= g.N && g.K % Cfg::BK == 0;
  if (inside) compute_tile<kVec, kTransA, kTransB, Cfg, false, kVecC>(smem, g, u, parts);
  else compute_tile<kVec, kTransA, kTransB, Cfg, true, kVecC>(smem, g, u, parts);
}

// The stream-K blocks (one product): block b computes its even share of the slabs of the tiles
// after the full waves, unit by unit, each unit a GEMM of its own over its slabs.
template <bool kVec, bool kTransA, bool kTransB, class Cfg, bool kVecC = kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
sgemm_17_any_layout_shares(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                           float beta, float* C, int ldc, stream_k::Schedule sched, stream_k::Partials parts,
                           Batch batch) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A slab [BK][BM], B slab [BK][BN])
  const Gemm g = batch.product(Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, 0);
  stream_k::for_each_unit<Cfg::BM, Cfg::BN>(sched, blockIdx.x, gridDim.x, [&](const stream_k::Unit& u) {
    const int k0 = u.kb * Cfg::BK;
    const Gemm slabs = g.k_range(k0, min(g.K - k0, (u.ke - u.kb) * Cfg::BK), kTransA, kTransB);
    __syncthreads();  // every warp has left the previous unit's stages
    if (u.m0 + Cfg::BM <= g.M && u.n0 + Cfg::BN <= g.N && slabs.K % Cfg::BK == 0)
      compute_tile<kVec, kTransA, kTransB, Cfg, false, kVecC>(smem, slabs, u, parts);
    else compute_tile<kVec, kTransA, kTransB, Cfg, true, kVecC>(smem, slabs, u, parts);
  });
}

}  // namespace sgemm::rung17

#ifndef SGEMM_DEVICE_ONLY
#include "common/cut.cuh"
#include "common/launch.cuh"
#include "ffma/17_any_layout.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung17 {

using T = tuned::Rung10;  // rung 10's tiles
using Tuned = Config<T::BM, T::BN, T::BK, T::WM, T::WN, T::TM, T::TN, T::Stages, T::KU>;

// A slab of a stream-K share costs tuned::kStreamKSlabCost whole-tile slabs.
constexpr stream_k::Model kModel{Tuned::BM, Tuned::BN, Tuned::BK, tuned::kStreamKSlabCost};

std::string tile() { return pipelined_tile_text<Tuned>(); }

bool supports(const GemmArgs& a, std::string* why) {
  return fits_int32(a, why) && grid_ok(ceil_div64(a.N, Tuned::BN), ceil_div64(a.M, Tuned::BM), why);
}

// For the CPU tests: the model, and the blocks per SM the launch bounds ask the registers for.
stream_k::Model model() { return kModel; }
int min_blocks_per_sm() { return Tuned::kMinBlocks; }

// What the add costs per tile of the cut rows, in slab-times of one block: 12 bytes per element
// (W and C read, C written) at the DRAM peak, against a slab's 2 BM BN BK flops at one slot's
// share of the FP32 peak. Negative (no cut) where the device's peaks are unknown.
double add_slabs_per_tile(int64_t slots, const DeviceRates& r) {
  if (!(r.fp32_flops > 0 && r.dram_bytes > 0)) return -1;
  return 12.0 * r.fp32_flops / (r.dram_bytes * 2.0 * Tuned::BK * double(slots));
}

// The plan on a device of `slots` resident blocks with peaks `r`.
cut::Plan plan_on(const GemmArgs& a, int64_t slots, const DeviceRates& r, bool overlap) {
  return cut::plan(kModel, a.M, a.N, a.K, slots, add_slabs_per_tile(slots, r), overlap);
}

// The launch's kernels for an access width (128-bit or 32-bit) and the operands' layouts.
struct Kernels { decltype(&sgemm_17_any_layout<true, false, false, Tuned>) whole, shares; };
Kernels kernels(bool vec, bool transA, bool transB) {
  return by_layout(vec, transA, transB, [](auto v, auto ta, auto tb) {
    return Kernels{sgemm_17_any_layout<v(), ta(), tb(), Tuned>, sgemm_17_any_layout_shares<v(), ta(), tb(), Tuned>};
  });
}

// The launch's kernels prepared on the current device.
Status prepare_kernels(bool vec, bool transA, bool transB, KernelInfo* info, std::string* why) {
  const Kernels k = kernels(vec, transA, transB);
  const int smem = Tuned::smem_bytes(transB);
  const Status s = prepare(k.whole, Tuned::kThreads, smem, nullptr, why);
  return s != Status::kOk ? s : prepare(k.shares, Tuned::kThreads, smem, info, why);
}

// The plan for `a` on the current device (the launcher's, and the GPU tests').
Status plan_of(const GemmArgs& a, cut::Plan* p, std::string* why) {
  KernelInfo info;
  if (const Status s = prepare_kernels(vec4_ok_batched(a), a.transa, a.transb, &info, why); s != Status::kOk) return s;
  DeviceRates r;
  if (device_rates(&r) != Status::kOk) r = DeviceRates{};
  // Launches overlap only where programmatic dependent launch exists (sm_90 and newer).
  *p = plan_on(a, int64_t(info.sms) * info.blocks_per_sm, r, info.cc_major >= 9);
  return Status::kOk;
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  // 128-bit accesses where every row is 16-byte aligned, 32-bit ones otherwise; the layouts' instance.
  const Kernels k = kernels(vec4_ok_batched(a), a.transa, a.transb);
  const Batch batch{a.strideA, a.strideB, a.strideC, a.bias};
  cut::Plan p;
  if (const Status s = plan_of(a, &p, why); s != Status::kOk) return s;
  if (a.batch > 1) return cut::launch_batch<Tuned>(k.whole, a, batch, stream);  // whole tiles, grid z the product
  if (p.cut()) {  // the bias goes into C with the first slabs, not into the workspace
    auto extra = [&](bool intoWorkspace) { return std::tuple{Batch{0, 0, 0, intoWorkspace ? nullptr : a.bias}}; };
    return cut::launch<Tuned>(p, kModel, k.whole, a, stream, extra);
  }
  return stream_k::launch(p.streamK, kModel, k.whole, k.shares, Tuned::kThreads, Tuned::smem_bytes(a.transb), a, stream,
                          batch);
}

}  // namespace sgemm::rung17
#endif
